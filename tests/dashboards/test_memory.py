"""Server memory (dashboards/runtime/memory.py): closed sessions collected and trimmed once per
burst."""

from __future__ import annotations

import importlib.util
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from dashboards.runtime import memory


def test_discarded_sessions_release_memory_once_per_burst(monkeypatch):
    import asyncio

    calls = []

    def release():
        memory._release["handle"] = None
        calls.append(1)

    monkeypatch.setattr(memory, "_release_memory", release)
    monkeypatch.setattr(memory, "RELEASE_DELAY", 0.05)

    async def burst():
        for _ in range(3):
            memory.release_memory_later(None)
        await asyncio.sleep(0.3)

    # In a thread of its own: Playwright's sync fixtures keep a loop running in the test thread
    # when a browser test ran before on this worker.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, burst()).result(timeout=30)
    assert calls == [1]


def _bench_server():
    """bench/_server.py, whose RELEASED pattern the soak and session benches wait for."""
    path = Path(__file__).resolve().parents[2] / "bench" / "_server.py"
    spec = importlib.util.spec_from_file_location("bench_server", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_release_memory_collects_and_trims(monkeypatch, caplog):
    """Collects the cycles of closed sessions (frozen objects included), trims the heap once,
    keeps the survivors frozen and logs the line the benches wait for."""
    import gc

    trims = []
    monkeypatch.setitem(memory._release, "trim", lambda pad: trims.append(pad) or 1)
    monkeypatch.setitem(memory._release, "handle", object())

    class Closed:  # a closed session's objects: a reference cycle
        pass

    cycle = Closed()
    cycle.self = cycle
    gc.freeze()  # as freeze_survivors() leaves a served session's objects
    del cycle
    try:
        with caplog.at_level(logging.INFO, logger="dashboards.runtime.memory"):
            memory._release_memory()
        assert not [o for o in gc.get_objects() if type(o) is Closed]
        assert trims == [0]
        assert memory._release["handle"] is None
        assert gc.get_freeze_count() > 0  # what survived is frozen again
        [record] = [r for r in caplog.records if r.name == "dashboards.runtime.memory"]
        assert _bench_server().RELEASED.search(record.getMessage())
    finally:
        gc.unfreeze()


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (None, 6.0),
        ("1", 1.0),
        ("0.5", 0.5),
        ("600", 600.0),
        ("0", 6.0),
        ("-1", 6.0),
        ("nan", 6.0),
        ("inf", 6.0),
        ("1e9", 6.0),
        ("uno", 6.0),
        ("", 6.0),
    ],
)
def test_release_delay_comes_from_the_environment_or_the_default(value, seconds):
    assert memory.release_delay(value) == seconds
