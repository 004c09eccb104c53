"""Debian's Chromium for the browser benches, and the one page-side lookup they share.

Imported by bench_browser.py and bench_export.py (run as ``python bench/<script>.py``, so this
directory is on ``sys.path``).
"""

from __future__ import annotations

import os
import shutil

CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
# Playwright cannot download its own browser here; these are the flags of tests/ui/conftest.py.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]

# A JS function declaration: the first element matching `sel` under `root`, looking inside
# shadow roots too (every Bokeh/Panel view renders into one), or null.
DEEP_FIND_JS = """function deepFind(root, sel) {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) {
        const inner = deepFind(el.shadowRoot, sel);
        if (inner) return inner;
      }
    }
    return null;
  }"""


def watched_page(browser, allowed: tuple[str, ...], errors: list, blocked: list):
    """A new 1400×900 page that appends its console errors and uncaught exceptions to
    ``errors`` and aborts (and appends to ``blocked``) every request whose URL does not start
    with one of ``allowed``."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def route(r):
        if r.request.url.startswith(allowed):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return page
