"""The explorer section in a real Chromium: seed numbers, token clicks, typed sentences (escaped),
and the three "Fíjate" buttons. Expected numbers come from the Python model."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel.explorer import AttentionExplorer, percentages
from attnmodel.i18n import text

SECTION = "explorador"
SEED_ROW = ["0 %", "39 %", "3 %", "0 %", "0 %", "44 %", "2 %", "11 %"]
XSS = "<script>alert(1)</script>"


def looks_at(token: str) -> str:
    """The focus row's title in Spanish ("Adónde mira gato")."""
    return text("explorer.row_title", token=token)


@pytest.fixture
def explorer(page, watch, open_lecture_section):
    open_lecture_section(SECTION)
    page.locator('[data-testid="explorer-table"]').wait_for(timeout=30_000)
    return page


def row_cells(page, i: int, n: int):
    return [page.locator(f'[data-testid="cell-{i}-{j}"]') for j in range(n)]


def expect_row(page, i: int, texts: list[str]) -> None:
    for cell, want in zip(row_cells(page, i, len(texts)), texts, strict=True):
        expect(cell).to_have_text(want)


def expect_bars(page, texts: list[str]) -> None:
    for j, want in enumerate(texts):
        expect(page.locator(f'[data-testid="row-{j}"]')).to_have_text(want)


def percents(values) -> list[str]:
    return [f"{p} %" for p in values]


def causal_box(page):
    # The Board's native checkbox, named by its label.
    return page.get_by_role("checkbox", name=text("explorer.causal"))


def sentence_box(page):
    return page.get_by_placeholder(text("explorer.placeholder"))


def test_seed_page_and_token_click(explorer, watch):
    page = explorer
    expect(page.get_by_text(text("demo.explorador"))).to_be_visible()
    expect(page.get_by_text(text("explorer.focus_label"))).to_be_visible()
    expect(page.get_by_text(text("explorer.notice"))).to_be_visible()
    table = page.locator('[data-testid="explorer-table"]')
    expect(table.locator("thead th").first).to_have_text(text("explorer.query"))
    expect_row(page, 5, SEED_ROW)
    expect(page.locator('[data-testid="explorer-row-title"]')).to_have_text(looks_at("gato"))
    expect_bars(page, SEED_ROW)

    page.get_by_role("button", name="duerme", exact=True).click()
    expect(page.locator('[data-testid="explorer-row-title"]')).to_have_text(looks_at("duerme"))
    expected = percents(AttentionExplorer(focus=2).row_percentages)
    assert expected != SEED_ROW
    expect_bars(page, expected)
    select = page.get_by_role("combobox", name=text("explorer.list_label"))
    expect(select).to_have_value("2 · duerme")  # the list follows the click
    select.select_option(label="6 · está")
    expect(page.locator('[data-testid="explorer-row-title"]')).to_have_text(looks_at("está"))
    expect(page.get_by_role("button", name="está", exact=True)).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.get_by_role("button", name="gato (2)", exact=True)).to_have_attribute(
        "aria-pressed", "false"
    )
    expect_bars(page, percents(AttentionExplorer(focus=6).row_percentages))
    page.get_by_role("button", name="gato", exact=True).click()
    expect(page.locator('[data-testid="explorer-row-title"]')).to_have_text(looks_at("gato"))
    expect_bars(page, percents(AttentionExplorer(focus=1).row_percentages))

    assert watch.console_errors == []
    assert watch.external == []


def test_typed_sentences_and_escaping(explorer, watch):
    page = explorer
    box = sentence_box(page)
    box.fill("la reina habla con el rey")
    box.press("Enter")
    table = page.locator('[data-testid="explorer-table"]')
    expect(table.locator("thead th")).to_have_text(
        [text("explorer.query"), "la", "reina", "habla", "con", "el", "rey"]
    )
    model = AttentionExplorer(sentence="la reina habla con el rey")
    expect_row(page, 5, percents(model.row_percentages))

    # An empty sentence: message beside the box, the map keeps the last valid sentence.
    box.fill("")
    box.press("Enter")
    expect(page.locator('[data-testid="explorer-sentence-error"]')).to_contain_text(
        "La frase está vacía"
    )
    expect(table.locator("thead th").nth(2)).to_have_text("reina")

    box.fill(f"{XSS} hola")
    box.press("Enter")
    expect(table.locator("thead th").nth(1)).to_have_text(XSS)
    expect(page.locator('[data-testid="explorer-sentence-error"]')).to_have_text("")
    expect(page.get_by_role("button", name=XSS, exact=True)).to_be_visible()
    page.get_by_role("button", name=XSS, exact=True).click()
    expect(page.locator('[data-testid="explorer-row-title"]')).to_have_text(looks_at(XSS))
    model = AttentionExplorer(sentence=f"{XSS} hola", focus=0)
    expect_bars(page, percents(model.row_percentages))
    page.wait_for_timeout(300)  # give a script a chance to run, if one ever could
    assert watch.dialogs == []
    assert watch.console_errors == []
    assert watch.external == []


def test_notice_buttons(explorer, watch):
    page = explorer
    page.get_by_role("button", name="T = 0,1", exact=True).click()
    cold = AttentionExplorer(temperature=0.1)
    assert max(cold.row_percentages) >= 75
    expect_row(page, 5, percents(cold.row_percentages))
    expect(page.get_by_text(f"{text('explorer.temperature')}: 0,10")).to_be_visible()

    page.get_by_role("button", name="T = 3", exact=True).click()
    expect_row(page, 5, percents(AttentionExplorer(temperature=3.0).row_percentages))

    page.get_by_role("button", name=text("explorer.causal_button")).click()
    causal = percentages(AttentionExplorer(temperature=3.0, causal=True).weights).tolist()
    expect(page.locator('[data-testid="cell-0-1"]')).to_have_text("0 %")
    expect(page.locator('[data-testid="cell-1-2"]')).to_have_text("0 %")
    expect(page.locator('[data-testid="cell-0-0"]')).to_have_text("100 %")
    for i in (1, 5):
        assert causal[i][i + 1 :] == [0] * (7 - i)
        expect_row(page, i, percents(causal[i]))
    expect(causal_box(page)).to_be_checked()

    page.get_by_role("button", name=text("explorer.reset")).click()
    expect_row(page, 5, SEED_ROW)
    expect(causal_box(page)).not_to_be_checked()
    default = percentages(AttentionExplorer().weights).tolist()
    expect_row(page, 0, percents(default[0]))
    assert default[0][1] == 0  # 0 % by similarity, not by the mask: check a non-zero one too
    expect_row(page, 4, percents(default[4]))
    expect(page.get_by_text(f"{text('explorer.temperature')}: 1,00")).to_be_visible()
    assert watch.console_errors == []
    assert watch.external == []
