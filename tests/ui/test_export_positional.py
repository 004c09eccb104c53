"""The exported positional section (dist/posicion.html), offline, against Python and the live app.

Opened from file:// with every non-file request blocked: the defaults are on screen; moving the
sliders recomputes everything in the browser (C04.views.positional) to what the model gives for
that state; and the same slider moves in the served lecture give the
same text in the same data-testid elements, the same chart data (the float32 matrix within
float32 precision, the float64 curves within 1e-12, their labels identical) and the same
drawing (every pixel of the heat map, every vertex of the curves).
"""

from __future__ import annotations

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel import PositionalEncodingDemo
from attnmodel.formatting import number
from attnmodel.i18n import text
from dashboards.demos.positional import CURVE_STARTS

from c04_testing import (
    TIMER_JS,
    assert_lines_drawn,
    assert_raster_drawn,
    export_and_live,
    format_times,
    press_slider,
    settled_texts,
    update_times,
    wait_for_chart,
)

pytestmark = pytest.mark.ui

N_SLIDER = text("positional.n_slider")  # "Número de posiciones (filas)"

TOL = 1e-12
FLOAT32_TOL = 2.0**-23
TESTIDS = ("pe-shape", "pe-worked-table")


def snapshot(page, n: int, d: int) -> dict:
    """The charts once they hold and draw an n × d encoding and the readout says so: what the
    page holds (the heat map's matrix, the curves' spec) and what it drew (CHART_JS)."""
    expect(page.locator('[data-testid="pe-shape"]')).to_have_text(
        text("positional.shape", n=n, d=d)
    )
    heat = wait_for_chart(
        page,
        "pe-heatmap",
        f"c.values && c.values.shape.join() === '{n},{d}' && c.canvas.width === {d} && "
        f"c.canvas.height === {n}",
    )
    sim = wait_for_chart(
        page,
        "pe-similarity",
        f"c.spec && c.spec.x.max === {n - 1} && c.series[0].vertices.length === {n}",
    )
    return {"heatmap": heat, "similarity": sim}


def assert_python(snap: dict, n: int, d: int) -> None:
    """The browser holds and draws exactly what the model gives for n × d."""
    model = PositionalEncodingDemo(n_positions=n, d_model=d)
    heat = snap["heatmap"]
    assert heat["values"]["dtype"] in ("float32", "Float32Array")
    values = np.asarray(heat["values"]["data"], dtype=np.float32).reshape(n, d)
    np.testing.assert_allclose(values, model.encoding, rtol=0, atol=FLOAT32_TOL)
    assert_raster_drawn(heat, model.encoding, f"pe-heatmap {n} × {d}")
    assert heat["title"] == text("positional.heatmap_title", n=n, d=d)
    sim = snap["similarity"]
    # PE_start · PE_(start+Δ) / (d / 2): the model's own similarity from each start.
    want = [
        (model.similarity_from(start) / (d / 2)).tolist() if start < n else []
        for start in CURVE_STARTS
    ]
    for got, start, expected in zip(sim["spec"]["series"], CURVE_STARTS, want, strict=True):
        np.testing.assert_allclose(got["y"], expected, rtol=TOL, atol=TOL)
        assert got["labels"] == [number(v, 4) for v in expected]
        assert got["name"] == text("positional.curve_from", start=start)
    assert sim["spec"]["x"]["max"] == n - 1
    assert_lines_drawn(sim, want, f"pe-similarity {n} × {d}")


def assert_same(export: dict, live: dict) -> None:
    """Export and live app hold and draw the same (matrix to float32 precision, curves to
    1e-12, the same pixels and the same paths)."""
    a, b = export["heatmap"], live["heatmap"]
    assert a["values"]["shape"] == b["values"]["shape"]
    np.testing.assert_allclose(a["values"]["data"], b["values"]["data"], rtol=0, atol=FLOAT32_TOL)
    np.testing.assert_array_equal(a["canvas"]["pixels"], b["canvas"]["pixels"])
    assert (a["title"], a["bar_ticks"], a["aria"]) == (b["title"], b["bar_ticks"], b["aria"])
    a, b = export["similarity"], live["similarity"]
    for x, y in zip(a["spec"]["series"], b["spec"]["series"], strict=True):
        np.testing.assert_allclose(x["y"], y["y"], rtol=TOL, atol=TOL)
        assert x["labels"] == y["labels"]
    # Each page draws at its own width: the vertices read back agree within both roundings.
    tol_x, tol_y = (p + q for p, q in zip(a["tolerance"], b["tolerance"], strict=True))
    for x, y in zip(a["series"], b["series"], strict=True):
        assert len(x["vertices"]) == len(y["vertices"])
        if x["vertices"]:
            np.testing.assert_allclose(x["vertices"], y["vertices"], rtol=0, atol=max(tol_x, tol_y))
    assert (a["legend"], a["aria"]) == (b["legend"], b["aria"])


# The same moves in both pages: (slider label, key, resulting (n, d)).
MOVES = [
    ("d_model", "ArrowLeft", (50, 62)),
    (N_SLIDER, "ArrowRight", (51, 62)),
    (N_SLIDER, "Home", (2, 62)),
    ("d_model", "Home", (2, 2)),
]


def run_moves(page) -> list[tuple[dict, dict]]:
    """Defaults, then each move: (data-testid texts, plot snapshot) after each."""
    snap = snapshot(page, 50, 64)  # first: it waits for the change to arrive
    out = [(settled_texts(page, TESTIDS), snap)]
    for label, key, (n, d) in MOVES:
        press_slider(page, label, key)
        snap = snapshot(page, n, d)
        out.append((settled_texts(page, TESTIDS), snap))
    return out


def test_defaults_offline(page, offline, open_export):
    open_export("posicion.html", "posicion")
    heading = page.get_by_role("heading", name=text("demo.posicion"), exact=True)
    expect(heading).to_be_visible()
    table = page.locator('[data-testid="pe-worked-table"]')
    for expected in ("Comentario", "PE(1)", "0,8415", "0,5403", "x(mordió) + PE(2)", "0,6093"):
        expect(table).to_contain_text(expected)
    assert_python(snapshot(page, 50, 64), 50, 64)
    expect(page.locator("math").first).to_be_attached()  # MathML, written by the export
    assert offline.external == []
    assert offline.console_errors == []


def test_sliders_recompute_in_the_browser(page, offline, open_export):
    open_export("posicion.html", "posicion")
    snapshot(page, 50, 64)
    page.evaluate(TIMER_JS)
    for label, key, (n, d) in MOVES:
        press_slider(page, label, key)
        assert_python(snapshot(page, n, d), n, d)
    expect(page.locator('[data-testid="pe-error"]')).to_have_count(0)

    # The largest matrix (512 × 512): the worst case of one change.
    for label in (N_SLIDER, "d_model"):
        press_slider(page, label, "End")
    assert_python(snapshot(page, 512, 512), 512, 512)
    times = update_times(page, "positional")
    print("\nposicion, ms por cambio (C04.update / hasta pintar): " + format_times(times))
    assert offline.external == []
    assert offline.console_errors == []


def test_no_control_holds_a_value_the_model_refuses(page, offline, open_export):
    """The live app refuses an odd d_model (a forged message, test_positional.py); in the
    export the native control cannot hold one: set from outside (as links.js sets a control),
    it takes the nearest of its steps and the page shows that valid state."""
    open_export("posicion.html", "posicion")
    snapshot(page, 50, 64)
    held = page.evaluate(
        """() => {
          const [board] = [...C04.boards.values()].filter((b) => {
            try { return b.get("d_model") !== undefined; } catch (err) { return false; }
          });
          board.set("d_model", 7);
          return board.get("d_model");
        }"""
    )
    assert held in (6, 8)
    assert_python(snapshot(page, 50, held), 50, held)
    expect(page.locator('[data-testid="pe-error"]')).to_have_count(0)
    assert offline.external == []
    assert offline.console_errors == []


def test_export_and_live_app_show_the_same(offline, open_export, open_live):
    exported, served = export_and_live(
        open_export, offline, open_live, "posicion.html", "posicion", run_moves
    )
    for (export_texts, export_snap), (live_texts, live_snap) in zip(exported, served, strict=True):
        assert export_texts == live_texts
        assert_same(export_snap, live_snap)
