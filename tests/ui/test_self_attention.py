"""Browser: demo 1 (self-attention on 3 tokens) on the served lecture, section "autoatencion"."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from attnmodel.formatting import es_number
from attnmodel.i18n import text
from attnmodel.self_attention import SelfAttention

from c04_testing import table_row

pytestmark = pytest.mark.ui

SECTION = "autoatencion"


def wait_for_numbers(page) -> None:
    page.locator('[data-testid="sa-weights"]').first.wait_for(timeout=30_000)


def open_second_session(browser, url: str, errors: list[str]):
    """A second browser context (another session); open_lecture_section drives `page` only."""
    context = browser.new_context()
    other = context.new_page()
    other.on("console", lambda m: m.type == "error" and errors.append(m.text))
    other.goto(url)
    wait_for_numbers(other)
    return context, other


def expect_heatmap(page, weights) -> None:
    """The heat map draws A: one cell per weight, row by row, each shaded by its weight and
    saying it (4 decimals) in its tooltip."""
    cells = page.locator('[data-testid="sa-heatmap"] rect.c04-head-cell')
    expect(cells).to_have_count(weights.size)
    # Playwright's locators reach into the components' shadow roots and retry until it holds.
    for k, w in enumerate(weights.ravel()):
        tip = re.compile(re.escape(": " + es_number(float(w), 4)) + "$")
        expect(cells.nth(k)).to_have_attribute("data-tip", tip, timeout=10_000)
    # The shade is the weight's: markup.js's rgba opacity, 3 decimals.
    fills = cells.evaluate_all("cs => cs.map((c) => c.getAttribute('fill'))")
    assert [float(f.rsplit(",", 1)[1].rstrip(")")) for f in fills] == pytest.approx(
        [float(w) for w in weights.ravel()], abs=5e-4
    )


def numbers(values, decimals: int = 4) -> list[str]:
    return [es_number(v, decimals) for v in values]


def x_cell(page, i: int = 0):
    return page.locator(".sa-editor-X .c04-cell input").nth(i)


def test_defaults_mask_and_cell_edits(page, watch, open_lecture_section):
    open_lecture_section(SECTION)
    wait_for_numbers(page)
    expect(page.get_by_text(text("demo.autoatencion"))).to_be_visible()
    expect(page.get_by_text(text("self_attention.intro"), exact=False)).to_be_visible()
    model = SelfAttention()

    # Worked example 4.2.6, as the model computes it.
    expect(table_row(page, "sa-weights", 1)).to_have_text(["0,2840", "0,1400", "0,5760"])
    expect(table_row(page, "sa-Z", 1)).to_have_text(["1,5760", "1,4320"])
    for i in (2, 3):
        expect(table_row(page, "sa-weights", i)).to_have_text(numbers(model.weights[i - 1]))
        expect(table_row(page, "sa-scores", i)).to_have_text(numbers(model.scores[i - 1]))
    expect(page.locator('[data-testid="sa-weights"] td.c04-sum').first).to_have_text("Σ = 1,0000")
    expect_heatmap(page, model.weights)

    # Causal mask: token 1 can only look at itself.
    page.locator(".sa-causal input").check()
    expect(table_row(page, "sa-weights", 1)).to_have_text(["1,0000", "0,0000", "0,0000"])
    expect(table_row(page, "sa-scores", 1)).to_have_text(
        [es_number(model.scores[0, 0], 4), "−∞", "−∞"]
    )
    expect(page.get_by_text(text("self_attention.one_hot"), exact=False)).to_be_visible()
    model.causal = True
    expect(table_row(page, "sa-weights", 2)).to_have_text(numbers(model.weights[1]))
    expect_heatmap(page, model.weights)

    # A bad cell: Spanish message, old value back, numbers unchanged.
    cell = x_cell(page)
    cell.fill("abc")
    cell.press("Enter")
    expect(page.get_by_text(text("input.not_a_number", text="abc"), exact=False)).to_be_visible()
    expect(cell).to_have_value("1")
    expect(table_row(page, "sa-weights", 2)).to_have_text(numbers(model.weights[1]))
    expect(table_row(page, "sa-Z", 2)).to_have_text(numbers(model.Z[1]))

    # A Spanish decimal: the model recomputes with X[1,1] = 1,5.
    cell.fill("1,5")
    cell.press("Enter")
    model.set_cell("X", 0, 0, 1.5)
    for i in (1, 2, 3):
        expect(table_row(page, "sa-weights", i)).to_have_text(numbers(model.weights[i - 1]))
        expect(table_row(page, "sa-Z", i)).to_have_text(numbers(model.Z[i - 1]))
    expect(table_row(page, "sa-Q", 1)).to_have_text(["3,00", "1,50"])
    expect(page.get_by_text("no es un número", exact=False)).to_have_count(0)
    # The select shows "personalizado" (its options have no value attribute: their text).
    expect(page.locator(".sa-preset select")).to_have_value(text("self_attention.preset_custom"))

    assert watch.console_errors == []
    assert watch.external == []


def test_two_sessions_do_not_share_edits(page, watch, open_lecture_section, browser):
    open_lecture_section(SECTION)
    wait_for_numbers(page)
    errors: list[str] = []
    context, second = open_second_session(browser, page.url, errors)
    try:
        cell = x_cell(page)
        cell.fill("2")
        cell.press("Enter")
        edited = SelfAttention(X=[[2, 0], [0, 1], [1, 1]])
        expect(table_row(page, "sa-weights", 1)).to_have_text(numbers(edited.weights[0]))
        expect(table_row(second, "sa-weights", 1)).to_have_text(["0,2840", "0,1400", "0,5760"])
        expect(x_cell(second)).to_have_value("1")
        expect_heatmap(second, SelfAttention().weights)
        page.locator(".sa-causal input").check()
        expect(table_row(page, "sa-weights", 1)).to_have_text(["1,0000", "0,0000", "0,0000"])
        second.reload()
        wait_for_numbers(second)
        expect(table_row(second, "sa-weights", 1)).to_have_text(["0,2840", "0,1400", "0,5760"])
        expect(second.locator(".sa-causal input")).not_to_be_checked()
    finally:
        context.close()
    assert errors == []
    assert watch.console_errors == []
