"""Demo 6 (¿De dónde salen W_Q y W_K?): the export's tables and C04.views.training.

The export embeds the default run's numbers (dashboards.demos.training.numbers) at every
checkpoint × probe country, under "training" in #c04-states: the run's part once ("run"), each
checkpoint's by "<step>|<country>" ("states"); C04.views.training (dashboards/static/demos/
training.js) looks them up (readState) and draws them (render), the same code as the live page.
Checked here: that the shipped tables equal a freshly computed model at every state; that the
drawing of some states, read by readState from the slider's and the select's values in a blank
page built by the export's own code (Spanish and English: the model's words marked as Spanish
there), shows the texts and numbers computed in the test from the model and the catalogue; and
the exported section offline.
"""

from __future__ import annotations

import functools
import json

import pytest
from playwright.sync_api import expect

from attnmodel.formatting import number
from attnmodel.i18n import text
from attnmodel.training import DEFAULT_STEPS, FACTS, HELD_OUT, TrainingDemo
from dashboards.demos.training import TrainingView, numbers, state_key

from c04_testing import (
    TIMER_JS,
    assert_lines_drawn,
    assert_training_shows,
    by_testid,
    chart,
    drawn,
    expect_training,
    format_times,
    plain_markup,
    press_slider,
    twin_html,
    update_times,
)
from c04_views import js_views

pytestmark = pytest.mark.ui

# A few states, among them both held-out countries, step 0, the last step and one whose head
# does not yet look mostly at the country ("training.compare.unalike": step 0).
CASES = [
    (0, "Francia"),
    (DEFAULT_STEPS, "Francia"),
    (DEFAULT_STEPS, HELD_OUT[0]),
    (120, HELD_OUT[1]),
    (0, HELD_OUT[1]),
    (60, "Japón"),
]

# readState of each (step, country) as the controls send them, then render: as one JSON text.
READ_AND_RENDER_JS = """(cases) => JSON.stringify(cases.map(([step, country]) => {
  const state = C04.views.training.readState({w_step: {value: step}, w_country: {value: country}});
  return [state, C04.views.training.render(state)];
}))"""


@functools.cache  # one export's states per language for the module's tests (read, not changed)
def embedded_states(lang: str) -> dict:
    states: dict = {}
    count = TrainingView(lang=lang).enable_client_side(states)
    assert count == len(states["training"]["states"])
    return states


def test_the_shipped_tables_equal_the_model():
    """Every embedded state (the run's part and the checkpoint's) is the numbers of a model
    computed afresh at that step and country."""
    shipped = json.loads(json.dumps(embedded_states("es")))["training"]
    assert len(shipped["states"]) == len(FACTS) * (DEFAULT_STEPS // 5 + 1)
    model = TrainingDemo()
    for country in FACTS:
        for step in range(0, DEFAULT_STEPS + 1, 5):
            model.param.update(step=step, country=country)
            state = {**shipped["run"], **shipped["states"][state_key(step, country)]}
            assert state == json.loads(json.dumps(numbers.uncached(model))), (step, country)
    # The languages ship the same numbers.
    assert json.loads(json.dumps(embedded_states("en"))) == json.loads(
        json.dumps(embedded_states("es"))
    )


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_drawing_shows_the_models_numbers(page, lang):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.set_content(twin_html("training.js", states=embedded_states(lang), lang=lang))
    rendered = json.loads(page.evaluate(READ_AND_RENDER_JS, [list(c) for c in CASES]))
    for (step, country), (state, specs) in zip(CASES, rendered, strict=True):
        model = TrainingDemo(step=step, country=country)
        assert state["step"] == step
        assert state["country"] == country
        assert_training_shows(specs, model, lang)
        # Drawn by the page's markup.js: the notes read as the catalogue's texts.
        parsed = by_testid(*drawn(page, ("note", specs["held_out"]), ("note", specs["comparison"])))
        if country in HELD_OUT:
            p = number(model.capital_probability, 4, lang=lang)
            assert f"p({model.capital}) = {p}" in parsed.texts["training-held-out"]
        else:
            trained = text(
                "training.trained_fact", lang, country=country, held=" · ".join(HELD_OUT)
            )
            assert parsed.texts["training-held-out"] == plain_markup(trained)
    assert errors == []


def expected(model: TrainingDemo) -> dict:
    """What the section shows for ``model`` (Spanish): training.js's drawing of its numbers,
    checked first against the model and the catalogue."""
    specs = js_views("es").render("training", json.loads(json.dumps(numbers(model))))
    assert_training_shows(specs, model, "es")
    return specs


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
    """Wait until the page shows the model's state."""
    expect_training(page, expected(model), (model.step, model.country), timeout)


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
    loss = numbers(model)["loss_curve"]
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
