"""The browser part of tests/c04_testing.py for the browser benches: Debian's Chromium and its
flags, PageWatch (console errors, requests outside the allowed prefixes), the shadow-root lookup.

Imported by bench_browser.py and bench_export.py (run as ``python bench/<script>.py``, so this
directory is on ``sys.path``); puts tests/ on ``sys.path`` for them.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from c04_testing import (  # noqa: F401  (re-exported for the benches)
    CHROMIUM,
    CHROMIUM_ARGS,
    DEEP_FIND_JS,
    OFFLINE_PREFIXES,
    PageWatch,
)

VIEWPORT = {"width": 1400, "height": 900}


def watched_page(browser, allowed: tuple[str, ...], errors: list, blocked: list):
    """A new 1400×900 page whose console errors and uncaught exceptions go to ``errors`` and
    whose requests outside ``allowed`` fail and go to ``blocked`` (a PageWatch)."""
    page = browser.new_page(viewport=VIEWPORT)
    PageWatch(page, allowed, errors, blocked)
    return page
