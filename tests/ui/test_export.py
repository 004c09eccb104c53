"""The offline export (`make export`) in Chromium, opened from file:// with the network cut.

The export runs once per session (the ``exported`` fixture: ``python -m dashboards.export --out
<tmp>``). Every page must render its headings, its default numbers and its math with zero
requests outside file:/data:/blob:/about: and no console error. The first-render time (navigation
start to the section marker attached and MathJax typeset) is printed and recorded, not asserted:
``bench/bench_export.py`` reports it against the 2 s target.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from attnmodel import ScalingDemo
from attnmodel.formatting import es_number
from dashboards.export import INDEX_FILE, LECTURE_FILE, MAX_BYTES, PAGES
from dashboards.lecture import SECTIONS

from c04_testing import readout, table_row

pytestmark = pytest.mark.ui

FILES = [page.filename for page in PAGES]

# performance.now() (ms since navigation start) once `selector` is attached somewhere in the
# page, shadow roots included, and MathJax has typeset at least one formula.
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
  return find(document, selector) && find(document, "mjx-container") ? performance.now() : false;
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
    expect(heading(page, "Autoatención sobre tres tokens")).to_be_visible()
    expect(table_row(page, "sa-weights", 1)).to_have_text(["0,2840", "0,1400", "0,5760"])


def check_scaling(page):
    model = ScalingDemo()
    expect(heading(page, "¿Por qué dividir por")).to_be_visible()
    expect(readout(page, "scaling-score-std")).to_have_text(es_number(model.score_std))


def check_multihead(page):
    expect(heading(page, "Varias cabezas, varias relaciones a la vez")).to_be_visible()
    expect(page.locator('[data-testid="head-dims"]')).to_have_text(
        "d_model = 24, h = 4 → cada cabeza de dimensión 6"
    )


def check_positional(page):
    expect(heading(page, "La matriz de codificación posicional")).to_be_visible()
    expect(page.locator('[data-testid="pe-worked-table"]')).to_contain_text("0,8415")


def check_capital(page):
    expect(heading(page, "La capital de ___ es")).to_be_visible()
    expect(readout(page, "capital-prediction")).to_have_text("París")
    expect(readout(page, "capital-probability")).to_have_text("0,3805")


def check_explorer(page):
    expect(heading(page, "Atención: cómo decide un Transformer qué mirar")).to_be_visible()
    expect(page.locator('[data-testid="row-1"]')).to_have_text("39 %")
    expect(page.locator('[data-testid="row-5"]')).to_have_text("44 %")


def check_exercises(page):
    expect(heading(page, "Para seguir jugando")).to_be_visible()
    expect(page.get_by_text("En la 1, activa la máscara causal", exact=False)).to_be_visible()


CHECKS = {
    "autoatencion": (check_self_attention, check_scaling),
    "cabezas": (check_multihead,),
    "posicion": (check_positional,),
    "capital": (check_capital,),
    "explorador": (check_explorer,),
}
# What each file shows: (marker waited for on first render, every marker, checks).
CONTENT = {
    LECTURE_FILE: (
        "autoatencion",
        [*(s.id for s in SECTIONS), "escalado"],
        [*(c for checks in CHECKS.values() for c in checks), check_exercises],
    ),
    **{
        f"{section}.html": (
            section,
            [section, "escalado"] if section == "autoatencion" else [section],
            list(checks),
        )
        for section, checks in CHECKS.items()
    },
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
    assert page.locator("mjx-container").count() > 0
    expect(page.get_by_text("$$", exact=False)).to_have_count(0)  # no formula left untypeset
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
    expect(page.get_by_role("heading", name="Clase 04 — Atención y Transformers")).to_be_visible()
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


@pytest.mark.parametrize("filename", [*FILES, INDEX_FILE])
def test_file_is_at_most_6_mb(filename, exported):
    size = (exported / filename).stat().st_size
    assert size <= MAX_BYTES, f"{filename}: {size / 1e6:.2f} MB > 6 MB"
