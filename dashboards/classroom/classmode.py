"""Class mode in a lecture session: follow the lecturer, answer the class's question; on the
lecturer's page, ask, count, reveal, clear (drawn by dashboards/static/classroom.js).

The shared state is dashboards/classroom/shared_state.py's (the broker and this process's hub). Each
session:

- **lecturer** (opened with the server's token): its link (the section and every demo's state,
  dashboards/sharing/links.py) goes to the broker on every change, at most every
  ``classroom.PUBLISH_INTERVAL_S`` (the last change of a burst always goes);
- **student**: while a class is live it follows by default: the lecturer's latest link is
  applied to this session's models (``LinkState.apply``), the newest only. A change the student
  makes (the session's link differs from the one it followed) leaves follow mode; one click
  rejoins.

Which role a session has is decided once, on the server, from the address it was opened with:
nothing a client sends can change it (a student's "reveal" is refused and logged).
"""

from __future__ import annotations

import json
import logging
import threading
from typing import ClassVar

import panel as pn
import param

from attnmodel.i18n import DEFAULT_LANG, catalogue, text
from dashboards.classroom import shared_state
from dashboards.classroom.shared_state import BrokerDown
from dashboards.components.bundle import Component
from dashboards.demos import registry
from dashboards.sharing import exercises, practice

log = logging.getLogger("dashboards.classroom.classmode")

LECTURER_ACTIONS = ("ask", "reveal", "clear", "end", "resume")
STUDENT_ACTIONS = ("follow", "leave", "answer")
# A number question's distribution: the most given answers, the rest summed as "others".
MAX_ROWS = 8

CLASS_CSS = """
:host { display: block; }
:host .c04-class-bar { border-left: 6px solid #1d5e1d; background: #eef6ee; padding: 8px 14px;
  margin: 0 0 6px; display: flex; flex-wrap: wrap; align-items: center; gap: 6px 14px; }
:host .c04-class-bar.c04-class-off { border-left-color: #8a5a00; background: #fdf6e8; }
:host .c04-class-bar.c04-class-ended { border-left-color: #555; background: #f2f2f2; }
:host .c04-class-dot { color: #1d5e1d; font-weight: 700; }
:host .c04-class-off .c04-class-dot { color: #8a5a00; }
:host button, :host select { font: inherit; padding: 4px 12px; cursor: pointer; }
:host button { color: #fff; background: #1f5fa8; border: 1px solid #174a87; border-radius: 4px; }
:host button.c04-secondary { color: #174a87; background: #fff; }
:host button:focus-visible, :host select:focus-visible, :host input:focus-visible {
  outline: 3px solid #174a87; outline-offset: 2px; }
:host select { max-width: min(40em, 100%); }
:host .c04-class-question { border-left: 4px solid #1f5fa8; background: #f5f8fc;
  padding: 8px 14px; margin: 0 0 6px; }
:host fieldset { border: none; margin: 0; padding: 0; }
:host legend { font-weight: 600; padding: 0; margin-bottom: 6px; }
:host .c04-option { display: inline-block; margin: 2px 14px 2px 0; cursor: pointer; }
:host input[type=text] { width: 7em; font: inherit; padding: 3px 6px; }
:host .c04-class-count { font-size: var(--c04-value-size, 140%); font-weight: 600;
  margin: 4px 0; }
/* Projector mode (present.js): the question, the result and its counts read from the back row. */
:host .c04-class-question p, :host .c04-class-question legend, :host table {
  font-size: var(--c04-cell-size, inherit); }
:host table { border-collapse: collapse; margin: 6px 0; }
:host td, :host th { padding: 3px 10px; text-align: left; }
:host td.c04-n { text-align: right; font-variant-numeric: tabular-nums; }
:host .c04-bar { display: inline-block; height: 0.9em; background: #1f5fa8;
  vertical-align: middle; }
:host tr.c04-right td { color: #1d5e1d; font-weight: 600; }
:host tr.c04-right .c04-bar { background: #1d5e1d; }
:host .c04-class-message { margin: 4px 0; }
:host .c04-class-ask { margin: 2px 0 8px; }
:host .c04-class-message.c04-error { color: #a40000; }
:host .c04-class-note { color: #555; font-size: 92%; }
@media (max-width: 700px) {
  :host button, :host select, :host input[type=text] { min-height: 44px; min-width: 44px; }
  :host .c04-option { display: flex; align-items: center; min-height: 44px; }
}
"""


class ClassPanel(Component):
    """The class bar (live? following?), the question on the students' screens, the lecturer's
    controls and the class's answers. Draws ``view_json``; sends the user's actions."""

    view_json = param.String(default="{}", doc="What to draw (ClassSession.view), JSON.")
    labels_json = param.String(default="{}", doc="The class.* texts of the page's language.")

    _stylesheets: ClassVar[list[str]] = [CLASS_CSS]

    def __init__(self, on_msg=None, **params):
        params.setdefault("sizing_mode", "stretch_width")
        super().__init__(**params)
        # Panel's public hook for model.send_msg: each message, as the browser sent it.
        self.on_msg(lambda event: self.receive(event.data))
        self._on_msg = on_msg

    def receive(self, msg) -> None:
        if isinstance(msg, dict) and self._on_msg is not None:
            self._on_msg(msg)


def labels(lang: str) -> dict[str, str]:
    return {k.split(".", 1)[1]: v for k, v in catalogue(lang).items() if k.startswith("class.")}


def _exercise(exercise_id) -> exercises.Exercise | None:
    if not isinstance(exercise_id, str):
        return None
    return next((e for e in exercises.exercises() if e.id == exercise_id), None)


def canonical(exercise: exercises.Exercise, given) -> str:
    """An answer as the broker keeps it: an option's index, or the number in the model's units."""
    return str(int(given)) if exercise.kind == "choice" else repr(float(given))


def _value(exercise: exercises.Exercise, kept: str):
    return int(kept) if exercise.kind == "choice" else float(kept)


def result_rows(exercise: exercises.Exercise, result: dict, lang: str) -> dict:
    """A revealed question's result in ``lang``: the computed answer, and one row per answer
    given (as the page writes it; answers written alike counted together), right ones marked.
    A choice lists every option (0 for none)."""
    expected = result["value"]
    rows: dict[str, dict] = {}
    if exercise.kind == "choice":
        for i in range(len(exercise.options(lang))):
            label = exercises.shown(exercise, i, lang)
            rows[label] = {"label": label, "count": 0, "right": i == expected}
    total = 0
    for kept, count in result["counts"]:
        try:
            given = _value(exercise, kept)
        except (TypeError, ValueError):
            continue
        label = exercises.shown(exercise, given, lang)
        row = rows.setdefault(
            label,
            {"label": label, "count": 0, "right": exercises.is_right(exercise, given, expected)},
        )
        row["count"] += int(count)
        total += int(count)
    ordered = list(rows.values())
    if exercise.kind != "choice":
        ordered.sort(key=lambda r: (-r["count"], r["label"]))
        if len(ordered) > MAX_ROWS:
            rest = sum(r["count"] for r in ordered[MAX_ROWS - 1 :])
            others = {"label": text("class.others", lang), "count": rest, "right": False}
            ordered = [*ordered[: MAX_ROWS - 1], others]
    right = sum(r["count"] for r in ordered if r["right"])
    return {
        "expected": exercises.shown(exercise, expected, lang),
        "rows": ordered,
        "total": total,
        "right": right,
    }


class ClassSession:
    """One lecture session's part in the class (see the module docstring)."""

    def __init__(self, lecture, lecturer: bool):
        self.lecture = lecture
        self.lang = getattr(lecture, "lang", DEFAULT_LANG)
        self.lecturer = lecturer
        self.broker = shared_state.broker()
        self.hub = shared_state.hub()
        doc = pn.state.curdoc
        # Served: every update runs on this session's document (its lock, its websocket).
        self.doc = doc if doc is not None and doc.session_context is not None else None
        self.following = False
        self.left = False  # by the student's own choice (or a change of theirs)
        self.ended = False  # the lecturer ended the class (their page)
        self.voter: str | None = None
        self.mine: dict[int, str] = {}  # question seq -> this session's answer, as shown
        self.message: dict | None = None
        self._followed: str | None = None  # this session's link right after following
        self._applied_seq = 0
        self._applying = False
        self._lock = threading.Lock()
        self._pending: set[str] = set()
        self._last_publish = float("-inf")
        self._publish_pending = False
        self.panel = ClassPanel(
            on_msg=self.handle,
            labels_json=json.dumps(labels(self.lang), ensure_ascii=False),
            css_classes=["c04-class"],
            margin=(0, 10),
        )
        lecture.link.address.param.watch(self._on_query, "query")
        if self.doc is not None:
            pn.state.on_session_destroyed(lambda _ctx: self.hub.leave(self))
        # Told of the class once a browser shows the page: a session made only to render a
        # page (--reuse-sessions) never runs its callbacks, and would hold up the hub's queue.
        pn.state.onload(self._loaded)

    def _loaded(self) -> None:
        self.hub.join(self)
        for kind in ("state", "question", "count"):  # what came before the page loaded
            self.notify(kind)

    # -- start -------------------------------------------------------------------------------

    def start(self) -> None:
        """After the page's own link was applied: the lecturer starts (or goes on with) the
        class; a student joins a live one, following."""
        if self.lecturer:
            self._publish_now()
        else:
            self._follow(self.hub.snapshot()["state"])
        self.draw()

    # -- from the hub (any thread) -----------------------------------------------------------

    def notify(self, kind: str) -> None:
        if kind == "count" and not self.lecturer:
            return  # only the lecturer's page shows the count
        with self._lock:
            self._pending.add(kind)
        # Its turn on this session's document, after the sessions before it (shared_state.Hub).
        self.hub.schedule(self, first=self.lecturer)

    def update(self) -> None:
        with self._lock:
            kinds, self._pending = self._pending, set()
        if not kinds:
            return
        snapshot = self.hub.snapshot()
        if "state" in kinds and not self.lecturer:
            self._follow(snapshot["state"])
        if "broker" in kinds and self.lecturer and self.hub.connected and not self.ended:
            # The broker is back (it may have restarted empty): the class's state again.
            self._publish_now()
        self.draw()

    # -- following ---------------------------------------------------------------------------

    def _follow(self, state: dict | None) -> None:
        if state is None or not state.get("live"):
            # No class (or it ended): nothing to follow; the next class starts followed again.
            self.following, self.left = False, False
            return
        if not self.following and not self.left:
            self.following = True
        if self.following and state["seq"] != self._applied_seq:
            self._apply(state)

    def _apply(self, state: dict) -> None:
        self._applying = True
        try:
            self.lecture.link.apply("?" + state["query"], only_changed=True)
        finally:
            self._applying = False
        self._followed = self.lecture.link.address.query
        self._applied_seq = state["seq"]

    def _on_query(self, event) -> None:
        if self.lecturer:
            if not self.ended:
                self._schedule_publish()
        elif self.following and not self._applying and event.new != self._followed:
            self.following, self.left = False, True
            self.message = {"text": text("class.left_by_change", self.lang), "kind": "note"}
            self.draw()

    # -- the lecturer's state ----------------------------------------------------------------

    def _schedule_publish(self) -> None:
        if self._publish_pending:
            return  # the pending one sends the newest state
        wait = shared_state.PUBLISH_INTERVAL_S - (shared_state.now() - self._last_publish)
        if wait <= 0 or self.doc is None:
            self._publish_now()
            return
        self._publish_pending = True
        self.doc.add_timeout_callback(self._flush, max(1, int(wait * 1000)))

    def _flush(self) -> None:
        self._publish_pending = False
        if not self.ended:
            self._publish_now()

    def _publish_now(self) -> None:
        self._last_publish = shared_state.now()
        try:
            self.broker.publish_state(self.lecture.link.address.query, live=True)
        except BrokerDown:
            self._say("class.broker_down", "error")

    # -- messages from the page --------------------------------------------------------------

    def handle(self, msg: dict) -> None:
        """What the page sends. The session's role decides what is allowed, never the message."""
        action = msg.get("action")
        if action in LECTURER_ACTIONS and not self.lecturer:
            log.info("Clase: acción «%s» rechazada: esta sesión no es la del profesor", action)
            self._say("class.refused", "error")
            return
        self.message = None
        try:
            if action == "follow" and not self.lecturer:
                self.left, self._applied_seq = False, 0  # the lecturer's state again, now
                self._follow(self.hub.snapshot()["state"])
            elif action == "leave" and not self.lecturer:
                self.following, self.left = False, True
            elif action == "answer":
                self._answer(msg)
            elif action == "ask":
                exercise = _exercise(msg.get("id"))
                if exercise is None:
                    self._say("class.unknown_exercise", "error")
                else:
                    self.broker.ask(exercise.id)
            elif action == "reveal":
                self._reveal()
            elif action == "clear":
                self.broker.clear()
            elif action == "end":
                self.ended = True
                self.broker.end()
            elif action == "resume":
                self.ended = False
                self._publish_now()
        except BrokerDown:
            self._say("class.broker_down", "error")
        self.draw()

    def _say(self, key: str, kind: str = "note") -> None:
        self.message = {"text": text(key, self.lang), "kind": kind}
        self.draw()

    def _answer(self, msg: dict) -> None:
        question = self.hub.snapshot()["question"]
        qseq = msg.get("seq")
        if question is None or question.get("revealed") or qseq != question.get("seq"):
            self._say("class.closed")
            return
        exercise = _exercise(question["id"])
        answer = msg.get("answer")
        given = exercises.parse_answer(exercise, answer) if exercise else None
        if given is None:
            self._say("exercises.unreadable", "error")
            return
        voter = msg.get("voter")
        if self.voter is None:  # one voter per session, the first it says (or its own)
            ok = isinstance(voter, str) and shared_state.VOTER.match(voter)
            self.voter = voter if ok else shared_state.new_token()
        count = self.broker.answer(question["seq"], self.voter, canonical(exercise, given))
        if count is None:
            self._say("class.closed")
            return
        self.mine[question["seq"]] = exercises.shown(exercise, given, self.lang)
        self.message = {"text": text("class.sent", self.lang), "kind": "note"}

    def _reveal(self) -> None:
        question = self.hub.snapshot()["question"]
        if question is None:
            return
        exercise = _exercise(question["id"])
        if exercise is None:
            return
        demo = registry.demo(exercise.demo)
        model = getattr(self.lecture, demo.module)
        # The lecturer's page goes to the question's state (and the followers with it); the
        # answer is computed there, now.
        with pn.io.hold():
            value = exercises.solve(exercise, model)
            section = next(s.id for s in registry.SECTIONS if exercise.demo in s.demos)
            self.lecture.go(section)
        value = int(value) if exercise.kind == "choice" else float(value)
        self.broker.reveal(question["seq"], value)

    # -- drawing -----------------------------------------------------------------------------

    def view(self) -> dict:
        snapshot = self.hub.snapshot()
        state = snapshot["state"]
        live = bool(state and state.get("live"))
        view: dict = {
            "role": "lecturer" if self.lecturer else "student",
            "live": live,
            "following": self.following,
            "connected": self.hub.connected,
            "message": self.message,
            "question": self._question_view(snapshot),
        }
        if self.lecturer:
            view["ended"] = self.ended
            view["exercises"] = self._choices()
        return view

    def _question_view(self, snapshot: dict) -> dict | None:
        question = snapshot["question"]
        if question is None:
            return None
        exercise = _exercise(question["id"])
        if exercise is None:
            return None
        out = {
            "seq": question["seq"],
            "id": exercise.id,
            "card": practice.card_spec(exercise, self.lang),
            "revealed": bool(question.get("revealed")),
            "mine": self.mine.get(question["seq"], ""),
        }
        count = snapshot["count"]
        if self.lecturer:
            # Only the lecturer's page shows the count live (a student's form is not redrawn
            # at each answer of the class).
            ok = count is not None and count.get("qseq") == question["seq"]
            out["count"] = count["count"] if ok else 0
        if question.get("revealed") and question.get("result"):
            out["result"] = result_rows(exercise, question["result"], self.lang)
        return out

    def _choices(self) -> dict:
        section = self.lecture.sections[self.lecture.nav.value]
        here = [e.id for d in section.demos for e in exercises.of_demo(d)]
        # The section on screen's questions first (the lecturer asks about what the class
        # sees), then the others in the file's order; redrawn at each change of section.
        everything = exercises.exercises()
        ordered = [e for e in everything if e.id in here]
        ordered += [e for e in everything if e.id not in here]
        options = []
        for exercise in ordered:
            title = registry.demo(exercise.demo).title(self.lang)
            question = exercise.text("question", self.lang)
            question = question if len(question) <= 90 else question[:89] + "…"
            options.append({"id": exercise.id, "label": f"{title}: {question}"})
        return {"options": options, "current": here[0] if here else options[0]["id"]}

    def draw(self) -> None:
        self.panel.view_json = json.dumps(self.view(), ensure_ascii=False)


def session_token() -> str | None:
    """The lecturer token the page was opened with (``?profesor=``), or None."""
    args = pn.state.session_args or {}
    values = args.get(shared_state.TOKEN_KEY) or []
    if not values:
        return None
    value = values[0]
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def join(lecture) -> ClassSession:
    """This lecture session's part in the class: the lecturer's if it was opened with the
    server's token."""
    return ClassSession(lecture, lecturer=shared_state.is_lecturer(session_token()))
