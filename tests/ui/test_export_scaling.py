"""Demo 2 (¿Por qué dividir por √d_k?) in the exported dist/autoatencion.html, offline, against
Python and the live app.

The export embeds every (d_k, seed) the page can reach — the 11 stops of the slider × the
samples 0–9 — compactly (dashboards.demos.scaling.client_state); C04.views.scaling rebuilds Python's
``render(model)`` from them. Checked here: that rebuild for every embedded state, in a blank
page (every spec markup.js draws equal, the bars' widths within 1e-12); the exported page's
defaults and its note on "Nueva muestra"; the slider and the button changing every number to
Python's for that state, the samples cycling 0 → 9 → 0; and the same moves in the served
lecture giving the same text in the same data-testid elements, the bar charts' titles and
percentages included. The twin is also checked on an English page (states computed in English, the
English catalogue) against ``render(model, "en")``.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from attnmodel.formatting import es_number, number
from attnmodel.i18n import text
from attnmodel.scaling import ScalingDemo
from dashboards.demos.scaling import D_K_OPTIONS, EXPORT_SEEDS, ScalingView, render, state_key

from c04_testing import (
    TIMER_JS,
    assert_twin_equal,
    by_testid,
    drawn,
    export_and_live,
    format_times,
    readout,
    slider_handle,
    twin_html,
    update_times,
)

pytestmark = pytest.mark.ui

TOL = 1e-12
FILE, SECTION = "autoatencion.html", "autoatencion"
TESTIDS = (
    "scaling-score-std",
    "scaling-sqrt-dk",
    "scaling-entropy-unscaled",
    "scaling-entropy-scaled",
    "scaling-gradient-unscaled",
    "scaling-gradient-scaled",
    "scaling-sample-entropy-unscaled",
    "scaling-sample-entropy-scaled",
    "scaling-dk",
    "scaling-seed",
    "scaling-unscaled-bars",
    "scaling-scaled-bars",
)

# The same moves in every page: (action, resulting (d_k, seed)).
MOVES = [
    ("ArrowRight", (128, 0)),
    ("click", (128, 1)),
    ("ArrowLeft", (64, 1)),
    ("ArrowLeft", (32, 1)),
    ("click", (32, 2)),
    ("End", (1024, 2)),
    ("Home", (1, 2)),
]

SNAPSHOT_JS = """(testids) => {
  const doc = window.Bokeh && window.Bokeh.documents[0];
  if (!doc) return null;
  function find(tid, root = document) {
    const hit = root.querySelector('[data-testid="' + tid + '"]');
    if (hit) return hit;
    for (const node of root.querySelectorAll('*')) {
      if (node.shadowRoot) {
        const found = find(tid, node.shadowRoot);
        if (found) return found;
      }
    }
    return null;
  }
  const texts = {};
  for (const tid of testids) {
    const node = find(tid);
    texts[tid] = node ? node.textContent : null;
  }
  // Each bar chart's bar widths, as markup.js wrote them.
  const widths = ['scaling-unscaled-bars', 'scaling-scaled-bars'].map((tid) => {
    const table = find(tid);
    return table ? Array.from(table.querySelectorAll('td div'), (d) => d.style.width) : null;
  });
  return {texts, widths};
}"""


# render's targets that markup.js draws, with their kind.
SPECS = {
    "readouts": "readouts",
    "gradient_readouts": "readouts",
    "status": "note",
    "unscaled_entropy": "readout",
    "scaled_entropy": "readout",
    "unscaled_bars": "bars",
    "scaled_bars": "bars",
    "announce": "announce",
}


def embedded_states(lang: str = "es") -> dict:
    states: dict = {}
    count = ScalingView(lang=lang).enable_client_side(states)
    assert count == len(states["scaling"]) == len(D_K_OPTIONS) * EXPORT_SEEDS == 110
    return states


# Spanish: every embedded state; English: a few, on a page in English (the page's catalogue and
# states computed in English, as the export builds en/autoatencion.html).
EN_CASES = [(64, 0), (128, 3), (1, 9), (1024, 5)]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_twin_rebuilds_every_embedded_state(page, lang):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.set_content(twin_html("scaling.js", states=embedded_states(lang), lang=lang))
    cases = [(d_k, seed) for d_k in D_K_OPTIONS for seed in range(EXPORT_SEEDS)]
    if lang != "es":
        cases = EN_CASES
    rendered = page.evaluate(
        "(cases) => cases.map(([d_k, seed]) => C04.views.scaling.render({d_k, seed}))", cases
    )
    keys = page.evaluate(
        "(cases) => cases.map(([d_k, seed]) => C04.views.scaling.key({d_k, seed}))", cases
    )
    assert keys == [state_key(d_k, seed) for d_k, seed in cases]
    for (d_k, seed), js in zip(cases, rendered, strict=True):
        python = render(ScalingDemo(d_k=d_k, seed=seed), lang)
        assert list(js) == list(python)
        for name, expected in python.items():
            where = f"d_k={d_k}, seed={seed}: {name}"
            if isinstance(expected, str):
                assert js[name] == expected, where
                continue
            assert name in SPECS, where  # everything else is drawn by markup.js
            assert_twin_equal(expected, js[name], where, TOL)

    # The new readouts, spelled out: the drawn query's own entropy under its bars, and the
    # means that say they are means over the model's n_trials queries.
    def t(key: str, **values) -> str:
        return text(f"scaling.{key}", lang, **values)

    for (d_k, seed), js in zip(cases, rendered, strict=True):
        m = ScalingDemo(d_k=d_k, seed=seed)
        parsed = by_testid(
            *drawn(
                page,
                ("readouts", js["readouts"]),
                ("readout", js["unscaled_entropy"]),
                ("readout", js["scaled_entropy"]),
            )
        )
        n = m.n_trials
        assert parsed.texts["scaling-entropy-unscaled"] == (
            t("entropy_unscaled_label")
            + number(m.entropy_unscaled, lang=lang)
            + t("entropy_unscaled_unit", n=n)
        )
        assert parsed.texts["scaling-entropy-scaled"] == (
            t("entropy_scaled_label")
            + number(m.entropy_scaled, lang=lang)
            + t("entropy_scaled_unit", n=n)
        )
        assert parsed.texts["scaling-sample-entropy-unscaled"] == (
            t("sample_entropy_unscaled_label")
            + number(m.sample_entropy_unscaled, lang=lang)
            + t("sample_entropy_unit")
        )
        assert parsed.texts["scaling-sample-entropy-scaled"] == (
            t("sample_entropy_scaled_label")
            + number(m.sample_entropy_scaled, lang=lang)
            + t("sample_entropy_unit")
        )
    if lang == "en":  # a known value, with a decimal point: d_k = 64, sample 0
        default = by_testid(*drawn(page, ("readout", rendered[0]["unscaled_entropy"]))).texts
        assert default["scaling-sample-entropy-unscaled"] == (
            "Entropy of this query, unscaled0.63bits, only the query drawn above"
        )
    assert errors == []


def python_texts(page, python: dict) -> dict[str, str]:
    """The text content of each data-testid element of Python's specs, drawn by the page's
    markup.js, as a browser reads it."""
    parsed = by_testid(*drawn(page, *((SPECS[name], python[name]) for name in SPECS)))
    return {tid: parsed.texts[tid] for tid in TESTIDS}


def _diff(page, snap, python: dict) -> list[str]:
    if snap is None:
        return ["sin documento"]
    want = python_texts(page, python)
    return [tid for tid in TESTIDS if snap["texts"][tid] != want[tid]]


def wait_for(page, d_k: int, seed: int, timeout: float = 15.0) -> dict:
    """The page's snapshot once every number is Python's for (d_k, seed)."""
    python = render(ScalingDemo(d_k=d_k, seed=seed))
    deadline = time.monotonic() + timeout
    while True:
        snap = page.evaluate(SNAPSHOT_JS, list(TESTIDS))
        problems = _diff(page, snap, python)
        if not problems:
            return snap
        if time.monotonic() > deadline:
            raise AssertionError(f"(d_k={d_k}, seed={seed}) no coincide: {problems}\n{snap}")
        page.wait_for_timeout(100)


def move(page, action: str) -> None:
    if action == "click":
        page.get_by_role("button", name=text("scaling.new_sample")).click()
    else:
        handle = slider_handle(page, text("scaling.d_k_slider"))
        handle.focus()
        handle.press(action)


def run_moves(page) -> list[dict]:
    page.locator('[data-testid="scaling-score-std"]').first.wait_for(timeout=30_000)
    out = [wait_for(page, 64, 0)]
    for action, (d_k, seed) in MOVES:
        move(page, action)
        out.append(wait_for(page, d_k, seed))
    return out


def test_defaults_and_note_offline(page, offline, open_export):
    open_export(FILE, SECTION)
    title = text("scaling.title").split("$$")[0].strip()  # "¿Por qué dividir por"
    expect(page.get_by_text(title, exact=False).first).to_be_visible()
    page.locator('[data-testid="scaling-score-std"]').first.wait_for()
    wait_for(page, 64, 0)
    expect(readout(page, "scaling-score-std")).to_have_text(es_number(ScalingDemo().score_std))
    expect(page.locator('[data-testid="scaling-sqrt-dk"]')).to_have_text("√64 = 8")
    # The drawn query's own entropy beside the means over 4000 queries (d_k = 64, sample 0).
    expect(readout(page, "scaling-sample-entropy-unscaled")).to_have_text("0,63")
    expect(readout(page, "scaling-sample-entropy-scaled")).to_have_text("2,80")
    expect(readout(page, "scaling-entropy-unscaled")).to_have_text("0,46")
    expect(page.locator('[data-testid="scaling-entropy-unscaled"] .c04-unit')).to_have_text(
        text("scaling.entropy_unscaled_unit", n=4000)
    )
    note = page.locator('[data-testid="scaling-export-note"]')
    expect(note).to_be_visible()
    # «Nueva muestra» recorre las muestras n.º 0 a 9 …
    expect(note).to_have_text(text("scaling.export_note", last=EXPORT_SEEDS - 1))
    assert offline.external == []
    assert offline.console_errors == []


def test_slider_and_button_offline(page, offline, open_export):
    open_export(FILE, SECTION)
    page.locator('[data-testid="scaling-score-std"]').first.wait_for()
    page.evaluate(TIMER_JS)
    run_moves(page)
    # Ten more samples: 3, 4, …, 9, then back to 0, 1, 2.
    d_k, seed = MOVES[-1][1]
    for _ in range(EXPORT_SEEDS):
        move(page, "click")
        seed = (seed + 1) % EXPORT_SEEDS
        wait_for(page, d_k, seed)
    assert seed == 2
    times = update_times(page, "scaling")
    assert len(times) == len(MOVES) + EXPORT_SEEDS
    print("\nescalado, ms por cambio (C04.update / hasta pintar): " + format_times(times))
    assert offline.external == []
    assert offline.console_errors == []


def test_export_and_live_app_show_the_same(offline, open_export, open_live):
    exported, served = export_and_live(open_export, offline, open_live, FILE, SECTION, run_moves)
    for n, (a, b) in enumerate(zip(exported, served, strict=True)):
        assert a["texts"] == b["texts"], f"movimiento {n}"
        assert a["widths"] == b["widths"], f"movimiento {n}"
        assert all(len(w) == 8 for w in a["widths"])
