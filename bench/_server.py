"""`make serve`'s server for the benchmarks: start with Panel's session log, memory, log lines.

Imported by the bench scripts (run as ``python bench/<script>.py``, so this directory is on
``sys.path``). The command, its environment, start and stop are dashboards/serving.py's (shared
with `make serve`, the tests and the screenshots). Imports nothing of Panel: the cold-start bench
times a server from zero.
"""

from __future__ import annotations

import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

# The one serve command and its environment (PYTHONMALLOC=malloc), as `make serve`.
from dashboards import serving  # noqa: E402  (imports nothing of Panel)
from dashboards.serving import PROD_FLAGS, SERVE_ENV, free_port, stop  # noqa: E402, F401
from dashboards.serving import command as serve_command  # noqa: E402, F401

# Panel logs its sessions (launching, created, destroyed) at INFO only when asked this way;
# unbuffered so the log lines carry the order they happened in.
LOG_ENV = {"PYTHONUNBUFFERED": "1", "PANEL_LOG_LEVEL": "info"}
# Panel's line for each discarded session, and the lecture's once their memory is handed back.
DESTROYED = re.compile(r"Session (\d+) destroyed")
RELEASED = re.compile(r"Memoria liberada")
# Discard closed sessions within ~2 s instead of Bokeh's default 15 s + 17 s.
FAST_DISCARD = ("--check-unused-sessions", "1000", "--unused-session-lifetime", "1000")


def make_command(port: int | str) -> list[str]:
    """`make serve` itself on ``port`` (bound to 127.0.0.1, as by default)."""
    return ["make", "--no-print-directory", "serve", f"PORT={port}", "HOST=127.0.0.1"]


def listening(port: int, timeout: float = 0.05) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def start(
    port: int, log_path: Path, *extra: str, env: dict | None = None, timeout: float = 60.0
) -> subprocess.Popen:
    """`make serve`'s server with Panel's session log (its own process group), returned once
    /lecture answers 200; exits the bench with the server's log if it does not."""
    try:
        return serving.start(
            port, log_path, *extra, env={**LOG_ENV, **(env or {})}, timeout=timeout
        )
    except RuntimeError as exc:
        sys.exit(str(exc))


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("VmRSS no aparece en /proc")


def settled_rss(pid: int, seconds: float = 3.0) -> float:
    """RSS once it stops moving: the median of the samples of the last ``seconds``."""
    samples = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        samples.append(rss_mb(pid))
        time.sleep(0.25)
    return statistics.median(samples)


def read_log(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def released_since_last_destroyed(path: Path) -> bool:
    """The lecture logged "Memoria liberada" after the last "Session … destroyed" line."""
    last_destroyed = last_released = -1
    for k, line in enumerate(read_log(path)):
        if DESTROYED.search(line):
            last_destroyed = k
        elif RELEASED.search(line):
            last_released = k
    return last_released > last_destroyed
