"""The pages' browser code (dashboards/static): which files, in what order, and how a page that
cannot load them by URL (the export, a notebook) carries them inline.

Served pages load the same files from /c04/ (dashboards/app/session.py).
"""

from __future__ import annotations

import re
from pathlib import Path

# The page's scripts (dashboards/static/) and each demo's drawing (dashboards/static/demos/*.js).
STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
DEMOS_DIR = STATIC_DIR / "demos"
SCRIPT_DIRS = (STATIC_DIR, DEMOS_DIR)
CORE_SCRIPT = "c04.js"
# Class mode needs the server (dashboards/classroom/classmode.py), and so do the served
# lecture's navigation and «Para seguir jugando» (app.js): not in a handout nor a notebook.
LIVE_ONLY = frozenset({"classroom.js", "app.js"})


def static_scripts(*dirs: Path) -> list[tuple[str, str]]:
    """(name, text) of the browser twin, the ``*.js`` of ``dirs`` (default: SCRIPT_DIRS):
    ``c04.js`` first, then the others sorted by name."""
    scripts = (p for d in dirs or SCRIPT_DIRS if d.is_dir() for p in d.glob("*.js"))
    files = sorted(scripts, key=lambda p: (p.name != CORE_SCRIPT, p.name))
    return [(p.name, p.read_text(encoding="utf-8")) for p in files if p.name not in LIVE_ONLY]


# A comment alone on its line(s): a "//" line, or a "/* … */" block opening a line. Only whole
# lines, so nothing inside a string, a template or a regex on a line of code is touched.
_COMMENT_LINES = re.compile(r"^[ \t]*(?://[^\n]*|/\*.*?\*/[ \t]*)\n", re.M | re.S)


def without_comment_lines(text: str) -> str:
    """A browser script as the pages inline it: its comment lines left out (in the source,
    not in every exported page: ~40 % of the scripts' bytes)."""
    return _COMMENT_LINES.sub("", text)


def script_path(name: str) -> Path:
    """The file of the browser script ``name`` (``markup.js``, ``capital.js``, …)."""
    for folder in SCRIPT_DIRS:
        if (folder / name).is_file():
            return folder / name
    raise FileNotFoundError(name)


def json_in_script(text: str) -> str:
    """JSON text as the body of a ``<script type="application/json">``."""
    # Only "</" and "<!--" can end or derail a <script> element; "\\/" and "\\u0021" are
    # plain JSON escapes (escaping every "<" would cost 5 bytes each in HTML-heavy states).
    return text.replace("</", "<\\/").replace("<!--", "<\\u0021--")


def script_element(text: str) -> str:
    """JavaScript as a ``<script>`` element."""
    # "</script" would end the element early; "<\/" means the same inside JS strings/regexes.
    return "<script>" + re.sub(r"</(script)", r"<\\/\1", text, flags=re.I) + "</script>"
