"""Browser: the positional-encoding section ("posicion") of the served lecture."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel import PositionalEncodingDemo
from attnmodel.formatting import number
from attnmodel.i18n import text

from c04_testing import (
    assert_lines_drawn,
    assert_raster_drawn,
    press_slider,
    wait_for_chart,
)

pytestmark = pytest.mark.ui

N_SLIDER = text("positional.n_slider")  # "Número de posiciones (filas)"


def expect_shape(page, n: int, d: int) -> dict:
    """The readout, the heat map's matrix, its drawing and its title say n × d; the heat map
    as CHART_JS reads it."""
    expect(page.locator('[data-testid="pe-shape"]')).to_have_text(
        text("positional.shape", n=n, d=d)
    )
    title = text("positional.heatmap_title", n=n, d=d)
    return wait_for_chart(
        page,
        "pe-heatmap",
        f"c.values && c.values.shape.join() === '{n},{d}' && c.canvas.width === {d} && "
        f"c.canvas.height === {n} && c.title === {title!r}",
    )


def check_plots(page, model: PositionalEncodingDemo) -> None:
    """The browser holds the model's numbers and draws them: the heat map's matrix (float32:
    within 1e-6) and every cell's colour, the three curves' numbers and their paths."""
    n, d = model.n_positions, model.d_model
    heat = expect_shape(page, n, d)
    assert heat["values"]["dtype"] in ("float32", "Float32Array")
    values = np.asarray(heat["values"]["data"]).reshape(n, d)
    pe = model.encoding
    np.testing.assert_allclose(values, pe, atol=1e-6)
    assert_raster_drawn(heat, pe, "pe-heatmap")
    assert heat["role"] == "img"
    assert heat["aria"] == text("a11y.plot.pe_heatmap")
    # The colour bar's ticks in the page's language; the cells crisp, the width filled.
    assert heat["bar_ticks"] == ["−1", "−0,5", "0", "0,5", "1"]
    assert heat["canvas"]["rendering"] == "pixelated"
    assert heat["canvas"]["shown"] > 0.75 * heat["box"]

    half = d / 2
    expected = [
        model.similarity_from(start) / half if start < n else np.array([]) for start in (0, 10, 20)
    ]
    np.testing.assert_allclose(expected[0], model.similarity_normalised, atol=1e-12)
    sim = wait_for_chart(page, "pe-similarity", f"c.spec && c.spec.x.max === {n - 1}")
    for series, want in zip(sim["spec"]["series"], expected, strict=True):
        np.testing.assert_allclose(series["y"], want, atol=1e-6)
        assert series["labels"] == [number(v, 4) for v in want]
    assert_lines_drawn(sim, [list(v) for v in expected], "pe-similarity")
    assert sim["legend"] == [text("positional.curve_from", start=s) for s in (0, 10, 20)]
    assert (sim["role"], sim["aria"]) == ("img", text("a11y.plot.pe_similarity"))


def test_section_text_and_default_numbers(page, watch, open_lecture_section):
    open_lecture_section("posicion")
    heading = page.get_by_role("heading", name=text("demo.posicion"), exact=True)
    expect(heading).to_be_visible()
    expect(page.get_by_text("Una fila por posición, una columna por dimensión.")).to_be_visible()
    expect(page.get_by_text("distinguen regiones lejanas.", exact=False)).to_be_visible()
    expect(page.get_by_role("heading", name=text("positional.waves_heading"))).to_be_visible()
    expect(page.get_by_text("no de la posición absoluta", exact=False)).to_be_visible()
    expect(
        page.get_by_role("heading", name="El ejemplo del apunte: tres tokens contiguos con")
    ).to_be_visible()
    expect(page.get_by_text("La suma no destruye el contenido.")).to_be_visible()
    expect(page.get_by_text("darían exactamente lo mismo.", exact=False)).to_be_visible()

    table = page.locator('[data-testid="pe-worked-table"]')
    expect(table).to_be_visible()
    for cell in ("Comentario", "PE(1)", "0,8415", "0,5403", "x(mordió) + PE(2)", "0,6093"):
        expect(table).to_contain_text(cell)
    check_plots(page, PositionalEncodingDemo())
    # The formula is MathML: its TeX only in its annotation, which is not drawn.
    expect(page.locator("math").first).to_be_attached()
    expect(page.get_by_text("10000^{2i/d}", exact=False)).to_be_hidden()

    assert watch.console_errors == []
    assert watch.external == []


def test_sliders_change_the_heatmap_and_curve(page, watch, open_lecture_section):
    open_lecture_section("posicion")
    expect_shape(page, 50, 64)
    model = PositionalEncodingDemo()

    # d_model by keyboard: one stop left is 62 (steps of 2, never odd).
    press_slider(page, "d_model", "ArrowLeft")
    model.d_model = 62
    expect_shape(page, 50, 62)
    check_plots(page, model)
    press_slider(page, "d_model", "ArrowLeft", "ArrowLeft")
    model.d_model = 58
    expect_shape(page, 50, 58)

    # n_positions: Home jumps to the lower bound.
    press_slider(page, N_SLIDER, "ArrowRight")
    model.n_positions = 51
    expect_shape(page, 51, 58)
    check_plots(page, model)
    press_slider(page, N_SLIDER, "Home")
    model.n_positions = 2
    expect_shape(page, 2, 58)
    check_plots(page, model)
    expect(page.locator('[data-testid="pe-error"]')).to_have_count(0)

    assert watch.console_errors == []
    assert watch.external == []


def test_tooltips_say_the_cell_and_the_curves(page, watch, open_lecture_section):
    """The pointer over a cell of the heat map says its position, dimension and PE value (4
    decimals, the page's comma); over the curves, each curve's value at that Δ."""
    open_lecture_section("posicion")
    model = PositionalEncodingDemo()
    expect_shape(page, 50, 64)
    canvas = page.locator('[data-testid="pe-heatmap"] canvas.c04-raster-canvas')
    canvas.scroll_into_view_if_needed()
    box = canvas.bounding_box()
    tip = page.locator('[data-testid="pe-heatmap"] .c04-tip')
    for i, j in ((0, 1), (7, 3), (49, 63)):
        x = box["x"] + (j + 0.5) / 64 * box["width"]
        y = box["y"] + (i + 0.5) / 50 * box["height"]
        page.mouse.move(x, y)
        value = float(np.float32(model.encoding[i, j]))
        expect(tip).to_have_text(
            f"{text('positional.axis_position')}: {i}{text('positional.axis_dimension')}: {j}"
            f"PE: {number(value, 4)}"
        )
    page.mouse.move(0, 0)
    expect(tip).to_be_hidden()

    chart = page.locator('[data-testid="pe-similarity"] svg')
    chart.scroll_into_view_if_needed()
    frame = page.locator('[data-testid="pe-similarity"] rect.c04-frame').bounding_box()
    delta = 5
    page.mouse.move(frame["x"] + delta / 49 * frame["width"], frame["y"] + 5)
    tip = page.locator('[data-testid="pe-similarity"] .c04-tip')
    base = model.similarity_normalised[delta]
    for start in (0, 10, 20):
        expect(tip).to_contain_text(
            f"{text('positional.hover_curve')}: {text('positional.curve_from', start=start)}"
            f"Δ: {delta}{text('positional.hover_similarity')}: {number(base, 4)}"
        )
    expect(chart).to_be_visible()
    assert watch.console_errors == []
