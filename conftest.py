"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

# One BLAS thread per process, as the servers run (dashboards/serving.py: SERVE_ENV): before
# numpy loads OpenBLAS. Two xdist workers with two threads each on two cores made a forward
# pass of SmolLM2 5× slower (tests/attnmodel/test_smollm.py, measured under the suite's load).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import pytest
from hypothesis import settings

# No per-example deadline: timing belongs in `make bench`, and a loaded CI machine (or two
# servers beside the suite) pushed single examples past hypothesis' 200 ms default.
settings.register_profile("c04", deadline=None)
settings.load_profile("c04")

# The shared test helpers (tests/c04_testing.py) assert too: rewrite them for readable failures.
pytest.register_assert_rewrite("c04_testing")

from c04_testing import EXPORT_KEY  # noqa: E402 (after the rewrite is registered)

ROOT = Path(__file__).resolve().parent
# Modules that start servers of their own beyond the worker's one, each run by one pytest-xdist
# worker in file order (`make test`: --dist loadgroup): the nginx deployment (nginx and two
# workers on consecutive ports, its last tests kill a worker and stop it) and the soak smoke (its
# two servers, whose memory it measures, and a module fixture shared by its assertions). Each is
# a unit no other test joins; every other test goes to whichever worker is free.
GROUPS = {
    "tests/dashboards/test_soak.py": "soak",
    "tests/ui/test_serve_prod.py": "serve-prod",
}


# Long single tests that are not browser tests: started early too, so that the short tests,
# not a 15 s one, fill in at the end (the notebook's kernel run).
EARLY = {"tests/ui/test_notebook.py"}


def _order(item) -> int:
    """The groups and the long single tests first (the soak smoke mostly waits, so it overlaps
    the others' work), then the browser tests, then the quick ones, which fill in at the end."""
    path = item.path.relative_to(ROOT).as_posix()
    return 0 if path in GROUPS or path in EARLY else 1 if path.startswith("tests/ui/") else 2


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    items.sort(key=_order)  # stable: file order within each part


# xdist's hooks are optional: `pytest -p no:xdist` runs the suite in one process.
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup` with GROUPS as the groups.

    xdist's own loadgroup marks a test by rewriting ``item._nodeid``, which pytest 9.2's
    ``Node.nodeid`` no longer reads (measured here: the soak smoke ran its module fixture on
    three workers), so the group is told from the file path of each node id instead.
    ``_split_scope`` is the override point xdist's LoadGroupScheduling itself uses.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return GROUPS.get(nodeid.split("::", 1)[0], nodeid)

    return FileGroups(config, log)


# The offline export the browser tests open (tests/ui/conftest.py's ``exported``). Under xdist
# the controller starts it in the background before the workers start, so that it runs while
# they begin with the groups, instead of every worker waiting ~15–20 s for it at its first
# export test (measured: two workers each blocked ~20 s on the file lock).
_EXPORT = pytest.StashKey[tuple]()


def _selects_browser_tests(config) -> bool:
    ui = ROOT / "tests" / "ui"
    for arg in config.args:
        path = (Path(config.invocation_params.dir) / arg.split("::", 1)[0]).resolve()
        if path == ui or ui in path.parents or path in ui.parents:
            return True
    return False


def pytest_configure(config):
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist"):
        return
    if not config.getoption("numprocesses", None) or not _selects_browser_tests(config):
        return
    folder = Path(tempfile.mkdtemp(prefix="c04-export-"))
    # The exit code lands in a file the workers wait for (they cannot wait on this process).
    script = '"$2" -m dashboards.export --out "$1/dist" > "$1/export.log" 2>&1; echo $? > "$1/rc"'
    proc = subprocess.Popen(
        ["bash", "-c", script, "export", str(folder), sys.executable],
        cwd=ROOT,
        start_new_session=True,  # its own process group: stopped with the export it runs
    )
    config.stash[_EXPORT] = (folder, proc)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """xdist hook: tell each worker where the background export writes (see above)."""
    started = node.config.stash.get(_EXPORT, None)
    if started is not None:
        node.workerinput[EXPORT_KEY] = str(started[0])


def pytest_unconfigure(config):
    started = config.stash.get(_EXPORT, None)
    if started is not None:
        folder, proc = started
        if proc.poll() is None:  # the run ended first (interrupted, or no export test ran)
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def rng():
    """A seeded generator, so a failing random case can be replayed."""
    return np.random.default_rng(20261129)


@pytest.fixture
def port():
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def panel_cleanup():
    """Reset Panel's global state after a test that built views."""
    yield
    import panel as pn

    pn.state.kill_all_servers()
    pn.state.cache.clear()
    pn.state.curdoc = None
