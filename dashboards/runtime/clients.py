"""What a browser may send, checked where it comes in: the widgets' changes from the websocket.

A student's page only ever writes a widget's value (a slider's ``value``, a box's text, a
button group's ``active``…), and only values the page can produce. A student with a websocket
client can send anything: any property of any widget, of any type, at any rate. ``guard(root)``
puts every widget under ``root`` behind a check, once per session's view:

- only the properties a browser writes for that kind of widget are taken (``CLIENT_WRITES``);
  anything else (a forged ``max_length``, ``options``, ``start``…) is dropped and logged;
- a value the widget or the model refuses (wrong type, out of range, no such option or index,
  text over the model's cap: ``REFUSED``) leaves the widget and the model at the last valid
  state, sends the widget back to the browser at that state, and logs one INFO line naming the
  control: never Panel's ERROR with a traceback, never Tornado's "Exception in callback";
- a session that sends changes faster than the server can compute them is paced: its next
  update waits until its previous ones have used at most ``SHARE`` of the time since it began,
  and the changes that arrive meanwhile are merged (the latest value of each wins). A flood of
  slider values from one session then costs its worker at most a third of its time (Panel
  already merges the changes that arrive while one is pending), and the other sessions keep
  their latency (``make bench``, the flood row: p95 1.5× the quiet one, target ≤ 2×).

Bokeh checks a property's type itself before Panel sees a change: a string for a slider's
value is refused there, and its protocol handler answers the client ERROR and logs ERROR with a
traceback (and the whole message, however large). ``install_log_filters`` turns those records,
and only those (a client's value refused by a property's type), into one INFO line.
"""

from __future__ import annotations

import contextvars
import logging
import time
import weakref

import panel as pn
import param

log = logging.getLogger("dashboards.runtime.clients")

# What a refused client value raises: param and the models refuse with ValueError (an
# attnmodel Refusal) or TypeError; Panel's own conversions (an index into a button group's
# labels, an option of a select) with IndexError or KeyError; int → float with OverflowError.
REFUSED = (ValueError, TypeError, IndexError, KeyError, OverflowError)

# The Bokeh properties a browser writes, by Panel widget class (the first that matches).
CLIENT_WRITES: tuple[tuple[type, tuple[str, ...]], ...] = (
    (pn.widgets.TextInput, ("value", "value_input")),
    (pn.widgets.IntSlider, ("value", "value_throttled")),
    (pn.widgets.FloatSlider, ("value", "value_throttled")),
    # A number box (Bokeh's Spinner) sends value_throttled with value on Enter or leaving it.
    (pn.widgets.IntInput, ("value", "value_throttled")),
    (pn.widgets.FloatInput, ("value", "value_throttled")),
    (pn.widgets.Select, ("value",)),
    (pn.widgets.RadioButtonGroup, ("active",)),
    (pn.widgets.Checkbox, ("active",)),
    (pn.widgets.Button, ()),  # a click is an event, not a property
)
# The widget parameters a change from the browser can move (restored after a refusal).
VALUE_PARAMS = ("value", "value_input", "value_throttled")

# At most this share of a session's time goes to computing its updates when it sends faster
# than they are computed: after an update that took d seconds, its next one waits
# d · (1 − SHARE) / SHARE (two updates of 10 ms at most every 30 ms at a third).
SHARE = 1 / 3
# ... but never more than this: building a section (~0.3 s, once per section and session) must
# not hold the next click back twice as long.
MAX_WAIT_S = 0.2
# A text longer than this is cut in the log line (a forged value can be megabytes).
LOG_CHARS = 80

_refusing = contextvars.ContextVar("c04_refusing", default=False)
# Per session (its Bokeh document): when its next update may run.
_next_update: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# The widgets already behind the check (kept here, not as an attribute written on Panel's).
_guarded: weakref.WeakSet = weakref.WeakSet()


def client_writes(widget) -> tuple[str, ...]:
    """The Bokeh properties a browser writes for ``widget``: a component's own
    ``client_writes`` (a matrix's cells: ``commit``), else by its widget class, else
    ("value",)."""
    own = getattr(type(widget), "client_writes", None)
    if own is not None:
        return tuple(own)
    for cls, props in CLIENT_WRITES:
        if isinstance(widget, cls):
            return props
    return ("value",)


def brief(value) -> str:
    """``repr(value)`` cut to LOG_CHARS characters, saying how long it was."""
    text = repr(value)
    if len(text) <= LOG_CHARS:
        return text
    return f"{text[:LOG_CHARS]}… ({len(text)} caracteres)"


def control_name(widget) -> str:
    """What the log calls a widget: its label, else its kind and CSS classes."""
    if widget.name and not widget.name.startswith(type(widget).__name__):
        return widget.name
    classes = ",".join(widget.css_classes or ())
    return f"{type(widget).__name__}[{classes}]" if classes else type(widget).__name__


def refused(control: str, values: dict, reason: str) -> None:
    """The one INFO line of a client's value refused by ``control``: the values (cut), why."""
    log.info(
        "Control «%s»: valor de un cliente rechazado (%s): %s; queda el último válido.",
        control,
        ", ".join(f"{k}={brief(v)}" for k, v in values.items()),
        reason,
    )


def take(control: str, target: param.Parameterized, name: str, value) -> bool:
    """A client's value for ``target``'s parameter ``name`` (a Board's control, a message):
    set through param's own checks (type, bounds, options; an attnmodel model's Refusal), or
    refused with one INFO line, the last valid value kept. Returns whether it was taken."""
    try:
        target.param.update({name: value})
    except REFUSED as exc:
        refused(control, {name: value}, brief(str(exc))[1:-1])
        return False
    return True


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:
        return False


def check_index(widget, taken: dict) -> None:
    """A button group's ``active`` must be one of its buttons: Panel would read −1 as the last
    one (a Python index) and raise IndexError only past the end."""
    if "active" in taken and isinstance(widget, pn.widgets.RadioButtonGroup):
        index = taken["active"]
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"active: {brief(index)} no es un entero")
        if not 0 <= index < len(widget.options):
            raise IndexError(f"active: {index} fuera de 0 … {len(widget.options) - 1}")


def _restore(widget, before: dict) -> None:
    """The widget back at ``before`` and the browser told: a parameter that moved is set back
    (Panel sends it); one that never moved while the browser holds the refused value is
    triggered, so Panel sends it again."""
    moved = {p: v for p, v in before.items() if not _same(getattr(widget, p), v)}
    if moved:
        # value_throttled is constant: only the browser moves it (Panel edits it the same way).
        with param.edit_constant(widget):
            widget.param.update(**moved)
    still = [p for p in before if p not in moved]
    if still:
        widget.param.trigger(*still)


def is_guarded(widget) -> bool:
    return widget in _guarded


def guard_widget(widget) -> None:
    """Put one widget behind the check (idempotent)."""
    if widget in _guarded:
        return
    accepted = client_writes(widget)
    # What a refusal restores: the value parameters, and a component's own writes (a matrix's
    # commit, whose forged value the browser would otherwise be sent back).
    params = [p for p in dict.fromkeys((*VALUE_PARAMS, *accepted)) if p in widget.param]
    process = widget._process_events  # Panel's: the client's changes → the widget's params

    def checked(events: dict) -> None:
        taken = {k: v for k, v in events.items() if k in accepted}
        dropped = sorted(set(events) - set(taken))
        if dropped:
            log.info(
                "Control «%s»: un cliente escribió %s, que el navegador no escribe; ignorado.",
                control_name(widget),
                ", ".join(dropped),
            )
            # Bokeh has already set them on its side: Panel sends the widget's own back.
            same_name = [p for p in dropped if p in widget.param and p not in VALUE_PARAMS]
            if same_name:
                widget.param.trigger(*same_name)
        if not taken:
            return
        doc = pn.state.curdoc
        wait = _wait(doc)
        if wait > 0:
            # Paced: merged with what arrives meanwhile (Panel adds to _events while it is
            # not empty and schedules nothing more), handled once the wait is over.
            widget._events = {**taken, **widget._events}
            doc.add_timeout_callback(lambda: widget._change_event(doc), wait * 1000)
            return
        before = {p: getattr(widget, p) for p in params}
        token = _refusing.set(True)
        start = time.perf_counter()
        try:
            check_index(widget, taken)
            process(taken)
        except REFUSED as exc:
            refused(control_name(widget), taken, brief(str(exc))[1:-1])
            _restore(widget, before)
        finally:
            _refusing.reset(token)
            _spent(doc, time.perf_counter() - start)

    # Private API: Panel has no hook between a browser's change and the widget's parameters,
    # and its Syncable._process_events logs any failure at ERROR with a traceback, then raises
    # it into Tornado ("Exception in callback"). Measured: a forged temperature of −5 did that.
    widget._process_events = checked
    _guarded.add(widget)


def _served(doc) -> bool:
    """A served session's document: only there do timeout callbacks run (a notebook's or a
    test's document has no server loop, so a paced change would never be handled)."""
    return doc is not None and doc.session_context is not None


def _wait(doc) -> float:
    """Seconds until session ``doc`` may compute its next update (0: now)."""
    if not _served(doc):
        return 0.0
    due = _next_update.get(doc)
    return 0.0 if due is None else max(due - time.monotonic(), 0.0)


def _spent(doc, seconds: float) -> None:
    if _served(doc):
        _next_update[doc] = time.monotonic() + min(seconds * (1 - SHARE) / SHARE, MAX_WAIT_S)


def turn(doc) -> float:
    """Seconds until session ``doc`` may compute its next client change (0: now): a session
    that sends faster than its updates are computed waits, so it uses at most SHARE of the
    worker (a Board's messages and the guarded widgets alike)."""
    return _wait(doc)


def spent(doc, seconds: float) -> None:
    """Session ``doc`` spent ``seconds`` on a client's change: its next one waits for its turn."""
    _spent(doc, seconds)


def controls(root) -> list:
    """What a browser writes to under ``root`` (a layout or a Viewer): its widgets and the
    components that say what a browser writes (``client_writes``)."""
    view = root.__panel__() if isinstance(root, pn.viewable.Viewer) else root
    return view.select(
        lambda obj: isinstance(obj, pn.widgets.Widget) or hasattr(type(obj), "client_writes")
    )


def guard(root) -> int:
    """Every control under ``root`` (a layout or a Viewer) behind the check; returns how
    many."""
    widgets = controls(root)
    for widget in widgets:
        guard_widget(widget)
    return len(widgets)


class _QuietRefusals(logging.Filter):
    """Drops Panel's ERROR record for a refusal a guard is handling (it logs its own line);
    any other failure keeps its ERROR and traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not (_refusing.get() and isinstance(exc, REFUSED))


class _BokehRefusals(logging.Filter):
    """Bokeh's protocol handler refusing a client's patch because a value fails a property's
    type: one INFO line instead of ERROR, a traceback and the whole message."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, REFUSED) and str(record.msg).startswith("error handling message"):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.name = log.name
            record.msg = "Mensaje de un cliente rechazado: %s"
            record.args = (brief(str(exc))[1:-1],)
            record.exc_info = record.exc_text = None
        return True


def install_log_filters() -> None:
    """The two filters above on Panel's and Bokeh's loggers (once per process)."""
    for name, cls in (
        ("panel.reactive", _QuietRefusals),
        ("bokeh.server.protocol_handler", _BokehRefusals),
    ):
        logger = logging.getLogger(name)
        if not any(isinstance(f, cls) for f in logger.filters):
            logger.addFilter(cls())
