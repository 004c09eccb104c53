"""In front of a class, in Chromium: projector mode at 1920×1080 (the numbers that matter at
28 px or more, the prose folded, the switch and the address agree), the keyboard shortcuts and
their help, and the capital walkthrough step by step — live and offline."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel import CapitalWalkthrough
from attnmodel.formatting import number
from attnmodel.i18n import catalogue, text
from dashboards.demos.registry import SECTIONS

from c04_testing import PageWatch, readout

# The section after "La capital", where → goes from it.
AFTER_CAPITAL = SECTIONS[[s.id for s in SECTIONS].index("capital") + 1].id

pytestmark = pytest.mark.ui

PROJECTOR = {"width": 1920, "height": 1080}

# The computed font size (px) of the numbers that matter and whether prose paragraphs show.
SIZES_JS = """() => {
  const out = {values: [], cells: [], prose: 0};
  const walk = (root) => {
    for (const el of root.querySelectorAll('.c04-readout .c04-value'))
      out.values.push(parseFloat(getComputedStyle(el).fontSize));
    for (const el of root.querySelectorAll('table.c04-matrix td:not(.c04-sum)')) {
      const size = parseFloat(getComputedStyle(el).fontSize);
      if (el.getBoundingClientRect().width > 0) out.cells.push(size);
    }
    const host = root.host;
    if (host && host.classList.contains('c04-prose'))
      for (const p of root.querySelectorAll('p')) {
        const shown = p.getBoundingClientRect().height > 0;
        if (shown && !p.querySelector('math')) out.prose += 1;
      }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return out;
}"""


@pytest.fixture
def projector(page):
    size = page.viewport_size
    page.set_viewport_size(PROJECTOR)
    try:
        yield page
    finally:
        page.set_viewport_size(size)


def _numbers_are_large(page) -> None:
    # Once the projector's sheet has reached what is drawn (a condition, not a fixed wait):
    # the same figures, then asserted one by one for a readable failure.
    page.wait_for_function(
        f"""() => {{
      const s = ({SIZES_JS})();
      return s.values.length > 0 && s.cells.length > 0 && Math.min(...s.values) >= 28
        && Math.min(...s.cells) >= 28 && s.prose === 0;
    }}"""
    )
    sizes = page.evaluate(SIZES_JS)
    assert sizes["values"]
    assert sizes["cells"]
    assert min(sizes["values"]) >= 28
    assert min(sizes["cells"]) >= 28
    assert sizes["prose"] == 0


def test_projector_mode_live_from_the_link_and_the_switch(projector, watch, lecture_url):
    page = projector
    page.goto(f"{lecture_url}?seccion=capital&modo=proyector")
    page.locator('[data-testid="section-capital"]').first.wait_for(state="attached")
    expect(page.locator("html")).to_have_class("c04-projector")
    switch = page.locator('[data-testid="projector-switch"]')
    expect(switch).to_have_attribute("aria-pressed", "true")
    _numbers_are_large(page)
    # A change keeps the mode in the address; the switch turns it off, and the sizes back.
    page.locator('[data-testid="exercise-input-identity_minus"]').fill("0,3")
    page.locator('[data-testid="exercise-check-identity_minus"]').click()
    page.wait_for_function("() => location.search.includes('capital.identity=-0.9')")
    assert "modo=proyector" in page.url
    switch.click()
    expect(switch).to_have_attribute("aria-pressed", "false")
    assert "modo=" not in page.url
    assert max(page.evaluate(SIZES_JS)["cells"]) < 28
    assert watch.console_errors == []


def test_shortcuts_live_move_reset_and_show_their_help(page, watch, lecture_url):
    page.goto(f"{lecture_url}?seccion=capital&capital.identity=0")
    page.locator('[data-testid="section-capital"]').first.wait_for(state="attached")
    # The keys are listened to from the Presenter's first drawing on (present.js), which draws
    # the projector switch: that, not a fixed wait.
    page.locator('[data-testid="projector-switch"]').wait_for(state="attached")
    page.keyboard.press("?")
    dialog = page.get_by_role("dialog", name=text("present.title"))
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text(text("present.key_reset"))
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    # R: the section's demos back to their defaults.
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("r")
    default = CapitalWalkthrough().probability
    expect(readout(page, "capital-probability")).to_have_text(number(default, 4))
    page.wait_for_function("() => !location.search.includes('capital.identity')")
    # → and ←: the next and the previous section.
    page.keyboard.press("ArrowRight")
    page.locator(f'[data-testid="section-{AFTER_CAPITAL}"]').first.wait_for(state="attached")
    page.wait_for_function(f"() => location.search.includes('seccion={AFTER_CAPITAL}')")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => location.search.includes('seccion=capital')")
    # A digit: the section's n-th exercise, ready to answer.
    page.keyboard.press("2")
    focused = page.evaluate(
        "() => { let a = document.activeElement;"
        " while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;"
        " return a && a.getAttribute('data-testid') }"
    )
    assert focused == "exercise-input-identity_minus"
    # Typing there is an answer, not a shortcut.
    page.keyboard.type("r")
    assert "seccion=capital" in page.url
    assert watch.console_errors == []


def _visible_steps(page) -> list[bool]:
    """Whether each of «La capital»'s step boxes (in the section's Board, through shadow roots)
    is shown."""
    return page.evaluate(
        """() => {
      const out = [];
      const walk = (root) => {
        for (const el of root.querySelectorAll('.c04-box')) {
          const s = /(?:^| )c04-step-(\\d+)(?: |$)/.exec(el.className);
          // «La capital»'s boxes (group ""), not another stepper's (c04-steps-<group>).
          const other = /(?:^| )c04-steps-/.test(el.className);
          if (s && !other) out[Number(s[1]) - 1] = el.checkVisibility();
        }
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
      };
      walk(document);
      return out;
    }"""
    )


def test_the_walkthrough_steps_one_at_a_time_live(page, watch, open_lecture_section):
    open_lecture_section("capital")
    page.wait_for_function("() => window.C04 && C04.stepper")
    assert _visible_steps(page) == [True] * 8
    page.locator('[data-testid="step-next"]').click()
    assert _visible_steps(page) == [True] + [False] * 7
    expect(page.locator('[data-testid="step-now"]')).to_have_text(
        catalogue()["present.step_now"].format(n=1, total=8)
    )
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press(" ")
    assert _visible_steps(page) == [True, True] + [False] * 6
    expect(page.locator('[data-testid="capital-tokens"]')).to_be_visible()
    expect(page.locator('[data-testid="capital-logits"]')).to_be_hidden()
    for _ in range(6):
        page.locator('[data-testid="step-next"]').click()
    assert _visible_steps(page) == [True] * 8
    expect(page.locator('[data-testid="capital-logits"]')).to_be_visible()
    page.locator('[data-testid="step-prev"]').click()
    expect(page.locator('[data-testid="capital-logits"]')).to_be_hidden()
    page.locator('[data-testid="step-all"]').click()
    assert _visible_steps(page) == [True] * 8
    assert watch.console_errors == []


def test_projector_shortcuts_and_steps_offline(projector, offline, open_export):
    page = projector
    open_export("en/clase04.html", "capital")
    page.wait_for_function("() => window.C04 && C04.links && C04.links.ready")
    page.locator('[data-testid="projector-switch"]').click()
    expect(page.locator("html")).to_have_class("c04-projector")
    assert "modo=proyector" in page.url
    _numbers_are_large(page)
    # The walkthrough, step by step, offline too (the first stepper is «La capital»'s).
    page.locator('[data-testid="step-next"]').first.click()
    assert _visible_steps(page) == [True] + [False] * 7
    # → goes to the next section's anchor; R resets the section's demo.
    page.evaluate("c04Goto('capital')")
    page.locator('[data-testid="exercise-input-identity_minus"]').fill("0.3")
    page.locator('[data-testid="exercise-check-identity_minus"]').click()
    page.wait_for_function("() => location.hash.includes('capital.identity=-0.9')")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("r")
    page.wait_for_function("() => !location.hash.includes('capital.identity')")
    assert "modo=proyector" in page.url
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"() => location.hash.includes('seccion={AFTER_CAPITAL}')")
    page.keyboard.press("?")
    expect(page.get_by_role("dialog", name=text("present.title", "en"))).to_be_visible()
    page.keyboard.press("Escape")
    assert offline.console_errors == []
    assert offline.external == []


BEFORE_JS = """(testid) => {
  const out = [];
  const walk = (root) => {
    for (const t of root.querySelectorAll(`[data-testid="${testid}"]`))
      for (const b of t.querySelectorAll('.c04-before'))
        out.push(`${b.dataset.before} → ${b.textContent}`);
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return out;
}"""


def test_a_toggle_leaves_the_numbers_before_it_in_view_live(
    browser, browser_context_args, lecture_url
):
    """The page's clock is Playwright's (installed for a context of this test's own: it would
    stay in the shared one), so the 3 s that end the comparison are skipped, not waited."""
    context = browser.new_context(**browser_context_args)
    try:
        context.clock.install()
        page = context.new_page()
        watch = PageWatch(page)
        page.goto(f"{lecture_url}?seccion=autoatencion")
        page.locator('[data-testid="section-autoatencion"]').first.wait_for(state="attached")
        page.locator(".sa-causal input").click()
        # Token 1's row: (0,2840, 0,1400, 0,5760) → (1, 0, 0); unchanged cells show one number.
        page.wait_for_function(f"() => ({BEFORE_JS})('sa-weights').length > 0")
        changed = page.evaluate(BEFORE_JS, "sa-weights")
        assert "0,2840 → 1,0000" in changed
        assert "0,5760 → 0,0000" in changed
        # Until the next change: a cell typed (not a toggle) draws the numbers alone.
        page.clock.fast_forward(3100)  # past markup.js's COMPARE_MS
        cell = page.locator(".sa-editor-X .c04-cell input").first
        cell.fill("2")
        cell.press("Enter")
        page.wait_for_function(f"() => ({BEFORE_JS})('sa-Q').length === 0")
        expect(page.locator('[data-testid="sa-Q"] td').first).to_have_text("4,00")
        assert page.evaluate(BEFORE_JS, "sa-weights") == []
        assert watch.console_errors == []
        assert watch.external == []
    finally:
        context.close()


def test_a_toggle_leaves_the_numbers_before_it_in_view_offline(page, offline, open_export):
    open_export("explorador.html", "explorador")
    page.get_by_role("checkbox", name=text("explorer.causal")).click()
    changed = page.evaluate(BEFORE_JS, "explorer-row")
    assert changed
    assert all(" → " in c for c in changed)
    assert offline.console_errors == []
