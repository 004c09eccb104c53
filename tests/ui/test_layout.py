"""The lecture's layout in Chromium, live and offline: at a phone's 360 × 740 every section's
title is in the first screen (the navigation folds into one menu: test_a11y.py walks it with
its checks of each section's width), nothing in «La capital»'s steps is cut off (a table's last
column, a step's title wrapped word by word) and «Autoatención»'s gradient note wraps inside its
box; at 1920 × 1080 in projector mode the section uses the whole width and no card's numbers
spill out of it; the identity slider tells assistive technology the value the page shows."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel.formatting import number
from attnmodel.i18n import catalogue, text
from dashboards.app.lecture import SECTIONS
from dashboards.demos.registry import section_demos
from dashboards.export import LECTURE_FILE, exported_sections

from c04_testing import SETTLED_JS, heading_text

pytestmark = pytest.mark.ui

PHONE = {"width": 360, "height": 740}
PROJECTOR = {"width": 1920, "height": 1080}
WIDE = {"width": 1280, "height": 800}

# Each section's title: its first demo's (the exercises: their heading).
TITLES = {
    s.id: heading_text(section_demos(s)[0].title() if s.demos else text("exercise.heading"))
    for s in SECTIONS
}

# Every element of the page, through every shadow root, as a JS helper.
DEEP = """const deep = (root, out = []) => {
  for (const el of root.querySelectorAll('*')) {
    out.push(el);
    if (el.shadowRoot) deep(el.shadowRoot, out);
  }
  return out;
};"""

# Capital's step boxes (in its Board) at a phone's width: the Board, and the fragments and texts
# in the boxes, whose content is wider than what they show (scrolled sideways or cut), and each
# step title's number of lines.
CARDS_JS = f"""() => {{
  {DEEP}
  const all = deep(document);
  const boxes = all.filter(e => /(^| )c04-step-\\d+( |$)/.test(e.className)
    && e.classList.contains('c04-box'));
  const clipped = [], titles = {{}}, tables = {{}};
  for (const host of new Set(boxes.map(b => b.getRootNode().host)))
    if (host.scrollWidth > host.clientWidth + 1)
      clipped.push(`board: ${{host.scrollWidth}} > ${{host.clientWidth}}`);
  for (const box of boxes) {{
    const step = box.className.match(/c04-step-(\\d+)/)[1];
    if (box.scrollWidth > box.clientWidth + 1)
      clipped.push(`${{step}}: ${{box.scrollWidth}} > ${{box.clientWidth}}`);
    const inside = deep(box);
    for (const el of inside) {{
      const pane = el.matches('.c04-slot, .c04-prose-html');
      if (pane && el.scrollWidth > el.clientWidth + 1)
        clipped.push(`${{step}}: ${{el.scrollWidth}} > ${{el.clientWidth}}`);
      const id = el.getAttribute('data-testid');
      if (id === 'capital-logits' || id === 'capital-probabilities')
        tables[id] = Math.round(el.getBoundingClientRect().right);
    }}
    const head = box.querySelector('.c04-box-title p') || box.querySelector('.c04-box-title');
    const cs = head && getComputedStyle(head);
    const line = cs && (parseFloat(cs.lineHeight) || 1.25 * parseFloat(cs.fontSize));
    titles[step] = head ? Math.round(head.getBoundingClientRect().height / line) : null;
  }}
  return {{clipped, titles, tables, width: document.documentElement.clientWidth}};
}}"""

# The self-attention gradient note (found by its first words): its pane's visible and full
# widths, its right edge and its number of lines.
NOTE_JS = f"""(start) => {{
  {DEEP}
  const note = deep(document).find(e => e.classList.contains('c04-note')
    && e.textContent.trim().startsWith(start));
  if (!note) return null;
  const host = note.getRootNode().host;
  const cs = getComputedStyle(note);
  const line = parseFloat(cs.lineHeight) || 1.25 * parseFloat(cs.fontSize);
  return {{scroll: host.scrollWidth, client: host.clientWidth,
    right: note.getBoundingClientRect().right, width: document.documentElement.clientWidth,
    lines: Math.round(note.getBoundingClientRect().height / line)}};
}}"""

# At a projector's width: the right edge of the section's content, the page's width, and the
# tables that reach past the right edge of the step box (in capital's Board) that holds them.
PROJECTOR_JS = f"""() => {{
  {DEEP}
  const all = deep(document);
  const main = all.find(e => e.hasAttribute('data-c04-content'));
  const boxes = all.filter(e => e.classList.contains('c04-box'));
  const spill = [];
  for (const box of boxes) {{
    const right = box.getBoundingClientRect().right;
    for (const t of deep(box).filter(e => e.matches('table.c04-matrix')))
      if (t.getBoundingClientRect().right > right + 1)
        spill.push(`${{box.className}}: ${{t.getAttribute('data-testid')}}`);
  }}
  return {{right: main.getBoundingClientRect().right, page: document.documentElement.scrollWidth,
    cards: boxes.length, spill}};
}}"""


# The first title (h2) inside the page's main landmark: its text and where it is on screen.
TITLE_JS = f"""() => {{
  {DEEP}
  const main = deep(document).find(e => e.hasAttribute('data-c04-content'));
  if (!main) return null;
  const title = deep(main.shadowRoot || main).find(e => e.tagName === 'H2');
  if (!title || !title.textContent.trim()) return null;
  const box = title.getBoundingClientRect();
  return {{text: title.textContent.trim(), top: box.top, bottom: box.bottom,
    screen: window.innerHeight, scrolled: window.scrollY}};
}}"""


@pytest.fixture
def sized(page):
    """``sized(size)``: the shared page at that viewport for one test, then back."""
    before = page.viewport_size

    def _set(size):
        page.set_viewport_size(size)
        return page

    yield _set
    page.set_viewport_size(before)


def _gradient_note_start() -> str:
    return catalogue("es")["self_attention.gradient_note"].split("{")[0][:40]


def _capital_fits_a_phone(page) -> None:
    page.wait_for_function(SETTLED_JS, timeout=30_000)
    page.wait_for_function(
        f"() => ({CARDS_JS})().tables['capital-probabilities'] !== undefined", timeout=30_000
    )
    found = page.evaluate(CARDS_JS)
    assert found["clipped"] == []
    assert found["titles"] == {str(n): 1 for n in range(1, 9)}
    assert max(found["tables"].values()) <= found["width"]


def _gradient_note_wraps(page) -> None:
    page.wait_for_function(
        f"(s) => ({NOTE_JS})(s) !== null", arg=_gradient_note_start(), timeout=30_000
    )
    note = page.evaluate(NOTE_JS, _gradient_note_start())
    assert note["scroll"] <= note["client"]
    assert note["right"] <= note["width"]
    assert note["lines"] >= 2


def _projector_uses_the_width(page) -> None:
    expect(page.locator("html")).to_have_class("c04-projector")
    page.wait_for_function(SETTLED_JS, timeout=30_000)
    page.wait_for_function(f"() => ({PROJECTOR_JS})().cards === 8", timeout=30_000)
    found = page.evaluate(PROJECTOR_JS)
    assert found["right"] >= 0.95 * PROJECTOR["width"]
    assert found["page"] <= PROJECTOR["width"]
    assert found["spill"] == []


def test_projector_mode_uses_the_whole_width_live(sized, watch, lecture_url):
    page = sized(PROJECTOR)
    page.goto(f"{lecture_url}?seccion=capital&modo=proyector")
    page.locator('[data-testid="section-capital"]').first.wait_for(state="attached")
    _projector_uses_the_width(page)
    assert watch.console_errors == []


def test_projector_mode_from_an_offline_link_uses_the_whole_width(sized, offline, exported):
    """The README's offline link (#…&modo=proyector) opens projector mode, full width."""
    page = sized(PROJECTOR)
    page.goto(f"{(exported / 'capital.html').as_uri()}#modo=proyector")
    page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0", timeout=30_000)
    _projector_uses_the_width(page)
    assert "modo=proyector" in page.url
    assert offline.console_errors == []


def _identity_slider_says_what_it_shows(page, lang: str) -> None:
    shown = number(-0.93, 2, lang=lang)  # "−0,93" / "−0.93": what the control's label shows
    control = page.locator('.c04-control[data-control="identity"]')
    expect(control.locator("label")).to_contain_text(text("capital.identity", lang))
    expect(control.locator("output")).to_have_text(shown)
    handle = page.get_by_role("slider", name=text("capital.identity", lang))
    expect(handle).to_have_attribute("aria-valuetext", shown)
    expect(handle).to_have_value(str(-0.93))  # what a screen reader's value is


def test_the_identity_slider_says_the_value_it_shows_live(page, watch, lecture_url):
    page.goto(f"{lecture_url}?seccion=capital&capital.identity=-0.93")
    page.locator('[data-testid="section-capital"]').first.wait_for(state="attached")
    _identity_slider_says_what_it_shows(page, "es")
    assert watch.console_errors == []


def test_the_identity_slider_says_the_value_it_shows_offline(page, offline, exported):
    page.goto(f"{(exported / 'en' / 'capital.html').as_uri()}#capital.identity=-0.93")
    page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0", timeout=30_000)
    _identity_slider_says_what_it_shows(page, "en")
    assert offline.console_errors == []


def _title_in_the_first_screen(page, section: str) -> None:
    page.wait_for_function(f"() => ({TITLE_JS})() !== null", timeout=30_000)
    page.wait_for_function(SETTLED_JS, timeout=30_000)
    found = page.evaluate(TITLE_JS)
    assert TITLES[section] in found["text"]
    assert found["scrolled"] == 0
    assert found["screen"] == PHONE["height"]
    assert found["top"] >= 0
    assert found["bottom"] <= PHONE["height"], found


# What else is checked on a section's page at a phone's size, after its first screen (read
# only: nothing scrolls or changes): nothing in «La capital»'s steps is cut off, and
# «Autoatención»'s gradient note wraps inside its box.
ON_A_PHONE = {"capital": _capital_fits_a_phone, "autoatencion": _gradient_note_wraps}


@pytest.mark.parametrize("section", [s.id for s in SECTIONS])
def test_a_phone_s_first_screen_shows_the_section_s_title_live(
    section, sized, watch, open_lecture_section
):
    """At 360 × 740 the section's title is in the first screen; then ON_A_PHONE's checks."""
    sized(PHONE)
    page = open_lecture_section(section)
    _title_in_the_first_screen(page, section)
    if section in ON_A_PHONE:
        ON_A_PHONE[section](page)
    assert watch.console_errors == []


@pytest.mark.parametrize("section", exported_sections())
def test_a_phone_s_first_screen_shows_the_section_s_title_offline(
    section, sized, offline, open_export
):
    """The section's exported file (Spanish) at 360 × 740: as live."""
    sized(PHONE)
    page = open_export(f"{section}.html", section)
    _title_in_the_first_screen(page, section)
    if section in ON_A_PHONE:
        ON_A_PHONE[section](page)
    assert offline.console_errors == []


def test_a_phone_s_first_screen_of_the_whole_offline_lecture_shows_its_first_title(
    sized, offline, open_export
):
    sized(PHONE)
    page = open_export(LECTURE_FILE, SECTIONS[0].id)
    _title_in_the_first_screen(page, SECTIONS[0].id)
    assert offline.console_errors == []


def _menu(page):
    return page.get_by_test_id("nav-toggle")


def test_on_a_wide_screen_the_sections_are_buttons_in_view_and_no_menu(
    sized, watch, open_lecture_section
):
    sized(WIDE)
    page = open_lecture_section(SECTIONS[0].id)
    expect(page.get_by_role("button", name=SECTIONS[-1].label(), exact=True)).to_be_visible()
    expect(_menu(page)).to_be_hidden()
    assert watch.console_errors == []
