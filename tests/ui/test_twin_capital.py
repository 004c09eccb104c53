"""Parity in Chromium: the browser twin of "La capital de ___ es …" against Python.

``C04.views.capital.render(state)`` (dashboards/static/demos/capital.js on top of the core
dashboards/static/c04.js, in a blank page with the constants the export embeds) must return
what ``dashboards.demos.capital.render(model)`` returns for the same country and identity: the same
keys in the same order, every HTML string byte-identical (tables, readouts, the asymmetry box
with its two scratch models), the two bar charts' specs (labels, values and colours identical,
bar widths within 1e-12). The same on an English page (``lang="en"``): the texts from
the English catalogue the page embeds, the model's Spanish words marked ``lang="es"``.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnmodel import CapitalWalkthrough
from attnmodel.capital import COUNTRIES
from dashboards.demos.capital import CapitalView, client_constants, render

from c04_testing import assert_twin_equal, label_text, spec_find, spec_text, twin_html

pytestmark = pytest.mark.ui

TOL = 1e-12

# Bounds, the countries' identities, the tie at 0 (and −0), tiny values on both sides, values
# whose two-decimal text is a rounding tie (0,125 is an exact binary tie: half-to-even "0,12").
EDGE_IDENTITIES = [
    1.0,
    -1.0,
    0.0,
    -0.0,
    0.9,
    -0.9,
    0.89,
    -0.89,
    0.5,
    -0.5,
    1e-12,
    -1e-12,
    0.005,
    -0.005,
    0.125,
    -0.125,
    0.375,
    0.01,
    -0.01,
]


def identities(count: int = 40, seed: int = 20240605) -> list[float]:
    rng = np.random.default_rng(seed)
    uniform = rng.uniform(-1.0, 1.0, count).tolist()
    # What the slider gives: multiples of 0.01, as JS's noUiSlider rounds them.
    slider = [round(int(k) * 0.01, 2) for k in rng.integers(-100, 101, count)]
    return EDGE_IDENTITIES + uniform + slider


def embedded_states() -> dict:
    """What the export embeds for this view: ``enable_client_side`` fills ``states``."""
    states: dict = {}
    assert CapitalView().enable_client_side(states) == 0
    return states


def load_twin(page, lang: str = "es") -> list[str]:
    """A blank page in ``lang`` with the embedded constants, c04.js and capital.js; returns its
    errors."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.set_content(twin_html("capital.js", states=embedded_states(), lang=lang))
    return errors


RENDER_JS = """(states) => states.map(([country, identity]) => {
  const out = C04.views.capital.render({country, identity});
  const plain = (v) => (ArrayBuffer.isView(v) ? Array.from(v) : v);
  const conv = {};
  for (const [key, value] of Object.entries(out)) {
    conv[key] = value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).map(([c, col]) => [c, plain(col)]))
      : plain(value);
  }
  return {keys: Object.keys(out), values: conv};
})"""


def compare(js: dict, py: dict, state) -> float:
    """Assert one state's parity; returns the largest difference of a bar's width (%)."""
    assert js["keys"] == list(py), state
    largest = 0.0
    for key, expected in py.items():
        got = js["values"][key]
        where = f"{state} {key}"
        if isinstance(expected, dict):  # a Markup spec
            assert_twin_equal(expected, got, where, TOL)
        else:
            assert got == expected, where
    for chart in ("attention_bars", "probability_bars"):
        mine = np.array([row["width"] for row in py[chart]["rows"]])
        theirs = np.array([row["width"] for row in js["values"][chart]["rows"]])
        largest = max(largest, float(np.max(np.abs(theirs - mine))))
    return largest


def test_constants_are_the_models(panel_cleanup):
    constants = embedded_states()["capital"]["constants"]
    assert constants == client_constants()
    model = CapitalWalkthrough()
    assert constants["vocabulary"] == model.vocabulary
    assert constants["countries"] == COUNTRIES
    sentence = list(model.tokens)
    sentence[3] = None
    assert constants["sentence"] == sentence


def test_render_matches_python(page):
    errors = load_twin(page)
    states = [(country, identity) for identity in identities() for country in COUNTRIES]
    results = page.evaluate(RENDER_JS, [list(s) for s in states])
    largest = 0.0
    for state, js in zip(states, results, strict=True):
        model = CapitalWalkthrough(country=state[0], identity=state[1])
        largest = max(largest, compare(js, render(model), state))
    print(f"\n{len(states)} estados: HTML idéntico; máx |JS − Python| = {largest:.3g} %")
    assert errors == []


@pytest.mark.parametrize("lang", ["en"])
def test_render_matches_python_in_another_language(page, lang):
    errors = load_twin(page, lang)
    states = [
        (country, identity)
        for identity in (0.9, -0.9, 0.0, -0.0, 0.125, -0.37, 1.0)
        for country in COUNTRIES
    ]
    results = page.evaluate(RENDER_JS, [list(s) for s in states])
    for state, js in zip(states, results, strict=True):
        model = CapitalWalkthrough(country=state[0], identity=state[1])
        compare(js, render(model, lang), state)
    [tie] = page.evaluate(RENDER_JS, [["Italia", 0.0]])
    prediction = spec_find(tie["values"]["readouts"], "capital-prediction")["value"]
    assert label_text(prediction) == "París or Roma (a tie)"
    assert label_text(prediction, without_lang="es") == " or  (a tie)"  # both marked Spanish
    assert tie["values"]["mixed"]["text"] == "z = (1.9953, −0.2850, 0.0000)"
    # The bars' labels: the model's words marked as Spanish, the headers in English.
    bars = tie["values"]["probability_bars"]
    assert bars["rows"][1]["label"] == {"text": "Roma", "lang": "es"}
    assert (bars["corner"], bars["head"]) == ("next word", "probability")
    attention = tie["values"]["attention_bars"]
    assert attention["rows"][3]["label"] == ["3 · ", {"text": "Italia", "lang": "es"}]
    assert errors == []


def test_tie_and_defaults(page):
    load_twin(page)
    [zero, default] = page.evaluate(RENDER_JS, [["Francia", 0.0], ["Francia", 0.9]])
    assert "París o Roma (empate)" in spec_text(zero["values"]["readouts"])
    assert "p(París) = p(Roma)" in spec_text(zero["values"]["readouts"])
    assert "Con identidad 0 empatan" in spec_text(zero["values"]["asymmetry"])
    assert "p(París | +0,90) = 0,3805" in spec_text(default["values"]["asymmetry"])
    assert "p(Roma | −0,90) = 0,3398" in spec_text(default["values"]["asymmetry"])


# readState with stand-ins for the Board's controls ({name, value}, board.js) and for the Board
# (its specs): a new country sets its identity and moves the identity control (as
# CapitalWalkthrough does, and the live view's spec); the identity alone changes only itself.
READ_STATE_JS = """(specs) => {
  const w_country = {name: "country", value: "Italia"};
  const w_identity = {name: "identity", value: 0.9};
  const identity = {data: {specs_json: JSON.stringify(specs)}};
  const args = {w_country, w_identity, identity, trigger: w_country};
  const byCountry = C04.views.capital.readState(args);
  const control = JSON.parse(identity.data.specs_json);
  w_identity.value = -0.25;
  args.trigger = w_identity;
  const byIdentity = C04.views.capital.readState(args);
  const after = JSON.parse(identity.data.specs_json);
  return {byCountry, control, byIdentity, after};
}"""


def test_read_state_follows_the_model(page, panel_cleanup):
    load_twin(page)
    view = CapitalView()
    got = page.evaluate(READ_STATE_JS, view.board.specs)
    model = CapitalWalkthrough()
    model.country = "Italia"
    assert got["byCountry"] == {"country": "Italia", "identity": model.identity}
    # The identity control's spec is the live view's for that model (only its value moved).
    view.model.country = "Italia"
    assert got["control"]["identity"] == view.board.specs["identity"]
    assert got["after"] == got["control"]  # the control used is not written back
    model.identity = -0.25
    assert got["byIdentity"] == {"country": model.country, "identity": model.identity}
