"""MultiHeadView without a browser: controls reach the model, plots and lists follow it."""

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
from attnmodel.multihead import SENTENCE_IDS, SENTENCES, MultiHeadDemo
from dashboards.app.session import configure
from dashboards.components.markup import Markup, spec_json
from dashboards.components.views import LangColumn
from dashboards.demos.multihead import (
    COMBINED_COLOR,
    HEAD_COLORS,
    MAX_HEADS,
    SINGLE_HEAD_COLOR,
    MultiHeadView,
    arcs_from,
    head_shown,
    plot_texts,
    render,
    state_key,
)

from c04_testing import (
    board_labels,
    board_texts,
    control_value,
    expected_top,
    one_refusal,
    spanish_words_left,
    use,
    viewable_texts,
)

pytestmark = pytest.mark.usefixtures("panel_cleanup")


@pytest.fixture(scope="module", autouse=True)
def _extensions():
    configure()


@pytest.fixture
def view():
    return MultiHeadView()


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
    assert [head_shown(p.spec) for p in view.head_panels] == [True] * MAX_HEADS


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
    # Hidden by CSS (display: none), not by Bokeh's `visible`, which relays out the whole page.
    assert [head_shown(p.spec) for p in view.head_panels] == [k < h for k in range(MAX_HEADS)]
    # Each panel is a group of the Board around its fragments (its styles are its slot's).
    assert {p.kind for p in view.head_panels} == {"styles"}
    for k in range(MAX_HEADS):
        title, top = view.head_titles[k].object, view.head_tops[k].object
        if k < h:
            assert f'data-testid="head-{k + 1}-title"' in title
            assert m.head_names[k] in title
            assert top_items(top) == expected_top(m, m.weights[k])
            spec = view.head_plots[k].spec
            assert arcs(spec) == model_arcs(m.arcs(k))
            np.testing.assert_array_equal(spec["weights"], m.weights[k])
            assert spec["testid"] == f"head-{k + 1}-plot"
        else:
            assert title == top == ""
            assert view.head_plots[k].spec == {}
            assert json.loads(view.board.specs_json)[f"plot_{k + 1}"] == {}
    assert view.dims.object.endswith(
        f"{text('multihead.dims', d_model=24, h=h, d_k=24 // h)}</div>"
    )


def test_single_head_carries_all_relations(view):
    view.model.n_heads = 1
    assert text("multihead.relation.all") in view.head_titles[0].object
    assert view.head_plots[0].spec["color"] == SINGLE_HEAD_COLOR
    view.model.n_heads = 2
    assert view.head_plots[0].spec["color"] == HEAD_COLORS[0]
    assert view.head_plots[1].spec["color"] == HEAD_COLORS[1]
    assert view.combined_plot.spec["color"] == COMBINED_COLOR
    view.model.n_heads = 1
    assert arcs(view.head_plots[0].spec) == model_arcs(view.model.arcs(0))


def test_default_head_names_and_relations(view):
    tops = [top_items(t.object) for t in view.head_tops]
    for k, relation in ((2, "subject_verb"), (3, "pronoun")):
        name = text(f"multihead.relation.{relation}")
        assert text("multihead.head_title", number=k, name=name) in view.head_titles[k - 1].object
    assert "Cabeza 2 · sujeto–verbo" in view.head_titles[1].object
    # The relations the lecture points at, with the model's own percentages.
    w = view.model.weights
    assert f"mordió → perro {es_percent(w[1, 2, 1])}" in tops[1]
    assert f"él → perro {es_percent(w[2, 6, 1])}" in tops[2]
    assert f"El → perro {es_percent(w[3, 0, 1])}" in tops[3]


@pytest.mark.parametrize("sentence", SENTENCES[1:])
def test_sentence_changes_tokens_arcs_and_lists(view, sentence):
    before = arcs(view.head_plots[3].spec)
    use(view, "sentence", sentence)
    m = view.model
    for k in range(m.n_heads):
        spec = view.head_plots[k].spec
        assert spec["tokens"] == m.tokens
        assert arcs(spec) == model_arcs(m.arcs(k))
        assert top_items(view.head_tops[k].object) == expected_top(m, m.weights[k])
    assert arcs(spec) != before
    assert top_items(view.combined_top.object) == expected_top(m, m.combined)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_each_drawing_holds_the_weights_the_arcs_and_the_cells_texts(view, sentence):
    view.model.sentence = sentence
    m = view.model
    n = len(m.tokens)
    for k in range(m.n_heads):
        spec = view.head_plots[k].spec
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
        assert spec["texts"] == plot_texts()
        assert spec["texts"]["key_axis"] == text("multihead.key_axis")
        assert spec["texts"]["arcs"] == text("a11y.plot.multihead_arcs")


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
    assert [p.name for p in (*view.head_plots, view.combined_plot)] == names
    assert [n["css"] for n in drawings] == [
        f"mh-plot mh-plot-{k}" for k in range(1, MAX_HEADS + 1)
    ] + ["mh-plot mh-plot-suma"]
    assert not view.__panel__().select(pn.pane.Bokeh)
    assert not view.__panel__().select(pn.pane.HoloViews)


def test_plots_are_built_once_and_updated_in_place(view):
    plots = [*view.head_plots, view.combined_plot]
    before = [p.spec for p in plots]
    view.model.sentence = SENTENCES[1]
    view.model.n_heads = 2
    assert [*view.head_plots, view.combined_plot] == plots
    assert all(p.spec != b for p, b in zip(plots[:2], before, strict=False))
    assert view.combined_plot.spec["tokens"] == view.model.tokens


def test_combined_is_the_mean_of_the_heads(view):
    view.model.n_heads = 2
    m = view.model
    spec = view.combined_plot.spec
    assert spec["testid"] == "combined-plot"
    np.testing.assert_array_equal(spec["weights"], m.combined)
    np.testing.assert_allclose(m.combined, m.weights.mean(axis=0))
    assert arcs(spec) == model_arcs(arcs_from(m.combined, m.arc_threshold))
    assert top_items(view.combined_top.object) == expected_top(m, m.combined)


def test_threshold_on_the_model_redraws_the_arcs(view):
    view.model.arc_threshold = 0.5
    spec = view.head_plots[1].spec
    assert arcs(spec) == model_arcs(view.model.arcs(1))
    assert all(spec["weights"][i][j] >= 0.5 for i, j in arcs(spec))
    view.model.arc_threshold = 1.0
    assert arcs(view.head_plots[0].spec) == []
    assert {c for row in view.head_plots[0].spec["cells"] for c in row} == {""}


def test_rejected_model_value_leaves_everything_as_it_was(view):
    before = view.head_tops[0].object
    with pytest.raises(ValueError, match="número de cabezas"):
        view.model.n_heads = 5
    assert view.model.n_heads == 4
    assert control_value(view.n_heads) == 4
    assert view.head_tops[0].object == before


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
    before = view.board.specs_json
    view.board.receive(message)
    assert (view.model.sentence, view.model.n_heads) == (SENTENCES[0], 4)
    assert view.board.specs_json == before
    one_refusal(caplog)


# --- render(): the one definition of what is on screen (shared with the static export) --------


def test_render_names_every_target_and_the_view_shows_it(view):
    targets = view.client_targets()
    for sentence, h in [(SENTENCES[0], 4), (SENTENCES[2], 1), (SENTENCES[3], 3)]:
        view.model.param.update(sentence=sentence, n_heads=h)
        values = render(view.model)
        assert set(values) == set(targets)
        for name, value in values.items():
            obj, kind = targets[name]
            assert obj is view.board
            assert kind == f"board:{name}"
            assert obj.slot(name).spec == value, name
            assert json.loads(obj.specs_json)[name] == json.loads(json.dumps(value))


def test_render_is_a_pure_function_of_the_model():
    a = MultiHeadDemo(sentence=SENTENCES[1], n_heads=2)
    b = MultiHeadDemo(sentence=SENTENCES[1], n_heads=2)
    assert render(a).keys() == render(b).keys()
    assert render(a)["top_1"] == render(b)["top_1"]
    assert not head_shown(render(a)["panel_3"])
    assert head_shown(render(a)["panel_2"])
    assert render(a)["dims"].endswith(f"{text('multihead.dims', d_model=24, h=2, d_k=12)}</div>")
    assert render(MultiHeadDemo(n_heads=1))["plot_1"]["color"] == SINGLE_HEAD_COLOR
    assert render(MultiHeadDemo(n_heads=2))["plot_1"]["color"] == HEAD_COLORS[0]
    assert render(a)["plot_3"] == {}


def test_an_update_only_resends_what_changed(view):
    """A head that stays hidden keeps its empty specs: its components get no new value."""
    view.model.n_heads = 2
    hidden = view.head_plots[3].spec, view.head_tables[3].spec
    json_text = spec_json(view.head_plots[1].spec)
    view.model.n_heads = 1
    assert (view.head_plots[3].spec, view.head_tables[3].spec) == hidden
    assert view.head_plots[3].spec is hidden[0]
    assert view.head_tables[3].spec is hidden[1]
    # The same state's spec is the same object, its JSON encoded once for every session.
    view.model.n_heads = 2
    assert spec_json(view.head_plots[1].spec) == json_text
    assert json_text in view.board.specs_json
    assert MultiHeadView(model=MultiHeadDemo(n_heads=2)).head_plots[1].spec is (
        view.head_plots[1].spec
    )


def test_enable_client_side_embeds_every_state_and_wires_both_controls(view):
    assert view.board.offline == {}  # live: a control's use goes to the server
    states: dict = {}
    assert view.enable_client_side(states) == len(SENTENCES) * 4
    table = states["multihead"]
    assert set(table) == {state_key(s, h) for s in SENTENCES for h in (1, 2, 3, 4)} | {"_shared"}
    default = state_key(view.model.sentence, view.model.n_heads)
    assert table[default]["top_2"] == render(view.model)["top_2"]
    json.dumps(table, allow_nan=False)  # plain JSON types only
    # Both controls run the twin (board.js: C04.update("multihead", …) with w_sentence and
    # w_n_heads) on every target of render, each a slot of the board.
    offline = view.board.offline
    assert offline["demo"] == "multihead"
    assert offline["kinds"] == {name: f"board:{name}" for name in render(view.model)}
    assert offline["kinds"]["panel_2"] == "board:panel_2"
    assert offline["extra"] == {}
    assert view.board.controls == {"sentence", "n_heads"}


# --- The view in English: the sentences stay Spanish (marked lang="es", glossed), the rest not --


def li_texts(markup: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", item) for item in top_items(markup)]


@pytest.fixture
def english():
    return MultiHeadView(lang="en")


def test_the_english_view_has_no_spanish_outside_the_kept_example(english):
    assert spanish_words_left(viewable_texts(english)) == set()
    assert "Head 2 · subject–verb" in english.head_titles[1].object
    assert text("multihead.description.subject_verb", "en") in english.head_titles[1].object
    assert english.dims.object.endswith("d_model = 24, h = 4 → each head has dimension 6</div>")


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
    note = english.kept_example.object
    assert html.unescape(note).startswith(
        f'<div class="c04-note mh-kept" data-testid="multihead-kept-example">'
        f"{text('multihead.kept_example', 'en', glosses='')}<ul>"
    )
    for sid, sentence in zip(SENTENCE_IDS, SENTENCES, strict=True):
        gloss = text(f"multihead.gloss.{sid}", "en")
        assert f'<li><span lang="es">{sentence}</span> — {gloss}</li>' in note
    # The tokens of the lists are marked too; the Spanish page has none of this.
    assert '<span lang="es">mordió</span> → <span lang="es">perro</span>' in (
        english.head_tops[1].object
    )
    spanish = MultiHeadView()
    assert spanish.kept_example is None
    assert "lang" not in spanish.board.layout[1]["row"][0]
    assert 'lang="es"' not in spanish.head_tops[1].object


def test_english_numbers_use_a_decimal_point(english):
    m = english.model
    w = m.weights[1, 2, 1]  # mordió → perro in the subject–verb head
    assert percent(w, lang="en") == "97%"
    assert "mordió → perro 97%" in li_texts(english.head_tops[1].object)
    spec = english.head_plots[1].spec
    assert spec["tips"][2][1] == f"{number(w, lang='en')} (97%)" == "0.97 (97%)"
    assert spec["cells"][2][1] == "0.97"
    assert (2, 1) in arcs(spec)
    assert not any("," in t for row in spec["tips"] for t in row)
    # The drawing's words stay Spanish, marked; its own texts are English.
    assert spec["tokens"] == [{"text": t, "lang": "es"} for t in m.tokens]
    assert spec["texts"] == plot_texts("en")
    assert spec["texts"]["query"] == text("multihead.hover_query", "en")


def test_a_control_changes_the_english_numbers(english):
    before = english.combined_top.object
    use(english, "n_heads", 2)
    m = english.model
    assert english.dims.object.endswith("d_model = 24, h = 2 → each head has dimension 12</div>")
    assert english.combined_top.object != before
    expected = [
        f"{m.tokens[i]} → {m.tokens[int(np.argmax(row))]} {percent(row.max(), lang='en')}"
        for i, row in enumerate(m.combined)
    ]
    assert li_texts(english.combined_top.object) == expected
    use(english, "sentence", SENTENCES[1])
    assert li_texts(english.head_tops[0].object)[1] == (
        f"dijo → María {percent(english.model.weights[0, 1, 0], lang='en')}"
    )
    assert spanish_words_left(viewable_texts(english)) == set()


def test_a_refused_value_is_said_in_english(english):
    before = english.head_tops[0].object
    with pytest.raises(Refusal) as refused:
        english.model.n_heads = 5
    message = english.say(refused.value)
    assert message == text("multihead.bad_n_heads", "en", value="5", options="1, 2, 3, 4")
    assert message == "number of heads: 5 is not valid; the options are 1, 2, 3, 4."
    assert spanish_words_left(message) == set()
    assert english.model.n_heads == 4
    assert english.head_tops[0].object == before


def test_the_english_export_embeds_english_states(english):
    states: dict = {}
    assert english.enable_client_side(states) == len(SENTENCES) * 4
    table = states["multihead"]
    default = state_key(SENTENCES[0], 4)
    assert table[default]["top_2"] == render(english.model, "en")["top_2"]
    assert table[default]["dims"].endswith("each head has dimension 6</div>")
    tips = render(english.model, "en")["plot_2"]["tips"]
    assert table[default]["plot_2"][3] == tips
    assert tips[2][1] == "0.97 (97%)"
