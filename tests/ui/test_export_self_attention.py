"""Demo 1 (self-attention) in the exported dist/autoatencion.html, offline, against Python and the
live app.

Opened from file:// with every non-file request blocked, the page computes the model's numbers
in the browser (C04.views.self_attention.readState). After each step of the same sequence of
control changes — the causal mask, a typed Spanish number, a refused text, a number outside the
model's bound, a preset, the √d_k checkbox, cells typed until the matrices match another
preset — the page must show exactly what the live view shows for it: each data-testid table and
the heat map as the HTML markup.js draws from the drawing of Python's numbers (self_attention.js
run in Node, tests/c04_views.py; parsed by the same browser), the editors' error messages, the
cells' text, the preset and the scores' caption. The same steps in the served lecture must give
the same snapshot.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from attnmodel.i18n import text
from dashboards.demos.self_attention import SelfAttentionView, preset_options

from c04_testing import (
    SA_SNAPSHOT_START_JS,
    TIMER_JS,
    commit,
    export_and_live,
    format_times,
    sa_editors,
    sa_panes,
    table_row,
    update_times,
    use,
)
from c04_views import drawn

pytestmark = pytest.mark.ui

FILE, SECTION = "autoatencion.html", "autoatencion"
LABELS = {value: label for label, value in preset_options().items()}

# The same steps in every page (and in an in-process SelfAttentionView, the live logic).
STEPS = [
    ("causal", True),
    ("cell", "X", 0, 0, "1,5"),
    ("cell", "X", 0, 0, "abc"),
    ("cell", "X", 0, 0, "2e7"),
    ("preset", "puntajes grandes"),
    ("scaled", False),
    ("preset", "4.2.6"),
    ("cell", "W_K", 0, 0, "2"),
    ("cell", "W_K", 0, 1, "1"),
    ("cell", "W_K", 1, 0, "−1"),  # now W_K = W_Q: the preset becomes "W_K = W_Q"
    ("cell", "W_K", 1, 1, "1,0"),  # the same number: nothing changes, the text stays
    ("causal", False),
]

# Everything the demo shows, read from the page (tables from the DOM, the rest from Bokeh).
SNAPSHOT_JS = (
    """(tables) => {
  const doc = window.Bokeh && window.Bokeh.documents[0];
  if (!doc) return null;
  const el = (tid) => document.querySelector('[data-testid="' + tid + '"]') || deep(tid);
  function deep(tid, root = document) {
    for (const node of root.querySelectorAll('*')) {
      if (node.shadowRoot) {
        const hit = node.shadowRoot.querySelector('[data-testid="' + tid + '"]')
          || deep(tid, node.shadowRoot);
        if (hit) return hit;
      }
    }
    return null;
  }
"""
    + SA_SNAPSHOT_START_JS
    + """\
  for (const tid of tables) {
    const node = el(tid);
    // The numbers before a toggle (markup.js, compare) are drawn beside the table's own.
    const copy = node ? node.cloneNode(true) : null;
    for (const b of copy ? copy.querySelectorAll('.c04-before') : []) {
      b.removeAttribute('data-before');
      b.classList.remove('c04-before');
      if (!b.classList.length) b.removeAttribute('class');
    }
    out.tables[tid] = copy ? copy.outerHTML : null;
  }
  for (const name of ['X', 'W_Q', 'W_K', 'W_V']) {
    const editor = hosts('.sa-editor-' + name)[0];
    out.errors[name] = hosts('.c04-error', editor.shadowRoot || editor)[0].textContent;
    out.cells[name] = hosts('input', editor.shadowRoot || editor).map((i) => i.value);
  }
  const models = [...doc.all_models];
  // The scores' caption: the Board's "scores_title" slot, its formulas MathML (the drawing of
  // the numbers the Board holds).
  const boards = models.filter((m) => m.view === 'self_attention');
  out.title = boards.map(
    (m) => C04.views.self_attention.render(JSON.parse(m.state_json)).scores_title);
  // The Board's controls as the page shows them (the select's option: its spec's value).
  const board = boards[0];
  const select = hosts('.sa-preset select')[0];
  out.preset = JSON.parse(board.specs_json).preset.options[select.selectedIndex][0];
  out.causal = hosts('.sa-causal input')[0].checked;
  out.scaled = hosts('.sa-scaled input')[0].checked;
  return out;
}"""
)


def expected_snapshots() -> list[dict]:
    """The live logic, in process: a SelfAttentionView driven through its controls."""
    view = SelfAttentionView()
    out = [_python_snapshot(view)]
    for step in STEPS:
        kind = step[0]
        if kind in ("causal", "scaled", "preset"):
            use(view, kind, step[1])
        else:
            _, name, i, j, text = step
            commit(view.editors[name], i, j, text)
        out.append(_python_snapshot(view))
    return out


def _python_snapshot(view: SelfAttentionView) -> dict:
    drawing = drawn(view.board, view.lang)
    return {
        # The tables and the heat map as self_attention.js draws the model's numbers (markup.js
        # draws each spec; compared as HTML).
        "specs": {
            **{tid: [pane.kind, pane.spec] for tid, pane in sa_panes(view).items()},
            "sa-heatmap": [view.board.kinds["heatmap"], drawing["heatmap"]],
        },
        **sa_editors(view),
        "title": drawing["scores_title"],
        "preset": view.model.preset,
        "causal": view.model.causal,
        "scaled": view.model.scaled,
    }


def normalised(page, expected: dict) -> dict[str, str]:
    """Python's table specs drawn by the page's own markup (C04.markup) and serialised by this
    browser (it adds <tbody>, like the page)."""
    return page.evaluate(
        """(specs) => Object.fromEntries(Object.entries(specs).map(([tid, [kind, spec]]) => {
            const div = document.createElement('div');
            div.innerHTML = C04.markup[kind](spec);
            return [tid, div.querySelector('[data-testid="' + tid + '"]').outerHTML];
        }))""",
        expected["specs"],
    )


def matches(snap: dict | None, want: dict, tables: dict[str, str]) -> list[str]:
    """What differs between the page and Python (empty when they agree)."""
    if snap is None:
        return ["sin documento"]
    diff = [tid for tid in tables if snap["tables"][tid] != tables[tid]]
    for key in ("errors", "cells", "preset", "causal", "scaled"):
        if snap[key] != want[key]:
            diff.append(key)
    if snap["title"] != [want["title"]]:
        diff.append("title")
    return diff


def wait_for(page, want: dict, timeout: float = 15.0) -> dict:
    tables = normalised(page, want)
    deadline = time.monotonic() + timeout
    while True:
        snap = page.evaluate(SNAPSHOT_JS, list(tables))
        diff = matches(snap, want, tables)
        if not diff:
            return snap
        if time.monotonic() > deadline:
            raise AssertionError(f"la página no muestra lo que calcula Python: {diff}\n{snap}")
        page.wait_for_timeout(100)


def cell(page, name: str, i: int, j: int):
    return page.locator(f".sa-editor-{name} .c04-cell input").nth(2 * i + j)


def do(page, step) -> None:
    kind = step[0]
    if kind in ("causal", "scaled"):
        box = page.locator(f".sa-{kind} input")
        box.check() if step[1] else box.uncheck()
    elif kind == "preset":
        page.locator(".sa-preset select").select_option(label=LABELS[step[1]])
    else:
        _, name, i, j, text = step
        box = cell(page, name, i, j)
        box.fill(text)
        box.press("Enter")


def run_steps(page) -> list[dict]:
    """Defaults, then each step: the page's snapshot once it agrees with Python."""
    page.locator('[data-testid="sa-weights"]').first.wait_for(timeout=30_000)
    wanted = expected_snapshots()
    out = [wait_for(page, wanted[0])]
    for step, want in zip(STEPS, wanted[1:], strict=True):
        do(page, step)
        out.append(wait_for(page, want))
    return out


def test_defaults_offline(page, offline, open_export):
    open_export(FILE, SECTION)
    expect(page.get_by_text(text("demo.autoatencion"))).to_be_visible()
    page.locator('[data-testid="sa-weights"]').first.wait_for()
    wait_for(page, expected_snapshots()[0])
    weights = table_row(page, "sa-weights", 1)
    expect(weights).to_have_text(["0,2840", "0,1400", "0,5760"])  # worked example 4.2.6
    expect(page.locator("math").first).to_be_attached()  # MathML, written by the export
    assert offline.external == []
    assert offline.console_errors == []


def test_controls_and_cells_recompute_in_the_browser(page, offline, open_export):
    open_export(FILE, SECTION)
    page.locator('[data-testid="sa-weights"]').first.wait_for()
    page.evaluate(TIMER_JS)
    run_steps(page)
    # The refused values, with the live app's messages (checked against Python in run_steps).
    wanted = expected_snapshots()
    refused = {"name": "X", "row": 1, "col": 1}
    assert wanted[3]["errors"]["X"] == text(
        "input.cell_refused", **refused, message=text("input.not_a_number", text="abc")
    )
    assert wanted[4]["errors"]["X"] == text(
        "input.cell_refused",
        **refused,
        message=text("core.matrix_cell_bounds", name="X", bound="1 000 000"),
    )
    assert wanted[4]["cells"]["X"][0] == "1,5"
    assert wanted[10]["preset"] == "W_K = W_Q"
    times = update_times(page, "self_attention")
    print(
        f"\nautoatención, {len(times)} llamadas a C04.update, ms (cálculo / hasta pintar): "
        + format_times(times)
    )
    assert offline.external == []
    assert offline.console_errors == []


def test_export_and_live_app_show_the_same(offline, open_export, open_live):
    exported, served = export_and_live(open_export, offline, open_live, FILE, SECTION, run_steps)
    for n, (a, b) in enumerate(zip(exported, served, strict=True)):
        for key in ("tables", "errors", "cells", "title", "preset", "causal", "scaled"):
            assert a[key] == b[key], f"paso {n}: {key}"
