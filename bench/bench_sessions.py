"""New sessions: server-side creation time and resident memory per extra session.

    make bench            # or: .venv/bin/python bench/bench_sessions.py [--sessions 50]

1. In-process (the primary creation figure): the lecture's session as `panel serve` builds it,
   into a fresh Document that has a session context (so Panel treats it as served and not yet
   loaded). Timed per session: ``create_lecture()`` + ``get_root`` (what runs before the page
   can be sent); the whole app script as `panel serve` runs it (``configure()``, the lecture,
   ``servable``, through Panel's own ScriptHandler); what runs once the browser reports the page
   loaded (``document_ready``: Panel's onload callbacks); and the Document's serialisation (the
   JSON embedded in the page). ``--sessions`` sessions after a few warm-up ones; p50/p95.
2. Served: `panel serve` with the app list and flags of `make serve` (plus ``--num-procs 1`` and
   fast discarding of unused sessions) on a free 127.0.0.1 port. Resident memory (VmRSS from
   /proc) after a warm-up session opened and closed (baseline); then ``--sessions`` sessions
   opened one after another with ``bokeh.client.pull_session`` against /lecture, each sent the
   browser's ``document_ready`` (so the onload work runs as for a real page) and kept open;
   memory again; then every session closed, the server left to discard them, and memory once
   more (ratio to baseline). The server log gives its own creation time per session (Panel's
   "Session … launching" to Bokeh's "ServerConnection created", millisecond timestamps); the
   client's wall time per session (connect, pull the document, document_ready round trip) is
   shown too. Last, a few plain HTTP GETs of /lecture (the browser's first request) with the
   request time from the server's access log.
3. Issue 36, in process: the Bokeh models in the served document once each section of the
   lecture is shown (es and en; the total and the commonest types), and the open above
   (create, get_root, onload, JSON) against a plain Panel page of one Markdown pane and 8
   widgets opened the same way, alternated with the lecture's open in one loop so that the
   machine's noise hits both; medians of ``--opens`` and their ratio. ``--models-only`` runs
   just this part (it writes no results unless ``--out`` is given).
Targets (issue #5): creation ≤ 250 ms, ≤ 5 MB per extra session, memory back within 10 % of
the baseline after the sessions close. Issue 36: ≤ 30 Bokeh models per shown section, an open
≤ 2× the plain page's. Writes bench/sessions_results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
import weakref
from collections import Counter
from datetime import datetime
from pathlib import Path

import _server
import numpy as np
import panel as pn
from _server import ROOT
from bokeh.client import pull_session
from bokeh.document import Document
from bokeh.events import DocumentReady
from bokeh.server.contexts import BokehSessionContext, _RequestProxy
from bokeh.util.token import generate_session_id
from panel.io.application import build_single_handler_application
from panel.io.state import set_curdoc
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine
from tornado.ioloop import IOLoop

from dashboards.app.lecture import SECTIONS, create_lecture
from dashboards.app.session import configure

# The server's environment beyond `make serve`'s (_server.SERVE_ENV): ``--env NAME=VALUE``
# (``--env PYTHONMALLOC=pymalloc`` measures CPython's own allocator).
SERVER_ENV: dict[str, str] = {}

TARGET_CREATE_MS = 250.0
# Issue 17: a whole open (the lecture, its first section after document_ready, the document's
# JSON) in ≤ 100 ms of server CPU.
TARGET_OPEN_MS = 100.0
TARGET_MB_PER_SESSION = 5.0
TARGET_RECOVERY = 0.10  # memory after closing within 10 % of the baseline
# Issue 36: a section shown is made of few models, and an open costs at most twice a plain page's.
TARGET_SECTION_MODELS = 30
TARGET_OPEN_RATIO = 2.0
LANGS = ("es", "en")

LAUNCH = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*Session (\d+) launching")
CONNECTED = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*ServerConnection created")
CREATED = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) .*Session (\d+) created")
ACCESS = re.compile(r"200 GET /lecture \(127\.0\.0\.1\) ([\d.]+)ms")


def percentile(values, q):
    return float(np.percentile(np.asarray(values, dtype=float), q))


def stats(values) -> dict[str, float] | None:
    if not values:
        return None
    return {"p50_ms": percentile(values, 50), "p95_ms": percentile(values, 95), "n": len(values)}


# --- 1. in-process ----------------------------------------------------------------------------


def served_document() -> tuple[Document, BokehSessionContext]:
    """A Document with a session context and a request, as a `panel serve` session has."""
    doc = Document()
    context = BokehSessionContext(generate_session_id(), None, doc)
    request = HTTPServerRequest(
        start_line=RequestStartLine("GET", "/lecture", "HTTP/1.1"),
        headers=HTTPHeaders({"Host": "127.0.0.1"}),
    )
    context._request = _RequestProxy(request)
    doc._session_context = weakref.ref(context)
    return doc, context


def time_in_process(n: int, warmup: int = 3) -> dict[str, dict]:
    configure()
    create, load, script, serialise, whole = [], [], [], [], []
    for k in range(warmup + n):
        doc, context = served_document()
        with set_curdoc(doc):
            start = time.perf_counter()
            lecture = create_lecture()
            doc.add_root(pn.panel(lecture).get_root(doc))
            built = time.perf_counter()
            # What Panel runs on the browser's document_ready event (its onload callbacks).
            pn.state._on_load(doc)
            loaded = time.perf_counter()
            # Everything the student's page receives, the first section included.
            doc.to_json()
            sent = time.perf_counter()
        if k >= warmup:
            create.append((built - start) * 1e3)
            load.append((loaded - built) * 1e3)
            whole.append((sent - start) * 1e3)
        del lecture, doc, context

    app = build_single_handler_application(str(ROOT / "dashboards" / "app" / "lecture.py"))
    for k in range(warmup + n):
        doc, context = served_document()
        start = time.perf_counter()
        app.initialize_document(doc)
        ran = time.perf_counter()
        doc.to_json()
        done = time.perf_counter()
        if app.handlers[0].failed:
            raise RuntimeError(f"el guion de la clase falló:\n{app.handlers[0].error_detail}")
        if k >= warmup:
            script.append((ran - start) * 1e3)
            serialise.append((done - ran) * 1e3)
        with set_curdoc(doc):
            pn.state._on_load(doc)
        del doc, context
    return {
        "create_lecture_get_root": stats(create),
        "onload_after_page": stats(load),
        "open_with_first_section": stats(whole),
        "app_script": stats(script),
        "page_document_json": stats(serialise),
    }


# --- 2. served -------------------------------------------------------------------------------


def counts(path: Path) -> tuple[int, int]:
    lines = _server.read_log(path)
    launched = sum(1 for line in lines if LAUNCH.match(line))
    destroyed = sum(1 for line in lines if _server.DESTROYED.search(line))
    return launched, destroyed


def wait_discarded(path: Path, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    """Wait until the server has destroyed every session it launched; returns the wait (s)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            sys.exit(f"panel serve terminó con código {proc.returncode}")
        launched, destroyed = counts(path)
        if launched and destroyed >= launched:
            return time.monotonic() - start
        time.sleep(0.25)
    launched, destroyed = counts(path)
    sys.exit(f"el servidor no descartó las sesiones en {timeout:g} s ({destroyed}/{launched})")


def wait_released(path: Path, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    """Wait until the memory of the last discarded sessions has been handed back."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            sys.exit(f"panel serve terminó con código {proc.returncode}")
        if _server.released_since_last_destroyed(path):
            return time.monotonic() - start
        time.sleep(0.25)
    sys.exit(f"el servidor no liberó la memoria en {timeout:g} s (falta «Memoria liberada»)")


def stamp(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f").timestamp()


def log_durations(lines: list[str], start: int, end_pattern: re.Pattern) -> list[float]:
    """ms from each "Session … launching" (from line ``start``) to the next ``end_pattern``."""
    durations, pending = [], None
    for line in lines[start:]:
        if m := LAUNCH.match(line):
            pending = stamp(m.group(1))
        elif pending is not None and (m := end_pattern.match(line)):
            durations.append((stamp(m.group(1)) - pending) * 1e3)
            pending = None
    return durations


def open_session(url: str, loop: IOLoop):
    """A session as a browser opens one: pull the document, then report it loaded."""
    session = pull_session(url=url, io_loop=loop)
    session.document.callbacks.send_event(DocumentReady())
    session.request_server_info()  # a round trip: the server has handled document_ready
    return session


def open_round(url: str, n: int, loop: IOLoop, pid: int, log_path: Path) -> dict:
    """Open ``n`` sessions one after another and keep them; RSS with all of them open."""
    first_line = len(_server.read_log(log_path))
    sessions, wall = [], []
    start = time.perf_counter()
    for _ in range(n):
        t0 = time.perf_counter()
        sessions.append(open_session(url, loop))
        wall.append((time.perf_counter() - t0) * 1e3)
    seconds = time.perf_counter() - start
    rss = _server.settled_rss(pid)
    server_ms = log_durations(_server.read_log(log_path), first_line, CONNECTED)
    return {"sessions": sessions, "wall": wall, "server_ms": server_ms, "rss": rss, "s": seconds}


def close_round(sessions: list, proc: subprocess.Popen, log_path: Path) -> dict:
    """Close every session, wait until the server has discarded them, then RSS twice: right
    away and once the lecture has handed the memory back (its "Memoria liberada" log line, a
    few seconds after the last discarded session: a garbage collection and malloc_trim)."""
    for session in sessions:
        session.close()
    sessions.clear()
    discard = wait_discarded(log_path, proc)
    closed = _server.settled_rss(proc.pid, 1.0)
    release = wait_released(log_path, proc)
    return {
        "discard_s": discard,
        "closed": closed,
        "release_s": release,
        "after": _server.settled_rss(proc.pid, 3.0),
    }


def measure_served(n: int, log_path: Path, n_http: int, reopen: bool) -> dict:
    port = _server.free_port()
    base = f"http://127.0.0.1:{port}"
    url = f"{base}/lecture"
    proc = _server.start(port, log_path, *_server.FAST_DISCARD, env=SERVER_ENV)
    loop = IOLoop()
    try:
        # Warm-up: one session opened and closed (and the readiness probe's session discarded).
        open_session(url, loop).close()
        wait_discarded(log_path, proc)
        wait_released(log_path, proc)
        baseline = _server.settled_rss(proc.pid)

        first = open_round(url, n, loop, proc.pid, log_path)
        closed = close_round(first["sessions"], proc, log_path)
        second = second_closed = None
        if reopen:  # the same again: memory the first round left behind is reused or not
            second = open_round(url, n, loop, proc.pid, log_path)
            second_closed = close_round(second["sessions"], proc, log_path)

        # The browser's first request: the page with its Document embedded (its session is
        # never connected and is discarded a second later).
        first_line = len(_server.read_log(log_path))
        page_ms = []
        for _ in range(n_http):
            t0 = time.perf_counter()
            with urllib.request.urlopen(url, timeout=30) as r:
                r.read()
            page_ms.append((time.perf_counter() - t0) * 1e3)
        time.sleep(0.5)
        page_created_ms = log_durations(_server.read_log(log_path), first_line, CREATED)
    finally:
        loop.close(all_fds=True)
        _server.stop(proc)
    result = {
        "command": " ".join(_server.serve_command(port, *_server.FAST_DISCARD)),
        "env": {**_server.SERVE_ENV, **SERVER_ENV},
        "sessions": n,
        "rss_baseline_mb": baseline,
        "rss_open_mb": first["rss"],
        "rss_closed_mb": closed["closed"],
        "rss_after_mb": closed["after"],
        "mb_per_extra_session": (first["rss"] - baseline) / n,
        "after_to_baseline": closed["after"] / baseline,
        "open_seconds": first["s"],
        "discard_seconds": closed["discard_s"],
        "release_seconds": closed["release_s"],
        "server_log_launch_to_connection": stats(first["server_ms"]),
        "client_open_wall": stats(first["wall"]),
        "http_page_request": stats(page_ms),
        "http_page_launch_to_created": stats(page_created_ms),
    }
    if second is not None:
        result["reopen"] = {
            "rss_open_mb": second["rss"],
            "rss_after_mb": second_closed["after"],
            "mb_per_session_over_first_round": (second["rss"] - first["rss"]) / n,
            "after_to_baseline": second_closed["after"] / baseline,
        }
    return result


# --- 3. issue 36: models per section, the lecture's open against a plain Panel page ---------


def shown_section_models(section: str, lang: str) -> Document:
    """The served document once ``section`` is shown (built as in time_in_process)."""
    doc, context = served_document()
    with set_curdoc(doc):
        lecture = create_lecture(section, lang)
        doc.add_root(pn.panel(lecture).get_root(doc))
        # The section is built by the onload callbacks, as when the browser reports the page.
        pn.state._on_load(doc)
    del lecture, context
    return doc


def model_types(doc: Document, top: int = 5) -> list[tuple[str, int]]:
    return Counter(type(m).__name__ for m in doc.models).most_common(top)


def section_models() -> dict:
    configure()
    rows = []
    for lang in LANGS:
        for section in SECTIONS:
            doc = shown_section_models(section.id, lang)
            models = len(doc.models)
            rows.append(
                {
                    "section": section.id,
                    "lang": lang,
                    "models": models,
                    "top_types": dict(model_types(doc)),
                    "meets_target": models <= TARGET_SECTION_MODELS,
                }
            )
            del doc
    worst = max(rows, key=lambda r: r["models"])
    return {
        "target_max": TARGET_SECTION_MODELS,
        "rows": rows,
        "worst": {k: worst[k] for k in ("section", "lang", "models")},
        "all_meet_target": all(r["meets_target"] for r in rows),
    }


def plain_page() -> pn.Column:
    """The reference of issue 36: a Panel page as its documentation shows one."""
    return pn.Column(
        pn.pane.Markdown("# A plain page\n\nOne Markdown pane and eight widgets."),
        pn.widgets.IntSlider(name="n", start=0, end=10, value=3),
        pn.widgets.FloatSlider(name="x", start=0, end=1, value=0.5),
        pn.widgets.Select(name="option", options=["a", "b", "c"]),
        pn.widgets.Checkbox(name="on"),
        pn.widgets.TextInput(name="text", value="hello"),
        pn.widgets.RadioButtonGroup(name="mode", options=["one", "two", "three"]),
        pn.widgets.Toggle(name="toggle"),
        pn.widgets.Button(name="go"),
    )


def timed_open(build) -> tuple[float, float, int]:
    """One open as open_with_first_section times it: build + get_root + onload + JSON.

    Returns wall ms, this thread's CPU ms and the document's model count.
    """
    doc, context = served_document()
    with set_curdoc(doc):
        start, cpu = time.perf_counter(), time.thread_time()
        page = build()
        doc.add_root(pn.panel(page).get_root(doc))
        pn.state._on_load(doc)
        doc.to_json()
        wall_ms = (time.perf_counter() - start) * 1e3
        cpu_ms = (time.thread_time() - cpu) * 1e3
    models = len(doc.models)
    del page, doc, context
    return wall_ms, cpu_ms, models


def open_against_plain(n: int, warmup: int = 3) -> dict:
    """The lecture's open and the plain page's, alternated (and their order swapped every
    iteration) so that the other processes on the machine slow both alike."""
    configure()
    builds = {"lecture": create_lecture, "plain": plain_page}
    wall: dict[str, list[float]] = {name: [] for name in builds}
    cpu: dict[str, list[float]] = {name: [] for name in builds}
    models: dict[str, int] = {}
    for k in range(warmup + n):
        for name in list(builds) if k % 2 else list(builds)[::-1]:
            w, c, models[name] = timed_open(builds[name])
            if k >= warmup:
                wall[name].append(w)
                cpu[name].append(c)

    def figures(name: str) -> dict:
        return {
            "median_ms": statistics.median(wall[name]),
            "p95_ms": percentile(wall[name], 95),
            "cpu_median_ms": statistics.median(cpu[name]),
            "models": models[name],
            "n": n,
        }

    lecture, plain = figures("lecture"), figures("plain")
    ratio = lecture["median_ms"] / plain["median_ms"]
    return {
        "what": "create + get_root + onload + doc.to_json(), in process, alternated",
        "plain_page": "pn.Column(Markdown, IntSlider, FloatSlider, Select, Checkbox, TextInput, "
        "RadioButtonGroup, Toggle, Button)",
        "lecture": lecture,
        "plain": plain,
        "ratio_median": ratio,
        "ratio_cpu_median": lecture["cpu_median_ms"] / plain["cpu_median_ms"],
        "target_ratio": TARGET_OPEN_RATIO,
        "meets_target": ratio <= TARGET_OPEN_RATIO,
    }


def print_issue36(models: dict, versus: dict) -> None:
    print(
        f"\nModelos Bokeh en el documento con la sección mostrada "
        f"(objetivo ≤ {TARGET_SECTION_MODELS}, issue 36)"
    )
    header = f"{'sección':<14} {'idioma':<6} {'modelos':>7}  cumple  tipos más frecuentes"
    print(header)
    print("-" * len(header))
    for r in models["rows"]:
        types = ", ".join(f"{name} {count}" for name, count in r["top_types"].items())
        mark = "sí" if r["meets_target"] else "NO"
        print(f"{r['section']:<14} {r['lang']:<6} {r['models']:>7}  {mark:<6}  {types}")
    worst = models["worst"]
    print(
        f"Peor: {worst['section']} ({worst['lang']}), {worst['models']} modelos · todas "
        f"≤ {TARGET_SECTION_MODELS}: {'sí' if models['all_meet_target'] else 'NO'}"
    )
    lecture, plain = versus["lecture"], versus["plain"]
    print(
        f"\nAbrir (crear, get_root, onload, JSON), en proceso, mediana de {lecture['n']}, "
        "alternando las dos páginas"
    )
    for label, row in (
        ("la clase (1.ª sección)", lecture),
        ("página Panel sencilla (Markdown + 8 controles)", plain),
    ):
        print(
            f"  {label:<48} {row['median_ms']:7.1f} ms (p95 {row['p95_ms']:6.1f}, CPU "
            f"{row['cpu_median_ms']:6.1f})  {row['models']:4d} modelos"
        )
    print(
        f"Clase / página sencilla: {versus['ratio_median']:.2f}× (CPU "
        f"{versus['ratio_cpu_median']:.2f}×; objetivo ≤ {TARGET_OPEN_RATIO:g}×): "
        f"{'sí' if versus['meets_target'] else 'NO'}"
    )


def issue36(opens: int) -> tuple[dict, dict]:
    print("Issue 36: modelos por sección (es, en) …", flush=True)
    models = section_models()
    print(f"Issue 36: {opens} aperturas de la clase y de una página Panel sencilla …", flush=True)
    return models, open_against_plain(opens)


def fmt(row: dict | None) -> str:
    if not row:
        return f"{'—':>9} {'—':>9}"
    return f"{row['p50_ms']:9.1f} {row['p95_ms']:9.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--http", type=int, default=10, help="plain GETs of /lecture at the end")
    parser.add_argument(
        "--out", type=Path, help="default bench/sessions_results.json (none with --models-only)"
    )
    parser.add_argument(
        "--opens",
        type=int,
        default=25,
        help="opens of the lecture and of the plain page each (issue 36), after 3 warm-up",
    )
    parser.add_argument(
        "--models-only",
        action="store_true",
        help="only issue 36's part: models per section, the open against a plain page",
    )
    parser.add_argument(
        "--log", type=Path, default=Path(tempfile.gettempdir()) / "clase04-bench-sessions.log"
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment variable for the server (e.g. PYTHONMALLOC=malloc)",
    )
    parser.add_argument(
        "--no-reopen",
        dest="reopen",
        action="store_false",
        help="skip the second round of sessions (memory reuse)",
    )
    args = parser.parse_args(argv)
    SERVER_ENV.update(item.split("=", 1) for item in args.env)
    warnings.simplefilter("ignore", DeprecationWarning)

    if args.models_only:
        models, versus = issue36(args.opens)
        print_issue36(models, versus)
        if args.out:
            summary = {
                "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
                "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
                "section_models": models,
                "open_against_plain_page": versus,
            }
            args.out.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(summary, indent=2, ensure_ascii=False)
            args.out.write_text(text, encoding="utf-8")
            print(f"\nResultados en {args.out}")
        return 0
    out = args.out or ROOT / "bench" / "sessions_results.json"

    print(f"En proceso: {args.sessions} sesiones …", flush=True)
    inproc = time_in_process(args.sessions)
    models, versus = issue36(args.opens)
    print(f"Servidor: {args.sessions} sesiones con pull_session …", flush=True)
    served = measure_served(args.sessions, args.log, args.http, args.reopen)

    create = inproc["create_lecture_get_root"]
    meets_create = create["p95_ms"] <= TARGET_CREATE_MS
    meets_memory = served["mb_per_extra_session"] <= TARGET_MB_PER_SESSION
    meets_recovery = abs(served["after_to_baseline"] - 1) <= TARGET_RECOVERY

    print()
    header = f"{'sesión nueva (ms)':<60} {'p50':>9} {'p95':>9}"
    print(header)
    print("-" * len(header))
    log_ws, log_page = (
        served["server_log_launch_to_connection"],
        served["http_page_launch_to_created"],
    )
    rows = [
        ("en proceso: create_lecture() + get_root   [principal]", create),
        ("en proceso: guion de la app (configure, clase, servable)", inproc["app_script"]),
        ("en proceso: serializar el Document de la página", inproc["page_document_json"]),
        ("en proceso: onload, con la página ya cargada", inproc["onload_after_page"]),
        (
            "en proceso: abrir entera (clase + 1.ª sección + JSON)",
            inproc["open_with_first_section"],
        ),
        ("servidor (log): launching → ServerConnection created", log_ws),
        ("servidor (log): GET /lecture, launching → created", log_page),
        ("cliente: GET /lecture (la página completa)", served["http_page_request"]),
        ("cliente: pull_session + document_ready (ida y vuelta)", served["client_open_wall"]),
    ]
    for label, row in rows:
        print(f"{label:<60} {fmt(row)}")
    print(f"Objetivo p95 ≤ {TARGET_CREATE_MS:g} ms (principal): {'sí' if meets_create else 'NO'}")
    whole = inproc["open_with_first_section"]
    meets_open = whole["p95_ms"] <= TARGET_OPEN_MS
    print(
        f"Abrir entera, objetivo p95 ≤ {TARGET_OPEN_MS:g} ms (issue 17): "
        f"{'sí' if meets_open else 'NO'}"
    )

    mb = served
    print(f"\nMemoria residente del servidor (VmRSS, MB), {args.sessions} sesiones")
    for label, value in (
        ("base (tras calentar)", mb["rss_baseline_mb"]),
        ("con las sesiones abiertas", mb["rss_open_mb"]),
        ("recién descartadas", mb["rss_closed_mb"]),
        (f"memoria liberada ({mb['release_seconds']:.0f} s después)", mb["rss_after_mb"]),
    ):
        print(f"  {label:<34}{value:8.1f}")
    print(
        f"Por sesión extra: {mb['mb_per_extra_session']:.2f} MB (objetivo ≤ "
        f"{TARGET_MB_PER_SESSION:g}): {'sí' if meets_memory else 'NO'}"
    )
    print(
        f"Tras cerrar / base: {mb['after_to_baseline']:.3f} (objetivo 1 ± "
        f"{TARGET_RECOVERY:.2f}): {'sí' if meets_recovery else 'NO'}"
    )
    if "reopen" in mb:
        again = mb["reopen"]
        print(
            f"Otra vez {args.sessions} sesiones: {again['rss_open_mb']:.1f} MB abiertas "
            f"({again['mb_per_session_over_first_round']:+.2f} MB por sesión sobre la primera "
            f"ronda), {again['rss_after_mb']:.1f} MB al cerrarlas "
            f"({again['after_to_baseline']:.3f} × base)"
        )
    print(
        f"Abrir las sesiones llevó {mb['open_seconds']:.1f} s; el servidor las descartó "
        f"{mb['discard_seconds']:.1f} s después de cerrarlas."
    )
    env = {**_server.SERVE_ENV, **SERVER_ENV}
    print("Entorno del servidor: " + " ".join(f"{k}={v}" for k, v in env.items()))
    print_issue36(models, versus)

    summary = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "targets": {
            "create_ms_p95": TARGET_CREATE_MS,
            "open_ms_p95": TARGET_OPEN_MS,
            "mb_per_extra_session": TARGET_MB_PER_SESSION,
            "after_to_baseline_within": TARGET_RECOVERY,
            "section_models_max": TARGET_SECTION_MODELS,
            "open_to_plain_page_ratio": TARGET_OPEN_RATIO,
        },
        "in_process": inproc,
        "served": served,
        "section_models": models,
        "open_against_plain_page": versus,
        "meets": {
            "create": meets_create,
            "open": meets_open,
            "memory_per_session": meets_memory,
            "memory_recovery": meets_recovery,
            "section_models": models["all_meet_target"],
            "open_to_plain_page": versus["meets_target"],
        },
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"\nResultados en {out} · log del servidor en {args.log}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
