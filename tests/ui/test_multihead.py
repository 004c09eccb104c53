"""Browser: the "Varias cabezas" section of the served lecture, against the Python model."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel.i18n import text
from attnmodel.multihead import SENTENCES, MultiHeadDemo
from dashboards.multihead import FADE

from c04_testing import assert_one_row_highlighted, expected_top, hover_until_faded

SECTION = "cabezas"

# line_alpha, peso and fila of every arc source the page holds, by Bokeh name.
ARC_SOURCES_JS = """() => {
  const out = {};
  for (const doc of window.Bokeh.documents) {
    for (const m of doc.all_models) {
      if (typeof m.name === "string" && m.name.startsWith("multihead-arcs-") && m.data) {
        out[m.name] = {
          alpha: Array.from(m.data.line_alpha),
          peso: Array.from(m.data.peso),
          fila: Array.from(m.data.fila, Number),
        };
      }
    }
  }
  return out;
}"""


def top_list(page, testid: str):
    return page.locator(f'[data-testid="{testid}"] li')


@pytest.fixture
def section(open_lecture_section, page):
    open_lecture_section(SECTION)
    expect(page.locator('[data-testid="head-4-top"]')).to_be_visible(timeout=20_000)
    return page


def test_default_heads_and_lists(section, watch):
    page, m = section, MultiHeadDemo()
    expect(page.get_by_text(text("demo.cabezas")).first).to_be_visible()
    expect(page.locator('[data-testid="multihead-caveat"]')).to_have_text(text("multihead.caveat"))
    expect(page.get_by_text(text("multihead.combined_title"))).to_be_visible()
    # The bold lead of the box: "Por qué varias cabezas y no una más grande."
    expect(page.get_by_text(text("multihead.why_heads").split("**")[1])).to_be_visible()
    expect(page.locator('[data-testid="head-dims"]')).to_have_text(
        text("multihead.dims", d_model=24, h=4, d_k=6)
    )
    for k, name in enumerate(m.head_names, start=1):
        expect(page.locator(f'[data-testid="head-{k}-title"]')).to_contain_text(
            text("multihead.head_title", number=k, name=name)
        )
        expect(top_list(page, f"head-{k}-top")).to_have_text(expected_top(m, m.weights[k - 1]))
    expect(top_list(page, "combined-top")).to_have_text(expected_top(m, m.combined))
    assert "mordió → perro 97 %" in expected_top(m, m.weights[1])
    assert watch.console_errors == []
    assert watch.external == []


def test_sentence_and_heads_controls(section, watch):
    page, m = section, MultiHeadDemo()
    page.locator("select").first.select_option(SENTENCES[1])
    m.sentence = SENTENCES[1]
    for k in range(1, 5):
        expect(top_list(page, f"head-{k}-top")).to_have_text(
            expected_top(m, m.weights[k - 1]), timeout=15_000
        )
    expect(top_list(page, "combined-top")).to_have_text(expected_top(m, m.combined))
    # The arcs drawn in the browser are the model's, for the new sentence.
    sources = page.evaluate(ARC_SOURCES_JS)
    for k in range(4):
        arcs = sources[f"multihead-arcs-{k + 1}"]
        assert arcs["fila"] == [i for i, _, _ in m.arcs(k)]
        np.testing.assert_allclose(arcs["peso"], [a for _, _, a in m.arcs(k)])
        np.testing.assert_allclose(arcs["alpha"], arcs["peso"])

    page.locator(".mh-heads-control").get_by_role("button", name="2", exact=True).click()
    m.n_heads = 2
    expect(page.locator('[data-testid="head-dims"]')).to_have_text(
        text("multihead.dims", d_model=24, h=2, d_k=12), timeout=15_000
    )
    for k in (1, 2):
        expect(page.locator(f'[data-testid="head-{k}-title"]')).to_be_visible()
        expect(page.locator(f".mh-heat-{k}")).to_be_visible()
    for k in (3, 4):
        expect(page.locator(f".mh-heat-{k}")).to_be_hidden()
        expect(page.locator(f'[data-testid="head-{k}-title"]')).to_have_count(0)
    expect(top_list(page, "combined-top")).to_have_text(expected_top(m, m.combined))
    assert watch.console_errors == []
    assert watch.external == []


def test_hovering_a_matrix_row_fades_the_other_arcs(section, watch):
    page = section
    name = "multihead-arcs-2"
    page.wait_for_function(
        f"() => window.Bokeh && window.Bokeh.documents.some("
        f"d => Array.from(d.all_models).some(m => m.name === '{name}'))"
    )
    before = page.evaluate(ARC_SOURCES_JS)[name]
    np.testing.assert_allclose(before["alpha"], before["peso"])

    # Middle column of the matrix, rows from the top down until a row is highlighted.
    after = hover_until_faded(
        page, ".mh-heat-2", lambda: page.evaluate(ARC_SOURCES_JS)[name], before
    )
    assert_one_row_highlighted(after, FADE)
    # The other heads are untouched.
    others = page.evaluate(ARC_SOURCES_JS)
    np.testing.assert_allclose(
        others["multihead-arcs-3"]["alpha"], others["multihead-arcs-3"]["peso"]
    )

    # Leaving the matrix brings every arc back.
    page.mouse.move(2, 2)
    page.wait_for_function(
        f"""() => {{
          for (const d of window.Bokeh.documents) for (const m of d.all_models)
            if (m.name === '{name}')
              return Array.from(m.data.line_alpha).every((a, k) => a === m.data.peso[k]);
          return false;
        }}"""
    )
    assert watch.console_errors == []
    assert watch.external == []
