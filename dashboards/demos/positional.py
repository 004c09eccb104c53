"""Demo 3 of the lecture: the sinusoidal positional encoding matrix, its similarity vs distance
curve and the worked d = 4 table of the notes."""

from __future__ import annotations

import numpy as np
import panel as pn
import param
from bokeh.palettes import RdBu11, interp_palette

from attnmodel import PositionalEncodingDemo
from attnmodel.formatting import number
from attnmodel.i18n import DEFAULT_LANG, Refusal, catalogue, text
from dashboards.components.board import Board, control, prose, row, slot
from dashboards.components.markup import Raster, esc, section_markdown
from dashboards.components.render import shared_render
from dashboards.components.style import CHART_CSS
from dashboards.components.views import DemoView
from dashboards.runtime import clients

# Every text of the section is in the catalogue: [positional] in attnmodel/locales/<lang>.toml
# (the title is demo.posicion). The formula has no words: the same in every
# language. It is written as MathML before Markdown reads the text (components/mathml.py), so
# its TeX is as TeX writes it: "\!" is a negative thin space.
FORMULA = (
    r"$$PE_{(pos,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d}}\right), \quad "
    r"PE_{(pos,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d}}\right)$$"
)

# The message of a value out of a control's bounds, by parameter (its fields: lo, hi, value).
BOUNDS_KEYS = {
    "n_positions": "positional.bounds_n_positions",
    "d_model": "positional.bounds_d_model",
}

# Extra start positions of the similarity curve: drawn dashed over the pos = 0 curve to show that
# the curve depends only on Δ.
EXTRA_STARTS = (10, 20)
CURVE_STARTS = (0, *EXTRA_STARTS)

# Diverging blue (−1) → white (0) → red (+1), as HoloViews' "RdBu_r" was; drawn by
# C04.markup.raster, a value's colour as Bokeh's LinearColorMapper over [−1, 1] picks it.
PE_PALETTE = tuple(interp_palette(RdBu11, 256))
PE_RANGE = (-1.0, 1.0)
BAR_TICKS = (-1.0, -0.5, 0.0, 0.5, 1.0)


def heatmap_values(pe: np.ndarray) -> np.ndarray:
    """The heat map's matrix (row = position, column = dimension) as the browser gets it.

    float32 halves what a 512 × 512 matrix sends to the browser (a binary buffer: 1 MB); the
    colours and the 4-decimal tooltip do not need more. Read-only: a shared render's array is
    the same object for every session showing that state.
    """
    values = np.ascontiguousarray(pe, dtype=np.float32)
    values.setflags(write=False)
    return values


def heatmap_spec(lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.raster``'s spec: the heat map's texts and colour scale, the same for every
    shape (the title is a template the drawing fills with the matrix's shape)."""
    return {
        "testid": "pe-heatmap",
        "aria": text("a11y.plot.pe_heatmap", lang),
        "title": catalogue(lang)["positional.heatmap_title"],
        "x_label": text("positional.axis_dimension", lang),
        "y_label": text("positional.axis_position", lang),
        "tip": {
            "row": text("positional.axis_position", lang),
            "col": text("positional.axis_dimension", lang),
            "value": "PE",
        },
        "decimal": text("format.decimal", lang),
        "palette": list(PE_PALETTE),
        "low": PE_RANGE[0],
        "high": PE_RANGE[1],
        "bar_ticks": list(BAR_TICKS),
    }


def worked_table_html(
    rows: list[dict], testid: str = "pe-worked-table", lang: str = DEFAULT_LANG
) -> str:
    """The d = 4 table of the notes: Vector | dim 0..3 | Comentario, 4 decimals, in ``lang``
    (``rows``: the model's ``worked_rows(lang)``). "Vector" and "dim" are the same in English."""
    n_dims = len(rows[0]["values"])
    head = "".join(f"<th>dim {j}</th>" for j in range(n_dims))
    comment = esc(text("positional.table_comment", lang))
    parts = [
        f'<table class="c04-matrix c04-pe-worked" data-testid="{esc(testid)}">',
        f"<tr><th>Vector</th>{head}<th>{comment}</th></tr>",
    ]
    for line in rows:
        cells = "".join(f"<td>{number(v, 4, lang=lang)}</td>" for v in line["values"])
        # Rows of the sum are what enters attention: make them stand out.
        strong = ' class="c04-pe-sum"' if "+" in line["vector"] else ""
        parts.append(
            f"<tr{strong}><th>{esc(line['vector'])}</th>{cells}"
            f'<td class="c04-pe-comment">{esc(line["comment"])}</td></tr>'
        )
    parts.append("</table>")
    return "".join(parts)


@shared_render
def numbers(model: PositionalEncodingDemo, lang: str = "") -> dict[str, object]:
    """What positional.js draws, the model's numbers: the shape (``n``, ``d``) and the three
    similarity curves, ``curves[k]`` = PE_start · PE_(start+Δ) / (d / 2) for Δ = 0 … n − 1 −
    start, start = CURVE_STARTS[k] (empty past the last position). ``lang`` is not used: the
    shared cache's key has it. The heat map's matrix goes to the Raster (:func:`matrix`)."""
    pe = model.encoding  # [n_positions, d_model], computed once per change
    n, d = pe.shape
    half = d / 2  # the value at Δ = 0, so every curve starts at 1
    # PE_start · PE_(start+Δ), as model.similarity_from(start), from the same matrix.
    curves = [(pe[s:] @ pe[s] / half).tolist() if s < n else [] for s in CURVE_STARTS]
    return {"n": int(n), "d": int(d), "curves": curves}


@shared_render
def matrix(model: PositionalEncodingDemo, lang: str = "") -> dict[str, np.ndarray]:
    """``{"values": …}``: the heat map's matrix, the same read-only array for every session
    showing that state (:func:`heatmap_values`)."""
    return {"values": heatmap_values(model.encoding)}


TABLE_CSS = """
.c04-pe-worked th:first-child, .c04-pe-worked th:last-child { text-align: left; }
.c04-pe-worked th:first-child { white-space: nowrap; }
.c04-pe-worked td.c04-pe-comment { text-align: left; border: none; color: #444; min-width: 16em; }
.c04-pe-worked tr.c04-pe-sum td:not(.c04-pe-comment) { background: #eef4fb; font-weight: 600; }
"""
# The formula under the title, as its Markdown pane showed it.
FORMULA_CSS = """
.c04-pe-formula { font-size: 115%; }
.c04-pe-formula math { margin-inline: auto; }
"""


def range_spec(value: int, bounds: tuple[int, int], step: int, lang: str) -> dict:
    """A control over a parameter's bounds (``d_model`` in steps of 2 from its even lower
    bound: every value it offers is even), the model's value on it."""
    return {
        "value": int(value),
        "start": bounds[0],
        "end": bounds[1],
        "step": step,
        "decimals": 0,
        "decimal": text("format.decimal", lang),
    }


class PositionalView(DemoView):
    """The positional-encoding section: formula, PE heatmap, similarity curve, worked table.

    Controls: ``n_positions`` and ``d_model``, native ranges of the section's first
    :class:`Board` (``self.board``; board.js), following the model (a change from anywhere
    shows in them). ``d_model`` moves in steps of 2 from 2, so the control only offers even
    values. A value the model refuses (odd, out of bounds: no page sends one, a forged message
    can) is one INFO line with the catalogue's message in ``lang`` (``input.refused``), and
    everything stays at the last valid state (``_on_control``).

    data-testids: ``pe-shape`` (current size of the matrix, "50 posiciones × 64 dimensiones",
    beside the controls), ``pe-worked-table`` (the d = 4 table of the notes; its tokens in
    ``lang``: "the dog bit" in English).

    Plots: drawn by markup.js, no Bokeh figure. ``self.heatmap`` (a :class:`Raster`, data-testid
    ``pe-heatmap``; its title ``pe-heatmap-title``, "PE: 50 posiciones × 64 dimensiones") draws
    ``values`` (the encoding as float32, row = position, position 0 at the top) as one canvas
    pixel per cell stretched to the section's width, colours fixed at −1..1 with a colour bar,
    a tooltip per cell (position, dimension, PE with 4 decimals). The slot ``similarity`` (kind
    ``lines``) of the second Board, ``self.figures`` (data-testid ``pe-similarity``), draws one
    curve per start position 0, 10, 20 as SVG, with a legend and a tooltip per curve; a start
    beyond the last position is an empty curve. Their numbers are also in text: the worked
    table, and the similarity table folded under the curves. A model change sets, in one
    ``pn.io.hold()``, the matrix (:func:`matrix`) and the numbers (:func:`numbers`) that both
    Boards draw with positional.js (``view="positional"``: the shape, the curves, the table,
    the announcement).

    Layout (issue 36): the title, the formula, the controls and the shape in one Board, the
    heat map (binary float32 data, not JSON: a Raster of its own), then the figures and fixed
    texts in another Board.

    Export: ``enable_client_side`` wires both controls to positional.js, which computes the
    encoding in the page (the sliders are free input: 511 × 256 shapes).
    """

    model = param.ClassSelector(class_=PositionalEncodingDemo)

    def __init__(self, **params):
        params.setdefault("model", PositionalEncodingDemo())
        super().__init__(**params)
        model = self.model
        self._labels = {
            "n_positions": self.t("positional.n_slider"),
            "d_model": self.t("positional.d_slider"),
        }
        header = section_markdown(self.t("demo.posicion"), anchor="posicion")
        self.board = Board(
            lang=self.lang,
            view="positional",
            layout=[
                prose(header, "c04-prose"),
                prose(FORMULA, css="c04-pe-formula"),
                row(
                    *(
                        control(name, "range", label, css="c04-wide")
                        for name, label in self._labels.items()
                    ),
                    slot("shape", "note"),
                    css="c04-controls",
                ),
            ],
            on_control=self._on_control,
            stylesheets=[FORMULA_CSS],
            sizing_mode="stretch_width",
        )
        self.n_positions = self.board.slot("n_positions")
        self.d_model = self.board.slot("d_model")

        # Named: a test finds its data model in the page (Bokeh.documents[0]) by this name, and
        # so does the export's first Board (its twin sets the matrix: Board.run_offline).
        self.heatmap = Raster(
            name="pe-heatmap",
            spec=heatmap_spec(self.lang),
            stylesheets=[CHART_CSS],
            sizing_mode="stretch_width",
            margin=(5, 10),
        )
        # The figures and fixed texts after the heat map in one Board (issue 36); the heat map
        # stays a Raster of its own (binary float32 data, not JSON).
        self.figures = Board(
            lang=self.lang,
            view="positional",
            layout=[
                prose(self.t("positional.heatmap_caption"), css="c04-note"),
                prose(f"### {self.t('positional.waves_heading')}"),
                slot("similarity", "lines"),
                slot("similarity_table", "matrix"),
                prose(
                    f"{self.t('positional.similarity_caption')}\n\n"
                    f"{self.t('positional.curves_note')}",
                    css="c04-note",
                ),
                prose(f"### {self.t('positional.table_title')}"),
                slot("worked_table", "html"),
                prose(self.t("positional.sum_paragraph")),
                slot("announce", "announce"),
            ],
            stylesheets=[CHART_CSS, TABLE_CSS],
            sizing_mode="stretch_width",
            margin=(5, 10),
        )
        self.worked_table = self.figures.slot("worked_table")
        self.worked_table.spec = worked_table_html(model.worked_rows(self.lang), lang=self.lang)
        self._update_plots()
        model.param.watch(self._from_model, ["n_positions", "d_model"])
        self._layout = pn.Column(
            self.board, self.heatmap, self.figures, sizing_mode="stretch_width"
        )

    def _on_control(self, name: str, value) -> None:
        """A control's use (Board.receive): a value the model checks; out of its bounds it is
        said with the catalogue's message (param's own is in English only)."""
        lo, hi = self.model.param[name].bounds
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and not lo <= value <= hi:
            message = Refusal(BOUNDS_KEYS[name], lo=lo, hi=hi, value=value)
            clients.refused(
                self._labels[name],
                {name: value},
                self.t("input.refused", message=self.say(message)),
            )
            return
        try:
            self.model.param.update({name: value})
        except clients.REFUSED as exc:
            message = self.t("input.refused", message=self.say(exc))
            clients.refused(self._labels[name], {name: value}, message)

    def _from_model(self, *events) -> None:
        self._update_plots()

    # -- plots ---------------------------------------------------------------------------------

    def _update_plots(self) -> None:
        """The new matrix, the numbers both boards draw and the controls on the model's values,
        in one hold."""
        m = self.model
        state = numbers(m)
        values = matrix(m)["values"]
        with pn.io.hold():
            if self.heatmap.values is not values:  # a shared array: the same for the same state
                self.heatmap.values = values
            self.board.state = self.figures.state = state
            self.board.update_specs(
                {
                    "n_positions": range_spec(
                        m.n_positions, m.param.n_positions.bounds, 1, self.lang
                    ),
                    "d_model": range_spec(m.d_model, m.param.d_model.bounds, 2, self.lang),
                }
            )

    # -- the export (dashboards/export.py) -----------------------------------------------------

    def enable_client_side(self, states: dict | None = None) -> int:
        """Wire both controls to positional.js; no embedded states. A control's use runs
        ``C04.views.positional.readState`` (Board.run_offline): the encoding computed in the
        page, its matrix set on the heat map (found in the page by its name), the numbers
        drawn by both boards; with the controls as ``w_n_positions`` and ``w_d_model`` and
        ``bounds`` (the model's bounds of each, which the page checks as the model does).
        """
        m = self.model
        bounds = {name: list(m.param[name].bounds) for name in self._labels}
        targets = {"heatmap_values": (self.heatmap, "esm:values")}
        self.board.run_offline("positional", targets, bounds=bounds)
        return 0

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return {"n_positions": self.n_positions, "d_model": self.d_model}

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("posicion")
