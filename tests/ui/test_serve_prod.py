"""`make serve-prod` for real: deploy/serve-prod.sh starts two `panel serve` workers behind
Debian's nginx (as a class would use it) and a browser, Bokeh clients and raw requests go through
nginx.

Two deployments serve the module: ROLE=all (one script: nginx, Redis, two workers) and a front
with two worker machines (three scripts), started by the first test that uses it.

The tests run in file order, except that pytest runs the browser tests (parametrized by
pytest-playwright's browser) together, from the first one's place: the ROLE=all class-mode test
(which kills the broker and a worker) and the several-machines one come before the concurrent
sessions' test. The killed-worker test checks that the script started the worker the class-mode
test killed and that it serves (one worker start, not two), and the last test of each deployment
stops it with SIGTERM (everything it started must be gone). nginx is not optional here: `make
test` installs it, so a missing nginx fails.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import panel  # noqa: F401  (registers Panel's Bokeh models, so bokeh.client can decode the page)
import pytest
from bokeh.client import pull_session
from bokeh.events import DocumentReady
from playwright.sync_api import expect
from tornado.ioloop import IOLoop

from attnmodel.i18n import text
from dashboards.app import lecture  # noqa: F401  (lecture: data models bokeh.client needs)
from dashboards.classroom import shared_state
from dashboards.demos.capital import CapitalWalkthrough

from c04_testing import (
    class_flow,
    country_select,
    end_class,
    forge_class_actions,
    open_class_page,
    readout_text,
)

ROOT = Path(__file__).resolve().parents[2]
TITLE = text("lecture.title")
WORKERS = 2
READY_S = 90  # the script: workers importing, warming up, nginx starting
STOP_S = 15  # SIGTERM -> every process gone
WORKER_LINE = re.compile(r"worker \d+/\d+: pid (\d+), 127\.0\.0\.1:(\d+)")
RESTART_LINE = re.compile(r"el worker de (\d+) terminó .*reinicio \d+/\d+: pid (\d+)")
REDIS_LINE = re.compile(r"redis-server, pid (\d+)")
REDIS_RESTART = re.compile(r"redis-server terminó .*reinicio \d+/\d+: pid (\d+)")
TOKEN = shared_state.new_token()


def _port_free(port: int) -> bool:
    """True when a server could listen on 127.0.0.1:port (as the script's workers do)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
            s.listen()
        except OSError:
            return False
        return True


def _free_ports(count: int) -> int:
    """The first of ``count`` consecutive free ports (the script's BASE_PORT..)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            first = s.getsockname()[1]
        if first + count < 65535 and all(_port_free(first + i) for i in range(count)):
            return first
    raise RuntimeError("no hay puertos libres consecutivos")


def _get(url: str, timeout: float = 10) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.status, response.read().decode("utf-8", errors="replace")


def _group_members(pgid: int) -> list[str]:
    """Live (not zombie) processes in process group ``pgid``: "pid command" each."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # ended meanwhile
        # pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
        fields = text[text.rindex(")") + 2 :].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(f"{stat.parent.name} {text[text.index('(') : text.rindex(')') + 1]}")
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Deployment:
    """One deploy/serve-prod.sh (ROLE=all unless ``env`` says otherwise) in its own process
    group, with its run directory under ``tmp``."""

    def __init__(self, tmp: Path, port: int | None = None, base_port: int | None = None, **env):
        self.port = port or _free_ports(1)
        self.base_port = base_port or _free_ports(WORKERS)
        while port is None and self.port in range(self.base_port, self.base_port + WORKERS):
            self.port = _free_ports(1)
        self.run_dir = tmp / "run"
        self.run_dir.mkdir()
        self.out_path = tmp / "serve-prod.out"
        self.url = f"http://127.0.0.1:{self.port}"
        self.killed: dict[int, int] = {}  # port -> pid of a worker a test killed there
        env = {
            **os.environ,
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "BASE_PORT": str(self.base_port),
            "WORKERS": str(WORKERS),
            "RUN_DIR": str(self.run_dir),
            "VENV": sys.prefix,
            shared_state.TOKEN_ENV: TOKEN,
            **env,
        }
        self.out = self.out_path.open("w")
        # Its own session and process group: the test can find (and, failing all else, kill)
        # every process the script started; a Ctrl-C of pytest reaches it through the teardown.
        self.proc = subprocess.Popen(
            ["bash", "deploy/serve-prod.sh"],
            cwd=ROOT,
            env=env,
            stdout=self.out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def output(self) -> str:
        return self.out_path.read_text(errors="replace")

    def logs(self) -> str:
        """The script's output and the tail of every log in RUN_DIR, for failure messages."""
        parts = [f"--- salida de serve-prod.sh ---\n{self.output()}"]
        for log in sorted(self.run_dir.glob("*.log")):
            tail = log.read_text(errors="replace").splitlines()[-15:]
            parts.append(f"--- {log.name} ---\n" + "\n".join(tail))
        return "\n".join(parts)

    def wait_ready(self) -> None:
        deadline = time.monotonic() + READY_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                code = self.proc.returncode
                pytest.fail(f"serve-prod.sh terminó con código {code}\n{self.logs()}")
            try:
                if _get(f"{self.url}/lecture", timeout=5)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.5)
        pytest.fail(f"nginx no respondió 200 en /lecture en {READY_S} s\n{self.logs()}")

    def wait_for(self, pattern: re.Pattern, seconds: float = READY_S) -> re.Match:
        """The script's output line matching ``pattern`` (fails if the script ends first)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if found := pattern.search(self.output()):
                return found
            if self.proc.poll() is not None:
                pytest.fail(
                    f"serve-prod.sh terminó con código {self.proc.returncode}\n{self.logs()}"
                )
            time.sleep(0.3)
        pytest.fail(f"serve-prod.sh no dijo {pattern.pattern!r} en {seconds} s\n{self.logs()}")

    def wait_workers_live(self, seconds: float = READY_S) -> None:
        """Every worker answers on /liveness (a condition, polled; fails after ``seconds``)."""
        deadline = time.monotonic() + seconds
        for port in range(self.base_port, self.base_port + WORKERS):
            while True:
                try:
                    if _get(f"http://127.0.0.1:{port}/liveness", timeout=2)[0] == 200:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"el worker de {port} no respondió en {seconds} s\n{self.logs()}")
                time.sleep(0.3)

    def worker_pids(self) -> dict[int, int]:
        """port -> pid of the worker on it now (restarts included), from the script's output."""
        out = self.output()
        pids = {int(port): int(pid) for pid, port in WORKER_LINE.findall(out)}
        pids.update({int(port): int(pid) for port, pid in RESTART_LINE.findall(out)})
        return pids

    def stop(self) -> None:
        """SIGTERM the group, then SIGKILL whatever is left (teardown after a failure)."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=STOP_S)
        deadline = time.monotonic() + 5
        while _group_members(self.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _group_members(self.proc.pid):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        if self.proc.poll() is None:
            self.proc.wait(timeout=5)
        self.out.close()


def _need_nginx() -> None:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.access(nginx, os.X_OK):
        pytest.fail("No se encontró nginx: `make test` lo instala con apt-get (objetivo `nginx`).")


@pytest.fixture(scope="module")
def prod(tmp_path_factory):
    _need_nginx()
    deployment = Deployment(tmp_path_factory.mktemp("serve-prod"))
    try:
        deployment.wait_ready()
        yield deployment
    finally:
        deployment.stop()


def open_session(url: str, loop: IOLoop):
    """A Bokeh session as a browser opens one (bench/bench_sessions.py): pull, report loaded."""
    session = pull_session(url=url, io_loop=loop)
    session.document.callbacks.send_event(DocumentReady())
    session.request_server_info()  # a round trip: the worker has handled document_ready
    return session


def open_sessions_together(url: str, count: int) -> list[int]:
    """Open ``count`` sessions, all kept open until the last one is up, then close them.

    Returns the number of roots of each session's document. Runs in a thread of its own: the
    Playwright fixtures keep an asyncio loop running in the test's thread, and bokeh.client
    runs a loop of its own.
    """

    def run() -> list[int]:
        loop = IOLoop()
        sessions = []
        try:
            for _ in range(count):
                sessions.append(open_session(url, loop))
            return [len(s.document.roots) for s in sessions]
        finally:
            for session in sessions:
                session.close()
            loop.close()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run).result(timeout=120)


def ws_handshake(port: int, origin: str) -> int:
    """Status of a websocket upgrade of /lecture/ws through nginx sent with this Origin."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(
            "GET",
            "/lecture/ws",
            headers={
                "Connection": "Upgrade",
                "Upgrade": "websocket",
                "Sec-WebSocket-Version": "13",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                "Origin": origin,
            },
        )
        return conn.getresponse().status
    finally:
        conn.close()


def test_nginx_serves_the_lecture_and_caches_bokeh_js(prod):
    status, body = _get(f"{prod.url}/lecture", timeout=30)
    assert status == 200
    assert f"<title>{TITLE}</title>" in body
    # The JavaScript comes through nginx's cache, gzipped: a second request is a HIT.
    script = re.search(r'src="(static/js/bokeh\.min\.js[^"]*)"', body)
    assert script, body[:2000]
    for expected in ("MISS", "HIT"):
        request = urllib.request.Request(
            f"{prod.url}/{script.group(1)}", headers={"Accept-Encoding": "gzip"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 200
            assert response.headers["Content-Encoding"] == "gzip"
            assert response.headers["X-Cache-Status"] in (expected, "HIT"), prod.logs()
            assert len(response.read()) > 100_000
    # nginx writes only into RUN_DIR: no startup alert about /var/log/nginx, no permission error.
    assert "/var/log/nginx" not in prod.output()
    assert "[alert]" not in prod.output()
    errors = (prod.run_dir / "error.log").read_text()
    assert "[alert]" not in errors
    assert "[crit]" not in errors
    assert "[emerg]" not in errors


def test_browser_through_nginx_updates_numbers_over_the_websocket(page, watch, prod):
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    # Twice: under --reuse-sessions the first page of a worker may get the session its page was
    # rendered from; a later student's session is built anew (and must not reach for the CDN).
    for _ in range(2):
        page.goto(f"{prod.url}/lecture?seccion=autoatencion")
        page.locator('[data-testid="section-autoatencion"]').first.wait_for(
            state="attached", timeout=30_000
        )
    expect(page.get_by_text(TITLE).first).to_be_visible()
    first_row = page.locator('[data-testid="sa-weights"] tr').nth(1).locator("td:not(.c04-sum)")
    expect(first_row).to_have_text(["0,2840", "0,1400", "0,5760"], timeout=30_000)
    page.locator(".sa-causal input").check()
    expect(first_row).to_have_text(["1,0000", "0,0000", "0,0000"], timeout=15_000)
    assert sockets, "la página no abrió ningún websocket"
    assert all(url.startswith(f"ws://127.0.0.1:{prod.port}/lecture/ws") for url in sockets)
    assert watch.console_errors == []
    assert watch.external == []


def test_concurrent_sessions_reach_both_workers(prod):
    # Both workers up: the class-mode test's killed one has been started again meanwhile, and
    # nginx sends no session to a worker that refused it lately.
    prod.wait_workers_live()
    access_log = prod.run_dir / "access.log"
    start = access_log.stat().st_size
    # Opened one after another but all kept open: least_conn sends each new websocket to the
    # worker with fewer open ones. Six: an earlier page may still hold one or two websockets on
    # one worker (seen on CI), which the first new ones even out.
    roots = open_sessions_together(f"{prod.url}/lecture", 6)
    assert len(roots) == 6
    assert all(roots), roots
    # nginx logs a websocket when it closes, with the worker that carried it.
    workers = {f"127.0.0.1:{prod.base_port + i}" for i in range(WORKERS)}
    deadline = time.monotonic() + 10
    while True:
        with access_log.open() as log:
            log.seek(start)
            # bokeh.client's own (Tornado's user agent): a browser page of an earlier test may
            # close its websocket meanwhile (seen once on CI).
            lines = [
                line
                for line in log
                if '"GET /lecture/ws ' in line and '" 101 ' in line and '"Tornado/' in line
            ]
        upstreams = [m.group(1) for m in map(re.compile(r"upstream=(\S+)").search, lines) if m]
        if len(upstreams) >= len(roots) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert len(upstreams) == len(roots), lines
    assert set(upstreams) == workers, upstreams


def test_websocket_from_another_origin_is_refused(prod):
    assert ws_handshake(prod.port, "http://evil.example") == 403
    # Not even a worker's own address: only what students type (nginx's host:port) is allowed.
    assert ws_handshake(prod.port, f"http://127.0.0.1:{prod.base_port}") == 403
    logs = "".join(
        (prod.run_dir / f"worker-{prod.base_port + i}.log").read_text() for i in range(WORKERS)
    )
    assert "Refusing websocket connection from Origin 'http://evil.example'" in logs


def _sessions_per_worker(prod) -> dict[int, int]:
    """How many sessions each worker has created so far (its log's lines)."""
    return {
        port: (prod.run_dir / f"worker-{port}.log").read_text().count("ServerConnection created")
        for port in range(prod.base_port, prod.base_port + WORKERS)
    }


def _open_where_sessions_grow(browser, url: str, sessions, failure):
    """A page on ``url`` and the key of ``sessions()`` (sessions created so far, per worker or
    machine) whose count grew: where its session landed. ``failure()``: the message if none
    grew (read only then: it may read the logs)."""
    before = sessions()
    context, page, _watch = open_class_page(browser, url)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        grown = [k for k, n in sessions().items() if n > before[k]]
        if grown:
            return context, page, grown[0]
        time.sleep(0.1)
    pytest.fail(failure())


def _open_on_new_worker(browser, prod, url: str):
    """A page on ``url`` and the worker its session landed on."""
    return _open_where_sessions_grow(
        browser,
        url,
        lambda: _sessions_per_worker(prod),
        lambda: f"ningún worker creó la sesión\n{prod.logs()}",
    )


def test_class_mode_across_two_workers_and_the_broker(browser, prod):
    """The class state travels through Redis: the lecturer and the students on different
    workers; a broker restart or a worker restart loses nothing but the in-flight change."""
    assert REDIS_LINE.search(prod.output()), prod.output()
    assert f"?profesor={TOKEN}" in prod.output()  # the lecturer's link, printed once
    logs = "".join(log.read_text() for log in prod.run_dir.glob("*.log"))
    assert TOKEN not in logs
    contexts = []
    try:
        c, lecturer, lecturer_worker = _open_on_new_worker(
            browser, prod, f"{prod.url}/lecture?profesor={TOKEN}"
        )
        contexts.append(c)
        # Students until two are on different workers. least_conn counts each worker's open
        # connections, those this module's earlier tests are still closing included: under the
        # whole suite's load three pages once all landed on one worker (1 clean-clone CI run in
        # 4; alone, 3 runs in 3 spread). The spreading itself is what
        # test_concurrent_sessions_reach_both_workers checks; here it only sets up the class.
        students: dict[int, object] = {}
        for _ in range(6):
            c, page, worker = _open_on_new_worker(browser, prod, f"{prod.url}/lecture")
            contexts.append(c)
            students.setdefault(worker, page)
            if len(students) == WORKERS:
                break
        assert len(students) == WORKERS, "los estudiantes no se repartieron entre los workers"
        # Ana: the student whose worker is not the lecturer's (killed below).
        ana_worker = next(w for w in students if w != lecturer_worker)
        ana = students[ana_worker]
        ben = next(page for w, page in students.items() if w != ana_worker)
        class_flow([lecturer, ana, ben], f"{prod.url}/lecture", TOKEN)
        forge_class_actions(prod.url, [{"action": "clear"}, {"action": "end"}])
        expect(lecturer.get_by_test_id("class-distribution")).to_be_visible()

        # The broker dies: serve-prod starts it again, empty; the workers reconnect, the
        # lecturer's page publishes its state again and the students follow the next change.
        redis_pid = int(REDIS_LINE.search(prod.output()).group(1))
        os.kill(redis_pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while not REDIS_RESTART.search(prod.output()):
            assert time.monotonic() < deadline, prod.logs()
            time.sleep(0.2)
        # (The reveal took the lecturer's page to the question's section, «La capital».)
        country_select(lecturer).select_option("Italia")
        italy = readout_text(CapitalWalkthrough(country="Italia").probability)
        for page in (ana, ben):
            expect(page.get_by_test_id("class-status")).to_contain_text(text("class.following"))
            probability = page.locator('[data-testid="capital-probability"] .c04-value')
            expect(probability).to_have_text(italy, timeout=30_000)

        # Ana's worker dies: serve-prod starts it again; her page, reloaded, lands on a live
        # worker and shows the lecturer's latest state, read back from Redis. (That the killed
        # worker comes back and serves: test_a_killed_worker_is_started_again.)
        old = prod.worker_pids()[ana_worker]
        restarts = prod.output().count("reinicio ")
        os.kill(old, signal.SIGKILL)
        prod.killed[ana_worker] = old
        deadline = time.monotonic() + 60
        while prod.output().count("reinicio ") == restarts:
            assert time.monotonic() < deadline, prod.logs()
            time.sleep(0.2)
        ana.reload()
        ana.locator('[data-testid="section-capital"]').first.wait_for(
            state="attached", timeout=60_000
        )
        expect(ana.get_by_test_id("class-status")).to_contain_text(text("class.following"))
        probability = ana.locator('[data-testid="capital-probability"] .c04-value')
        expect(probability).to_have_text(italy, timeout=30_000)
        end_class(lecturer, [ana, ben])
    finally:
        for c in contexts:
            c.close()


def test_a_killed_worker_is_started_again(prod):
    """The worker the class-mode test killed with SIGKILL (one killed here when that test did
    not run): the script starts it again on its port, and it serves, directly and through
    nginx. Its new worker's start overlaps the end of that test instead of following it."""
    pids = prod.worker_pids()
    assert sorted(pids) == [prod.base_port + i for i in range(WORKERS)], prod.output()
    if not prod.killed:
        prod.killed[prod.base_port] = pids[prod.base_port]
        os.kill(pids[prod.base_port], signal.SIGKILL)
    [(port, old)] = prod.killed.items()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        new = prod.worker_pids()[port]
        if new != old and _alive(new):
            try:
                if _get(f"http://127.0.0.1:{port}/liveness", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
        time.sleep(0.3)
    else:
        pytest.fail(f"el worker de {port} no volvió en 30 s\n{prod.logs()}")
    assert prod.proc.poll() is None
    # The script said so, with the new pid (the broker's restart says it in another line).
    assert (str(port), str(prod.worker_pids()[port])) in RESTART_LINE.findall(prod.output())
    status, body = _get(f"http://127.0.0.1:{port}/lecture", timeout=30)
    assert status == 200
    assert TITLE in body
    assert _get(f"{prod.url}/lecture", timeout=30)[0] == 200


def test_sigterm_stops_nginx_and_every_worker(prod):
    nginx_master = int((prod.run_dir / "nginx.pid").read_text())
    started = [nginx_master, *prod.worker_pids().values()]
    assert all(_alive(pid) for pid in started)
    assert _group_members(prod.proc.pid)
    os.kill(prod.proc.pid, signal.SIGTERM)  # the script only, as `kill` or systemd would
    t0 = time.monotonic()
    try:
        prod.proc.wait(timeout=STOP_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"serve-prod.sh siguió vivo {STOP_S} s después de SIGTERM\n{prod.logs()}")
    assert prod.proc.returncode == 143
    while _group_members(prod.proc.pid) and time.monotonic() - t0 < STOP_S:
        time.sleep(0.2)
    assert _group_members(prod.proc.pid) == []
    assert not [pid for pid in started if _alive(pid)]
    for port in (prod.port, *range(prod.base_port, prod.base_port + WORKERS)):
        assert _port_free(port), f"el puerto {port} sigue ocupado"
    assert "detenido" in prod.output()


# -- several machines: a front (nginx, Redis) and worker machines on 127.0.0.2, 127.0.0.3 --------
HOSTS = ("127.0.0.2", "127.0.0.3")  # stand-ins for two machines: all of 127/8 is this box's
READY_LINE = re.compile(r"listo: ")


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    """ROLE=front on 127.0.0.1 and one ROLE=workers script per stand-in machine, with one
    worker each on the same port of its own address, sharing the front's Redis and token."""
    _need_nginx()
    port, base = _free_ports(1), _free_ports(1)
    front = Deployment(
        tmp_path_factory.mktemp("front"),
        port=port,
        base_port=base,
        ROLE="front",
        UPSTREAMS=" ".join(f"{h}:{base}" for h in HOSTS),
    )
    machines = {
        h: Deployment(
            tmp_path_factory.mktemp(h),
            port=port,
            base_port=base,
            ROLE="workers",
            BIND=h,
            WORKERS="1",
            C04_REDIS_URL=f"redis://127.0.0.1:{port + 100}/0",
        )
        for h in HOSTS
    }
    try:
        for machine in machines.values():
            machine.wait_for(READY_LINE)
        front.wait_ready()
        yield front, machines
    finally:
        for deployment in (front, *machines.values()):
            deployment.stop()


def _sessions_per_host(machines) -> dict[str, int]:
    return {
        h: sum(
            log.read_text().count("ServerConnection created")
            for log in m.run_dir.glob("worker-*.log")
        )
        for h, m in machines.items()
    }


def _open_on_new_host(browser, machines, url: str):
    """A page on ``url`` and the machine its session landed on."""
    return _open_where_sessions_grow(
        browser,
        url,
        lambda: _sessions_per_host(machines),
        lambda: "ninguna máquina creó la sesión",
    )


def test_the_front_spreads_sessions_over_the_machines(hosts):
    front, machines = hosts
    assert all(f"server {h}:" in (front.run_dir / "nginx.conf").read_text() for h in HOSTS)
    # Each worker listens on its own machine's address only.
    for h, machine in machines.items():
        assert f"{h}:{machine.base_port}" in machine.output()
        assert _port_free(machine.base_port), "un worker escucha también en 127.0.0.1"
    roots = open_sessions_together(f"{front.url}/lecture", 4)
    assert len(roots) == 4
    assert all(roots), roots
    per_host = _sessions_per_host(machines)
    assert all(n >= 1 for n in per_host.values()), per_host
    upstreams = re.findall(r"upstream=([\d.]+):", (front.run_dir / "access.log").read_text())
    assert set(HOSTS) <= set(upstreams)


def test_class_mode_across_machines_through_the_front_s_broker(browser, hosts):
    """The lecturer on one machine, a student on another: the student follows the lecturer's
    change and the lecturer counts the student's answer, through the front's Redis."""
    front, machines = hosts
    contexts = []
    try:
        c, lecturer, lecturer_host = _open_on_new_host(
            browser, machines, f"{front.url}/lecture?profesor={TOKEN}"
        )
        contexts.append(c)
        for _ in range(3):  # least_conn: the next page goes to the other machine
            c, student, host = _open_on_new_host(browser, machines, f"{front.url}/lecture")
            contexts.append(c)
            if host != lecturer_host:
                break
        assert host != lecturer_host, "el estudiante no llegó a la otra máquina"
        expect(student.get_by_test_id("class-status")).to_contain_text(text("class.following"))
        lecturer.get_by_role("button", name=text("section.capital")).click()
        country_select(lecturer).select_option("Italia")
        italy = readout_text(CapitalWalkthrough(country="Italia").probability)
        probability = student.locator('[data-testid="capital-probability"] .c04-value')
        expect(probability).to_have_text(italy, timeout=30_000)
        lecturer.get_by_test_id("class-exercise").select_option("identity_zero")
        lecturer.get_by_test_id("class-ask").click()
        form = student.get_by_test_id("class-form")
        form.locator("input[value='0']").check()
        student.get_by_test_id("class-answer").click()
        expect(lecturer.get_by_test_id("class-count")).to_have_text(text("class.count", n=1))
        end_class(lecturer, [student])
    finally:
        for c in contexts:
            c.close()


def test_sigterm_stops_the_front_and_each_machine(hosts):
    front, machines = hosts
    for deployment in (front, *machines.values()):
        os.kill(deployment.proc.pid, signal.SIGTERM)
    for deployment in (front, *machines.values()):
        deployment.proc.wait(timeout=STOP_S)
        assert deployment.proc.returncode == 143
        deadline = time.monotonic() + STOP_S
        while _group_members(deployment.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _group_members(deployment.proc.pid) == []
        assert "detenido" in deployment.output()
    assert _port_free(front.port)
    assert _port_free(front.port + 100)


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"ROLE": "front"}, "UPSTREAMS"),
        ({"ROLE": "front", "UPSTREAMS": "127.0.0.2"}, "no es host:puerto"),
        (
            {"ROLE": "front", "UPSTREAMS": "10.0.0.2:5007", "REDIS_BIND": "10.0.0.1"},
            "REDIS_PASSWORD",
        ),
        ({"ROLE": "workers", "C04_CLASS_TOKEN": ""}, "C04_CLASS_TOKEN"),
        ({"ROLE": "workers", "C04_REDIS_URL": ""}, "C04_REDIS_URL"),
        ({"ROLE": "ambos"}, "ROLE"),
        ({"REDIS_PASSWORD": 'corta"'}, "REDIS_PASSWORD"),
    ],
)
def test_a_wrong_machine_setting_stops_the_script_with_a_message(tmp_path, env, said):
    full = {
        **os.environ,
        "VENV": sys.prefix,
        "RUN_DIR": str(tmp_path),
        shared_state.TOKEN_ENV: TOKEN,
    }
    full.setdefault("C04_REDIS_URL", "redis://127.0.0.1:1/0")
    full.update(env)
    done = subprocess.run(
        ["bash", "deploy/serve-prod.sh"],
        cwd=ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert said in done.stderr
    assert not list(tmp_path.glob("*.log"))  # nothing was started
