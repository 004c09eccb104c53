"""Browser: the positional-encoding section ("posicion") of the served lecture."""

from __future__ import annotations

import time

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel import PositionalEncodingDemo
from attnmodel.i18n import text

from c04_testing import press_slider

pytestmark = pytest.mark.ui

N_SLIDER = text("positional.n_slider")  # "Número de posiciones (filas)"

# The plots' data as the browser holds it, from the sources' stable Bokeh names: the heatmap's
# image (shape, first and last row) and the three similarity curves (from pos = 0, 10, 20).
PLOT_DATA_JS = """() => {
  const doc = window.Bokeh && window.Bokeh.documents[0];
  const column = (name, key) => {
    const m = doc ? doc.get_model_by_name(name) : null;
    if (m == null) return null;
    return m.data instanceof Map ? m.data.get(key) : m.data[key];
  };
  const out = {image: null, curves: []};
  const image = column('pe-heatmap-source', 'image');
  if (image) {
    const [n, d] = image[0].shape;
    const flat = Array.from(image[0]);
    out.image = {shape: [n, d], first: flat.slice(0, d), last: flat.slice((n - 1) * d)};
  }
  for (const start of [0, 10, 20]) {
    const sim = column(`pe-similarity-source-${start}`, 'similitud');
    out.curves.push(sim == null ? null : Array.from(sim));
  }
  return out;
}"""


def plot_data(page):
    return page.evaluate(PLOT_DATA_JS)


def expect_shape(page, n: int, d: int) -> None:
    expect(page.locator('[data-testid="pe-shape"]')).to_have_text(
        text("positional.shape", n=n, d=d)
    )
    page.wait_for_function(
        """([n, d]) => {
          const doc = window.Bokeh && window.Bokeh.documents[0];
          const m = doc && doc.get_model_by_name('pe-heatmap-source');
          if (m == null) return false;
          const img = m.data instanceof Map ? m.data.get('image') : m.data.image;
          return Boolean(img) && img[0].shape[0] === n && img[0].shape[1] === d;
        }""",
        arg=[n, d],
        timeout=15_000,
    )


def check_plots(page, model: PositionalEncodingDemo, timeout: float = 15.0) -> None:
    """The browser's heatmap and curves hold the model's numbers (each plot updates on its own
    message, so poll until both have arrived)."""
    deadline = time.monotonic() + timeout
    while True:
        data = plot_data(page)
        try:
            image = data["image"]
            assert image["shape"] == [model.n_positions, model.d_model]
            pe = model.encoding
            # Row 0 is position 0: sin 0 = 0, cos 0 = 1 in every pair; float32 on the wire.
            np.testing.assert_allclose(image["first"], pe[0], atol=1e-6)
            np.testing.assert_allclose(image["last"], pe[-1], atol=1e-6)
            base, from10, from20 = data["curves"]
            np.testing.assert_allclose(base, model.similarity_normalised, atol=1e-6)
            half = model.d_model / 2
            for curve, start in ((from10, 10), (from20, 20)):
                if start < model.n_positions:
                    expected = model.similarity_from(start) / half
                    np.testing.assert_allclose(curve, expected, atol=1e-6)
                else:
                    assert curve == []
            return
        except (AssertionError, TypeError):  # TypeError: the document has not loaded yet
            if time.monotonic() > deadline:
                raise
            page.wait_for_timeout(200)


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
    expect_shape(page, 50, 64)
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
