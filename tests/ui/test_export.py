"""The offline export (`make export`) in Chromium, opened from file:// with the network cut.

The export runs once per session (the ``exported`` fixture: ``python -m dashboards.export --out
<tmp>``). Every page must render its headings, its default numbers and its math with zero
requests outside file:/data:/blob:/about: and no console error. The first-render time (navigation
start to the section marker and a formula's MathML attached) is printed and recorded, not asserted:
``bench/bench_export.py`` reports it against the 2 s target.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import bokeh
import pytest
from playwright.sync_api import expect

from attnmodel import AttentionExplorer, ScalingDemo, SelfAttention
from attnmodel.formatting import es_number, number
from attnmodel.i18n import languages, text
from attnmodel.next_word import LECTURE_PROMPTS
from dashboards.app.lecture import SECTIONS
from dashboards.components.scripts import STATIC_DIR
from dashboards.demos.registry import section_demos
from dashboards.export import (
    INDEX_FILE,
    LECTURE_FILE,
    MAX_BYTES,
    PAGES,
    PANEL_DIST,
    lang_dir,
    pages,
    unpacked_page,
)

from c04_testing import PAGE_TEXT_JS, heading_text, readout, spanish_words_left, table_row

pytestmark = pytest.mark.ui

FILES = [page.filename for page in PAGES]

# performance.now() (ms since navigation start) once `selector` is attached somewhere in the
# page, shadow roots included, and so is a formula (MathML the export wrote, drawn natively).
FIRST_RENDER_JS = """(selector) => {
  const find = (root, sel) => {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) {
        const inner = find(el.shadowRoot, sel);
        if (inner) return inner;
      }
    }
    return null;
  };
  return find(document, selector) && find(document, "math") ? performance.now() : false;
}"""


def open_offline(page, exported, filename: str, marker: str) -> float:
    """Open an exported file and wait for its first render; returns that time in ms."""
    page.goto((exported / filename).as_uri(), wait_until="commit")
    handle = page.wait_for_function(
        FIRST_RENDER_JS, arg=f'[data-testid="section-{marker}"]', polling="raf", timeout=30_000
    )
    return float(handle.json_value())


def heading(page, text: str):
    return page.get_by_role("heading", name=re.compile(re.escape(text))).first


def check_self_attention(page):
    expect(table_row(page, "sa-weights", 1)).to_have_text(["0,2840", "0,1400", "0,5760"])


def check_scaling(page):
    model = ScalingDemo()
    expect(readout(page, "scaling-score-std")).to_have_text(es_number(model.score_std))


def check_multihead(page):
    expect(page.locator('[data-testid="head-dims"]')).to_have_text(
        "d_model = 24, h = 4 → cada cabeza de dimensión 6"
    )


def check_positional(page):
    expect(page.locator('[data-testid="pe-worked-table"]')).to_contain_text("0,8415")


def check_capital(page):
    expect(readout(page, "capital-prediction")).to_have_text("París")
    expect(readout(page, "capital-probability")).to_have_text("0,3805")


def check_explorer(page):
    expect(page.locator('[data-testid="row-1"]')).to_have_text("39 %")
    expect(page.locator('[data-testid="row-5"]')).to_have_text("44 %")


def check_exercises(page):
    expect(page.get_by_text("En la 1, activa la máscara causal", exact=False)).to_be_visible()


# Each demo's default numbers, checked beyond its heading. A demo without an entry here is still
# checked on every page that shows it: its marker and its heading, both from the registry.
CHECKS = {
    "autoatencion": (check_self_attention,),
    "escalado": (check_scaling,),
    "cabezas": (check_multihead,),
    "posicion": (check_positional,),
    "capital": (check_capital,),
    "explorador": (check_explorer,),
}


def check_heading(title: str):
    def check(page):
        expect(heading(page, heading_text(title))).to_be_visible()

    return check


def section_content(section) -> tuple[list[str], list]:
    """(every marker, checks) of one section, from the registry."""
    if not section.demos:
        return [section.id], [check_heading(text("exercise.heading")), check_exercises]
    demos = section_demos(section)
    markers = [section.id, *(d.id for d in demos if d.id != section.id)]
    checks = [c for d in demos for c in (check_heading(d.title()), *CHECKS.get(d.id, ()))]
    return markers, checks


# What each file shows: (marker waited for on first render, every marker, checks).
CONTENT = {
    LECTURE_FILE: (
        SECTIONS[0].id,
        [m for s in SECTIONS for m in section_content(s)[0]],
        [c for s in SECTIONS for c in section_content(s)[1]],
    ),
    **{f"{s.id}.html": (s.id, *section_content(s)) for s in SECTIONS if s.demos},
}


def test_every_page_has_its_content_table():
    assert set(CONTENT) == set(FILES)


@pytest.mark.parametrize("filename", FILES)
def test_page_renders_offline_without_errors(filename, page, offline, exported, record_property):
    first_marker, markers, checks = CONTENT[filename]
    ms = open_offline(page, exported, filename, first_marker)
    record_property("first_render_ms", round(ms))
    print(f"\nprimer render sin conexión de {filename}: {ms:.0f} ms")

    for marker in markers:
        expect(page.locator(f'[data-testid="section-{marker}"]')).to_have_count(1)
    # The first step (a section file's title and introduction as HTML) gave way to the page.
    expect(page.locator(".c04-first-step")).to_have_count(0)
    assert page.locator("math").count() > 0
    expect(page.get_by_text("$$", exact=False)).to_have_count(0)  # no formula left as TeX
    for check in checks:
        check(page)
    expect(page).to_have_title(re.compile("Clase 04"))
    assert offline.external == []
    assert offline.console_errors == []


def test_lecture_navigation_scrolls_to_each_section(page, offline, exported):
    open_offline(page, exported, LECTURE_FILE, "autoatencion")
    links = page.locator('[data-testid="export-nav"] a')
    expect(links).to_have_text([s.label() for s in SECTIONS])
    page.locator('[data-testid="export-nav"] a[href="#capital"]').click()
    expect(heading(page, "La capital de ___ es")).to_be_in_viewport()
    assert page.evaluate("window.scrollY") > 0
    # The exercises link back to their section.
    page.locator('[data-testid="export-nav"] a[href="#jugar"]').click()
    page.get_by_text("→ 4 · «La capital de ___ es …»").first.click()
    expect(heading(page, "La capital de ___ es")).to_be_in_viewport()
    assert offline.external == []
    assert offline.console_errors == []


def test_index_links_every_file_offline(page, offline, exported):
    page.goto((exported / INDEX_FILE).as_uri())
    expect(page.get_by_role("heading", name=text("lecture.title"))).to_be_visible()
    links = page.locator('[data-testid="export-files"] a')
    expect(links).to_have_text(FILES)
    for filename in FILES:
        assert (exported / filename).is_file()
        size = (exported / filename).stat().st_size
        row = page.locator('[data-testid="export-files"] tr', has_text=filename)
        expect(row).to_contain_text(f"{es_number(size / 1e6, 2)} MB")
    page.get_by_role("link", name=LECTURE_FILE).click()
    page.locator('[data-testid="section-autoatencion"]').wait_for(state="attached")
    assert offline.external == []
    assert offline.console_errors == []


ENGLISH = pages("en")


@pytest.mark.parametrize(
    "filename", [*FILES, INDEX_FILE, *(p.path for p in ENGLISH), f"{lang_dir('en')}{INDEX_FILE}"]
)
def test_file_is_under_the_size_cap(filename, exported):
    size = (exported / filename).stat().st_size
    assert size <= MAX_BYTES, f"{filename}: {size / 1e6:.2f} MB > {MAX_BYTES / 1e6:.2f} MB"


BENCH = Path(__file__).resolve().parents[2] / "bench"
BOKEH_JS = Path(bokeh.__file__).resolve().parent / "server" / "static" / "js"


def _bench_export(monkeypatch):
    """bench/bench_export.py, imported as the benches run it (bench/ on sys.path)."""
    monkeypatch.syspath_prepend(str(BENCH))
    spec = importlib.util.spec_from_file_location("bench_export", BENCH / "bench_export.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("filename", [LECTURE_FILE, f"{lang_dir('en')}{LECTURE_FILE}"])
def test_where_the_bytes_are(filename, exported, monkeypatch):
    """The bench's listing of a file by bundle (issue 38) adds up to the file; Bokeh's and
    Panel's bundles are in it whole, as they ship (the installed files, each once, with Bokeh's
    two comment lines around it), MathJax's and WebGL's not; a Board's browser code is in the
    page once (static/board.js), and each Board's ESM (every component's, bundle.mjs) only
    calls it."""
    page = (exported / filename).read_text(encoding="utf-8")
    bench = _bench_export(monkeypatch)
    parts, esm = bench.page_parts(page)
    assert sum(parts.values()) == (exported / filename).stat().st_size
    # As the page runs them (packed in the file: gzip and base64, export.pack_scripts).
    unpacked, _ = bench.page_parts(unpacked_page(page))
    for part, path in (
        ("bokeh", BOKEH_JS / "bokeh.min.js"),
        ("bokeh-widgets", BOKEH_JS / "bokeh-widgets.min.js"),
        ("bokeh-tables", BOKEH_JS / "bokeh-tables.min.js"),
        ("panel", PANEL_DIST / "panel.min.js"),
    ):
        size = path.stat().st_size
        assert size < unpacked[part] < size + 100, (part, unpacked[part], size)
        assert parts[part] < 0.5 * size, (part, parts[part], size)
    assert parts["bokeh-mathjax"] == parts["bokeh-gl"] == 0
    assert page.count("/* board.js */") == 1
    code = (STATIC_DIR / "board.js").read_text(encoding="utf-8")
    assert page.count("C04.board = { render, ANSWER_MS }") == 1
    boards = page.count('"class_name":"Board"')
    assert boards >= 10  # the lecture's boards, each its own model
    assert esm["Board"] < 100 * boards < len(code)


def test_the_english_lecture_works_offline_in_english(page, offline, exported):
    """en/clase04.html: every section in English (nothing Spanish outside the examples kept in
    Spanish, marked lang="es"), decimal points, a control and a bad cell answered in English,
    the links between the two languages."""
    path = f"{lang_dir('en')}{LECTURE_FILE}"
    assert ENGLISH[0].path == path
    open_offline(page, exported, path, "autoatencion")
    for section in SECTIONS:
        page.locator(f'[data-testid="section-{section.id}"]').first.wait_for(state="attached")
    expect(page).to_have_title(text("lecture.title", "en"))
    assert page.evaluate("document.documentElement.lang") == "en"
    # The explorer's token buttons show the sentence explored: data (the kept Spanish example).
    tokens = {t.lower() for t in AttentionExplorer().tokens}
    # The language model's lecture texts: one is Spanish on purpose (it predicts worse there).
    tokens |= {w.strip(",").lower() for p in LECTURE_PROMPTS for w in p.split()}
    assert spanish_words_left(page.evaluate(PAGE_TEXT_JS)) - tokens == set()
    row = table_row(page, "sa-weights", 1)
    expect(row).to_have_text([number(w, 4, lang="en") for w in SelfAttention().weights[0]])
    page.locator(".sa-causal input").check()  # the causal mask: token 1 sees only itself
    causal = SelfAttention(causal=True).weights[0]
    expect(row).to_have_text([number(w, 4, lang="en") for w in causal])
    cell = page.locator(".sa-editor-X .c04-cell input").first
    cell.fill("abc")
    cell.press("Enter")
    refused = text(
        "input.cell_refused",
        "en",
        name="X",
        row=1,
        col=1,
        message=text("input.not_a_number", "en", text="abc"),
    )
    expect(page.locator(".c04-error").first).to_have_text(refused)
    expect(page.get_by_test_id("lang-es").first).to_have_attribute("href", f"../{LECTURE_FILE}")
    assert offline.external == []
    assert offline.console_errors == []


def test_each_index_links_its_files_and_the_other_language(page, offline, exported):
    page.goto((exported / lang_dir("en") / INDEX_FILE).as_uri())
    expect(page.get_by_role("heading", name=text("lecture.title", "en"))).to_be_visible()
    expect(page.locator('[data-testid="export-files"] a')).to_have_text(
        [p.filename for p in ENGLISH]
    )
    assert spanish_words_left(page.evaluate(PAGE_TEXT_JS)) == set()
    page.get_by_test_id("lang-es").click()
    expect(page.get_by_role("heading", name=text("lecture.title", "es"))).to_be_visible()
    page.get_by_test_id("lang-en").click()
    expect(page.get_by_role("heading", name=text("lecture.title", "en"))).to_be_visible()
    assert offline.external == []


def _local_only(route) -> None:
    if route.request.url.startswith("file:"):
        route.continue_()
    else:
        route.abort()


def test_a_browser_without_decompression_says_it_cannot_open_the_file(context, exported):
    # A page of its own: an init script stays with its page (the shared one must keep the API).
    old = context.new_page()
    try:
        old.route("**/*", _local_only)
        old.add_init_script("delete window.DecompressionStream")
        old.goto((exported / "capital.html").as_uri())
        expect(old.get_by_role("alert")).to_have_text(text("export.old_browser"))
    finally:
        old.close()


def test_each_section_file_shows_its_title_and_introduction_before_any_script(browser, exported):
    # The first step (export.first_step) is HTML: a browser that runs no script shows it, as
    # the phone does while Bokeh's bundles load; the whole lecture's file has none.
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.route("**/*", _local_only)
        for lang in languages():
            for section in SECTIONS:
                if not section.demos:
                    continue
                page.goto((exported / f"{lang_dir(lang)}{section.id}.html").as_uri())
                title = section_demos(section)[0].title(lang)
                step = page.locator(".c04-first-step")
                expect(step.get_by_role("heading", name=heading_text(title))).to_be_visible()
                if section.id == "posicion":  # its title, then its formula on a line of its own
                    expect(step.locator("math[display=block]")).to_be_visible()
        page.goto((exported / LECTURE_FILE).as_uri())
        expect(page.locator(".c04-first-step")).to_have_count(0)
    finally:
        context.close()
