"""The language model's work, off the event loop: one thread per process runs it.

A forward pass of SmolLM2 (attnmodel/smollm.py) is 50–160 ms, a generation a second or more, and
the model's first load builds its cache (tens of seconds, once per machine). Run in a session's
callback, that would hold every other session of the worker. Here each such job runs in the one
model thread of the process (the model uses one core; a second thread would only share it), and
its result comes back to the session's document on its own event loop
(``Document.add_next_tick_callback``, the one Bokeh method documented as safe to call from
another thread).

A view keeps one :class:`Jobs`: while a job runs, a newer request replaces any queued one (a
slider dragged over ten values computes the first and the last), and every result is applied
in the order asked. Without a served session (the tests' views, the export) a job runs at once,
in the caller's thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial

import panel as pn
from panel.io.state import set_curdoc

from attnmodel import smollm

log = logging.getLogger("dashboards.runtime.model_thread")

_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="c04-model")
_loaded = threading.Event()


def ready() -> bool:
    """Whether this process has loaded the model (the first job loads it)."""
    return _loaded.is_set()


def _load() -> None:
    smollm.model()
    _loaded.set()


def _served(doc) -> bool:
    return doc is not None and getattr(doc, "session_context", None) is not None


class Jobs:
    """A view's model jobs: ``submit(work, done, failed)`` runs ``work()`` in the model thread
    (the model loaded first), then ``done(result)`` — or ``failed(exception)`` — in the
    session, under its document."""

    def __init__(self) -> None:
        self._doc = pn.state.curdoc
        self._running = False
        self._queued: tuple | None = None

    @property
    def busy(self) -> bool:
        return self._running

    def submit(
        self,
        work: Callable[[], object],
        done: Callable[[object], None],
        failed: Callable[[BaseException], None],
    ) -> None:
        if not _served(self._doc):
            try:
                _load()
                result = work()
            except Exception as exc:
                log.info("El modelo no pudo calcular: %s", exc)
                failed(exc)
                return
            done(result)
            return
        self._queued = (work, done, failed)
        if not self._running:
            self._start()

    def _start(self) -> None:
        work, done, failed = self._queued
        self._queued = None
        self._running = True
        future = _POOL.submit(lambda: (_load(), work())[1])
        future.add_done_callback(partial(self._back, done=done, failed=failed))

    def _back(self, future: Future, done, failed) -> None:
        # In the model thread: hand the result to the session's own loop.
        try:
            self._doc.add_next_tick_callback(partial(self._finish, future, done, failed))
        except Exception:
            self._running = False

    def _finish(self, future: Future, done, failed) -> None:
        self._running = False
        try:
            with set_curdoc(self._doc):
                exc = future.exception()
                if exc is None:
                    done(future.result())
                else:
                    log.info("El modelo no pudo calcular: %s", exc)
                    failed(exc)
        finally:
            if self._queued is not None:
                self._start()
