"""Parity in Chromium: the export's walkthrough of "La capital de ___ es …" against Python.

The export computes the walkthrough in the page (the identity is a continuous control), with
``C04.views.capital.walkthrough(constants, country, identity)`` (dashboards/static/demos/capital.js
on top of dashboards/static/c04.js, in a blank page with the constants the export embeds). Its
state must be the one ``dashboards.demos.capital.numbers(model)`` sends live, as the student sees
it: the same fields, the model's words, the same argmax (the tie at identity 0 included) and
every number the same once written with the decimals the page writes it with (the drawing of
a state is checked against the model in tests/dashboards/test_capital.py and
tests/ui/test_export_capital.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from attnmodel import CapitalWalkthrough
from attnmodel.capital import COUNTRIES, W_K, W_Q, W_V, U
from attnmodel.formatting import number
from dashboards.demos.capital import CapitalView, constants, numbers

from c04_testing import twin_html

pytestmark = pytest.mark.ui

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


# Each number of the state and the decimals the page writes it with (capital.js, render).
DECIMALS = {
    "identity": 2,
    "embeddings": 2,
    "positional": 4,
    "with_position": 4,
    "W_Q": 0,
    "W_K": 0,
    "W_V": 0,
    "U": 2,
    "q": 2,
    "keys": 4,
    "values": 4,
    "scores": 4,
    "attention": 4,
    "mixed": 4,
    "logits": 4,
    "probabilities": 4,
    "probability": 4,
    "loss": 4,
    "slopes": 4,
    "mirror": 4,
}
# The rest: the model's words and indices, equal as they are.
EXACT = ("country", "tokens", "vocabulary", "country_slot", "query", "identity_dim", "top")


def printed(value, decimals: int, lang: str):
    """``value`` (a number, a list of them, a word -> number dict) as the page writes it."""
    if isinstance(value, dict):
        return {k: printed(v, decimals, lang) for k, v in value.items()}
    if isinstance(value, list):
        return [printed(v, decimals, lang) for v in value]
    return number(value, decimals, lang=lang)


def largest_difference(a, b) -> float:
    if isinstance(a, dict):
        return max(largest_difference(a[k], b[k]) for k in a)
    return float(np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float))))


def embedded_states() -> dict:
    """What the export embeds for this view: ``enable_client_side`` fills ``states``."""
    states: dict = {}
    assert CapitalView().enable_client_side(states) == 0
    return states


def load_twin(page) -> list[str]:
    """A blank page with the embedded constants, c04.js and capital.js; returns its errors."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.set_content(twin_html("capital.js", states=embedded_states()))
    return errors


WALKTHROUGH_JS = """(states) => {
  const K = C04.embedded("capital", ["constants"]).constants;
  return states.map(([country, identity]) => C04.views.capital.walkthrough(K, country, identity));
}"""


def test_constants_are_the_models(panel_cleanup):
    embedded = embedded_states()["capital"]["constants"]
    assert embedded == constants()
    model = CapitalWalkthrough()
    assert embedded["vocabulary"] == model.vocabulary
    assert embedded["countries"] == COUNTRIES
    sentence = list(model.tokens)
    sentence[3] = None
    assert embedded["sentence"] == sentence
    for name, weights in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V), ("U", U)):
        assert embedded[name] == weights.tolist(), name
    # The embeddings at identity 0: the model's, but for the identity's one entry.
    zero = np.asarray(embedded["embeddings_at_zero"])
    for identity in (0.9, -0.4):
        with_identity = zero.copy()
        with_identity[embedded["country_slot"], embedded["identity_dim"]] = identity
        np.testing.assert_array_equal(
            with_identity, CapitalWalkthrough(identity=identity).embeddings
        )


def test_walkthrough_shows_what_python_sends(page):
    errors = load_twin(page)
    states = [(country, identity) for identity in identities() for country in COUNTRIES]
    results = page.evaluate(WALKTHROUGH_JS, [list(s) for s in states])
    largest = 0.0
    ties = 0
    for (country, identity), js in zip(states, results, strict=True):
        model = CapitalWalkthrough(country=country, identity=identity)
        python = json.loads(json.dumps(numbers(model)))  # as the page receives it
        where = (country, identity)
        assert set(js) == set(python) == set(DECIMALS) | set(EXACT), where
        for name in EXACT:
            assert js[name] == python[name], (where, name)
        for lang in ("es", "en"):
            for name, decimals in DECIMALS.items():
                assert printed(js[name], decimals, lang) == printed(python[name], decimals, lang), (
                    where,
                    lang,
                    name,
                )
        largest = max(largest, *(largest_difference(js[k], python[k]) for k in DECIMALS))
        ties += len(python["top"]) > 1
    # The tie at identity 0 (and −0) is a tie in both, for both countries.
    assert ties == 4
    print(f"\n{len(states)} estados: máx |JS − Python| = {largest:.3g}")
    assert errors == []


# readState with stand-ins for the Board's controls ({name, value}, board.js) and for the Board
# (its specs): a new country sets its identity and moves the identity control (as
# CapitalWalkthrough does, and the live view's spec); the identity alone changes only itself.
READ_STATE_JS = """(specs) => {
  const w_country = {name: "country", value: "Italia"};
  const w_identity = {name: "identity", value: 0.9};
  const board = {data: {specs_json: JSON.stringify(specs)}};
  const args = {w_country, w_identity, board, trigger: w_country};
  const byCountry = C04.views.capital.readState(args);
  const control = JSON.parse(board.data.specs_json);
  w_identity.value = -0.25;
  args.trigger = w_identity;
  const byIdentity = C04.views.capital.readState(args);
  const after = JSON.parse(board.data.specs_json);
  return {byCountry, control, byIdentity, after};
}"""


def test_read_state_follows_the_model(page, panel_cleanup):
    load_twin(page)
    view = CapitalView()
    got = page.evaluate(READ_STATE_JS, view.board.specs)
    model = CapitalWalkthrough()
    model.country = "Italia"
    by_country = got["byCountry"]
    assert (by_country["country"], by_country["identity"]) == ("Italia", model.identity)
    assert by_country["top"] == ["Roma"] == [model.prediction]
    # The identity control's spec is the live view's for that model (only its value moved).
    view.model.country = "Italia"
    assert got["control"]["identity"] == view.board.specs["identity"]
    assert got["after"] == got["control"]  # the control used is not written back
    model.identity = -0.25
    by_identity = got["byIdentity"]
    assert (by_identity["country"], by_identity["identity"]) == (model.country, model.identity)
    assert number(by_identity["probability"], 4) == number(model.probability, 4)
