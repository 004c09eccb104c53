"""Section «La siguiente palabra», demo 2: one Transformer block, step by step.

Everything on screen comes from ``attnmodel.block.BlockDemo``: the last position of the prompt
through one layer of SmolLM2-135M (or of the lecture's tiny Transformer), part by part —
embedding, norm, Q K V, attention, + residual, norm, MLP, + residual, output head, softmax —
each with its shape, the norm of the vector before and after it, and at each state of the
residual stream the logit lens's top 5 tokens; and an overview of the 30 layers.
:func:`numbers` is those numbers (no text); the browser draws them (``C04.views.block``,
dashboards/static/demos/block.js: every word from the catalogue's table ``[block]``).

The ten steps are boxes with css class ``c04-step-<n>`` under the walkthrough's stepper (as
«La capital»): space in projector mode shows the next part (dashboards/static/present.js).

SmolLM2's walk runs in the model thread (dashboards/runtime/model_thread.py), never on the
event loop; while the first one loads the model the section says so. The export embeds the walk
of the lecture's prompt for both models (every layer × step); a typed other prompt there gets
the catalogue's message that free prompts need the server, and the last state stays.
"""

from __future__ import annotations

import logging

import panel as pn
import param

from attnmodel.block import DEFAULT_PROMPTS, MISSING, MODELS, N_LAYERS, N_STEPS, BlockDemo, walk_of
from attnmodel.next_word import MAX_PROMPT_CHARS
from dashboards.components.board import Board, box, control, prose, row, slot
from dashboards.components.markup import esc, section_markdown
from dashboards.components.render import shared_render
from dashboards.components.stepper import stepper
from dashboards.components.views import DemoView
from dashboards.runtime import clients, model_thread

log = logging.getLogger(__name__)

# The steps whose box shows the logit lens's top tokens: the three states of the residual
# stream (1 entering, 5 after attention, 8 after the MLP) and the softmax (10).
LENS_STEPS = (1, 5, 8, 10)
# The steps' boxes follow their own stepper (present.js: group "block"), not «La capital»'s.
STEP_GROUP = "c04-steps-block"
BOARD_CSS = """
.c04-block-prompt input[type=text] { width: 360px; max-width: 100%; }
"""


@shared_render
def numbers(model: BlockDemo, lang: str = "") -> dict[str, object]:
    """What block.js draws, the model's numbers (no text: the browser writes them in the page's
    language): ``which``, ``layer`` and ``step`` (1-based), ``n_layers``, ``missing`` (the
    steps the model has not) and ``walk`` (:func:`attnmodel.block.walk_of`: the prompt's
    tokens, the shapes, every layer's norms and logit lens). ``lang`` is not used: the shared
    cache's key has it."""
    return {
        "which": model.which,
        "layer": int(model.layer),
        "step": int(model.step),
        "n_layers": int(model.n_layers),
        "missing": list(model.missing),
        "walk": model.walk,
    }


def embedded_states() -> dict[str, dict]:
    """The export's table: the walk of each model's lecture prompt (``DEFAULT_PROMPTS``), every
    layer, keyed by the model."""
    return {which: walk_of(which, DEFAULT_PROMPTS[which]) for which in MODELS}


class BlockView(DemoView):
    """The block, step by step: the model, the prompt, the layer and the step in detail, the
    stepper, the ten steps' boxes and the overview of every layer.

    Controls (native, on ``self.board``; a use is a message checked here): ``which`` (a select
    of the two models), ``prompt`` (a text box applied on Enter/blur; a refusal in the slot
    ``prompt_error`` beside it, ``block-prompt-error``, the box keeping the typed text),
    ``layer`` (range 1 … the model's layers), ``step`` (range 1 … 10).

    data-testids: ``block-status`` (loading, computing, the export's refusal of a free prompt),
    ``block-tokens``, ``block-detail-*`` (the detailed step's readouts), ``block-detail-lens``,
    ``block-detail-note``, ``block-step-<n>-*`` and ``block-lens-<n>`` in step n's box,
    ``block-overview`` (the layers' table), ``block-export-note``.
    """

    model = param.ClassSelector(class_=BlockDemo)

    def __init__(self, **params):
        params.setdefault("model", BlockDemo())
        super().__init__(**params)
        t = self.t
        self.export_note_html = (
            f'<div class="c04-note" data-testid="block-export-note">{esc(t("block.export_note"))}'
            "</div>"
        )
        header = section_markdown(t("demo.bloque"), t("block.intro"), "bloque")
        self.board = Board(
            lang=self.lang,
            layout=[
                prose(header, "c04-prose"),
                row(
                    control("which", "select", t("block.which")),
                    control("prompt", "text", t("block.prompt"), css="c04-block-prompt"),
                    slot("prompt_error", "note"),
                    css="c04-controls",
                ),
                row(
                    control("layer", "range", t("block.layer"), css="c04-wide"),
                    control("step", "range", t("block.step_control"), css="c04-wide"),
                    css="c04-controls",
                ),
                slot("status", "note"),
                slot("offline", "note"),
                slot("export_note", "html"),
                slot("tokens", "note"),
                slot("detail_title", "note"),
                slot("detail", "readouts"),
                slot("detail_note", "note"),
                slot("detail_lens", "bars"),
            ],
            view="block",
            on_control=self._on_control,
            stylesheets=[BOARD_CSS],
            sizing_mode="stretch_width",
        )
        boxes = []
        for n in range(1, N_STEPS + 1):
            parts = [slot(f"step_{n}", "readouts"), slot(f"note_{n}", "note")]
            if n in LENS_STEPS:
                parts.append(slot(f"lens_{n}", "bars"))
            boxes.append(box(t(f"block.step.{n}"), *parts, css=f"c04-step-{n} {STEP_GROUP}"))
        self.steps = Board(
            lang=self.lang,
            layout=[
                row(*boxes[:5]),
                row(*boxes[5:]),
                prose(t("block.overview_intro")),
                slot("overview", "matrix"),
            ],
            view="block",
            sizing_mode="stretch_width",
        )
        self.which_control = self.board.slot("which")
        self.prompt_control = self.board.slot("prompt")
        self.layer_control = self.board.slot("layer")
        self.step_control = self.board.slot("step")
        self.status = self.board.slot("status")
        self.prompt_error = self.board.slot("prompt_error")
        self.export_note = self.board.slot("export_note")
        self._jobs = model_thread.Jobs()
        self._computed: set[tuple[str, str]] = set()
        self.model.param.watch(self._on_walk, ["which", "prompt"])
        self.model.param.watch(self._on_choice, ["layer", "step"])
        self._layout = pn.Column(
            self.board,
            stepper(N_STEPS, self.lang, group="block"),
            self.steps,
            sizing_mode="stretch_width",
        )
        self._compute()

    # -- controls -> model ---------------------------------------------------------------------

    def _on_control(self, name: str, value) -> None:
        """A control's use (Board.receive): the value checked by the model (param's checks and
        the model's own: the prompt against the chosen model, the layer against its layers)."""
        if name == "prompt":
            self._on_prompt(value)
        elif name == "which":
            # A model the select offers, with its own prompt (BlockDemo.choose).
            if value not in MODELS:
                clients.refused(name, {"which": value}, "no es un modelo ofrecido")
                return
            self.model.choose(value)
        elif name in ("layer", "step"):
            clients.take(name, self.model, name, value)
        else:
            clients.refused(name, {"value": value}, "no es un control de esta demo")

    def _on_prompt(self, value) -> None:
        if not isinstance(value, str):
            clients.refused("prompt", {"prompt": value}, "no es un texto")
            return
        if value == self.model.prompt:  # typed again: the box and its message as the model's
            self._show()
            return
        if self.model.which == "smollm" and not model_thread.ready():
            # SmolLM2's check needs its tokenizer, which the model thread is still loading
            # (the first time on a machine it builds the cache): not on the session's loop.
            self._refuse_prompt(value, self.t("block.loading"))
            return
        try:
            self.model.prompt = value
        except ValueError as exc:
            log.info("Texto rechazado (bloque): %s", clients.brief(str(exc)))
            self._refuse_prompt(value, f"{self.say(exc)} {self.t('block.kept')}")

    def _refuse_prompt(self, value: str, message: str) -> None:
        """The typed text stays in the box, to be corrected, beside ``message``."""
        error = {"testid": "block-prompt-error", "cls": "c04-error", "text": message}
        self.board.update_specs({"prompt": self._prompt_spec(value), "prompt_error": error})

    # -- model -> boards -----------------------------------------------------------------------

    def _on_walk(self, *_events) -> None:
        self._compute()

    def _on_choice(self, *_events) -> None:
        if (self.model.which, self.model.prompt) in self._computed:
            self._show()

    def _compute(self) -> None:
        """The walk of the model's prompt in the model thread (inline without a served
        session); meanwhile the status says the model is loading or computing."""
        key = (self.model.which, self.model.prompt)
        if key in self._computed:
            self._show()
            return
        loading = "block.loading" if not model_thread.ready() else "block.computing"
        self.board.update_specs(
            {
                "status": {"testid": "block-status", "cls": "c04-note", "text": self.t(loading)},
                **self._control_specs(),
            }
        )
        which, prompt = key
        self._jobs.submit(
            lambda: walk_of(which, prompt), lambda _walk: self._done(key), self._failed
        )

    def _done(self, key: tuple[str, str]) -> None:
        self._computed.add(key)
        if key == (self.model.which, self.model.prompt):
            self._show()

    def _failed(self, exc: BaseException) -> None:
        self.board.update_specs(
            {
                "status": {
                    "testid": "block-status",
                    "cls": "c04-error",
                    "text": self.t("block.failed"),
                }
            }
        )

    def _show(self) -> None:
        """The model's numbers to both Boards and the controls' specs, in one change."""
        shown = numbers(self.model)
        with pn.io.hold():
            self.board.state = shown
            self.steps.state = shown
            self.board.update_specs({"status": {}, "prompt_error": {}, **self._control_specs()})

    def _prompt_spec(self, shown: str) -> dict:
        return {
            "value": shown,
            "placeholder": self.t(f"block.placeholder.{self.model.which}"),
            "max_length": MAX_PROMPT_CHARS,
        }

    def _control_specs(self) -> dict:
        m = self.model
        last = N_LAYERS[m.which]
        return {
            "which": {
                "value": m.which,
                "options": [[w, self.t(f"block.model.{w}")] for w in MODELS],
            },
            "prompt": self._prompt_spec(m.prompt),
            "layer": {
                "value": int(m.layer),
                "start": 1,
                "end": last,
                "step": 1,
                "disabled": last == 1,
            },
            "step": {"value": int(m.step), "start": 1, "end": N_STEPS, "step": 1},
        }

    # -- links and the export ------------------------------------------------------------------

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return {
            "which": self.which_control,
            "prompt": self.prompt_control,
            "layer": self.layer_control,
            "step": self.step_control,
        }

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed the walk of each model's lecture prompt (``states["block"]``, keyed by the
        model: every layer, so every layer × step is reachable) and make the controls run
        ``C04.views.block.readState`` (Board.run_offline) with ``prompts`` (each model's
        lecture prompt) and ``init`` (the model's state, JSON). A typed other prompt gets the
        catalogue's message that free prompts need the server, the last state kept. Returns
        the number of embedded states (a model × layer × step each)."""
        table = embedded_states()
        if states is not None:
            states["block"] = table
        self.board.update_specs({"export_note": self.export_note_html})
        self.board.run_offline(
            "block",
            prompts=dict(DEFAULT_PROMPTS),
            n_layers=dict(N_LAYERS),
            missing={w: list(m) for w, m in MISSING.items()},
        )
        return sum(len(w["layers"]) for w in table.values()) * N_STEPS

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("bloque")
