"""What a browser may send, checked where it comes in: the messages of the demos' controls.

Every control a student uses is a native control of a Board (dashboards/components/board.py)
or a component's own (MiniLM's HeadGrid): its use is a message (``model.send_msg`` in the
browser, Panel's public ``on_msg`` here), checked by the component and the view that receive
it. A student with a websocket client can send anything, of any type, at any rate:

- a value the view or the model refuses (wrong type, out of range, no such option, text over
  the model's cap: ``REFUSED``) leaves the model at its last valid state and logs one INFO line
  naming the control (``take``, ``refused``): never an ERROR with a traceback;
- a session that sends messages faster than the server can compute them is paced (``turn``,
  ``spent``): its next update waits until its previous ones have used at most ``SHARE`` of the
  time since it began, and the messages that arrive meanwhile are merged (the latest of each
  control wins). A flood from one session then costs its worker at most a third of its time, and
  the other sessions keep their latency (``make bench``, the flood row).

A forged write of a model's property (no page writes one) whose value fails the property's type
is refused by Bokeh before Panel sees it: its protocol handler answers the client ERROR and
logs ERROR with a traceback (and the whole message, however large). ``install_log_filters``
turns those records, and only those (a client's value refused by a property's type), into one
INFO line.
"""

from __future__ import annotations

import logging
import time
import weakref

import param

log = logging.getLogger("dashboards.runtime.clients")

# What a refused client value raises: param and the models refuse with ValueError (an
# attnmodel Refusal) or TypeError; Panel's own conversions (an index into a button group's
# labels, an option of a select) with IndexError or KeyError; int → float with OverflowError.
REFUSED = (ValueError, TypeError, IndexError, KeyError, OverflowError)

# At most this share of a session's time goes to computing its updates when it sends faster
# than they are computed: after an update that took d seconds, its next one waits
# d · (1 − SHARE) / SHARE (two updates of 10 ms at most every 30 ms at a third).
SHARE = 1 / 3
# ... but never more than this: building a section (~0.3 s, once per section and session) must
# not hold the next click back twice as long.
MAX_WAIT_S = 0.2
# A text longer than this is cut in the log line (a forged value can be megabytes).
LOG_CHARS = 80

# Per session (its Bokeh document): when its next update may run.
_next_update: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def brief(value) -> str:
    """``repr(value)`` cut to LOG_CHARS characters, saying how long it was."""
    text = repr(value)
    if len(text) <= LOG_CHARS:
        return text
    return f"{text[:LOG_CHARS]}… ({len(text)} caracteres)"


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


def _served(doc) -> bool:
    """A served session's document: only there do timeout callbacks run (a notebook's or a
    test's document has no server loop, so a paced change would never be handled)."""
    return doc is not None and doc.session_context is not None


def turn(doc) -> float:
    """Seconds until session ``doc`` may compute its next client change (0: now): a session
    that sends faster than its updates are computed waits, so it uses at most SHARE of the
    worker (a Board's messages)."""
    if not _served(doc):
        return 0.0
    due = _next_update.get(doc)
    return 0.0 if due is None else max(due - time.monotonic(), 0.0)


def spent(doc, seconds: float) -> None:
    """Session ``doc`` spent ``seconds`` on a client's change: its next one waits for its turn."""
    if _served(doc):
        _next_update[doc] = time.monotonic() + min(seconds * (1 - SHARE) / SHARE, MAX_WAIT_S)


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
    """The filter above on Bokeh's protocol handler's logger (once per process)."""
    logger = logging.getLogger("bokeh.server.protocol_handler")
    if not any(isinstance(f, _BokehRefusals) for f in logger.filters):
        logger.addFilter(_BokehRefusals())
