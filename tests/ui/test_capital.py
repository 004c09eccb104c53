"""Browser: "La capital de ___ es …" (section "capital") of the served lecture."""

from __future__ import annotations

import time

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel import CapitalWalkthrough
from attnmodel.formatting import es_number
from attnmodel.i18n import text

from c04_testing import CAPITAL_BARS_JS, country_select, readout, slider_handle

pytestmark = pytest.mark.ui

# The bars' colours: the attention's blue; París, Roma (the Okabe–Ito blue and vermilion) and
# the six other words' grey. A probability bar's full width is p = 0.6.
BLUE = "rgb(31, 95, 168)"
WORD_RGB = {"París": "rgb(0, 114, 178)", "Roma": "rgb(213, 94, 0)"}
OTHER_RGB = "rgb(184, 194, 207)"
PROBABILITY_FULL = 0.6


def attention_numbers(page) -> str:
    # The row of numbers only (the header row names the country).
    return page.locator('[data-testid="capital-attention-row"] tr').nth(1).inner_text()


def expect_model(page, model: CapitalWalkthrough) -> None:
    expect(readout(page, "capital-prediction")).to_have_text(model.prediction)
    expect(readout(page, "capital-probability")).to_have_text(es_number(model.probability, 4))
    expect(readout(page, "capital-loss")).to_have_text(es_number(model.loss, 4))
    probabilities = page.locator('[data-testid="capital-probabilities"]')
    for word, p in model.probabilities.items():
        expect(probabilities.locator("tr", has_text=word)).to_contain_text(es_number(p, 4))


def expect_bars(page, model: CapitalWalkthrough, timeout: float = 15.0) -> None:
    """Poll until the browser's two bar tables show the model's numbers: a row per token and
    per word, the values with 4 decimals, each bar's width and colour."""
    deadline = time.monotonic() + timeout
    words = model.vocabulary
    while True:
        bars = page.evaluate(CAPITAL_BARS_JS)
        try:
            probabilities = bars["probabilities"]
            assert probabilities["label"] == words
            assert probabilities["value"] == [es_number(p, 4) for p in model.probability_vector]
            np.testing.assert_allclose(
                probabilities["width"],
                [100 * p / PROBABILITY_FULL for p in model.probability_vector],
                atol=0.051,
            )
            assert probabilities["color"] == [WORD_RGB.get(w, OTHER_RGB) for w in words]
            attention = bars["attention"]
            assert attention["label"] == [f"{i} · {t}" for i, t in enumerate(model.tokens)]
            assert attention["label"][3] == f"3 · {model.country}"
            assert attention["value"] == [es_number(a, 4) for a in model.attention_row]
            np.testing.assert_allclose(attention["width"], 100 * model.attention_row, atol=0.051)
            assert attention["color"] == [BLUE] * len(model.tokens)
            return
        except (AssertionError, KeyError, TypeError):
            if time.monotonic() > deadline:
                raise
            page.wait_for_timeout(200)


def test_section_text_and_default_numbers(page, watch, open_lecture_section):
    open_lecture_section("capital")
    title = '"La capital de ___ es …" — el recorrido completo, calculado'
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible()
    for phrase in (
        "Los ocho pasos del apéndice de la Clase 4",
        "Lo que cambia es el contenido que viaja.",
        text("capital.step.attention_caption", es="es"),
        "Distribución final sobre el vocabulario de 8 palabras.",
        "reciben todas el mismo logit 0.",
    ):
        expect(page.get_by_text(phrase, exact=False)).to_be_visible()
    labels = ("prediction", "probability", "loss")
    for label in (*(text(f"capital.readout.{name}") for name in labels), "−ln p"):
        expect(page.get_by_text(label, exact=True)).to_be_visible()
    for title in ("1 · Tokens", "4 · Q, K, V", "6 · Softmax", text("capital.step.logits_title")):
        expect(page.get_by_text(title, exact=True)).to_be_visible()

    model = CapitalWalkthrough()
    expect_model(page, model)
    expect(readout(page, "capital-prediction")).to_have_text("París")
    expect(readout(page, "capital-probability")).to_have_text("0,3805")
    logits = page.locator('[data-testid="capital-logits"]')
    for word in ("grande", "bonita", "antigua", "famosa", "una", "muy"):
        expect(logits.locator("tr", has_text=word)).to_contain_text("0,0000")
    expect(page.locator('[data-testid="capital-attention-row"]')).to_contain_text("0,6468")
    expect(page.locator('[data-testid="capital-slope-roma"]')).to_have_text("−0,3945")
    expect_bars(page, model)

    assert watch.console_errors == []
    assert watch.external == []


def test_country_and_identity_change_content_not_attention(page, watch, open_lecture_section):
    open_lecture_section("capital")
    model = CapitalWalkthrough()
    expect_model(page, model)
    row_before = attention_numbers(page)

    country_select(page).select_option("Italia")
    model.country = "Italia"  # the model sets identity = −0.90
    expect(readout(page, "capital-prediction")).to_have_text("Roma")
    expect(readout(page, "capital-probability")).to_have_text(es_number(model.probability, 4))
    assert model.probability == pytest.approx(0.34, abs=0.005)
    expect_model(page, model)
    expect_bars(page, model)
    # The identity control follows the model: its number as the page writes it.
    identity = page.locator('.c04-control[data-control="identity"]')
    expect(identity.locator("output")).to_have_text("−0,90")
    assert attention_numbers(page) == row_before

    # The identity slider by keyboard: one step right is −0.89, End is +1.
    handle = slider_handle(page, text("capital.identity"))
    expect(handle).to_have_attribute("aria-valuetext", "−0,90")
    handle.focus()
    handle.press("ArrowRight")
    model.identity = -0.89
    expect(identity.locator("output")).to_have_text("−0,89")
    expect(handle).to_have_value("-0.89")
    expect_model(page, model)
    handle.press("End")
    model.identity = 1.0
    expect_model(page, model)
    expect(readout(page, "capital-prediction")).to_have_text("París")
    expect_bars(page, model)
    assert attention_numbers(page) == row_before

    assert watch.console_errors == []
    assert watch.external == []
