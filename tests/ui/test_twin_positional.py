"""Parity in Chromium: the export's maths of the positional section against Python.

The sliders are free input, so the export computes in the page what the live app computes in
Python: ``C04.views.positional.readState`` (dashboards/static/demos/positional.js on top of
dashboards/static/c04.js, in a blank page) must give the numbers of
``dashboards.demos.positional.numbers(model)`` — the shape, the similarity curves within 1e-12
and every printed label identical to Python's ``number(v, 4)`` — and put on the heat map the
float32 matrix of ``matrix(model)``, within one float32 step of values in [−1, 1] (2**-23 ≈
1.2e-7; in practice every element is equal). What is drawn from those numbers is one code, live
and offline (tests/dashboards/test_positional.py checks it against the model).
"""

from __future__ import annotations

import base64
import logging

import numpy as np
import pytest

from attnmodel import PositionalEncodingDemo
from attnmodel.formatting import number
from dashboards.demos.positional import CURVE_STARTS, PositionalView, matrix, numbers

from c04_testing import BASE64_JS, twin_html

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


# The export's path for many shapes: readState on stand-ins of the Board's controls and of the
# heat map (whose matrix it sets), then the drawing's labels; the float32 image travels as
# base64 bytes (exact) with its shape and its array type.
STATES_JS = f"""([states, bounds]) => {{
  {BASE64_JS}
  return states.map(([n, d]) => {{
    const args = {{
      heatmap_values: {{data: {{values: {{shape: [0, 0]}}}}}},
      w_n_positions: {{name: "n_positions", value: n}},
      w_d_model: {{name: "d_model", value: d}},
      bounds,
    }};
    const state = C04.views.positional.readState(args);
    const image = args.heatmap_values.data.values;
    const drawing = C04.views.positional.render(state);
    return {{
      state,
      labels: drawing.similarity.series.map((s) => s.labels),
      names: drawing.similarity.series.map((s) => s.name),
      image: {{
        is_float32: image instanceof Float32Array,
        shape: Array.from(image.shape),
        b64: base64(image),
      }},
    }};
  }});
}}"""


def bounds() -> dict:
    params = PositionalEncodingDemo.param
    return {name: list(params[name].bounds) for name in ("n_positions", "d_model")}


def compare(js: dict, model: PositionalEncodingDemo, lang: str) -> dict:
    """Assert one shape's parity; returns the float32 image statistics."""
    where = (model.n_positions, model.d_model)
    want = numbers(model)
    assert (js["state"]["n"], js["state"]["d"]) == (want["n"], want["d"]), where
    assert len(js["state"]["curves"]) == len(want["curves"]) == len(CURVE_STARTS)
    stats = {"curve_max_abs": 0.0}
    for got, expected, labels in zip(
        js["state"]["curves"], want["curves"], js["labels"], strict=True
    ):
        assert len(got) == len(expected), where
        np.testing.assert_allclose(got, expected, rtol=TOL, atol=TOL, err_msg=str(where))
        # What the student reads: every label the same digits as Python writes them.
        assert labels == [number(v, 4, lang=lang) for v in expected], where
        if expected:
            diff = float(np.max(np.abs(np.asarray(got) - expected)))
            stats["curve_max_abs"] = max(stats["curve_max_abs"], diff)
    image, values = js["image"], matrix(model)["values"]
    assert image["is_float32"], where
    assert image["shape"] == list(values.shape), where
    flat = np.frombuffer(base64.b64decode(image["b64"]), dtype="<f4").reshape(values.shape)
    np.testing.assert_allclose(flat, values, rtol=0, atol=FLOAT32_TOL, err_msg=str(where))
    stats |= {"elements": flat.size, "unequal": int(np.count_nonzero(flat != values))}
    return stats


@pytest.mark.parametrize(
    ("lang", "states"),
    [("es", EDGE_STATES + random_states()), ("en", [(2, 2), (50, 64), (15, 6), (21, 8)])],
    ids=["es", "en"],
)
def test_the_pages_maths_is_pythons(page, lang, states):
    errors = load_twin(page, "positional.js", lang=lang)
    results = page.evaluate(STATES_JS, [[list(s) for s in states], bounds()])
    unequal = elements = 0
    curve_max = 0.0
    for state, js in zip(states, results, strict=True):
        model = PositionalEncodingDemo(n_positions=state[0], d_model=state[1])
        stats = compare(js, model, lang)
        unequal += stats["unequal"]
        elements += stats["elements"]
        curve_max = max(curve_max, stats["curve_max_abs"])
    print(
        f"\n{len(states)} estados; imagen float32: {unequal} de {elements} elementos distintos; "
        f"curvas: máx |JS − Python| = {curve_max:.3g}"
    )
    assert errors == []


def test_every_curve_start_is_there(page):
    load_twin(page, "positional.js")
    [js] = page.evaluate(STATES_JS, [[[15, 6]], bounds()])
    assert js["names"] == [f"desde pos = {s}" for s in CURVE_STARTS]
    assert [len(c) for c in js["state"]["curves"]] == [15, 5, 0]
    assert js["image"]["shape"] == [15, 6]


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
    assert (got["state"]["n"], got["state"]["d"]) == (50, 64)
    [said] = got["said"]
    assert said in line  # the same message
    assert (got["next"]["n"], got["next"]["d"]) == (50, 32)
