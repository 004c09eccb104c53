"""Soak of the served lecture: many sessions opened, edited and closed; errors and memory after.

    make bench            # or: .venv/bin/python bench/bench_soak.py [--sequential 200]
                          #     [--concurrent 50] [--seconds 300] [--json PATH]

One server: `make serve`'s command and environment (bench/_server.py: PYTHONMALLOC=malloc, one
process on a free 127.0.0.1 port), plus fast discarding of closed sessions (FAST_DISCARD) and a
log format that shows each line's level (Panel's own format, given to Bokeh and Tornado too).
The clients are bench_load's raw-websocket tabs: GET the page, open its websocket, pull the
document, send document_ready, wait for the first section.

0. Warm-up: one session that toggles the causal mask and visits every section
   (``--warmup-sections``), closed; the server left to discard it and hand memory back;
   resident memory (VmRSS, settled) is the baseline. What a section imports or caches once per
   process (≈ 8 MB for all six) is thus in the baseline, as on a server that has given a class.
1. ``--sequential`` sessions, one after another: open, toggle "Máscara causal" twice (each
   answered by the server's new attention weights), switch the navigation to ``--sections``
   other sections (each answered by the new section's models; the sessions take the five other
   sections in turn), close.
2. ``--concurrent`` sessions at once (opened over ``--ramp`` seconds), each toggling the checkbox
   once a second for ``--seconds`` (bench_load.load, with its latency: PATCH-DOC sent to the new
   weights received), then all closed.
After each phase: wait until the server's log says every launched session was destroyed (or no
more were for ``--stall`` seconds), then until the lecture logs "Memoria liberada" (its garbage
collection and malloc_trim, 6 s after the last destroyed session plus however long the
collection takes: 3 s for 50 sessions on a busy machine), then settled RSS (median over 3 s).
RSS is sampled every 0.2 s throughout (peaks); the server's CPU time is read per phase.

Server errors, from the server's log (whole run): a record at level WARNING, ERROR or CRITICAL
(Panel reports a failing session callback at WARNING, Bokeh a bad message at ERROR and a reply
to a client that had already gone at WARNING, Tornado an uncaught exception at ERROR); any
"Traceback (most recent call last)" line; any line that is not a log record (no leading
timestamp) and names an exception or a warning (``ValueError:``, ``RuntimeWarning:``), i.e.
what Python prints to stderr. Not errors: INFO records, including the lecture's one line per
rejected input ("… rechazada") and per memory release, which its own logger writes with a
timestamp and no level. Client errors: a session that fails to open, an ERROR message from the
server, an edit unanswered within 10 s, a websocket closed by the server.

Targets (issue #6): 0 server errors, 0 client errors, every session opened and destroyed, every
edit answered, RSS after each phase ≤ 1.10 × the baseline. Exit status 1 when one fails.
``--keep N`` leaves N more sessions open (opened before phase 2) until the end: a leak on
purpose, which the bench must report (sessions not destroyed, memory above the bound).
Writes bench/soak_results.json (or ``--json PATH``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import _server  # noqa: E402
from bench_load import (  # noqa: E402
    UPDATE_TIMEOUT_S,
    Session,
    Stats,
    component_of,
    find_objects,
    load,
    message_event,
)
from tornado.httpclient import AsyncHTTPClient  # noqa: E402

ROOT = _server.ROOT
TARGET_RATIO = 1.10  # resident memory after each phase ≤ 1.10 × baseline
# After the last session is destroyed the lecture collects garbage and trims the heap (6 s
# later, then however long the collection takes) and logs "Memoria liberada"; the bench waits
# for that line (at most RELEASE_TIMEOUT), then reads RSS for SETTLE_S and keeps the median.
RELEASE_TIMEOUT = 60.0
SETTLE_S = 3.0
SAMPLE_S = 0.2
# The concurrent sessions arrive over this long, as a class does: opening one costs the server
# ~1 s of CPU on 2 cores (its first section), so 50 at once would queue the last ones for close
# to bench_load's 60 s limit per step (and a page whose websocket comes more than ~2 s after it
# is discarded and built again, with FAST_DISCARD).
RAMP_S = 45.0
# Panel's own log format (panel/io/logging.py), given to Bokeh's and Tornado's records too.
LOG_FORMAT = "%(asctime)s %(levelname)s: %(name)s - %(message)s"

STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}"
RECORD = re.compile(rf"^{STAMP} ")
LEVEL = re.compile(rf"^{STAMP} (DEBUG|INFO|WARNING|ERROR|CRITICAL): ")
STDERR_PROBLEM = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning)\b:")
LAUNCHED = re.compile(r"Session \d+ launching")
# The lecture's marker of a section whose view has been built (data-testid="section-<id>").
# Panel sends an HTML pane's text escaped: data-testid=&quot;section-<id>&quot;.
# A section's marker: a demo's CopyLink carries it ("marker"), «Para seguir jugando» an HTML span.
MARKER = re.compile(r'(?:data-testid=(?:&quot;|\\*")section-|"marker": ")([\w-]+)')


# --------------------------------------------------------------------------- the server's log


def server_errors(lines: list[str]) -> list[str]:
    """The log lines that count as server errors (see the module docstring)."""
    found = []
    for line in lines:
        if "Traceback (most recent call last)" in line:
            found.append(line)
        elif RECORD.match(line):
            level = LEVEL.match(line)
            if level and level.group(1) in ("WARNING", "ERROR", "CRITICAL"):
                found.append(line)
        elif STDERR_PROBLEM.search(line):
            found.append(line)
    return found


def session_counts(path: Path) -> tuple[int, int]:
    text = path.read_text(encoding="utf-8", errors="replace")
    return len(LAUNCHED.findall(text)), len(_server.DESTROYED.findall(text))


async def wait_destroyed(path: Path, proc, stall: float, timeout: float) -> dict:
    """Wait until the server has destroyed every session it launched, or until no session was
    destroyed for ``stall`` seconds (sessions kept open), or ``timeout``."""
    start = last_change = time.monotonic()
    last = None
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"el servidor terminó con código {proc.returncode}")
        launched, destroyed = session_counts(path)
        now = time.monotonic()
        if launched and destroyed >= launched:
            break
        if destroyed != last:
            last, last_change = destroyed, now
        if now - last_change > stall or now - start > timeout:
            break
        await asyncio.sleep(0.25)
    return {"launched": launched, "destroyed": destroyed, "wait_s": time.monotonic() - start}


async def wait_released(path: Path, timeout: float = RELEASE_TIMEOUT) -> float | None:
    """Seconds until the memory of the last destroyed sessions was handed back, or None."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if _server.released_since_last_destroyed(path):
            return time.monotonic() - start
        await asyncio.sleep(0.25)
    return None


async def after_close(args, proc, log_path: Path) -> dict:
    """Once a phase's sessions are closed: wait until the server destroyed them and handed the
    memory back; then the settled RSS."""
    done = await wait_destroyed(log_path, proc, args.stall, args.discard_timeout)
    done["release_s"] = await wait_released(log_path)
    done["rss"] = await settled_rss(proc.pid, args.settle)
    return done


# --------------------------------------------------------------------------- memory


class Sampler(threading.Thread):
    """The server's RSS every SAMPLE_S seconds, from start to stop, with phase marks."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid = pid
        self.t0 = time.monotonic()
        self.samples: list[tuple[float, float]] = []
        self.marks: dict[str, float] = {}
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            try:
                self.samples.append((time.monotonic() - self.t0, _server.rss_mb(self.pid)))
            except (OSError, RuntimeError):
                return
            self.done.wait(SAMPLE_S)

    def mark(self, name: str) -> None:
        self.marks[name] = time.monotonic() - self.t0

    def peak(self, start: str | None = None, end: str | None = None) -> float | None:
        lo = self.marks.get(start, 0.0) if start else 0.0
        hi = self.marks.get(end, float("inf")) if end else float("inf")
        values = [mb for t, mb in self.samples if lo <= t <= hi]
        return max(values) if values else None

    def series(self, step: float = 1.0) -> list[list[float]]:
        """One sample per ``step`` seconds, for the JSON."""
        out, next_t = [], 0.0
        for t, mb in self.samples:
            if t >= next_t:
                out.append([round(t, 1), round(mb, 1)])
                next_t = t + step
        return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (from /proc)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def settled_rss(pid: int, seconds: float = SETTLE_S) -> float:
    """RSS once it stops moving: the median of the samples of the last ``seconds``."""
    samples = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        samples.append(_server.rss_mb(pid))
        await asyncio.sleep(0.25)
    return statistics.median(samples)


# --------------------------------------------------------------------------- clients


class SoakSession(Session):
    """bench_load's tab, which can also switch the lecture's section and wait for its models."""

    def __init__(self, index: int, base_url: str, stats: Stats):
        super().__init__(index, base_url, stats)
        self.nav_id: str | None = None
        self.nav_data_id: str | None = None
        self.nav_sections: list[str] = []
        self.nav_size = 0
        self.sections_seen: set[str] = set()
        self.section_pending: asyncio.Future | None = None

    async def _recv(self):
        message = await super()._recv()
        if message is not None and message.msgtype in ("PULL-DOC-REPLY", "PATCH-DOC"):
            self._watch(message)
        return message

    def _watch(self, message) -> None:
        if message.msgtype == "PULL-DOC-REPLY":
            for o in find_objects(message.content, []):
                attributes = o.get("attributes", {})
                # The navigation (dashboards/app/navigation.py): its data model's options are
                # the sections (label -> id); a click is a message to its component.
                options = attributes.get("options")
                if o["name"].startswith("Navigation") and isinstance(options, dict):
                    entries = options.get("entries", [])  # a dict, as Bokeh serialises it
                    self.nav_sections = [section for _, section in entries]
                    self.nav_data_id = o["id"]
            if self.nav_data_id is not None:
                component = component_of(find_objects(message.content, []), self.nav_data_id)
                if component is not None:
                    self.nav_id, self.nav_size = component["id"], len(self.nav_sections)
        new = set(MARKER.findall(json.dumps(message.content))) - self.sections_seen
        self.sections_seen |= new
        if new and self.section_pending is not None and not self.section_pending.done():
            self.section_pending.set_result(time.perf_counter())

    async def _edit(self, change: dict, future: asyncio.Future) -> bool:
        """Send one change as a browser would; wait for the server's answer (``future``)."""
        self.stats.changes += 1
        sent = time.perf_counter()
        try:
            await self._send("PATCH-DOC", {"events": [change]})
            arrived = await asyncio.wait_for(future, UPDATE_TIMEOUT_S)
        except TimeoutError:
            self.stats.errors[f"sin respuesta en {UPDATE_TIMEOUT_S:.0f} s"] += 1
            return False
        except Exception:
            self.stats.errors["websocket cerrado por el servidor"] += 1
            return False
        self.stats.latencies_ms.append((arrived - sent) * 1e3)
        return True

    async def toggle(self) -> bool:
        """Toggle "Máscara causal"; answered by the new attention weights."""
        self.causal = not self.causal
        self.pending = asyncio.get_running_loop().create_future()
        change = message_event(self.board_id, {"control": "causal", "value": self.causal})
        return await self._edit(change, self.pending)

    async def navigate(self, index: int) -> bool:
        """Click the navigation's button ``index``; answered by a section not seen before."""
        if self.nav_id is None:
            self.stats.errors["la navegación no llegó"] += 1
            return False
        self.section_pending = asyncio.get_running_loop().create_future()
        change = message_event(self.nav_id, {"section": self.nav_sections[index]})
        return await self._edit(change, self.section_pending)


async def one_session(index: int, base_url: str, stats: Stats, http, sections: int) -> bool:
    """Open a session, toggle the causal mask twice, visit ``sections`` other sections (session
    ``index`` starts at the ``index``-th, so the sessions take them in turn), close it. True when
    the session opened."""
    tab = SoakSession(index, base_url, stats)
    if not await tab.open(http):
        return False
    try:
        await tab.toggle()
        await tab.toggle()
        others = max(tab.nav_size - 1, 1)
        for k in range(sections):
            await tab.navigate(1 + (index + k) % others)
    finally:
        await tab.close()
    return True


def pct(values, q) -> float | None:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else None


def edits(stats: Stats) -> dict:
    lat = stats.latencies_ms
    return {
        "sent": stats.changes,
        "acknowledged": len(lat),
        "p50_ms": pct(lat, 50),
        "p95_ms": pct(lat, 95),
        "p99_ms": pct(lat, 99),
        "max_ms": max(lat) if lat else None,
    }


# --------------------------------------------------------------------------- the run


async def soak(args, proc, log_path: Path, base_url: str) -> dict:
    pid = proc.pid
    sampler = Sampler(pid)
    sampler.start()
    http = AsyncHTTPClient(force_instance=True, max_clients=max(args.keep, 10))
    kept: list[SoakSession] = []
    wall: dict[str, float] = {}
    t_start = time.monotonic()
    try:
        # 0. Warm-up: every section once, so what is imported or cached once per process (a
        # server that has given one class) is in the baseline.
        warm = Stats()
        await one_session(0, base_url, warm, http, args.warmup_sections)
        if warm.errors or len(warm.latencies_ms) != 2 + args.warmup_sections:
            raise RuntimeError(f"la sesión de calentamiento falló: {dict(warm.errors)}")
        warmed = await after_close(args, proc, log_path)
        baseline = warmed["rss"]
        print(f"Base: {baseline:.1f} MB", flush=True)

        # 1. One after another.
        sampler.mark("phase1")
        t = time.monotonic()
        seq = Stats()
        opened1 = 0
        cpu0 = cpu_seconds(pid)
        for i in range(args.sequential):
            opened1 += await one_session(i, base_url, seq, http, args.sections)
            if (i + 1) % 50 == 0:
                print(
                    f"  fase 1: {i + 1}/{args.sequential} sesiones, {_server.rss_mb(pid):.1f} MB",
                    flush=True,
                )
        wall["phase1_sessions_s"] = time.monotonic() - t
        cpu1 = cpu_seconds(pid) - cpu0
        sampler.mark("phase1_closed")
        if args.sequential:
            closed1 = await after_close(args, proc, log_path)
        else:
            closed1 = {**warmed, "wait_s": 0.0, "release_s": 0.0}
        after1 = closed1["rss"]
        sampler.mark("phase1_end")
        print(f"Tras la fase 1: {after1:.1f} MB ({after1 / baseline:.3f} × base)", flush=True)

        # 2. All at once; --keep extra sessions opened first and left open.
        sampler.mark("phase2")
        t = time.monotonic()
        keep_stats = Stats()
        for k in range(args.keep):
            tab = SoakSession(10_000 + k, base_url, keep_stats)
            if await tab.open(http):
                kept.append(tab)
        cpu0 = cpu_seconds(pid)
        conc, times = await load(base_url, args.concurrent, args.seconds, args.ramp)
        cpu2 = cpu_seconds(pid) - cpu0
        wall["phase2_sessions_s"] = time.monotonic() - t
        sampler.mark("phase2_closed")
        closed2 = await after_close(args, proc, log_path)
        after2 = closed2["rss"]
        sampler.mark("phase2_end")
        print(f"Tras la fase 2: {after2:.1f} MB ({after2 / baseline:.3f} × base)", flush=True)
    finally:
        for tab in kept:
            await tab.close()
        http.close()
        sampler.done.set()
        sampler.join()
    wall["total_s"] = time.monotonic() - t_start
    wall.update(
        phase2_open_s=times["open_wall_s"],
        phase2_edits_s=times["measure_wall_s"],
        phase1_discard_s=closed1["wait_s"],
        phase1_release_s=closed1["release_s"],
        phase2_discard_s=closed2["wait_s"],
        phase2_release_s=closed2["release_s"],
    )
    errors = server_errors(_server.read_log(log_path))
    client = Counter(seq.errors) + Counter(conc.errors) + Counter(keep_stats.errors)
    launched, destroyed = closed2["launched"], closed2["destroyed"]
    return {
        "rss_mb": {
            "baseline": baseline,
            "peak": sampler.peak("phase1"),
            "peak_phase1": sampler.peak("phase1", "phase1_end") if args.sequential else None,
            "peak_phase2": sampler.peak("phase2", "phase2_end"),
            "after_phase1": after1,
            "after_phase2": after2,
        },
        "ratio_to_baseline": {
            "peak": sampler.peak("phase1") / baseline,
            "after_phase1": after1 / baseline,
            "after_phase2": after2 / baseline,
        },
        "sessions": {
            "sequential_requested": args.sequential,
            "sequential_opened": opened1,
            "concurrent_requested": args.concurrent,
            "concurrent_opened": times["live"],
            "kept_open_on_purpose": len(kept),
            # From the server's log, the whole run (the readiness probe's and the warm-up's
            # sessions included); a page whose session is discarded before its websocket
            # connects is launched twice.
            "launched": launched,
            "destroyed": destroyed,
            "not_destroyed": launched - destroyed,
            "after_phase1": {k: closed1[k] for k in ("launched", "destroyed")},
        },
        "edits": {"phase1": edits(seq), "phase2": edits(conc)},
        "late_ticks_phase2": conc.late,
        # The server's CPU time (user + system): per sequential session (open, edits, close),
        # and in the concurrent phase (opening, edits and closing of all its sessions).
        "server_cpu_s": {
            "phase1_per_session": cpu1 / max(args.sequential, 1),
            "phase1": cpu1,
            "phase2": cpu2,
        },
        "client_errors": dict(client),
        "server_errors": {"count": len(errors), "lines": errors[:20]},
        "wall_s": wall,
        "rss_series": sampler.series(),
    }


def checks(result: dict, args) -> list[dict]:
    """The targets of issue #6, one row each (bench/run.py shows them in its table); ``ok`` is
    None for a figure shown without a target."""
    s, e, r = result["sessions"], result["edits"], result["ratio_to_baseline"]
    unanswered = sum(p["sent"] - p["acknowledged"] for p in e.values())
    limit = f"≤ {TARGET_RATIO:.2f} × base"
    p95 = e["phase2"]["p95_ms"]
    rows = [
        ("server_errors", "errores del servidor (registro)", "0", result["server_errors"]["count"]),
        ("client_errors", "errores del cliente", "0", sum(result["client_errors"].values())),
        (
            "sessions_opened",
            "sesiones abiertas (en serie + a la vez)",
            f"{args.sequential} + {args.concurrent}",
            f"{s['sequential_opened']} + {s['concurrent_opened']}",
        ),
        ("sessions_destroyed", "sesiones sin destruir al final", "0", s["not_destroyed"]),
        ("edits_acknowledged", "cambios sin respuesta", "0", unanswered),
        (
            "memory_after_phase1",
            f"memoria tras {args.sequential} sesiones en serie",
            limit,
            f"{r['after_phase1']:.3f} × base",
        ),
        (
            "memory_after_phase2",
            f"memoria tras {args.concurrent} a la vez ({args.seconds} s)",
            limit,
            f"{r['after_phase2']:.3f} × base",
        ),
        (
            "latency_phase2",
            f"p95 de un cambio, {args.concurrent} a la vez",
            "—",
            "—" if p95 is None else f"{p95:.0f} ms",
        ),
    ]
    ok = {
        "server_errors": result["server_errors"]["count"] == 0,
        "client_errors": not result["client_errors"],
        "sessions_opened": s["sequential_opened"] == args.sequential
        and s["concurrent_opened"] == args.concurrent,
        "sessions_destroyed": s["not_destroyed"] == 0,
        "edits_acknowledged": unanswered == 0,
        "memory_after_phase1": r["after_phase1"] <= TARGET_RATIO,
        "memory_after_phase2": r["after_phase2"] <= TARGET_RATIO,
        "latency_phase2": None,
    }
    return [
        {"name": name, "what": what, "target": target, "measured": str(measured), "ok": ok[name]}
        for name, what, target, measured in rows
    ]


def fmt(value, spec: str) -> str:
    """``value`` formatted, or a dash of the same width when there is none."""
    if value is None:
        return format("—", ">" + spec.split(".")[0])
    return format(value, spec)


def report(summary: dict, args) -> None:
    res = summary["result"]
    rss, ratio, s = res["rss_mb"], res["ratio_to_baseline"], res["sessions"]
    yes = {True: "sí", False: "NO"}
    ok = {c["name"]: c["ok"] for c in summary["checks"]}
    print()
    print(f"{'Memoria residente del servidor (VmRSS)':<46} {'MB':>8} {'× base':>8}")
    print("-" * 64)
    rows = [
        ("base (tras calentar)", rss["baseline"], 1.0),
        ("pico (todo el ensayo)", rss["peak"], ratio["peak"]),
        (f"pico, fase 1 ({args.sequential} en serie)", rss["peak_phase1"], None),
        (f"pico, fase 2 ({args.concurrent} a la vez)", rss["peak_phase2"], None),
        ("tras la fase 1, sesiones cerradas", rss["after_phase1"], ratio["after_phase1"]),
        ("tras la fase 2, sesiones cerradas", rss["after_phase2"], ratio["after_phase2"]),
    ]
    for label, mb, r in rows:
        if r is None and mb is not None:
            r = mb / rss["baseline"]
        print(f"{label:<46} {fmt(mb, '8.1f')} {fmt(r, '8.3f')}")
    print(
        f"Tras cada fase ≤ {TARGET_RATIO:.2f} × base: "
        f"{yes[ok['memory_after_phase1'] and ok['memory_after_phase2']]}"
    )
    print()
    print(
        f"Sesiones: fase 1 {s['sequential_opened']}/{s['sequential_requested']} abiertas, "
        f"fase 2 {s['concurrent_opened']}/{s['concurrent_requested']}"
        + (f", {s['kept_open_on_purpose']} mantenidas abiertas a propósito" if args.keep else "")
    )
    print(
        f"Registro del servidor: {s['launched']} lanzadas, {s['destroyed']} destruidas, "
        f"{s['not_destroyed']} sin destruir: {yes[ok['sessions_destroyed']]}"
    )
    header = f"{'cambios':<34} {'enviados':>8} {'respond.':>8} {'p50 ms':>8} {'p95 ms':>8}"
    print()
    print(header)
    print("-" * len(header))
    for key, label in (
        ("phase1", f"fase 1 (máscara ×2, {args.sections} secc.)"),
        ("phase2", f"fase 2 (máscara 1/s, {args.seconds} s)"),
    ):
        p = res["edits"][key]
        print(
            f"{label:<34} {p['sent']:>8} {p['acknowledged']:>8} "
            f"{fmt(p['p50_ms'], '8.0f')} {fmt(p['p95_ms'], '8.0f')}"
        )
    print()
    print(
        f"Errores del servidor: {res['server_errors']['count']} · errores del cliente: "
        f"{sum(res['client_errors'].values())}"
        + (f" {res['client_errors']}" if res["client_errors"] else "")
    )
    for line in res["server_errors"]["lines"][:5]:
        print(f"  {line[:160]}")
    w, cpu = res["wall_s"], res["server_cpu_s"]
    for phase in ("phase1", "phase2"):
        if w[f"{phase}_release_s"] is None:
            print(f"Aviso: tras la {phase[-1]}.ª fase el registro no dijo «Memoria liberada».")
    print(
        f"CPU del servidor: {cpu['phase1_per_session']:.2f} s por sesión en serie, "
        f"{cpu['phase2']:.0f} s en la fase 2"
    )
    print(
        f"Duración: fase 1 {w['phase1_sessions_s']:.0f} s, fase 2 {w['phase2_sessions_s']:.0f} s, "
        f"total {w['total_s']:.0f} s"
    )
    failed = [c["what"] for c in summary["checks"] if c["ok"] is False]
    print("Objetivos: " + ("todos cumplidos" if not failed else "NO cumple " + ", ".join(failed)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sequential", type=int, default=200, help="sessions one after another")
    parser.add_argument("--concurrent", type=int, default=50, help="sessions at once")
    parser.add_argument("--seconds", type=int, default=300, help="seconds of edits at once")
    parser.add_argument(
        "--ramp",
        type=float,
        default=RAMP_S,
        help="the concurrent sessions open spread over this many seconds",
    )
    parser.add_argument(
        "--sections",
        type=int,
        default=1,
        help="other sections each sequential session visits (0-5; the sessions take them in turn)",
    )
    parser.add_argument(
        "--warmup-sections",
        type=int,
        default=5,
        help="other sections the warm-up session visits before the baseline (0-5)",
    )
    parser.add_argument(
        "--keep", type=int, default=0, help="sessions left open on purpose (a deliberate leak)"
    )
    parser.add_argument(
        "--stall",
        type=float,
        default=10.0,
        help="stop waiting for sessions to be destroyed after this long without one",
    )
    parser.add_argument("--discard-timeout", type=float, default=120.0)
    parser.add_argument(
        "--settle",
        type=float,
        default=SETTLE_S,
        help="seconds of RSS samples whose median is a phase's memory",
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the server (e.g. PYTHONMALLOC=pymalloc)",
    )
    parser.add_argument(
        "--json", type=Path, default=BENCH / "soak_results.json", help="where to write results"
    )
    parser.add_argument(
        "--log", type=Path, default=Path(tempfile.gettempdir()) / "clase04-bench-soak.log"
    )
    args = parser.parse_args(argv)
    if not (
        0 <= args.sequential <= 1000
        and 1 <= args.concurrent <= 200
        and 1 <= args.seconds <= 900
        and 0 <= args.sections <= 5
        and 0 <= args.warmup_sections <= 5
        and 0 <= args.keep <= 100
        and 0 <= args.ramp <= 120
        and 0.5 <= args.settle <= 30
    ):
        parser.error(
            "límites: 0 ≤ --sequential ≤ 1000, 1 ≤ --concurrent ≤ 200, 1 ≤ --seconds ≤ 900, "
            "0 ≤ --sections, --warmup-sections ≤ 5, 0 ≤ --keep ≤ 100, 0 ≤ --ramp ≤ 120, "
            "0,5 ≤ --settle ≤ 30"
        )
    extra_env = dict(item.split("=", 1) for item in args.env)

    port = _server.free_port()
    base_url = f"http://127.0.0.1:{port}"
    extra = (*_server.FAST_DISCARD, "--log-format", LOG_FORMAT)
    print(
        f"Ensayo largo: {args.sequential} sesiones en serie, luego {args.concurrent} a la vez "
        f"durante {args.seconds} s (servidor en {base_url}, registro en {args.log})",
        flush=True,
    )
    args.log.parent.mkdir(parents=True, exist_ok=True)
    proc = _server.start(port, args.log, *extra, env=extra_env)
    try:
        result = asyncio.run(soak(args, proc, args.log, base_url))
    finally:
        _server.stop(proc)
    summary = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "command": " ".join(_server.serve_command(port, *extra)),
        "server_env": {**_server.SERVE_ENV, **extra_env},
        "args": {
            "sequential": args.sequential,
            "concurrent": args.concurrent,
            "seconds": args.seconds,
            "ramp": args.ramp,
            "sections": args.sections,
            "warmup_sections": args.warmup_sections,
            "keep": args.keep,
            "settle": args.settle,
        },
        "targets": {"after_to_baseline_max": TARGET_RATIO, "server_errors": 0},
        "result": result,
    }
    summary["checks"] = checks(result, args)
    summary["ok"] = not any(c["ok"] is False for c in summary["checks"])
    report(summary, args)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"\nResultados en {args.json} · registro del servidor en {args.log}")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
