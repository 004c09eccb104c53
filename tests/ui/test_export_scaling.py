"""Demo 2 (¿Por qué dividir por √d_k?) in the exported dist/autoatencion.html, offline, against
the model and the live app.

The export embeds every (d_k, seed) the page can reach — the 11 stops of the slider × the
samples 0–9 — as the model's numbers (dashboards.demos.scaling.numbers), which
C04.views.scaling draws, as it draws the live page's. Checked here: the shipped table equals the
model for every state; the drawing of a few states, es and en, shows every text the model and
the catalogue give (computed here); the exported page's defaults and its note on "Nueva
muestra"; the slider and the button changing every number to the model's for that state, the
samples cycling 0 → 9 → 0; and the same moves in the served lecture giving the same text in the
same data-testid elements, the bar charts' titles, percentages and widths included.
"""

from __future__ import annotations

import html
import json
import math
import re
import time

import pytest
from playwright.sync_api import expect

from attnmodel.formatting import es_number, number, percent
from attnmodel.i18n import text
from attnmodel.scaling import ScalingDemo
from dashboards.demos.scaling import (
    D_K_OPTIONS,
    EXPORT_SEEDS,
    ScalingView,
    numbers,
    state_key,
)

from c04_testing import (
    TIMER_JS,
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


def embedded_states() -> dict:
    states: dict = {}
    count = ScalingView().enable_client_side(states)
    assert count == len(states["scaling"]) == len(D_K_OPTIONS) * EXPORT_SEEDS == 110
    return states


def test_embedded_states_are_the_models():
    """The shipped table: every (d_k, seed) the export offers, each number the model's."""
    table = embedded_states()["scaling"]
    for d_k in D_K_OPTIONS:
        for seed in range(EXPORT_SEEDS):
            m = ScalingDemo(d_k=d_k, seed=seed)
            state = json.loads(json.dumps(table[state_key(d_k, seed)]))  # as the page reads it
            assert (state["d_k"], state["seed"], state["n"]) == (d_k, seed, m.n_trials)
            pairs = {
                "entropy": (m.entropy_unscaled, m.entropy_scaled),
                "gradient": (m.gradient_unscaled, m.gradient_scaled),
                "sample_entropy": (m.sample_entropy_unscaled, m.sample_entropy_scaled),
            }
            assert state["score_std"] == m.score_std
            for name, expected in pairs.items():
                assert state[name] == list(expected), (d_k, seed, name)
            assert state["weights"] == [list(m.weights_unscaled), list(m.weights_scaled)]


def _plain(markup: str) -> str:
    """The text a browser reads from catalogue HTML (its tags left out)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def expected_texts(d_k: int, seed: int, lang: str = "es") -> dict[str, str]:
    """Each data-testid's text on screen for (d_k, seed), from the model and the catalogue."""
    m = ScalingDemo(d_k=d_k, seed=seed)

    def t(key: str, **values) -> str:
        return _plain(text(f"scaling.{key}", lang, **values))

    def num(x: float, decimals: int = 2) -> str:
        return number(x, decimals, lang=lang)

    root = math.sqrt(d_k)
    sqrt = f"√{d_k} = {int(root)}" if root == int(root) else f"√{d_k} ≈ {num(root)}"
    n = m.n_trials
    texts = {
        "scaling-score-std": t("score_label") + num(m.score_std) + t("score_unit", sqrt=sqrt),
        "scaling-sqrt-dk": sqrt,
        "scaling-dk": f"d_k = {d_k}",
        "scaling-seed": str(seed),
    }
    for side, i in (("unscaled", 0), ("scaled", 1)):
        entropy = (m.entropy_unscaled, m.entropy_scaled)[i]
        gradient = (m.gradient_unscaled, m.gradient_scaled)[i]
        sample = (m.sample_entropy_unscaled, m.sample_entropy_scaled)[i]
        weights = (m.weights_unscaled, m.weights_scaled)[i]
        texts[f"scaling-entropy-{side}"] = (
            t(f"entropy_{side}_label") + num(entropy) + t(f"entropy_{side}_unit", n=n)
        )
        texts[f"scaling-gradient-{side}"] = (
            t(f"gradient_{side}_label") + num(gradient, 3) + t(f"gradient_{side}_unit")
        )
        texts[f"scaling-sample-entropy-{side}"] = (
            t(f"sample_entropy_{side}_label") + num(sample) + t("sample_entropy_unit")
        )
        rows = "".join(f"{j + 1}{percent(w, 1, lang)}" for j, w in enumerate(weights))
        texts[f"scaling-{side}-bars"] = (
            t(f"{side}_title", d_k=d_k) + t("key_axis") + t("weight_axis") + rows
        )
    return texts


# A few states per language, drawn by scaling.js in a blank page with that language's catalogue.
CASES = [(64, 0), (128, 3), (1, 9), (1024, 5), (2, 7)]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_drawing_shows_the_models_numbers(page, lang):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.set_content(twin_html("scaling.js", lang=lang))
    states = [numbers(ScalingDemo(d_k=d_k, seed=seed)) for d_k, seed in CASES]
    rendered = page.evaluate("(states) => states.map((s) => C04.views.scaling.render(s))", states)
    for (d_k, seed), js in zip(CASES, rendered, strict=True):
        parsed = by_testid(*drawn(page, *((SPECS[name], js[name]) for name in SPECS)))
        shown = {tid: parsed.texts[tid] for tid in TESTIDS}
        assert shown == expected_texts(d_k, seed, lang), (d_k, seed)
    if lang == "en":  # a known value, with a decimal point: d_k = 64, sample 0
        assert expected_texts(64, 0, "en")["scaling-sample-entropy-unscaled"] == (
            "Entropy of this query, unscaled0.63bits, only the query drawn above"
        )
    assert errors == []


# The slots scaling.js draws, with their kind (markup.js).
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


def wait_for(page, d_k: int, seed: int, timeout: float = 15.0) -> dict:
    """The page's snapshot once every text is the model's for (d_k, seed)."""
    want = expected_texts(d_k, seed)
    deadline = time.monotonic() + timeout
    while True:
        snap = page.evaluate(SNAPSHOT_JS, list(TESTIDS))
        problems = (
            ["sin documento"]
            if snap is None
            else [tid for tid in TESTIDS if snap["texts"][tid] != want[tid]]
        )
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
