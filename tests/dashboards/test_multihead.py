"""MultiHeadView without a browser: controls reach the model, plots and lists follow it.

The board carries the model's numbers (``numbers``); what the page shows is multihead.js's
drawing of them, run here in Node (tests/c04_views.py, ``drawn``) and checked against values
computed in this file from the model and the catalogue."""

from __future__ import annotations

import html
import json
import logging
import re

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document

from attnmodel.formatting import es_number, es_percent, number, percent
from attnmodel.i18n import Refusal, text
from attnmodel.multihead import HEAD_OPTIONS, SENTENCE_IDS, SENTENCES, MultiHeadDemo
from dashboards.app.session import configure
from dashboards.components.markup import Markup
from dashboards.components.views import LangColumn
from dashboards.demos.multihead import MAX_HEADS, MultiHeadView, numbers, state_key

from c04_testing import (
    board_labels,
    board_texts,
    control_value,
    expected_top,
    label_text,
    multihead_plot_texts,
    one_refusal,
    spanish_words_left,
    spec_text,
    threshold_arcs,
    use,
    viewable_texts,
)
from c04_views import drawn

pytestmark = pytest.mark.usefixtures("panel_cleanup")


@pytest.fixture(scope="module", autouse=True)
def _extensions():
    configure()


@pytest.fixture
def view():
    return MultiHeadView()


def shown(view) -> dict:
    """Every slot as the browser draws it (multihead.js, run in Node)."""
    return drawn(view.board, view.lang)


def head_shown(styles: dict) -> bool:
    """Whether a head's panel with these styles (its group's spec) is on screen."""
    return styles.get("display") != "none"


def arcs(spec: dict) -> list[tuple[int, int]]:
    """The arcs a head's drawing draws: (query i, attended j)."""
    return [(i, j) for i, j in spec["arcs"]]


def model_arcs(arcs_list) -> list[tuple[int, int]]:
    return [(i, j) for i, j, _ in arcs_list]


def only(items):
    assert len(items) == 1
    return items[0]


def top_items(html: str) -> list[str]:
    return re.findall(r"<li[^>]*>(.*?)</li>", html)


def test_builds_with_default_model(view):
    layout = view.__panel__()
    assert layout is view.__panel__() is view.board  # built once; the Board alone
    root = layout.get_root()
    assert root is not None
    assert isinstance(view.model, MultiHeadDemo)
    assert control_value(view.sentence) == SENTENCES[0]
    assert control_value(view.n_heads) == 4
    labels = board_labels(view.board)
    assert labels["sentence"] == text("multihead.sentence_label") == "Frase"
    assert labels["n_heads"] == text("multihead.heads_label") == "Cabezas"
    # The options: every sentence (its own text), h = 1 … 4.
    assert view.sentence.spec["options"] == [[s, s] for s in SENTENCES]
    assert view.n_heads.spec["options"] == [[h, str(h)] for h in (1, 2, 3, 4)]
    assert (view.sentence.kind, view.n_heads.kind) == ("select", "choice")
    page = shown(view)
    assert [head_shown(page[f"panel_{k}"]) for k in range(1, MAX_HEADS + 1)] == [True] * MAX_HEADS


def test_the_header_and_the_controls_are_in_the_board(view):
    """The title, the introduction and its caveat are the Board's first node (no Markdown
    pane), the controls right under it with their help lines (the tooltips they were)."""
    first, controls = view.board.layout[:2]
    assert first["css"] == "c04-prose"
    assert '<a id="cabezas"></a>' in first["html"]
    assert f"<h2>{text('demo.cabezas')}</h2>" in first["html"]
    assert 'data-testid="multihead-caveat"' in first["html"]
    assert [(n["slot"], n["help"]) for n in controls["row"]] == [
        ("sentence", text("multihead.sentence_doc")),
        ("n_heads", text("multihead.n_heads_doc")),
    ]
    assert "mh-heads-control" in controls["row"][1]["css"]
    assert "lang" not in controls["row"][0]  # the Spanish page: nothing to mark
    assert not view.__panel__().select(pn.pane.Markdown)
    assert not view.__panel__().select(pn.widgets.Widget)


def test_each_view_has_its_own_widgets():
    a, b = MultiHeadView(), MultiHeadView()
    assert a.model is not b.model
    assert a.board is not b.board
    use(a, "sentence", SENTENCES[1])
    assert a.model.sentence == SENTENCES[1]
    assert b.model.sentence == SENTENCES[0]
    assert control_value(b.sentence) == SENTENCES[0]


def test_sentence_widget_reaches_model_and_back(view):
    use(view, "sentence", SENTENCES[2])
    assert view.model.sentence == SENTENCES[2]
    assert control_value(view.sentence) == SENTENCES[2]
    view.model.sentence = SENTENCES[3]
    assert control_value(view.sentence) == SENTENCES[3]


def test_heads_widget_reaches_model_and_back(view):
    use(view, "n_heads", 2)
    assert view.model.n_heads == 2
    assert control_value(view.n_heads) == 2
    view.model.n_heads = 3
    assert control_value(view.n_heads) == 3


@pytest.mark.parametrize("h", [1, 2, 3, 4])
def test_n_heads_shows_that_many_panels(view, h):
    use(view, "n_heads", h)
    m = view.model
    page = shown(view)
    # Hidden by CSS (display: none), not by Bokeh's `visible`, which relays out the whole page.
    panels = [page[f"panel_{k}"] for k in range(1, MAX_HEADS + 1)]
    assert [head_shown(p) for p in panels] == [k < h for k in range(MAX_HEADS)]
    # Each panel is a group of the Board around its fragments (its styles are its slot's).
    assert {view.board.kinds[f"panel_{k}"] for k in range(1, MAX_HEADS + 1)} == {"styles"}
    for k in range(MAX_HEADS):
        title, top = page[f"title_{k + 1}"], page[f"top_{k + 1}"]
        if k < h:
            assert f'data-testid="head-{k + 1}-title"' in title
            assert m.head_names[k] in title
            assert top_items(top) == expected_top(m, m.weights[k])
            spec = page[f"plot_{k + 1}"]
            assert arcs(spec) == model_arcs(m.arcs(k))
            np.testing.assert_array_equal(spec["weights"], m.weights[k])
            assert spec["testid"] == f"head-{k + 1}-plot"
        else:
            assert title == top == ""
            assert page[f"plot_{k + 1}"] == page[f"table_{k + 1}"] == {}
    assert page["dims"].endswith(f"{text('multihead.dims', d_model=24, h=h, d_k=24 // h)}</div>")


def test_single_head_carries_all_relations(view):
    view.model.n_heads = 1
    single = shown(view)
    assert text("multihead.relation.all") in single["title_1"]
    view.model.n_heads = 4
    four = shown(view)
    # Four heads in four colours, each its title's swatch; the single head and the sum in
    # colours of their own.
    colours = [four[f"plot_{k}"]["color"] for k in range(1, 5)]
    assert len(set(colours)) == 4
    for k, colour in enumerate(colours, start=1):
        assert f'style="background:{colour}"' in four[f"title_{k}"]
    assert single["plot_1"]["color"] not in colours
    assert four["plot_suma"]["color"] not in {*colours, single["plot_1"]["color"]}
    view.model.n_heads = 2
    assert [shown(view)[f"plot_{k}"]["color"] for k in (1, 2)] == colours[:2]
    view.model.n_heads = 1
    assert arcs(shown(view)["plot_1"]) == model_arcs(view.model.arcs(0))


def test_default_head_names_and_relations(view):
    page = shown(view)
    tops = [top_items(page[f"top_{k}"]) for k in range(1, MAX_HEADS + 1)]
    for k, relation in ((2, "subject_verb"), (3, "pronoun")):
        name = text(f"multihead.relation.{relation}")
        assert text("multihead.head_title", number=k, name=name) in page[f"title_{k}"]
        assert html.escape(text(f"multihead.description.{relation}")) in page[f"title_{k}"]
    assert "Cabeza 2 · sujeto–verbo" in page["title_2"]
    # The relations the lecture points at, with the model's own percentages.
    w = view.model.weights
    assert f"mordió → perro {es_percent(w[1, 2, 1])}" in tops[1]
    assert f"él → perro {es_percent(w[2, 6, 1])}" in tops[2]
    assert f"El → perro {es_percent(w[3, 0, 1])}" in tops[3]


@pytest.mark.parametrize("sentence", SENTENCES[1:])
def test_sentence_changes_tokens_arcs_and_lists(view, sentence):
    before = arcs(shown(view)["plot_4"])
    use(view, "sentence", sentence)
    m = view.model
    page = shown(view)
    for k in range(m.n_heads):
        spec = page[f"plot_{k + 1}"]
        assert spec["tokens"] == m.tokens
        assert arcs(spec) == model_arcs(m.arcs(k))
        assert top_items(page[f"top_{k + 1}"]) == expected_top(m, m.weights[k])
    assert arcs(spec) != before
    assert top_items(page["combined_top"]) == expected_top(m, m.combined)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_each_drawing_holds_the_weights_the_arcs_and_the_cells_texts(view, sentence):
    view.model.sentence = sentence
    m = view.model
    n = len(m.tokens)
    page = shown(view)
    for k in range(m.n_heads):
        spec = page[f"plot_{k + 1}"]
        assert arcs(spec), "every head draws some arcs"
        # From the querying token i to the attended token j, every weight ≥ the threshold.
        assert arcs(spec) == [
            (i, j) for i in range(n) for j in range(n) if m.weights[k, i, j] >= m.arc_threshold
        ]
        assert spec["weights"] == m.weights[k].tolist()
        for i in range(n):
            for j in range(n):
                a = m.weights[k, i, j]
                assert spec["tips"][i][j] == f"{es_number(a)} ({es_percent(a)})"
                assert spec["cells"][i][j] == (es_number(a) if a >= m.arc_threshold else "")
        assert spec["texts"] == multihead_plot_texts()
        # The folded table: every weight with 2 decimals, the tokens as row and column labels.
        table = page[f"table_{k + 1}"]
        assert table["testid"] == f"head-{k + 1}-table"
        assert table["title"] == text("multihead.table_title")
        assert table["details"] == text("multihead.table_summary")
        assert table["cols"] == [r["label"] for r in table["rows"]] == m.tokens
        assert [r["cells"] for r in table["rows"]] == [
            [es_number(a) for a in row] for row in m.weights[k]
        ]


def board_slots(board) -> list[dict]:
    """The slot nodes of a Board's layout, in its order."""
    found = []

    def walk(node):
        if "slot" in node and node.get("kind") != "styles":
            found.append(node)
        for child in node.get("row", []) + node.get("col", []) + node.get("box", []):
            walk(child)

    walk({"col": board.layout})
    return found


def test_every_drawing_is_one_slot_of_the_board_and_no_canvas(view):
    assert not view.__panel__().select(Markup)
    drawings = [n for n in board_slots(view.board) if n["kind"] == "head_plot"]
    names = [f"plot_{k}" for k in range(1, MAX_HEADS + 1)] + ["plot_suma"]
    assert [n["slot"] for n in drawings] == names
    assert [n["css"] for n in drawings] == [
        f"mh-plot mh-plot-{k}" for k in range(1, MAX_HEADS + 1)
    ] + ["mh-plot mh-plot-suma"]
    assert not view.__panel__().select(pn.pane.Bokeh)
    assert not view.__panel__().select(pn.pane.HoloViews)


def test_plots_are_built_once_and_updated_in_place(view):
    layout = view.board.layout
    before = shown(view)
    view.model.sentence = SENTENCES[1]
    view.model.n_heads = 2
    after = shown(view)
    assert view.board.layout is layout  # the same slots, new drawings
    assert all(after[f"plot_{k}"] != before[f"plot_{k}"] for k in (1, 2))
    assert after["plot_suma"]["tokens"] == view.model.tokens


def test_combined_is_the_mean_of_the_heads(view):
    view.model.n_heads = 2
    m = view.model
    page = shown(view)
    spec = page["plot_suma"]
    assert spec["testid"] == "combined-plot"
    np.testing.assert_array_equal(spec["weights"], m.combined)
    np.testing.assert_allclose(m.combined, m.weights.mean(axis=0))
    assert arcs(spec) == threshold_arcs(m.combined, m.arc_threshold)
    assert top_items(page["combined_top"]) == expected_top(m, m.combined)
    table = page["table_suma"]
    assert table["testid"] == "combined-table"
    assert [r["cells"] for r in table["rows"]] == [[es_number(a) for a in r] for r in m.combined]


def test_threshold_on_the_model_redraws_the_arcs(view):
    view.model.arc_threshold = 0.5
    spec = shown(view)["plot_2"]
    assert arcs(spec) == model_arcs(view.model.arcs(1))
    assert all(spec["weights"][i][j] >= 0.5 for i, j in arcs(spec))
    view.model.arc_threshold = 1.0
    spec = shown(view)["plot_1"]
    assert arcs(spec) == []
    assert {c for row in spec["cells"] for c in row} == {""}


def test_rejected_model_value_leaves_everything_as_it_was(view):
    before = view.board.state_json
    with pytest.raises(ValueError, match="número de cabezas"):
        view.model.n_heads = 5
    assert view.model.n_heads == 4
    assert control_value(view.n_heads) == 4
    assert view.board.state_json == before


@pytest.mark.parametrize(
    "message",
    [
        {"control": "n_heads", "value": 5},
        {"control": "n_heads", "value": 0},
        {"control": "n_heads", "value": True},  # True == 1 in Python: refused all the same
        {"control": "n_heads", "value": 2.0},
        {"control": "n_heads", "value": "2"},
        {"control": "n_heads", "value": None},
        {"control": "n_heads", "value": [2]},
        {"control": "sentence", "value": "no-existe"},
        {"control": "sentence", "value": SENTENCES[1].upper()},
        {"control": "sentence", "value": 1},
        {"control": "sentence", "value": None},
        {"control": "sentence", "value": "é" * 300_000},
        {"control": "sentence"},
        {"control": "n_heads", "value": 2, "extra": 1},
        {"control": "d_k", "value": 2},
        {"value": 2},
        "n_heads=2",
        None,
    ],
)
def test_a_forged_control_message_is_refused_and_the_state_kept(view, message, caplog):
    """What no page sends (an option the model does not offer, the wrong type, a control the
    board does not have) is one INFO line; the sentence, h and every figure stay."""
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    before = view.board.specs_json, view.board.state_json
    view.board.receive(message)
    assert (view.model.sentence, view.model.n_heads) == (SENTENCES[0], 4)
    assert (view.board.specs_json, view.board.state_json) == before
    one_refusal(caplog)


# --- numbers(): what crosses to the browser (and what the export embeds) ---------------------


def expected_numbers(model: MultiHeadDemo) -> dict:
    """The model's numbers, read here from its public outputs."""
    h = model.n_heads
    relations = ["all"] if h == 1 else ["previous", "subject_verb", "pronoun", "determiner"][:h]
    return {
        "tokens": list(model.tokens),
        "relations": relations,
        "weights": [np.asarray(w).tolist() for w in model.weights],
        "combined": np.asarray(model.combined).tolist(),
        "d_model": 24,
        "d_k": 24 // h,
        "threshold": model.arc_threshold,
    }


def test_the_board_gets_the_models_numbers_and_draws_every_slot(view):
    controls = {"sentence", "n_heads"}
    for sentence, h in [(SENTENCES[0], 4), (SENTENCES[2], 1), (SENTENCES[3], 3)]:
        view.model.param.update(sentence=sentence, n_heads=h)
        assert view.board.view == "multihead"
        # Numbers only: no text, no spec (the controls' specs aside).
        assert json.loads(view.board.state_json) == expected_numbers(view.model)
        assert set(view.board.specs) == controls
        # The drawing fills every slot that is not a control.
        assert set(shown(view)) == set(view.board.kinds)


def test_numbers_are_a_pure_function_of_the_model_shared_by_sessions():
    a = MultiHeadDemo(sentence=SENTENCES[1], n_heads=2)
    b = MultiHeadDemo(sentence=SENTENCES[1], n_heads=2)
    assert numbers(a) is numbers(b)  # computed once for every session on this state
    assert numbers(a) == expected_numbers(b)
    assert numbers(MultiHeadDemo(n_heads=1))["relations"] == ["all"]
    json.dumps(numbers(a), allow_nan=False)  # plain JSON types only


def test_an_update_sends_the_same_numbers_for_the_same_state(view):
    view.model.n_heads = 2
    sent = view.board.state_json
    view.model.n_heads = 1
    assert view.board.state_json != sent
    view.model.n_heads = 2
    assert view.board.state_json == sent
    assert MultiHeadView(model=MultiHeadDemo(n_heads=2)).board.state is view.board.state


def test_enable_client_side_embeds_every_state_and_wires_both_controls(view):
    assert view.board.offline == {}  # live: a control's use goes to the server
    states: dict = {}
    assert view.enable_client_side(states) == len(SENTENCES) * 4
    table = states["multihead"]
    assert set(table) == {state_key(s, h) for s in SENTENCES for h in HEAD_OPTIONS}
    for s in SENTENCES:
        for h in HEAD_OPTIONS:
            assert table[state_key(s, h)] == expected_numbers(MultiHeadDemo(sentence=s, n_heads=h))
    json.dumps(table, allow_nan=False)  # plain JSON types only
    # Both controls run the view's readState (board.js: C04.update("multihead", …) with
    # w_sentence and w_n_heads), whose state every board of the view draws: no targets.
    assert view.board.offline == {"demo": "multihead", "kinds": {}, "extra": {}, "peers": {}}
    assert view.board.controls == {"sentence", "n_heads"}


# --- The view in English: the sentences stay Spanish (marked lang="es", glossed), the rest not --


def li_texts(markup: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", item) for item in top_items(markup)]


@pytest.fixture
def english():
    return MultiHeadView(lang="en")


def english_texts(view) -> str:
    """The English page's texts: the board's and its drawing's, the words kept in Spanish (marked
    lang="es") left out."""
    page = shown(view)
    drawing = [
        spec if isinstance(spec, str) else spec_text(spec, "es")
        for name, spec in page.items()
        if name not in view.board.specs  # the controls' and the note's: viewable_texts has them
    ]
    return "\n".join([viewable_texts(view), *drawing])


def test_the_english_view_has_no_spanish_outside_the_kept_example(english):
    assert spanish_words_left(english_texts(english)) == set()
    page = shown(english)
    assert "Head 2 · subject–verb" in page["title_2"]
    assert html.escape(text("multihead.description.subject_verb", "en")) in page["title_2"]
    assert page["dims"].endswith("d_model = 24, h = 4 → each head has dimension 6</div>")


def test_the_english_view_keeps_the_spanish_sentences_marked_and_glossed(english):
    # The sentences' <select> is marked lang="es" (board.js), its English label and help
    # outside it; the heads' buttons are not marked.
    controls = english.board.layout[1]["row"]
    assert [(n["slot"], n.get("lang")) for n in controls] == [("sentence", "es"), ("n_heads", None)]
    assert board_labels(english.board)["sentence"] == text("multihead.sentence_label", "en")
    assert controls[0]["help"] == text("multihead.sentence_doc", "en")
    assert english.sentence.spec["options"] == [[s, s] for s in SENTENCES]
    # No wrapper is needed for it (nor a hidden second label).
    assert not english.__panel__().select(LangColumn)
    root = pn.panel(english).get_root(Document())
    assert not [m for m in root.references() if (getattr(m, "html_attributes", None) or {})]
    assert text("multihead.sentence_label", "en") in viewable_texts(english)
    # The sentences are not among the page's English texts (kept Spanish, marked).
    assert not set(SENTENCES) & set(board_texts(english.board))
    assert set(SENTENCES) <= set(board_texts(MultiHeadView().board))
    # The page says why, with a gloss of each sentence; each sentence marked lang="es".
    note = english.board.specs["kept_example"]
    assert html.unescape(note).startswith(
        f'<div class="c04-note mh-kept" data-testid="multihead-kept-example">'
        f"{text('multihead.kept_example', 'en', glosses='')}<ul>"
    )
    for sid, sentence in zip(SENTENCE_IDS, SENTENCES, strict=True):
        gloss = text(f"multihead.gloss.{sid}", "en")
        assert f'<li><span lang="es">{sentence}</span> — {gloss}</li>' in note
    # The tokens of the lists, tables and drawings are marked too; the Spanish page has none of
    # this.
    page = shown(english)
    assert '<span lang="es">mordió</span> → <span lang="es">perro</span>' in page["top_2"]
    marked = [{"text": t, "lang": "es"} for t in english.model.tokens]
    assert page["table_2"]["cols"] == [r["label"] for r in page["table_2"]["rows"]] == marked
    said = page["announce"]["text"]
    assert [part for part in said if isinstance(part, dict) and "lang" in part] == [
        {"text": "tenía", "lang": "es"},
        {"text": "él", "lang": "es"},
    ]
    spanish = MultiHeadView()
    assert "kept_example" not in spanish.board.kinds
    assert "lang" not in spanish.board.layout[1]["row"][0]
    spanish_page = shown(spanish)
    assert 'lang="es"' not in spanish_page["top_2"]
    assert spanish_page["table_2"]["cols"] == spanish.model.tokens


def test_english_numbers_use_a_decimal_point(english):
    m = english.model
    w = m.weights[1, 2, 1]  # mordió → perro in the subject–verb head
    assert percent(w, lang="en") == "97%"
    page = shown(english)
    assert "mordió → perro 97%" in li_texts(page["top_2"])
    spec = page["plot_2"]
    assert spec["tips"][2][1] == f"{number(w, lang='en')} (97%)" == "0.97 (97%)"
    assert spec["cells"][2][1] == "0.97"
    assert (2, 1) in arcs(spec)
    assert not any("," in t for row in spec["tips"] for t in row)
    # The drawing's words stay Spanish, marked; its own texts are English.
    assert spec["tokens"] == [{"text": t, "lang": "es"} for t in m.tokens]
    assert spec["texts"] == multihead_plot_texts("en")
    assert spec["texts"]["query"] == text("multihead.hover_query", "en")


def test_a_control_changes_the_english_numbers(english):
    before = shown(english)["combined_top"]
    use(english, "n_heads", 2)
    m = english.model
    page = shown(english)
    assert page["dims"].endswith("d_model = 24, h = 2 → each head has dimension 12</div>")
    assert page["combined_top"] != before
    expected = [
        f"{m.tokens[i]} → {m.tokens[int(np.argmax(row))]} {percent(row.max(), lang='en')}"
        for i, row in enumerate(m.combined)
    ]
    assert li_texts(page["combined_top"]) == expected
    # The announcement: h, d_k and the largest weight of the sum, with one decimal.
    flat = np.asarray(m.combined).ravel()
    i, j = divmod(int(np.argmax(flat)), len(m.tokens))
    said = text(
        "a11y.announce.multihead",
        "en",
        heads=2,
        d_k=12,
        query=m.tokens[i],
        key=m.tokens[j],
        weight=percent(flat.max(), 1, "en"),
    )
    assert label_text(page["announce"]["text"]) == said
    use(english, "sentence", SENTENCES[1])
    assert li_texts(shown(english)["top_1"])[1] == (
        f"dijo → María {percent(english.model.weights[0, 1, 0], lang='en')}"
    )
    assert spanish_words_left(english_texts(english)) == set()


def test_a_refused_value_is_said_in_english(english):
    before = english.board.state_json
    with pytest.raises(Refusal) as refused:
        english.model.n_heads = 5
    message = english.say(refused.value)
    assert message == text("multihead.bad_n_heads", "en", value="5", options="1, 2, 3, 4")
    assert message == "number of heads: 5 is not valid; the options are 1, 2, 3, 4."
    assert spanish_words_left(message) == set()
    assert english.model.n_heads == 4
    assert english.board.state_json == before


def test_the_english_export_embeds_the_same_numbers(english):
    """The numbers have no language: the English page embeds the Spanish page's table, and
    draws it in English."""
    states: dict = {}
    assert english.enable_client_side(states) == len(SENTENCES) * 4
    spanish: dict = {}
    MultiHeadView().enable_client_side(spanish)
    assert states["multihead"] == spanish["multihead"]
    page = shown(english)
    assert page["plot_2"]["tips"][2][1] == "0.97 (97%)"
    assert page["dims"].endswith("each head has dimension 6</div>")
