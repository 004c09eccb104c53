"""Browser twin of "Varias cabezas": the JS lookup gives exactly Python's render, every state.

The demo is discrete (4 sentences × h = 1 … 4), so the export embeds the Python render of all
16 states (packed by ``client_table``) and dashboards/static/demos/multihead.js only unpacks them.
Loaded in a blank Chromium page with the C04 core, its ``render(state)`` must equal
``dashboards.demos.multihead.render(model)`` for every state: HTML and every string identical, every
number the same double (stricter than the 1e-12 the numeric twins are held to).
"""

from __future__ import annotations

import json

import pytest

from attnmodel.i18n import text
from attnmodel.multihead import HEAD_OPTIONS, SENTENCES, MultiHeadDemo
from dashboards.demos.multihead import (
    HIDDEN_PANEL_STYLES,
    MultiHeadView,
    client_table,
    head_shown,
    render,
    state_key,
)

from c04_testing import twin_html

STATES = [(sentence, h) for sentence in SENTENCES for h in HEAD_OPTIONS]


@pytest.fixture(scope="module")
def table():
    return client_table(MultiHeadDemo().arc_threshold)


@pytest.fixture
def twin(page, table):
    """A blank page with the C04 core, the embedded states and multihead.js."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content(twin_html("multihead.js", states={"multihead": table}))
    page.wait_for_function("() => window.C04 && window.C04.views && window.C04.views.multihead")
    yield page
    assert errors == []


def js_render(page, sentence: str, h: int) -> dict:
    return page.evaluate(
        "([s, h]) => C04.views.multihead.render({sentence: s, n_heads: h})", [sentence, h]
    )


def assert_same_render(js: dict, py: dict, kinds: dict[str, str]) -> None:
    """Equal as JSON values: every string the same, every number the same double."""
    assert set(js) == set(py) == set(kinds)
    for name, expected in py.items():
        assert js[name] == json.loads(json.dumps(expected)), name


def test_every_state_is_exactly_the_python_render(twin):
    kinds = {name: kind for name, (_, kind) in MultiHeadView().client_targets().items()}
    for sentence, h in STATES:
        py = render(MultiHeadDemo(sentence=sentence, n_heads=h))
        assert_same_render(js_render(twin, sentence, h), py, kinds)


def test_state_key_and_read_state_match_python(twin):
    view = MultiHeadView()
    # What the Board's controls send the twin (board.js: args.w_<name>.value is the option's
    # value): the sentence itself, and h.
    sentences = [value for value, _ in view.sentence.spec["options"]]
    assert sentences == list(SENTENCES)
    assert [value for value, _ in view.n_heads.spec["options"]] == list(HEAD_OPTIONS)
    assert view.sentence.spec["value"] == SENTENCES[0]
    for sentence, h in STATES:
        got = twin.evaluate(
            """([s, h]) => {
                 const v = C04.views.multihead;
                 const state = v.readState({w_sentence: {name: "sentence", value: s},
                                            w_n_heads: {name: "n_heads", value: h}});
                 return [state, v.key(state)];
               }""",
            [sentence, h],
        )
        assert got == [{"sentence": sentence, "n_heads": h}, state_key(sentence, h)]


def test_the_table_holds_each_state_once_and_the_defaults(table):
    default = MultiHeadDemo()
    assert set(table) == {state_key(s, h) for s, h in STATES} | {"_shared"}
    assert state_key(default.sentence, default.n_heads) in table
    size = len(json.dumps(table, ensure_ascii=False, separators=(",", ":")).encode())
    assert size < 400_000, f"{size} bytes"


def test_each_render_is_a_fresh_copy(twin):
    """A caller that changes what it got cannot change the next lookup."""
    sentence = SENTENCES[0]
    again = twin.evaluate(
        """(s) => {
             const v = C04.views.multihead;
             const a = v.render({sentence: s, n_heads: 4});
             a.plot_2.weights[0][0] = -99;
             a.plot_2.tokens[0] = "x";
             a.plot_2.texts.arcs = "x";
             a.table_2.rows[0].cells[0] = "x";
             a.panel_1.display = "none";
             return v.render({sentence: s, n_heads: 4});
           }""",
        sentence,
    )
    py = render(MultiHeadDemo(sentence=sentence))
    for name in ("plot_2", "table_2", "panel_1"):
        assert again[name] == json.loads(json.dumps(py[name])), name


def test_hidden_heads_have_empty_specs(twin):
    got = js_render(twin, SENTENCES[1], 1)
    for k in (2, 3, 4):
        assert got[f"plot_{k}"] == got[f"table_{k}"] == {}
        assert got[f"panel_{k}"] == HIDDEN_PANEL_STYLES
        assert not head_shown(got[f"panel_{k}"])
        assert got[f"title_{k}"] == got[f"top_{k}"] == ""


def test_an_unknown_state_is_refused(twin):
    message = twin.evaluate(
        """() => { try { C04.views.multihead.render({sentence: "Hola", n_heads: 4}); }
                   catch (e) { return e.message; } return null; }"""
    )
    assert message == text("multihead.no_state", key=state_key("Hola", 4))


@pytest.mark.parametrize("lang", ["en"])
def test_a_page_in_another_language_is_the_python_render_in_it(page, lang):
    """The export embeds the states in the page's language: on an English twin page the JS
    lookup gives Python's render(model, "en") (decimal points, English titles, the tokens
    marked lang="es"), and its one message is the English catalogue's."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    table = client_table(MultiHeadDemo().arc_threshold, lang)
    page.set_content(twin_html("multihead.js", states={"multihead": table}, lang=lang))
    page.wait_for_function("() => window.C04 && window.C04.views && window.C04.views.multihead")
    kinds = {name: kind for name, (_, kind) in MultiHeadView().client_targets().items()}
    for sentence, h in [(SENTENCES[0], 4), (SENTENCES[1], 1), (SENTENCES[3], 2)]:
        py = render(MultiHeadDemo(sentence=sentence, n_heads=h), lang)
        assert py != render(MultiHeadDemo(sentence=sentence, n_heads=h))
        assert_same_render(js_render(page, sentence, h), py, kinds)
    got = js_render(page, SENTENCES[0], 4)
    assert "each head has dimension 6" in got["dims"]
    assert got["plot_2"]["cells"][2][1] == "0.97"
    assert got["plot_2"]["tokens"][1] == {"text": "perro", "lang": "es"}
    message = page.evaluate(
        """() => { try { C04.views.multihead.render({sentence: "Hola", n_heads: 4}); }
                   catch (e) { return e.message; } return null; }"""
    )
    assert message == text("multihead.no_state", lang, key=state_key("Hola", 4))
    assert message == "multihead: no exported state for sentence=Hola|n_heads=4"
    assert errors == []
