"""Section 5 of the lecture: "¿De dónde salen W_Q y W_K?" — a tiny Transformer, trained.

Everything on screen comes from ``attnmodel.training.TrainingDemo``: the loss curve of one
training (seed, default settings), and at the chosen checkpoint the probe "La capital de <país>
es": each head's attention, the next-word probabilities, each head's measured role and the
comparison with the hand-built matrices of "La capital". Every word is in the catalogue, table
``[training]``; the model's words (the corpus is Spanish) stay Spanish on every page.

Live, a new seed trains in a thread (``Trainer``: one training at a time per process, a queue
beyond that) while the page shows the run it has and a progress bar; the session polls the
trainer, so nothing in the training thread touches a document. The offline export embeds the
default run's checkpoints for every probe country (``client_state``) and draws them with the
browser twin ``C04.views.training`` (dashboards/static/demos/training.js), from the same compact
state Python renders from.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import panel as pn
import param

from attnmodel.formatting import number, percent
from attnmodel.i18n import DEFAULT_LANG, text
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
from dashboards.components.markup import (
    announce_spec,
    esc,
    kept_label,
    kept_labels,
    matrix_spec,
    readout_spec,
    rich,
    section_markdown,
)
from dashboards.components.render import apply_render, shared_render
from dashboards.components.style import CATEGORY_COLORS, CHART_CSS
from dashboards.components.views import DemoView
from dashboards.runtime import clients

EXAMPLE_LANG = "es"  # the corpus's language: its words stay Spanish on every page
DECIMALS = 4  # the compact state's rounding: the screen shows at most 4 decimals
CAPITALS = tuple(FACTS.values())
OTHER = "…"  # the bar of every other word of the vocabulary
RIGHT_COLOR = CATEGORY_COLORS[0]
WRONG_COLOR = "#b8c2cf"
LOSS_COLOR = "#1f5fa8"
MARKER_COLOR = CATEGORY_COLORS[1]
# The next-word bars' column width (em): the chart spans the section, as the figure did.
PROBABILITY_BAR_EM = 20
POLL_MS = 200  # a waiting session reads the trainer's progress this often
# The comparison's box, as "La capital" draws its explanations; the training's progress bar.
BOX_CSS = """
.c04-box { border-left: 4px solid #d95f02; background: #fdf6f0; padding: 8px 14px; }
.c04-slot progress { width: 220px; max-width: 100%; height: 1.2em; accent-color: #174a87; }
"""

# The loss chart (C04.markup.lines): its size in px and its fixed loss axis (nats).
LOSS_CHART = {"width": 420, "height": 260, "loss_max": 5.6, "marker_size": 11}


# -- the compact state: what the export embeds, what both renderers read --------------------------


def _round(x) -> float | list:
    return np.round(np.asarray(x, dtype=float), DECIMALS).tolist()


def run_state(model: TrainingDemo) -> dict:
    """The run's loss curve (one value per step, 0 … steps)."""
    return {"seed": model.seed, "loss": _round(model.loss_curve)}


def client_state(model: TrainingDemo) -> dict:
    """Everything ``render_state`` needs at (seed, step, country), rounded to ``DECIMALS``
    (the screen shows at most that many), compact: the export embeds 41 steps × 14 countries.
    The same in every language (the words are the model's).

    ``attention``: each head's rows, row i its i + 1 weights on the earlier tokens (causal: the
    rest is 0); ``capitals``: p of each capital (``CAPITALS`` order); ``top``: the five likeliest
    next words with p; ``heads``: each head's shares (``ROLES`` order); ``comparison``: [country
    head, learned cosine, learned share on the country, learned concentration] (the
    hand-built values are constants: ``hand_constants``)."""
    probabilities = model.probabilities
    ranked = sorted(probabilities, key=lambda w: -probabilities[w])
    c = model.comparison
    return {
        "step": model.step,
        "country": model.country,
        "loss": _round(model.loss),
        "attention": [[_round(row[: i + 1]) for i, row in enumerate(a)] for a in model.attention],
        "capitals": _round([probabilities[w] for w in CAPITALS]),
        "top": [[w, _round(probabilities[w])] for w in ranked[:5]],
        "heads": [[_round(h[r]) for r in ROLES] for h in model.heads],
        "comparison": [
            c["head"],
            _round(c["cosine_learned"]),
            _round(c["share_learned"]),
            _round(c["concentration_learned"]),
        ],
    }


def hand_constants() -> dict:
    """The hand-built side of the comparison (``TrainingDemo.comparison``) and the learned
    W_Q's cell count: the same at every state."""
    d_model = TrainingRun.param.d_model.default
    return {
        **{k: _round(v) for k, v in hand_comparison().items()},
        "cells": d_model * (d_model // N_HEADS),
    }


def state_key(step: int, country: str) -> str:
    return f"{step}|{country}"


# -- the renderer ------------------------------------------------------------------------------


def role_label(role: str, share: float, lang: str) -> str:
    """ "mira al país: 92 %" — a head's largest measured share, in ``lang``."""
    return text(f"training.role.{role}", lang, share=percent(share, 0, lang))


def probability_bars_spec(state: dict, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.bars``: the probe's next word, a row per capital (``CAPITALS`` order) and
    one for every other word (``OTHER``: 1 − the capitals' sum, at least 0), each with its
    probability (4 decimals), a bar on the 0–1 scale (width in %) and its colour (the country's
    capital ``RIGHT_COLOR``, the rest ``WRONG_COLOR``). The capitals are the model's words,
    kept Spanish."""
    capital = FACTS[state["country"]]
    probabilities = state["capitals"]
    other = max(0.0, 1.0 - sum(probabilities))
    rows = [
        {
            "label": kept_label(w, lang, EXAMPLE_LANG),
            "value": number(p, 4, lang=lang),
            "width": 100 * p,
            "color": RIGHT_COLOR if w == capital else WRONG_COLOR,
            "note": "",
        }
        for w, p in zip(CAPITALS, probabilities, strict=True)
    ]
    rows.append(
        {
            "label": OTHER,
            "value": number(other, 4, lang=lang),
            "width": 100 * other,
            "color": WRONG_COLOR,
            "note": "",
        }
    )
    return {
        "testid": "training-probability-bars",
        "corner": text("training.chart.word_axis", lang),
        "head": text("training.chart.probability_axis", lang),
        "bar_em": PROBABILITY_BAR_EM,
        "rows": rows,
    }


def loss_chart_spec(curve: list[float], step: int, loss: float, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.lines``: the run's loss at every step (``run_state``'s ``curve``, 4
    decimals) and a marker at (``step``, ``loss``), whose tooltip says the step and the loss."""
    return {
        "testid": "training-loss-chart",
        "aria": text("a11y.plot.training_loss", lang),
        "width": LOSS_CHART["width"],
        "height": LOSS_CHART["height"],
        "decimal": text("format.decimal", lang),
        "x": {
            "label": text("training.chart.step_axis", lang),
            "min": 0,
            "max": len(curve) - 1,
            "integer": True,
        },
        "y": {
            "label": text("training.chart.loss_axis", lang),
            "min": 0,
            "max": LOSS_CHART["loss_max"],
            "integer": False,
        },
        "series": [{"name": "", "color": LOSS_COLOR, "width": 2, "dash": False, "y": curve}],
        "points": [
            {
                "x": step,
                "y": loss,
                "color": MARKER_COLOR,
                "size": LOSS_CHART["marker_size"],
                "tip": [
                    [text("training.chart.step", lang), str(step)],
                    ["nats", number(loss, 4, lang=lang)],
                ],
            }
        ],
    }


def render_state(state: dict, run: dict, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """Everything on screen that follows (seed, step, country), by target name; ``run`` is the
    run's ``run_state`` (its loss curve).

    Markup specs: ``readouts`` (step, loss, p(capital), prediction), ``head_<h>`` (each head's
    attention on the probe, titled with its measured role), ``roles`` (each head's four shares),
    ``top`` (the five likeliest next words), ``held_out`` (what a held-out country shows),
    ``comparison`` (learned against hand-built W_Q/W_K), ``announce``, ``probability_bars``
    (the next-word bars, ``probability_bars_spec``), ``loss_chart`` (the run's loss curve and
    the step's marker, ``loss_chart_spec``). The browser twin (``C04.views.training``) builds
    the same dict from the same state and run."""

    def num(x: float, decimals: int = 4) -> str:
        return number(x, decimals, lang=lang)

    def word(w: str):
        return kept_label(w, lang, EXAMPLE_LANG)

    country = state["country"]
    tokens = PROBE.format(country=country).split()
    capital = FACTS[country]
    probability = state["capitals"][CAPITALS.index(capital)]
    prediction, predicted_p = state["top"][0]
    loss = state["loss"]
    step = state["step"]
    heads = state["heads"]
    shares = [dict(zip(ROLES, h, strict=True)) for h in heads]
    roles = [max(ROLES, key=lambda r, s=s: s[r]) for s in shares]

    out: dict[str, object] = {
        "readouts": {
            "items": [
                readout_spec(
                    text("training.readout.step", lang),
                    f"{step}",
                    text("training.readout.of_steps", lang, steps=DEFAULT_STEPS),
                    testid="training-step",
                ),
                readout_spec(
                    text("training.readout.loss", lang), num(loss), "nats", testid="training-loss"
                ),
                readout_spec(
                    rich("training.readout.probability", lang, capital=word(capital)),
                    num(probability),
                    "",
                    testid="training-probability",
                ),
                readout_spec(
                    text("training.readout.prediction", lang),
                    word(prediction),
                    f"p = {num(predicted_p)}",
                    testid="training-prediction",
                ),
            ]
        }
    }
    n = len(tokens)
    for h, rows in enumerate(state["attention"]):
        weights = [[*row, *([0.0] * (n - len(row)))] for row in rows]
        title = text(
            "training.head_title",
            lang,
            n=h + 1,
            role=role_label(roles[h], shares[h][roles[h]], lang),
        )
        out[f"head_{h}"] = kept_labels(
            matrix_spec(
                weights,
                tokens,
                tokens,
                decimals=2,
                shade=True,
                title=title,
                testid=f"training-head-{h + 1}",
                lang=lang,
            ),
            tokens,
            lang,
            EXAMPLE_LANG,
        )
    out["roles"] = matrix_spec(
        np.array(heads, dtype=float),
        [text("training.head_name", lang, n=h + 1) for h in range(len(heads))],
        [text(f"training.role_name.{r}", lang) for r in ROLES],
        decimals=2,
        shade=True,
        title=text("training.roles_title", lang),
        testid="training-roles",
        lang=lang,
    )
    top_words = [w for w, _ in state["top"]]
    out["top"] = kept_labels(
        matrix_spec(
            np.array([[p] for _, p in state["top"]], dtype=float),
            top_words,
            ["p"],
            decimals=4,
            shade=True,
            title=text("training.top_title", lang),
            testid="training-top",
            lang=lang,
        ),
        top_words,
        lang,
        EXAMPLE_LANG,
    )
    if country in HELD_OUT:
        held = rich(
            "training.held_out",
            lang,
            country=word(country),
            capital=word(capital),
            p=num(probability),
            prediction=word(prediction),
            p_prediction=num(predicted_p),
        )
    else:
        held = rich(
            "training.trained_fact",
            lang,
            country=word(country),
            held=[word(HELD_OUT[0]), " · ", word(HELD_OUT[1])],
        )
    out["held_out"] = {"testid": "training-held-out", "text": held}
    head, cosine, share, concentration = state["comparison"]
    hand = HAND
    # Alike once the head puts most of the attention of "es" on the country, as the hand-built
    # one does.
    alike = "training.compare.alike" if share > 0.5 else "training.compare.unalike"
    out["comparison"] = {
        "testid": "training-comparison",
        "cls": "c04-box",
        "text": [
            rich(
                alike,
                lang,
                n=str(head + 1),
                country=word(country),
                cos_learned=num(cosine, 2),
                cos_hand=num(hand["cosine_hand"], 2),
                share_learned=percent(share, 0, lang),
                share_hand=percent(hand["share_hand"], 0, lang),
            ),
            " ",
            rich(
                "training.compare.spread",
                lang,
                share_learned=percent(concentration, 0, lang),
                share_hand=percent(hand["concentration_hand"], 0, lang),
                cells=str(hand["cells"]),
            ),
        ],
    }
    out["announce"] = announce_spec(
        "training", lang, step=str(step), capital=word(capital), p=num(probability)
    )
    out["probability_bars"] = probability_bars_spec(state, lang)
    out["loss_chart"] = loss_chart_spec(run["loss"], step, loss, lang)
    return out


HAND = hand_constants()


@shared_render
def render(model: TrainingDemo, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """``render_state`` of the model's state (trains the seed first if it must: the live view
    calls it only once the seed is trained)."""
    return render_state(client_state(model), run_state(model), lang)


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

    Export: ``enable_client_side`` embeds the default run (``run_state``) and every checkpoint ×
    country (``client_state``); the step and the country then run ``C04.views.training``
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
            on_control=self._on_control,
            stylesheets=[CHART_CSS, BOX_CSS],
            sizing_mode="stretch_width",
            margin=(0, 10),
        )
        # Each fragment as the tests read it (a Slot: spec, kind; an "html" slot's object).
        self.export_note = self.board.slot("export_note")
        for name in ("readouts", "roles", "top", "held_out", "comparison", "announce"):
            setattr(self, name, self.board.slot(name))
        self.heads = [self.board.slot(f"head_{h}") for h in range(N_HEADS)]
        self.probability_bars = self.board.slot("probability_bars")
        self.loss_chart = self.board.slot("loss_chart")
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
        with pn.io.hold():
            apply_render(self.client_targets(), render(self.model, self.lang))
            self._show_controls()

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (the board, "board:<slot>"), for the names of ``render``."""
        names = (
            "readouts",
            *(f"head_{h}" for h in range(N_HEADS)),
            "roles",
            "top",
            "held_out",
            "comparison",
            "announce",
            "probability_bars",
            "loss_chart",
        )
        return self.board.targets(names)

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed the shown run and every checkpoint × country; the step and the country then
        run ``C04.views.training`` (Board.run_offline: ``w_step`` the step, ``w_country`` the
        country); the seed's controls are disabled, the box holding the seed shown and nothing
        else (training needs the server). Returns the number of embedded states."""
        model = self.model
        probe = TrainingDemo(seed=model.seed)
        table = {}
        for country in FACTS:
            for step in model.checkpoints:
                probe.param.update(step=step, country=country)
                table[state_key(step, country)] = client_state(probe)
        if states is not None:
            states["training"] = {
                "run": run_state(model),
                "hand": HAND,
                "states": table,
                # What the browser twin (dashboards/static/demos/training.js) reads besides a state.
                "constants": {
                    "facts": FACTS,
                    "capitals": list(CAPITALS),
                    "held_out": list(HELD_OUT),
                    "roles": list(ROLES),
                    "probe": PROBE,
                    "steps": DEFAULT_STEPS,
                    "other": OTHER,
                    "right_color": RIGHT_COLOR,
                    "wrong_color": WRONG_COLOR,
                    "probability_bar_em": PROBABILITY_BAR_EM,
                    "loss_color": LOSS_COLOR,
                    "marker_color": MARKER_COLOR,
                    "loss_chart": LOSS_CHART,
                    "example_lang": EXAMPLE_LANG,
                },
            }
        self.export_note.spec = self.export_note_html
        self._offline = True
        self._typed_seed = model.seed
        self._show_controls()
        self.board.run_offline("training", self.client_targets())
        return len(table)

    def __panel__(self):
        return self.board


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("entrenamiento")
