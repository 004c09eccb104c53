"""Formulas as MathML written by Python, in Chromium: every section of the live lecture and of
the exported clase04.html, in each language, has no MathJax (no ``mjx-container``, no MathJax
bundle or script), shows its formulas as ``<math>`` (at least one in each section whose texts
have one) and each ``<math>`` keeps its TeX as ``alttext`` and as its ``application/x-tex``
annotation. The live test reads each section on the lecture's one pass through its navigation
per language, which also checks the headings, the language and no console error.

Bokeh's and Panel's own bundles, kept as they ship, name MathJax in their code (the provider
that would load its bundle, which finds none and says "failed"): a MathJax script here is one
whose address names it or whose text is Bokeh's MathJax bundle (its modules
``models/text/mathjax/…``).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel import AttentionExplorer, SelfAttention
from attnmodel.formatting import number
from attnmodel.i18n import catalogue, languages, text
from attnmodel.next_word import LECTURE_PROMPTS
from dashboards.demos.registry import SECTIONS, section_demos
from dashboards.export import unpacked_page

from c04_testing import PAGE_TEXT_JS, heading_text, spanish_words_left

pytestmark = pytest.mark.ui

# What only Bokeh's MathJax bundle holds: the module map at its end.
MATHJAX_BUNDLE = "models/text/mathjax/"

# The page in tree order, shadow roots included: each section marker and each <math> (its
# alttext, display and annotations), so each formula is counted in the section it is in.
WALK_JS = """() => {
  const events = [];
  const visit = (el) => {
    const id = el.getAttribute('data-testid');
    if (id && id.startsWith('section-')) events.push({marker: id.slice('section-'.length)});
    if (el.localName === 'math') {
      events.push({
        alttext: el.getAttribute('alttext'),
        display: el.getAttribute('display'),
        annotations: Array.from(el.querySelectorAll('annotation'),
          (a) => [a.getAttribute('encoding'), a.textContent]),
        shown: el.getBoundingClientRect().width > 0,
      });
      return;
    }
    if (el.shadowRoot) for (const child of el.shadowRoot.children) visit(child);
    for (const child of el.children) visit(child);
  };
  visit(document.documentElement);
  return events;
}"""

# Every script of the page: its address, or whether its text is the MathJax bundle.
SCRIPTS_JS = """(bundle) => Array.from(document.scripts, (s) => ({
  src: s.src, bundle: !s.src && s.textContent.includes(bundle),
}))"""

# What the page loaded (the live one: the served bundles).
RESOURCES_JS = "() => performance.getEntriesByType('resource').map((r) => r.name)"


def section_of_marker() -> dict[str, str]:
    """Each marker (a demo's id, or the exercises' section id) → its section's id."""
    out = {s.id: s.id for s in SECTIONS}
    for section in SECTIONS:
        for demo in section_demos(section):
            out[demo.id] = section.id
    return out


def sections_with_formulas(lang: str) -> set[str]:
    """The sections one of whose texts has a $$…$$, from the catalogue: each demo's table
    (named as its module) and the exercises' for the last section; a demo whose data are not
    installed shows no text of its own and is not counted."""
    tables_with_math = {k.split(".", 1)[0] for k, v in catalogue(lang).items() if "$$" in v}
    out = set()
    for section in SECTIONS:
        demos = section_demos(section)
        tables = {d.module for d in demos if d.available()} if demos else {"exercise"}
        if tables & tables_with_math:
            out.add(section.id)
    return out


def formulas_by_section(events: list[dict]) -> dict[str, list[dict]]:
    """The walk's formulas grouped by the section whose marker comes last before them (the
    page's header, before any marker: "")."""
    sections = section_of_marker()
    out: dict[str, list[dict]] = {}
    current = ""
    for event in events:
        if "marker" in event:
            current = sections[event["marker"]]
            out.setdefault(current, [])
        else:
            out.setdefault(current, []).append(event)
    return out


def assert_mathml_only(page, sections: list[str], lang: str) -> None:
    """No MathJax anywhere in the page, and the formulas of ``sections`` as MathML."""
    expect(page.locator("mjx-container")).to_have_count(0)
    assert page.evaluate("typeof window.MathJax") == "undefined"
    scripts = page.evaluate(SCRIPTS_JS, MATHJAX_BUNDLE)
    assert [s for s in scripts if "mathjax" in s["src"].lower() or s["bundle"]] == []
    assert [r for r in page.evaluate(RESOURCES_JS) if "mathjax" in r.lower()] == []
    expect(page.get_by_text("$$", exact=False)).to_have_count(0)  # no TeX left as text

    found = formulas_by_section(page.evaluate(WALK_JS))
    for section in sections_with_formulas(lang) & set(sections):
        assert found.get(section), f"{section}: no <math>"
    formulas = [f for group in found.values() for f in group]
    assert formulas
    for formula in formulas:
        assert formula["alttext"], formula
        assert formula["annotations"] == [["application/x-tex", formula["alttext"]]], formula
        assert formula["display"] in ("inline", "block"), formula


# Each section's heading is its first demo's title (the exercises: their heading).
HEADINGS = {
    s.id: heading_text(section_demos(s)[0].title() if s.demos else text("exercise.heading"))
    for s in SECTIONS
}
# The explorer's token buttons show the sentence explored (data; by default the kept Spanish
# example, quoted and glossed in the text).
EXPLORER_TOKENS = {t.lower() for t in AttentionExplorer().tokens}
# The language model's lecture texts: one is Spanish on purpose (it predicts worse there).
EXPLORER_TOKENS |= {w.strip(",").lower() for p in LECTURE_PROMPTS for w in p.split()}


@pytest.mark.parametrize("lang", languages())
def test_every_live_section_in_its_language_with_its_formulas_as_mathml(
    page, watch, lecture_url, lang
):
    """One load of the live lecture per language (Spanish: the default, no ?lang), on its
    first section; each section chosen from the navigation (the lecture shows one section at a
    time) and read when drawn: in Spanish its heading shows; in English no Spanish word is left
    outside the examples kept in Spanish (marked lang="es"), numbers have a decimal point and
    the defaults are the same; in both, its formulas as MathML. English ends back in Spanish by
    the language switch. No console error, no request outside localhost.

    (Also what test_lecture.py's test_navigation_shows_every_section_without_errors_or_external
    _requests and test_the_english_lecture_shows_every_section_in_english checked, each with a
    load and a pass over the sections of its own.)"""
    page.goto(lecture_url if lang == "es" else f"{lecture_url}?lang={lang}")
    expect(page.get_by_text(text("lecture.title", lang)).first).to_be_visible(timeout=30_000)
    assert page.evaluate("document.documentElement.lang") == lang
    for section in SECTIONS:
        demos = section_demos(section)
        last = demos[-1].id if demos else section.id  # its content is drawn when this is
        page.get_by_role("button", name=section.label(lang), exact=True).click()
        for marker in dict.fromkeys((section.id, last)):
            page.locator(f'[data-testid="section-{marker}"]').first.wait_for(
                state="attached", timeout=30_000
            )
        if lang == "es":
            expect(page.get_by_role("heading", name=HEADINGS[section.id]).first).to_be_visible()
        else:
            if section.id == "autoatencion":
                weights = SelfAttention().weights[0]
                cells = (
                    page.locator('[data-testid="sa-weights"] tr').nth(1).locator("td:not(.c04-sum)")
                )
                expect(cells).to_have_text([number(w, 4, lang=lang) for w in weights])
            left = spanish_words_left(page.evaluate(PAGE_TEXT_JS))
            assert left - EXPLORER_TOKENS == set(), section.id
        assert_mathml_only(page, [section.id], lang)
    if lang != "es":
        page.get_by_test_id("lang-es").first.click()  # back to Spanish, on the same section
        expect(page.get_by_text(text("lecture.title", "es")).first).to_be_visible(timeout=30_000)
        page.locator(f'[data-testid="section-{SECTIONS[-1].id}"]').first.wait_for(state="attached")
    assert watch.console_errors == []
    assert watch.external == []


@pytest.mark.parametrize("lang", languages())
def test_every_exported_section_writes_its_formulas_as_mathml(whole_lecture, lang):
    page, offline = whole_lecture(lang)
    exported = [s.id for s in SECTIONS if all(d.available() for d in section_demos(s))]
    assert_mathml_only(page, exported, lang)
    assert offline.external == []
    assert offline.console_errors == []


def test_the_export_twin_fills_the_scores_caption_as_mathml(open_export, offline):
    """The browser twin sets the scores' caption from the embedded catalogue, whose formulas
    are MathML with their fields kept: unscaled, then scaled again (d_k = 2)."""
    page = open_export("autoatencion.html", "autoatencion")
    caption = page.locator('math[alttext="QK^\\\\top"]')  # CSS: "\\\\" is one backslash
    expect(caption).to_have_count(0)
    page.locator(".sa-scaled input").first.uncheck()
    expect(caption).to_have_count(1)
    expect(caption.locator("annotation")).to_have_text("QK^\\top")
    page.locator(".sa-scaled input").first.check()
    expect(caption).to_have_count(0)
    size = page.locator('math[alttext="d_k = 2"]')
    expect(size).to_have_count(1)
    expect(size.locator("mn")).to_have_text("2")
    assert offline.console_errors == []


def test_no_exported_file_holds_the_mathjax_bundle(exported):
    files = sorted(exported.rglob("*.html"))
    assert files
    for path in files:
        assert MATHJAX_BUNDLE not in unpacked_page(path.read_text(encoding="utf-8")), path.name
