"""WCAG 2.1 A/AA in real Chromium: axe-core (bundled by axe-playwright-python, nothing fetched)
on every section live, every standalone demo and every exported file; the names that
dashboards/static/a11y.js gives sliders, checkboxes and formulas; the contrast of shaded cells."""

from __future__ import annotations

import datetime

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel import ScalingDemo, SelfAttention
from attnmodel.formatting import number, percent
from attnmodel.i18n import languages, text
from dashboards.demos.registry import APPS, SECTIONS
from dashboards.export import INDEX_FILE, LECTURE_FILE, lang_dir

from c04_testing import SETTLED_JS, twin_html
from c04_testing import wcag_violations as violations


@pytest.mark.parametrize("app", [a for a in APPS if a != "lecture"])
def test_every_standalone_demo_has_no_wcag_violation(page, watch, server, app):
    page.goto(f"{server['base']}/{app}?lang=en")
    page.locator(".bk-panel-models-layout-Column").first.wait_for(state="attached")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert violations(page) == {}
    assert watch.console_errors == []


# clase04.html holds every section's views; a section's own file is the same views under its
# bar (one of them is checked: the bar and the skip link), in each language. Colour contrast,
# 5 of axe's 8 s on the whole lecture, is checked on the Spanish file only: the English one has
# the same styles and colours, and its views are checked in full live (the standalone demos).
@pytest.mark.parametrize("lang", languages())
def test_the_whole_exported_lecture_has_no_wcag_violation(whole_lecture, lang):
    page, offline = whole_lecture(lang)
    skip = () if lang_dir(lang) == "" else ("color-contrast",)
    assert violations(page, skip) == {}
    assert offline.console_errors == []
    assert offline.external == []


def test_an_exported_section_file_has_no_wcag_violation_and_its_skip_link_works(open_export):
    """explorador.html: axe finds nothing (read first, nothing touched), then the skip link
    is the first Tab stop and Enter on it goes to the content."""
    page = open_export("explorador.html")
    assert violations(page) == {}
    skip_link_goes_to_the_content(page)


def test_the_export_indexes_have_no_wcag_violation(page, offline, exported):
    for lang in languages():
        page.goto((exported / f"{lang_dir(lang)}{INDEX_FILE}").as_uri())
        assert page.evaluate("document.documentElement.lang") == lang
        assert violations(page) == {}, lang


def test_text_on_every_shade_meets_aa_contrast(page):
    """markup.js's ink(): white or black text on the weights' blue at every opacity, at least
    4.5:1 by WCAG's formula (computed here, in Python, on the colour the browser paints)."""
    page.set_content(twin_html())
    alphas = [i / 200 for i in range(201)]
    inks = page.evaluate("(alphas) => alphas.map((a) => C04.markup.ink(a))", alphas)

    def luminance(rgb):
        def channel(c):
            v = c / 255
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

        r, g, b = map(channel, rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    for alpha, ink in zip(alphas, inks, strict=True):
        shade = [255 * (1 - alpha) + c * alpha for c in (31, 95, 168)]
        fg = luminance((255, 255, 255) if ink == "#fff" else (0, 0, 0))
        bg = luminance(shade)
        ratio = (max(fg, bg) + 0.05) / (min(fg, bg) + 0.05)
        assert ratio >= 4.5, (alpha, ink, ratio)


PHONE = {"width": 360, "height": 740}
WIDTH_JS = "document.documentElement.scrollWidth"
# The controls a finger must hit, smaller than 44 × 44 px: a slider by its handle's touch area,
# a checkbox by its whole line (its text toggles it too), an exercise's option by its label;
# links in running text are exempt.
SMALL_TARGETS_JS = """() => {
  const small = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('button, input, select, [role=slider]')) {
      let target = el;
      if (el.matches('[role=slider]')) target = el.querySelector('.noUi-touch-area') || el;
      if (el.type === 'checkbox') target = el.getRootNode().host;
      if (el.type === 'radio' && el.closest('label')) target = el.closest('label');
      const box = target.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;  // not on screen
      if (box.width < 44 || box.height < 44) {
        small.push(`${el.tagName} ${el.getAttribute('aria-label') || el.textContent.trim()}`
          + ` ${Math.round(box.width)}×${Math.round(box.height)}`);
      }
    }
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
  };
  walk(document);
  return small;
}"""


@pytest.fixture
def phone(page):
    """The shared page at a phone's 360×740 for one test, then back to its own size."""
    size = page.viewport_size
    page.set_viewport_size(PHONE)
    try:
        yield page
    finally:
        page.set_viewport_size(size)


def test_on_a_phone_one_menu_reaches_every_section_and_none_scrolls_sideways(
    phone, watch, lecture_url
):
    """At 360 px the navigation is one menu above the section. By touch it reaches every
    section in turn and back to the first (each of its buttons a 44 px target; the chosen
    section replaces the menu, which keeps the focus), and no section is wider than the screen
    (tables, plots and long formulas scroll inside their own box), every control is a 44 px
    target, and a checkbox's text toggles it. Then, on the same page, by keyboard: the menu
    opens, moves, closes and chooses. (One load and one drawing of each section for both.)"""
    phone.goto(lecture_url)
    expect(phone.get_by_text(text("lecture.title")).first).to_be_visible(timeout=30_000)
    menu = phone.get_by_test_id("nav-toggle")
    expect(menu).to_be_visible()
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(phone.get_by_role("button", name=SECTIONS[1].label(), exact=True)).to_be_hidden()
    viewport = phone.locator('meta[name="viewport"]')
    expect(viewport).to_have_attribute("content", "width=device-width, initial-scale=1")
    widths, small = {}, {}
    for section in [*SECTIONS[1:], SECTIONS[0]]:
        menu.click()
        expect(menu).to_have_attribute("aria-expanded", "true")
        button = phone.get_by_role("button", name=section.label(), exact=True)
        box = button.bounding_box()
        assert min(box["height"], box["width"]) >= 44, section.id  # a finger's target
        button.click()
        phone.locator(f'[data-testid="section-{section.id}"]').first.wait_for(
            state="attached", timeout=30_000
        )
        expect(menu).to_have_attribute("aria-expanded", "false")
        expect(menu).to_contain_text(section.label())
        expect(menu).to_be_focused()
        phone.wait_for_function(SETTLED_JS, timeout=30_000)
        widths[section.id] = phone.evaluate(WIDTH_JS)
        small[section.id] = phone.evaluate(SMALL_TARGETS_JS)
        if section.id == "explorador":
            causal = phone.get_by_role("checkbox", name=text("explorer.causal"))
            assert not causal.is_checked()
            causal.locator("..").click()  # its label (board.js: the box inside its <label>)
            expect(causal).to_be_checked()
    assert widths == {s.id: PHONE["width"] for s in SECTIONS}
    assert small == {s.id: [] for s in SECTIONS}
    assert menu.bounding_box()["height"] >= 44

    # By keyboard, from the first section (where touch left it).
    menu.focus()
    phone.keyboard.press("Enter")
    expect(menu).to_have_attribute("aria-expanded", "true")
    phone.keyboard.press("Tab")
    first = phone.get_by_role("button", name=SECTIONS[0].label(), exact=True)
    expect(first).to_be_focused()
    phone.keyboard.press("Escape")
    expect(menu).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_focused()
    expect(first).to_be_hidden()
    phone.keyboard.press("Enter")
    phone.keyboard.press("Tab")
    phone.keyboard.press("Tab")  # the second section
    phone.keyboard.press("Enter")
    phone.locator(f'[data-testid="section-{SECTIONS[1].id}"]').first.wait_for(state="attached")
    expect(menu).to_contain_text(SECTIONS[1].label())
    expect(menu).to_be_focused()
    assert watch.console_errors == []


# The element that has the focus, through every shadow root.
ACTIVE_JS = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el;
}"""
# What a keyboard user looks for in each section, and the key that changes it.
KEYBOARD = {
    "autoatencion": ("el.type === 'checkbox'", "Space"),
    # A head count's button (the projector switch, before the section, is pressed-or-not too).
    "cabezas": (
        "el.tagName === 'BUTTON' && el.getAttribute('aria-pressed') === 'false'"
        " && !el.classList.contains('c04-projector-switch')",
        "Enter",
    ),
    "posicion": ("el.type === 'range'", "ArrowRight"),
    "capital": ("el.type === 'range'", "ArrowLeft"),
    # The step's and the temperature's native ranges (their Boards') (the step starts at its
    # last stop).
    "entrenamiento": ("el.type === 'range'", "ArrowLeft"),
    "explorador": ("el.type === 'range'", "ArrowRight"),
    # The grid of MiniLM's heads: one Tab stop, the arrows choose the head shown in large.
    "modelo": ("(el.dataset.testid || '').startsWith('minilm-tile-')", "ArrowRight"),
    # The temperature's native range: the bars change once the model thread has them.
    "siguiente": ("el.type === 'range'", "ArrowRight"),
    # A "Probarlo" button (the projector switch and the shortcuts' help change no number).
    "jugar": (
        f"el.tagName === 'BUTTON' && el.textContent.trim() === {text('lecture.try_it')!r}",
        "Enter",
    ),
}
CONTENT_TEXT_JS = """() => {
  const main = C04.a11y.deepFind(document, '[data-c04-content]');
  const parts = [];
  const walk = (node) => {
    for (const child of node.childNodes) {
      if (child.nodeType === 3) parts.push(child.textContent);
      else walk(child);
    }
    if (node.shadowRoot) walk(node.shadowRoot);
  };
  walk(main);
  return parts.join(' ').replace(/\\s+/g, ' ');
}"""


def test_every_live_section_has_no_wcag_violation_and_works_from_the_keyboard(
    page, watch, lecture_url
):
    """The lecture, live: Tab reaches the skip link first and Enter goes to the content; then
    each section, chosen from the navigation with Enter, has no WCAG violation as it first
    draws (axe, before any key changes it), Tab reaches the section's control, a key changes
    it, and the numbers on screen change. (The sections' axe run and the keyboard's walk share
    one load of the lecture and one drawing of each section.)"""
    page.goto(lecture_url)
    expect(page.get_by_text(text("lecture.title")).first).to_be_visible(timeout=30_000)
    assert page.evaluate("document.documentElement.lang") == "es"
    page.locator(f'[data-testid="section-{SECTIONS[0].id}"]').first.wait_for(
        state="attached", timeout=30_000
    )
    page.wait_for_function(SETTLED_JS, timeout=30_000)
    page.wait_for_function("() => !!C04.a11y.deepFind(document, '.c04-skip')", timeout=30_000)
    page.keyboard.press("Tab")
    assert page.evaluate(f"({ACTIVE_JS})().className") == "c04-skip"
    page.keyboard.press("Enter")
    assert page.evaluate(f"({ACTIVE_JS})().hasAttribute('data-c04-content')")
    found = {}
    for section in SECTIONS:
        page.get_by_role("button", name=section.label()).focus()
        page.keyboard.press("Enter")
        page.locator(f'[data-testid="section-{section.id}"]').first.wait_for(
            state="attached", timeout=30_000
        )
        page.wait_for_function(SETTLED_JS, timeout=30_000)
        found[section.id] = violations(page)
        wanted, key = KEYBOARD[section.id]
        for _ in range(80):
            page.keyboard.press("Tab")
            if page.evaluate(f"(() => {{ const el = ({ACTIVE_JS})(); return {wanted}; }})()"):
                break
        else:
            pytest.fail(f"{section.id}: Tab never reached {wanted}")
        before = page.evaluate(CONTENT_TEXT_JS)
        page.keyboard.press(key)
        page.wait_for_function(f"(before) => ({CONTENT_TEXT_JS})() !== before", arg=before)
    assert found == {s.id: {} for s in SECTIONS}
    assert watch.console_errors == []


MOVING_JS = """() => {
  const moving = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const style = getComputedStyle(el);
      const durations = style.transitionDuration.split(',').map((d) => parseFloat(d));
      if (durations.some((d) => d > 0) || style.animationName !== 'none') {
        moving.push(el.tagName + '.' + String(el.className));
      }
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return moving;
}"""


def test_reduced_motion_stops_every_animation(page, open_lecture_section):
    """prefers-reduced-motion: no transition or animation anywhere (Panel's scroll button
    fades in 0.2 s otherwise: the check can fail)."""
    page.emulate_media(reduced_motion="reduce")
    try:
        open_lecture_section("explorador")
        page.wait_for_function(SETTLED_JS, timeout=30_000)
        assert page.evaluate(MOVING_JS) == []
    finally:
        page.emulate_media(reduced_motion="no-preference")


def skip_link_goes_to_the_content(page) -> None:
    """On a page whose focus has not moved since it loaded: Tab reaches the skip link first and
    Enter on it moves the focus to the content."""
    page.wait_for_function(SETTLED_JS, timeout=30_000)
    # Bokeh draws the link with the page's views: under a loaded machine, late.
    page.wait_for_function("() => !!C04.a11y.deepFind(document, '.c04-skip')", timeout=30_000)
    page.keyboard.press("Tab")
    assert page.evaluate(f"({ACTIVE_JS})().className") == "c04-skip"
    page.keyboard.press("Enter")
    assert page.evaluate(f"({ACTIVE_JS})().hasAttribute('data-c04-content')")


# The page's polite live region (a11y.js, announce) and every text it has said.
LIVE_REGION_JS = """() => {
  const region = document.getElementById('c04-live');
  return region && {text: region.textContent, role: region.getAttribute('role'),
    live: region.getAttribute('aria-live'), said: window.__c04Said || []};
}"""
RECORD_SAID_JS = """() => {
  window.__c04Said = [];
  new MutationObserver(() => {
    const region = document.getElementById('c04-live');
    if (region && region.textContent) window.__c04Said.push(region.textContent);
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
}"""


def test_live_controls_are_named_and_a_change_is_announced_once(page, open_lecture_section):
    """One load of the live lecture on «autoatencion», read before anything changes it:

    - nothing is said when the section first draws;
    - a11y.js: the d_k slider's handle is named by its title and says 64 (not the index 6); a
      formula is MathML, which a screen reader reads itself (role math), its TeX as its
      alttext; a cell of X is a named text box;
    - ticking "Máscara causal" says each row's largest weight, computed by the model in that
      state, once;
    - a11y.js finds the shadow roots of views drawn after the first render: the positional
      section, built when its navigation button is pressed, names its slider and says its
      value; the button says its section is the one on screen;
    - the explorer's checkboxes say their labels."""
    from attnmodel.positional import PositionalEncodingDemo

    open_lecture_section("autoatencion")
    page.wait_for_function(SETTLED_JS, timeout=30_000)
    page.wait_for_timeout(700)  # longer than a11y.js's quiet time: a load would have spoken
    assert page.evaluate(LIVE_REGION_JS) is None

    handle = page.get_by_role("slider", name="d_k").first
    expect(handle).to_have_attribute("aria-valuetext", "64", timeout=10_000)
    formula = page.locator(r'math[alttext="\\sqrt{d_k}"]').first  # "\\": a backslash in CSS
    expect(formula).to_be_visible()
    expect(page.get_by_role("math").first).to_be_visible()
    cell = page.get_by_role("textbox", name=text("a11y.cell", name="X", row=1, col=2))
    expect(cell).to_have_count(1)

    page.evaluate(RECORD_SAID_JS)
    page.get_by_role("checkbox", name=text("self_attention.causal")).click()
    # Each row's largest weight (the first of a tie), from the model and the catalogue.
    weights = SelfAttention(causal=True).weights
    rows = text("a11y.announce.join").join(
        text(
            "a11y.announce.row",
            query=f"token {i + 1}",
            key=f"token {int(np.argmax(row)) + 1}",
            weight=percent(row.max(), 1),
        )
        for i, row in enumerate(weights)
    )
    expected = " ".join(text("a11y.announce.self_attention", rows=rows).split())
    page.wait_for_function(
        "(expected) => (document.getElementById('c04-live') || {}).textContent === expected",
        arg=expected,
        timeout=10_000,
    )
    region = page.evaluate(LIVE_REGION_JS)
    assert (region["role"], region["live"]) == ("status", "polite")
    assert region["said"] == [expected]

    section = next(s for s in SECTIONS if s.id == "posicion")
    button = page.get_by_role("button", name=section.label())
    button.click()
    page.locator('[data-testid="section-posicion"]').first.wait_for(
        state="attached", timeout=30_000
    )
    handle = page.get_by_role("slider", name=text("positional.n_slider"))
    expect(handle).to_have_attribute(
        "aria-valuetext", str(PositionalEncodingDemo().n_positions), timeout=10_000
    )
    expect(button).to_have_attribute("aria-current", "true")

    open_lecture_section("explorador")
    box = page.get_by_role("checkbox", name=text("explorer.causal"))
    expect(box).to_have_count(1)


@pytest.mark.parametrize("lang", languages())
def test_the_exported_lecture_fits_a_phone_skips_to_its_content_and_announces_a_slider(
    page, offline, open_export, lang
):
    """The offline lecture (clase04.html, every section), opened once per language:

    - at 360 px no section is wider than the screen, nor at 640 px (a 1280 px window zoomed
      to 200 %), and every control is a 44 px target (read before anything is touched);
    - back at the page's own size, in Spanish (clase04.html, the file the other language's
      folder mirrors), Tab reaches the skip link first and Enter goes to the content;
    - three presses of → on the d_k slider (64 → 512) end with the mean entropies of
      d_k = 512, in the page's language, as the model computes them."""
    size = page.viewport_size
    page.set_viewport_size(PHONE)
    try:
        open_export(f"{lang_dir(lang)}{LECTURE_FILE}", "autoatencion")
        page.wait_for_function(SETTLED_JS, timeout=30_000)
        page.set_viewport_size({"width": 640, "height": 400})
        assert page.evaluate(WIDTH_JS) == 640
        page.set_viewport_size(PHONE)
        assert page.evaluate(WIDTH_JS) == PHONE["width"]
        assert page.evaluate(SMALL_TARGETS_JS) == []
        viewport = page.locator('meta[name="viewport"]')
        expect(viewport).to_have_attribute("content", "width=device-width, initial-scale=1")
    finally:
        page.set_viewport_size(size)

    if lang_dir(lang) == "":
        skip_link_goes_to_the_content(page)

    page.evaluate(RECORD_SAID_JS)
    handle = page.get_by_role("slider", name="d_k").first
    expect(handle).to_have_attribute("aria-valuetext", "64", timeout=10_000)
    handle.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    m = ScalingDemo(d_k=512)
    entropies = {
        "unscaled": number(m.entropy_unscaled, lang=lang),
        "scaled": number(m.entropy_scaled, lang=lang),
    }
    said_text = text("a11y.announce.scaling", lang, d_k=512, n=m.n_trials, **entropies)
    expected = " ".join(said_text.split())
    page.wait_for_function(
        "(expected) => (document.getElementById('c04-live') || {}).textContent === expected",
        arg=expected,
        timeout=10_000,
    )
    said = page.evaluate(LIVE_REGION_JS)["said"]
    assert said[-1] == expected
    assert len(said) <= 3
    assert offline.console_errors == []


def test_changes_within_the_quiet_time_are_said_once(browser):
    """a11y.js: three announcements in a row, less than 0.5 s apart, say only the last, 0.5 s
    after it. The page's clock is the test's (Playwright's clock, installed for a context of
    this test's own: it would stay in the shared one), so no real time is waited."""
    context = browser.new_context()
    try:
        start = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
        context.clock.install(time=start)
        context.clock.pause_at(start + datetime.timedelta(seconds=1))  # time moves when told
        page = context.new_page()
        page.set_content(twin_html("a11y.js"))
        page.evaluate(RECORD_SAID_JS)
        said = page.evaluate("() => { C04.a11y.announce('uno'); return window.__c04Said; }")
        assert said == []
        page.clock.run_for(300)
        page.evaluate("() => C04.a11y.announce('dos')")
        page.clock.run_for(300)  # 0.6 s after «uno»: alone, it would have been said by now
        page.evaluate("() => C04.a11y.announce('tres')")
        page.clock.run_for(499)
        assert page.evaluate(LIVE_REGION_JS) == {
            "text": "",
            "role": "status",
            "live": "polite",
            "said": [],
        }
        page.clock.run_for(1)  # 0.5 s of quiet after «tres»
        assert page.evaluate(LIVE_REGION_JS)["said"] == ["tres"]
        page.clock.run_for(5_000)
        assert page.evaluate(LIVE_REGION_JS)["said"] == ["tres"]
    finally:
        context.close()


def test_a_folded_table_opens_stays_open_and_shows_the_models_numbers(page, open_lecture_section):
    """Heads: «Los números de esta matriz» of head 1 opens from the keyboard, and when h goes
    4 → 1 (head 1 becomes the single head, new weights) it stays open with every weight of
    the model's, two decimals."""
    from attnmodel import MultiHeadDemo

    open_lecture_section("cabezas")
    page.wait_for_function(SETTLED_JS, timeout=30_000)
    summary = page.get_by_text(text("multihead.table_summary")).first
    summary.focus()
    page.keyboard.press("Enter")
    table = page.locator('[data-testid="head-1-table"]')
    expect(table).to_be_visible()
    page.get_by_role("button", name="1", exact=True).click()
    cells = [number(a) for row in MultiHeadDemo(n_heads=1).weights[0] for a in row]
    assert cells != [number(a) for row in MultiHeadDemo().weights[0] for a in row]
    expect(table.locator("td")).to_have_text(cells, timeout=15_000)
    expect(table).to_be_visible()
