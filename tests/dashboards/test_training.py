"""dashboards.demos.training: the training section's numbers and their drawing, its trainer and
its export."""

from __future__ import annotations

import json
import logging
import threading
import time

import numpy as np
import param
import pytest
from bokeh.models import ColumnDataSource, Plot

from attnmodel.formatting import es_number
from attnmodel.i18n import languages, text
from attnmodel.training import DEFAULT_STEPS, FACTS, HELD_OUT, TRAINING_COUNTRIES, TrainingDemo
from dashboards.components.markup import md_html
from dashboards.demos import training
from dashboards.demos.training import Trainer, TrainingView, numbers, state_key

from c04_testing import (
    assert_training_shows,
    board_labels,
    control_value,
    json_leaves,
    label_text,
    one_refusal,
    use,
)
from c04_views import drawn

# The slots training.js draws from the board's state.
FIGURES = {
    "readouts",
    *(f"head_{h}" for h in range(training.N_HEADS)),
    "roles",
    "top",
    "held_out",
    "comparison",
    "announce",
    "probability_bars",
    "loss_chart",
}


def shown(view: TrainingView, name: str) -> dict:
    """Slot ``name`` as the browser draws it (training.js, run by tests/c04_views.py)."""
    return drawn(view.board, view.lang)[name]


@pytest.mark.parametrize("lang", languages())
def test_the_drawing_fills_every_figure_of_the_board(lang):
    view = TrainingView(lang=lang)
    assert view.board.view == "training"
    specs = drawn(view.board, lang)
    assert set(view.board.kinds) >= FIGURES
    assert set(specs) >= FIGURES
    assert not FIGURES & set(view.board.specs)  # the figures cross as numbers only


@pytest.mark.parametrize("lang", ["es", "en"])
@pytest.mark.parametrize(
    ("step", "country"),
    [
        (DEFAULT_STEPS, "Francia"),
        (0, "Francia"),
        (35, "Japón"),
        (120, HELD_OUT[1]),
        (DEFAULT_STEPS, HELD_OUT[0]),
    ],
)
def test_every_text_and_number_shown_is_the_models(lang, step, country):
    """Every slot training.js draws, against the model's numbers and the catalogue's words
    computed in the test (c04_testing.assert_training_shows)."""
    view = TrainingView(lang=lang)
    view.model.param.update(step=step, country=country)
    assert_training_shows(drawn(view.board, lang), TrainingDemo(step=step, country=country), lang)


def test_the_numbers_are_plain_data_without_text():
    """What crosses: numbers, the model's own words, no catalogue text, no formatted number."""
    state = numbers(TrainingDemo(step=50, country="Italia"))
    assert json.loads(json.dumps(state)) == state
    words = {
        *FACTS,
        *FACTS.values(),
        *training.ROLES,
        training.PROBE,
        *TrainingDemo().run.vocabulary,
    }

    for leaf in json_leaves(state):
        if isinstance(leaf, str):
            assert leaf in words or leaf in state, leaf
        else:
            assert type(leaf) in (int, float), leaf
    assert state["step"] == 50
    assert state["country"] == "Italia"
    assert state["loss"] == round(TrainingDemo(step=50).loss, 4)


def test_the_readouts_are_the_models_numbers_and_follow_the_slider():
    view = TrainingView()
    model = view.model
    for step in (0, 50, DEFAULT_STEPS):
        model.step = step
        items = {i["testid"]: i["value"] for i in shown(view, "readouts")["items"]}
        assert items["training-step"] == str(step)
        assert items["training-loss"] == view.num(model.loss_curve[step], 4)
        assert items["training-probability"] == view.num(model.capital_probability, 4)
        assert items["training-prediction"] == model.prediction
        chart = shown(view, "loss_chart")
        [marker] = chart["points"]
        assert (marker["x"], marker["y"]) == (step, round(float(model.loss_curve[step]), 4))
        assert marker["tip"] == [
            [text("training.chart.step"), str(step)],
            ["nats", items["training-loss"]],
        ]
    # The loss curve is the run's, from step 0, 4 decimals.
    [curve] = chart["series"]
    assert len(curve["y"]) == DEFAULT_STEPS + 1
    np.testing.assert_allclose(curve["y"], model.loss_curve, atol=5e-5)
    assert chart["x"]["max"] == DEFAULT_STEPS


def test_a_held_out_country_says_what_the_model_predicts():
    view = TrainingView()
    view.model.country = HELD_OUT[1]
    model = TrainingDemo(country=HELD_OUT[1])
    note = label_text(shown(view, "held_out")["text"])
    assert model.prediction in note
    assert FACTS[HELD_OUT[1]] in note
    assert "training.held_out" not in note
    view.model.country = "Francia"
    trained = label_text(shown(view, "held_out")["text"])
    assert HELD_OUT[0] in trained  # the trained fact names the held-out countries


# The next-word bars' colours: the country's capital in the first category colour, the rest grey.
RIGHT_BLUE = "#0072b2"
WRONG_GREY = "#b8c2cf"
CAPITAL_WORDS = [
    "París", "Roma", "Madrid", "Berlín", "Lisboa", "Atenas", "Lima",
    "Santiago", "Tokio", "Bogotá", "Oslo", "Viena", "Estocolmo", "Nairobi",
]  # fmt: skip


def test_the_bars_hold_every_capital_and_the_rest():
    """A row per capital (the facts' order) and one for every other word ("…"): its probability
    with 4 decimals, a bar on the 0–1 scale (width in %) in the row's colour."""
    view = TrainingView()
    view.model.param.update(country="Italia", step=100)
    model = TrainingDemo(country="Italia", step=100)
    spec = shown(view, "probability_bars")
    assert spec["testid"] == "training-probability-bars"
    rows = spec["rows"]
    assert [label_text(r["label"]) for r in rows] == [*CAPITAL_WORDS, "…"]
    assert list(FACTS.values()) == CAPITAL_WORDS
    p = [model.probabilities[w] for w in CAPITAL_WORDS]
    rest = 1.0 - sum(p)
    assert [r["value"] for r in rows[:-1]] == [es_number(x, 4) for x in p]
    # The rest is 1 − the sum of the 4-decimal capitals: within 14 half units of the 4th decimal.
    assert float(rows[-1]["value"].replace(",", ".")) == pytest.approx(rest, abs=7.1e-4)
    # Widths: p in % of the bar (0–1 scale), from the numbers' 4 decimals (each within
    # 0.005 %, the rest within 14 × 0.005 %).
    widths = [r["width"] for r in rows]
    np.testing.assert_allclose(widths[:-1], [100 * x for x in p], atol=0.0051, rtol=0)
    assert widths[-1] == pytest.approx(100 * rest, abs=0.071)
    assert widths[1] == pytest.approx(100 * model.capital_probability, abs=0.0051)  # Roma
    assert sum(widths) == pytest.approx(100.0, abs=1e-9)
    assert [r["color"] for r in rows] == [WRONG_GREY, RIGHT_BLUE] + [WRONG_GREY] * 13
    assert (spec["corner"], spec["head"]) == (
        "palabra siguiente (… = todas las demás)",
        "probabilidad",
    )


def test_the_bars_follow_the_country_and_the_step():
    view = TrainingView()
    for step, country in ((0, "Francia"), (DEFAULT_STEPS, "Francia"), (DEFAULT_STEPS, "Japón")):
        view.model.param.update(step=step, country=country)
        expected = TrainingDemo(step=step, country=country)
        rows = shown(view, "probability_bars")["rows"]
        widths = [r["width"] for r in rows]
        np.testing.assert_allclose(
            widths[:-1], [100 * expected.probabilities[w] for w in CAPITAL_WORDS], atol=0.0051
        )
        right = CAPITAL_WORDS.index(FACTS[country])
        colors = [r["color"] for r in rows]
        assert colors[right] == RIGHT_BLUE
        assert colors.count(RIGHT_BLUE) == 1
    # Trained: Tokio takes nearly the whole bar; the rest of the vocabulary almost nothing.
    assert widths[CAPITAL_WORDS.index("Tokio")] > 90
    assert widths[-1] < 5


def test_the_bars_are_markup_not_a_bokeh_figure():
    """The next-word bars are a table drawn by markup.js, after the roles' caption, where the
    figure was; the loss curve is SVG drawn by markup.js too: no Bokeh figure is left."""
    view = TrainingView()
    assert view.board.kinds["probability_bars"] == "bars"
    assert view.board.kinds["loss_chart"] == "lines"
    # In the Board, right after the roles' caption.
    layout = view.board.layout
    at = [i for i, node in enumerate(layout) if node.get("slot") == "probability_bars"]
    assert at == [8]
    caption = text("training.roles_caption", countries=len(TRAINING_COUNTRIES))
    assert layout[7] == {"html": md_html(caption), "css": "c04-note"}
    assert layout[6] == {
        "row": [{"slot": "roles", "kind": "matrix"}, {"slot": "top", "kind": "matrix"}]
    }
    assert layout[9]["slot"] == "held_out"
    root = view.__panel__().get_root()
    assert [m for m in root.references() if isinstance(m, Plot | ColumnDataSource)] == []
    chart = shown(view, "loss_chart")
    assert chart["testid"] == "training-loss-chart"
    assert chart["aria"] == text("a11y.plot.training_loss")


def test_english_bars_keep_the_capitals_spanish_and_write_a_decimal_point():
    english, spanish = TrainingView(lang="en"), TrainingView()
    for view in (english, spanish):
        view.model.param.update(country="Italia", step=100)
    model = TrainingDemo(country="Italia", step=100)
    spec = shown(english, "probability_bars")
    rows = spec["rows"]
    assert [r["label"] for r in rows] == [{"text": w, "lang": "es"} for w in CAPITAL_WORDS] + ["…"]
    p = [model.probabilities[w] for w in CAPITAL_WORDS]
    assert [r["value"] for r in rows[:-1]] == [f"{x:.4f}" for x in p]
    assert (spec["corner"], spec["head"]) == ("next word (… = all the others)", "probability")
    spanish_rows = shown(spanish, "probability_bars")["rows"]
    assert [r["width"] for r in rows] == [r["width"] for r in spanish_rows]
    assert [r["color"] for r in rows] == [r["color"] for r in spanish_rows]


def test_the_export_embeds_every_checkpoint_of_every_country_under_1_mb():
    view = TrainingView()
    assert view.export_note.object == ""  # shown only in the export
    states: dict = {}
    count = view.enable_client_side(states)
    table = states["training"]["states"]
    assert count == len(table) == len(FACTS) * (DEFAULT_STEPS // 5 + 1)
    assert state_key(DEFAULT_STEPS, "Francia") in table
    assert len(json.dumps(states["training"], ensure_ascii=False).encode()) < 1_000_000
    # The run's numbers once, each checkpoint's in the table: together a state's numbers.
    assert {**states["training"]["run"], **table[state_key(DEFAULT_STEPS, "Francia")]} == (
        numbers(view.model)
    )
    note = view.export_note.object
    assert 'data-testid="training-export-note"' in note
    assert text("training.export_note", seed=view.model.seed) in note
    # The seed's controls are disabled, the box on the seed shown and nothing else; the step
    # and the country run the browser's readState (board.js: C04.update("training", …)).
    assert view.seed_control.spec == {
        "value": view.model.seed,
        "start": view.model.seed,
        "end": view.model.seed,
        "step": 1,
        "disabled": True,
    }
    assert view.retrain_control.spec == {"disabled": True}
    assert not view.step_control.spec.get("disabled")
    assert not view.country_control.spec.get("disabled")
    offline = view.board.offline
    assert offline["demo"] == "training"
    assert offline["kinds"] == {}
    assert offline["extra"] == {}
    # A forged click there trains nothing.
    use(view, "retrain")
    assert view.model.seed == 0


class _SlowRuns:
    """trained_run stand-in: each seed waits for its release, reporting progress."""

    def __init__(self):
        self.release = {s: threading.Event() for s in (101, 102)}
        self.trained: set[int] = set()

    def trained_run(self, seed, progress=None):
        progress(7, DEFAULT_STEPS)
        self.release[seed].wait(10)
        self.trained.add(seed)

    def is_trained(self, seed):
        return seed in self.trained


def _wait_for(trainer, seed, state, timeout=10.0):
    deadline = time.monotonic() + timeout
    while trainer.status(seed)[0] != state:
        assert time.monotonic() < deadline, trainer.status(seed)
        time.sleep(0.01)
    return trainer.status(seed)


def test_the_trainer_trains_one_seed_at_a_time_and_queues_the_rest(monkeypatch):
    runs = _SlowRuns()
    monkeypatch.setattr(training, "trained_run", runs.trained_run)
    monkeypatch.setattr(training, "is_trained", runs.is_trained)
    trainer = Trainer()
    trainer.request(101)
    trainer.request(102)
    trainer.request(101)  # asked again while training: not queued twice
    assert _wait_for(trainer, 101, "training") == ("training", 7, DEFAULT_STEPS)
    assert trainer.status(102) == ("queued", 1, DEFAULT_STEPS)  # one training ahead
    runs.release[101].set()
    _wait_for(trainer, 101, "trained")
    assert _wait_for(trainer, 102, "training")[1] == 7
    runs.release[102].set()
    _wait_for(trainer, 102, "trained")


def test_a_training_that_fails_is_said_not_raised(monkeypatch):
    def broken(seed, progress=None):
        raise MemoryError

    monkeypatch.setattr(training, "trained_run", broken)
    monkeypatch.setattr(training, "is_trained", lambda seed: False)
    trainer = Trainer()
    trainer.request(103)
    _wait_for(trainer, 103, "failed")


def test_a_failed_training_leaves_the_page_on_the_run_it_shows(monkeypatch):
    view = TrainingView()
    monkeypatch.setattr(training.TRAINER, "status", lambda seed: ("failed", 0, DEFAULT_STEPS))
    with param.parameterized.discard_events(view.model):
        view.model.seed = 5  # asked, never trained
    view._busy = True
    view._waiting()
    assert view.model.seed == 0
    assert not view.retrain_control.spec.get("disabled")
    assert view.progress.object == ""
    assert view.status.spec["text"] == text("training.failed", seed=5)
    view.model.step = 100  # the controls still work
    assert shown(view, "loss_chart")["points"][0]["x"] == 100


def test_train_again_takes_the_next_seed_or_the_typed_one(monkeypatch):
    asked = []  # the seeds the view was asked to show (no training here)
    monkeypatch.setattr(TrainingView, "_on_seed", lambda self, *_: asked.append(self.model.seed))
    view = TrainingView()
    use(view, "retrain")
    assert asked[-1] == 1  # the box held the seed shown: the next one
    assert control_value(view.seed_control) == 1
    use(view, "seed", None)  # an empty box: refused, the box's last seed (the one shown) kept
    use(view, "retrain")
    assert asked[-1] == 2
    use(view, "seed", 7)  # a seed typed: that one
    assert asked[-1] == 2  # typing trains nothing
    use(view, "retrain")
    assert asked[-1] == 7
    high = TrainingDemo.param.seed.bounds[1]
    use(view, "seed", high + 50)  # beyond the bounds: refused, the last valid kept
    assert control_value(view.seed_control) == 7
    use(view, "seed", high)  # the last seed: then, the next is the first
    use(view, "retrain")
    assert asked[-1] == high
    use(view, "retrain")
    assert asked[-1] == 0


def test_the_controls_follow_the_model_and_reach_it():
    view = TrainingView()
    model = view.model
    labels = board_labels(view.board)
    assert labels == {
        "step": text("training.step"),
        "country": text("training.country"),
        "seed": text("training.seed"),
        "retrain": text("training.retrain"),
    }
    assert view.__panel__() is view.board  # the header, the controls, the figures: one Board
    assert view.step_control.spec == {
        "value": DEFAULT_STEPS,
        "start": 0,
        "end": DEFAULT_STEPS,
        "step": 5,
        "decimals": 0,
        "decimal": ",",
    }
    # The countries by their names in the page's language, the held-out ones said so.
    options = dict(view.country_control.spec["options"])
    assert list(options) == list(FACTS)
    assert options[HELD_OUT[0]] == text("training.country_held_out", country=HELD_OUT[0])
    assert options["Francia"] == "Francia"
    use(view, "step", 50)
    use(view, "country", "Italia")
    assert (model.step, model.country) == (50, "Italia")
    assert (control_value(view.step_control), control_value(view.country_control)) == (
        50,
        "Italia",
    )
    items = {i["testid"]: i["value"] for i in shown(view, "readouts")["items"]}
    assert items["training-step"] == "50"
    model.param.update(step=100, country="Japón")  # a link, the class: the controls follow
    assert (control_value(view.step_control), control_value(view.country_control)) == (
        100,
        "Japón",
    )
    english = dict(TrainingView(lang="en").country_control.spec["options"])
    assert english["Francia"] == text("training.country_name.Francia", "en") == "France"


@pytest.mark.parametrize(
    "message",
    [
        {"control": "step", "value": 7},  # not a checkpoint
        {"control": "step", "value": DEFAULT_STEPS + 5},
        {"control": "step", "value": -5},
        {"control": "step", "value": "50"},
        {"control": "step", "value": None},
        {"control": "step", "value": True},
        {"control": "country", "value": "Atlántida"},
        {"control": "country", "value": None},
        {"control": "country", "value": ["Italia"]},
        {"control": "seed", "value": None},
        {"control": "seed", "value": 2.5},
        {"control": "seed", "value": "3"},
        {"control": "seed", "value": True},
        {"control": "seed", "value": 1e30},
        {"control": "seed", "value": 10**30},
        {"control": "seed", "value": -1},
        {"control": "seed", "value": 10_000},
        {"control": "retrain", "value": 1},
        {"control": "retrain", "value": None},
        {"control": "seed"},
        {"control": "d_k", "value": 2},
        {"value": 50},
        None,
    ],
)
def test_a_forged_control_message_is_refused_and_the_state_kept(message, caplog):
    """What no page sends (a step that is no checkpoint, a country the model does not know, a
    seed that is no integer, a value for the button) is one INFO line; everything stays."""
    view = TrainingView()
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    before = view.board.specs_json
    view.board.receive(message)
    assert (view.model.seed, view.model.step, view.model.country) == (0, DEFAULT_STEPS, "Francia")
    assert view._typed_seed == 0
    assert view.board.specs_json == before
    one_refusal(caplog)


def test_a_click_while_a_seed_trains_is_refused(monkeypatch, caplog):
    view = TrainingView()
    monkeypatch.setattr(training.TRAINER, "status", lambda seed: ("training", 40, DEFAULT_STEPS))
    with param.parameterized.discard_events(view.model):
        view.model.seed = 5
    view._waiting()  # what the session's poll does: the bar, the status, the button waits
    assert view.retrain_control.spec == {"disabled": True}
    assert 'value="40"' in view.progress.object
    assert 'data-testid="training-progress"' in view.progress.object
    said = text("training.training", seed=5, done=40, steps=DEFAULT_STEPS)
    assert view.status.spec == {"testid": "training-status", "text": said}
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    use(view, "retrain")
    assert view.model.seed == 5
    one_refusal(caplog)


def test_the_hand_built_side_is_the_models():
    hand = TrainingDemo().comparison
    state = numbers(TrainingDemo())
    keys = ("cosine_hand", "share_hand", "concentration_hand")
    assert state["hand"] == pytest.approx([hand[k] for k in keys], abs=5e-5)
    assert state["cells"] == hand["cells"]
