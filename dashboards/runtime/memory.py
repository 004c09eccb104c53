"""Server memory: what a served lecture does so that a class's sessions leave no memory behind.

Operational code, not the lecture's: the cyclic collector kept out of the open sessions' objects
(``freeze_survivors``), and a collection plus glibc's ``malloc_trim`` a few seconds after a burst
of closed sessions (``release_memory_later``). Measured in issue 5/6's soak and load benches.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import math
import os
import time

from tornado.ioloop import IOLoop

# A fixed name: the served scripts import this module, and the benches read its INFO lines.
log = logging.getLogger("dashboards.runtime.memory")


# Seconds after the last discarded session before its memory is handed back to the system: after
# Panel's own debounced gc.collect() (5 s), and once for a burst of closing sessions. The server's
# environment may set it (C04_RELEASE_DELAY, 0.1–600 s): `make test`'s soak smoke waits 1 s.
DEFAULT_RELEASE_DELAY = 6.0


def release_delay(value: str | None) -> float:
    """C04_RELEASE_DELAY read as seconds; the default when unset or not a number in 0.1–600."""
    try:
        seconds = float(value) if value is not None else DEFAULT_RELEASE_DELAY
    except ValueError:
        seconds = math.nan
    if not 0.1 <= seconds <= 600:
        log.info(
            "C04_RELEASE_DELAY=%r no es un número de segundos entre 0,1 y 600; se usan %g s",
            value,
            DEFAULT_RELEASE_DELAY,
        )
        return DEFAULT_RELEASE_DELAY
    return seconds


RELEASE_DELAY = release_delay(os.environ.get("C04_RELEASE_DELAY"))
_release = {"handle": None, "trim": None}


def _malloc_trim():
    """glibc's malloc_trim, or None (another C library)."""
    if _release["trim"] is None:
        try:
            _release["trim"] = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _release["trim"] = False
    return _release["trim"] or None


def freeze_survivors() -> None:
    """Put every object alive now out of the cyclic garbage collector's walks (``gc.freeze``).

    Called once a served session has its section on screen. Without it, each of CPython's full
    collections walked every object of every open session: in a 100-session load run, 17 pauses
    of up to 2.9 s (p95 of a change: 1.8 s). ``_release_memory`` unfreezes everything before
    it collects, so the sessions that closed are still freed.
    """
    gc.freeze()


def _release_memory() -> None:
    _release["handle"] = None
    start = time.perf_counter()
    gc.unfreeze()
    collected = gc.collect()
    gc.freeze()  # the open sessions that survived stay out of the automatic collections
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
    # One line per burst of closed sessions: the soak and session benches wait for it.
    log.info(
        "Memoria liberada: %d objetos recogidos en %.0f ms",
        collected,
        (time.perf_counter() - start) * 1e3,
    )


def release_memory_later(session_context) -> None:
    """On a discarded session: collect and hand free heap pages back to the system, a few
    seconds after the last of a burst (glibc's malloc_trim; CPython's own small-object arenas
    only shrink when the server runs with PYTHONMALLOC=malloc)."""
    loop = IOLoop.current()
    if _release["handle"] is not None:
        loop.remove_timeout(_release["handle"])
    _release["handle"] = loop.call_later(RELEASE_DELAY, _release_memory)
