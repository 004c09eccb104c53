"""Predict, then check, in the page: a card per exercise at the end of its demo, and the progress.

The cards are drawn by ``C04.exercises`` (dashboards/static/exercises.js), a demo's in one
:class:`ExerciseBlock`. Live, an answer comes back as a message: the block moves the session's
model to the exercise's state and sets the verdict the model computes
(dashboards/sharing/exercises.py).
In the export each card holds the answer Python computed for that state (``expected``) and the
exercise's link, and checks in the browser. The progress lives in the student's browser only.

Checking moves the demo, but the student's own state (an edited cell, their sentence, the
training step) is never lost: the block keeps the demo's link from before the check, the card
says the demo moved and "Volver a lo que tenía" puts it back exactly (dashboards/sharing/links.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import ClassVar

import param

from attnmodel.i18n import DEFAULT_LANG, catalogue, text
from dashboards.components.bundle import Component
from dashboards.sharing import exercises, links

LABELS = (
    "check",
    "answer_label",
    "choose",
    "why",
    "done_right",
    "done_wrong",
    "unreadable",
    "moved",
    "restore",
    "restored",
)
PROGRESS_LABELS = ("progress", "progress_none", "reset", "reset_done", "stored")

CARD_CSS = """
:host .c04-exercise { border-left: 4px solid #1f5fa8; background: #f5f8fc; padding: 8px 14px;
  margin: 6px 0; }
:host fieldset { border: none; margin: 0; padding: 0; }
:host legend { font-weight: 600; padding: 0; margin-bottom: 6px; }
:host .c04-option { display: inline-block; margin: 2px 14px 2px 0; cursor: pointer;
  min-height: 28px; }
:host input[type=text] { width: 7em; font: inherit; padding: 3px 6px; }
:host button { font: inherit; margin-top: 8px; padding: 4px 14px; cursor: pointer; color: #fff;
  background: #1f5fa8; border: 1px solid #174a87; border-radius: 4px; }
:host button.c04-secondary { color: #174a87; background: #fff; margin-top: 0; }
:host button:focus-visible, :host input:focus-visible { outline: 3px solid #174a87;
  outline-offset: 2px; }
:host .c04-past { margin-left: 10px; font-size: 90%; color: #444; }
:host .c04-verdict p { margin: 6px 0 0; }
:host .c04-right { color: #1d5e1d; }
:host .c04-wrong { color: #a40000; }
:host .c04-note { color: #555; font-size: 92%; }
:host h3 { margin: 10px 0 4px; }
/* Projector mode (present.js): the intro is prose, folded. */
:host .c04-intro { display: var(--c04-prose-p, block); }
@media (max-width: 700px) {
  /* Every control a finger can hit: 44 px at least. */
  :host button, :host input[type=text] { min-height: 44px; min-width: 44px; }
  :host .c04-option { display: flex; align-items: center; min-height: 44px; min-width: 44px; }
}
"""


class ExerciseBlock(Component):
    """A demo's exercises, one component for all of them (a component costs ~8 ms of server
    time per session to build, measured: one per card made the first section 0,3 s slower):
    the heading, then per exercise its question, the student's input, "Comprobar", the
    verdict."""

    block_json = param.String(default="{}", doc="Heading, intro and the cards (JSON).")
    verdicts_json = param.String(default="", doc="id -> the last verdict (JSON), live only.")

    _stylesheets: ClassVar[list[str]] = [CARD_CSS]

    def __init__(
        self,
        on_answer: Callable[[str, str], dict] | None = None,
        on_restore: Callable[[str], bool] | None = None,
        **params,
    ):
        params.setdefault("sizing_mode", "stretch_width")
        super().__init__(**params)
        # Panel's public hook for model.send_msg: each message, as the browser sent it.
        self.on_msg(lambda event: self.receive(event.data))
        self._on_answer = on_answer
        self._on_restore = on_restore

    def receive(self, msg) -> None:
        # Whatever a client sends: only a known id and a short string are read.
        if not isinstance(msg, dict) or self._on_answer is None:
            return
        exercise_id, answer = msg.get("id"), msg.get("answer")
        if not isinstance(exercise_id, str):
            return
        verdicts = json.loads(self.verdicts_json) if self.verdicts_json else {}
        if msg.get("action") == "restore":
            if self._on_restore is None or not self._on_restore(exercise_id):
                return
            for other in verdicts.values():  # one state to go back to: no card offers it now
                other["offer"] = False
            if exercise_id in verdicts:
                verdicts[exercise_id]["restored"] = True
        else:
            if not isinstance(answer, str):
                return
            verdict = self._on_answer(exercise_id, answer[: exercises.MAX_ANSWER_CHARS + 1])
            if verdict is None:
                return
            verdict["n"] = verdicts.get(exercise_id, {}).get("n", 0) + 1
            if verdict.get("right") is None:  # not read, the demo not moved: the offer stays
                verdict["offer"] = verdicts.get(exercise_id, {}).get("offer", False)
            elif verdict.get("offer"):  # the latest card that moved the demo offers the way back
                for other in verdicts.values():
                    other["offer"] = False
            verdicts[exercise_id] = verdict
        self.verdicts_json = json.dumps(verdicts, ensure_ascii=False)


class Progress(Component):
    """How many of this page's exercises the student answered (and right), and the reset."""

    ids_json = param.String(default="[]")
    labels_json = param.String(default="{}")

    _stylesheets: ClassVar[list[str]] = [CARD_CSS]


def card_spec(exercise: exercises.Exercise, lang: str) -> dict:
    labels = {k: text(f"exercises.{k}", lang) for k in LABELS}
    return {
        "id": exercise.id,
        "demo": exercise.demo,
        "kind": exercise.kind,
        "question": exercise.text("question", lang),
        "explanation": exercise.text("explanation", lang),
        "options": exercise.options(lang),
        # The language of the options when they are the Spanish example's words.
        "options_lang": exercise.options_lang(lang),
        "unit": "%" if exercise.format == "percent" else "",
        "format": exercise.format,
        "tolerance": exercise.tolerance,
        "labels": labels,
    }


def export_spec(exercise: exercises.Exercise, lang: str) -> dict:
    """The card of the export: the answer for the exercise's state, computed here by the model,
    and the link that moves the page's demo there."""
    model = exercises.model_class(exercise.demo)()
    value = exercises.solve(exercise, model)
    said = exercises.shown(exercise, value, lang)
    return {
        **card_spec(exercise, lang),
        "link": links.encode({exercise.demo: model}),
        "expected": {
            "value": value,
            "right": text("exercises.right", lang, answer=said),
            "wrong": text("exercises.wrong", lang, answer=said),
        },
    }


def block(demo_id: str, lang: str = DEFAULT_LANG, model=None) -> ExerciseBlock | None:
    """The exercises of a demo, after it: live on ``model`` (the server checks), else (the
    export) each card with its answer, checking in the browser."""
    mine = {e.id: e for e in exercises.of_demo(demo_id)}
    if not mine:
        return None
    if model is not None:
        cards = [card_spec(e, lang) for e in mine.values()]
    else:
        cards = [export_spec(e, lang) for e in mine.values()]
    heading = {
        "heading": text("exercises.heading", lang),
        "intro": text("exercises.intro", lang),
        "cards": cards,
    }

    # The demo's state before its exercises moved it (its link), and the question's it went to.
    saved: dict[str, str | None] = {"mine": None, "question": None}

    def state() -> str:
        return links.encode({demo_id: model})

    def on_answer(exercise_id: str, answer: str) -> dict | None:
        exercise = mine.get(exercise_id)
        if exercise is None:
            return None
        before = state()
        verdict = exercises.check(exercise, model, answer, lang)
        out = {"right": verdict.right, "message": verdict.message, "offer": False}
        if verdict.right is None:  # not read: the demo did not move
            return out
        after = state()
        # A second check without a change in between keeps the first "what I had".
        if saved["mine"] is None or before != saved["question"]:
            saved["mine"] = before
        saved["question"] = after
        out["offer"] = saved["mine"] != after
        return out

    def on_restore(exercise_id: str) -> bool:
        if exercise_id not in mine or saved["mine"] is None:
            return False
        link, saved["mine"], saved["question"] = saved["mine"], None, None
        links.decode(links.parse(link), {demo_id: model}, lang)
        return True

    return ExerciseBlock(
        on_answer=on_answer if model is not None else None,
        on_restore=on_restore if model is not None else None,
        block_json=json.dumps(heading, ensure_ascii=False),
        margin=(10, 10, 0, 10),
    )


def progress(ids: list[str], lang: str = DEFAULT_LANG) -> Progress:
    # Templates with their {fields}: exercises.js fills them with the browser's counts.
    labels = {k: catalogue(lang)[f"exercises.{k}"] for k in PROGRESS_LABELS}
    return Progress(
        ids_json=json.dumps(ids),
        labels_json=json.dumps(labels, ensure_ascii=False),
        sizing_mode="stretch_width",
        margin=(4, 10),
    )
