"""Browser: the "Varias cabezas" section of the served lecture, against the Python model."""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel.i18n import text
from attnmodel.multihead import SENTENCES, MultiHeadDemo

from c04_testing import (
    assert_arcs_drawn,
    assert_one_row_highlighted,
    expected_plots,
    expected_top,
    head_arcs,
    head_cell_tip,
    hover_until_faded,
)

SECTION = "cabezas"
# The drawings' constants (markup.js): the arcs' stroke width per unit of α, the hover's fade.
HEAD_JS = "() => window.C04.markup.HEAD"


def sentence_list(page, lang: str = "es"):
    """The sentence's native <select> (the Board's control, named by its label)."""
    return page.get_by_role("combobox", name=text("multihead.sentence_label", lang))


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
    sentence_list(page).select_option(SENTENCES[1])
    m.sentence = SENTENCES[1]
    for k in range(1, 5):
        expect(top_list(page, f"head-{k}-top")).to_have_text(
            expected_top(m, m.weights[k - 1]), timeout=15_000
        )
    expect(top_list(page, "combined-top")).to_have_text(expected_top(m, m.combined))
    # The arcs drawn in the browser are the model's, for the new sentence.
    head = page.evaluate(HEAD_JS)
    values = expected_plots(m)
    for k in range(4):
        arcs = head_arcs(page, f"head-{k + 1}-plot")
        assert arcs["fila"] == [i for i, _, _ in m.arcs(k)]
        np.testing.assert_array_equal(arcs["peso"], [a for _, _, a in m.arcs(k)])
        assert_arcs_drawn(arcs, values[f"plot_{k + 1}"], head["arc_width"])
    # Every cell of a matrix, its number drawn where the spec says.
    matrix = page.locator('[data-testid="head-2-plot"] svg.c04-head-matrix')
    expect(matrix.locator("rect.c04-head-cell")).to_have_count(len(m.tokens) ** 2)
    drawn = [c for row in values["plot_2"]["cells"] for c in row if c]
    expect(matrix.locator("text[pointer-events]")).to_have_text(drawn)

    page.locator(".mh-heads-control").get_by_role("button", name="2", exact=True).click()
    m.n_heads = 2
    expect(page.locator('[data-testid="head-dims"]')).to_have_text(
        text("multihead.dims", d_model=24, h=2, d_k=12), timeout=15_000
    )
    for k in (1, 2):
        expect(page.locator(f'[data-testid="head-{k}-title"]')).to_be_visible()
        expect(page.locator(f".mh-plot-{k}")).to_be_visible()
    for k in (3, 4):
        expect(page.locator(f".mh-plot-{k}")).to_be_hidden()
        expect(page.locator(f'[data-testid="head-{k}-title"]')).to_have_count(0)
    expect(top_list(page, "combined-top")).to_have_text(expected_top(m, m.combined))
    assert watch.console_errors == []
    assert watch.external == []


def test_hovering_a_matrix_row_fades_the_other_arcs(section, watch):
    page = section
    fade = page.evaluate(HEAD_JS)["fade"]
    before = head_arcs(page, "head-2-plot")
    assert before["alpha"] == before["peso"]

    # Middle column of the matrix, rows from the top down until a row is highlighted.
    after = hover_until_faded(page, "head-2-plot", before)
    assert_one_row_highlighted(after, fade)
    # The cell under the pointer says what it is: query, attended token, weight.
    plot = page.locator('[data-testid="head-2-plot"]')
    plot.locator('rect.c04-head-cell[data-row="2"][data-col="1"]').hover()
    tip = page.locator('[data-testid="head-2-plot"] .c04-tip')
    expect(tip).to_be_visible()
    spec = expected_plots(MultiHeadDemo())["plot_2"]
    assert tip.evaluate("e => e.innerHTML") == head_cell_tip(spec, 2, 1)
    expect(tip).to_contain_text(f"α: {spec['tips'][2][1]}")
    assert spec["tips"][2][1] == "0,97 (97 %)"
    # The other heads are untouched.
    others = head_arcs(page, "head-3-plot")
    assert others["alpha"] == others["peso"]

    # Leaving the matrix brings every arc back.
    page.mouse.move(2, 2)
    faded = page.locator('[data-testid="head-2-plot"] path.c04-head-arc[style*="opacity"]')
    expect(faded).to_have_count(0)
    expect(tip).to_be_hidden()
    assert head_arcs(page, "head-2-plot")["alpha"] == before["peso"]
    assert watch.console_errors == []
    assert watch.external == []


def test_the_english_page_keeps_the_sentences_spanish_in_the_native_list(page, watch, lecture_url):
    """On an English page the sentence's <select> is marked lang="es" (its options are the
    Spanish sentences), its label and help, outside it, in English; it works as on the Spanish
    page."""
    page.goto(f"{lecture_url}?lang=en&seccion={SECTION}")
    expect(page.locator('[data-testid="head-4-top"]')).to_be_visible(timeout=20_000)
    select = sentence_list(page, "en")
    expect(select).to_have_attribute("lang", "es")
    expect(select.locator("option")).to_have_text(list(SENTENCES))
    box = page.locator(".mh-sentence-control")
    label = box.locator("label")
    expect(label).to_have_text(text("multihead.sentence_label", "en"))
    assert label.evaluate("e => e.closest('[lang]') === null")  # the page's language
    expect(box.locator(".c04-help")).to_have_text(text("multihead.sentence_doc", "en"))
    heads = page.locator(".mh-heads-control")
    expect(heads.locator(".c04-choice-label")).to_have_text(text("multihead.heads_label", "en"))
    expect(heads.locator(".c04-help")).to_have_text(text("multihead.n_heads_doc", "en"))
    assert heads.locator(".c04-choice").evaluate("e => e.closest('[lang]') === null")

    select.select_option(SENTENCES[1])
    m = MultiHeadDemo(sentence=SENTENCES[1])
    words = page.locator('[data-testid="head-1-top"] li [lang="es"]')
    expect(words.first).to_have_text(m.tokens[0], timeout=15_000)
    heads.get_by_role("button", name="2", exact=True).click()
    expect(page.locator('[data-testid="head-dims"]')).to_have_text(
        text("multihead.dims", "en", d_model=24, h=2, d_k=12), timeout=15_000
    )
    expect(heads.get_by_role("button", name="2", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    assert watch.console_errors == []
    assert watch.external == []
