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
from dashboards.components.markup import Raster, announce_spec, esc, section_markdown
from dashboards.components.render import apply_render, shared_render
from dashboards.components.style import CATEGORY_COLORS, CHART_CSS
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
CURVE_COLORS = dict(zip((0, 10, 20), CATEGORY_COLORS, strict=False))

# Diverging blue (−1) → white (0) → red (+1), as HoloViews' "RdBu_r" was; drawn by
# C04.markup.raster, a value's colour as Bokeh's LinearColorMapper over [−1, 1] picks it.
PE_PALETTE = tuple(interp_palette(RdBu11, 256))
PE_RANGE = (-1.0, 1.0)
BAR_TICKS = (-1.0, -0.5, 0.0, 0.5, 1.0)
SIMILARITY_RANGE = (-1.05, 1.05)
SIMILARITY_HEIGHT = 300


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


def curve_data(similarity: np.ndarray, lang: str = DEFAULT_LANG) -> dict:
    """One similarity curve: the value at each Δ = 0, 1, … and its text in ``lang`` (the
    tooltip's and the table's)."""
    values = np.asarray(similarity, dtype=float).tolist()
    return {"similitud": values, "label": [number(v, 4, lang=lang) for v in values]}


def similarity_spec(curves: dict[int, dict], n: int, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.lines``: the three similarity curves over Δ = 0 … n − 1 (the one from
    pos = 0 solid and wider, the others dashed), y on −1.05 … 1.05, a legend, and per curve
    the tooltip's texts."""
    return {
        "testid": "pe-similarity",
        "aria": text("a11y.plot.pe_similarity", lang),
        "height": SIMILARITY_HEIGHT,
        "decimal": text("format.decimal", lang),
        "x": {
            "label": text("positional.axis_delta", lang),
            "min": 0,
            "max": n - 1,
            "integer": True,
        },
        "y": {
            "label": text("positional.axis_similarity", lang),
            "min": SIMILARITY_RANGE[0],
            "max": SIMILARITY_RANGE[1],
            "integer": False,
        },
        "series": [
            {
                "name": text("positional.curve_from", lang, start=start),
                "color": CURVE_COLORS[start],
                "width": 3 if start == 0 else 2,
                "dash": start != 0,
                "y": curves[start]["similitud"],
                "labels": curves[start]["label"],
            }
            for start in CURVE_STARTS
        ],
        "legend": True,
        "tip": {
            "series": text("positional.hover_curve", lang),
            "x": "Δ",
            "y": text("positional.hover_similarity", lang),
        },
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


def shape_spec(n: int, d: int, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.note``: the size of the matrix ("50 posiciones × 64 dimensiones")."""
    return {
        "testid": "pe-shape",
        "cls": "c04-note",
        "text": text("positional.shape", lang, n=n, d=d),
    }


# The gaps of the similarity table (the curves' numbers, for a screen reader).
TABLE_DELTAS = (1, 2, 5, 10, 20)


def similarity_table(curves: dict[int, dict], lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.matrix``, folded under "Los números de las curvas": the curves at a few
    gaps Δ, a row per start position drawn ("—" past the last position), from the curves' own
    hover texts."""
    rows = []
    for start in CURVE_STARTS:
        labels = curves[start]["label"]
        if not labels:
            continue
        rows.append(
            {
                "label": text("positional.sim_row", lang, start=start),
                "cells": [labels[dt] if dt < len(labels) else "—" for dt in TABLE_DELTAS],
                "shade": None,
                "sum": None,
            }
        )
    return {
        "testid": "pe-similarity-table",
        "title": text("positional.sim_table", lang),
        "cols": [f"Δ = {dt}" for dt in TABLE_DELTAS],
        "rows": rows,
        "note": None,
        "details": text("positional.sim_summary", lang),
    }


@shared_render
def render(model: PositionalEncodingDemo, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """Everything on screen that follows ``n_positions`` and ``d_model``, by target name.

    ``shape`` (the size readout's spec), ``heatmap_values`` (the encoding as float32, the heat
    map's matrix: its title and ticks follow its shape), ``similarity`` (the curves' spec),
    ``similarity_table`` and ``announce``, texts and numbers in ``lang``. The browser twin
    (``C04.views.positional`` in dashboards/static/demos/positional.js) returns the same dict. The
    worked d = 4 table does not depend on the sliders: it is set once.

    Precision: the matrix is float32 (``heatmap_values``); the twin rounds its float64 encoding
    to float32 the same way, so the two agree to float32 precision (in practice every element
    is equal). The curves are float64 and agree within 1e-12.
    """
    pe = model.encoding  # [n_positions, d_model], computed once per change
    n, d = pe.shape
    half = d / 2  # the value at Δ = 0, so every curve starts at 1
    curves = {}
    for start in CURVE_STARTS:
        # PE_start · PE_(start+Δ), as model.similarity_from(start), from the same matrix.
        sim = pe[start:] @ pe[start] / half if start < n else np.array([])
        curves[start] = curve_data(sim, lang)
    return {
        "shape": shape_spec(n, d, lang),
        "heatmap_values": heatmap_values(pe),
        "similarity": similarity_spec(curves, n, lang),
        "similarity_table": similarity_table(curves, lang),
        "announce": announce_spec(
            "positional",
            lang,
            shape=text("positional.shape", lang, n=n, d=d),
            near=curves[0]["label"][1],
        ),
    }


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
    a tooltip per cell (position, dimension, PE with 4 decimals). ``self.similarity`` (a slot
    of kind ``lines`` of the second Board, ``self.figures``, data-testid ``pe-similarity``)
    draws one curve per start position 0, 10, 20 as SVG, with a legend and a tooltip per
    curve; a start beyond the last position is an empty curve. Their numbers are also in text:
    the worked table, and the similarity table folded under the curves. A model change sets the
    matrix and the specs, in one ``pn.io.hold()``:
    ``apply_render(self.client_targets(), render(self.model))``.

    Layout (issue 36): the title, the formula, the controls and the shape in one Board, the
    heat map (binary float32 data, not JSON: a Raster of its own), then the figures and fixed
    texts in another Board.

    Export: ``enable_client_side`` wires both controls to the browser twin
    (dashboards/static/demos/positional.js), which computes the same ``render`` in the page.
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
        self.shape = self.board.slot("shape")
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
        # Each fragment as the tests read it (a Slot: spec, kind; an "html" slot's object).
        self.similarity = self.figures.slot("similarity")
        self.similarity_table = self.figures.slot("similarity_table")
        self.announcer = self.figures.slot("announce")
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
        """The new matrix and specs (each set once) and the controls on the model's values, in
        one hold."""
        m = self.model
        with pn.io.hold():
            apply_render(self.client_targets(), render(m, self.lang))
            self.board.update_specs(
                {
                    "n_positions": range_spec(
                        m.n_positions, m.param.n_positions.bounds, 1, self.lang
                    ),
                    "d_model": range_spec(m.d_model, m.param.d_model.bounds, 2, self.lang),
                }
            )

    # -- the export (dashboards/export.py) -----------------------------------------------------

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (component, kind), for the names of ``render``."""
        return {
            "shape": (self.board, "board:shape"),
            "heatmap_values": (self.heatmap, "esm:values"),
            "similarity": (self.figures, "board:similarity"),
            "similarity_table": (self.figures, "board:similarity_table"),
            "announce": (self.figures, "board:announce"),
        }

    def enable_client_side(self, states: dict | None = None) -> int:
        """Wire both controls to the browser twin (``C04.views.positional``); no embedded
        states. Each runs ``C04.update("positional", …)`` (Board.run_offline) with every target
        (the heat map's matrix and the second Board's slots found in the page by the first
        Board), the controls as ``w_n_positions`` and ``w_d_model``, ``trigger`` and ``bounds``
        (the model's bounds of each, which the twin checks as the model does).
        """
        m = self.model
        bounds = {name: list(m.param[name].bounds) for name in self._labels}
        self.board.run_offline("positional", self.client_targets(), bounds=bounds)
        return 0

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return {"n_positions": self.n_positions, "d_model": self.d_model}

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("posicion")
