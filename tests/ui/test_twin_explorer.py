"""Parity in Chromium: the export's maths of the explorer against Python, as the student sees it.

The sentence is free input, so the export computes in the page what the live app computes in
Python: ``C04.views.explorer.readState`` (dashboards/static/demos/explorer.js on top of
dashboards/static/c04.js, in a blank page with the constants the export embeds) must give the
numbers of ``dashboards.demos.explorer.numbers(model)`` — the tokens, the focus, the mask and
every weight within 1e-12 — so that the drawing (``render``, one code live and offline) prints
the same texts, es and en, and the announcement names the same largest weight (ties within
1e-9 stay ties). The controls' logic (typed sentences, refused ones with the catalogue's
messages, the "Fíjate" buttons) must leave the controls' specs of the live view. What the
drawing shows is checked against the model in tests/dashboards/test_explorer.py.
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
from attnmodel.i18n import Refusal, text
from dashboards.demos.explorer import ExplorerView, constants, numbers

from c04_testing import assert_twin_equal, spanish_words_left, twin_html, use

pytestmark = pytest.mark.ui

TOL = 1e-12
TIE = 1e-9  # weights this close to the row's largest are a tie, in both

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


def embedded() -> dict:
    """The states JSON exactly as the export fills it for the explorer."""
    states: dict = {}
    assert ExplorerView().enable_client_side(states) == 0
    return states


def load_twin(page, lang: str = "es") -> None:
    page.set_content(twin_html("explorer.js", states=embedded(), lang=lang))
    page.wait_for_function("() => window.C04 && C04.views && C04.views.explorer")


@pytest.fixture
def twin(page, offline):
    load_twin(page)
    yield page
    assert offline.console_errors == []
    assert offline.external == []
    assert offline.dialogs == []


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


def as_page(value):
    """A value as it comes back from the page (tuples as lists, through JSON)."""
    return json.loads(json.dumps(value))


# The export's path for each setting: the sentence typed into the box with the other controls
# set (readState on stand-ins of the Board and its controls, board.js), then the drawing of the
# page's numbers and of Python's: what they print (every field but the floats behind the shades
# and the widths) as JSON texts, both given back only when they differ. The data goes as one
# JSON text each way (Playwright passes and checks a nested value value by value: seconds for
# 400 maps of up to 1 600 numbers).
PARITY_JS = """(text) => {
  const [states, python] = JSON.parse(text);
  const X = C04.views.explorer;
  const FLOATS = {table: "weights", row: "widths"};
  const printed = (drawing) => JSON.stringify(Object.keys(drawing).sort().map((slot) =>
    [slot, Object.entries(drawing[slot]).filter(([key]) => key !== FLOATS[slot])]));
  return JSON.stringify(states.map((s, k) => {
  const state_json = JSON.stringify({tokens: ["x"], focus: 0, causal: false, weights: [[1]]});
  const board = {data: {state_json, specs_json: "{}"}};
  const w = (name, value) => ({name, value});
  const args = {
    board,
    w_sentence: w("sentence", s.tokens.join(" ")),
    w_focus: w("focus", s.focus),
    w_focus_list: w("focus_list", s.focus),
    w_temperature: w("temperature", s.temperature),
    w_positional: w("positional", s.positional),
    w_causal: w("causal", s.causal),
  };
  args.trigger = args.w_sentence;
  const state = X.readState(args);
  const drawing = X.render(state);
  const [mine, theirs] = [printed(drawing), printed(X.render(python[k]))];
  return {state, printed: mine === theirs ? null : [mine, theirs], slots: Object.keys(drawing)};
}));
}"""


def near_max(row) -> list[int]:
    row = np.asarray(row)
    return np.flatnonzero(row >= row.max() - TIE).tolist()


def assert_parity(page, states: list[dict], lang: str, python: list[dict] | None = None) -> dict:
    """The page's numbers for ``states`` are Python's (``python``, computed here if not given);
    returns what was measured."""
    if python is None:
        python = [as_page(numbers(model_of(s))) for s in states]
    got = json.loads(page.evaluate(PARITY_JS, json.dumps([states, python])))
    largest, ties = 0.0, 0
    for setting, want, js in zip(states, python, got, strict=True):
        where = f"{lang} {setting}"
        state = js["state"]
        assert set(state) == set(want), where
        for name in ("tokens", "focus", "causal"):
            assert state[name] == want[name], (where, name)
        mine, theirs = np.asarray(state["weights"]), np.asarray(want["weights"])
        assert mine.shape == theirs.shape, where
        np.testing.assert_allclose(mine, theirs, rtol=TOL, atol=TOL, err_msg=where)
        if setting["causal"]:  # masked weights are exactly 0
            assert (mine[np.triu_indices(len(mine), 1)] == 0).all(), where
        largest = max(largest, float(np.max(np.abs(mine - theirs))))
        # Every printed text the same: the map's cells, the row's, its title, the announcement.
        assert set(js["slots"]) == {"table", "row", "announce"}, where
        if js["printed"] is not None:
            mine_printed, python_printed = (json.loads(p) for p in js["printed"])
            assert mine_printed == python_printed, where
        # The same largest weight of the focus row (ties within 1e-9 stay ties).
        focus = want["focus"]
        assert near_max(mine[focus]) == near_max(theirs[focus]), where
        ties += len(near_max(theirs[focus])) > 1
    return {"largest": largest, "ties": ties}


@pytest.fixture(scope="module")
def settings() -> tuple[list[dict], list[dict]]:
    """The edge cases (uniform rows whose percentages are exact halves, the default sentence at
    every focus and extreme temperatures, 40 tokens, markup) and seeded random sentences and
    settings, with Python's numbers of each (computed once for both languages)."""
    states = edge_states() + random_states(np.random.default_rng(20261129), 400)
    return states, [as_page(numbers(model_of(s))) for s in states]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_pages_numbers_are_pythons(page, offline, settings, lang):
    """The settings in a page of each language."""
    load_twin(page, lang)
    states, python = settings
    measured = assert_parity(page, states, lang, python)
    assert measured["ties"] > 0  # the uniform rows: every weight a tie
    print(f"\n{lang}: {len(states)} estados, máx |JS − Python| = {measured['largest']:.3g}")
    assert offline.console_errors == []
    assert offline.external == []


def test_forty_tokens_through_successive_changes(twin):
    """The longest sentence again and again as the temperature and the mask change, then a new
    sentence of 40 (the page keeps a few sentences' scores): Python's numbers each time. What
    these cost is `make bench`'s (bench/bench_browser.py, the explorer with 40 tokens)."""
    tokens = [f"palabra{i % 7}x{i}" for i in range(MAX_TOKENS)]
    states = [state_of(tokens, 3, 1.0, True, False)]
    states += [state_of(tokens, 3, 0.5 + k * 0.1, True, k % 2 == 0) for k in range(20)]
    states.append(state_of([t + "z" for t in tokens], 3, 1.0, True, False))
    assert len(states[-1]["tokens"]) == MAX_TOKENS == 40
    assert_parity(twin, states, "es")


def test_sentence_splitting_matches_python_for_every_code_point(twin):
    # str.split() and the page must agree on which characters separate words.
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
    for typed in ("", "   ", " \t\n a  b\u3000c\u0085d\ufeffe ", "\x1cx\x1fy"):
        assert twin.evaluate("(t) => C04.views.explorer.splitWords(t)", typed) == typed.split()


def test_the_embedded_constants_are_the_models(panel_cleanup):
    assert embedded() == {"explorer": constants()}
    model = AttentionExplorer()
    reset = constants()["reset"]
    assert (reset["sentence"], reset["focus"], reset["temperature"]) == (
        model.sentence, model.focus, model.temperature,
    )  # fmt: skip
    assert (reset["positional"], reset["causal"]) == (model.positional, model.causal)


# --- the controls: the same actions on the live view and in the page -------------------------

# One scenario step: (control, value). The page gets stand-ins of the Board (its data model's
# specs_json and state_json) and of its controls as board.js gives them to readState: w_<name>
# = {name, value} for each, trigger the one used, board. As board.js does, the control used
# takes its value in its spec first, the state readState returns is the board's new state, and
# each control then shows its spec's value if that changed (the box keeps a refused text).
JS_SCENARIO = """([steps, start]) => {
  const X = C04.views.explorer;
  const board = {data: {specs_json: JSON.stringify(start.specs), state_json: start.state_json}};
  const shown = Object.assign({}, start.shown);
  const screens = [];
  for (const [control, value] of steps) {
    let changed = true;  // a button always fires; a control only when its value changes
    if (control in shown) {
      changed = shown[control] !== value;
      shown[control] = value;
    }
    if (changed) {
      if (control in shown) {
        const specs = JSON.parse(board.data.specs_json);
        specs[control] = Object.assign({}, specs[control], {value});
        board.data.specs_json = JSON.stringify(specs);
      }
      const args = {board};
      for (const name of start.controls) args[`w_${name}`] = {name, value: shown[name] ?? null};
      args.trigger = args[`w_${control}`];
      board.data.state_json = JSON.stringify(X.readState(args));
      const specs = JSON.parse(board.data.specs_json);
      for (const name of Object.keys(shown)) {
        if (specs[name].value !== shown[name]) shown[name] = specs[name].value;
      }
    }
    screens.push({
      specs: JSON.parse(board.data.specs_json),
      state: JSON.parse(board.data.state_json),
      shown: Object.assign({}, shown),
    });
  }
  return screens;
}"""


CONTROLS = (
    *("sentence", "focus", "focus_list", "temperature", "positional", "causal"),
    *("reset", "cold", "hot", "causal_button"),
)
VALUED = CONTROLS[:6]  # the controls with a value (the others are buttons)


def screen(view: ExplorerView) -> dict:
    """What the live view sends: its Board's specs and state, and each control's value."""
    return {
        "specs": as_page(view.board.specs),
        "state": json.loads(view.board.state_json),
        "shown": {name: view.board.slot(name).spec["value"] for name in VALUED},
    }


def run_scenario(page, steps) -> None:
    view = ExplorerView()
    start = {**screen(view), "controls": list(CONTROLS)}
    start["state_json"] = view.board.state_json
    expected = []
    for control, value in steps:
        use(view, control, value)
        expected.append(screen(view))
    got = page.evaluate(JS_SCENARIO, [steps, start])
    for k, (step, js, py) in enumerate(zip(steps, got, expected, strict=True)):
        where = f"{k} {step}"
        assert js["specs"] == py["specs"], where
        assert js["shown"] == py["shown"], where
        assert_twin_equal(py["state"], js["state"], f"{where} state", TOL)


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


def test_markup_escapes_what_the_student_typed(twin):
    """markup.js draws the map, the bars and the message with the tokens as text: nothing typed
    becomes an element."""
    state = as_page(
        numbers(model_of(state_of([XSS, "<img/src=x/onerror=alert(1)>", "&"], 0, 1.0, True, False)))
    )
    values = twin.evaluate("(s) => C04.views.explorer.render(s)", state)
    for kind, spec in (("heatmap", values["table"]), ("focus_row", values["row"])):
        markup = twin.evaluate("([k, s]) => C04.markup[k](s)", [kind, spec])
        assert "<script" not in markup
        assert "<img" not in markup
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markup
    message = ExplorerView().board.specs["sentence_error"] | {"text": XSS}
    note = twin.evaluate("(s) => C04.markup.note(s)", message)
    assert "<script" not in note


# markup.js's draw(): each map drawn over the one before (heatmap.update), then compared with a
# new drawing of the same spec, and whether the cells were kept (the point of drawing in place).
# isEqualNode: the same nodes, texts and attributes (in any order: one set in place comes after
# the others). The pairs go as one JSON text (Playwright passes a nested argument value by
# value: 10 s for these maps).
JS_REDRAW = """(text) => JSON.parse(text).map(([first, second, mark]) => {
  const el = document.createElement("div");
  const [a, b] = [first, second].map((s) => C04.views.explorer.render(s).table);
  C04.markup.draw(el, "heatmap", a);
  const cell = el.querySelector("td");
  if (mark) {  // compare()'s marks of "antes → ahora" on every number
    for (const td of el.querySelectorAll("td")) {
      td.dataset.before = "9 %";
      td.classList.add("c04-before");
    }
  }
  C04.markup.draw(el, "heatmap", b);
  const fresh = document.createElement("div");
  fresh.innerHTML = C04.markup.heatmap(b);
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
        a = as_page(numbers(model_of(first)))
        for after in (again, second):
            b = as_page(numbers(model_of(after)))
            pairs += [[a, b, False], [a, b, True]]
    got = twin.evaluate(JS_REDRAW, json.dumps(pairs))
    for (a, b, mark), result in zip(pairs, got, strict=True):
        assert result["same"], (a["tokens"], b["tokens"], mark)
        assert result["kept"] == (len(a["tokens"]) == len(b["tokens"])), (a, b)
    assert sum(r["kept"] for r in got) >= 2 * len(states)  # every "again" pair at least


# --- the refused sentences' messages, in the page's language ---------------------------------

# A sentence typed into the box: the message readState puts beside it ("" when taken).
JS_REFUSED = """([typed, specs]) => {
  const state_json = JSON.stringify({tokens: ["a"], focus: 0, causal: false, weights: [[1]]});
  const board = {data: {state_json, specs_json: JSON.stringify(specs)}};
  const w_sentence = {name: "sentence", value: typed};
  C04.views.explorer.readState({
    board, trigger: w_sentence, w_sentence, w_focus: {name: "focus", value: 0},
    w_focus_list: {name: "focus_list", value: 0}, w_temperature: {name: "temperature", value: 1},
    w_positional: {name: "positional", value: true}, w_causal: {name: "causal", value: false},
  });
  const shown = JSON.parse(board.data.specs_json).sentence_error.text;
  return [shown, C04.views.explorer.sentenceError(typed)];
}"""

REFUSED = [
    "",
    "   ",
    " ".join(["a"] * (MAX_TOKENS + 1)),
    "x" * (MAX_WORD_CHARS + 1),
    "😀" * (MAX_WORD_CHARS + 1),
    "a " * (MAX_SENTENCE_CHARS // 2 + 1),
    "é" * 300_000,
]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_refused_sentence_says_what_the_live_view_says(page, offline, lang, panel_cleanup):
    """Each of the model's refusals (empty, too many words, a word too long, too many
    characters), in the page's language: the model's message and that the sentence is kept,
    exactly as the live view writes it; a sentence at the caps is taken."""
    load_twin(page, lang)
    view = ExplorerView(lang=lang)
    specs = as_page(view.board.specs)
    for typed in REFUSED:
        with pytest.raises(Refusal) as refused:
            AttentionExplorer(sentence=typed)
        message = f"{refused.value.message(lang)} {text('explorer.kept', lang)}"
        assert page.evaluate(JS_REFUSED, [typed, specs]) == [message, message], typed[:50]
        use(view, "sentence", typed)
        assert view.sentence_error.spec["text"] == message
        if lang == "en":
            assert spanish_words_left(message) == set()
            assert message.endswith("The previous sentence is kept.")
    for typed in ("😀" * MAX_WORD_CHARS, " ".join(["a"] * MAX_TOKENS), DEFAULT_SENTENCE):
        AttentionExplorer(sentence=typed)  # taken by the model
        assert page.evaluate(JS_REFUSED, [typed, specs]) == ["", ""]
    assert offline.console_errors == []
    assert offline.external == []
