"""The demos' browser drawing run in Node, for the tests of what a view shows.

A Board with a ``view`` (dashboards.components.board) is drawn by
``C04.views[view].render(state)`` (dashboards/static/demos/<view>.js) from the model's numbers
that Python sends. :func:`drawn` runs that very code on a board's ``state`` in Node, with the
page's catalogue as the page embeds it, and returns the specs of the board's slots as the
browser merges them (board.js: the view's drawing, then ``specs``, the controls'). The specs
are what markup.js turns into HTML, which the browser tests (tests/ui) check on screen.

One Node process per language and test process, started on first use; a request is one line
of JSON each way.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from attnmodel.i18n import catalogue_json
from dashboards.components import mathml
from dashboards.components.scripts import script_path
from dashboards.demos import registry

# The page's globals that c04.js and the views read: window, and the document's two JSON
# scripts (the catalogue, #c04-text; the export's states, #c04-states, set per request).
_RUNNER = r"""
const fs = require("fs");
const vm = require("vm");
const readline = require("readline");
const [catalogue, ...files] = process.argv.slice(2);
let states = "{}";
globalThis.window = globalThis;
globalThis.document = {
  getElementById: (id) =>
    id === "c04-text" ? { textContent: fs.readFileSync(catalogue, "utf8") }
    : id === "c04-states" ? { textContent: states } : null,
};
for (const file of files) vm.runInThisContext(fs.readFileSync(file, "utf8"), { filename: file });
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let out;
  try {
    const { view, state } = JSON.parse(line);
    out = { specs: C04.views[view].render(state) };
  } catch (e) {
    out = { error: String(e && e.stack || e) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
});
"""


class JsViews:
    """``C04.views`` of one language in a Node process: :meth:`render` is the browser's."""

    def __init__(self, lang: str = "es"):
        node = shutil.which("node")
        if node is None:
            raise RuntimeError("Node.js (node) is needed to run the views' drawing")
        self._dir = tempfile.TemporaryDirectory(prefix="c04-views-")
        folder = Path(self._dir.name)
        catalogue = folder / "catalogue.json"
        entries = mathml.catalogue(lang)
        catalogue.write_text(
            catalogue_json(lang, registry.BROWSER_TABLES, entries), encoding="utf-8"
        )
        runner = folder / "runner.js"
        runner.write_text(_RUNNER, encoding="utf-8")
        files = [script_path("c04.js")]
        files += [script_path(f"{d.module}.js") for d in registry.DEMOS]
        self._proc = subprocess.Popen(
            [node, str(runner), str(catalogue), *map(str, files)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def render(self, view: str, state: dict) -> dict:
        """``C04.views[view].render(state)``: the specs by slot, as the browser makes them."""
        self._proc.stdin.write(json.dumps({"view": view, "state": state}) + "\n")
        self._proc.stdin.flush()
        answer = json.loads(self._proc.stdout.readline())
        if "error" in answer:
            raise AssertionError(f"C04.views.{view}.render failed:\n{answer['error']}")
        return answer["specs"]

    def close(self) -> None:
        self._proc.stdin.close()
        self._proc.wait(timeout=10)
        self._dir.cleanup()


@functools.cache
def js_views(lang: str = "es") -> JsViews:
    views = JsViews(lang)
    atexit.register(views.close)
    return views


def drawn(board, lang: str = "es") -> dict:
    """Every slot's spec of ``board`` as the browser has it: the view's drawing of the board's
    state (only the board's own slots), then the board's ``specs`` on top (board.js, draw)."""
    specs = {}
    if board.view and board.state:
        # Through JSON, as the state crosses to the browser.
        state = json.loads(board.state_json)
        rendered = js_views(lang).render(board.view, state)
        specs = {name: spec for name, spec in rendered.items() if name in board.kinds}
    return {**specs, **board.specs}
