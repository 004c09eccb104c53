"""The exported "capital" section (dist/capital.html), offline, against the model and the live
app.

C04.views.capital (dashboards/static/demos/capital.js) draws the model's numbers, live (sent by
Python, dashboards.demos.capital.numbers) and in the export (computed in the page from the
constants the export embeds). Checked here: the drawing of a few states, es and en, shows every
text the model and the catalogue give (computed here); opened from file:// with every non-file
request blocked, the defaults are the notes' numbers, and the country (discrete) and the identity
slider (continuous) recompute all eight steps in the browser to what the model gives; and the
same moves in the served lecture give the same text in every data-testid element and the same
bar tables (labels, values, widths and colours identical).
"""

from __future__ import annotations

import html
import re
import time

import pytest
from playwright.sync_api import expect

from attnmodel import CapitalWalkthrough
from attnmodel.capital import QUERY, U
from attnmodel.formatting import es_number, number
from attnmodel.i18n import text
from dashboards.demos.capital import CapitalView, numbers

from c04_testing import (
    CAPITAL_BARS_JS,
    CAPITAL_CHARTS,
    TIMER_JS,
    assert_capital_bars,
    bars_as_drawn,
    by_testid,
    country_select,
    drawn,
    export_and_live,
    format_times,
    press_slider,
    readout,
    settled_texts,
    twin_html,
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


# The bars' colours: the attention's blue; París, Roma (the Okabe–Ito blue and vermilion) and
# the six other words' grey. A probability bar's full width is p = 0.6.
ATTENTION_BLUE = "#1f5fa8"
WORD_COLORS = {"París": "#0072b2", "Roma": "#d55e00"}
OTHER_GREY = "#b8c2cf"
PROBABILITY_FULL = 0.6


def expected_bars(model: CapitalWalkthrough) -> dict:
    """The two bar charts the page must draw for ``model`` (Spanish), as bars specs."""
    return {
        "attention_bars": {
            "color": ATTENTION_BLUE,
            "rows": [
                {"label": [f"{i} · ", token], "value": es_number(a, 4), "width": 100 * a}
                for i, (token, a) in enumerate(zip(model.tokens, model.attention_row, strict=True))
            ],
        },
        "probability_bars": {
            "rows": [
                {
                    "label": word,
                    "value": es_number(p, 4),
                    "width": min(100.0, 100 * p / PROBABILITY_FULL),
                    "color": WORD_COLORS.get(word, OTHER_GREY),
                }
                for word, p in model.probabilities.items()
            ]
        },
    }


def _plain(markup: str) -> str:
    """The text a browser reads from catalogue HTML (its tags left out)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def expected_texts(country: str, identity: float, lang: str = "es") -> dict[str, str]:
    """Each data-testid's text on screen for the model at (country, identity), from the model
    and the catalogue."""
    m = CapitalWalkthrough(country=country, identity=identity)

    def t(key: str, **values) -> str:
        return _plain(text(f"capital.{key}", lang, **values))

    def num(x: float, decimals: int = 2) -> str:
        return number(x, decimals, lang=lang)

    def table(title: str, cols, rows, cells, decimals: int) -> str:
        # caption, the header row (an empty corner, then the columns), each row's label and cells
        body = "".join(
            label + "".join(num(v, decimals) for v in row)
            for label, row in zip(rows, cells, strict=True)
        )
        return title + "".join(cols) + body

    dims = [t(f"dimension.{k}") for k in ("place", "function", "identity")]
    tokens, vocabulary, es = m.tokens, m.vocabulary, m.tokens[QUERY]
    p = m.probability_vector
    top = [w for w, pw in zip(vocabulary, p, strict=True) if pw == p.max()]
    prediction = top[0] if len(top) == 1 else t("readout.tie", words=t("readout.or").join(top))
    words = {"paris": "París", "roma": "Roma"}
    magnitude = abs(identity)
    plus = CapitalWalkthrough(identity=magnitude).probabilities["París"]
    minus = CapitalWalkthrough(identity=-magnitude).probabilities["Roma"]
    compare = (
        t("asymmetry.compare", m=num(magnitude), plus=num(plus, 4), minus=num(minus, 4), **words)
        if magnitude > 0
        else t("asymmetry.compare_tie", p=num(plus, 4), **words)
    )
    a = m.attention_row[3]
    slopes = {"paris": num(a * U[0, 2], 4), "roma": num(a * U[1, 2], 4)}
    return {
        "capital-tokens": "".join(f"{token}pos {i}" for i, token in enumerate(tokens)),
        "capital-embeddings": table("x (5×3)", dims, tokens, m.embeddings, 2),
        "capital-pe": table("PE", dims, tokens, m.positional, 4),
        "capital-with-position": table("x + PE", dims, tokens, m.with_position, 4),
        "capital-query": table(t("table.query", es=es), dims, [es], [m.Q[QUERY]], 2),
        "capital-keys": table(t("table.keys"), dims, tokens, m.K, 4),
        "capital-values": table(t("table.values"), dims, tokens, m.V, 4),
        "capital-scores": table("", tokens, [es], [m.scores], 4),
        "capital-attention-row": table("", tokens, [es], [m.attention_row], 4),
        "capital-mixed": "z = ("
        + t("table.vector_separator").join(num(v, 4) for v in m.mixed)
        + ")",
        "capital-unembedding": table(t("table.unembedding"), dims, vocabulary, U, 2),
        "capital-logits": table("Logits", ["logit"], vocabulary, m.logits[:, None], 4),
        "capital-probabilities": table(t("table.probabilities"), ["p"], vocabulary, p[:, None], 4),
        "capital-prediction": t("readout.prediction") + prediction,
        "capital-probability": t("readout.probability")
        + num(m.probability, 4)
        + " = ".join(f"p({w})" for w in top),
        "capital-loss": t("readout.loss") + num(m.loss, 4) + "−ln p",
        "capital-asymmetry": t("asymmetry.why", es=es, a=num(a, 4), **words)
        + t(
            "asymmetry.slopes",
            u_paris=num(U[0, 2]),
            u_roma=num(U[1, 2]),
            slope_paris=slopes["paris"],
            slope_roma=slopes["roma"],
            **words,
        )
        + t("asymmetry.because", compare=compare, **words),
        "capital-slope-paris": slopes["paris"],
        "capital-slope-roma": slopes["roma"],
        "capital-attention-bars": "token"
        + t("chart.weight_axis")
        + "".join(
            f"{i} · {w}{num(x, 4)}"
            for i, (w, x) in enumerate(zip(tokens, m.attention_row, strict=True))
        ),
        "capital-probability-bars": t("chart.word_axis")
        + t("chart.probability_axis")
        + "".join(f"{w}{num(x, 4)}" for w, x in zip(vocabulary, p, strict=True)),
    }


# A few states per language, drawn by capital.js in a blank page with that language's catalogue:
# the defaults, the other country, the tie, a free identity, a bound.
CASES = [("Francia", 0.9), ("Italia", -0.9), ("Italia", 0.0), ("Francia", 0.37), ("Italia", -1.0)]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_drawing_shows_the_models_numbers(page, lang, panel_cleanup):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.set_content(twin_html("capital.js", lang=lang))
    # The steps' slots and their kinds (markup.js draws each kind).
    kinds = {k: v for k, v in CapitalView().steps.kinds.items() if v != "announce"}
    states = [numbers(CapitalWalkthrough(country=c, identity=i)) for c, i in CASES]
    rendered = page.evaluate("(states) => states.map((s) => C04.views.capital.render(s))", states)
    for (country, identity), js in zip(CASES, rendered, strict=True):
        parsed = by_testid(*drawn(page, *((kind, js[name]) for name, kind in kinds.items())))
        want = expected_texts(country, identity, lang)
        assert {tid: parsed.texts[tid] for tid in want} == want, (country, identity)
    if lang == "en":  # known values, with a decimal point: the defaults and the tie
        assert expected_texts("Francia", 0.9, "en")["capital-probability"] == (
            "Probability0.3805p(París)"
        )
        assert expected_texts("Italia", 0.0, "en")["capital-prediction"] == (
            "PredictionParís or Roma (a tie)"
        )
    assert errors == []


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
    want = expected_bars(model)
    deadline = time.monotonic() + timeout
    while True:
        bars = page.evaluate(CAPITAL_BARS_JS)
        try:
            for chart, name in CAPITAL_CHARTS.items():
                assert bars[chart]["label"] == bars_as_drawn(want[name])["label"]
                assert bars[chart]["value"] == bars_as_drawn(want[name])["value"]
            return bars
        except (AssertionError, TypeError):
            if time.monotonic() > deadline:
                raise
            page.wait_for_timeout(100)


def assert_python(bars: dict, model: CapitalWalkthrough) -> None:
    """The bar tables show the model's numbers: labels (the country's row renamed), values,
    colours identical, widths to markup.js's one decimal."""
    assert_capital_bars(bars, expected_bars(model))


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
