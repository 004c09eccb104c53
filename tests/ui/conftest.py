"""Browser tests: the lecture served by `panel serve`, driven by Playwright in Debian's Chromium.

Playwright cannot download its own browsers here, so it launches /usr/bin/chromium (installed by
`make test`). Every request that does not go to 127.0.0.1/localhost is recorded (PageWatch) and
fails (CHROMIUM_ARGS leave no other host resolvable), so a test can assert the page needs nothing
from the internet; live pages are not routed, so Chromium's HTTP cache keeps the bundles.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock
from playwright.sync_api import expect

from dashboards import serving
from dashboards.demos.registry import SECTIONS
from dashboards.export import LECTURE_FILE, lang_dir

from c04_testing import (
    CHROMIUM,
    CHROMIUM_ARGS,
    EXPORT_KEY,
    OFFLINE_PREFIXES,
    PageWatch,
    wait_for_export,
)

ROOT = Path(__file__).resolve().parents[2]

# Playwright's 5 s default was once too short on CI for a section built on a click while the
# other worker loaded the second core; a failing expectation still fails, 10 s later.
expect.set_options(timeout=15_000)

pytestmark = pytest.mark.ui


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/ui/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.ui)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"No se encontró Chromium en {CHROMIUM}: `make test` lo instala con apt-get.")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS}


class _SharedPage:
    """One browser context and one page (tab) per test process, navigated from test to test.

    Measured here: opening an exported file in the same tab takes ~0.8 s, against ~1.2 s in a new
    tab and ~2.0 s in a new context (a live section: ~1.6 s against ~2.5 s). The tab's renderer
    keeps the Bokeh and Panel bundles compiled, and the context keeps the served ones in
    its HTTP cache. Each test still starts from a full page load (``about:blank`` in between).
    """

    def __init__(self, browser, context_args):
        self.browser, self.context_args = browser, context_args
        self.context = self.page = None

    def get(self):
        if self.page is None or self.page.is_closed():
            if self.context is not None:
                self.context.close()
            self.context = self.browser.new_context(**self.context_args)
            self.page = self.context.new_page()
        return self.page

    def reset(self, listeners) -> None:
        """Undo what a test left: its listeners, routes and extra pages; then a blank page.
        A page that cannot be reset (crashed, hung) is replaced at the next ``get``."""
        page = self.page
        try:
            for event, handler in listeners:
                page.remove_listener(event, handler)
            page.unroute_all(behavior="ignoreErrors")
            for other in self.context.pages:
                if other is not page:
                    other.close()
            page.goto("about:blank", timeout=10_000)
        except Exception:  # any failure: start over with a new context
            with contextlib.suppress(Exception):
                self.context.close()
            self.context = self.page = None

    def close(self) -> None:
        if self.context is not None:
            self.context.close()


@pytest.fixture(scope="session")
def _shared_page(browser, browser_context_args):
    shared = _SharedPage(browser, browser_context_args)
    yield shared
    shared.close()


@pytest.fixture
def context(_shared_page):
    """The test process's one context (pytest-playwright's is one per test)."""
    _shared_page.get()
    return _shared_page.context


@pytest.fixture
def page(_shared_page, context):
    """The test process's one page, reset after each test (see _SharedPage): the listeners a
    test adds with ``page.on`` are removed, its routes dropped, its other pages closed."""
    page = _shared_page.get()
    listeners = []

    def on(event, handler):
        listeners.append((event, handler))
        return type(page).on(page, event, handler)

    page.on = on  # the instance attribute shadows Page.on for this test only
    try:
        yield page
    finally:
        del page.on
        _shared_page.reset(listeners)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """`make serve`'s server (dashboards/serving.py) on a free port: one per test process."""
    port = serving.free_port()
    log_path = tmp_path_factory.mktemp("serve") / f"serve-{port}.log"
    try:
        proc = serving.start(port, log_path)
    except RuntimeError as exc:
        pytest.fail(str(exc))
    base = f"http://127.0.0.1:{port}"
    yield {"base": base, "proc": proc, "log_path": log_path}
    serving.stop(proc)


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


@pytest.fixture(scope="session")
def exported(request, tmp_path_factory):
    """`python -m dashboards.export` once per test run, shared by every xdist worker: the one
    the controller started in the background (root conftest.py), or else the first worker to
    ask writes it under a file lock; returns the folder of the HTML files."""
    started = getattr(request.config, "workerinput", {}).get(EXPORT_KEY)
    if started:
        return wait_for_export(Path(started))
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's folder, above each worker's own
    out = shared / "dist"
    with FileLock(shared / "dist.lock"):
        if not (out / "index.html").is_file():
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


@pytest.fixture(scope="session")
def whole_lecture(browser, browser_context_args, exported):
    """``page, watch = whole_lecture("en")``: the export's whole lecture (clase04.html, ~4.7 MB,
    4–5 s to render) in one language, opened offline once per test process, in a context of its
    own, and shared by the checks that only read it: no click, typing, scrolling or viewport
    change there (a test that changes the page opens its own with ``open_export``). ``watch`` is
    the page's offline PageWatch since it opened; the last section has rendered."""
    context, opened = None, {}

    def _open(lang: str):
        nonlocal context
        if lang not in opened or opened[lang][0].is_closed():
            if context is None:
                context = browser.new_context(**browser_context_args)
            page = context.new_page()
            watch = PageWatch(page, OFFLINE_PREFIXES)
            open_exported(page, exported, f"{lang_dir(lang)}{LECTURE_FILE}", SECTIONS[-1].id)
            opened[lang] = (page, watch)
        return opened[lang]

    yield _open
    if context is not None:
        context.close()


@pytest.fixture
def open_export(page, offline, exported):
    """``open_export("capital.html", "capital")`` opens an exported file offline and waits."""

    def _open(filename: str, section: str | None = None):
        return open_exported(page, exported, filename, section)

    return _open
