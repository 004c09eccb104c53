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
