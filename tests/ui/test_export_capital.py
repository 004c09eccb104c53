"""The exported "capital" section (dist/capital.html), offline, against Python and the live app.

Opened from file:// with every non-file request blocked: the defaults are the notes' numbers;
the country (discrete) and the identity slider (continuous) recompute all eight steps in the
browser (C04.views.capital, from the constants the export embeds) to what Python's model gives;
and the same moves in the served lecture give the same text in every data-testid element and
the same bar tables (labels, values, widths and colours identical).
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from attnmodel import CapitalWalkthrough
from attnmodel.formatting import es_number
from attnmodel.i18n import text
from dashboards.demos.capital import render

from c04_testing import (
    CAPITAL_BARS_JS,
    CAPITAL_CHARTS,
    TIMER_JS,
    assert_capital_bars,
    bars_as_drawn,
    country_select,
    export_and_live,
    format_times,
    press_slider,
    readout,
    settled_texts,
    update_times,
)

pytestmark = pytest.mark.ui

TESTIDS = (
    "capital-tokens",
    "capital-embeddings",
    "capital-pe",
    "capital-with-position",
    "capital-query",
    "capital-keys",
    "capital-values",
    "capital-scores",
    "capital-attention-row",
    "capital-mixed",
    "capital-logits",
    "capital-probabilities",
    "capital-unembedding",
    "capital-prediction",
    "capital-probability",
    "capital-loss",
    "capital-asymmetry",
    "capital-slope-paris",
    "capital-slope-roma",
    "capital-attention-bars",
    "capital-probability-bars",
)


def slider_title(page):
    """The number the identity control shows beside its label (board.js's <output>)."""
    return page.locator('.c04-control[data-control="identity"] output')


def wait_for(page, model: CapitalWalkthrough, timeout: float = 15.0) -> dict:
    """Wait until the page shows ``model`` (readouts, slopes, bars); return the bars as drawn
    (CAPITAL_BARS_JS)."""
    expect(readout(page, "capital-prediction")).to_have_text(model.prediction)
    expect(readout(page, "capital-probability")).to_have_text(es_number(model.probability, 4))
    expect(readout(page, "capital-loss")).to_have_text(es_number(model.loss, 4))
    slopes = model.identity_slopes
    expect(page.locator('[data-testid="capital-slope-paris"]')).to_have_text(
        es_number(slopes["París"], 4)
    )
    expect(page.locator('[data-testid="capital-asymmetry"]')).to_contain_text(
        f"|identidad| = {es_number(abs(model.identity))}"
        if model.identity
        else "Con identidad 0 empatan"
    )
    expect(page.locator('[data-testid="capital-tokens"]')).to_contain_text(model.country)
    py = render(model)
    deadline = time.monotonic() + timeout
    while True:
        bars = page.evaluate(CAPITAL_BARS_JS)
        try:
            for chart, name in CAPITAL_CHARTS.items():
                assert bars[chart]["label"] == bars_as_drawn(py[name])["label"]
                assert bars[chart]["value"] == bars_as_drawn(py[name])["value"]
            return bars
        except (AssertionError, TypeError):
            if time.monotonic() > deadline:
                raise
            page.wait_for_timeout(100)


def assert_python(bars: dict, model: CapitalWalkthrough) -> None:
    """The bar tables show what Python's render() gives: labels (the country's row renamed),
    values, colours identical, widths to markup.js's one decimal."""
    assert_capital_bars(bars, render(model))


def assert_same(export: dict, live: dict) -> None:
    assert export == live


def choose_country(page, country: str) -> None:
    country_select(page).select_option(country)


def press_identity(page, key: str) -> None:
    press_slider(page, text("capital.identity"), key)


# The same moves in both pages: (what, argument, model parameters afterwards, slider title).
MOVES = [
    ("country", "Italia", {"country": "Italia"}, "−0,90"),
    ("identity", "ArrowRight", {"identity": -0.89}, "−0,89"),
    ("identity", "End", {"identity": 1.0}, "1,00"),
    ("identity", "ArrowLeft", {"identity": 0.99}, "0,99"),
    ("country", "Francia", {"country": "Francia"}, "0,90"),
]


def run_moves(page) -> list[tuple[dict, dict]]:
    """Defaults, then each move: (data-testid texts, bars) after each."""
    model = CapitalWalkthrough()
    bars = wait_for(page, model)  # first: it waits for the page to show the model
    out = [(settled_texts(page, TESTIDS), bars)]
    for what, arg, params, title in MOVES:
        if what == "country":
            choose_country(page, arg)
        else:
            press_identity(page, arg)
        for name, new in params.items():
            setattr(model, name, new)
        expect(slider_title(page)).to_contain_text(title)
        bars = wait_for(page, model)
        out.append((settled_texts(page, TESTIDS), bars))
    return out


def test_defaults_offline(page, offline, open_export):
    open_export("capital.html", "capital")
    model = CapitalWalkthrough()
    bars = wait_for(page, model)
    assert_python(bars, model)
    expect(readout(page, "capital-prediction")).to_have_text("París")
    expect(readout(page, "capital-probability")).to_have_text("0,3805")
    expect(readout(page, "capital-loss")).to_have_text("0,9662")
    expect(page.locator('[data-testid="capital-attention-row"]')).to_contain_text("0,6468")
    expect(page.locator('[data-testid="capital-slope-roma"]')).to_have_text("−0,3945")
    expect(page.locator('[data-testid="capital-asymmetry"]')).to_contain_text(
        "p(París | +0,90) = 0,3805, p(Roma | −0,90) = 0,3398."
    )
    assert offline.external == []
    assert offline.console_errors == []


def test_country_and_identity_recompute_in_the_browser(page, offline, open_export):
    open_export("capital.html", "capital")
    model = CapitalWalkthrough()
    wait_for(page, model)
    row_before = page.locator('[data-testid="capital-attention-row"] tr').nth(1).inner_text()
    page.evaluate(TIMER_JS)

    # Discrete: the country sets its identity, the slider follows (as in the live app).
    choose_country(page, "Italia")
    model.country = "Italia"
    expect(slider_title(page)).to_contain_text("−0,90")
    assert_python(wait_for(page, model), model)
    expect(readout(page, "capital-prediction")).to_have_text("Roma")
    expect(readout(page, "capital-probability")).to_have_text("0,3398")
    embeddings = page.locator('[data-testid="capital-embeddings"] tr').nth(4)
    expect(embeddings).to_contain_text("Italia")
    expect(embeddings).to_contain_text("−0,90")

    # Continuous: the identity slider, to the tie at 0 and beyond.
    for key, identity in (("ArrowRight", -0.89), ("End", 1.0)):
        press_identity(page, key)
        model.identity = identity
        assert_python(wait_for(page, model), model)
    # A value set on the control from outside (as links.js sets one): C04.boards.
    page.evaluate(
        """() => {
          const [board] = [...C04.boards.values()].filter((b) => {
            try { return b.get("identity") !== undefined; } catch (err) { return false; }
          });
          board.set("identity", 0);
        }"""
    )
    model.identity = 0.0
    assert_python(wait_for(page, model), model)
    expect(readout(page, "capital-prediction")).to_have_text("París o Roma (empate)")
    # The attention row never moves (only the country's name in its header does).
    assert page.locator('[data-testid="capital-attention-row"] tr').nth(1).inner_text() == (
        row_before
    )

    times = update_times(page, "capital")
    print("\ncapital, ms por cambio (C04.update / hasta pintar): " + format_times(times))
    assert offline.external == []
    assert offline.console_errors == []


def test_export_and_live_app_show_the_same(offline, open_export, open_live):
    exported, served = export_and_live(
        open_export, offline, open_live, "capital.html", "capital", run_moves
    )
    for step, ((export_texts, export_bars), (live_texts, live_bars)) in enumerate(
        zip(exported, served, strict=True)
    ):
        for tid in TESTIDS:
            assert export_texts[tid] == live_texts[tid], (step, tid)
        assert_same(export_bars, live_bars)
