"""Load test of the served lecture: N students at once, each changing a control once a second.

    .venv/bin/python bench/bench_load.py             # 100 sessions × 60 s, three configurations
    .venv/bin/python bench/bench_load.py --quick     # 10 sessions × 10 s (smoke run, ~1 min)
    .venv/bin/python bench/bench_load.py --configs nginx2 --sessions 50 --seconds 30
    .venv/bin/python bench/bench_load.py --url http://127.0.0.1:5006/   # a server already running

Each configuration starts its own server on 127.0.0.1 with the production flags
(`--reuse-sessions --global-loading-spinner`, the app list of `make serve`), stops it afterwards,
and only ever talks to 127.0.0.1:

- ``1proc``: one ``panel serve`` process (what ``make serve`` runs).
- ``numprocs2``: one ``panel serve --num-procs 2`` (two forked processes sharing one port).
- ``nginx2``: ``deploy/serve-prod.sh`` with WORKERS=2, i.e. nginx in front of two ``panel serve``
  processes on their own ports (``make serve-prod``).
- ``nginx1`` (not in the default run): the same with WORKERS=1, to see what nginx itself costs.
- ``numprocs2-noreuse`` (not in the default run): ``--num-procs 2`` without
  ``--reuse-sessions``, to see what that flag saves when the page and its websocket land in
  different processes.

Every session behaves like a browser tab: GET the page (for its session token), open the
websocket with that token and an Origin header, pull the document, and then, once all sessions
are open, toggle the self-attention "Máscara causal" control once a second. The latency of one
change is the time from sending the control's message (the PATCH-DOC a browser sends) until the
server's PATCH-DOC that rewrites the attention weights table arrives (a control's message is
handled on the server's next tick: Panel's on_msg, dashboards.components.board). A session
waits for its answer before its next change (as a student would), so a slow server shows up as
latency, not as a pile of queued clicks.

The clients speak Bokeh's websocket protocol (bokeh.protocol's framing) in one asyncio loop
rather than through ``bokeh.client``, whose blocking loops cannot run 100 sessions at once and
which would rebuild every model of every session in this process: on a 2-core machine the load
generator must stay light, since it shares the CPUs with the server. ``bokeh.client`` is still
used once per configuration (``pull_session``, toggle, wait for the new weights) to check that
the real client works through that topology.

Errors: a page or websocket that fails to open, an ERROR message from the server, an answer
that does not arrive within 10 s, a websocket closed by the server. Every loop is bounded in
count and time; a whole run of the defaults takes about 5 minutes. Writes
bench/load_results.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import os
import platform
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
from _server import PROD_FLAGS, ROOT, SERVE_ENV, serve_command

sys.path.insert(0, str(ROOT / "tests"))  # c04_client, below
from bokeh.protocol import Protocol
from bokeh.protocol.receiver import Receiver
from bokeh.util.serialization import make_id
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

# The page's session token, document_ready (Panel builds the lecture's first section on it) and
# the serialized objects of a message: tests/c04_client.py's, the other protocol client.
from c04_client import DOCUMENT_READY, TOKEN_RE, find_objects

TARGET_P95_MS = 250.0
TARGET_SESSIONS = 100
UPDATE_TIMEOUT_S = 10.0  # an answer later than this counts as an error
# Issue 17's class arriving (--arrivals): every session open within 3 s, every change answered
# within 100 ms (p95), no error.
ARRIVAL_TARGET = {"open_p95_s": 3.0, "p95_ms": 100.0, "errors": 0}
OPEN_TIMEOUT_S = 60.0  # per step of opening a session (page, websocket, document)
READY_TIMEOUT_S = 120.0  # for a server to answer after it was started
APP_PATH = "/lecture"

CONFIGS = {
    "1proc": "1 proceso",
    "numprocs2": "--num-procs 2",
    "nginx2": "nginx → 2 procesos",
    "nginx1": "nginx → 1 proceso",
    "numprocs2-noreuse": "--num-procs 2 s/reuse",
}
DEFAULT_CONFIGS = ("1proc", "numprocs2", "nginx2")


# --------------------------------------------------------------------------- servers


def _free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(n: int) -> int:
    """A first port p such that p .. p+n-1 are all free on 127.0.0.1 (bounded search)."""
    for base in range(20100, 40000, 97):
        if all(_free(base + k) for k in range(n)):
            return base
    raise RuntimeError("no encuentro puertos libres en 127.0.0.1")


def loopback_only(url: str) -> str:
    host = urlsplit(url).hostname or ""
    try:
        ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = False
    if not ok:
        raise SystemExit(f"solo se mide contra 127.0.0.1/localhost, no contra {host!r}")
    return url.rstrip("/")


class Server:
    """One configuration's server(s), started in their own process group and stopped after."""

    def __init__(self, config: str, logdir: Path):
        self.config = config
        self.logdir = logdir
        workers = {"nginx2": 2, "nginx1": 1}.get(config, 0)
        self.port = free_ports(1 + workers)
        self.base_url = f"http://127.0.0.1:{self.port}"
        if workers:
            env = dict(
                os.environ,
                HOST="127.0.0.1",
                PORT=str(self.port),
                WORKERS=str(workers),
                BASE_PORT=str(self.port + 1),
                RUN_DIR=str(logdir / f"{config}-run"),
                VENV=str(Path(sys.executable).parent.parent),
            )
            cmd = ["bash", str(ROOT / "deploy" / "serve-prod.sh")]
        else:
            env = dict(os.environ, **SERVE_ENV)
            # A worker of deploy/serve-prod.sh less --use-xheaders (no proxy in front).
            cmd = serve_command(self.port, *PROD_FLAGS)
            if config == "numprocs2-noreuse":
                cmd.remove("--reuse-sessions")
            if config.startswith("numprocs2"):
                cmd += ["--num-procs", "2"]
        self.log = open(logdir / f"{config}.log", "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_ready(self) -> float:
        start = time.monotonic()
        deadline = start + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.config}: el servidor terminó; ver {self.log.name}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    pass
                import urllib.request

                with urllib.request.urlopen(self.base_url + "/liveness", timeout=5) as r:
                    if r.status == 200:
                        return time.monotonic() - start
            except OSError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"{self.config}: el servidor no respondió en {READY_TIMEOUT_S:.0f} s")

    def cpu_seconds(self) -> dict[int, float]:
        """User + system CPU seconds of each process in the server's process group (workers,
        nginx), by pid."""
        tick = os.sysconf("SC_CLK_TCK")
        cpu = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # fields[2] is the process group; [11], [12] utime, stime (stat(5), from field 3)
            if int(fields[2]) == self.proc.pid:
                cpu[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / tick
        return cpu

    def stop(self) -> None:
        """SIGTERM (serve-prod.sh traps it and stops its workers and nginx), then the group."""
        if self.proc.poll() is None:
            target = self.proc.pid
            try:
                if self.config.startswith("nginx"):
                    os.kill(target, signal.SIGTERM)
                else:  # panel serve --num-procs: the forked children are in the group too
                    os.killpg(target, signal.SIGTERM)
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # anything of ours still left in the group
        self.proc.wait(timeout=10)
        self.log.close()


# --------------------------------------------------------------------------- bokeh.client check


def bokeh_client_check(app_url: str) -> dict:
    """Open one session with bokeh.client, toggle the causal mask, wait for the new weights.

    bokeh.client 3.x has no public way to wait for the server's patches, hence the two private
    blocking loops of its connection; both are bounded by a timer that closes the session.
    """
    import panel  # noqa: F401  (registers Panel's Bokeh models for the client document)
    from bokeh.client import pull_session
    from bokeh.events import DocumentReady
    from panel.models.esm import DataEvent
    from tornado.ioloop import IOLoop

    # The lecture's modules define the data models of its components (Markup, ClassPanel1, …),
    # which the client must know to decode the page.
    import dashboards.app.lecture  # noqa: F401

    loop = IOLoop()
    start = time.perf_counter()
    session = pull_session(url=app_url, io_loop=loop)
    doc = session.document

    def targets():
        models = list(doc.models)
        # The weights table is a slot of the demo's Board, drawn in the browser from the
        # model's numbers (state_json) on its data model; its "Máscara causal" control's spec
        # is in its specs_json, the control's message goes to the Board's component.
        weights = next(
            (m for m in models if getattr(m, "view", None) == "self_attention"),
            None,
        )
        board = next((m for m in models if getattr(m, "data", None) is weights), None)
        return (board, weights) if weights is not None else (None, None)

    try:
        # What BokehJS sends once the page has rendered (pn.state.onload callbacks run on it).
        doc.callbacks.send_event(DocumentReady())
        timer = loop.call_later(OPEN_TIMEOUT_S, session.close)
        session._connection._loop_until(lambda: None not in targets() or not session.connected)
        loop.remove_timeout(timer)
        board, weights = targets()
        if board is None or weights is None:
            return {"ok": False, "error": "la sección de autoatención no llegó"}
        opened = time.perf_counter() - start
        before, got = weights.state_json, []

        def changed(attr, old, new):
            got.append(time.perf_counter())
            session.close()

        weights.on_change("state_json", changed)
        loop.call_later(UPDATE_TIMEOUT_S, session.close)
        sent = time.perf_counter()
        causal = json.loads(weights.specs_json)["causal"]["value"]
        # What board.js sends on a click of the control (model.send_msg).
        doc.callbacks.send_event(DataEvent(board, {"control": "causal", "value": not causal}))
        session._loop_until_closed()  # returns once `changed` or the timer closes the session
        ok = bool(got) and weights.state_json != before
        return {
            "ok": ok,
            "open_s": round(opened, 3),
            "update_ms": round((got[0] - sent) * 1e3, 1) if got else None,
            "models": len(list(doc.models)),
        }
    finally:
        session.close()
        loop.close()


# --------------------------------------------------------------------------- load clients


def message_event(component_id: str, data: dict) -> dict:
    """A PATCH-DOC's event for what a component's ESM sends with ``model.send_msg(data)`` (a
    Board's control: ``{"control": name, "value": v}``; the navigation's ``{"section": id}``)."""
    entries = [[key, value] for key, value in data.items()]
    values = {
        "type": "map",
        "entries": [["model", {"id": component_id}], ["data", {"type": "map", "entries": entries}]],
    }
    event = {"type": "event", "name": "data_event", "values": values}
    return {"kind": "MessageSent", "msg_type": "bokeh_event", "msg_data": event}


def component_of(objects: list, data_id: str) -> dict | None:
    """Among serialized objects, the component whose data model is ``data_id``."""
    return next(
        (
            o
            for o in objects
            if o["name"] == "panel.models.esm.ReactiveESM"
            and (o.get("attributes", {}).get("data") or {}).get("id") == data_id
        ),
        None,
    )


def lecture_targets(objects: list) -> tuple[dict | None, dict | None]:
    """The self-attention Board (the component its "Máscara causal" control's message goes
    to) and its data model, which holds the model's numbers the attention weights are drawn
    from (state_json), among serialized objects."""
    weights = next(
        (o for o in objects if o.get("attributes", {}).get("view") == "self_attention"),
        None,
    )
    board = component_of(objects, weights["id"]) if weights is not None else None
    return (board, weights) if board is not None else (None, None)


def causal_shown(weights: dict) -> bool:
    """The "Máscara causal" control's value in the Board's specs."""
    try:
        return bool(json.loads(weights["attributes"]["specs_json"])["causal"]["value"])
    except (KeyError, TypeError, ValueError):
        return False


class Stats:
    def __init__(self):
        self.latencies_ms: list[float] = []
        self.open_s: list[float] = []
        self.errors: Counter[str] = Counter()
        self.changes = 0
        self.late = 0


class Session:
    """One browser tab, minus the rendering."""

    def __init__(self, index: int, base_url: str, stats: Stats):
        self.index = index
        self.base_url = base_url
        self.stats = stats
        self.ws = None
        self.receiver = Receiver(Protocol())
        self.pending: asyncio.Future | None = None
        self.closed = False
        self.causal = False

    async def _recv(self):
        while True:
            fragment = await self.ws.read_message()
            if fragment is None:
                return None
            message = await self.receiver.consume(fragment)
            if message is not None:
                return message

    async def _send(self, msgtype: str, content: dict) -> None:
        # A Bokeh message is three text frames: header, metadata, content.
        await self.ws.write_message(json.dumps({"msgid": make_id(), "msgtype": msgtype}))
        await self.ws.write_message("{}")
        await self.ws.write_message(json.dumps(content))

    async def handshake(self, http: AsyncHTTPClient, query: str = ""):
        """What a browser tab does to open a session of ``APP_PATH + query``: GET the page for
        its session token, open the websocket with it, pull the document. The PULL-DOC reply;
        raises on any step that fails or takes over OPEN_TIMEOUT_S."""
        page = await http.fetch(
            HTTPRequest(
                self.base_url + APP_PATH + query,
                connect_timeout=OPEN_TIMEOUT_S,
                request_timeout=OPEN_TIMEOUT_S,
            )
        )
        match = TOKEN_RE.search(page.body.decode("utf-8", "replace"))
        if match is None:
            raise RuntimeError("la página no trae token de sesión")
        ws_url = self.base_url.replace("http://", "ws://", 1) + APP_PATH + "/ws"
        self.ws = await websocket_connect(
            HTTPRequest(
                ws_url,
                headers={"Origin": self.base_url},
                connect_timeout=OPEN_TIMEOUT_S,
                request_timeout=OPEN_TIMEOUT_S,
            ),
            subprotocols=["bokeh", match.group(1)],
            max_message_size=50 * 2**20,
        )
        # Browsers send small frames at once (TCP_NODELAY); so do we.
        self.ws.protocol.stream.set_nodelay(True)
        ack = await asyncio.wait_for(self._recv(), OPEN_TIMEOUT_S)
        if ack is None or ack.msgtype != "ACK":
            raise RuntimeError(f"se esperaba ACK, llegó {ack and ack.msgtype}")
        await self._send("PULL-DOC-REQ", {})
        reply = await asyncio.wait_for(self._recv(), OPEN_TIMEOUT_S)
        if reply is None or reply.msgtype != "PULL-DOC-REPLY":
            raise RuntimeError(f"se esperaba PULL-DOC-REPLY, llegó {reply and reply.msgtype}")
        return reply

    async def open(self, http: AsyncHTTPClient) -> bool:
        start = time.perf_counter()
        try:
            reply = await self.handshake(http)
            await self._send("PATCH-DOC", {"events": [DOCUMENT_READY]})
            found = lecture_targets(find_objects(reply.content, []))
            deadline = time.perf_counter() + OPEN_TIMEOUT_S
            # The section may come in a later patch, built after document_ready.
            while None in found:
                message = await asyncio.wait_for(
                    self._recv(), max(deadline - time.perf_counter(), 0.01)
                )
                if message is None or message.msgtype == "ERROR":
                    raise RuntimeError(f"la sección no llegó ({message and message.content})")
                if message.msgtype == "PATCH-DOC":
                    more = lecture_targets(find_objects(message.content, []))
                    found = tuple(a or b for a, b in zip(found, more, strict=True))
            board, weights = found
        except Exception as exc:
            self.stats.errors[f"apertura: {type(exc).__name__}"] += 1
            if self.ws is not None:
                self.ws.close()
            return False
        self.board_id = board["id"]
        self.weights_id = weights["id"]
        self.causal = causal_shown(weights)
        self.stats.open_s.append(time.perf_counter() - start)
        self.reader = asyncio.ensure_future(self._read())
        return True

    async def _read(self) -> None:
        try:
            while True:
                message = await self._recv()
                if message is None:
                    break
                if message.msgtype == "PATCH-DOC":
                    for event in message.content.get("events", ()):
                        if (
                            event.get("model", {}).get("id") == self.weights_id
                            and event.get("attr") == "state_json"
                            and self.pending is not None
                            and not self.pending.done()
                        ):
                            self.pending.set_result(time.perf_counter())
                elif message.msgtype == "ERROR":
                    self.stats.errors["ERROR del servidor"] += 1
                    if self.pending is not None and not self.pending.done():
                        self.pending.set_exception(RuntimeError(message.content.get("text")))
        except Exception:
            pass
        self.closed = True
        if self.pending is not None and not self.pending.done():
            self.pending.set_exception(ConnectionError("websocket cerrado"))

    async def run(self, t0: float, seconds: int, phase: float, every: float = 1.0) -> None:
        """Toggle the causal control at t0 + phase + k·every while k·every < seconds; record each
        answer."""
        loop = asyncio.get_running_loop()
        for k in range(max(1, round(seconds / every))):
            if self.closed:
                self.stats.errors["websocket cerrado por el servidor"] += 1
                return
            delay = t0 + phase + k * every - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            elif k:
                self.stats.late += 1
            self.causal = not self.causal
            self.pending = loop.create_future()
            sent = time.perf_counter()
            change = message_event(self.board_id, {"control": "causal", "value": self.causal})
            self.stats.changes += 1
            try:
                await self._send("PATCH-DOC", {"events": [change]})
                arrived = await asyncio.wait_for(self.pending, UPDATE_TIMEOUT_S)
            except TimeoutError:
                self.stats.errors[f"sin respuesta en {UPDATE_TIMEOUT_S:.0f} s"] += 1
                continue
            except Exception:
                self.stats.errors["websocket cerrado por el servidor"] += 1
                return
            self.stats.latencies_ms.append((arrived - sent) * 1e3)

    async def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
        if getattr(self, "reader", None) is not None:
            try:
                await asyncio.wait_for(self.reader, 5)
            except (TimeoutError, Exception):
                self.reader.cancel()


async def load(
    base_url: str, sessions: int, seconds: int, ramp: float, sample=lambda: None
) -> tuple[Stats, dict]:
    """Open `sessions` tabs spread over `ramp` seconds, then run them all for `seconds`.

    ``sample()`` is called before opening, once all are open, and after the last change: the
    caller reads the server's CPU time there."""
    stats = Stats()
    http = AsyncHTTPClient(force_instance=True, max_clients=sessions)
    tabs = [Session(i, base_url, stats) for i in range(sessions)]

    async def open_later(tab: Session) -> bool:
        await asyncio.sleep(ramp * tab.index / max(sessions, 1))
        return await tab.open(http)

    samples = [sample()]
    start = time.perf_counter()
    opened = await asyncio.wait_for(
        asyncio.gather(*(open_later(t) for t in tabs)), ramp + 4 * OPEN_TIMEOUT_S
    )
    open_wall = time.perf_counter() - start
    live = [t for t, ok in zip(tabs, opened, strict=True) if ok]
    loop = asyncio.get_running_loop()
    t0 = loop.time() + 1.0
    # Spread the sessions evenly over each second, as students' clicks would be.
    runs = [t.run(t0, seconds, t.index / max(sessions, 1)) for t in live]
    samples.append(sample())
    measure_start = time.perf_counter()
    await asyncio.wait_for(
        asyncio.gather(*runs), 1.0 + seconds * (1 + UPDATE_TIMEOUT_S) + UPDATE_TIMEOUT_S
    )
    measure_wall = time.perf_counter() - measure_start
    samples.append(sample())
    close_start = time.perf_counter()
    await asyncio.gather(*(t.close() for t in tabs))
    http.close()
    return stats, {
        "open_wall_s": open_wall,
        "measure_wall_s": measure_wall,
        "live": len(live),
        "samples": samples,
        "close_s": time.perf_counter() - close_start,
    }


# --------------------------------------------------------------------------- one configuration


async def arrivals(
    base_url: str, sessions: int, seconds: int, ramp: float, every: float, seed: int, sample
) -> tuple[Stats, dict]:
    """A class arriving: each of `sessions` tabs opens at a random moment of `ramp` seconds
    (uniform, a fixed seed), then changes the control every `every` seconds for `seconds`
    seconds, while later tabs still arrive. ``sample()`` before the first and after the last."""
    stats = Stats()
    http = AsyncHTTPClient(force_instance=True, max_clients=sessions)
    tabs = [Session(i, base_url, stats) for i in range(sessions)]
    rng = np.random.default_rng(seed)
    at = rng.uniform(0.0, ramp, sessions)
    loop = asyncio.get_running_loop()
    start = loop.time()

    async def student(tab: Session, arrival: float) -> None:
        await asyncio.sleep(arrival)
        if await tab.open(http):
            # The first click a moment after the section is there (within one period).
            await tab.run(loop.time(), seconds, float(rng.uniform(0.2, every)), every)

    samples = [sample()]
    wall = time.perf_counter()
    await asyncio.wait_for(
        asyncio.gather(*(student(t, a) for t, a in zip(tabs, at, strict=True))),
        ramp + 4 * OPEN_TIMEOUT_S + seconds * (1 + UPDATE_TIMEOUT_S / every) + UPDATE_TIMEOUT_S,
    )
    samples.append(sample())
    measure_wall = time.perf_counter() - wall
    await asyncio.gather(*(t.close() for t in tabs))
    http.close()
    return stats, {
        "open_wall_s": loop.time() - start,
        "measure_wall_s": measure_wall,
        "live": sum(1 for t in tabs if getattr(t, "reader", None) is not None),
        "samples": samples,
    }


def pct(values, q) -> float | None:
    return float(np.percentile(np.asarray(values), q)) if values else None


def run_config(config: str, args, logdir: Path) -> dict:
    label = CONFIGS.get(config, config)
    server = None
    result: dict = {"config": config, "label": label, "sessions": args.sessions}
    try:
        if args.url:
            base_url = loopback_only(args.url)
        else:
            server = Server(config, logdir)
            base_url = server.base_url
            result["startup_s"] = round(server.wait_ready(), 2)
        result["url"] = base_url + APP_PATH
        result["loadavg_before"] = os.getloadavg()[0]
        try:
            result["bokeh_client"] = bokeh_client_check(base_url + APP_PATH)
        except Exception as exc:
            result["bokeh_client"] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}

        def sample():
            own = resource.getrusage(resource.RUSAGE_SELF)
            return (
                time.perf_counter(),
                server.cpu_seconds() if server else None,
                own.ru_utime + own.ru_stime,
            )

        if args.arrivals:
            stats, times = asyncio.run(
                arrivals(
                    base_url,
                    args.sessions,
                    args.seconds,
                    args.ramp,
                    args.every,
                    args.seed,
                    sample=sample,
                )
            )
        else:
            stats, times = asyncio.run(
                load(base_url, args.sessions, args.seconds, args.ramp, sample=sample)
            )
    finally:
        if server is not None:
            stop = time.perf_counter()
            server.stop()
            result["stop_s"] = round(time.perf_counter() - stop, 2)
    if args.arrivals:
        return arrivals_result(result, stats, times)
    (_, s0, _), (w1, s1, c1), (w2, s2, c2) = times["samples"]
    # Per process: how the changes were spread over the workers (pids absent before count 0).
    split = []
    if s2:
        used = {pid: s2[pid] - s1.get(pid, 0.0) for pid in s2}
        split = sorted((round(v, 1) for v in used.values() if v > 0.5), reverse=True)
    s0, s1, s2 = (None if x is None else sum(x.values()) for x in (s0, s1, s2))
    lat = stats.latencies_ms
    result.update(
        client_figures(stats, times["live"]),
        open_wall_s=times["open_wall_s"],
        measure_wall_s=times["measure_wall_s"],
        close_s=times["close_s"],
        # CPU time of the server's processes (workers, nginx) per opened session and per change
        # answered, and in cores while the changes ran: the capacity figures, far less sensitive
        # than latency to whatever else the machine is running.
        server_cpu_ms_per_open=None if s0 is None else (s1 - s0) * 1e3 / max(times["live"], 1),
        server_cpu_ms_per_change=None if s0 is None else (s2 - s1) * 1e3 / max(len(lat), 1),
        server_cpu_cores=None if s0 is None else (s2 - s1) / (w2 - w1),
        server_cpu_s_by_process=split,
        client_cpu_cores=(c2 - c1) / (w2 - w1),
        loadavg_after=os.getloadavg()[0],
    )
    result["meets_target"] = (
        result["errors"] == 0
        and result["p95_ms"] is not None
        and result["p95_ms"] <= TARGET_P95_MS
        and result["bokeh_client"].get("ok", False)
    )
    return result


def client_figures(stats: Stats, opened: int) -> dict:
    """What the clients saw, for both kinds of run: sessions opened, changes and their
    answers, errors by kind, latency and opening percentiles."""
    lat = stats.latencies_ms
    return {
        "opened": opened,
        "changes": stats.changes,
        "updates": len(lat),
        "errors": sum(stats.errors.values()),
        "error_kinds": dict(stats.errors),
        "late_ticks": stats.late,
        "p50_ms": pct(lat, 50),
        "p95_ms": pct(lat, 95),
        "p99_ms": pct(lat, 99),
        "max_ms": max(lat) if lat else None,
        "open_p50_s": pct(stats.open_s, 50),
        "open_p95_s": pct(stats.open_s, 95),
    }


def arrivals_result(result: dict, stats: Stats, times: dict) -> dict:
    """A class arriving: opening and changes overlap, so the server's CPU is one total."""
    (w0, s0, c0), (w1, s1, c1) = times["samples"]
    total = None if s0 is None else sum(s1.values()) - sum(s0.values())
    result.update(
        client_figures(stats, times["live"]),
        open_max_s=max(stats.open_s) if stats.open_s else None,
        wall_s=times["measure_wall_s"],
        server_cpu_s=total,
        server_cpu_cores=None if total is None else total / (w1 - w0),
        # This process (every tab's client) shares the two cores with the server.
        client_cpu_s=c1 - c0,
        client_cpu_cores=(c1 - c0) / (w1 - w0),
        loadavg_after=os.getloadavg()[0],
    )
    result["meets_target"] = (
        result["errors"] == 0
        and result["opened"] == result["sessions"]
        and result["open_p95_s"] is not None
        and result["open_p95_s"] <= ARRIVAL_TARGET["open_p95_s"]
        and result["p95_ms"] is not None
        and result["p95_ms"] <= ARRIVAL_TARGET["p95_ms"]
    )
    return result


def fmt(value, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=TARGET_SESSIONS)
    parser.add_argument("--seconds", type=int, default=60, help="seconds of changes per session")
    parser.add_argument(
        "--ramp", type=float, default=10.0, help="the sessions open spread over this many seconds"
    )
    parser.add_argument(
        "--configs",
        default=",".join(DEFAULT_CONFIGS),
        help=f"comma separated, of: {', '.join(CONFIGS)}",
    )
    parser.add_argument(
        "--arrivals",
        action="store_true",
        help="a class arriving: each session opens at a random moment of --ramp seconds, then "
        "changes the control every --every seconds for --seconds seconds (issue 17)",
    )
    parser.add_argument("--every", type=float, default=1.0, help="seconds between changes")
    parser.add_argument("--seed", type=int, default=17, help="of the random arrival times")
    parser.add_argument("--url", help="measure a server already running on 127.0.0.1 instead")
    parser.add_argument("--quick", action="store_true", help="10 sessions × 10 s, ramp 2 s")
    parser.add_argument(
        "--out",
        type=Path,
        help="where to write the results (default bench/load_results.json, with --arrivals "
        "bench/arrivals_results.json; --quick and --url write nothing unless given)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.sessions, args.seconds, args.ramp = 10, 10, 2.0
    if args.out is None and not (args.quick or args.url):
        name = "arrivals_results.json" if args.arrivals else "load_results.json"
        args.out = ROOT / "bench" / name
    if not (
        1 <= args.sessions <= 500
        and 1 <= args.seconds <= 600
        and 0 <= args.ramp <= 120
        and 0.2 <= args.every <= 60
    ):
        parser.error(
            "límites: 1 ≤ --sessions ≤ 500, 1 ≤ --seconds ≤ 600, 0 ≤ --ramp ≤ 120, "
            "0,2 ≤ --every ≤ 60"
        )
    configs = ["externo"] if args.url else [c.strip() for c in args.configs.split(",") if c]
    unknown = [c for c in configs if c not in CONFIGS and c != "externo"]
    if unknown:
        parser.error(f"configuración desconocida: {', '.join(unknown)}")

    if args.arrivals:
        print(
            f"{args.sessions} sesiones que llegan al azar en {args.ramp:g} s y cambian un control "
            f"cada {args.every:g} s durante {args.seconds} s; objetivo: abrir p95 ≤ "
            f"{ARRIVAL_TARGET['open_p95_s']:g} s, cambio p95 ≤ {ARRIVAL_TARGET['p95_ms']:g} ms, "
            "0 errores"
        )
    else:
        print(
            f"{args.sessions} sesiones × {args.seconds} s, un cambio por segundo cada una "
            f"(apertura repartida en {args.ramp:g} s); objetivo con {TARGET_SESSIONS} sesiones: "
            f"0 errores, p95 ≤ {TARGET_P95_MS:g} ms"
        )
    header = (
        f"{'configuración':<22} {'sesiones':>8} {'cambios':>8} {'errores':>7} {'p50 ms':>7} "
        f"{'p95 ms':>7} {'p99 ms':>7} {'abrir p95 s':>11} {'CPU/abrir':>9} {'CPU/cambio':>10} "
        f"{'núcleos':>7} {'carga':>5}  "
        "bokeh.client  objetivo"
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-load-") as tmp:
        logdir = Path(tmp)
        for config in configs:
            print(f"… {CONFIGS.get(config, config)}", flush=True)
            try:
                row = run_config(config, args, logdir)
            except Exception as exc:
                logs = sorted(logdir.glob(f"{config}*.log")) + sorted(
                    logdir.glob(f"{config}-run/*.log")
                )
                tail = "".join(p.read_text()[-1500:] for p in logs)
                print(f"   falló: {type(exc).__name__}: {exc}\n{tail}", flush=True)
                row = {"config": config, "label": CONFIGS.get(config, config), "failed": str(exc)}
            rows.append(row)
    print()
    if args.arrivals:
        print_arrivals(rows)
    else:
        print_load(rows, header)
    summary = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "mode": "arrivals" if args.arrivals else "load",
        "sessions": args.sessions,
        "seconds": args.seconds,
        "ramp_s": args.ramp,
        "every_s": args.every,
        "control": "autoatención · Máscara causal → tabla de pesos (PATCH-DOC ida y vuelta)",
        "target": ARRIVAL_TARGET
        if args.arrivals
        else {"sessions": TARGET_SESSIONS, "errors": 0, "p95_ms": TARGET_P95_MS},
        "results": rows,
    }
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
        print(f"resultados en {args.out}")
    return 0 if all("failed" not in r for r in rows) else 1


def print_arrivals(rows: list[dict]) -> None:
    header = (
        f"{'configuración':<22} {'abiertas':>9} {'cambios':>8} {'errores':>7} "
        f"{'abrir p50 s':>11} {'abrir p95 s':>11} {'p50 ms':>7} {'p95 ms':>7} "
        f"{'CPU s':>7} {'núcleos':>7}  objetivo"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        if "failed" in r:
            print(f"{r['label']:<22} falló: {r['failed']}")
            continue
        print(
            f"{r['label']:<22} {r['opened']:>5}/{r['sessions']:<3} {r['updates']:>8} "
            f"{r['errors']:>7} {fmt(r['open_p50_s'], '11.1f')} {fmt(r['open_p95_s'], '11.1f')} "
            f"{fmt(r['p50_ms'], '7.0f')} {fmt(r['p95_ms'], '7.0f')} "
            f"{fmt(r['server_cpu_s'], '7.0f')} {fmt(r['server_cpu_cores'], '7.2f')}  "
            f"{'sí' if r['meets_target'] else 'NO'}"
        )
        if r["error_kinds"]:
            print(f"{'':<22} errores: {r['error_kinds']}")


def print_load(rows: list[dict], header: str) -> None:
    print(header)
    print("-" * len(header))
    for r in rows:
        if "failed" in r:
            print(f"{r['label']:<22} falló: {r['failed']}")
            continue
        bk = r["bokeh_client"]
        bk_text = f"ok {bk['update_ms']:.0f} ms" if bk.get("ok") else "FALLÓ"
        verdict = (
            ("sí" if r["meets_target"] else "NO") if r["sessions"] >= TARGET_SESSIONS else "(n/a)"
        )
        print(
            f"{r['label']:<22} {r['opened']:>4}/{r['sessions']:<3} {r['updates']:>8} "
            f"{r['errors']:>7} {fmt(r['p50_ms'], '7.0f')} {fmt(r['p95_ms'], '7.0f')} "
            f"{fmt(r['p99_ms'], '7.0f')} {fmt(r['open_p95_s'], '11.1f')} "
            f"{fmt(r['server_cpu_ms_per_open'], '7.0f')} ms "
            f"{fmt(r['server_cpu_ms_per_change'], '7.1f')} ms "
            f"{fmt(r['server_cpu_cores'], '7.2f')} {r['loadavg_before']:5.1f}  "
            f"{bk_text:<13} {verdict}"
        )
        if len(r["server_cpu_s_by_process"]) > 1:
            print(f"{'':<22} CPU por proceso (s): {r['server_cpu_s_by_process']}")
        if r["error_kinds"]:
            print(f"{'':<22} errores: {r['error_kinds']}")
    print(
        "\ncambios = respuestas recibidas · CPU/abrir, CPU/cambio: tiempo de CPU del servidor "
        "(workers + nginx) por sesión abierta y por cambio respondido · núcleos: CPU del servidor "
        f"durante los cambios (de {os.cpu_count()}) · carga: load average de la máquina al empezar"
    )


if __name__ == "__main__":
    raise SystemExit(main())
