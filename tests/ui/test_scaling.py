"""Browser: demo 2 (¿Por qué dividir por √d_k?) on the served lecture, section "autoatencion"."""

from __future__ import annotations

import math

import pytest
from playwright.sync_api import expect

from attnmodel.formatting import es_number, es_percent
from attnmodel.i18n import text
from attnmodel.scaling import ScalingDemo

from c04_testing import readout, slider_handle

pytestmark = pytest.mark.ui

# The demo sits in the lecture's "autoatencion" section, below demo 1.
SECTION = "autoatencion"


def expect_bars(page, model: ScalingDemo) -> None:
    """Each chart's title, its percentages (one per key) and its bars' widths."""
    for which, weights in (
        ("unscaled", model.weights_unscaled),
        ("scaled", model.weights_scaled),
    ):
        chart = page.locator(f'[data-testid="scaling-{which}-bars"]')
        expect(chart.locator("caption")).to_have_text(text(f"scaling.{which}_title", d_k=model.d_k))
        expect(chart.locator("td[data-testid]")).to_have_text([es_percent(w, 1) for w in weights])
        widths = chart.locator("td div").evaluate_all("(bars) => bars.map((b) => b.style.width)")
        # markup.js writes each width with one decimal ("10.2%"; the browser reads "0.0%" as "0%").
        shown = [float(width.removesuffix("%")) for width in widths]
        assert shown == [float(f"{100 * min(max(float(w), 0.0), 1.0):.1f}") for w in weights]


def expect_readouts(page, model: ScalingDemo) -> None:
    def value(testid):
        return readout(page, testid)

    root = math.sqrt(model.d_k)
    sqrt = (
        f"√{model.d_k} = {int(root)}" if root == int(root) else f"√{model.d_k} ≈ {es_number(root)}"
    )
    expect(page.locator('[data-testid="scaling-sqrt-dk"]')).to_have_text(sqrt)
    expect(value("scaling-score-std")).to_have_text(es_number(model.score_std))
    expect(value("scaling-entropy-unscaled")).to_have_text(es_number(model.entropy_unscaled))
    expect(value("scaling-entropy-scaled")).to_have_text(es_number(model.entropy_scaled))
    expect(value("scaling-gradient-unscaled")).to_have_text(es_number(model.gradient_unscaled, 3))
    expect(value("scaling-gradient-scaled")).to_have_text(es_number(model.gradient_scaled, 3))
    expect(value("scaling-sample-entropy-unscaled")).to_have_text(
        es_number(model.sample_entropy_unscaled)
    )
    expect(value("scaling-sample-entropy-scaled")).to_have_text(
        es_number(model.sample_entropy_scaled)
    )


def test_readouts_follow_d_k_and_new_sample(page, watch, open_lecture_section):
    open_lecture_section(SECTION)
    page.locator('[data-testid="scaling-score-std"]').first.wait_for(timeout=30_000)
    # The title's text before its formula ("¿Por qué dividir por").
    title = text("scaling.title").split("$$")[0].strip()
    expect(page.get_by_text(title, exact=False).first).to_be_visible()
    # The caption's first words, before its formula.
    caption = text("scaling.caption").split(" de una sola")[0]
    expect(page.get_by_text(caption, exact=False)).to_be_visible()
    for key in (
        "score_label",
        "entropy_unscaled_label",
        "entropy_scaled_label",
        "sample_entropy_unscaled_label",
        "sample_entropy_scaled_label",
    ):
        expect(page.get_by_text(text(f"scaling.{key}"), exact=True)).to_be_visible()
    n = ScalingDemo().n_trials
    sample_unit = text("scaling.sample_entropy_unit")
    for testid, unit in (
        ("scaling-entropy-unscaled", text("scaling.entropy_unscaled_unit", n=n)),
        ("scaling-entropy-scaled", text("scaling.entropy_scaled_unit", n=n)),
        ("scaling-sample-entropy-unscaled", sample_unit),
        ("scaling-sample-entropy-scaled", sample_unit),
    ):
        expect(page.locator(f'[data-testid="{testid}"] .c04-unit')).to_have_text(unit)
    # The score's unit up to its √d_k ("desviación ≈ √d_k sin escalar").
    deviation = text("scaling.score_unit", sqrt="").removesuffix(" ()")
    expect(page.get_by_text(deviation, exact=False)).to_be_visible()

    model = ScalingDemo()
    expect_readouts(page, model)
    expect(page.locator('[data-testid="scaling-sqrt-dk"]')).to_have_text("√64 = 8")
    expect_bars(page, model)

    # The d_k slider by keyboard: one stop right is 128, then two left is 32.
    handle = slider_handle(page, text("scaling.d_k_slider"))
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

    page.get_by_role("button", name=text("scaling.new_sample")).click()
    model.seed = 1
    expect(page.locator('[data-testid="scaling-seed"]')).to_have_text("1")
    expect_readouts(page, model)
    expect_bars(page, model)

    assert watch.console_errors == []
    assert watch.external == []
