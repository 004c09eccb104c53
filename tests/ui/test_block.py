"""Browser: «El bloque, paso a paso» live (the stepper's keys, the layer slider) and in the
exported bloque.html (the same drawing as live for a few states, a free prompt refused with
the catalogue's message), and axe at 360 px."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel.block import DEFAULT_PROMPTS, walk_of
from attnmodel.formatting import number
from attnmodel.i18n import text

from c04_testing import readout, slider_handle
from c04_testing import wcag_violations as violations

pytestmark = pytest.mark.ui

SECTION, FILE = "bloque", "siguiente.html"
WALK = walk_of("smollm", DEFAULT_PROMPTS["smollm"])["layers"]
# What the live page and the export must show alike after each move.
SNAPSHOT_JS = """() => {
  const out = {};
  const walk = (node) => {
    for (const el of node.querySelectorAll("[data-testid^='block-']")) {
      if (el.dataset.testid !== "block-export-note") out[el.dataset.testid] = el.textContent;
    }
    for (const el of node.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return out;
}"""


def wait_drawn(page) -> None:
    readout(page, "block-step-5-after").first.wait_for(timeout=60_000)


def step_box(page, n: int):
    return page.locator(f'[data-testid="block-step-{n}-note"]')


def test_space_steps_through_the_parts_and_the_layer_slider_moves_the_numbers(
    page, watch, open_lecture_section
):
    open_lecture_section(SECTION)
    wait_drawn(page)
    expect(readout(page, "block-step-5-after")).to_have_text(number(WALK[0]["mid"], 2))
    page.locator("body").click(position={"x": 1, "y": 1})
    page.keyboard.press("p")  # projector mode
    page.keyboard.press(" ")  # step 1 only
    expect(page.locator('[data-testid="step-now"]')).to_have_text(
        text("present.step_now", n=1, total=10)
    )
    expect(step_box(page, 1)).to_be_visible()
    expect(step_box(page, 2)).to_be_hidden()
    for _ in range(4):
        page.keyboard.press(" ")
    expect(step_box(page, 5)).to_be_visible()
    expect(step_box(page, 6)).to_be_hidden()
    handle = slider_handle(page, text("block.layer"))
    handle.focus()
    handle.press("ArrowRight")
    handle.press("ArrowRight")
    expect(readout(page, "block-step-5-after")).to_have_text(number(WALK[2]["mid"], 2))
    expect(page.locator('[data-testid="block-overview"] b')).to_have_text(
        text("block.overview.shown", layer=3)
    )
    assert watch.console_errors == []
    assert watch.external == []


def moves(page) -> list[dict]:
    """A few states, the same in every page: the default, two layers on, step 7 in detail,
    the tiny Transformer."""
    wait_drawn(page)
    shots = [page.evaluate(SNAPSHOT_JS)]
    layer = slider_handle(page, text("block.layer"))
    layer.focus()
    layer.press("ArrowRight")
    layer.press("ArrowRight")
    expect(readout(page, "block-step-5-after")).to_have_text(number(WALK[2]["mid"], 2))
    shots.append(page.evaluate(SNAPSHOT_JS))
    step = slider_handle(page, text("block.step_control"))
    step.focus()
    for _ in range(6):
        step.press("ArrowRight")
    expect(readout(page, "block-detail-hidden")).to_have_text(number(WALK[2]["hidden"], 2))
    shots.append(page.evaluate(SNAPSHOT_JS))
    which = page.get_by_role("combobox", name=text("block.which"), exact=True)
    which.select_option(label=text("block.model.tiny"))
    expect(page.locator('[data-testid="block-step-7-note"]')).to_have_text(text("block.missing.7"))
    shots.append(page.evaluate(SNAPSHOT_JS))
    return shots


def test_the_export_draws_what_the_live_page_draws(open_export, offline, open_live):
    exported = moves(open_export(FILE, SECTION))
    assert offline.console_errors == []
    assert offline.external == []
    live, live_watch = open_live(SECTION)
    served = moves(live)
    assert live_watch.console_errors == []
    for shot_export, shot_live in zip(exported, served, strict=True):
        assert shot_export == shot_live
    assert len(exported[0]) > 40


def test_a_free_prompt_in_the_export_says_it_needs_the_server_and_keeps_the_state(
    open_export, offline
):
    page = open_export(FILE, SECTION)
    wait_drawn(page)
    before = page.evaluate(SNAPSHOT_JS)
    box = page.get_by_role("textbox", name=text("block.prompt"), exact=True)
    box.fill("Hello there, my friend")
    box.press("Enter")
    expect(page.locator('[data-testid="block-offline"]')).to_have_text(
        text("block.free_prompt_offline")
    )
    after = page.evaluate(SNAPSHOT_JS)
    after.pop("block-offline")
    assert after == before
    assert offline.console_errors == []


@pytest.mark.parametrize("lang", ["es", "en"])
def test_no_wcag_violation_at_360_px(page, watch, lecture_url, lang):
    """The whole section «La siguiente palabra» (both demos, drawn), as a phone shows it."""
    size = page.viewport_size  # the page is shared: its size goes back for the next test
    page.set_viewport_size({"width": 360, "height": 800})
    try:
        page.goto(f"{lecture_url}?seccion={SECTION}&lang={lang}")
        wait_drawn(page)
        page.locator('[data-testid="next-word-bars"]').first.wait_for(timeout=60_000)
        assert violations(page) == {}
    finally:
        page.set_viewport_size(size)
    assert watch.console_errors == []
