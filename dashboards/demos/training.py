"""Section 5 of the lecture: "¿De dónde salen W_Q y W_K?" — a tiny Transformer, trained.

Everything on screen comes from ``attnmodel.training.TrainingDemo``: the loss curve of one
training (seed, default settings), and at the chosen checkpoint the probe "La capital de <país>
es": each head's attention, the next-word probabilities, each head's measured role and the
comparison with the hand-built matrices of "La capital". Every word is in the catalogue, table
``[training]``; the model's words (the corpus is Spanish) stay Spanish on every page.

Live, a new seed trains in a thread (``Trainer``: one training at a time per process, a queue
beyond that) while the page shows the run it has and a progress bar; the session polls the
trainer, so nothing in the training thread touches a document. :func:`numbers` is the model's
numbers at the state shown; the browser draws them (``C04.views.training``,
dashboards/static/demos/training.js: every word from the catalogue, every number written as the
page's language writes it), live and in the export, which embeds the default run's numbers at
every checkpoint × probe country.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import panel as pn
import param

from attnmodel.training import (
    CHECKPOINT_EVERY,
    DEFAULT_STEPS,
    FACTS,
    HELD_OUT,
    N_HEADS,
    PROBE,
    ROLES,
    TRAINING_COUNTRIES,
    TrainingDemo,
    TrainingRun,
    hand_comparison,
    is_trained,
    trained_run,
)
from dashboards.components.board import Board, column, control, prose, row, slot
from dashboards.components.markup import esc, section_markdown
from dashboards.components.render import shared_render
from dashboards.components.style import CHART_CSS
from dashboards.components.views import DemoView
from dashboards.runtime import clients

EXAMPLE_LANG = "es"  # the corpus's language: its words stay Spanish on every page
DECIMALS = 4  # the numbers' rounding: the screen shows at most 4 decimals
POLL_MS = 200  # a waiting session reads the trainer's progress this often
# The comparison's box, as "La capital" draws its explanations; the training's progress bar.
BOX_CSS = """
.c04-box { border-left: 4px solid #d95f02; background: #fdf6f0; padding: 8px 14px; }
.c04-slot progress { width: 220px; max-width: 100%; height: 1.2em; accent-color: #174a87; }
"""


# -- the model's numbers: what the browser draws, live and in the export -------------------------


def _round(x) -> float | list:
    return np.round(np.asarray(x, dtype=float), DECIMALS).tolist()


def run_numbers(model: TrainingDemo) -> dict:
    """What every checkpoint of the run shares: the seed, the number of steps, the loss curve
    (one value per step, 0 … steps), the hand-built side of the comparison (``hand``: [cosine,
    share on the country, concentration], ``TrainingDemo.comparison``'s ``*_hand``) and the
    learned W_Q's cell count (``cells``), and the model's own words: ``facts`` (country ->
    capital, the bars' order), ``held_out``, ``roles`` (the heads' shares' order) and
    ``probe`` (the probe sentence, ``{country}`` in it)."""
    hand = hand_comparison()
    d_model = TrainingRun.param.d_model.default
    return {
        "seed": int(model.seed),
        "steps": DEFAULT_STEPS,
        "loss_curve": _round(model.loss_curve),
        "hand": _round([hand["cosine_hand"], hand["share_hand"], hand["concentration_hand"]]),
        "cells": d_model * (d_model // N_HEADS),
        "facts": dict(FACTS),
        "held_out": list(HELD_OUT),
        "roles": list(ROLES),
        "probe": PROBE,
    }


def checkpoint_numbers(model: TrainingDemo) -> dict:
    """The numbers at (step, country), compact (the export embeds 41 steps × 14 countries).

    ``loss`` (nats, the run's at ``step``); ``attention``: each head's rows, row i its i + 1
    weights on the earlier tokens (causal: the rest is 0); ``capitals``: p of each capital
    (``facts``' order); ``top``: the five likeliest next words with p; ``heads``: each head's
    shares (``roles``' order); ``comparison``: [country head, learned cosine, learned share on
    the country, learned concentration]."""
    probabilities = model.probabilities
    ranked = sorted(probabilities, key=lambda w: -probabilities[w])
    c = model.comparison
    return {
        "step": int(model.step),
        "country": model.country,
        "loss": _round(model.loss),
        "attention": [[_round(row[: i + 1]) for i, row in enumerate(a)] for a in model.attention],
        "capitals": _round([probabilities[w] for w in FACTS.values()]),
        "top": [[w, _round(probabilities[w])] for w in ranked[:5]],
        "heads": [[_round(h[r]) for r in ROLES] for h in model.heads],
        "comparison": [
            int(c["head"]),
            _round(c["cosine_learned"]),
            _round(c["share_learned"]),
            _round(c["concentration_learned"]),
        ],
    }


@shared_render
def numbers(model: TrainingDemo, lang: str = "") -> dict[str, object]:
    """What training.js draws, the model's numbers at (seed, step, country): ``run_numbers``
    and ``checkpoint_numbers`` in one dict, every float rounded to ``DECIMALS`` (the screen
    shows at most that many). No text: the browser writes every word in the page's language
    (the model's words, its corpus being Spanish, stay Spanish). Trains the seed first if it
    must: the live view calls it only once the seed is trained. ``lang`` is not used: the
    shared cache's key has it."""
    return {**run_numbers(model), **checkpoint_numbers(model)}


def state_key(step: int, country: str) -> str:
    """Key of an embedded checkpoint; dashboards/static/demos/training.js builds the same."""
    return f"{int(step)}|{country}"


# -- one training at a time per process ------------------------------------------------------


class Trainer:
    """Trains seeds in one background thread, in the order asked; sessions poll ``status``.

    A seed asked while it is queued or training is not queued again: every session waiting for
    it sees the same progress."""

    def __init__(self):
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="c04-training")
        self._lock = threading.Lock()
        self._queue: OrderedDict[int, tuple[int, int]] = OrderedDict()  # seed -> (done, steps)
        self._failed: dict[int, str] = {}

    def request(self, seed: int) -> None:
        """Train ``seed`` unless it is trained, queued or training."""
        if is_trained(seed):
            return
        with self._lock:
            if seed in self._queue:
                return
            self._queue[seed] = (0, DEFAULT_STEPS)
            self._failed.pop(seed, None)
        self._executor.submit(self._train, seed)

    def _train(self, seed: int) -> None:
        def progress(done: int, steps: int) -> None:
            with self._lock:
                self._queue[seed] = (done, steps)

        try:
            trained_run(seed, progress)
        except Exception as exc:
            with self._lock:
                self._failed[seed] = repr(exc)
        finally:
            with self._lock:
                self._queue.pop(seed, None)

    def status(self, seed: int) -> tuple[str, int, int]:
        """("trained" | "training" | "queued" | "failed", done or how many ahead, steps)."""
        if is_trained(seed):
            return ("trained", DEFAULT_STEPS, DEFAULT_STEPS)
        with self._lock:
            if seed in self._failed:
                return ("failed", 0, DEFAULT_STEPS)
            if seed not in self._queue:
                return ("failed", 0, DEFAULT_STEPS)
            ahead = list(self._queue).index(seed)
            done, steps = self._queue[seed]
        if ahead == 0:
            return ("training", done, steps)
        return ("queued", ahead, steps)


TRAINER = Trainer()


def progress_html(done: int, steps: int, said: str) -> str:
    """The progress bar of a training under way (a native <progress>), named by the status
    line's text for a screen reader."""
    return (
        f'<progress data-testid="training-progress" max="{int(steps)}" value="{int(done)}"'
        f' aria-label="{esc(said)}"></progress>'
    )


class TrainingView(DemoView):
    """The training section: a checkpoint slider, the loss curve with its marker, each head's
    attention on the probe, the next-word bars, the heads' measured roles, the comparison with
    "La capital" and "Entrenar de nuevo".

    Everything is one Board: the header, the native controls (board.js) and the figures.
    Controls: "Paso de entrenamiento" (a range over the checkpoints: ``model.step``), "País de
    la frase" (a select: ``model.country``), "Semilla" (a number box: the seed to train, kept by
    the view: an integer within the seed's bounds) and "Entrenar de nuevo" (a button: trains
    the seed in the box, or the next one when the box holds the seed shown; the model's seed
    changes when its run is ready). A control's use reaches ``_on_control`` (Board.receive):
    the step and the country go through the model's own checks (``clients.take``), the seed
    through the view's, a click only while the button is enabled; a refusal is one INFO line
    and the last valid state stays. The progress bar (a native <progress>) and the status line
    are slots beside the button.

    data-testids: ``training-step``, ``training-loss``, ``training-probability``,
    ``training-prediction`` (readouts), ``training-head-<n>`` (attention tables),
    ``training-roles``, ``training-top``, ``training-held-out``, ``training-comparison``,
    ``training-status`` (the seed shown, or the training under way; a slot beside the button,
    with ``training-progress``, the progress bar while a seed trains),
    ``training-probability-bars`` (the next-word bars: a table drawn by ``C04.markup.bars``, a
    row per capital and one for every other word, its probability with 4 decimals and a bar on
    the 0–1 scale in the row's colour), ``training-loss-chart`` (the run's loss curve and the
    step's marker, SVG drawn by ``C04.markup.lines``; the marker's tooltip says the step and
    the loss). No canvas, no Bokeh figure.

    The figures' slots are drawn in the browser by ``C04.views.training`` from the board's
    ``state``, the model's :func:`numbers`; the controls' specs are the board's ``specs``.

    Export: ``enable_client_side`` embeds the default run's numbers at every checkpoint ×
    country; the step and the country then run ``C04.views.training.readState``
    (Board.run_offline); the seed's controls are disabled there (training needs the live
    server: a note says so).
    """

    model = param.ClassSelector(class_=TrainingDemo)

    def __init__(self, **params):
        params.setdefault("model", TrainingDemo())
        super().__init__(**params)
        model = self.model
        t = self.t
        # The options: the countries' names in the page's language, the model's values.
        names = {c: t(f"training.country_name.{c}") for c in FACTS}
        self._country_options = [
            [c, t("training.country_held_out", country=names[c]) if c in HELD_OUT else names[c]]
            for c in FACTS
        ]
        self._typed_seed = model.seed  # what the "Semilla" box holds (a seed to train)
        self._busy = False  # a seed being trained: "Entrenar de nuevo" waits
        self._offline = False  # the export: no training
        # Shown only in the offline export (enable_client_side sets it).
        self.export_note_html = (
            '<div class="c04-note" data-testid="training-export-note">'
            f"{t('training.export_note', seed=model.seed)}</div>"
        )
        kept = "\n\n" + t("training.kept_spanish") if self.lang != EXAMPLE_LANG else ""
        intro = t(
            "training.intro",
            heads=N_HEADS,
            d_model=TrainingRun.param.d_model.default,
            steps=DEFAULT_STEPS,
            countries=len(TRAINING_COUNTRIES),
            held=len(HELD_OUT),
        )
        header = section_markdown(t("demo.entrenamiento"), intro + kept, "entrenamiento")
        # The header, the controls, the figures and the fixed texts in one Board (issue 36).
        heads = [slot(f"head_{h}", "matrix") for h in range(N_HEADS)]
        self.board = Board(
            lang=self.lang,
            layout=[
                prose(header, "c04-prose"),
                row(
                    control("step", "range", t("training.step"), css="c04-wide"),
                    control(
                        "country", "select", t("training.country"), help=t("training.country_help")
                    ),
                    css="c04-controls",
                ),
                row(
                    control("seed", "number", t("training.seed")),
                    control("retrain", "button", t("training.retrain")),
                    slot("progress", "html"),
                    slot("status", "note"),
                    css="c04-controls",
                ),
                slot("export_note", "html"),
                slot("readouts", "readouts"),
                row(
                    slot("loss_chart", "lines"),
                    column(prose(t("training.heads_caption")), row(*heads)),
                ),
                row(slot("roles", "matrix"), slot("top", "matrix")),
                prose(
                    t("training.roles_caption", countries=len(TRAINING_COUNTRIES)),
                    css="c04-note",
                ),
                slot("probability_bars", "bars"),
                slot("held_out", "note"),
                slot("comparison", "note"),
                slot("announce", "announce"),
            ],
            view="training",
            on_control=self._on_control,
            stylesheets=[CHART_CSS, BOX_CSS],
            sizing_mode="stretch_width",
            margin=(0, 10),
        )
        # Each fragment as the tests read it (a Slot: spec, kind; an "html" slot's object).
        # (The figures' slots are drawn by training.js from the board's state.)
        self.export_note = self.board.slot("export_note")
        self.status = self.board.slot("status")
        self.progress = self.board.slot("progress")
        self.step_control = self.board.slot("step")
        self.country_control = self.board.slot("country")
        self.seed_control = self.board.slot("seed")
        self.retrain_control = self.board.slot("retrain")

        self._shown_seed: int | None = None  # the seed whose run is on screen
        self._poll = None
        model.param.watch(self._on_change, ["step", "country"])
        model.param.watch(self._on_seed, ["seed"])
        self._on_seed()

    # -- links and the export ------------------------------------------------------------------

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return {
            "seed": self.seed_control,
            "step": self.step_control,
            "country": self.country_control,
        }

    # -- the controls --------------------------------------------------------------------------

    def _on_control(self, name: str, value) -> None:
        """A control's use (Board.receive): the step and the country checked by the model, the
        seed typed by the view (an integer within the seed's bounds, as the box's own), a click
        on "Entrenar de nuevo" only while it is enabled."""
        if name in ("step", "country"):
            clients.take(name, self.model, name, value)
        elif name == "seed":
            low, high = TrainingDemo.param.seed.bounds
            # JSON's integers only (not a bool, a float, a text), within the seed's bounds.
            if type(value) is not int or not low <= value <= high:
                clients.refused("seed", {"seed": value}, f"no es un entero de {low} a {high}")
                return
            self._typed_seed = value
            self._show_controls()
        elif self._busy or self._offline:
            clients.refused("retrain", {"clic": 1}, "el botón está desactivado")
        else:
            self._retrain()

    def _show_controls(self) -> None:
        """The controls' specs: the model's step and country, the seed typed, and whether the
        seed's controls wait (a training under way: the button; the export: both)."""
        model = self.model
        low, high = (model.seed, model.seed) if self._offline else TrainingDemo.param.seed.bounds
        waiting = {"disabled": True} if self._busy or self._offline else {}
        self.board.update_specs(
            {
                "step": {
                    "value": model.step,
                    "start": 0,
                    "end": DEFAULT_STEPS,
                    "step": CHECKPOINT_EVERY,
                    "decimals": 0,
                    "decimal": self.t("format.decimal"),
                },
                "country": {"value": model.country, "options": self._country_options},
                "seed": {
                    "value": self._typed_seed,
                    "start": low,
                    "end": high,
                    "step": 1,
                    **({"disabled": True} if self._offline else {}),
                },
                "retrain": waiting,
            }
        )

    # -- training ------------------------------------------------------------------------------

    def _retrain(self, _event=None) -> None:
        """Train the seed in the box, or the next one when it holds the seed shown; a value
        beyond the seed's bounds is taken to the nearest."""
        low, high = TrainingDemo.param.seed.bounds
        seed = min(max(int(self._typed_seed), low), high)
        if seed == self.model.seed:
            seed = low if seed == high else seed + 1
        self._typed_seed = seed
        with pn.io.hold():
            self._show_controls()  # the box shows the seed asked at once
            self.model.seed = seed

    def _on_seed(self, *_events) -> None:
        seed = self.model.seed
        self._typed_seed = seed
        if is_trained(seed) or pn.state.curdoc is None or pn.state.curdoc.session_context is None:
            # Trained, or no session to come back to (a test, a notebook, the export): now.
            self._show()
            return
        TRAINER.request(seed)
        self._waiting()
        if self._poll is None:
            self._poll = pn.state.add_periodic_callback(self._waiting, period=POLL_MS)

    def _waiting(self) -> None:
        seed = self.model.seed
        state, done, steps = TRAINER.status(seed)
        if state == "trained":
            self._stop_polling()
            self._show()
            return
        if state == "failed":
            # Back to the run on screen, whose numbers stay right, and the controls with it.
            self._stop_polling()
            with pn.io.hold():
                if self._shown_seed is not None and self._shown_seed != seed:
                    self.model.seed = self._shown_seed
                self._busy = False
                self._show_controls()
                self.board.update_specs(
                    {
                        "progress": "",
                        "status": {
                            "testid": "training-status",
                            "text": self.t("training.failed", seed=seed),
                        },
                    }
                )
            return
        key = "training.training" if state == "training" else "training.queued"
        said = self.t(key, seed=seed, done=done, steps=steps)
        with pn.io.hold():
            self._busy = True
            self._show_controls()
            self.board.update_specs(
                {
                    "progress": progress_html(done if state == "training" else 0, steps, said),
                    "status": {"testid": "training-status", "text": said},
                }
            )

    def _stop_polling(self) -> None:
        if self._poll is not None:
            self._poll.stop()
            self._poll = None

    def _show(self) -> None:
        model = self.model
        with pn.io.hold():
            self._shown_seed = model.seed
            self._busy = False
            self.board.update_specs(
                {
                    "progress": "",
                    "status": {
                        "testid": "training-status",
                        "text": self.t("training.shown", seed=model.seed, steps=DEFAULT_STEPS),
                    },
                }
            )
            self._refresh()

    def _on_change(self, *_events) -> None:
        if self._shown_seed == self.model.seed:
            self._refresh()
        else:  # the numbers wait for the run; the controls show the model's step and country
            self._show_controls()

    def _refresh(self) -> None:
        """The model's numbers and the controls, in one change of the board."""
        with pn.io.hold():
            self.board.state = numbers(self.model)
            self._show_controls()

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed the shown run and every checkpoint × country; the step and the country then
        run ``C04.views.training.readState`` (Board.run_offline: ``w_step`` the step,
        ``w_country`` the country); the seed's controls are disabled, the box holding the seed
        shown and nothing else (training needs the server). Returns the number of embedded
        states.

        ``states["training"]``: ``run``, the run's ``run_numbers`` (once), and ``states``,
        each checkpoint's ``checkpoint_numbers`` by ``state_key(step, country)``: together
        the ``numbers`` of that state."""
        model = self.model
        probe = TrainingDemo(seed=model.seed)
        table = {}
        for country in FACTS:
            for step in model.checkpoints:
                probe.param.update(step=step, country=country)
                table[state_key(step, country)] = checkpoint_numbers(probe)
        if states is not None:
            states["training"] = {"run": run_numbers(model), "states": table}
        self.export_note.spec = self.export_note_html
        self._offline = True
        self._typed_seed = model.seed
        self._show_controls()
        self.board.run_offline("training")
        return len(table)

    def __panel__(self):
        return self.board


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("entrenamiento")
