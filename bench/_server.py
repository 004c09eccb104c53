"""`make serve`'s server for the benchmarks: its command, its environment, start, stop, memory.

Imported by the bench scripts (run as ``python bench/<script>.py``, so this directory is on
``sys.path``). Imports nothing of Panel: the cold-start bench times a server from zero.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboards import APPS  # noqa: E402  (the package's __init__ only: no Panel import)

# The Makefile's SERVE_ENV: the system allocator hands memory back after a class leaves.
SERVE_ENV = {"PYTHONMALLOC": "malloc"}
# Panel logs its sessions (launching, created, destroyed) at INFO only when asked this way;
# unbuffered so the log lines carry the order they happened in.
LOG_ENV = {"PYTHONUNBUFFERED": "1", "PANEL_LOG_LEVEL": "info"}
# Panel's line for each discarded session, and the lecture's once their memory is handed back.
DESTROYED = re.compile(r"Session (\d+) destroyed")
RELEASED = re.compile(r"Memoria liberada")
# Discard closed sessions within ~2 s instead of Bokeh's default 15 s + 17 s.
FAST_DISCARD = ("--check-unused-sessions", "1000", "--unused-session-lifetime", "1000")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def panel_command() -> list[str]:
    script = Path(sys.executable).parent / "panel"
    return [str(script)] if script.exists() else [sys.executable, "-m", "panel"]


def serve_command(port: int | str, *extra: str) -> list[str]:
    """`make serve`'s command on ``port`` (127.0.0.1), plus ``extra`` flags."""
    return [
        *panel_command(),
        "serve",
        *(f"dashboards/{name}.py" for name in APPS),
        "--address",
        "127.0.0.1",
        "--port",
        str(port),
        "--allow-websocket-origin",
        f"localhost:{port}",
        "--allow-websocket-origin",
        f"127.0.0.1:{port}",
        "--index",
        "lecture",
        *extra,
    ]


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
    """`make serve`'s server (its own process group), returned once /lecture answers 200."""
    log = log_path.open("w", encoding="utf-8")
    proc = subprocess.Popen(
        serve_command(port, *extra),
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, **SERVE_ENV, **LOG_ENV, **(env or {})},
        start_new_session=True,
    )
    log.close()  # the child has its own descriptor
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"panel serve terminó con código {proc.returncode}:\n{log_path.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/lecture", timeout=5) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    stop(proc)
    sys.exit(f"panel serve no respondió en {timeout:g} s (registro: {log_path})")


def stop(proc: subprocess.Popen) -> None:
    """Stop a server started in its own process group (with make: make and panel serve)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


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
