"""Editable matrices: :class:`MatrixGrid` (the cells, drawn in the browser) and
:class:`MatrixEditor` (a model's matrix parameter behind them, a refused value explained).
"""

from __future__ import annotations

import json
from typing import ClassVar

import panel as pn
import param

from attnmodel.formatting import MAX_NUMBER_CHARS, parse_es_number
from dashboards.components.markup import esc, md_html
from dashboards.components.views import DemoView


class MatrixGrid(pn.custom.JSComponent):
    """A matrix's cells in one component: a text box per cell, drawn in the browser.

    One component instead of a Panel TextInput per cell (and their GridBox): the four editors
    of «Autoatención» were 45 Bokeh models of a new session's first section, now 20, and an
    open takes ~15 % less CPU on the server (in process, 40 opens before/after, min and p50).
    The server (or the export's twin) says what the boxes show (``texts_json``: the texts and
    a counter, so that the same texts sent again still reach the boxes, as after a refused
    value); the browser says what a student committed (``commit``: row, column, text, a
    counter), on Enter or on leaving a changed box, once. A box being typed in keeps its text
    when the others are rewritten.
    """

    title = param.String(
        default="", doc="HTML above the cells, made by the server (its formulas MathML)."
    )
    error = param.String(
        default="",
        doc="Why the last commit was refused, under the cells (HTML: the message escaped); "
        '"" for none.',
    )
    labels = param.List(default=[], doc="Each cell's accessible name, row by row.")
    cell_width = param.Integer(default=68, bounds=(20, 400), doc="A box's width in pixels.")
    max_chars = param.Integer(default=MAX_NUMBER_CHARS, doc="The longest text a box takes.")
    texts_json = param.String(
        default="", doc='What the boxes show: {"texts": rows of texts, "n": a counter} (JSON).'
    )
    commit = param.Dict(
        default={}, doc="The browser's last commit: {row, col, text, n} (0-based row and col)."
    )

    # What a browser writes (dashboards/runtime/clients.py takes only these from a client).
    client_writes: ClassVar[tuple[str, ...]] = ("commit",)

    _stylesheets: ClassVar[list[str]] = [
        """
.c04-grid { display: grid; gap: 4px 6px; margin: 2px 3px; }
.c04-cell input { box-sizing: border-box; width: 100%; padding: 5px 8px; font: inherit;
  text-align: right; color: inherit;
  background: var(--panel-background-color, #fff); border: 1px solid #b8bec6;
  border-radius: 4px; }
.c04-cell input:focus { outline: 2px solid #1f5fa8; outline-offset: 1px; }
.c04-grid-title { margin: 0 4px; }
.c04-grid-title p { margin: 0.4em 0; }
.c04-grid-error { margin: 0 4px; }
"""
    ]

    _esm = """
export function render({ model, el, view }) {
  window.C04?.markup?.unobserved(view) // markup.js: its box is CSS's alone
  const grid = document.createElement("div")
  grid.className = "c04-grid"
  const labels = model.labels
  const cols = labels.length ? labels[0].length : 0
  grid.style.gridTemplateColumns = `repeat(${cols}, ${model.cell_width}px)`
  const inputs = []
  labels.forEach((row, i) => row.forEach((label, j) => {
    const cell = document.createElement("div")
    cell.className = "c04-cell"
    const input = document.createElement("input")
    input.type = "text"
    input.inputMode = "decimal"
    input.autocomplete = "off"
    input.spellcheck = false
    input.maxLength = model.max_chars
    input.setAttribute("aria-label", label)
    input.dataset.sent = ""
    // Enter, or leaving a box whose text changed: one commit (both may come for one edit).
    const commit = () => {
      if (input.value === input.dataset.sent) return
      input.dataset.sent = input.value
      const last = model.commit && typeof model.commit.n === "number" ? model.commit.n : 0
      model.commit = { row: i, col: j, text: input.value, n: last + 1 }
    }
    input.addEventListener("change", commit)
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") commit() })
    cell.append(input)
    grid.append(cell)
    inputs.push(input)
  }))
  const show = () => {
    if (!model.texts_json) return
    const texts = JSON.parse(model.texts_json).texts
    inputs.forEach((input, k) => {
      const text = texts[Math.floor(k / cols)][k % cols]
      // A box being typed in (focused, not committed) keeps what the student is typing.
      if (input === el.getRootNode().activeElement && input.value !== input.dataset.sent) return
      if (input.value !== text) input.value = text
      // Written only when it differs: an attribute's change makes the browser restyle.
      if (input.dataset.sent !== text) input.dataset.sent = text
    })
  }
  model.on("texts_json", show)
  show()
  // The title above and the refusal under the cells, in this component: no pane of their own.
  const title = document.createElement("div")
  title.className = "c04-grid-title"
  title.innerHTML = model.title
  const error = document.createElement("div")
  error.className = "c04-error c04-grid-error"
  error.innerHTML = model.error
  model.on("error", () => { error.innerHTML = model.error })
  el.append(title, grid, error)
}
"""

    def __init__(self, **params):
        super().__init__(**params)
        self._shown = 0

    def show(self, texts: list[list[str]]) -> None:
        """Put ``texts`` in the boxes, even where the boxes already hold them."""
        self._shown += 1
        self.texts_json = json.dumps({"texts": texts, "n": self._shown}, ensure_ascii=False)


class MatrixEditor(DemoView):
    """Editable cells for one matrix parameter of a model.

    Each cell accepts "1,5", "1.5", "−2". A bad value shows a message in ``lang`` under the
    grid (the grid's ``error``), the cell goes back to the last valid value, and the model is
    not touched. The title, the cells and the message are one component (:class:`MatrixGrid`).
    ``texts`` holds what the cells show (row by row); ``edit(i, j, text)`` is what a student's
    commit of a cell does.
    """

    model = param.Parameter(doc="The param.Parameterized that owns the matrix.")
    name_param = param.String(doc="Name of the matrix parameter on the model (e.g. 'X').")
    title = param.String(default="", doc="Caption above the cells (Markdown, $$…$$ formulas).")
    cell_width = param.Integer(default=68)
    css_classes = param.List(default=[], doc="CSS classes of the editor's column.")

    def __init__(self, **params):
        super().__init__(**params)
        matrix = getattr(self.model, self.name_param)
        n_rows, n_cols = matrix.shape
        self.texts = [[self._text(v) for v in row] for row in matrix]
        self.grid = MatrixGrid(
            name=self.name_param,
            labels=[
                [
                    self.t("a11y.cell", name=self.name_param, row=i + 1, col=j + 1)
                    for j in range(n_cols)
                ]
                for i in range(n_rows)
            ],
            cell_width=self.cell_width,
            title=md_html(self.title) if self.title else "",
            margin=(4, 12, 4, 0),
            css_classes=self.css_classes,
        )
        self.grid.show(self.texts)
        self.grid.param.watch(self._on_commit, "commit")
        self.model.param.watch(self._from_model, [self.name_param])

    def _text(self, value: float) -> str:
        """A cell's text: 4 decimals at most, no trailing zeros ("1,5", "2", "−0,25")."""
        text = self.num(value, 4)
        separator = self.t("format.decimal")
        return text.rstrip("0").rstrip(separator) if separator in text else text

    def _on_commit(self, event) -> None:
        """A commit from the browser: {row, col, text, n}. Anything else is a forged message,
        refused (dashboards/runtime/clients.py logs it; the matrix and the boxes stay)."""
        commit = event.new
        if commit == {}:  # none yet, or put back after a forged one (dashboards/runtime/clients.py)
            return
        rows, cols = len(self.texts), len(self.texts[0])
        try:
            i, j, text = commit["row"], commit["col"], commit["text"]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"commit sin fila, columna o texto: {list(commit)}") from exc
        if not all(isinstance(k, int) and not isinstance(k, bool) for k in (i, j)):
            raise TypeError("fila y columna deben ser enteros")
        if not (0 <= i < rows and 0 <= j < cols):
            raise IndexError(f"casilla ({i}, {j}) fuera de {rows}×{cols}")
        if not isinstance(text, str):
            raise TypeError("el texto debe ser una cadena")
        self.edit(i, j, text)

    def edit(self, i: int, j: int, text: str) -> None:
        """Cell (i, j) committed with ``text``: the model gets the number, or the message says
        why not and the cell shows the last valid value again."""
        self.texts[i][j] = text
        current = getattr(self.model, self.name_param)
        try:
            value = parse_es_number(text)
            if value == current[i, j]:
                self.grid.error = ""
                return
            new = current.copy()
            new[i, j] = value
            setattr(self.model, self.name_param, new)
        except ValueError as exc:
            label = self.name_param
            self.grid.error = esc(
                self.t(
                    "input.cell_refused", name=label, row=i + 1, col=j + 1, message=self.say(exc)
                )
            )
            self.texts[i][j] = self._text(current[i, j])
            self.grid.show(self.texts)
            return
        self.grid.error = ""

    def _from_model(self, event) -> None:
        """Rewrite the cells whose number is not the model's (a preset, a link, an exercise);
        a cell that reads as the model's number keeps its text ("2,0" stays)."""
        changed = False
        for i, row in enumerate(event.new):
            for j, value in enumerate(row):
                if parse_or_none(self.texts[i][j]) != value:
                    self.texts[i][j] = self._text(value)
                    changed = True
        if changed:
            self.grid.show(self.texts)

    def __panel__(self):
        return self.grid


def parse_or_none(text) -> float | None:
    try:
        return parse_es_number(text)
    except ValueError:
        return None
