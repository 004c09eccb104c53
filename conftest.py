"""Fixtures shared by every test folder."""

from __future__ import annotations

import socket
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

# No per-example deadline: timing belongs in `make bench`, and a loaded CI machine (or two
# servers beside the suite) pushed single examples past hypothesis' 200 ms default.
settings.register_profile("c04", deadline=None)
settings.load_profile("c04")

# The shared test helpers (tests/c04_testing.py) assert too: rewrite them for readable failures.
pytest.register_assert_rewrite("c04_testing")

from c04_testing import SOAK_FILE, early_soak_folder, start_soak_smoke  # noqa: E402

ROOT = Path(__file__).resolve().parent
# Modules that start servers of their own beyond the worker's one, each run by one pytest-xdist
# worker in file order (`make test`: --dist loadgroup): the nginx deployment (nginx and two
# workers on consecutive ports, its last tests kill a worker and stop it) and the soak smoke
# (the assertions on its two runs, which share a module fixture). Each is a unit no other test
# joins; every other test goes to whichever worker is free.
GROUPS = {
    "tests/ui/test_serve_prod.py": "serve-prod",
    SOAK_FILE: "soak",
}
_early_soak: dict = {}  # the soak smoke runs this process started (pytest_collection_finish)


def _order(item) -> int:
    """The nginx deployment first (the longest unit), then the browser tests, then the quick
    ones, which fill in while the last browser tests finish, and last the soak smoke's
    assertions: its runs started with the session and have ended by then."""
    path = item.path.relative_to(ROOT).as_posix()
    if path == SOAK_FILE:
        return 3
    return 0 if path in GROUPS else 1 if path.startswith("tests/ui/") else 2


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    items.sort(key=_order)  # stable: file order within each part


def pytest_collection_finish(session):
    """Under pytest-xdist, start the soak smoke (~25 s, mostly waiting for the server to discard
    sessions and hand memory back) as soon as the tests are known, beside everything else: the
    first worker to create its folder starts it (tests/c04_testing.py SoakRun)."""
    folder = early_soak_folder(session.config)
    wanted = any(
        item.path.relative_to(ROOT).as_posix() == SOAK_FILE
        and item.get_closest_marker("soak") is None
        for item in session.items
    )
    if folder is None or not wanted:
        return
    try:
        folder.mkdir(parents=True)
    except FileExistsError:
        return  # another worker started it
    _early_soak.update(start_soak_smoke(folder))


def pytest_sessionfinish(session):
    for run in _early_soak.values():
        run.stop(timeout=300)  # bounded runs: they end by themselves


def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup` with GROUPS as the groups, in the order _order gives.

    xdist's own loadgroup marks a test by rewriting ``item._nodeid``, which pytest 9.2's
    ``Node.nodeid`` no longer reads (measured here: the soak smoke ran its module fixture on
    three workers), so the group is told from the file path of each node id instead.
    ``_split_scope`` is the override point xdist's LoadGroupScheduling itself uses. Scopes are
    handed out in collection order (not largest first), so the soak smoke's come last.
    """
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False

    class FileGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return GROUPS.get(nodeid.split("::", 1)[0], nodeid)

    return FileGroups(config, log)


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
