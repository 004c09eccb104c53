"""How the lecture is served: the one `panel serve` command, its environment, start and stop.

Every server of the project comes from here: ``make serve`` and anaconda-project's ``dashboard``
(``python -m dashboards.serving``), each worker of ``deploy/serve-prod.sh`` (the same, with the
worker's flags after it), the browser tests (tests/ui/conftest.py), the benchmarks
(bench/_server.py) and the README screenshots (scripts/screenshots.py) import ``command`` and
``start``. Imports nothing of Panel: the cold-start bench times a server from zero.

    python -m dashboards.serving [--address 127.0.0.1] [--port 5006] [--show] [PANEL_FLAGS…]

``--prod`` adds a class worker's flags (PROD_FLAGS). Flags it does not know go to ``panel serve``
as they are (``--num-procs 2``, ``--use-xheaders``, …). Without ``--allow-websocket-origin`` the
page may be opened as localhost and as 127.0.0.1 on the port. anaconda-project's
``--anaconda-project-*`` HTTP options are understood too.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from attnmodel.i18n import text, user_lang
from dashboards.classroom import shared_state
from dashboards.demos.registry import APP_FILES

ROOT = Path(__file__).resolve().parents[1]
# The system allocator gives memory back when a class closes its sessions; with CPython's own
# allocator the server stayed at ~1.8x its baseline (bench/bench_sessions.py).
# One BLAS thread per process: a class's parallelism is its sessions and workers. MiniLM's forward
# pass (attnmodel/minilm.py, 23 word pieces) with two cores busy elsewhere took p50 678 ms with
# OpenBLAS's two threads spinning against them, 43 ms with one (and 26 / 16 ms on idle cores).
SERVE_ENV = {"PYTHONMALLOC": "malloc", "OPENBLAS_NUM_THREADS": "1"}
INDEX = "lecture"
# A worker serving a class (deploy/serve-prod.sh, bench/bench_load.py): a page and its websocket
# share one session, a spinner while a section builds, /liveness for the supervisor.
PROD_FLAGS = ("--reuse-sessions", "--global-loading-spinner", "--liveness")
# The largest websocket message a client may send. A page's largest is a 2,000-character
# sentence (the explorer's cap), under 13 kB even written as JSON escapes; Bokeh's default is
# 20 MB. A bigger message closes that client's websocket before anything parses it.
WEBSOCKET_MAX_MESSAGE_BYTES = 2**20


def panel_command() -> list[str]:
    """``panel`` of this interpreter's environment (or ``python -m panel``)."""
    script = Path(sys.executable).parent / "panel"
    return [str(script)] if script.exists() else [sys.executable, "-m", "panel"]


def default_origins(port: int | str) -> list[str]:
    """The Origin a browser sends for a page opened on this machine at ``port``."""
    return [f"localhost:{port}", f"127.0.0.1:{port}"]


def command(
    port: int | str,
    *extra: str,
    address: str = "127.0.0.1",
    origins: list[str] | None = None,
) -> list[str]:
    """The `panel serve` argv of the lecture (index page) and every demo on ``address:port``,
    allowing websockets from ``origins`` (default: localhost and 127.0.0.1 on the port), then
    ``extra`` flags. Paths are relative to the project root (run it with ``cwd=ROOT``)."""
    origin_flags = []
    for origin in default_origins(port) if origins is None else origins:
        origin_flags += ["--allow-websocket-origin", origin]
    return [
        *panel_command(),
        "serve",
        *APP_FILES,
        "--address",
        address,
        "--port",
        str(port),
        *origin_flags,
        "--index",
        INDEX,
        # The markup renderer the pages load by URL (dashboards.app.session.MARKUP_URL).
        "--static-dirs",
        "c04=dashboards/static",
        "--websocket-max-message-size",
        str(WEBSOCKET_MAX_MESSAGE_BYTES),
        *extra,
    ]


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment with the server's (SERVE_ENV), then ``extra``."""
    return {**os.environ, **SERVE_ENV, **(extra or {})}


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(
    port: int,
    log_path: Path,
    *extra: str,
    env: dict[str, str] | None = None,
    timeout: float = 60.0,
    path: str = INDEX,
) -> subprocess.Popen:
    """The server of ``command(port, *extra)`` in its own process group, its output in
    ``log_path``; returned once ``/<path>`` answers 200. Raises RuntimeError (stopping it) if it
    ends or does not answer within ``timeout`` seconds."""
    return launch(command(port, *extra), port, log_path, env=env, timeout=timeout, path=path)


def launch(
    argv: list[str],
    port: int,
    log_path: Path,
    env: dict[str, str] | None = None,
    timeout: float = 60.0,
    path: str = INDEX,
) -> subprocess.Popen:
    """``start`` for any ``panel serve`` argv listening on ``port`` (a benchmark's reference
    app): run from the project root in the server's environment, returned once ``/<path>``
    answers 200, RuntimeError as ``start``."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("w", encoding="utf-8") as log:  # the child keeps its own descriptor
        proc = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=environment(env),
            start_new_session=True,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"panel serve terminó con código {proc.returncode}:\n{log_path.read_text()}"
            )
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}", timeout=5) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(0.2)
    stop(proc)
    raise RuntimeError(f"panel serve no respondió en {timeout:g} s (registro: {log_path})")


def stop(proc: subprocess.Popen, timeout: float = 10.0) -> None:
    """Stop a server started in its own process group (with make: make and panel serve)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _parse(args: list[str] | None, prog: str, lang: str | None):
    lang = lang or user_lang()
    parser = argparse.ArgumentParser(
        prog=prog,
        description=text("cli.serve_description", lang),
        allow_abbrev=False,  # a panel serve flag must never be taken for a prefix of ours
    )
    parser.add_argument("--address", default="127.0.0.1")
    parser.add_argument("--port", default="5006")
    parser.add_argument("--show", action="store_true", help=text("cli.serve_show", lang))
    parser.add_argument("--prod", action="store_true", help=text("cli.serve_prod", lang))
    parser.add_argument("--allow-websocket-origin", action="append", dest="origins")
    # anaconda-project's HTTP options (``supports_http_options: true``).
    parser.add_argument("--anaconda-project-address", dest="address")
    parser.add_argument("--anaconda-project-port", dest="port")
    parser.add_argument("--anaconda-project-host", action="append", dest="origins")
    parser.add_argument("--anaconda-project-url-prefix", dest="prefix")
    parser.add_argument("--anaconda-project-no-browser", action="store_true")
    parser.add_argument("--anaconda-project-use-xheaders", action="store_true")
    parser.add_argument("--anaconda-project-iframe-hosts", action="append", default=[])
    known, rest = parser.parse_known_args(args)
    return known, rest


def argv(
    args: list[str] | None = None,
    prog: str = "python -m dashboards.serving",
    lang: str | None = None,
) -> list[str]:
    """The full `panel serve` argv for this module's command line (see the module docstring);
    ``--help`` speaks ``lang`` (default: the environment's language)."""
    known, rest = _parse(args, prog, lang)
    extra = [*(PROD_FLAGS if known.prod else ()), *rest]
    if known.prefix:
        extra += ["--prefix", known.prefix]
    if known.show and not known.anaconda_project_no_browser:
        extra.append("--show")
    if known.anaconda_project_use_xheaders:
        extra.append("--use-xheaders")
    return command(known.port, *extra, address=known.address, origins=known.origins)


def check_exercises(lang: str | None = None) -> None:
    """Stop before serving when the exercises' file has a mistake, with the message naming the
    entry (every session would otherwise meet it)."""
    from dashboards.sharing import exercises

    try:
        exercises.load()
    except exercises.ExerciseError as exc:
        print(text("cli.exercises_failed", lang or user_lang(), message=exc), file=sys.stderr)
        sys.exit(2)


def main(
    args: list[str] | None = None,
    prog: str = "python -m dashboards.serving",
    lang: str | None = None,
) -> None:
    """Replace this process with `panel serve` (same pid, so a supervisor's pid stays valid),
    in SERVE_ENV: PYTHONMALLOC must be set before the interpreter starts."""
    full = argv(args, prog, lang)
    check_exercises(lang)
    known, _rest = _parse(args, prog, lang)
    extra_env = class_token(known, lang or user_lang())
    os.chdir(ROOT)
    sys.stdout.flush()
    os.execve(full[0], full, environment(extra_env))


def class_token(known, lang: str) -> dict[str, str]:
    """The lecturer's token (dashboards/classroom/shared_state.py): the environment's
    (``C04_CLASS_TOKEN``,
    serve-prod's, said only by its first characters), or a new random one printed with the two
    links, as Jupyter prints its own. Exits on a token too short to be safe."""
    token = shared_state.server_token()
    problem = shared_state.token_problem(token)
    if problem:
        print(text(problem, lang), file=sys.stderr)
        sys.exit(2)
    host = known.address if known.address not in ("127.0.0.1", "0.0.0.0", "::") else "localhost"
    base = f"http://{host}:{known.port}{(known.prefix or '').rstrip('/')}/"
    print(text("class.students_link", lang, url=base))
    if token is not None:
        shown = shared_state.lecturer_link(base, shared_state.masked(token))
        print(text("class.lecturer_link", lang, url=shown + f" ({shared_state.TOKEN_ENV})"))
        return {}
    token = shared_state.new_token()
    print(text("class.lecturer_link", lang, url=shared_state.lecturer_link(base, token)))
    return {shared_state.TOKEN_ENV: token}


if __name__ == "__main__":
    main()
