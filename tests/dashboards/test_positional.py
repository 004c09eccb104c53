"""PositionalView without a browser: the Board's controls drive the model and the plots follow
it."""

from __future__ import annotations

import logging

import numpy as np
import panel as pn
import pytest
from bokeh.core.serialization import Buffer, Serializer
from bokeh.models import Plot
from bokeh.palettes import RdBu11, interp_palette

from attnmodel import PositionalEncodingDemo
from attnmodel.formatting import es_number
from attnmodel.i18n import catalogue, text
from dashboards.components.board import Board
from dashboards.components.markup import Raster, md_html, section_markdown
from dashboards.demos.positional import FORMULA, PositionalView

from c04_testing import (
    board_labels,
    board_texts,
    control_value,
    spanish_words_left,
    table,
    use,
    viewable_texts,
)
from c04_views import drawn

TITLE = text("demo.posicion")
HEATMAP_CAPTION = text("positional.heatmap_caption")
SIMILARITY_CAPTION = text("positional.similarity_caption")
SUM_PARAGRAPH = text("positional.sum_paragraph")


def markdown_texts(layout) -> str:
    """The Markdown panes' texts and the Board's fixed texts (HTML), in layout order."""
    texts = []
    for p in layout.select(lambda o: isinstance(o, (pn.pane.Markdown, Board))):
        texts.extend(board_texts(p) if isinstance(p, Board) else [p.object])
    return "\n".join(texts)


def heatmap_model(root):
    """The heat map's data model in the document (what the browser holds), by its name."""
    [found] = [m for m in root.references() if getattr(m, "name", None) == "pe-heatmap"]
    return found


def shown(view, name: str) -> dict:
    """Slot ``name`` of either Board as the browser draws it (positional.js, tests/c04_views.py)."""
    return {**drawn(view.board, view.lang), **drawn(view.figures, view.lang)}[name]


def curves(view) -> list[dict]:
    """The three similarity curves (from pos = 0, 10, 20) of the lines spec on screen."""
    return shown(view, "similarity")["series"]


@pytest.fixture
def view(panel_cleanup):
    v = PositionalView()
    v.__panel__().get_root()  # renders the plots
    return v


def test_builds_with_the_seed_text(view):
    layout = view.__panel__()
    assert isinstance(layout, pn.Column)
    # Two Boards around the heat map, no Markdown pane: the title and the formula (MathML)
    # are the first Board's.
    assert list(layout.objects) == [view.board, view.heatmap, view.figures]
    shown = markdown_texts(layout)
    header = md_html(section_markdown(TITLE, anchor="posicion"))
    assert board_texts(view.board)[:2] == [header, md_html(FORMULA)]
    assert "<math" in md_html(FORMULA)
    assert board_labels(view.board) == {
        "n_positions": text("positional.n_slider"),
        "d_model": text("positional.d_slider"),
    }
    # The Board's texts: HTML made on the server, their formulas as MathML.
    for piece in (HEATMAP_CAPTION, SIMILARITY_CAPTION, SUM_PARAGRAPH):
        assert md_html(piece) in shown
    assert md_html(f"### {text('positional.waves_heading')}") in shown
    assert md_html(f"### {text('positional.table_title')}") in shown
    assert "<h3>Ondas y distancia relativa</h3>" in shown
    assert "El ejemplo del apunte: tres tokens contiguos con <math " in shown
    positions = [shown.find(md_html(p)) for p in (HEATMAP_CAPTION, SIMILARITY_CAPTION)]
    assert -1 < positions[0] < positions[1] < shown.find(md_html(SUM_PARAGRAPH))
    assert "darían exactamente lo mismo." in shown
    # TeX as TeX writes it: converted before Markdown, its backslashes are not Markdown's.
    assert r"\sin\!\left(" in FORMULA


def test_default_model_is_created_per_view(panel_cleanup):
    a, b = PositionalView(), PositionalView()
    assert a.model is not b.model
    model = PositionalEncodingDemo(n_positions=20, d_model=8)
    assert PositionalView(model=model).model is model


def test_worked_table_is_the_notes_table(view):
    rows = table(view.worked_table.object, "pe-worked-table")
    assert rows[0] == ["Vector", "dim 0", "dim 1", "dim 2", "dim 3", "Comentario"]
    assert rows[0][-1] == text("positional.table_comment")
    body = rows[1:]
    expected = view.model.worked_table
    assert len(body) == len(expected) == 9
    for cells, row in zip(body, expected, strict=True):
        assert cells[0] == row["vector"]
        assert cells[1:5] == [es_number(v, 4) for v in row["values"]]
        assert cells[5] == row["comment"]
    # Numbers stated by the notes (docs/ejemplos-trabajados.md).
    assert body[4][:5] == ["PE(1)", "0,8415", "0,5403", "0,0100", "1,0000"]
    assert body[8][:5] == ["x(mordió) + PE(2)", "0,6093", "0,1839", "0,1200", "0,5998"]


def test_no_bokeh_figure_is_left(view):
    """The heat map is a canvas of our own (Raster), the curves SVG (Markup "lines")."""
    root = view.__panel__().get_root()
    assert [m for m in root.references() if isinstance(m, Plot)] == []
    assert isinstance(view.heatmap, Raster)
    assert view.figures.kinds["similarity"] == "lines"


def test_heatmap_follows_d_model_slider_in_place(view):
    root = view.__panel__().get_root()
    held = heatmap_model(root)
    assert held.values.shape == (50, 64)
    use(view, "d_model", 8)
    assert view.model.d_model == 8
    assert control_value(view.d_model) == 8
    assert heatmap_model(root) is held  # updated, not rebuilt
    # Row = position, column = dimension; float32 to the browser.
    assert held.values.shape == (50, 8)
    np.testing.assert_allclose(held.values, view.model.encoding, atol=1e-6)
    assert shown(view, "shape")["text"] == "50 posiciones × 8 dimensiones"
    # The title is the catalogue's template: the drawing fills it with the matrix's shape.
    template = view.heatmap.spec["title"]
    assert template == catalogue("es")["positional.heatmap_title"]
    filled = template.replace("{n}", "50").replace("{d}", "8")
    assert (
        filled == text("positional.heatmap_title", n=50, d=8) == "PE: 50 posiciones × 8 dimensiones"
    )


def test_heatmap_follows_n_positions_slider(view):
    root = view.__panel__().get_root()
    before = view.heatmap.values
    use(view, "n_positions", 12)
    assert view.model.n_positions == 12
    assert control_value(view.n_positions) == 12
    values = heatmap_model(root).values
    assert values is not before
    assert values.shape == (12, 64)
    np.testing.assert_allclose(values, view.model.encoding, atol=1e-6)
    spec = view.heatmap.spec
    assert spec["x_label"] == text("positional.axis_dimension") == "dimensión"
    assert spec["y_label"] == text("positional.axis_position") == "posición"
    assert spec["tip"] == {"row": "posición", "col": "dimensión", "value": "PE"}
    assert spec["aria"] == text("a11y.plot.pe_heatmap")
    assert spec["decimal"] == ","
    assert shown(view, "shape") == {
        "testid": "pe-shape",
        "cls": "c04-note",
        "text": "12 posiciones × 64 dimensiones",
    }


def test_heatmap_colours_are_fixed(view):
    spec = view.heatmap.spec
    assert (spec["low"], spec["high"]) == (-1.0, 1.0)
    assert spec["bar_ticks"] == [-1.0, -0.5, 0.0, 0.5, 1.0]
    # Diverging, 256 steps of ColorBrewer's RdBu: blue for −1, red for +1.
    assert spec["palette"] == list(interp_palette(RdBu11, 256))
    assert spec["palette"][0] == "#053061"
    assert spec["palette"][-1] == "#67001f"
    use(view, "d_model", 4)
    assert view.heatmap.spec is spec  # a change sends the matrix only


def test_similarity_curves(view):
    use(view, "d_model", 16)
    data = curves(view)
    base = view.model.similarity_normalised
    np.testing.assert_allclose(data[0]["y"], base)
    assert len(data[0]["y"]) == len(view.model.deltas)
    assert data[0]["labels"][:2] == ["1,0000", es_number(base[1], 4)]
    for curve, start in zip(data[1:], (10, 20), strict=True):
        values = curve["y"]
        np.testing.assert_allclose(values, view.model.similarity_from(start) / 8)
        assert curve["labels"] == [es_number(v, 4) for v in values]
        # The point of the dashed curves: they lie on the pos = 0 curve.
        np.testing.assert_allclose(values, base[: len(values)], atol=1e-9)
    spec = shown(view, "similarity")
    assert (spec["x"]["min"], spec["x"]["max"]) == (0, 49)
    assert (spec["y"]["min"], spec["y"]["max"]) == (-1.05, 1.05)
    assert (spec["x"]["label"], spec["y"]["label"]) == (
        text("positional.axis_delta"),
        text("positional.axis_similarity"),
    )
    assert spec["tip"] == {"series": "curva", "x": "Δ", "y": "similitud"}
    assert spec["aria"] == text("a11y.plot.pe_similarity")


def test_similarity_lines_solid_then_dashed(view):
    data = curves(view)
    assert [c["dash"] for c in data] == [False, True, True]
    assert [c["width"] for c in data] == [3, 2, 2]
    assert [c["color"] for c in data] == ["#0072b2", "#d55e00", "#009e73"]
    labels = [c["name"] for c in data]
    assert labels == ["desde pos = 0", "desde pos = 10", "desde pos = 20"]
    assert labels == [text("positional.curve_from", start=s) for s in (0, 10, 20)]
    assert shown(view, "similarity")["legend"] is True


def test_similarity_with_few_positions_keeps_three_curves(view):
    use(view, "n_positions", 8)
    data = curves(view)
    assert len(data[0]["y"]) == 8
    assert len(data[1]["y"]) == len(data[2]["y"]) == 0
    assert shown(view, "similarity")["x"]["max"] == 7


def test_model_changes_move_the_controls(view):
    view.__panel__()
    view.model.param.update(n_positions=30, d_model=10)
    assert control_value(view.n_positions) == 30
    assert control_value(view.d_model) == 10
    assert shown(view, "shape")["text"] == "30 posiciones × 10 dimensiones"


def test_largest_matrix_goes_as_float32_in_a_binary_buffer(view):
    root = view.__panel__().get_root()
    view.model.param.update(n_positions=512, d_model=512)
    held = heatmap_model(root)
    values = held.values
    assert values.shape == (512, 512)
    assert values.dtype == np.float32  # half the bytes of float64 on the websocket
    assert values.flags.c_contiguous
    np.testing.assert_allclose(values, view.model.encoding, atol=1e-6)
    assert len(curves(view)[0]["y"]) == 512
    # Bokeh encodes it as an ndarray whose bytes are a buffer of their own, not JSON numbers.
    serializer = Serializer(deferred=True)
    encoded = serializer.encode(held)["attributes"]["values"]
    assert (encoded["type"], encoded["dtype"], encoded["shape"]) == (
        "ndarray",
        "float32",
        [512, 512],
    )
    [buffer] = serializer.buffers
    assert isinstance(buffer, Buffer)
    assert buffer.to_bytes() == values.tobytes()


def test_d_model_control_offers_only_even_values(view):
    spec = view.d_model.spec
    assert spec["start"] % 2 == 0
    assert spec["step"] == 2
    assert (spec["start"], spec["end"]) == view.model.param.d_model.bounds
    n = view.n_positions.spec
    assert (n["start"], n["end"], n["step"]) == (*view.model.param.n_positions.bounds, 1)
    # Whole numbers, as the page writes them.
    assert (spec["decimals"], spec["decimal"]) == (n["decimals"], n["decimal"]) == (0, ",")


# The control, the bad value, a piece of the Spanish message and its catalogue key.
BAD_VALUES = [
    ("d_model", 7, "d_model debe ser par", "positional.odd_d_model"),
    (
        "n_positions",
        1000,
        "El número de posiciones debe estar entre 2 y 512",
        "positional.bounds_n_positions",
    ),
    ("d_model", 0, "d_model debe estar entre 2 y 512", "positional.bounds_d_model"),
]


def refusal_text(key: str, bad: int, lang: str = "es") -> str:
    """The whole message of a refusal of ``bad`` (bounds 2..512 for both controls)."""
    fields = (
        {"value": bad} if key == "positional.odd_d_model" else {"lo": 2, "hi": 512, "value": bad}
    )
    return text("input.refused", lang, message=text(key, lang, **fields))


def refusals(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if "valor de un cliente rechazado" in r.getMessage()]


@pytest.mark.parametrize(("name", "bad", "message", "key"), BAD_VALUES)
def test_bad_value_is_said_and_keeps_model(view, name, bad, message, key, caplog):
    """No page sends it (the controls hold only valid values): one INFO line with the
    catalogue's message, and the model, the controls and every figure stay."""
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    view.__panel__()
    before = (view.model.n_positions, view.model.d_model)
    specs = (view.board.specs_json, view.figures.specs_json)
    values = view.heatmap.values
    use(view, name, bad)
    assert (view.model.n_positions, view.model.d_model) == before
    assert (view.board.specs_json, view.figures.specs_json) == specs
    assert view.heatmap.values is values
    [line] = refusals(caplog)
    assert line.levelno == logging.INFO
    said = line.getMessage()
    assert message in said
    assert text("input.kept") in said
    assert refusal_text(key, bad) in said
    assert text(f"positional.{'d' if name == 'd_model' else 'n'}_slider") in said
    assert (control_value(view.n_positions), control_value(view.d_model)) == before
    # The next valid value is taken.
    use(view, "d_model", 32)
    assert view.model.d_model == 32
    assert control_value(view.d_model) == 32


@pytest.mark.parametrize(
    "message",
    [
        {"control": "d_model", "value": 7},
        {"control": "d_model", "value": 514},
        {"control": "d_model", "value": True},
        {"control": "d_model", "value": 32.5},
        {"control": "d_model", "value": "32"},
        {"control": "d_model", "value": None},
        {"control": "n_positions", "value": float("nan")},
        {"control": "n_positions", "value": float("inf")},
        {"control": "n_positions", "value": [20]},
        {"control": "n_positions", "value": 1},
        {"control": "shape", "value": 20},
        {"control": "n_positions", "value": 20, "extra": 1},
        {"control": "n_positions"},
        {"value": 20},
        "n_positions=20",
        None,
    ],
)
def test_a_forged_control_message_is_refused_and_the_state_kept(view, message, caplog):
    """What no page sends (out of bounds, odd, the wrong type, a slot that is no control) is one
    INFO line; the model and everything on screen stay."""
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    before = (view.board.specs_json, view.figures.specs_json, view.heatmap.values)
    view.board.receive(message)
    assert (view.model.n_positions, view.model.d_model) == (50, 64)
    assert (view.board.specs_json, view.figures.specs_json) == before[:2]
    assert view.heatmap.values is before[2]
    lines = refusals(caplog)
    assert len(lines) == 1
    assert lines[0].levelno == logging.INFO


def test_shape_readout_has_testid(view):
    assert shown(view, "shape")["text"] == "50 posiciones × 64 dimensiones"


# --------------------------------------------------------------------------------------------
# English (lang="en"): the same view, its text from the English catalogue
# --------------------------------------------------------------------------------------------


@pytest.fixture
def english(panel_cleanup):
    v = PositionalView(lang="en")
    v.__panel__().get_root()
    return v


def test_english_view_has_no_spanish_left(english):
    shown = viewable_texts(english)
    assert spanish_words_left(shown) == set()
    assert text("demo.posicion", "en") in shown
    assert text("positional.axis_similarity", "en") in shown


def test_english_worked_table_is_the_dog_bit_with_decimal_points(english):
    rows = table(english.worked_table.object, "pe-worked-table")
    assert rows[0] == ["Vector", "dim 0", "dim 1", "dim 2", "dim 3", "Comment"]
    body = rows[1:]
    assert [r[0] for r in body[::3]] == ["x(the)", "x(dog)", "x(bit)"]
    # The same numbers as the Spanish table, written with a decimal point.
    assert body[4][:5] == ["PE(1)", "0.8415", "0.5403", "0.0100", "1.0000"]
    assert body[8][:5] == ["x(bit) + PE(2)", "0.6093", "0.1839", "0.1200", "0.5998"]
    assert (
        body[4][5]
        == "Dims 0–1 turn 1 rad (high frequency); dims 2–3 only 0.01 rad (low frequency)."
    )
    assert body[8][5] == "What enters attention: “bit” at position 2."
    assert "the dog bit the man" in text("positional.sum_paragraph", "en")


def test_english_slider_changes_the_english_numbers(english):
    assert shown(english, "shape")["text"] == "50 positions × 64 dimensions"
    before = curves(english)[0]["labels"][1]
    use(english, "d_model", 16)
    assert english.model.d_model == 16
    assert shown(english, "shape")["text"] == "50 positions × 16 dimensions"
    template = english.heatmap.spec["title"]
    filled = template.replace("{n}", "50").replace("{d}", "16")
    assert filled == "PE: 50 positions × 16 dimensions"
    assert english.heatmap.spec["decimal"] == "."
    labels = curves(english)[0]["labels"]
    assert labels[0] == "1.0000"
    assert labels[1] != before
    assert labels[1] == f"{english.model.similarity_normalised[1]:.4f}"  # "0.9…", a point
    legend = [c["name"] for c in curves(english)]
    assert legend == ["from pos = 0", "from pos = 10", "from pos = 20"]


def test_english_bad_value_is_refused_in_english(english, caplog):
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    use(english, "d_model", 7)
    assert english.model.d_model == 64
    use(english, "n_positions", 1000)
    assert english.model.n_positions == 50
    odd, bounds = (r.getMessage() for r in refusals(caplog))
    assert "d_model must be even (sine/cosine pairs), not 7. The previous value is kept." in odd
    assert refusal_text("positional.bounds_n_positions", 1000, "en") in bounds
    assert board_labels(english.board) == {
        "n_positions": text("positional.n_slider", "en"),
        "d_model": text("positional.d_slider", "en"),
    }
    assert english.d_model.spec["decimal"] == "."
