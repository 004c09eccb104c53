"""The exported positional section (dist/posicion.html), offline, against Python and the live app.

Opened from file:// with every non-file request blocked: the defaults are on screen; moving the
sliders recomputes everything in the browser (C04.views.positional) to what Python's
``render(model)`` gives for that state; and the same slider moves in the served lecture give the
same text in the same data-testid elements and the same plot data (the float32 image within
float32 precision, the float64 curves within 1e-12, their labels identical).
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel import PositionalEncodingDemo
from attnmodel.i18n import text
from dashboards.demos.positional import render

from c04_testing import (
    TIMER_JS,
    export_and_live,
    format_times,
    press_slider,
    settled_texts,
    update_times,
)

pytestmark = pytest.mark.ui

N_SLIDER = text("positional.n_slider")  # "Número de posiciones (filas)"

TOL = 1e-12
FLOAT32_TOL = 2.0**-23
TESTIDS = ("pe-shape", "pe-worked-table")

# Everything the plots hold, from the Bokeh models' stable names.
SNAPSHOT_JS = """() => {
  const doc = window.Bokeh && window.Bokeh.documents[0];
  if (!doc) return null;
  const get = (name) => doc.get_model_by_name(name);
  const col = (m, k) => Array.from(m.data instanceof Map ? m.data.get(k) : m.data[k]);
  const source = get('pe-heatmap-source');
  const image = (source.data instanceof Map ? source.data.get('image') : source.data.image)[0];
  const heatmap = get('pe-heatmap');
  const similarity = get('pe-similarity');
  const range = (r) => [r.start, r.end, r.reset_start, r.reset_end];
  return {
    shape: Array.from(image.shape),
    dtype: image.dtype,
    image: Array.from(image),
    extent: ['x', 'y', 'dw', 'dh'].map((k) => col(source, k)[0]),
    curves: [0, 10, 20].map((s) => {
      const m = get(`pe-similarity-source-${s}`);
      return {delta: col(m, 'delta'), similitud: col(m, 'similitud'), label: col(m, 'label')};
    }),
    title: heatmap.title.text,
    ranges: {
      heatmap_x: range(heatmap.x_range),
      heatmap_y: range(heatmap.y_range),
      similarity_x: range(similarity.x_range),
    },
  };
}"""


def snapshot(page, n: int, d: int, timeout: float = 15.0) -> dict:
    """The plots' data once they hold an n × d encoding and the readout says so."""
    expect(page.locator('[data-testid="pe-shape"]')).to_have_text(
        text("positional.shape", n=n, d=d)
    )
    deadline = time.monotonic() + timeout
    while True:
        snap = page.evaluate(SNAPSHOT_JS)
        if snap and snap["shape"] == [n, d] and len(snap["curves"][0]["delta"]) == n:
            return snap
        if time.monotonic() > deadline:
            raise AssertionError(f"los gráficos no llegaron a {n} × {d}: {snap and snap['shape']}")
        page.wait_for_timeout(100)


def assert_python(snap: dict, n: int, d: int) -> None:
    """The browser's plots hold exactly what Python's render() gives for n × d."""
    py = render(PositionalEncodingDemo(n_positions=n, d_model=d))
    image = py["heatmap_source"]["image"][0]
    assert snap["dtype"] == "float32"
    np.testing.assert_allclose(
        np.asarray(snap["image"], dtype=np.float32).reshape(n, d), image, rtol=0, atol=FLOAT32_TOL
    )
    assert snap["extent"] == [-0.5, -0.5, d, n]
    for curve, start in zip(snap["curves"], (0, 10, 20), strict=True):
        want = py[f"similarity_{start}"]
        assert curve["delta"] == list(want["delta"])
        np.testing.assert_allclose(curve["similitud"], want["similitud"], rtol=TOL, atol=TOL)
        assert curve["label"] == want["label"]
    assert snap["title"] == py["heatmap_title"]
    for name, values in snap["ranges"].items():
        expected = [py[f"{name}_{p}"] for p in ("start", "end", "reset_start", "reset_end")]
        assert values == expected, name


def assert_same(export: dict, live: dict) -> None:
    """Export and live app show the same plots (image to float32 precision, curves to 1e-12)."""
    assert export["shape"] == live["shape"]
    np.testing.assert_allclose(export["image"], live["image"], rtol=0, atol=FLOAT32_TOL)
    for a, b in zip(export["curves"], live["curves"], strict=True):
        assert a["delta"] == b["delta"]
        np.testing.assert_allclose(a["similitud"], b["similitud"], rtol=TOL, atol=TOL)
        assert a["label"] == b["label"]
    assert export["title"] == live["title"]
    assert export["ranges"] == live["ranges"]
    assert export["extent"] == live["extent"]


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


def test_bad_value_is_refused_like_the_live_app(page, offline, open_export):
    """The sliders cannot give an odd d_model; set one on the model and the guard answers."""
    open_export("posicion.html", "posicion")
    snapshot(page, 50, 64)
    page.evaluate(
        """() => {
          const doc = Bokeh.documents[0];
          const slider = doc.all_models && [...doc.all_models].find(
            (m) => m.type === 'Slider' && String(m.title).startsWith('d_model'));
          slider.value = 7;
        }"""
    )
    error = page.locator('[data-testid="pe-error"]')
    expect(error).to_have_text(
        text("input.refused", message=text("positional.odd_d_model", value=7))
    )
    assert_python(snapshot(page, 50, 64), 50, 64)  # the last valid state stays
    press_slider(page, "d_model", "ArrowLeft")  # 62: a valid value clears the message
    snapshot(page, 50, 62)
    expect(error).to_have_count(0)
    assert offline.external == []
    assert offline.console_errors == []


def test_export_and_live_app_show_the_same(offline, open_export, open_live):
    exported, served = export_and_live(
        open_export, offline, open_live, "posicion.html", "posicion", run_moves
    )
    for (export_texts, export_snap), (live_texts, live_snap) in zip(exported, served, strict=True):
        assert export_texts == live_texts
        assert_same(export_snap, live_snap)
