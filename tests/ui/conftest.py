"""Browser tests: the lecture served by `panel serve`, driven by Playwright in Debian's Chromium.

Playwright cannot download its own browsers here, so it launches /usr/bin/chromium (installed by
`make test`). Every request that does not go to 127.0.0.1/localhost is aborted and recorded, so a
test can assert the page needs nothing from the internet.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from dashboards import APPS

from c04_testing import PageWatch

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")

pytestmark = pytest.mark.ui


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/ui/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.ui)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"No se encontró Chromium en {CHROMIUM}: `make test` lo instala con apt-get.")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            "--disable-sync",
        ],
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server():
    """`panel serve` of the lecture (the same command as `make serve`) on a free port."""
    port = _free_port()
    log_dir = ROOT / ".pytest_cache"
    log_dir.mkdir(exist_ok=True)
    log = (log_dir / f"serve-{port}.log").open("w+")  # closed at teardown
    cmd = [
        sys.executable,
        "-m",
        "panel",
        "serve",
        *(f"dashboards/{name}.py" for name in APPS),
        "--address",
        "127.0.0.1",
        "--port",
        str(port),
        "--allow-websocket-origin",
        f"127.0.0.1:{port}",
        "--allow-websocket-origin",
        f"localhost:{port}",
        "--index",
        "lecture",
    ]
    env = {**os.environ, "PYTHONMALLOC": "malloc"}  # as `make serve`
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"panel serve terminó con código {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{base}/lecture", timeout=5) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        pytest.fail("panel serve no respondió en 60 s")
    yield {"base": base, "proc": proc, "log": log, "log_path": log_dir / f"serve-{port}.log"}
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def lecture_url(server):
    return f"{server['base']}/lecture"


@pytest.fixture
def watch(page):
    return PageWatch(page)


def open_section(page, lecture_url: str, section: str, timeout: float = 30_000):
    """Open the lecture on one section (?seccion=<id>) and wait until it has rendered."""
    page.goto(f"{lecture_url}?seccion={section}")
    marker = page.locator(f'[data-testid="section-{section}"]').first
    marker.wait_for(state="attached", timeout=timeout)
    return page


@pytest.fixture
def open_lecture_section(page, watch, lecture_url):
    def _open(section: str):
        return open_section(page, lecture_url, section)

    return _open


@pytest.fixture
def open_live(context, lecture_url):
    """``live, live_watch = open_live("capital")``: the served lecture on one section, new page.

    The page is opened in the same browser context as ``page`` and watched by a PageWatch that
    only lets local requests through.
    """

    def _open(section: str):
        live = context.new_page()
        live_watch = PageWatch(live)
        open_section(live, lecture_url, section)
        return live, live_watch

    return _open


# For file:// pages (the exported HTML): only file:, data:, blob: and about: may load.
OFFLINE_PREFIXES = ("file:", "data:", "blob:", "about:")


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """`python -m dashboards.export` once per test session; returns the folder of the HTML files."""
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run(
        [sys.executable, "-m", "dashboards.export", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0:
        pytest.fail(f"make export falló:\n{result.stdout}\n{result.stderr}")
    return out


@pytest.fixture
def offline(page):
    """A page whose every non-file request is aborted (and recorded in ``.external``)."""
    return PageWatch(page, OFFLINE_PREFIXES)


def open_exported(page, exported_dir: Path, filename: str, section: str | None = None):
    """Open dist/<filename> from disk and wait for Bokeh to render (and the section marker)."""
    page.goto((exported_dir / filename).as_uri())
    if section:
        marker = page.locator(f'[data-testid="section-{section}"]').first
        marker.wait_for(state="attached", timeout=30_000)
    page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0", timeout=30_000)
    return page


@pytest.fixture
def open_export(page, offline, exported):
    """``open_export("capital.html", "capital")`` opens an exported file offline and waits."""

    def _open(filename: str, section: str | None = None):
        return open_exported(page, exported, filename, section)

    return _open
