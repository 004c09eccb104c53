"""Class mode under load: a lecturer and N followers on `make serve-prod` with 2 workers.

    .venv/bin/python bench/bench_class.py                              # 300 followers × 60 s
    .venv/bin/python bench/bench_class.py --followers 20 --seconds 10 --ramp 5  # smoke (~1 min)

Starts ``deploy/serve-prod.sh`` (nginx → 2 ``panel serve`` workers, and redis-server, the class's
broker) on free ports of 127.0.0.1 with a random ``C04_CLASS_TOKEN`` and its own run directory,
and stops it at the end whatever happens (then checks that none of its processes survived).

1. The lecturer's tab opens ``/lecture?profesor=<token>`` through nginx (a Bokeh-protocol client,
   bench/bench_load.py's ``Session``: GET the page for its session token, websocket, PULL-DOC,
   ``document_ready``): its session publishes the class's state, the class is live.
2. N followers open ``/lecture`` through nginx (least_conn spreads them over both workers), their
   arrivals spread over ``--ramp`` seconds, at most ``--open-concurrency`` opening at once (a
   session costs the server about a second of CPU to open: without the bound the last ones
   would queue past every timeout). Each follows the class by default
   (dashboards/classroom/classmode.py).
3. Once all are open, the lecturer moves the √d_k demo's "Dimensión d_k" control (first
   section, "autoatencion") once a second for ``--seconds``: the message its Board sends
   (``{"control": "d_k", "value": <stop>}``, what board.js sends on a move), to the next stop
   each time
   (1, 2, 4, … 1024, then 1 again: consecutive changes always differ, and a stop comes back only
   after 11 s, past the 10 s a change may take).
4. Each follower watches its own scaling Board: its d_k control's position (the stop's index,
   in the Board's specs) and the model's d_k in its state (what scaling.js writes as the status
   line, ``d_k = <n>``), set in the same update as the readouts and the bars. Change i reached a
   follower when both show change i's value; its latency is that moment minus the moment the
   lecturer sent change i.

Errors, by kind: a follower that fails to open; a websocket closed by the server; an ERROR
message; a (follower, change) pair not reached within 10 s, "missed". Latest state wins (the hub
keeps only the newest): a follower that skipped change i for a newer one reached change i when
it showed the newer one ("superseded", counted apart). Latency p50/p95/max are over
the pairs reached. CPU: user + system seconds of each worker, redis-server and nginx over the
changes (from /proc), in cores; followers per worker from nginx's access log (``upstream=`` of
each websocket). The lecturer's own page is timed too (its status line): a change it does not
show within 10 s was merged by its busy session with a newer one (never published), or later.

Everything talks to 127.0.0.1 only and every wait is bounded: the opening to ``--ramp`` +
``--open-limit`` seconds (followers not open by then count as errors), the changes to
``--seconds`` + 10 s. Opening is most of a full run: a follower costs the server about 1.3 s of
CPU (its session, then its first section on ``document_ready``), so 300 take at least ~200 s of
both cores of an idle 2-core machine, and the bound leaves room for that; a full run takes about
6 minutes (at most ~7). Writes bench/class_results.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import resource
import secrets
import signal
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench_load import (
    OPEN_TIMEOUT_S,
    UPDATE_TIMEOUT_S,
    Server,
    Session,
    Stats,
    _free,
    pct,
)
from tornado.httpclient import AsyncHTTPClient

from dashboards.demos.scaling import D_K_OPTIONS

# tests/c04_client.py (bench_load put tests/ on sys.path): the other protocol client's pieces.
from c04_client import DOCUMENT_READY, find_objects

ROOT = Path(__file__).resolve().parents[1]
TARGET_P95_MS = 1000.0
TARGET_FOLLOWERS = 300
WORKERS = 2
MISS_AFTER_S = UPDATE_TIMEOUT_S  # a change later than this is missed
APP_PATH = "/lecture"
TOKEN_KEY = "profesor"
# Redis's port is searched here: bench_load.free_ports (the server's) scans 20100–40000.
REDIS_PORTS = range(40100, 41000)


# --------------------------------------------------------------------------- the changes


class Changes:
    """The lecturer's changes as sent: (time sent, slider index, d_k)."""

    def __init__(self):
        self.sent: list[tuple[float, int, int]] = []

    def match(self, got: dict[int, float], position: int, value: int, now: float) -> None:
        """Record ``now`` in ``got`` for the newest change whose field ``position`` (1: index,
        2: d_k) is ``value``, sent at most MISS_AFTER_S ago (values repeat only after that)."""
        for i in range(len(self.sent) - 1, -1, -1):
            sent = self.sent[i]
            if now - sent[0] > MISS_AFTER_S:
                return
            if sent[position] == value:
                got.setdefault(i, now)
                return


def targets(objects: list, components: dict[str, str]) -> dict[str, dict]:
    """Among serialized objects: the data model of the scaling Board (its view is "scaling",
    its d_k control is there too) and the class bar's (its ``view_json``).
    ``components`` collects each component's id by its data model's id (the Board's is where
    the control's message goes)."""
    found: dict[str, dict] = {}
    for o in objects:
        attributes = o.get("attributes") or {}
        if attributes.get("view") == "scaling":
            found["status"] = o
        elif "view_json" in attributes:
            found["classbar"] = o
        data = attributes.get("data")
        if o.get("name") == "panel.models.esm.ReactiveESM" and isinstance(data, dict):
            components[str(data.get("id"))] = o["id"]
    return found


def json_object(text) -> dict | None:
    """A JSON object's text as a dict; None for anything else (absent, not JSON, not an object)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def state_dk(state_json) -> int | None:
    """The model's d_k in a scaling Board's state (what its status line shows, «d_k = <n>»)."""
    return (json_object(state_json) or {}).get("d_k")


def control(specs_json) -> dict:
    """The d_k control's spec in a scaling Board's specs (its position, its last stop)."""
    return (json_object(specs_json) or {}).get("d_k") or {}


class Tab(Session):
    """One page of the class (the lecturer's or a follower's), minus the rendering: bench_load's
    Session for the wire; after opening it reads the websocket lightly (a message is parsed only
    when it names one of the three models it watches) and keeps only those models' ids."""

    def __init__(self, index: int, base_url: str, stats: Stats, changes: Changes, query=""):
        super().__init__(index, base_url, stats)
        self.query = query
        self.changes = changes
        self.ids: dict[str, str] = {}
        self.marks: tuple[str, ...] = ()
        self.index_at: dict[int, float] = {}  # change -> when the slider showed its value
        self.status_at: dict[int, float] = {}  # change -> when the status line showed its d_k
        self.following: bool | None = None
        self.slider_value: int | None = None
        self.slider_end: int | None = None
        self.open_s: float | None = None
        self.closed = False
        self.reader: asyncio.Task | None = None

    async def open(self, http: AsyncHTTPClient) -> bool:
        start = time.perf_counter()
        components: dict[str, str] = {}
        try:
            reply = await self.handshake(http, self.query)
            found = targets(find_objects(reply.content, []), components)
            del reply
            # What BokehJS sends once the page rendered: the first section is built then.
            await self._send("PATCH-DOC", {"events": [DOCUMENT_READY]})
            deadline = time.perf_counter() + OPEN_TIMEOUT_S
            while not (
                {"status", "classbar"} <= set(found) and found["status"]["id"] in components
            ):
                message = await asyncio.wait_for(
                    self._recv(), max(deadline - time.perf_counter(), 0.01)
                )
                if message is None or message.msgtype == "ERROR":
                    raise RuntimeError(f"la sección no llegó ({message and message.content})")
                if message.msgtype == "PATCH-DOC":
                    found.update(targets(find_objects(message.content, []), components))
        except Exception as exc:
            self.stats.errors[f"apertura: {type(exc).__name__}"] += 1
            if self.ws is not None:
                self.ws.close()
            return False
        d_k = control(found["status"]["attributes"].get("specs_json"))
        self.slider_value = d_k.get("value")
        self.slider_end = d_k.get("end")
        self.following = self._following(found["classbar"]["attributes"].get("view_json"))
        self.ids = {name: o["id"] for name, o in found.items()}
        self.ids["board"] = components[found["status"]["id"]]
        self.marks = tuple(f'"{self.ids[name]}"' for name in ("status", "classbar"))
        self.open_s = time.perf_counter() - start
        self.stats.open_s.append(self.open_s)
        self.reader = asyncio.ensure_future(self._read_light())
        return True

    @staticmethod
    def _following(view_json) -> bool | None:
        view = json_object(view_json)
        return None if view is None else bool(view.get("following"))

    async def _read_light(self) -> None:
        """Read Bokeh messages frame by frame (header, metadata, content, then two frames per
        buffer) and parse a content only when it names a watched model."""
        ws = self.ws
        try:
            while True:
                header = await ws.read_message()
                metadata = None if header is None else await ws.read_message()
                content = None if metadata is None else await ws.read_message()
                if content is None:
                    break
                now = time.perf_counter()
                head = json.loads(header)
                for _ in range(2 * int(head.get("num_buffers") or 0)):
                    if await ws.read_message() is None:
                        raise ConnectionError("websocket cerrado a mitad de un mensaje")
                kind = head.get("msgtype")
                if kind == "ERROR":
                    self.stats.errors["ERROR del servidor"] += 1
                elif kind == "PATCH-DOC" and any(m in content for m in self.marks):
                    self._patched(json.loads(content), now)
        except Exception:
            pass
        self.closed = True

    def _patched(self, content: dict, now: float) -> None:
        for event in content.get("events", ()):
            if event.get("kind") != "ModelChanged":
                continue
            model, attr, new = event.get("model", {}).get("id"), event.get("attr"), event.get("new")
            if model == self.ids["status"] and attr == "specs_json":
                index = control(new).get("value")
                if isinstance(index, int):
                    self.slider_value = index
                    self.changes.match(self.index_at, 1, index, now)
            elif model == self.ids["status"] and attr == "state_json":
                # The status line is scaling.js's drawing of the model's d_k (state_json).
                if isinstance(dk := state_dk(new), int):
                    self.changes.match(self.status_at, 2, dk, now)
            elif model == self.ids["classbar"] and attr == "view_json":
                self.following = self._following(new)

    def reached(self, i: int, slider_too: bool = True) -> float | None:
        """When change i showed on this page (status line, and slider unless ``slider_too`` is
        False: the lecturer's own slider is not sent back to it), None if it did not."""
        status = self.status_at.get(i)
        if not slider_too or status is None:
            return status
        index = self.index_at.get(i)
        return None if index is None else max(status, index)

    async def move(self, i: int, index: int, d_k: int) -> None:
        """The lecturer's change i: the d_k control to ``index`` (the stop ``d_k``), as board.js
        sends a move: a message to the Board's component (what ``model.send_msg`` writes)."""
        message = {"type": "map", "entries": [["control", "d_k"], ["value", d_k]]}
        values = {
            "type": "map",
            "entries": [["model", {"id": self.ids["board"]}], ["data", message]],
        }
        event = {"type": "event", "name": "data_event", "values": values}
        sent = {"kind": "MessageSent", "msg_type": "bokeh_event", "msg_data": event}
        content = {"events": [sent]}
        self.changes.sent.append((time.perf_counter(), index, d_k))
        await self._send("PATCH-DOC", content)


# --------------------------------------------------------------------------- the run


async def drive(base_url: str, token: str, args, sample) -> dict:
    """Open the lecturer's tab, then the followers, then change the slider once a second."""
    stats = Stats()
    changes = Changes()
    http = AsyncHTTPClient(force_instance=True, max_clients=max(args.open_concurrency, 4))
    lecturer = Tab(-1, base_url, stats, changes, f"?{TOKEN_KEY}={token}")
    followers = [Tab(i, base_url, stats, changes) for i in range(args.followers)]
    out: dict = {}
    try:
        start = time.perf_counter()
        if not await lecturer.open(http):
            raise RuntimeError(f"la página del profesor no abrió: {dict(stats.errors)}")
        out["lecturer_open_s"] = round(time.perf_counter() - start, 2)
        out["lecturer_following"] = lecturer.following
        end = lecturer.slider_end
        if end != len(D_K_OPTIONS) - 1:
            raise RuntimeError(f"el control de d_k tiene {end} + 1 paradas, no {len(D_K_OPTIONS)}")
        stats.open_s.clear()  # the followers' only

        gate = asyncio.Semaphore(args.open_concurrency)

        async def arrive(tab: Tab) -> bool:
            await asyncio.sleep(args.ramp * tab.index / max(args.followers, 1))
            async with gate:
                return await tab.open(http)

        samples = [sample()]
        start = time.perf_counter()
        tasks = [asyncio.ensure_future(arrive(t)) for t in followers]
        # Bounded: the ramp, then however long the server takes to open the rest (at most
        # open_concurrency at a time), up to --open-limit seconds in all.
        _, pending = await asyncio.wait(tasks, timeout=args.ramp + args.open_limit)
        for task in pending:
            task.cancel()
        if pending:
            stats.errors["apertura: sin terminar en el tiempo límite"] += len(pending)
            await asyncio.gather(*pending, return_exceptions=True)
        out["open_wall_s"] = round(time.perf_counter() - start, 1)
        live = [t for t in followers if t.reader is not None]
        out["opened"] = len(live)
        out["following_at_open"] = sum(1 for t in live if t.following)
        out["open_p50_s"] = pct(stats.open_s, 50)
        out["open_p95_s"] = pct(stats.open_s, 95)
        if lecturer.closed:
            raise RuntimeError("el servidor cerró la página del profesor mientras abrían")

        # The changes: once a second, to the next stop (never the one the slider is on).
        loop = asyncio.get_running_loop()
        samples.append(sample())
        t0 = loop.time() + 1.0
        first = (lecturer.slider_value or 0) + 1
        late_ticks = 0
        for i in range(args.seconds):
            delay = t0 + i - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            elif i:
                late_ticks += 1
            if lecturer.closed:
                stats.errors["websocket del profesor cerrado"] += 1
                break
            index = (first + i) % len(D_K_OPTIONS)
            await lecturer.move(i, index, D_K_OPTIONS[index])
        # Until every live follower reached the last change, or MISS_AFTER_S after it.
        n = len(changes.sent)
        if n:
            deadline = changes.sent[-1][0] + MISS_AFTER_S
            while time.perf_counter() < deadline:
                waiting = [t for t in live if not t.closed and t.reached(n - 1) is None]
                if not waiting:
                    break
                await asyncio.sleep(0.1)
        samples.append(sample())
        out["late_ticks"] = late_ticks
        out["samples"] = samples
        out["changes"] = changes.sent
        out["lecturer"] = lecturer
        out["live"] = live
        out["stats"] = stats
        out["following_at_end"] = sum(1 for t in live if t.following and not t.closed)
        out["closed"] = sum(1 for t in live if t.closed)  # by the server: before ours below
    finally:
        closing = time.perf_counter()
        await asyncio.gather(*(t.close() for t in [lecturer, *followers]), return_exceptions=True)
        http.close()
        out["close_s"] = round(time.perf_counter() - closing, 1)
    return out


def process_label(pid: int) -> str:
    """What a process of the server's group is: a worker (by port), redis-server, nginx, …"""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    words = [a.decode("utf-8", "replace") for a in argv if a]
    line = " ".join(words)
    if "redis-server" in line:
        return "redis-server"
    if "nginx" in line:
        return "nginx"
    if "--port" in words and ("panel" in line or "clase04" in line):
        return f"worker :{words[words.index('--port') + 1]}"
    return Path(words[0]).name if words else "?"


def group_members(pgid: int) -> list[int]:
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            pids.append(int(stat.parent.name))
    return pids


def survivors(pgid: int, run_dir: Path, redis_port: int) -> list[str]:
    """Processes of ours still alive after the stop: in the server's process group, or naming
    its run directory or redis's port on their command line."""
    left = set(group_members(pgid))
    marks = (str(run_dir), f"127.0.0.1:{redis_port}", f"--port {redis_port}")
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            line = cmdline.read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if any(m in line for m in marks) and int(cmdline.parent.name) != os.getpid():
            left.add(int(cmdline.parent.name))
    return [f"{pid} {process_label(pid)}" for pid in sorted(left)]


def websockets_by_worker(access_log: Path) -> dict[str, int]:
    """nginx's access log: websockets (101 on /lecture/ws) by ``upstream=``, lecturer's included."""
    counts: Counter[str] = Counter()
    try:
        lines = access_log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return {}
    for line in lines:
        if f"GET {APP_PATH}/ws " in line and '" 101 ' in line:
            upstream = re.search(r"upstream=(\S+)", line)
            counts[upstream.group(1) if upstream else "?"] += 1
    return dict(sorted(counts.items()))


def summarize(run: dict, server_pids: dict[int, str]) -> dict:
    stats: Stats = run["stats"]
    live: list[Tab] = run["live"]
    sent = run["changes"]
    lat: list[float] = []
    missed = superseded = 0
    by_change = []
    # Latest state wins (dashboards/classroom/shared_state.py): a follower busy while two changes
    # came shows
    # the newer one only, so change i reached it when it showed change i or any later one.
    shown = [[tab.reached(j) for j in range(len(sent))] for tab in live]
    for i, (t, _, d_k) in enumerate(sent):
        these = []
        for times in shown:
            later = [at for at in times[i:] if at is not None]
            got = min(later) if later else None
            if got is None or got - t > MISS_AFTER_S:
                missed += 1
            else:
                these.append((got - t) * 1e3)
                superseded += times[i] is None or times[i] > got
        lat += these
        by_change.append(
            {
                "d_k": d_k,
                "reached": len(these),
                "p50_ms": pct(these, 50),
                "max_ms": max(these or [0]),
            }
        )
    lecturer: Tab = run["lecturer"]
    own = [
        (got - t) * 1e3
        for i, (t, _, _) in enumerate(sent)
        if (got := lecturer.reached(i, slider_too=False)) is not None
    ]
    kinds = Counter(stats.errors)
    closed = run["closed"]
    if closed:
        kinds["websocket cerrado por el servidor"] += closed
    if missed:
        kinds[f"cambio perdido (no llegó en {MISS_AFTER_S:.0f} s)"] += missed
    (_, c0, own0), (w1, c1, own1), (w2, c2, own2) = run["samples"]
    wall = w2 - w1
    cores: dict[str, float] = Counter()
    for pid, seconds in c2.items():
        cores[server_pids.get(pid) or process_label(pid)] += (seconds - c1.get(pid, 0.0)) / wall
    open_cpu = sum(c1.values()) - sum(c0.values())
    return {
        "opened": len(live),
        "following_at_open": run["following_at_open"],
        "following_at_end": run["following_at_end"],
        "changes": len(sent),
        "pairs": len(live) * len(sent),
        "reached": len(lat),
        "missed": missed,
        "superseded": superseded,
        "closed": closed,
        "open_errors": sum(v for k, v in stats.errors.items() if k.startswith("apertura")),
        "errors": sum(kinds.values()),
        "error_kinds": dict(kinds),
        "p50_ms": pct(lat, 50),
        "p95_ms": pct(lat, 95),
        "p99_ms": pct(lat, 99),
        "max_ms": max(lat) if lat else None,
        "lecturer_own_p50_ms": pct(own, 50),
        "lecturer_own_p95_ms": pct(own, 95),
        # Changes the lecturer's own page showed within 10 s: one it did not was merged by its
        # busy session with a newer one (never published), or came later still.
        "lecturer_own_reached": len(own),
        "late_ticks": run["late_ticks"],
        "by_change": by_change,
        "lecturer_open_s": run["lecturer_open_s"],
        "open_wall_s": run["open_wall_s"],
        "open_p50_s": run["open_p50_s"],
        "open_p95_s": run["open_p95_s"],
        "close_s": run["close_s"],
        "measure_wall_s": round(wall, 1),
        # Server CPU over the changes (and their 10 s tail), in cores, by process; and per
        # opened follower.
        "cpu_cores": {k: round(v, 2) for k, v in sorted(cores.items())},
        "server_cpu_cores": round(sum(cores.values()), 2),
        # The workers' CPU per follower update (a follower applies the newest state once per
        # update, so updates ≈ pairs reached): how many followers a worker can keep up to date.
        "worker_cpu_ms_per_update": round(
            sum(v for k, v in cores.items() if k.startswith("worker"))
            * wall
            * 1e3
            / max(len(lat), 1),
            1,
        ),
        "server_cpu_s_per_open": round(open_cpu / max(len(live), 1), 2),
        "client_cpu_cores": round((own2 - own1) / wall, 2),
        "client_cpu_s_per_open": round((own1 - own0) / max(len(live), 1), 3),
    }


def fmt(value, spec: str = ".0f") -> str:
    return "—" if value is None else format(value, spec)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--followers", type=int, default=TARGET_FOLLOWERS)
    parser.add_argument("--seconds", type=int, default=60, help="seconds of changes (one a second)")
    parser.add_argument(
        "--ramp", type=float, default=30.0, help="the followers arrive spread over these seconds"
    )
    parser.add_argument(
        "--open-concurrency",
        type=int,
        default=8,
        help="at most this many followers opening at once",
    )
    parser.add_argument(
        "--open-limit",
        type=float,
        default=240.0,
        help="seconds after the ramp for the last followers to open (the rest count as errors)",
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "class_results.json")
    args = parser.parse_args(argv)
    if not (
        1 <= args.followers <= 500
        and 1 <= args.seconds <= 300
        and 0 <= args.ramp <= 120
        and 1 <= args.open_concurrency <= 64
        and 10 <= args.open_limit <= 600
    ):
        parser.error(
            "límites: 1 ≤ --followers ≤ 500, 1 ≤ --seconds ≤ 300, 0 ≤ --ramp ≤ 120, "
            "1 ≤ --open-concurrency ≤ 64, 10 ≤ --open-limit ≤ 600"
        )
    print(
        f"{args.followers} seguidores (llegan en {args.ramp:g} s, como mucho "
        f"{args.open_concurrency} abriendo a la vez), serve-prod con {WORKERS} workers; el "
        f"profesor mueve d_k una vez por segundo durante {args.seconds} s. Objetivo con "
        f"{TARGET_FOLLOWERS}: p95 ≤ {TARGET_P95_MS / 1000:g} s, 0 errores",
        flush=True,
    )
    token = secrets.token_urlsafe(18)
    redis_port = next((p for p in REDIS_PORTS if _free(p)), None)
    if redis_port is None:
        raise SystemExit("no encuentro un puerto libre para redis-server en 127.0.0.1")
    result: dict = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "followers": args.followers,
        "seconds": args.seconds,
        "ramp_s": args.ramp,
        "open_concurrency": args.open_concurrency,
        "workers": WORKERS,
        "control": "escalado · Dimensión d_k (1 → 1024) → control y línea «d_k = …» del seguidor",
        "target": {"followers": TARGET_FOLLOWERS, "p95_ms": TARGET_P95_MS, "errors": 0},
        "loadavg_before": os.getloadavg()[0],
    }
    code = 0
    with tempfile.TemporaryDirectory(prefix="bench-class-") as tmp:
        logdir = Path(tmp)
        # bench_load's Server passes this process's environment on to serve-prod.sh.
        os.environ.update({"C04_CLASS_TOKEN": token, "REDIS_PORT": str(redis_port)})
        server = Server("nginx2", logdir)
        run_dir = logdir / "nginx2-run"
        run: dict | None = None
        try:
            result["startup_s"] = round(server.wait_ready(), 1)
            print(f"… servidor listo en {result['startup_s']} s; abriendo", flush=True)
            labels: dict[int, str] = {}

            def sample():
                cpu = server.cpu_seconds()
                for pid in cpu:
                    if pid not in labels:
                        labels[pid] = process_label(pid)
                own = resource.getrusage(resource.RUSAGE_SELF)
                return time.perf_counter(), cpu, own.ru_utime + own.ru_stime

            run = asyncio.run(drive(server.base_url, token, args, sample))
            time.sleep(1.0)  # nginx logs a websocket once it is closed
            result["websockets_by_worker"] = websockets_by_worker(run_dir / "access.log")
            result.update(summarize(run, labels))
        except Exception as exc:
            code = 1
            logs = [*sorted(run_dir.glob("*.log")), logdir / "nginx2.log"]
            tail = "".join(p.read_text(errors="replace")[-1500:] for p in logs if p.exists())
            print(f"falló: {type(exc).__name__}: {exc}\n{tail}", flush=True)
            result["failed"] = f"{type(exc).__name__}: {exc}"
        finally:
            stopping = time.perf_counter()
            with contextlib.suppress(Exception):
                server.stop()
            left = survivors(server.proc.pid, run_dir, redis_port)
            for entry in left:  # ours (same process group, run dir or port): by pid
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(entry.split()[0]), signal.SIGKILL)
            result["stop_s"] = round(time.perf_counter() - stopping, 1)
            result["survivors_after_stop"] = left
            if left:
                code = 1
                print(f"procesos que sobrevivieron al cierre (matados): {left}", flush=True)
    result["loadavg_after"] = os.getloadavg()[0]
    if "failed" not in result:
        result["meets_target"] = (
            result["errors"] == 0
            and result["p95_ms"] is not None
            and result["p95_ms"] <= TARGET_P95_MS
        )
        r = result
        print()
        print(
            f"seguidores abiertos {r['opened']}/{r['followers']} (siguiendo "
            f"{r['following_at_open']} al abrir, {r['following_at_end']} al final) en "
            f"{r['open_wall_s']} s; abrir p50 "
            f"{fmt(r['open_p50_s'], '.1f')} s, p95 {fmt(r['open_p95_s'], '.1f')} s"
        )
        print(f"websockets por worker (el del profesor incluido): {r['websockets_by_worker']}")
        header = f"{'cambios':>7} {'pares':>6} {'llegaron':>8} {'p50 ms':>7} {'p95 ms':>7} "
        header += f"{'p99 ms':>7} {'máx ms':>7} {'errores':>7}  objetivo"
        print(header)
        print("-" * len(header))
        verdict = "sí" if r["meets_target"] else "NO"
        if r["followers"] < TARGET_FOLLOWERS:
            verdict = "(n/a)"
        print(
            f"{r['changes']:>7} {r['pairs']:>6} {r['reached']:>8} {fmt(r['p50_ms']):>7} "
            f"{fmt(r['p95_ms']):>7} {fmt(r['p99_ms']):>7} {fmt(r['max_ms']):>7} "
            f"{r['errors']:>7}  {verdict}"
        )
        if r["error_kinds"]:
            print(f"errores: {r['error_kinds']}")
        print(
            f"la propia página del profesor: p50 {fmt(r['lecturer_own_p50_ms'])} ms, p95 "
            f"{fmt(r['lecturer_own_p95_ms'])} ms; mostró {r['lecturer_own_reached']} de "
            f"{r['changes']} cambios"
        )
        print(
            f"CPU durante los cambios (núcleos, de {os.cpu_count()}): {r['cpu_cores']}; "
            f"cliente {r['client_cpu_cores']}; al abrir {r['server_cpu_s_per_open']} s de CPU "
            "del servidor por seguidor"
        )
        print(
            f"CPU de los workers por seguidor puesto al día: {r['worker_cpu_ms_per_update']} ms "
            f"(con {r['opened'] / WORKERS:.0f} seguidores por worker, un cambio cuesta "
            f"{r['worker_cpu_ms_per_update'] * r['opened'] / WORKERS / 1000:.1f} s de un núcleo)"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"resultados en {args.out}")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
