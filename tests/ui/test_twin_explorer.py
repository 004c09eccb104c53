"""The explorer's browser twin (dashboards/static/demos/explorer.js on the C04 core) against Python.

c04.js and explorer.js are loaded into a blank Chromium page with the constants the export
embeds (``ExplorerView.enable_client_side``). For many random settings, ``render(state)`` in JS
must give exactly what ``dashboards.demos.explorer.render(model)`` gives (HTML byte for byte, the
token widgets' properties identical) and the attention weights within 1e-12; the controls' logic
(typed sentences, refused ones, the "Fíjate" buttons) must leave the same page as the live view.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from attnmodel.explorer import (
    DEFAULT_SENTENCE,
    MAX_SENTENCE_CHARS,
    MAX_TOKENS,
    MAX_WORD_CHARS,
    AttentionExplorer,
)
from dashboards.demos.explorer import ExplorerView, error_spec, render, sentence_message

from c04_testing import assert_twin_equal, spanish_words_left, twin_html, use

XSS = "<script>alert(1)</script>"

# Spanish words, duplicates up to case, accents and marks (trigrams strip them), markup that
# must come out escaped, non-Latin scripts and compatibility forms (NFKD).
VOCAB = [
    "El", "gato", "duerme", "porque", "el", "está", "cansado", "gatos", "Gato", "perro",
    "niño", "Ñandú", "acción", "ACCIÓN", "über", "café", "naïve", "a", "y", "¿qué?", "¡hola!",
    "1,5", "−2", "x\u0301", "<b>", "</td>", "&amp;", '"citas"', "'apóstrofe'", "x<y>z", XSS,
    "<img/src=x/onerror=alert(1)>", "🐈", "猫", "Σίσυφος", "ΟΔΟΣ", "İstanbul", "straße", "ﬁn",
    "Ⅻ", "ǅemal", "–", "(2)",
]  # fmt: skip


@pytest.fixture(scope="module")
def embedded():
    """The states JSON exactly as the export fills it for the explorer."""
    states: dict = {}
    assert ExplorerView().enable_client_side(states) == 0
    return states


@pytest.fixture
def twin(page, offline, embedded):
    page.set_content(twin_html("explorer.js", states=embedded))
    page.wait_for_function("() => window.C04 && C04.views && C04.views.explorer")
    yield page
    assert offline.console_errors == []
    assert offline.external == []
    assert offline.dialogs == []


# --- Python side ----------------------------------------------------------------------------


def jsonish(value):
    """Tuples as lists, as they come back from the page."""
    if isinstance(value, tuple | list):
        return [jsonish(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonish(v) for k, v in value.items()}
    return value


def state_of(tokens, focus, temperature, positional, causal) -> dict:
    return {
        "tokens": list(tokens),
        "focus": int(focus),
        "temperature": float(temperature),
        "positional": bool(positional),
        "causal": bool(causal),
    }


def model_of(state: dict) -> AttentionExplorer:
    return AttentionExplorer(
        sentence=" ".join(state["tokens"]),
        focus=state["focus"],
        temperature=state["temperature"],
        positional=state["positional"],
        causal=state["causal"],
    )


def random_states(rng, count: int) -> list[dict]:
    states = []
    # what the slider sends, float noise kept (0.1 + 0.05 k), within the model's bounds
    slider_steps = [min(0.1 + 0.05 * k, 3.0) for k in range(59)]
    for _ in range(count):
        n = int(rng.integers(1, MAX_TOKENS + 1))
        tokens = [VOCAB[int(i)] for i in rng.integers(0, len(VOCAB), n)]
        kind = rng.random()
        if kind < 0.3:
            temperature = float(slider_steps[int(rng.integers(len(slider_steps)))])
        elif kind < 0.4:
            temperature = float(rng.choice([0.1, 3.0]))
        else:
            temperature = float(rng.uniform(0.1, 3.0))
        states.append(
            state_of(
                tokens,
                rng.integers(0, n),
                temperature,
                rng.random() < 0.6,
                rng.random() < 0.4,
            )
        )
    return states


def edge_states() -> list[dict]:
    states = []
    # Uniform rows (one token repeated, no position): weights 1/n exactly, so "{w:.3f}" and
    # "{100 w:.2f}" hit binary ties (1/16 -> 0.062, 100/32 -> 3.12: Python rounds half to even).
    for n in (1, 2, 8, 16, 32, 40):
        for causal in (False, True):
            for temperature in (0.1, 1.0, 3.0):
                states.append(state_of(["gato"] * n, n - 1, temperature, False, causal))
                states.append(state_of(["gato"] * n, 0, temperature, True, causal))
    default = DEFAULT_SENTENCE.split()
    for focus in range(len(default)):
        for temperature in (0.1, 0.15000000000000002, 1.0, 2.9999999999999996, 3.0):
            for positional in (False, True):
                for causal in (False, True):
                    states.append(state_of(default, focus, temperature, positional, causal))
    distinct = [f"palabra{i % 7}x{i}" for i in range(MAX_TOKENS)]
    states.append(state_of(distinct, 39, 0.1, True, True))
    states.append(state_of(distinct, 0, 3.0, True, False))
    markup = [XSS, "<img/src=x/onerror=alert(1)>", "&", '"', "'", "&lt;"]
    states.append(state_of(markup, 0, 1.0, True, False))
    return states


def python_render(state: dict) -> dict:
    return jsonish(render(model_of(state)))


# --- JS side -------------------------------------------------------------------------------

# As one JSON text: Playwright checks every value it brings back one by one, and 400 maps of
# up to 1600 numbers took it seconds (the renders hold no NaN or infinity).
JS_RENDER = "(states) => JSON.stringify(states.map((s) => C04.views.explorer.render(s)))"


def js_render(page, states: list[dict]) -> list[dict]:
    return json.loads(page.evaluate(JS_RENDER, states))


JS_WEIGHTS = """(states) => states.map((s) => C04.views.explorer
    .attentionWeights(s.tokens, s.positional, s.causal, s.temperature)
    .map((row) => Array.from(row)))"""


def assert_same_render(page, states: list[dict]) -> None:
    got = js_render(page, states)
    for state, js in zip(states, got, strict=True):
        py = python_render(state)
        assert js.keys() == py.keys(), state
        for name in py:
            assert_twin_equal(py[name], js[name], f"{name} {state}")


def test_render_matches_python_on_edge_cases(twin):
    assert_same_render(twin, edge_states())


def test_render_matches_python_on_random_states(twin, rng):
    states = random_states(rng, 400)
    assert_same_render(twin, states)
    # The numbers behind the HTML: every weight within 1e-12 (and masked ones exactly 0).
    weights = twin.evaluate(JS_WEIGHTS, states)
    for state, js in zip(states, weights, strict=True):
        py = model_of(state).weights
        js = np.array(js)
        np.testing.assert_allclose(js, py, rtol=1e-12, atol=1e-12)
        if state["causal"]:
            assert (js[np.triu_indices(len(py), 1)] == 0).all()


def test_sentence_splitting_matches_python_for_every_code_point(twin):
    # str.split() and the twin must agree on which characters separate words.
    js = twin.evaluate(
        """() => {
          const out = [];
          for (let c = 0; c <= 0x10ffff; c++) {
            if (C04.views.explorer.splitWords("a" + String.fromCodePoint(c) + "b").length !== 1)
              out.push(c);
          }
          return out;
        }"""
    )
    python = [c for c in range(0x110000) if len(f"a{chr(c)}b".split()) != 1]
    assert js == python
    for text in ("", "   ", " \t\n a  b\u3000c\u0085d\ufeffe ", "\x1cx\x1fy"):
        assert twin.evaluate("(t) => C04.views.explorer.splitWords(t)", text) == text.split()


# --- the controls: the same actions on the live view and on the twin ------------------------

# One scenario step: (control, value). The JS side gets a fake Board (its model's specs_json,
# every target on it) and its controls as board.js gives them to the twin: w_<name> = {name,
# value} for each, trigger the one used. The render is applied as C04.apply does (the slots
# given, the others kept), and each control then shows its spec's value if that changed, as
# board.js draws it (the box keeps a refused text: its spec's value is that text).
JS_SCENARIO = """([steps, start]) => {
  const X = C04.views.explorer;
  const board = {data: {specs_json: JSON.stringify(start.specs)}};
  const shown = Object.assign({}, start.shown);
  const targets = Object.keys(start.specs);
  const screens = [];
  for (const [control, value] of steps) {
    let changed = true;  // a button always fires; a control only when its value changes
    if (control in shown) {
      changed = shown[control] !== value;
      shown[control] = value;
    }
    if (changed) {
      const args = {};
      for (const name of targets) args[name] = board;
      for (const name of start.controls) args[`w_${name}`] = {name, value: shown[name] ?? null};
      args.trigger = args[`w_${control}`];
      const values = X.render(X.readState(args));
      const specs = JSON.parse(board.data.specs_json);
      for (const [name, spec] of Object.entries(values)) {
        if (name in shown && (specs[name] || {}).value !== spec.value) shown[name] = spec.value;
        specs[name] = spec;
      }
      board.data.specs_json = JSON.stringify(specs);
    }
    screens.push({specs: JSON.parse(board.data.specs_json), shown: Object.assign({}, shown)});
  }
  return screens;
}"""


CONTROLS = (
    *("sentence", "focus", "focus_list", "temperature", "positional", "causal"),
    *("reset", "cold", "hot", "causal_button"),
)
VALUED = CONTROLS[:6]  # the controls with a value (the others are buttons)


def screen(view: ExplorerView) -> dict:
    """What the live view shows: its Board's specs (the twin's targets) and each control's
    value."""
    targets = view.client_targets()
    return {
        "specs": {name: jsonish(view.board.slot(name).spec) for name in targets},
        "shown": {name: view.board.slot(name).spec["value"] for name in VALUED},
    }


def live_step(view: ExplorerView, control: str, value) -> None:
    use(view, control, value)


def run_scenario(page, steps) -> None:
    view = ExplorerView()
    start = {**screen(view), "controls": list(CONTROLS)}
    expected = []
    for control, value in steps:
        live_step(view, control, value)
        expected.append(screen(view))
    got = page.evaluate(JS_SCENARIO, [steps, start])
    for k, (step, js, py) in enumerate(zip(steps, got, expected, strict=True)):
        assert set(js["specs"]) == set(py["specs"])
        for part in ("specs", "shown"):
            for name in py[part]:
                assert_twin_equal(py[part][name], js[part][name], f"{k} {step} {part} {name}")


def test_controls_leave_the_same_page_as_the_live_view(twin, panel_cleanup):
    run_scenario(
        twin,
        [
            ("focus", 2),
            ("focus_list", 6),
            ("temperature", 0.35000000000000003),
            ("positional", False),
            ("causal", True),
            ("sentence", "la reina habla con el rey"),
            ("sentence", ""),  # refused: message, the map keeps the last valid sentence
            ("temperature", 2.0),  # the message and the box stay
            ("causal_button", None),
            ("focus", 1),  # a new focus puts the sentence back in the box, clears the message
            ("sentence", "   "),
            ("focus_list", 3),
            ("sentence", "uno  dos\u3000tres"),  # the box gets back this spelling, not the words
            ("sentence", ""),
            ("focus_list", 0),
            ("sentence", "   "),
            ("focus", 2),
            ("sentence", "la reina habla con el rey"),
            ("sentence", " ".join(["a"] * (MAX_TOKENS + 1))),
            ("sentence", " ".join(["palabra"] * 100)),
            ("sentence", "x" * (MAX_WORD_CHARS + 1)),  # a word over the cap
            ("sentence", "😀" * MAX_WORD_CHARS),  # at the cap in code points (96 UTF-16 units)
            ("sentence", "a " * (MAX_SENTENCE_CHARS // 2 + 1)),  # the text over its cap
            ("sentence", "hola mundo"),  # shorter: the focus moves to the last token
            ("sentence", f"{XSS} <img src=x onerror=alert(1)> hola"),
            ("focus", 0),
            ("cold", None),
            ("hot", None),
            ("causal_button", None),
            ("sentence", ""),
            ("reset", None),  # default sentence in the box, message cleared
            ("reset", None),
            ("sentence", " ".join(f"t{i}" for i in range(MAX_TOKENS))),
            ("focus_list", 39),
            ("temperature", 3.0),
            ("sentence", "uno  dos\u3000tres"),
        ],
    )


def test_random_control_sequences(twin, rng, panel_cleanup):
    for _ in range(12):
        steps = []
        n = 8  # tokens on screen (the default sentence)
        for _ in range(14):
            control = str(rng.choice(CONTROLS))
            if control == "sentence":
                m = int(rng.choice([0, 1, 3, 12, MAX_TOKENS, MAX_TOKENS + 1]))
                words = [VOCAB[int(i)] for i in rng.integers(0, len(VOCAB), m)]
                value = " ".join(words)
                if 1 <= m <= MAX_TOKENS:
                    n = m
            elif control in ("focus", "focus_list"):
                value = int(rng.integers(0, n))
            elif control == "temperature":
                value = min(max(round(float(rng.uniform(0.1, 3.0)) / 0.05) * 0.05, 0.1), 3.0)
            elif control in ("positional", "causal"):
                value = bool(rng.random() < 0.5)
            else:
                value = None
                if control == "reset":
                    n = 8
            steps.append((control, value))
        run_scenario(twin, steps)


def test_error_spec_matches_python(twin, panel_cleanup):
    for text in ("", "La frase está vacía", XSS, "a & b"):
        assert twin.evaluate("(t) => C04.views.explorer.errorSpec(t)", text) == error_spec(text)


def test_markup_escapes_what_the_student_typed(twin):
    """markup.js draws the map, the bars and the message with the tokens as text: nothing typed
    becomes an element."""
    state = state_of([XSS, "<img/src=x/onerror=alert(1)>", "&"], 0, 1.0, True, False)
    values = python_render(state)
    for kind, spec in (("heatmap", values["table"]), ("focus_row", values["row"])):
        markup = twin.evaluate("([k, s]) => C04.markup[k](s)", [kind, spec])
        assert "<script" not in markup
        assert "<img" not in markup
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markup
    note = twin.evaluate("(s) => C04.markup.note(s)", error_spec(XSS))
    assert "<script" not in note


def test_forty_token_sentence_through_successive_changes_renders_what_python_renders(twin):
    """The longest sentence, rendered again and again as the temperature slider and the causal
    mask change and then as a new sentence of 40 arrives (the twin keeps per-sentence caches),
    gives Python's render each time. What these renders cost is `make bench`'s
    (bench/bench_browser.py, the explorer with 40 tokens)."""
    tokens = [f"palabra{i % 7}x{i}" for i in range(MAX_TOKENS)]
    states = [state_of(tokens, 3, 1.0, True, False)]
    states += [state_of(tokens, 3, 0.5 + k * 0.1, True, k % 2 == 0) for k in range(20)]
    states.append(state_of([t + "z" for t in tokens], 3, 1.0, True, False))
    assert len(states[-1]["tokens"]) == MAX_TOKENS == 40
    got = js_render(twin, states)
    for state, js in zip(states, got, strict=True):
        assert_twin_equal(python_render(state), js, str(state))


# markup.js's draw(): each map drawn over the one before (heatmap.update), then compared with a
# new drawing of the same spec, and whether the cells were kept (the point of drawing in place).
# isEqualNode: the same nodes, texts and attributes (in any order: one set in place comes after
# the others). The pairs go as one JSON text (Playwright passes a nested argument value by
# value: 10 s for these maps).
JS_REDRAW = """(text) => JSON.parse(text).map(([first, second, mark]) => {
  const el = document.createElement("div");
  C04.markup.draw(el, "heatmap", first);
  const cell = el.querySelector("td");
  if (mark) {  // compare()'s marks of "antes → ahora" on every number
    for (const td of el.querySelectorAll("td")) {
      td.dataset.before = "9 %";
      td.classList.add("c04-before");
    }
  }
  C04.markup.draw(el, "heatmap", second);
  const fresh = document.createElement("div");
  fresh.innerHTML = C04.markup.heatmap(second);
  return {same: el.isEqualNode(fresh), kept: el.querySelector("td") === cell};
})"""


def test_the_map_redrawn_in_place_is_the_map_drawn_anew(twin, rng):
    """``C04.markup.draw`` sets a map of the same size in place (its cells kept) and leaves the
    same DOM as a new drawing of the spec; a map of another size is drawn anew."""
    states = random_states(rng, 16) + edge_states()[::24]
    pairs = []
    for first, second in zip(states, states[1:] + states[:1], strict=True):
        # The same sentence at another setting, and whatever comes next (any size).
        n = len(first["tokens"])
        again = dict(second, tokens=first["tokens"], focus=min(second["focus"], n - 1))
        a = python_render(first)["table"]
        for after in (again, second):
            b = python_render(after)["table"]
            pairs += [[a, b, False], [a, b, True]]
    got = twin.evaluate(JS_REDRAW, json.dumps(pairs))
    for (a, b, mark), result in zip(pairs, got, strict=True):
        assert result["same"], (a["tokens"], b["tokens"], mark)
        assert result["kept"] == (len(a["tokens"]) == len(b["tokens"])), (a, b)
    assert sum(r["kept"] for r in got) >= 2 * len(states)  # every "again" pair at least


# --- the page's language: the same twin on an English page ---------------------------------

# A refused sentence typed into the box: the message readState gives (the page's language).
JS_REFUSED = """(typed) => {
  const board = {data: {specs_json: JSON.stringify({table: {tokens: ["a"]}})}};
  const w_sentence = {name: "sentence", value: typed};
  return C04.views.explorer.readState({
    table: board, trigger: w_sentence, w_sentence, w_focus: {name: "focus", value: 0},
    w_focus_list: {name: "focus_list", value: 0}, w_temperature: {name: "temperature", value: 1},
    w_positional: {name: "positional", value: true}, w_causal: {name: "causal", value: false},
  }).error;
}"""


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_page_language_twin_renders_what_python_renders(page, offline, lang, panel_cleanup):
    """An exported page in ``lang`` (its catalogue and its view's embedded constants): the map,
    the bars and the refused-sentence messages are Python's ``render(model, lang)`` and the live
    view's messages, in that language."""
    states: dict = {}
    view = ExplorerView(lang=lang)
    assert view.enable_client_side(states) == 0
    page.set_content(twin_html("explorer.js", states=states, lang=lang))
    page.wait_for_function("() => window.C04 && C04.views && C04.views.explorer")
    default = DEFAULT_SENTENCE.split()
    sample = [
        state_of(default, 5, 1.0, True, False),
        state_of(default, 2, 0.1, True, True),
        state_of(default, 7, 3.0, False, False),
        state_of([XSS, "{token}", "{{7*7}}", "$&", "a"], 0, 0.5, True, False),
    ]
    got = js_render(page, sample)
    for state, js in zip(sample, got, strict=True):
        assert_twin_equal(jsonish(render(model_of(state), lang)), js, str(state))
    assert got[0]["row"]["cells"][1] == ("39 %" if lang == "es" else "39%")
    for typed in ("", "   ", " ".join(["a"] * (MAX_TOKENS + 1))):
        message = sentence_message(typed, lang)
        assert page.evaluate(JS_REFUSED, typed) == message
        use(view, "sentence", typed)
        assert view.sentence_error.spec["text"] == message
        if lang == "en":
            assert spanish_words_left(message) == set()
            assert message.endswith("The previous sentence is kept.")
    assert offline.console_errors == []
    assert offline.external == []
