"""Demo 1: self-attention on three tokens, every matrix editable (worked example 4.2.6).

The view only displays what ``attnmodel.self_attention.SelfAttention`` computes: Q, K, V, the
scores, the weights A, the output Z and the size of the softmax gradient per row.
"""

from __future__ import annotations

import numpy as np
import param

from attnmodel.formatting import number, percent
from attnmodel.i18n import DEFAULT_LANG, catalogue, text
from attnmodel.self_attention import CUSTOM, MATRICES, PRESETS, SelfAttention
from dashboards.components.board import Board, column, control, prose, row, slot
from dashboards.components.markup import announce_spec, matrix_spec, rich, section_markdown
from dashboards.components.mathml import with_math
from dashboards.components.matrix import MatrixEditor
from dashboards.components.render import apply_render, shared_render
from dashboards.components.style import HEAD_PLOT_CSS
from dashboards.components.views import DemoView, first_max
from dashboards.runtime import clients

TOKENS = ["token 1", "token 2", "token 3"]
DIMS = ["dim 1", "dim 2"]


def preset_label(name: str, n: int, lang: str = DEFAULT_LANG) -> str:
    """The label on screen of the model's preset ``name`` (the n-th of PRESETS, from 0): its
    catalogue label (``self_attention.preset.<name>``) if it has one, else "Preset n · name".
    A preset added to the model shows up with no other change; a label is optional."""
    labels = catalogue(lang)
    key = f"self_attention.preset.{name}"
    return labels[key] if key in labels else text("self_attention.preset_n", lang, n=n, name=name)


def preset_options(lang: str = DEFAULT_LANG) -> dict[str, str]:
    """Labels on screen, in ``lang`` -> the model's preset names (never translated): every
    preset of the model in its order, then "custom"."""
    options = {preset_label(name, n, lang): name for n, name in enumerate(PRESETS)}
    options[text("self_attention.preset_custom", lang)] = CUSTOM
    return options


FORMULA = (
    r"$$Q = XW_Q,\quad K = XW_K,\quad V = XW_V,\qquad "
    r"Z = \text{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V$$"
)

# ||J||_F of the uniform distribution over 3 keys: the largest a row can have.
UNIFORM_GRADIENT = float(np.sqrt(2.0 / 9.0))
# Below this a row is practically one-hot.
FADED = 0.05
# Below this the model's gradient is rounding noise: ||J||_F^2 = s2 - 2 s3 + s2^2 cancels to
# ~1e-16 for a row within ~1e-7 of one-hot, so its root is noise up to ~2e-8, and 0 or not
# depends on the last bit of a power (numpy's SIMD pow vs the browser's). Five decimals show it
# as 0 anyway: the row is shown as one-hot, identically live and in the offline export.
GRADIENT_FLOOR = 5e-6

MODEL_PARAMS = ["X", "W_Q", "W_K", "W_V", "causal", "scaled"]

# The heat map's frame (C04.markup.head_plot's matrix): its viewBox and the room for the token
# labels left of the rows and, at 45°, under the columns.
HEATMAP_FRAME = {"width": 250, "height": 210, "left": 62, "bottom": 58}


def _decimals(matrix: np.ndarray) -> int:
    """2 decimals when they are exact (the integers of 4.2.6), else 4."""
    m = np.asarray(matrix, dtype=float)
    return 2 if np.allclose(m, np.round(m, 2), rtol=0, atol=1e-12) else 4


def scores_title(d_k: int, scaled: bool, lang: str = DEFAULT_LANG) -> str:
    """The caption over the scores: the catalogue's text, its formulas as MathML, for an HTML
    pane (the browser twin fills the same converted text; the pane's margin stands for a
    <p>'s)."""
    if scaled:
        return with_math(text("self_attention.scores_scaled", lang, d_k=d_k))
    return with_math(text("self_attention.scores_unscaled", lang))


def _gradient_value(g: float, lang: str = DEFAULT_LANG) -> str:
    # Four decimals hide the 0,00025 of "puntajes grandes"; five show it.
    return number(g, 4 if g >= 1e-3 or g == 0 else 5, lang=lang)


def gradient_spec(gradient: np.ndarray, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.bars`` per row: the gradient size, a bar relative to the uniform row (%),
    and a note when it fades."""
    rows = []
    for i, g in enumerate(np.asarray(gradient, dtype=float)):
        g = 0.0 if g < GRADIENT_FLOOR else float(g)
        note = ""
        if g == 0:
            note = text("self_attention.one_hot", lang)
        elif g < FADED:
            note = text("self_attention.almost_one_hot", lang)
        rows.append(
            {
                "label": TOKENS[i],
                "value": _gradient_value(g, lang),
                "width": 100 * g / UNIFORM_GRADIENT,
                "note": note,
            }
        )
    return {"testid": "sa-gradient", "head": "‖J‖", "rows": rows}


def heatmap_spec(weights: np.ndarray, lang: str = DEFAULT_LANG) -> dict:
    """A as a heat map: the spec of ``C04.markup.head_plot`` without arcs, its matrix alone.
    Each cell shaded by its weight, its tooltip the query, the key and the weight (4 decimals,
    as in the table); no number drawn in the cells, the table beside it has them."""
    rows = np.asarray(weights, dtype=float).tolist()
    key_axis = text("self_attention.key_axis", lang)
    query_axis = text("self_attention.query_axis", lang)
    return {
        "testid": "sa-heatmap",
        "title": text("self_attention.heatmap_title", lang),
        "tokens": list(TOKENS),
        "weights": rows,
        "cells": [[""] * len(row) for row in rows],
        "tips": [[number(w, 4, lang=lang) for w in row] for row in rows],
        "frame": HEATMAP_FRAME,
        "texts": {
            "matrix": text("a11y.plot.sa_heatmap", lang),
            "key_axis": key_axis,
            "query_axis": query_axis,
            "query": query_axis,
            "key": key_axis,
            "weight": text("self_attention.weight", lang),
        },
    }


def announce(weights: np.ndarray, lang: str = DEFAULT_LANG) -> dict:
    """What the live region says after a change: each row's largest weight ("token 1 mira a
    token 3, 57,6 %"), the first of a tie."""
    rows: list = []
    for i, weights_row in enumerate(weights):
        j = first_max(weights_row)
        if rows:
            rows.append(text("a11y.announce.join", lang))
        rows.append(
            rich(
                "a11y.announce.row",
                lang,
                query=TOKENS[i],
                key=TOKENS[j],
                weight=percent(weights_row[j], 1, lang),
            )
        )
    return announce_spec("self_attention", lang, rows=rows)


@shared_render
def render(model: SelfAttention, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """Everything on screen that follows the model, by target name (see ``client_targets``).

    The specs of ``q``, ``k``, ``v``, ``scores``, ``weights``, ``z`` (``C04.markup.matrix``)
    and ``gradient`` (``C04.markup.bars``), the HTML of ``scores_title`` and the heat map's
    spec ``heatmap`` (``C04.markup.head_plot``), text and numbers in ``lang``. The
    browser twin (``C04.views.self_attention`` in dashboards/static/demos/self_attention.js) returns
    the same dict in its page's language.
    """
    m = model
    q, k, v = m.Q, m.K, m.V
    scores, weights, z, gradient = m.scores, m.weights, m.Z, m.gradient
    lg = {"lang": lang}
    return {
        "q": matrix_spec(q, TOKENS, DIMS, _decimals(q), testid="sa-Q", **lg),
        "k": matrix_spec(k, TOKENS, DIMS, _decimals(k), testid="sa-K", **lg),
        "v": matrix_spec(v, TOKENS, DIMS, _decimals(v), testid="sa-V", **lg),
        "scores_title": scores_title(m.d_k, m.scaled, lang),
        "scores": matrix_spec(scores, TOKENS, TOKENS, 4, testid="sa-scores", **lg),
        "weights": matrix_spec(
            weights, TOKENS, TOKENS, 4, row_sums=True, testid="sa-weights", shade=True, **lg
        ),
        "z": matrix_spec(z, TOKENS, DIMS, 4, testid="sa-Z", **lg),
        "gradient": gradient_spec(gradient, lang),
        "heatmap": heatmap_spec(weights, lang),
        "announce": announce(weights, lang),
    }


def client_init(model: SelfAttention) -> dict[str, object]:
    """What the browser twin needs besides the controls: the model's matrices now (the last
    valid values before the first edit), the presets in the model's order, and the cell bound
    of ``attnmodel._params.Matrix`` as its message writes it ("1 000 000")."""
    x = SelfAttention.param.X
    return {
        "matrices": {name: getattr(model, name).tolist() for name in MATRICES},
        "presets": PRESETS,
        "max_abs": x.max_abs,
        "bound": x.bound_text,
    }


class SelfAttentionView(DemoView):
    """Editable X, W_Q, W_K, W_V; Q, K, V, scores, A, Z and the softmax gradient per row.

    data-testids (tables: one ``<tr>`` per token after the header row, numbers in ``<td>``):

    - ``sa-Q``, ``sa-K``, ``sa-V``: Q = XW_Q, K = XW_K, V = XW_V (3×2).
    - ``sa-scores``: scores, divided by √d_k when ``sa-scaled`` is on; −∞ where masked.
    - ``sa-weights``: A = softmax(·), 4 decimals, a last ``td.c04-sum`` per row "Σ = 1,0000"
      ("Σ = 1.0000" in English).
    - ``sa-Z``: output Z = AV (3×2).
    - ``sa-gradient``: softmax gradient size per row; ``sa-gradient-1`` … ``sa-gradient-3`` are
      its value cells.

    - ``sa-heatmap``: A as a heat map (``heatmap``, SVG by markup.js: a cell is
      ``rect.c04-head-cell`` with ``data-row`` and ``data-col``, its tooltip its ``data-tip``).

    CSS classes for the browser tests: ``sa-editor-X`` (… ``-W_Q``, ``-W_K``, ``-W_V``) is each
    editor (cells: ``.c04-cell input``, row by row), ``sa-preset`` (select), ``sa-causal``,
    ``sa-scaled`` (checkboxes).
    """

    model = param.ClassSelector(class_=SelfAttention)

    def __init__(self, **params):
        params.setdefault("model", SelfAttention())
        super().__init__(**params)
        m = self.model

        titles = {"X": self.t("self_attention.editor_x")}
        self.editors = {
            # A class per editor so the browser tests can find X's cells.
            name: MatrixEditor(
                model=m,
                name_param=name,
                title=titles.get(name, f"$${name}$$"),
                lang=self.lang,
                css=f"sa-editor-{name}",
            )
            for name in MATRICES
        }
        self.preset_options = [[v, label] for label, v in preset_options(self.lang).items()]
        header = section_markdown(self.t("demo.autoatencion"), self.t("self_attention.intro"))

        self.board = Board(
            layout=[
                prose(header, "c04-prose"),
                prose(FORMULA),
                row(*(editor.node() for editor in self.editors.values())),
                row(
                    control(
                        "preset",
                        "select",
                        self.t("self_attention.preset_label"),
                        help=self.t("self_attention.preset_help"),
                        css="sa-preset",
                    ),
                    control("causal", "checkbox", self.t("self_attention.causal"), css="sa-causal"),
                    control("scaled", "checkbox", self.t("self_attention.scaled"), css="sa-scaled"),
                    css="c04-controls",
                ),
                row(
                    slot("q", "matrix", caption="$$Q = XW_Q$$"),
                    slot("k", "matrix", caption="$$K = XW_K$$"),
                    slot("v", "matrix", caption="$$V = XW_V$$"),
                ),
                row(
                    column(slot("scores_title", "html", width=320), slot("scores", "matrix")),
                    slot("weights", "matrix", caption=self.t("self_attention.weights_title")),
                    slot("heatmap", "head_plot", width=260),
                ),
                row(
                    slot("z", "matrix", caption=self.t("self_attention.output_title")),
                    slot(
                        "gradient",
                        "bars",
                        caption=self.t("self_attention.gradient_title"),
                        footnote=f'<div class="c04-note">{self._gradient_note()}</div>',
                    ),
                ),
                slot("announce", "announce"),
            ],
            on_control=self._on_control,
            stylesheets=[HEAD_PLOT_CSS],
            sizing_mode="stretch_width",
        )
        # Each fragment as the tests and the export's snapshot read it (a Slot: spec, kind).
        for name in ("q", "k", "v", "scores", "weights", "z", "gradient", "heatmap"):
            setattr(self, f"{name}_pane", self.board.slot(name))
        self.scores_title = self.board.slot("scores_title")
        self.heatmap = self.heatmap_pane
        self.announcer = self.board.slot("announce")
        for editor in self.editors.values():
            editor.attach(self.board)

        self._refresh()
        m.param.watch(self._on_change, MODEL_PARAMS)
        # A preset chosen without a matrix changing ("personalizado"): only the select follows.
        m.param.watch(lambda _e: self.board.update_specs(self._controls()), "preset")

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return {
            "preset": self.board.slot("preset"),
            **self.editors,
            "causal": self.board.slot("causal"),
            "scaled": self.board.slot("scaled"),
        }

    def _on_control(self, name: str, value) -> None:
        """A control's use (Board.receive): a matrix's cell, the preset or a checkbox, each
        checked (the editor's own check; param's for the model's parameters)."""
        if name in self.editors:
            self.editors[name].receive(value)
        else:
            clients.take(name, self.model, name, value)

    def _controls(self) -> dict[str, dict]:
        """The specs of the preset select and the two checkboxes: the model's values."""
        m = self.model
        return {
            "preset": {"value": m.preset, "options": self.preset_options},
            "causal": {"value": m.causal},
            "scaled": {"value": m.scaled},
        }

    def _gradient_note(self) -> str:
        return self.t("self_attention.gradient_note", uniform=self.num(UNIFORM_GRADIENT, 4))

    def _on_change(self, *events) -> None:
        self._refresh()

    def _refresh(self) -> None:
        """Compute once from the model, then update every slot and control in one change."""
        values = {**render(self.model, self.lang), **self._controls()}
        apply_render(self.board.targets(values), values)

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (the board, "board:<slot>"), for the names of ``render``."""
        return self.board.targets(render(self.model, self.lang))

    def enable_client_side(self, states: dict | None = None) -> int:
        """Wire every control to the browser twin (``C04.views.self_attention``); export only.

        Each control of the Board (a matrix's cells, the preset select, both checkboxes) runs
        the twin (``Board.run_offline``) with every target of ``client_targets``, the controls
        (``w_preset``, ``w_causal``, ``w_scaled`` and each matrix's texts, ``w_X`` …
        ``w_W_V``, a committed cell in its ``commit``), the board (``board``: the twin writes
        the matrices' cells and refusals there) and ``trigger`` (the control used). Everything
        is computed in the browser: no embedded states; ``states["self_attention"]`` only gets
        ``client_init`` (the last valid matrices before the first edit, the presets, the cell
        bound), once per page.
        """
        if states is not None:
            states["self_attention"] = client_init(self.model)
        self.board.run_offline("self_attention", self.client_targets())
        return 0

    def __panel__(self):
        return self.board


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("autoatencion")
