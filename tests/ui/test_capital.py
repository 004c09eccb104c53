"""Browser: "La capital de ___ es …" (section "capital") of the served lecture."""

from __future__ import annotations

import time

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel import CapitalWalkthrough
from attnmodel.formatting import es_number
from attnmodel.i18n import text

from c04_testing import readout

pytestmark = pytest.mark.ui

# The two bar charts' data as the browser holds it, from the sources' stable Bokeh names, and
# the factors of the attention chart's x axis (renamed with the country).
BARS_JS = """() => {
  const doc = window.Bokeh && window.Bokeh.documents[0];
  const columns = (name, x, y) => {
    const m = doc ? doc.get_model_by_name(name) : null;
    if (m == null) return null;
    const get = (k) => (m.data instanceof Map ? m.data.get(k) : m.data[k]);
    return {x: Array.from(get(x)), y: Array.from(get(y)), label: Array.from(get('label'))};
  };
  const out = {
    attention: columns('capital-attention-source', 'token', 'peso'),
    probabilities: columns('capital-probabilities-source', 'palabra', 'p'),
  };
  const fig = doc ? doc.get_model_by_name('capital-attention-bars') : null;
  out.factors = fig == null ? null : Array.from(fig.x_range.factors);
  return out;
}"""


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
    """Poll until the browser's bar charts hold the model's numbers."""
    deadline = time.monotonic() + timeout
    while True:
        bars = page.evaluate(BARS_JS)
        try:
            assert bars["probabilities"]["x"] == model.vocabulary
            np.testing.assert_allclose(bars["probabilities"]["y"], model.probability_vector)
            assert bars["probabilities"]["label"] == [
                es_number(p, 4) for p in model.probability_vector
            ]
            assert bars["attention"]["x"][3] == f"3 · {model.country}"
            assert bars["factors"] == bars["attention"]["x"]
            np.testing.assert_allclose(bars["attention"]["y"], model.attention_row)
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

    country = page.locator(".bk-input-group", has_text=text("capital.country"))
    country.locator("select").select_option("Italia")
    model.country = "Italia"  # the model sets identity = −0.90
    expect(readout(page, "capital-prediction")).to_have_text("Roma")
    expect(readout(page, "capital-probability")).to_have_text(es_number(model.probability, 4))
    assert model.probability == pytest.approx(0.34, abs=0.005)
    expect_model(page, model)
    expect_bars(page, model)
    identity = page.locator(".bk-input-group", has_text=text("capital.identity"))
    expect(identity.locator(".bk-slider-title")).to_contain_text("−0,90")
    assert attention_numbers(page) == row_before

    # The identity slider by keyboard: one step right is −0.89, End is +1.
    handle = identity.locator(".noUi-handle")
    handle.focus()
    handle.press("ArrowRight")
    model.identity = -0.89
    expect(identity.locator(".bk-slider-title")).to_contain_text("−0,89")
    expect_model(page, model)
    handle.press("End")
    model.identity = 1.0
    expect_model(page, model)
    expect(readout(page, "capital-prediction")).to_have_text("París")
    expect_bars(page, model)
    assert attention_numbers(page) == row_before

    assert watch.console_errors == []
    assert watch.external == []
