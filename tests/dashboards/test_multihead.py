"""MultiHeadView without a browser: controls reach the model, plots and lists follow it."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import CustomJS, HoverTool, MultiLine, Range1d, Rect, Text

from attnmodel.formatting import es_number, es_percent, number, percent
from attnmodel.i18n import Refusal, text
from attnmodel.multihead import SENTENCE_IDS, SENTENCES, MultiHeadDemo
from dashboards.common import HIDDEN_LABEL_CSS, configure
from dashboards.multihead import (
    ARC_POINTS,
    ARC_WIDTH,
    HEAD_COLORS,
    HEAT_FRAME,
    HEAT_LABEL_ANGLE,
    HEAT_PALETTE,
    HEAT_TITLE_KEYS,
    MAX_HEADS,
    SINGLE_HEAD_COLOR,
    LangColumn,
    MultiHeadView,
    arcs_from,
    head_shown,
    render,
    state_key,
    unique_labels,
)

from c04_testing import expected_top, spanish_words_left, viewable_texts

pytestmark = pytest.mark.usefixtures("panel_cleanup")


@pytest.fixture(scope="module", autouse=True)
def _extensions():
    configure()


@pytest.fixture
def view():
    return MultiHeadView()


def arc_rows(source) -> list[dict]:
    """One dict per arc (one row of the arc source the browser draws)."""
    data = source.data
    lengths = {len(v) for v in data.values()}
    assert len(lengths) == 1, "every column of a source has the same length"
    return [{name: values[k] for name, values in data.items()} for k in range(lengths.pop())]


def token_labels(view) -> list[str]:
    return list(view.token_source.data["token"])


def heat_matrix(source, n: int, column: str = "peso") -> np.ndarray:
    """A matrix source's column as [n, n]: rows are the query i, columns the attended j."""
    return np.asarray(source.data[column]).reshape(n, n)


def only(items):
    assert len(items) == 1
    return items[0]


def top_items(html: str) -> list[str]:
    return re.findall(r"<li[^>]*>(.*?)</li>", html)


def test_builds_with_default_model(view):
    layout = view.__panel__()
    assert layout is view.__panel__()  # built once
    root = layout.get_root()
    assert root is not None
    assert isinstance(view.model, MultiHeadDemo)
    assert view.sentence_select.value == SENTENCES[0]
    assert view.heads_buttons.value == 4
    assert view.sentence_select.label == text("multihead.sentence_label") == "Frase"
    assert view.heads_buttons.name == text("multihead.heads_label") == "Cabezas"
    assert [head_shown(p.styles) for p in view.head_panels] == [True] * MAX_HEADS


def test_each_view_has_its_own_widgets():
    a, b = MultiHeadView(), MultiHeadView()
    assert a.model is not b.model
    assert a.sentence_select is not b.sentence_select
    a.sentence_select.value = SENTENCES[1]
    assert b.model.sentence == SENTENCES[0]


def test_sentence_widget_reaches_model_and_back(view):
    view.sentence_select.value = SENTENCES[2]
    assert view.model.sentence == SENTENCES[2]
    view.model.sentence = SENTENCES[3]
    assert view.sentence_select.value == SENTENCES[3]


def test_heads_widget_reaches_model_and_back(view):
    view.heads_buttons.value = 2
    assert view.model.n_heads == 2
    view.model.n_heads = 3
    assert view.heads_buttons.value == 3


@pytest.mark.parametrize("h", [1, 2, 3, 4])
def test_n_heads_shows_that_many_panels(view, h):
    view.heads_buttons.value = h
    m = view.model
    # Hidden by CSS (display: none), not by Bokeh's `visible`, which relays out the whole page.
    assert [head_shown(p.styles) for p in view.head_panels] == [k < h for k in range(MAX_HEADS)]
    assert all(p.visible for p in view.head_panels)
    for k in range(MAX_HEADS):
        title, top = view.head_titles[k].object, view.head_tops[k].object
        if k < h:
            assert f'data-testid="head-{k + 1}-title"' in title
            assert m.head_names[k] in title
            assert top_items(top) == expected_top(m, m.weights[k])
            assert len(arc_rows(view.arc_sources[k])) == len(m.arcs(k))
            n = len(m.tokens)
            np.testing.assert_allclose(heat_matrix(view.heat_sources[k], n), m.weights[k])
        else:
            assert title == top == ""
            assert arc_rows(view.arc_sources[k]) == []
            assert len(view.heat_sources[k].data["peso"]) == 0
    assert view.dims.object.endswith(
        f"{text('multihead.dims', d_model=24, h=h, d_k=24 // h)}</div>"
    )


def test_single_head_carries_all_relations(view):
    view.model.n_heads = 1
    assert text("multihead.relation.all") in view.head_titles[0].object
    lines = only([r for r in view.arc_figures[0].renderers if isinstance(r.glyph, MultiLine)])
    assert lines.glyph.line_color == SINGLE_HEAD_COLOR
    view.model.n_heads = 2
    assert lines.glyph.line_color == HEAD_COLORS[0]
    view.model.n_heads = 1
    np.testing.assert_allclose(
        [r["peso"] for r in arc_rows(view.arc_sources[0])],
        [a for _, _, a in view.model.arcs(0)],
    )


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
    before = arc_rows(view.arc_sources[2])
    view.sentence_select.value = sentence
    m = view.model
    assert token_labels(view) == m.tokens
    for k in range(m.n_heads):
        rows = arc_rows(view.arc_sources[k])
        assert [(r["fila"], r["col"]) for r in rows] == [(i, j) for i, j, _ in m.arcs(k)]
        assert top_items(view.head_tops[k].object) == expected_top(m, m.weights[k])
    assert rows != before
    assert top_items(view.combined_top.object) == expected_top(m, m.combined)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_arc_width_and_alpha_are_proportional_to_weights(view, sentence):
    view.model.sentence = sentence
    m = view.model
    for k in range(m.n_heads):
        rows = arc_rows(view.arc_sources[k])
        assert rows, "every head draws some arcs"
        for r in rows:
            i, j = int(r["fila"]), int(r["col"])
            assert r["peso"] == pytest.approx(m.weights[k, i, j])
            assert r["peso"] >= m.arc_threshold
            assert r["line_width"] == pytest.approx(ARC_WIDTH * m.weights[k, i, j])
            assert r["line_alpha"] == pytest.approx(m.weights[k, i, j])
            assert r["relacion"] == f"{m.tokens[i]} → {m.tokens[j]}: α = {es_number(r['peso'])}"
            # From the querying token i to the attended token j.
            assert r["xs"][0] == pytest.approx(i)
            if i != j:
                assert r["xs"][ARC_POINTS - 1] == pytest.approx(j)
            assert len(r["xs"]) == len(r["ys"])


def test_arc_glyph_maps_weight_to_line_alpha_and_width(view):
    m = view.model
    fig = view.arc_figures[1]
    renderer = only([r for r in fig.renderers if isinstance(r.glyph, MultiLine)])
    source = renderer.data_source
    assert source is view.arc_sources[1]
    assert source.name == "multihead-arcs-2"
    assert renderer.glyph.xs.field == "xs"
    assert renderer.glyph.line_alpha.field == "line_alpha"
    assert renderer.glyph.line_width.field == "line_width"
    expected = np.array([a for _, _, a in m.arcs(1)])
    np.testing.assert_allclose(source.data["line_alpha"], expected)
    np.testing.assert_allclose(source.data["line_width"], ARC_WIDTH * expected)
    np.testing.assert_allclose(source.data["peso"], expected)
    assert list(source.data["fila"]) == [i for i, _, _ in m.arcs(1)]
    assert list(source.data["col"]) == [j for _, j, _ in m.arcs(1)]
    # The browser fades line_alpha in place: it must not be the peso array itself.
    assert source.data["line_alpha"] is not source.data["peso"]
    hover = only([t for t in fig.tools if isinstance(t, HoverTool)])
    assert hover.renderers == [renderer]


def test_arc_sources_have_stable_unique_names(view):
    names = [s.name for s in [*view.arc_sources, view.combined_arc_source]]
    assert names == [f"multihead-arcs-{k}" for k in range(1, MAX_HEADS + 1)] + [
        "multihead-arcs-suma"
    ]
    heat = [s.name for s in [*view.heat_sources, view.combined_heat_source]]
    assert heat == [f"multihead-heat-{k}" for k in range(1, MAX_HEADS + 1)] + [
        "multihead-heat-suma"
    ]


def test_heatmap_is_the_weight_matrix_with_a_client_side_hover(view):
    m = view.model
    source = view.heat_sources[3]
    n = len(m.tokens)
    labels = unique_labels(m.tokens)
    np.testing.assert_allclose(heat_matrix(source, n), m.weights[3])
    assert (heat_matrix(source, n, "fila") == np.arange(n)[:, None]).all()
    assert heat_matrix(source, n, "consulta").tolist() == [[t] * n for t in labels]
    assert heat_matrix(source, n, "atendido").tolist() == [labels] * n
    # Blues from light (α = 0) to dark (α = 1), precomputed per cell.
    shade = np.clip((m.weights[3] * len(HEAT_PALETTE)).astype(int), 0, len(HEAT_PALETTE) - 1)
    assert heat_matrix(source, n, "color").tolist() == HEAT_PALETTE[shade].tolist()
    texts = heat_matrix(source, n, "texto")
    values = heat_matrix(source, n, "valor")
    for i in range(n):
        for j in range(n):
            a = m.weights[3, i, j]
            assert texts[i, j] == f"{es_number(a)} ({es_percent(a)})"
            assert values[i, j] == (es_number(a) if a >= m.arc_threshold else "")

    fig = view.heat_figures[3]
    cells = only([r for r in fig.renderers if isinstance(r.glyph, Rect)])
    assert cells.glyph.x.field == "x"
    assert cells.glyph.y.field == "y"
    assert cells.glyph.width.field == cells.glyph.height.field == "lado"
    # Square cells on a grid, row 0 at the top, column 0 at the left, all inside the frame.
    x, y = heat_matrix(source, n, "x"), heat_matrix(source, n, "y")
    (side,) = set(source.data["lado"])
    np.testing.assert_allclose(np.diff(x, axis=1), side)
    np.testing.assert_allclose(np.diff(y, axis=0), -side)
    assert (x == x[0]).all()
    assert (y == y[:, :1]).all()
    width, height = HEAT_FRAME
    assert x.min() - side / 2 > 0
    assert x.max() + side / 2 <= width
    assert y.min() - side / 2 > 0
    assert y.max() + side / 2 <= height
    # The frame never moves: a new sentence changes data, never ranges or axes (no relayout).
    assert isinstance(fig.x_range, Range1d)
    assert (fig.x_range.start, fig.x_range.end) == (0, width)
    assert isinstance(fig.y_range, Range1d)
    assert (fig.y_range.start, fig.y_range.end) == (0, height)
    assert not any(axis.visible for axis in fig.axis)
    assert (fig.frame_width, fig.frame_height) == HEAT_FRAME
    # Token labels: row i's word left of row i, column j's word (at 45°) under column j.
    texts = [r for r in fig.renderers if isinstance(r.glyph, Text)]
    label_renderer = only([r for r in texts if r.data_source is view.heat_label_source])
    assert label_renderer.glyph.text.field == "text"
    lab = view.heat_label_source.data
    assert list(lab["text"]) == list(m.tokens) * 2
    np.testing.assert_allclose(lab["y"][:n], y[:, 0])
    assert all(lx < x.min() - side / 2 for lx in lab["x"][:n])
    np.testing.assert_allclose(lab["x"][n:], x[0])
    assert all(ly < y.min() - side / 2 for ly in lab["y"][n:])
    assert list(lab["angle"]) == [0.0] * n + [HEAT_LABEL_ANGLE] * n
    titles = [
        r
        for r in texts
        if r.data_source is not view.heat_label_source and r.data_source is not source
    ]
    assert [list(t.data_source.data["text"]) for t in titles] == [
        [text(key) for key in HEAT_TITLE_KEYS]
    ]
    assert cells.data_source is source
    assert cells.glyph.fill_color.field == "color"
    hover = only([t for t in fig.tools if isinstance(t, HoverTool)])
    assert hover.renderers == [cells]
    assert isinstance(hover.callback, CustomJS)
    assert hover.callback.args["name"] == "multihead-arcs-4"
    assert "mouseleave" in fig.js_event_callbacks


def test_plots_are_built_once_and_updated_in_place(view):
    panes = view.__panel__().select(pn.pane.Bokeh)
    assert len(panes) == 2 * (MAX_HEADS + 1)
    assert not view.__panel__().select(pn.pane.HoloViews)
    figures = [p.object for p in panes]
    sources = [*view.arc_sources, *view.heat_sources, view.token_source]
    view.model.sentence = SENTENCES[1]
    view.model.n_heads = 2
    assert all(p.object is f for p, f in zip(panes, figures, strict=True))
    now = [*view.arc_sources, *view.heat_sources, view.token_source]
    assert all(a is b for a, b in zip(now, sources, strict=True))
    assert token_labels(view) == view.model.tokens


def test_combined_is_the_mean_of_the_heads(view):
    view.model.n_heads = 2
    m = view.model
    n = len(m.tokens)
    np.testing.assert_allclose(heat_matrix(view.combined_heat_source, n), m.combined)
    rows = arc_rows(view.combined_arc_source)
    expected = arcs_from(m.combined, m.arc_threshold)
    assert [(r["fila"], r["col"]) for r in rows] == [(i, j) for i, j, _ in expected]
    np.testing.assert_allclose([r["peso"] for r in rows], [a for _, _, a in expected])
    assert top_items(view.combined_top.object) == expected_top(m, m.combined)


def test_threshold_on_the_model_redraws_the_arcs(view):
    view.model.arc_threshold = 0.5
    rows = arc_rows(view.arc_sources[1])
    assert [(r["fila"], r["col"]) for r in rows] == [(i, j) for i, j, _ in view.model.arcs(1)]
    assert all(r["peso"] >= 0.5 for r in rows)
    view.model.arc_threshold = 1.0
    assert arc_rows(view.arc_sources[0]) == []
    assert set(view.heat_sources[0].data["valor"]) == {""}


def test_rejected_model_value_leaves_everything_as_it_was(view):
    before = view.head_tops[0].object
    with pytest.raises(ValueError, match="número de cabezas"):
        view.model.n_heads = 5
    assert view.model.n_heads == 4
    assert view.heads_buttons.value == 4
    assert view.head_tops[0].object == before


# --- render(): the one definition of what is on screen (shared with the static export) --------


def test_render_names_every_target_and_the_view_shows_it(view):
    targets = view.client_targets()
    for sentence, h in [(SENTENCES[0], 4), (SENTENCES[2], 1), (SENTENCES[3], 3)]:
        view.model.param.update(sentence=sentence, n_heads=h)
        values = render(view.model)
        assert set(values) == set(targets)
        for name, value in values.items():
            obj, kind = targets[name]
            if kind == "html":
                assert obj.object == value, name
            elif kind == "markup":
                assert obj.spec == value, name
            elif kind == "data":
                assert set(obj.data) == set(value), name
                for column, expected in value.items():
                    got = obj.data[column]
                    if column in ("xs", "ys"):
                        assert len(got) == len(expected), name
                        for a, b in zip(got, expected, strict=True):
                            np.testing.assert_array_equal(a, b)
                    else:
                        assert list(got) == list(expected), f"{name}.{column}"
            else:
                assert kind.startswith("prop:")
                assert getattr(obj, kind[5:]) == value, name


def test_render_is_a_pure_function_of_the_model():
    a = MultiHeadDemo(sentence=SENTENCES[1], n_heads=2)
    b = MultiHeadDemo(sentence=SENTENCES[1], n_heads=2)
    assert render(a).keys() == render(b).keys()
    assert render(a)["top_1"] == render(b)["top_1"]
    assert not head_shown(render(a)["panel_3"])
    assert head_shown(render(a)["panel_2"])
    assert render(a)["dims"].endswith(f"{text('multihead.dims', d_model=24, h=2, d_k=12)}</div>")
    assert render(MultiHeadDemo(n_heads=1))["arc_color_1"] == SINGLE_HEAD_COLOR
    assert render(MultiHeadDemo(n_heads=2))["arc_color_1"] == HEAD_COLORS[0]


def test_an_update_only_resends_what_changed(view):
    """Changing h keeps the sentence's tokens and labels: their Bokeh models get no new value."""
    tokens = view.token_source.data
    labels = view.heat_label_source.data
    view.model.n_heads = 2
    assert view.token_source.data is tokens
    assert view.heat_label_source.data is labels


def test_enable_client_side_embeds_every_state_and_wires_both_controls(view):
    states: dict = {}
    assert view.enable_client_side(states) == len(SENTENCES) * 4
    table = states["multihead"]
    assert set(table) == {state_key(s, h) for s in SENTENCES for h in (1, 2, 3, 4)} | {"_shared"}
    default = state_key(view.model.sentence, view.model.n_heads)
    assert table[default]["top_2"] == render(view.model)["top_2"]
    json.dumps(table, allow_nan=False)  # plain JSON types only
    names = {*view.client_targets(), "w_sentence", "w_heads"}
    root = view.__panel__().get_root()
    for widget, prop in ((view.sentence_select, "value"), (view.heads_buttons, "active")):
        model = widget._models[root.ref["id"]][0]
        (callback,) = model.js_property_callbacks[f"change:{prop}"]
        assert names <= set(callback.args)
        assert 'C04.update("multihead", {' in callback.code
        assert callback.args["panel_2"] is view.head_panels[1]._models[root.ref["id"]][0]
        assert "prop:styles" in callback.code
        assert callback.args["arcs_suma"] is view.combined_arc_source


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
    # The selector sits in an element marked lang="es", its English label outside.
    (wrapper,) = english.__panel__().select(LangColumn)
    assert wrapper.html_attributes == {"lang": "es"}
    assert english.sentence_select in wrapper.objects
    # Its own label names it for a screen reader, hidden from the eye (shown outside).
    assert english.sentence_select.label == text("multihead.sentence_label", "en")
    assert HIDDEN_LABEL_CSS in english.sentence_select.stylesheets
    root = pn.panel(english).get_root(Document())
    assert {"lang": "es"} in [
        m.html_attributes for m in root.references() if "html_attributes" in m.properties()
    ]
    assert text("multihead.sentence_label", "en") in viewable_texts(english)
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
    assert not spanish.__panel__().select(LangColumn)
    assert 'lang="es"' not in spanish.head_tops[1].object


def test_english_numbers_use_a_decimal_point(english):
    m = english.model
    w = m.weights[1, 2, 1]  # mordió → perro in the subject–verb head
    assert percent(w, lang="en") == "97%"
    assert "mordió → perro 97%" in li_texts(english.head_tops[1].object)
    source = english.heat_sources[1]
    n = len(m.tokens)
    cell = 2 * n + 1
    assert source.data["texto"][cell] == f"{number(w, lang='en')} (97%)" == "0.97 (97%)"
    assert source.data["valor"][cell] == "0.97"
    rows = arc_rows(english.arc_sources[1])
    (arc,) = [r for r in rows if (r["fila"], r["col"]) == (2, 1)]
    assert arc["relacion"] == "mordió → perro: α = 0.97"
    assert not any("," in t for t in source.data["texto"])


def test_a_control_changes_the_english_numbers(english):
    before = english.combined_top.object
    english.heads_buttons.value = 2
    m = english.model
    assert english.dims.object.endswith("d_model = 24, h = 2 → each head has dimension 12</div>")
    assert english.combined_top.object != before
    expected = [
        f"{m.tokens[i]} → {m.tokens[int(np.argmax(row))]} {percent(row.max(), lang='en')}"
        for i, row in enumerate(m.combined)
    ]
    assert li_texts(english.combined_top.object) == expected
    english.sentence_select.value = SENTENCES[1]
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
    assert table[default]["heat_2"][1][0] == render(english.model, "en")["heat_2"]["texto"][0]
