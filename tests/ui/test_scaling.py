"""Browser: demo 2 (¿Por qué dividir por √d_k?) on the served lecture, section "autoatencion"."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel.formatting import es_number, es_percent
from attnmodel.scaling import ScalingDemo
from dashboards.scaling import sqrt_text

pytestmark = pytest.mark.ui

# The demo sits in the lecture's "autoatencion" section, below demo 1.
SECTION = "autoatencion"

# The bars and labels of a panel, once its Bokeh source (found by name) holds them.
SOURCE_HOLDS_JS = """([name, weights, labels]) => {
    for (const doc of Bokeh.documents) {
        const source = doc.get_model_by_name(name);
        if (source) {
            const get = (c) => Array.from(
                source.data instanceof Map ? source.data.get(c) : source.data[c]);
            const peso = get("peso");
            return peso.length === weights.length &&
                peso.every((v, i) => Math.abs(v - weights[i]) < 1e-9) &&
                JSON.stringify(get("label")) === JSON.stringify(labels);
        }
    }
    return false;
}"""


def expect_bars(page, model: ScalingDemo) -> None:
    for name, weights in (
        ("scaling-unscaled-source", model.weights_unscaled),
        ("scaling-scaled-source", model.weights_scaled),
    ):
        page.wait_for_function(
            SOURCE_HOLDS_JS,
            arg=[name, [float(w) for w in weights], [es_percent(w, 1) for w in weights]],
            timeout=10_000,
        )


def expect_readouts(page, model: ScalingDemo) -> None:
    def value(testid):
        return page.locator(f'[data-testid="{testid}"] .c04-value')

    expect(page.locator('[data-testid="scaling-sqrt-dk"]')).to_have_text(sqrt_text(model.d_k))
    expect(value("scaling-score-std")).to_have_text(es_number(model.score_std))
    expect(value("scaling-entropy-unscaled")).to_have_text(es_number(model.entropy_unscaled))
    expect(value("scaling-entropy-scaled")).to_have_text(es_number(model.entropy_scaled))
    expect(value("scaling-gradient-unscaled")).to_have_text(es_number(model.gradient_unscaled, 3))
    expect(value("scaling-gradient-scaled")).to_have_text(es_number(model.gradient_scaled, 3))


def test_readouts_follow_d_k_and_new_sample(page, watch, open_lecture_section):
    open_lecture_section(SECTION)
    page.locator('[data-testid="scaling-score-std"]').first.wait_for(timeout=30_000)
    expect(page.get_by_text("¿Por qué dividir por", exact=False).first).to_be_visible()
    expect(page.get_by_text("Distribución de atención sobre 8 llaves", exact=False)).to_be_visible()
    for label in ("Puntaje típico", "Entropía del softmax", "Con escalado"):
        expect(page.get_by_text(label, exact=True)).to_be_visible()
    expect(page.get_by_text("desviación ≈ √d_k sin escalar", exact=False)).to_be_visible()

    model = ScalingDemo()
    expect_readouts(page, model)
    expect(page.locator('[data-testid="scaling-sqrt-dk"]')).to_have_text("√64 = 8")
    expect_bars(page, model)

    # The d_k slider by keyboard: one stop right is 128, then two left is 32.
    handle = page.locator(".noUi-handle").first
    handle.focus()
    handle.press("ArrowRight")
    model.d_k = 128
    expect_readouts(page, model)
    handle.press("ArrowLeft")
    handle.press("ArrowLeft")
    model.d_k = 32
    expect_readouts(page, model)
    expect(page.locator('[data-testid="scaling-dk"]')).to_have_text("d_k = 32")
    expect_bars(page, model)
    # The titles are drawn on the canvas: read them from the figures' Bokeh models.
    page.wait_for_function(
        """() => Bokeh.documents.some((doc) => {
            const fig = doc.get_model_by_name("scaling-unscaled-figure");
            return fig && fig.title.text === "Sin escalar (d_k = 32)";
        })""",
        timeout=10_000,
    )

    page.get_by_role("button", name="Nueva muestra").click()
    model.seed = 1
    expect(page.locator('[data-testid="scaling-seed"]')).to_have_text("1")
    expect_readouts(page, model)
    expect_bars(page, model)

    assert watch.console_errors == []
    assert watch.external == []
