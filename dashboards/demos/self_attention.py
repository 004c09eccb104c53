"""Demo 1: self-attention on three tokens, every matrix editable (worked example 4.2.6).

The view only displays what ``attnmodel.self_attention.SelfAttention`` computes: Q, K, V, the
scores, the weights A, the output Z and the size of the softmax gradient per row. Python sends
those numbers (:func:`numbers`); the browser draws them (``C04.views.self_attention``,
dashboards/static/demos/self_attention.js), live and in the export.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param

from attnmodel.i18n import DEFAULT_LANG, catalogue, text
from attnmodel.self_attention import CUSTOM, MATRICES, PRESETS, SelfAttention
from dashboards.components.board import Board, column, control, prose, row, slot
from dashboards.components.markup import section_markdown
from dashboards.components.matrix import MatrixEditor
from dashboards.components.render import shared_render
from dashboards.components.style import HEAD_PLOT_CSS
from dashboards.components.views import DemoView
from dashboards.runtime import clients


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

# ||J||_F of the uniform distribution over 3 keys: the largest a row can have (said in the
# gradient's note; self_attention.js draws each row's bar relative to it).
UNIFORM_GRADIENT = float(np.sqrt(2.0 / 9.0))

MODEL_PARAMS = ["X", "W_Q", "W_K", "W_V", "causal", "scaled"]


@shared_render
def numbers(model: SelfAttention, lang: str = "") -> dict[str, object]:
    """What self_attention.js draws, the model's numbers (no text: the browser writes them in
    the page's language): ``Q``, ``K``, ``V``, the ``scores`` (divided by √d_k when ``scaled``;
    None where the causal mask hides a key, −∞ in the model), the weights ``A``, the output
    ``Z``, the softmax ``gradient`` size per row (‖J‖_F), ``d_k``, ``causal`` and ``scaled``.
    ``lang`` is not used: the shared cache's key has it."""
    m = model
    return {
        "Q": m.Q.tolist(),
        "K": m.K.tolist(),
        "V": m.V.tolist(),
        "scores": [[None if s == -np.inf else s for s in row] for row in m.scores.tolist()],
        "A": m.weights.tolist(),
        "Z": m.Z.tolist(),
        "gradient": m.gradient.tolist(),
        "d_k": int(m.d_k),
        "causal": bool(m.causal),
        "scaled": bool(m.scaled),
    }


def client_init(model: SelfAttention) -> dict[str, object]:
    """What the page's maths needs besides the controls: the model's matrices now (the last
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

    Every slot but the controls is drawn by self_attention.js (``view="self_attention"``) from
    :func:`numbers`, live and in the export: 2 decimals for Q, K, V when they are exact, else 4;
    a number of magnitude 10^6 or more with 5 significant digits ("8,1235×10²⁴").
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
            lang=self.lang,
            view="self_attention",
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
        """The model's numbers (self_attention.js draws them) and the controls, in one change."""
        with pn.io.hold():
            self.board.state = numbers(self.model)
            self.board.update_specs(self._controls())

    def enable_client_side(self, states: dict | None = None) -> int:
        """Wire every control to the page's maths (``C04.views.self_attention``); export only.

        The matrices are free input, so the page computes the model's numbers itself: each
        control of the Board (a matrix's cells, the preset select, both checkboxes) runs
        ``readState`` (``Board.run_offline``) with the controls (``w_preset``, ``w_causal``,
        ``w_scaled`` and each matrix's texts, ``w_X`` … ``w_W_V``, a committed cell in its
        ``commit``), the board (``board``: readState writes the matrices' cells and refusals
        there) and ``trigger`` (the control used); the Board draws the state it returns. No
        embedded states: ``states["self_attention"]`` only gets ``client_init`` (the last valid
        matrices before the first edit, the presets, the cell bound), once per page.
        """
        if states is not None:
            states["self_attention"] = client_init(self.model)
        self.board.run_offline("self_attention")
        return 0

    def __panel__(self):
        return self.board


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("autoatencion")
