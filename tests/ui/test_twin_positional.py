"""Parity in Chromium: the browser twin of the positional section against Python.

``C04.views.positional.render(state)`` (dashboards/demos/positional.js on top of the core
dashboards/static/c04.js, loaded into a blank page) must return what
``dashboards.demos.positional.render(model)`` returns for the same state: the same keys in the same
order, HTML and titles byte-identical, range values equal, the float64 similarity curves within
1e-12 and their Spanish labels identical. The heatmap image is float32 on both sides (the live
app sends float32 to halve a 512 × 512 matrix): it must agree to float32 precision, i.e. within
one float32 step of values in [−1, 1] (2**-23 ≈ 1.2e-7); in practice every element is equal.
"""

from __future__ import annotations

import base64
import re

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
      if (key === "heatmap_source") {
        const img = value.image[0];
        conv[key] = {
          image: {
            type: img.constructor.name,
            is_float32: img instanceof Float32Array,
            shape: Array.from(img.shape),
            b64: b64(new Uint8Array(img.buffer, img.byteOffset, img.byteLength)),
          },
          n_images: value.image.length,
          x: plain(value.x), y: plain(value.y), dw: plain(value.dw), dh: plain(value.dh),
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
        if key == "heatmap_source":
            image = got["image"]
            assert image["is_float32"], where
            assert got["n_images"] == 1, where
            n, d = expected["image"][0].shape
            assert image["shape"] == [n, d], where
            flat = np.frombuffer(base64.b64decode(image["b64"]), dtype="<f4").reshape(n, d)
            want = expected["image"][0]
            assert want.dtype == np.float32
            np.testing.assert_allclose(flat, want, rtol=0, atol=FLOAT32_TOL, err_msg=where)
            stats |= {
                "elements": flat.size,
                "unequal": int(np.count_nonzero(flat != want)),
                "max_abs": float(np.max(np.abs(flat.astype(float) - want.astype(float)))),
            }
            for column in ("x", "y", "dw", "dh"):
                assert got[column] == list(expected[column]), where
        elif key in ("shape", "similarity_table", "announce"):  # a Markup spec: texts only
            assert got == expected, where
        elif isinstance(expected, dict):  # a similarity curve
            assert list(got) == list(expected), where
            assert got["delta"] == list(expected["delta"]), where
            np.testing.assert_allclose(
                np.asarray(got["similitud"], dtype=float),
                expected["similitud"],
                rtol=TOL,
                atol=TOL,
                err_msg=where,
            )
            assert got["label"] == expected["label"], where
            if len(expected["similitud"]):
                diff = np.abs(np.asarray(got["similitud"], dtype=float) - expected["similitud"])
                stats["curve_max_abs"] = max(stats.get("curve_max_abs", 0.0), float(diff.max()))
        else:  # range values, title
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


def test_every_curve_start_and_range_is_there(page):
    load_twin(page, "positional.js")
    [js] = page.evaluate(RENDER_JS, [[15, 6]])
    curves = [k for k in js["keys"] if re.fullmatch(r"similarity_\d+", k)]
    assert curves == [f"similarity_{s}" for s in CURVE_STARTS]
    assert js["values"]["similarity_20"] == {"delta": [], "similitud": [], "label": []}
    assert js["values"]["heatmap_y_start"] == 14.5
    assert js["values"]["heatmap_y_reset_end"] == -0.5


# The bad-value guard, with stand-ins for the Bokeh models (C04.apply only sets properties).
GUARD_JS = """([name, value]) => {
  const data = {dh: [50], dw: [64]};
  const args = {
    heatmap_source: {data},
    error: {data: {spec_json: ""}},
    w_n_positions: {value: 50, start: 2, end: 512},
    w_d_model: {value: 64, start: 2, end: 512},
  };
  args["w_" + name].value = value;
  const state = C04.views.positional.readState(args);
  const spec = () => (args.error.data.spec_json ? JSON.parse(args.error.data.spec_json) : {});
  const refused = {state, error: spec(), slider: args["w_" + name].value};
  // The next valid value clears the message.
  args.w_d_model.value = 32;
  const next = C04.views.positional.readState(args);
  return {refused, next, error_after: spec()};
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
def test_bad_value_guard_matches_the_live_view(page, panel_cleanup, name, bad, lang):
    load_twin(page, "positional.js", lang=lang)
    got = page.evaluate(GUARD_JS, [name, bad])
    view = PositionalView(lang=lang)
    getattr(view, {"n_positions": "n_slider", "d_model": "d_slider"}[name]).value = bad
    assert view.error.spec  # the live view refused it
    assert got["refused"]["state"] == {"n_positions": 50, "d_model": 64}
    assert got["refused"]["slider"] == getattr(view.model, name)  # slider put back
    assert got["refused"]["error"] == view.error.spec  # the same message, for markup.js
    assert got["next"] == {"n_positions": 50, "d_model": 32}
    assert got["error_after"] == {}
