"""Demo 3 of the lecture: the sinusoidal positional encoding matrix, its similarity vs distance
curve and the worked d = 4 table of the notes."""

from __future__ import annotations

import json
import logging

import numpy as np
import panel as pn
import param
from bokeh.models import (
    ColorBar,
    ColumnDataSource,
    CustomJSHover,
    CustomJSTickFormatter,
    FixedTicker,
    HoverTool,
    LinearColorMapper,
    Range1d,
)
from bokeh.palettes import RdBu11, interp_palette
from bokeh.plotting import figure

from attnmodel import PositionalEncodingDemo
from attnmodel.formatting import number, tick_js
from attnmodel.i18n import DEFAULT_LANG, Refusal, text
from dashboards.components.markup import (
    Markup,
    announce_spec,
    announcer,
    esc,
    math_md,
    section_header,
)
from dashboards.components.render import apply_render, shared_render
from dashboards.components.style import CATEGORY_COLORS
from dashboards.components.views import DemoView, LiveHTML, lean_renderers, plot_alternative

# A fixed name, not __name__: served, this file also runs as a bokeh_app_<uuid> script per
# session, and every such name would leave one more logger behind.
log = logging.getLogger("dashboards.demos.positional")

# Every text of the section is in the catalogue: [positional] in attnmodel/locales/<lang>.d/
# positional.toml (the title is demo.posicion). The formula has no words: the same in every
# language. It is written as MathML before Markdown reads the text (components/mathml.py), so
# its TeX is as TeX writes it: "\!" is a negative thin space.
FORMULA = (
    r"$$PE_{(pos,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d}}\right), \quad "
    r"PE_{(pos,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d}}\right)$$"
)

# The message of a value out of a slider's bounds, by parameter (its fields: lo, hi, value).
BOUNDS_KEYS = {
    "n_positions": "positional.bounds_n_positions",
    "d_model": "positional.bounds_d_model",
}

# Extra start positions of the similarity curve: drawn dashed over the pos = 0 curve to show that
# the curve depends only on Δ.
EXTRA_STARTS = (10, 20)
CURVE_STARTS = (0, *EXTRA_STARTS)
CURVE_COLORS = dict(zip((0, 10, 20), CATEGORY_COLORS, strict=False))

# Diverging blue (−1) → white (0) → red (+1), as HoloViews' "RdBu_r" was.
PE_PALETTE = tuple(interp_palette(RdBu11, 256))

# Hover texts: whole positions/dimensions; values (tick_js(4, "value", lang)) and axis ticks
# (tick_js(lang=lang): 0,5 and −1 in Spanish, no float noise) with the language's separator.
ROUND_JS = "return String(Math.round(value));"

# Bokeh names (found in the browser with Bokeh.documents[0].get_model_by_name).
HEATMAP_SOURCE = "pe-heatmap-source"
SIMILARITY_SOURCE = "pe-similarity-source-{start}"

# The ranges that follow the shape: target-name prefix -> (figure attribute, range attribute).
RANGES = {
    "heatmap_x": ("heatmap", "x_range"),
    "heatmap_y": ("heatmap", "y_range"),
    "similarity_x": ("similarity_plot", "x_range"),
}
RANGE_PROPS = ("start", "end", "reset_start", "reset_end")


def heatmap_data(pe: np.ndarray) -> dict:
    """The image glyph's columns: row = position, column = dimension, cell centres on integers.

    float32 halves what a 512 × 512 matrix sends to the browser; the colours and the 4-decimal
    hover do not need more.
    """
    n, d = pe.shape
    return {
        "image": [np.ascontiguousarray(pe, dtype=np.float32)],
        "x": [-0.5],
        "y": [-0.5],
        "dw": [d],
        "dh": [n],
    }


def curve_data(similarity: np.ndarray, lang: str = DEFAULT_LANG) -> dict:
    """One similarity curve: Δ, the value and its text in ``lang`` for the hover.

    Plain lists: a numpy column travels to the browser as a binary buffer of its own (one
    websocket frame each), lists inside the patch's JSON (same doubles).
    """
    values = np.asarray(similarity, dtype=float).tolist()
    return {
        "delta": list(range(len(values))),
        "similitud": values,
        "label": [number(v, 4, lang=lang) for v in values],
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
    for row in rows:
        cells = "".join(f"<td>{number(v, 4, lang=lang)}</td>" for v in row["values"])
        # Rows of the sum are what enters attention: make them stand out.
        strong = ' class="c04-pe-sum"' if "+" in row["vector"] else ""
        parts.append(
            f"<tr{strong}><th>{esc(row['vector'])}</th>{cells}"
            f'<td class="c04-pe-comment">{esc(row["comment"])}</td></tr>'
        )
    parts.append("</table>")
    return "".join(parts)


def error_spec(message: str) -> dict:
    """``C04.markup.note``: why a slider went back; no message, no element."""
    return {"testid": "pe-error", "cls": "c04-error", "text": message} if message else {}


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

    ``shape`` (the size readout's spec), ``heatmap_source`` and ``similarity_<start>`` (source
    data), ``<range>_<prop>`` for the three ranges that follow the shape (start, end and their
    reset values, so the reset tool returns to the new shape) and ``heatmap_title``, texts and
    numbers in ``lang``. The browser
    twin (``C04.views.positional`` in dashboards/demos/positional.js) returns the same dict.
    The worked d = 4 table does not depend on the sliders: it is set once.

    Precision: the image is float32 (``heatmap_data``); the twin rounds its float64 encoding to
    float32 the same way, so the two images agree to float32 precision (in practice every
    element is equal). The curves are float64 and agree within 1e-12.
    """
    pe = model.encoding  # [n_positions, d_model], computed once per change
    n, d = pe.shape
    half = d / 2  # the value at Δ = 0, so every curve starts at 1
    values: dict[str, object] = {
        "shape": shape_spec(n, d, lang),
        "heatmap_source": heatmap_data(pe),
    }
    for start in CURVE_STARTS:
        # PE_start · PE_(start+Δ), as model.similarity_from(start), from the same matrix.
        sim = pe[start:] @ pe[start] / half if start < n else np.array([])
        values[f"similarity_{start}"] = curve_data(sim, lang)
    curves = {start: values[f"similarity_{start}"] for start in CURVE_STARTS}
    values["similarity_table"] = similarity_table(curves, lang)
    values["announce"] = announce_spec(
        "positional",
        lang,
        shape=text("positional.shape", lang, n=n, d=d),
        near=curves[0]["label"][1],
    )
    # Position 0 at the top of the heatmap: its y range is flipped.
    bounds = {
        "heatmap_x": (-0.5, d - 0.5),
        "heatmap_y": (n - 0.5, -0.5),
        "similarity_x": (0, n - 1),
    }
    for name, (start, end) in bounds.items():
        for prop, value in zip(RANGE_PROPS, (start, end, start, end), strict=True):
            values[f"{name}_{prop}"] = value
    values["heatmap_title"] = text("positional.heatmap_title", lang, n=n, d=d)
    return values


TABLE_CSS = """
.c04-pe-worked th:first-child, .c04-pe-worked th:last-child { text-align: left; }
.c04-pe-worked th:first-child { white-space: nowrap; }
.c04-pe-worked td.c04-pe-comment { text-align: left; border: none; color: #444; min-width: 16em; }
.c04-pe-worked tr.c04-pe-sum td:not(.c04-pe-comment) { background: #eef4fb; font-weight: 600; }
"""


class PositionalView(DemoView):
    """The positional-encoding section: formula, PE heatmap, similarity curve, worked table.

    Controls: ``n_positions`` and ``d_model`` sliders, two-way bound to the model. ``d_model``
    moves in steps of 2 from 2, so the slider only offers even values; a value the model rejects
    anyway (odd, out of bounds) shows a message in ``lang`` under the sliders
    (``self.error``, data-testid ``pe-error``) and the slider goes back to the model's value.

    data-testids: ``pe-shape`` (current size of the matrix, "50 posiciones × 64 dimensiones"),
    ``pe-worked-table`` (the d = 4 table of the notes; its tokens in ``lang``: "the dog bit" in
    English).

    Plots: plain Bokeh figures built once. ``self.heatmap`` (Bokeh name ``pe-heatmap``) draws an
    ``image`` glyph from ``self.heatmap_source`` (name ``pe-heatmap-source``; columns ``image``
    = [encoding as float32, row = position], ``x``, ``y``, ``dw``, ``dh``), colours fixed at
    −1..1, position 0 at the top (the y range is flipped). ``self.similarity_plot`` (name
    ``pe-similarity``) has one line per start position 0, 10, 20 from
    ``self.similarity_sources[start]`` (names ``pe-similarity-source-0``, ``-10``, ``-20``;
    columns ``delta``, ``similitud``, ``label``); a start beyond the last position is an empty
    curve. A model change sets each source's ``data`` once and the ranges/title, in one
    ``pn.io.hold()``: ``apply_render(self.client_targets(), render(self.model))``.

    Export: ``enable_client_side`` wires both sliders to the browser twin
    (dashboards/demos/positional.js), which computes the same ``render`` in the page.
    """

    model = param.ClassSelector(class_=PositionalEncodingDemo)

    def __init__(self, **params):
        params.setdefault("model", PositionalEncodingDemo())
        super().__init__(**params)
        model = self.model
        n_bounds = model.param.n_positions.bounds
        d_bounds = model.param.d_model.bounds
        self.n_slider = pn.widgets.IntSlider(
            label=self.t("positional.n_slider"),
            value=model.n_positions,
            start=n_bounds[0],
            end=n_bounds[1],
            step=1,
            width=320,
        )
        # Start at the (even) lower bound with step 2: every value the slider offers is even.
        self.d_slider = pn.widgets.IntSlider(
            label=self.t("positional.d_slider"),
            value=model.d_model,
            start=d_bounds[0],
            end=d_bounds[1],
            step=2,
            width=320,
        )
        self.error = Markup(kind="note", spec=error_spec(""), margin=(0, 10))
        self.shape = Markup(
            kind="note",
            spec=shape_spec(model.n_positions, model.d_model, self.lang),
            margin=(18, 10),
        )
        self._sliders = {"n_positions": self.n_slider, "d_model": self.d_slider}
        for name, slider in self._sliders.items():
            slider.param.watch(lambda event, name=name: self._from_widget(name, event), "value")
        model.param.watch(self._from_model, ["n_positions", "d_model"])

        # Bokeh models belong to one document: figures, sources and formatters per view.
        self.heatmap_source = ColumnDataSource(heatmap_data(model.encoding), name=HEATMAP_SOURCE)
        self.heatmap = self._heatmap_figure()
        self.similarity_sources = {
            start: ColumnDataSource(curve_data([]), name=SIMILARITY_SOURCE.format(start=start))
            for start in CURVE_STARTS
        }
        self.similarity_plot = self._similarity_figure()
        self.similarity_table = Markup(kind="matrix", margin=0)
        self.announcer = announcer()
        self._update_plots()
        self.worked_table = LiveHTML(
            worked_table_html(model.worked_rows(self.lang), lang=self.lang),
            stylesheets=[TABLE_CSS],
            sizing_mode="stretch_width",
        )
        self._layout = pn.Column(
            section_header(self.t("demo.posicion"), anchor="posicion"),
            math_md(
                FORMULA,
                stylesheets=[":host { font-size: 115%; } math { margin-inline: auto; }"],
            ),
            pn.Row(self.n_slider, self.d_slider, self.shape),
            self.error,
            pn.pane.Bokeh(self.heatmap, sizing_mode="stretch_width"),
            math_md(self.t("positional.heatmap_caption"), css_classes=["c04-note"]),
            math_md(f"### {self.t('positional.waves_heading')}"),
            pn.pane.Bokeh(self.similarity_plot, sizing_mode="stretch_width"),
            self.similarity_table,
            math_md(
                f"{self.t('positional.similarity_caption')}\n\n{self.t('positional.curves_note')}",
                css_classes=["c04-note"],
            ),
            math_md(f"### {self.t('positional.table_title')}"),
            self.worked_table,
            math_md(self.t("positional.sum_paragraph")),
            self.announcer,
            sizing_mode="stretch_width",
        )

    def _from_widget(self, name: str, event) -> None:
        # The model's own value (a slider put back or moved by the model) is not a change.
        if event.new == getattr(self.model, name):
            return
        lo, hi = self.model.param[name].bounds
        try:
            # param's own bounds message is in English only: check the bounds here, said in the
            # catalogue.
            if not lo <= event.new <= hi:
                raise Refusal(BOUNDS_KEYS[name], lo=lo, hi=hi, value=event.new)
            setattr(self.model, name, event.new)
        except ValueError as exc:
            # The model keeps its last valid value; put the slider back on it.
            log.info("Valor rechazado para %s: %s", name, exc)
            self.error.spec = error_spec(self.t("input.refused", message=self.say(exc)))
            self._set_slider(name, getattr(self.model, name))
            return
        self.error.spec = error_spec("")

    def _from_model(self, *events) -> None:
        with pn.io.hold():
            for event in events:  # several at once after model.param.update(...)
                self._set_slider(event.name, event.new)
            self._update_plots()

    def _set_slider(self, name: str, value: int) -> None:
        self._sliders[name].value = value

    # -- plots ---------------------------------------------------------------------------------

    def _heatmap_figure(self):
        fig = figure(
            name="pe-heatmap",
            html_attributes=plot_alternative(self, "pe_heatmap"),
            height=420,
            sizing_mode="stretch_width",
            # Flipped y range: position 0 at the top, as in the notes' matrix.
            x_range=Range1d(-0.5, 0.5),
            y_range=Range1d(0.5, -0.5),
            tools="pan,wheel_zoom,reset",
            active_scroll=None,  # the page scrolls; zoom only when chosen in the toolbar
            toolbar_location="right",
            x_axis_label=self.t("positional.axis_dimension"),
            y_axis_label=self.t("positional.axis_position"),
            output_backend="canvas",
        )
        mapper = LinearColorMapper(palette=PE_PALETTE, low=-1.0, high=1.0)
        image = fig.image(
            image="image",
            x="x",
            y="y",
            dw="dw",
            dh="dh",
            source=self.heatmap_source,
            color_mapper=mapper,
        )
        fig.add_tools(
            HoverTool(
                renderers=[image],
                tooltips=[
                    (self.t("positional.axis_position"), "$y{custom}"),
                    (self.t("positional.axis_dimension"), "$x{custom}"),
                    ("PE", "@image{custom}"),
                ],
                formatters={
                    "$x": CustomJSHover(code=ROUND_JS),
                    "$y": CustomJSHover(code=ROUND_JS),
                    "@image": CustomJSHover(code=tick_js(4, "value", self.lang)),
                },
            )
        )
        fig.add_layout(
            ColorBar(
                color_mapper=mapper,
                ticker=FixedTicker(ticks=[-1.0, -0.5, 0.0, 0.5, 1.0]),
                formatter=CustomJSTickFormatter(code=tick_js(lang=self.lang)),
                width=12,
            ),
            "right",
        )
        fig.grid.visible = False
        fig.axis.minor_tick_line_color = None
        fig.toolbar.logo = None
        lean_renderers(fig)
        return fig

    def _similarity_figure(self):
        fig = figure(
            name="pe-similarity",
            html_attributes=plot_alternative(self, "pe_similarity"),
            height=300,
            sizing_mode="stretch_width",
            x_range=Range1d(0, 1),
            y_range=Range1d(-1.05, 1.05),
            tools="pan,wheel_zoom,reset",
            active_scroll=None,
            toolbar_location="right",
            x_axis_label=self.t("positional.axis_delta"),
            y_axis_label=self.t("positional.axis_similarity"),
            output_backend="canvas",
        )
        for start in CURVE_STARTS:
            label = self.t("positional.curve_from", start=start)
            line = fig.line(
                x="delta",
                y="similitud",
                source=self.similarity_sources[start],
                color=CURVE_COLORS[start],
                line_width=3 if start == 0 else 2,
                line_dash="solid" if start == 0 else "dashed",
                legend_label=label,
                name=label,
            )
            fig.add_tools(
                HoverTool(
                    renderers=[line],
                    tooltips=[
                        (self.t("positional.hover_curve"), "$name"),
                        ("Δ", "@delta"),
                        (self.t("positional.hover_similarity"), "@label"),
                    ],
                    mode="vline",
                )
            )
        fig.yaxis.formatter = CustomJSTickFormatter(code=tick_js(lang=self.lang))
        fig.legend.location = "bottom_left"
        fig.axis.minor_tick_line_color = None
        fig.toolbar.logo = None
        lean_renderers(fig)
        return fig

    def _update_plots(self) -> None:
        """New data for every source (one assignment each), then ranges and title."""
        apply_render(self.client_targets(), render(self.model, self.lang))

    # -- the export (dashboards/export.py) -----------------------------------------------------

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (pane / source / Bokeh model, kind), for the names of ``render``."""
        targets: dict[str, tuple[object, str]] = {
            "shape": (self.shape, "markup"),
            "heatmap_source": (self.heatmap_source, "data"),
            "similarity_table": (self.similarity_table, "markup"),
            "announce": (self.announcer, "markup"),
        }
        for start, source in self.similarity_sources.items():
            targets[f"similarity_{start}"] = (source, "data")
        for name, (fig, attr) in RANGES.items():
            rng = getattr(getattr(self, fig), attr)
            for prop in RANGE_PROPS:
                targets[f"{name}_{prop}"] = (rng, f"prop:{prop}")
        targets["heatmap_title"] = (self.heatmap.title, "prop:text")
        return targets

    def enable_client_side(self, states: dict | None = None) -> int:
        """Wire both sliders to the browser twin (``C04.views.positional``); no embedded states.

        The callback gets every target plus ``error`` (the pane of the bad-value message) and the
        sliders as ``w_n_positions`` and ``w_d_model``.
        """
        targets = self.client_targets()
        kinds = {name: kind for name, (_, kind) in targets.items()}
        args = {name: obj for name, (obj, _) in targets.items()}
        args["error"] = self.error
        for name, slider in self._sliders.items():
            args[f"w_{name}"] = slider
        # Bokeh's CustomJS passes each arg as a variable of its own: gather them in one object.
        code = f'C04.update("positional", {{{", ".join(args)}}}, {json.dumps(kinds)});'
        for slider in self._sliders.values():
            slider.jscallback(value=code, args=args)
        return 0

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return dict(self._sliders)

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("posicion")
