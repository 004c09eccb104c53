"""Demo 6 (¿De dónde salen W_Q y W_K?): the browser twin C04.views.training against Python.

The export embeds the default run's compact state at every checkpoint × probe country
(dashboards.demos.training.client_state, under "training" in #c04-states, with the hand-built
comparison and the module's constants); C04.views.training (dashboards/static/demos/training.js)
rebuilds ``render_state(state, run, lang)`` from them. Checked here, in a blank page built by the
export's own code: that rebuild for every embedded state on a Spanish page and for a few on an
English one (the model's words marked as Spanish there), its keys, and readState on the
slider's and the select's values.
"""

from __future__ import annotations

import functools
import json

import pytest
from playwright.sync_api import expect

from attnmodel.formatting import number
from attnmodel.i18n import text
from attnmodel.training import DEFAULT_STEPS, HELD_OUT, TrainingDemo
from dashboards.demos.training import (
    TrainingView,
    client_state,
    render_state,
    run_state,
    state_key,
)

from c04_testing import (
    TIMER_JS,
    assert_lines_drawn,
    assert_twin_equal,
    chart,
    expect_training,
    format_times,
    press_slider,
    twin_html,
    update_times,
)

pytestmark = pytest.mark.ui

# English: a few states, among them both held-out countries, step 0, the last step and one whose
# head does not yet look mostly at the country ("training.compare.unalike": step 0).
EN_CASES = [
    (0, "Francia"),
    (DEFAULT_STEPS, "Francia"),
    (DEFAULT_STEPS, HELD_OUT[0]),
    (120, HELD_OUT[1]),
    (0, HELD_OUT[1]),
    (60, "Japón"),
]

# As one JSON text: Playwright hands back 574 renders as objects in ~10 s, as text in 0.3 s
# (JSON.stringify writes each double's shortest repr: json.loads reads back the same float).
RENDER_JS = """(cases) => JSON.stringify(cases.map(([step, country]) => {
  const state = {step, country};
  return [C04.views.training.key(state), C04.views.training.render(state)];
}))"""


@functools.cache  # one export's states per language for the module's tests (read, not changed)
def embedded_states(lang: str) -> dict:
    states: dict = {}
    count = TrainingView(lang=lang).enable_client_side(states)
    assert count == len(states["training"]["states"])
    return states


def open_twin(page, states: dict, lang: str) -> list[str]:
    """A blank page with the embedded states, the ``lang`` catalogue and the twin; the page's
    errors, collected from now on."""
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.set_content(twin_html("training.js", states=states, lang=lang))
    return errors


@pytest.mark.parametrize("lang", ["es", "en"])
def test_twin_rebuilds_every_embedded_state(page, lang):
    states = embedded_states(lang)
    table = states["training"]["states"]
    cases = [(s["step"], s["country"]) for s in table.values()]
    if lang != "es":
        cases = EN_CASES
    else:
        assert {c for _, c in cases} >= set(HELD_OUT)
        assert {0, DEFAULT_STEPS} <= {s for s, _ in cases}
    errors = open_twin(page, states, lang)
    rendered = json.loads(page.evaluate(RENDER_JS, [list(c) for c in cases]))
    assert len(rendered) == len(cases)
    for (step, country), (key, js) in zip(cases, rendered, strict=True):
        assert key == state_key(step, country)
        python = render_state(table[key], states["training"]["run"], lang)
        where = f"{lang} {key}"
        assert list(js) == list(python), where
        # Exact: the same strings, and the same floats (the state's own, or 1 − their sum).
        if js != python:
            assert_twin_equal(python, js, where, tol=0.0)  # where they differ
            pytest.fail(f"{where}: {js!r} != {python!r}")
    if lang != "es":  # the model's words are marked as Spanish on an English page
        js = dict(rendered)[state_key(DEFAULT_STEPS, HELD_OUT[0])]
        assert js["readouts"]["items"][3]["value"]["lang"] == "es"
        assert js["head_0"]["cols"][0] == {"text": "La", "lang": "es"}
        # The next-word bars: the capitals marked, "…" not a word, the headers in English.
        bars = js["probability_bars"]
        assert bars["rows"][0]["label"] == {"text": "París", "lang": "es"}
        assert bars["rows"][-1]["label"] == "…"
        assert (bars["corner"], bars["head"]) == ("next word (… = all the others)", "probability")
    assert errors == []


def test_read_state(page):
    states = embedded_states("es")
    errors = open_twin(page, states, "es")
    args = {"w_step": {"value": 120}, "w_country": {"value": "Kenia"}}
    assert page.evaluate("(args) => C04.views.training.readState(args)", args) == {
        "step": 120,
        "country": "Kenia",
    }
    # What it reads is a state the export embeds, and renders as Python does.
    view = "C04.views.training"
    key = page.evaluate(f"(args) => {view}.key({view}.readState(args))", args)
    assert key == state_key(120, "Kenia")
    assert key in states["training"]["states"]
    js = page.evaluate(f"(args) => {view}.render({view}.readState(args))", args)
    training = states["training"]
    assert js == render_state(training["states"][key], training["run"], "es")
    assert errors == []


# -- the exported page (dist/entrenamiento.html), offline --------------------------------------

FILE, SECTION = "entrenamiento.html", "entrenamiento"
# The same moves in order: (what, argument, the (step, country) shown afterwards).
MOVES = [
    ("slider", "Home", (0, "Francia")),
    ("slider", "ArrowRight", (5, "Francia")),
    ("slider", "ArrowRight", (10, "Francia")),
    ("country", HELD_OUT[1], (10, HELD_OUT[1])),
    ("slider", "End", (DEFAULT_STEPS, HELD_OUT[1])),
    ("slider", "ArrowLeft", (DEFAULT_STEPS - 5, HELD_OUT[1])),
    ("country", "Japón", (DEFAULT_STEPS - 5, "Japón")),
]


def expect_state(page, model: TrainingDemo, timeout: float = 15.0) -> None:
    """Wait until the page shows Python's ``render_state`` of the model's state."""
    expect_training(
        page,
        render_state(client_state(model), run_state(model), "es"),
        (model.step, model.country),
        timeout,
    )


def test_exported_section_offline(page, offline, open_export):
    open_export(FILE, SECTION)
    model = TrainingDemo()
    # The note says training needs the server; the seed's controls are disabled.
    note = page.locator('[data-testid="training-export-note"]')
    expect(note).to_be_visible()
    expect(note).to_have_text(text("training.export_note", seed=model.seed))
    seed_input = page.get_by_role("spinbutton", name=text("training.seed"))
    expect(seed_input).to_be_disabled()
    expect(seed_input).to_have_value(str(model.seed))
    expect(page.get_by_role("button", name=text("training.retrain"))).to_be_disabled()
    expect(page.locator('[data-testid="training-status"]')).to_have_text(
        text("training.shown", seed=model.seed, steps=DEFAULT_STEPS)
    )
    expect(page.locator("progress")).to_be_hidden()

    # The defaults, the run's loss curve; then every move recomputed in the browser.
    expect_state(page, model)
    loss = run_state(model)["loss"]
    assert_lines_drawn(chart(page, "training-loss-chart"), [loss], "export")
    page.evaluate(TIMER_JS)
    step_label = text("training.step")
    country_select = page.get_by_role("combobox", name=text("training.country"))
    for what, arg, (step, country) in MOVES:
        if what == "slider":
            press_slider(page, step_label, arg)
        else:
            label = text("training.country_held_out", country=arg) if arg in HELD_OUT else arg
            country_select.select_option(label=label)
        model.param.update(step=step, country=country)
        expect_state(page, model)
        if country in HELD_OUT:  # the held-out note: the model's guess and p(capital)
            held = page.locator('[data-testid="training-held-out"]')
            expect(held).to_contain_text(model.prediction)
            p = number(model.capital_probability, 4)
            expect(held).to_contain_text(f"p({model.capital}) = {p}")
    # The loss curve is the run's: it does not move with the step or the country.
    assert_lines_drawn(chart(page, "training-loss-chart"), [loss], "export, after the moves")
    times = update_times(page, "training")
    assert len(times) == len(MOVES)
    print("\nentrenamiento, ms por cambio (C04.update / hasta pintar): " + format_times(times))
    assert offline.external == []
    assert offline.console_errors == []
