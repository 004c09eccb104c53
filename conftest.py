"""Fixtures shared by every test folder."""

from __future__ import annotations

import socket

import numpy as np
import pytest
from hypothesis import settings

# No per-example deadline: timing belongs in `make bench`, and a loaded CI machine (or two
# servers beside the suite) pushed single examples past hypothesis' 200 ms default.
settings.register_profile("c04", deadline=None)
settings.load_profile("c04")

# The shared test helpers (tests/c04_testing.py) assert too: rewrite them for readable failures.
pytest.register_assert_rewrite("c04_testing")


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
