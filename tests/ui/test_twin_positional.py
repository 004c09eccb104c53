"""Parity in Chromium: the browser twin of the positional section against Python.

``C04.views.positional.render(state)`` (dashboards/static/demos/positional.js on top of the core
dashboards/static/c04.js, loaded into a blank page) must return what
``dashboards.demos.positional.render(model)`` returns for the same state: the same keys in the same
order, every spec's texts identical, the float64 similarity curves within 1e-12 and their
labels identical. The heat map's matrix is float32 on both sides (the live app sends float32
to halve a 512 × 512 matrix): it must agree to float32 precision, i.e. within one float32
step of values in [−1, 1] (2**-23 ≈ 1.2e-7); in practice every element is equal.
"""

from __future__ import annotations

import base64
import logging

import numpy as np
import pytest

from attnmodel import PositionalEncodingDemo
from dashboards.demos.positional import CURVE_STARTS, PositionalView, render

from c04_testing import twin_html

pytestmark = pytest.mark.ui

TOL = 1e-12
FLOAT32_TOL = 2.0**-23  # one float32 step at 1; values of the encoding lie in [−1, 1]

# Edge cases: the smallest and largest shapes, and n around the starts of the dashed curves
# (a start beyond the last position is an empty curve). In this order they also walk the
# twin's cache of encoding rows by d_model: a new d, fewer rows of a known d (reused), more.
EDGE_STATES = [
    (2, 2),
    (512, 512),
    (2, 512),
    (512, 2),
    (50, 64),
    (10, 64),
    (11, 64),
    (300, 64),
    (40, 64),
    (20, 8),
    (21, 8),
    (3, 4),
]


def random_states(count: int = 30, seed: int = 20240604) -> list[tuple[int, int]]:
    rng = np.random.default_rng(seed)
    return [
        (int(rng.integers(2, 513)), 2 * int(rng.integers(1, 257)))  # d_model even, 2..512
        for _ in range(count)
    ]


def load_twin(page, *names: str, head: str = "", lang: str = "es") -> list[str]:
    """A blank page in ``lang`` (its catalogue embedded) with c04.js and the given twin files;
    returns the page's errors."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.set_content(twin_html(*names, head=head, lang=lang))
    return errors


# JS render for many states, made JSON-friendly: typed arrays become lists, the float32 image
# travels as base64 bytes (exact) with its shape and its array type.
RENDER_JS = """(states) => {
  const b64 = (bytes) => {
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(text);
  };
  const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
  return states.map(([n, d]) => {
    const out = C04.views.positional.render({n_positions: n, d_model: d});
    const conv = {};
    for (const [key, value] of Object.entries(out)) {
      if (key === "heatmap_values") {
        conv[key] = {
          type: value.constructor.name,
          is_float32: value instanceof Float32Array,
          shape: Array.from(value.shape),
          b64: b64(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)),
        };
      } else if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        conv[key] = Object.fromEntries(Object.entries(value).map(([c, col]) => [c, plain(col)]));
      } else {
        conv[key] = value;
      }
    }
    return {keys: Object.keys(out), values: conv};
  });
}"""


def compare(js: dict, py: dict, state) -> dict:
    """Assert one state's parity; returns the float32 image statistics."""
    assert js["keys"] == list(py), state
    values = js["values"]
    stats: dict = {}
    for key, expected in py.items():
        got = values[key]
        where = f"{state} {key}"
        if key == "heatmap_values":
            assert got["is_float32"], where
            n, d = expected.shape
            assert got["shape"] == [n, d], where
            flat = np.frombuffer(base64.b64decode(got["b64"]), dtype="<f4").reshape(n, d)
            assert expected.dtype == np.float32
            np.testing.assert_allclose(flat, expected, rtol=0, atol=FLOAT32_TOL, err_msg=where)
            stats |= {
                "elements": flat.size,
                "unequal": int(np.count_nonzero(flat != expected)),
                "max_abs": float(np.max(np.abs(flat.astype(float) - expected.astype(float)))),
            }
        elif key == "similarity":  # the curves' spec: texts identical, values within 1e-12
            series = got.pop("series")
            want = dict(expected)
            want_series = want.pop("series")
            assert got == want, where
            assert len(series) == len(want_series), where
            for a, b in zip(series, want_series, strict=True):
                ya, yb = a.pop("y"), b["y"]
                assert a == {k: v for k, v in b.items() if k != "y"}, where
                np.testing.assert_allclose(
                    np.asarray(ya, dtype=float), yb, rtol=TOL, atol=TOL, err_msg=where
                )
                if len(yb):
                    diff = np.abs(np.asarray(ya, dtype=float) - yb)
                    stats["curve_max_abs"] = max(stats.get("curve_max_abs", 0.0), float(diff.max()))
        else:  # a Markup spec: texts only
            assert got == expected, where
    return stats


# English: the texts (shape, title) and the curves' labels ("0.9848") of render(model, "en"), on
# a few states; the numbers are the same code as in Spanish.
@pytest.mark.parametrize(
    ("lang", "states"),
    [("es", EDGE_STATES + random_states()), ("en", [(2, 2), (50, 64), (15, 6), (21, 8)])],
    ids=["es", "en"],
)
def test_render_matches_python(page, lang, states):
    errors = load_twin(page, "positional.js", lang=lang)
    results = page.evaluate(RENDER_JS, [list(s) for s in states])
    unequal = elements = 0
    curve_max = 0.0
    for state, js in zip(states, results, strict=True):
        model = PositionalEncodingDemo(n_positions=state[0], d_model=state[1])
        stats = compare(js, render(model, lang), state)
        unequal += stats["unequal"]
        elements += stats["elements"]
        curve_max = max(curve_max, stats.get("curve_max_abs", 0.0))
    print(
        f"\n{len(states)} estados; imagen float32: {unequal} de {elements} elementos distintos; "
        f"curvas: máx |JS − Python| = {curve_max:.3g}"
    )
    assert errors == []


def test_every_curve_start_is_there(page):
    load_twin(page, "positional.js")
    [js] = page.evaluate(RENDER_JS, [[15, 6]])
    assert js["keys"] == list(render(PositionalEncodingDemo(n_positions=15, d_model=6)))
    series = js["values"]["similarity"]["series"]
    assert [s["name"] for s in series] == [f"desde pos = {s}" for s in CURVE_STARTS]
    assert (len(series[0]["y"]), len(series[1]["y"]), series[2]["y"]) == (15, 5, [])
    assert js["values"]["similarity"]["x"]["max"] == 14
    assert js["values"]["heatmap_values"]["shape"] == [15, 6]


# The bad-value guard, with stand-ins for the Board's controls ({name, value}, board.js) and the
# heat map's model (its matrix's shape is the state on screen); console.info collected.
GUARD_JS = """([name, value, bounds]) => {
  const said = [];
  const info = console.info;
  console.info = (text) => said.push(text);
  try {
    const args = {
      heatmap_values: {data: {values: {shape: [50, 64]}}},
      w_n_positions: {name: "n_positions", value: 50},
      w_d_model: {name: "d_model", value: 64},
      bounds,
    };
    args["w_" + name].value = value;
    args.trigger = args["w_" + name];
    const state = C04.views.positional.readState(args);
    // The next valid value is taken (the bad one back on the model's, as no control holds it).
    args["w_" + name].value = {n_positions: 50, d_model: 64}[name];
    args.w_d_model.value = 32;
    args.trigger = args.w_d_model;
    const next = C04.views.positional.readState(args);
    return {state, said, next};
  } finally {
    console.info = info;
  }
}"""


@pytest.mark.parametrize(
    ("name", "bad", "lang"),
    [
        ("d_model", 7, "es"),
        ("n_positions", 1000, "es"),
        ("d_model", 0, "es"),
        ("n_positions", 1, "es"),
        ("d_model", 7, "en"),
        ("n_positions", 1000, "en"),
    ],
)
def test_bad_value_guard_matches_the_live_view(page, panel_cleanup, name, bad, lang, caplog):
    """No control holds such a value; were one read, the twin keeps the state and says why in
    the very words of the live view's refusal (its INFO line)."""
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    load_twin(page, "positional.js", lang=lang)
    view = PositionalView(lang=lang)
    view.enable_client_side({})
    got = page.evaluate(GUARD_JS, [name, bad, view.board.offline["extra"]["bounds"]])
    view.board.receive({"control": name, "value": bad})
    assert (view.model.n_positions, view.model.d_model) == (50, 64)  # the live view refused it
    [line] = [r.getMessage() for r in caplog.records if "rechazado" in r.getMessage()]
    assert got["state"] == {"n_positions": 50, "d_model": 64}
    [said] = got["said"]
    assert said in line  # the same message
    assert got["next"] == {"n_positions": 50, "d_model": 32}
