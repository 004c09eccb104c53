"""Editable matrices: :class:`MatrixEditor`, a model's matrix parameter behind a Board's
"matrix" control (the cells, drawn in the browser by board.js), a refused value explained.
"""

from __future__ import annotations

import logging

import param

from attnmodel.formatting import MAX_NUMBER_CHARS, parse_es_number
from dashboards.components.board import control
from dashboards.components.markup import esc, md_html
from dashboards.components.views import DemoView
from dashboards.runtime import clients

log = logging.getLogger("dashboards.components.matrix")


class MatrixEditor(DemoView):
    """Editable cells for one matrix parameter of a model: a "matrix" control of a Board
    (components/board.py and board.js draw a text box per cell).

    Each cell accepts "1,5", "1.5", "−2". A bad value shows a message in ``lang`` under the
    cells (``error``), the cell goes back to the last valid value, and the model is not
    touched. ``texts`` holds what the cells show (row by row); :meth:`receive` is a student's
    commit of a cell as the browser sends it, :meth:`edit` what it does.

    Built before its Board (:meth:`node` goes into the Board's layout), then attached to it
    (:meth:`attach`): the slot's spec is ``{texts, n, error}``, ``n`` counting what was sent so
    that the same texts sent again (after a refused value) still reach the boxes.
    """

    model = param.Parameter(doc="The param.Parameterized that owns the matrix.")
    name_param = param.String(doc="Name of the matrix parameter on the model (e.g. 'X').")
    title = param.String(default="", doc="Caption above the cells (Markdown, $$…$$ formulas).")
    cell_width = param.Integer(default=68)
    css = param.String(default="", doc="CSS classes of the editor's box in the Board.")

    def __init__(self, **params):
        super().__init__(**params)
        matrix = getattr(self.model, self.name_param)
        self.texts = [[self._text(v) for v in row] for row in matrix]
        self.error = ""  # why the last commit was refused (HTML, the message escaped)
        self.board = None
        self._shown = 0

    def node(self) -> dict:
        """The editor's control in a Board's layout."""
        n_rows, n_cols = getattr(self.model, self.name_param).shape
        labels = [
            [self.t("a11y.cell", name=self.name_param, row=i + 1, col=j + 1) for j in range(n_cols)]
            for i in range(n_rows)
        ]
        return control(
            self.name_param,
            "matrix",
            self.name_param,
            css=self.css,
            title=md_html(self.title) if self.title else "",
            labels=labels,
            cell_width=self.cell_width,
            max_chars=MAX_NUMBER_CHARS,
        )

    def attach(self, board) -> None:
        """Show the cells on ``board`` (whose layout holds :meth:`node`) and follow the model."""
        self.board = board
        self.show()
        self.model.param.watch(self._from_model, [self.name_param])

    def _text(self, value: float) -> str:
        """A cell's text: 4 decimals at most, no trailing zeros ("1,5", "2", "−0,25")."""
        text = self.num(value, 4)
        separator = self.t("format.decimal")
        return text.rstrip("0").rstrip(separator) if separator in text else text

    def show(self) -> None:
        """Put ``texts`` in the boxes, even where the boxes already hold them."""
        self._shown += 1
        self._send()

    def _send(self) -> None:
        texts = [list(row) for row in self.texts]
        spec = {"texts": texts, "n": self._shown, "error": self.error}
        self.board.update_specs({self.name_param: spec})

    def _set_error(self, message: str) -> None:
        if message:
            log.info("Casilla de %s rechazada; se mantiene el valor anterior.", self.name_param)
        self.error = message

    def receive(self, commit) -> None:
        """A commit from the browser: {row, col, text}. Anything else is a forged message,
        refused with one INFO line (the matrix and the boxes stay)."""
        rows, cols = len(self.texts), len(self.texts[0])
        ok = isinstance(commit, dict) and set(commit) == {"row", "col", "text"}
        i, j, text = (commit["row"], commit["col"], commit["text"]) if ok else (None, None, None)
        ok = ok and all(isinstance(k, int) and not isinstance(k, bool) for k in (i, j))
        ok = ok and 0 <= i < rows and 0 <= j < cols and isinstance(text, str)
        if not ok:
            reason = f"no es una casilla de {rows}×{cols} con su texto"
            clients.refused(self.name_param, {"commit": commit}, reason)
            return
        self.edit(i, j, text)

    def edit(self, i: int, j: int, text: str) -> None:
        """Cell (i, j) committed with ``text``: the model gets the number, or the message says
        why not and the cell shows the last valid value again."""
        self.texts[i][j] = text
        current = getattr(self.model, self.name_param)
        try:
            value = parse_es_number(text)
            if value == current[i, j]:
                self._set_error("")
                self._send()
                return
            new = current.copy()
            new[i, j] = value
            setattr(self.model, self.name_param, new)
        except ValueError as exc:
            label = self.name_param
            self._set_error(
                esc(
                    self.t(
                        "input.cell_refused",
                        name=label,
                        row=i + 1,
                        col=j + 1,
                        message=self.say(exc),
                    )
                )
            )
            self.texts[i][j] = self._text(current[i, j])
            self.show()
            return
        self._set_error("")
        self._send()

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
            self.show()


def parse_or_none(text) -> float | None:
    try:
        return parse_es_number(text)
    except ValueError:
        return None
