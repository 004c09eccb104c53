"""Demo "Varias cabezas, varias relaciones a la vez": one arc diagram and one matrix per head.

Everything drawn comes from ``attnmodel.multihead.MultiHeadDemo``: the arcs are the model's
``arcs(head)`` (weights at or above ``arc_threshold``), the matrices are its ``weights`` and the
last panel is its ``combined`` matrix. Hovering a row of a matrix fades every arc that does not
start at that row's token; that happens in the browser (a Bokeh ``CustomJS`` on the heatmap's
``HoverTool``), so it needs no server round trip and keeps working in a static HTML export.
The plots are plain Bokeh figures built once per view; a change only replaces their sources'
``data`` (ten HoloViews DynamicMaps used to cost about a second per change).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import panel as pn
import param
from bokeh.core.properties import field
from bokeh.models import ColumnDataSource, CustomJS, FactorRange, HoverTool, Range1d
from bokeh.palettes import Blues256
from bokeh.plotting import figure

from attnmodel.multihead import HEAD_OPTIONS, MultiHeadDemo
from dashboards.common import configure, es_number, es_percent, esc, math_md, section_header

MAX_HEADS = max(HEAD_OPTIONS)

TITLE = "Varias cabezas, varias relaciones a la vez"
INTRO = (
    r"Cada cabeza tiene sus propias $$W_Q, W_K, W_V$$, así que aprende un patrón de atención "
    r"distinto sobre la misma frase. Los arcos salen de la matriz de pesos real: el grosor y la "
    r"opacidad son proporcionales a $$\alpha_{ij}$$."
)
CAVEAT = (
    "patrones ilustrativos — en un modelo real estos roles emergen del entrenamiento y rara vez "
    "son tan limpios."
)
HOW_TO_READ = (
    "Los arcos van desde el token que consulta hacia el token atendido. Pasa el ratón por la "
    "matriz de la derecha para resaltar una fila."
)
COMBINED_TITLE = "Suma de todas las cabezas (lo que ve la capa siguiente)"
COMBINED_NOTE = (
    r"Las $$h$$ matrices de pesos sumadas y divididas por $$h$$, para que cada fila siga "
    r"sumando 1."
)
WHY_HEADS = (
    r"**Por qué varias cabezas y no una más grande.** Una sola distribución de atención tiene "
    r"que elegir: o sigue la concordancia sujeto–verbo, o resuelve el pronombre, o mira al "
    r"vecino. Con $$h$$ cabezas de dimensión $$d_{model}/h$$ cada una, el costo total es el "
    r"mismo pero el modelo puede mantener varias relaciones abiertas a la vez y concatenar los "
    r"resultados."
)

# Arc style: line_width = ARC_WIDTH · α_ij px and line_alpha = α_ij, both proportional to α_ij.
ARC_WIDTH = 8.0
FADE = 0.1  # opacity factor of the arcs of the rows that are not hovered
HEAD_COLORS = ("#1f5fa8", "#b03a2e", "#2a7a2a", "#7d3c98")
SINGLE_HEAD_COLOR = "#444444"
COMBINED_COLOR = "#222222"
BASE_Y = 0.18  # arcs start and end just above the token labels
ARC_POINTS = 32
# Light (α = 0) to dark (α = 1); Bokeh lists its sequential palettes dark first.
HEAT_PALETTE = np.array(Blues256[::-1])
ARC_COLUMNS = ("xs", "ys", "peso", "fila", "col", "line_alpha", "line_width", "relacion")
HEAT_COLUMNS = ("atendido", "consulta", "peso", "fila", "color", "texto", "valor", "valor_color")

CSS = """
.mh-title { font-weight: 600; font-size: 110%; margin: 4px 0 2px; }
.mh-swatch { display: inline-block; width: 0.9em; height: 0.9em; border-radius: 2px;
  vertical-align: -0.1em; margin-right: 6px; }
.mh-desc { color: #444; font-size: 92%; margin: 0 0 4px; max-width: 70em; }
.mh-top { display: flex; flex-wrap: wrap; gap: 4px 6px; margin: 2px 0 6px; padding: 0;
  list-style: none; font-size: 90%; }
.mh-top li { white-space: nowrap; padding: 1px 7px; border: 1px solid #d6dbe3;
  border-radius: 10px; background: #fafbfd; font-variant-numeric: tabular-nums; }
.mh-top li.mh-strong { border-color: #1f5fa8; background: #eef3fa; font-weight: 600; }
.mh-top-label { font-size: 85%; color: #555; margin-top: 2px; }
.mh-dims { font-family: monospace; font-size: 105%; margin-top: 4px; }
"""
BOX_STYLES = {
    "border-left": "4px solid #1f5fa8",
    "background": "#f5f8fc",
    "padding": "4px 14px",
    "margin-top": "12px",
}

# HoverTool callback of a heatmap: keep the arcs of the hovered query row, fade the others.
# Every model named `name` is updated (normally one arc source per document).
_HIGHLIGHT_JS = """
let row = -1;
if (cb_data != null && cb_data.index != null && cb_data.renderer != null) {
  const hit = cb_data.index.indices;
  if (hit.length > 0) {
    row = Number(cb_data.renderer.data_source.data["fila"][hit[0]]);
  }
}
const doc = cb_obj.document;
if (doc == null) {
  return;
}
for (const m of doc.all_models) {
  if (m.name !== name || m.data == null) {
    continue;
  }
  const base = m.data["peso"], rows = m.data["fila"], shown = m.data["line_alpha"];
  if (base == null || rows == null || shown == null) {
    continue;
  }
  let changed = false;
  for (let k = 0; k < shown.length; k++) {
    const v = (row < 0 || Number(rows[k]) === row) ? base[k] : base[k] * fade;
    if (shown[k] !== v) {
      shown[k] = v;
      changed = true;
    }
  }
  if (changed) {
    m.change.emit();
  }
}
"""


def unique_labels(tokens) -> list[str]:
    """Axis labels for categorical axes: a repeated word gets invisible zero-width spaces."""
    seen: dict[str, int] = {}
    labels = []
    for tok in tokens:
        n = seen.get(tok, 0)
        seen[tok] = n + 1
        labels.append(tok + "\u200b" * n)
    return labels


def arcs_from(weights, threshold: float) -> list[tuple[int, int, float]]:
    """(i, j, α_ij) for every α_ij >= threshold, like ``MultiHeadDemo.arcs`` for any matrix."""
    w = np.asarray(weights, dtype=float)
    return [
        (int(i), int(j), float(w[i, j])) for i, j in zip(*np.nonzero(w >= threshold), strict=True)
    ]


@functools.lru_cache(maxsize=512)
def arc_geometry(i: int, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Curve from query token i to attended token j, above the line, with an arrowhead at j.

    i != j: half an ellipse whose height grows with |i − j| (leftward arcs a bit higher than
    rightward ones, so i→j and j→i do not overlap). i == j: a small loop above the token.
    Cached (a pure function of i, j), so the arrays are read-only.
    """
    if i == j:
        r = 0.16
        t = np.linspace(-np.pi / 2, 3 * np.pi / 2, ARC_POINTS)
        return _frozen(i + r * np.cos(t), BASE_Y + r + r * np.sin(t))
    t = np.linspace(0.0, np.pi, ARC_POINTS)
    height = (0.35 + 0.28 * abs(i - j)) * (1.0 if j < i else 0.8)
    xs = (i + j) / 2 + (i - j) / 2 * np.cos(t)
    ys = BASE_Y + height * np.sin(t)
    # The curve arrives at j vertically, so the arrowhead is a "V" pointing down.
    wing_x, wing_y = 0.09, BASE_Y + 0.16
    xs = np.concatenate([xs, [j - wing_x, j, j + wing_x]])
    ys = np.concatenate([ys, [wing_y, BASE_Y, wing_y]])
    return _frozen(xs, ys)


def _frozen(*arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    for a in arrays:
        a.flags.writeable = False
    return arrays


def top_entries(tokens, weights) -> list[tuple[int, int, float]]:
    """(i, j, α_ij) with j the most attended token of every row i (first one on a tie)."""
    w = np.asarray(weights, dtype=float)
    return [(i, int(np.argmax(w[i])), float(w[i].max())) for i in range(len(tokens))]


def top_html(tokens, weights, testid: str) -> str:
    """Compact list "mordió → perro 97 %" of each row's most attended token."""
    items = []
    for i, j, a in top_entries(tokens, weights):
        cls = ' class="mh-strong"' if a >= 0.5 else ""
        items.append(
            f'<li{cls} data-row="{i}">{esc(tokens[i])} → {esc(tokens[j])} {es_percent(a)}</li>'
        )
    return (
        '<div class="mh-top-label">Lo que más mira cada token:</div>'
        f'<ul class="mh-top" data-testid="{esc(testid)}">{"".join(items)}</ul>'
    )


def arc_data(tokens, arcs) -> dict:
    """Columns of an arc source: one polyline (with its arrowhead) per (i, j, α_ij)."""
    xs, ys, rel = [], [], []
    for i, j, a in arcs:
        x, y = arc_geometry(i, j)
        xs.append(x)
        ys.append(y)
        rel.append(f"{tokens[i]} → {tokens[j]}: α = {es_number(a)}")
    peso = np.array([a for _, _, a in arcs], dtype=float)
    return {
        "xs": xs,
        "ys": ys,
        "peso": peso,
        "fila": np.array([i for i, _, _ in arcs], dtype=np.int32),
        "col": np.array([j for _, j, _ in arcs], dtype=np.int32),
        # A separate array: the browser rewrites line_alpha in place on hover, peso stays.
        "line_alpha": peso.copy(),
        "line_width": ARC_WIDTH * peso,
        "relacion": rel,
    }


def heat_data(labels, weights, threshold: float) -> dict:
    """Columns of a heatmap source: one cell per (i, j), colour and label text precomputed."""
    if weights is None:
        return {c: [] for c in HEAT_COLUMNS}
    w = np.asarray(weights, dtype=float)
    n = len(labels)
    a = w.ravel()  # row-major: cell k is (i, j) = divmod(k, n)
    rows = np.repeat(np.arange(n, dtype=np.int32), n)
    cols = np.tile(np.arange(n), n)
    shade = np.clip((a * len(HEAT_PALETTE)).astype(int), 0, len(HEAT_PALETTE) - 1)
    values = a.tolist()
    return {
        "atendido": [labels[j] for j in cols],
        "consulta": [labels[i] for i in rows],
        "peso": a,
        "fila": rows,
        "color": HEAT_PALETTE[shade].tolist(),
        "texto": [f"{es_number(v)} ({es_percent(v)})" for v in values],
        "valor": [es_number(v) if v >= threshold else "" for v in values],
        "valor_color": ["#ffffff" if v > 0.55 else "#111111" for v in values],
    }


class MultiHeadView(pn.viewable.Viewer):
    """Sentence and number-of-heads controls, one arc diagram + matrix per head, their sum.

    Panels for the maximum number of heads are built once; ``n_heads`` only shows or hides them.
    Every plot is a plain Bokeh figure built once; one model watcher (``sentence``, ``n_heads``,
    ``arc_threshold``) replaces the sources' ``data``, the shared ranges and the HTML panes
    (titles, top lists, dimensions line) inside one ``pn.io.hold()``. Hidden heads keep empty
    sources.

    data-testids (k = 1 … 4 is the head number shown on screen):

    - ``head-<k>-title``: "Cabeza k · <name>" and the head's description.
    - ``head-<k>-top``: a ``ul``; each ``li`` (``data-row="i"``) reads "mordió → perro 97 %",
      the most attended token j of row i of ``weights[k − 1]`` and its weight.
    - ``combined-top``: the same list for ``combined``.
    - ``head-dims``: "d_model = 24, h = 4 → cada cabeza de dimensión 6".
    - ``multihead-caveat``: the "patrones ilustrativos" note.

    CSS classes: ``mh-heads-control`` (the "Cabezas" buttons), ``mh-arcs-<k>`` / ``mh-heat-<k>``
    (the arc diagram and matrix panes of head k; ``-suma`` for the sum).

    Bokeh names (for the browser): the arc sources are ``multihead-arcs-<k>`` and
    ``multihead-arcs-suma`` (columns ``xs``, ``ys``, ``peso`` = α_ij, ``fila`` = i, ``col`` = j,
    ``line_alpha`` = what is drawn, the hover fades it, ``line_width``, ``relacion``); the matrix
    sources ``multihead-heat-<k>`` / ``multihead-heat-suma`` (one row per cell: ``consulta``,
    ``atendido``, ``peso``, ``fila``, ``color``, ``texto``, ``valor``); the token labels shared
    by every arc diagram ``multihead-tokens``.
    """

    model = param.ClassSelector(class_=MultiHeadDemo)

    def __init__(self, **params):
        params.setdefault("model", MultiHeadDemo())
        super().__init__(**params)
        m = self.model

        self.sentence_select = pn.widgets.Select.from_param(
            m.param.sentence, name="Frase", width=460, margin=(6, 20, 6, 10)
        )
        self.heads_buttons = pn.widgets.RadioButtonGroup.from_param(
            m.param.n_heads,
            name="Cabezas",
            color="primary",
            variant="outline",
            width=200,
            margin=(0, 10, 6, 10),
        )
        heads_control = pn.Column(
            pn.pane.HTML(
                "Cabezas", margin=(6, 10, 0, 10), stylesheets=[":host { font-size: 90%; }"]
            ),
            self.heads_buttons,
            margin=0,
            css_classes=["mh-heads-control"],
        )

        # Shared by all panels: every diagram shows the same tokens on the same axes.
        self.token_source = ColumnDataSource(
            {"x": [], "y": [], "anchor_y": [], "token": []}, name="multihead-tokens"
        )
        self.arc_x_range = Range1d(-0.6, 0.6)
        self.heat_x_range = FactorRange()
        self.heat_y_range = FactorRange()  # reversed labels: row 0 at the top

        self.arc_sources: list[ColumnDataSource] = []
        self.heat_sources: list[ColumnDataSource] = []
        self.arc_figures: list[figure] = []
        self.heat_figures: list[figure] = []
        self._arc_lines = []  # MultiLine renderers, to recolour head 1 when h = 1
        self.head_titles: list[pn.pane.HTML] = []
        self.head_tops: list[pn.pane.HTML] = []
        self.head_panels: list[pn.Column] = []
        for k in range(MAX_HEADS):
            arc_fig, heat_fig = self._figures(k)
            title = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[CSS], margin=(4, 10))
            top = pn.pane.HTML("", sizing_mode="stretch_width", stylesheets=[CSS], margin=(0, 10))
            panel = pn.Column(
                title,
                pn.Row(
                    self._plot_pane(arc_fig, f"mh-arcs-{k + 1}"),
                    self._plot_pane(heat_fig, f"mh-heat-{k + 1}"),
                ),
                top,
                sizing_mode="stretch_width",
                styles={"border-top": "1px solid #d6dbe3"},
                margin=(6, 0),
            )
            self.head_titles.append(title)
            self.head_tops.append(top)
            self.head_panels.append(panel)

        self.combined_arc_figure, self.combined_heat_figure = self._figures(None)
        self.combined_arc_source = self.arc_sources.pop()
        self.combined_heat_source = self.heat_sources.pop()
        self.arc_figures.pop()
        self.heat_figures.pop()
        self._arc_lines.pop()
        self.combined_top = pn.pane.HTML(
            "", sizing_mode="stretch_width", stylesheets=[CSS], margin=(0, 10)
        )
        self.dims = pn.pane.HTML("", stylesheets=[CSS], margin=(0, 0, 8, 0))

        self._tokens: list[str] | None = None
        self._refresh()
        m.param.watch(self._on_change, ["sentence", "n_heads", "arc_threshold"])

        self._layout = pn.Column(
            section_header(TITLE, INTRO, anchor="cabezas"),
            pn.pane.HTML(
                f'<div class="c04-note" data-testid="multihead-caveat"><em>{CAVEAT}</em></div>',
                sizing_mode="stretch_width",
                margin=(0, 10, 6, 10),
            ),
            pn.Row(self.sentence_select, heads_control),
            math_md(HOW_TO_READ),
            *self.head_panels,
            pn.Column(
                math_md(f"### {COMBINED_TITLE}\n\n{COMBINED_NOTE}"),
                pn.Row(
                    self._plot_pane(self.combined_arc_figure, "mh-arcs-suma"),
                    self._plot_pane(self.combined_heat_figure, "mh-heat-suma"),
                ),
                self.combined_top,
                sizing_mode="stretch_width",
                styles={"border-top": "1px solid #d6dbe3"},
                margin=(6, 0),
            ),
            pn.Column(
                math_md(WHY_HEADS), self.dims, styles=BOX_STYLES, sizing_mode="stretch_width"
            ),
            sizing_mode="stretch_width",
        )

    # --- plots ---------------------------------------------------------------------------

    @staticmethod
    def _plot_pane(fig, css_class: str) -> pn.pane.Bokeh:
        # The Bokeh pane renders the figure itself: class and margin go on the figure.
        fig.css_classes = [css_class]
        fig.margin = (0, 4)
        return pn.pane.Bokeh(fig)

    @staticmethod
    def arc_name(head: int | None) -> str:
        """Bokeh name of the arc source of head index ``head`` (0-based) or of the sum."""
        return "multihead-arcs-suma" if head is None else f"multihead-arcs-{head + 1}"

    @staticmethod
    def heat_name(head: int | None) -> str:
        """Bokeh name of the matrix source of head index ``head`` (0-based) or of the sum."""
        return "multihead-heat-suma" if head is None else f"multihead-heat-{head + 1}"

    def _figures(self, head: int | None) -> tuple[figure, figure]:
        """Arc diagram and matrix of one head (``None``: the sum), bound to empty sources."""
        arcs = ColumnDataSource({c: [] for c in ARC_COLUMNS}, name=self.arc_name(head))
        arc_fig = figure(
            width=600,
            height=300,
            x_range=self.arc_x_range,
            y_range=Range1d(-0.45, 3.0),
            tools="",
            toolbar_location=None,
            outline_line_color=None,
            name=f"{self.arc_name(head)}-figure",
        )
        arc_fig.axis.visible = False
        arc_fig.grid.visible = False
        lines = arc_fig.multi_line(
            xs=field("xs"),
            ys=field("ys"),
            source=arcs,
            line_color=self._color(head),
            line_alpha=field("line_alpha"),
            line_width=field("line_width"),
            line_cap="round",
        )
        arc_fig.scatter(x="x", y="anchor_y", source=self.token_source, size=4, color="#888888")
        arc_fig.text(
            x="x",
            y="y",
            text=field("token"),
            source=self.token_source,
            text_font_size="12pt",
            text_align="center",
            text_baseline="top",
            text_color="#111111",
        )
        arc_fig.add_tools(HoverTool(renderers=[lines], tooltips=[("", "@relacion")]))

        heat = ColumnDataSource({c: [] for c in HEAT_COLUMNS}, name=self.heat_name(head))
        heat_fig = figure(
            width=380,
            height=340,
            x_range=self.heat_x_range,
            y_range=self.heat_y_range,
            x_axis_label="token atendido j",
            y_axis_label="token que consulta i",
            tools="",
            toolbar_location=None,
            name=f"{self.heat_name(head)}-figure",
        )
        heat_fig.grid.visible = False
        heat_fig.xaxis.major_label_orientation = math.radians(45)
        cells = heat_fig.rect(
            x="atendido",
            y="consulta",
            width=1,
            height=1,
            source=heat,
            fill_color=field("color"),
            line_color=None,
            hover_line_color="#111111",
        )
        heat_fig.text(
            x="atendido",
            y="consulta",
            text=field("valor"),
            source=heat,
            text_color=field("valor_color"),
            text_font_size="8pt",
            text_align="center",
            text_baseline="middle",
        )
        # Client side: hovering row i keeps the arcs of token i and fades the others; leaving
        # the matrix restores them (cb_data is empty there, so row = −1).
        args = {"name": self.arc_name(head), "fade": FADE}
        heat_fig.add_tools(
            HoverTool(
                renderers=[cells],
                tooltips=[("consulta", "@consulta"), ("atendido", "@atendido"), ("α", "@texto")],
                callback=CustomJS(args=args, code=_HIGHLIGHT_JS),
            )
        )
        heat_fig.js_on_event("mouseleave", CustomJS(args=args, code=_HIGHLIGHT_JS))

        self.arc_sources.append(arcs)
        self.heat_sources.append(heat)
        self.arc_figures.append(arc_fig)
        self.heat_figures.append(heat_fig)
        self._arc_lines.append(lines)
        return arc_fig, heat_fig

    def _weights(self, head: int | None) -> np.ndarray | None:
        """[n, n] weights of one head, the combined matrix, or None for a hidden head."""
        m = self.model
        if head is None:
            return m.combined
        if head >= m.n_heads:
            return None
        return m.weights[head]

    def _arcs(self, head: int | None) -> list[tuple[int, int, float]]:
        m = self.model
        if head is None:
            return arcs_from(m.combined, m.arc_threshold)
        if head >= m.n_heads:
            return []
        return m.arcs(head)

    def _color(self, head: int | None) -> str:
        if head is None:
            return COMBINED_COLOR
        if self.model.n_heads == 1:
            return SINGLE_HEAD_COLOR
        return HEAD_COLORS[head % len(HEAD_COLORS)]

    # --- updates -------------------------------------------------------------------------

    def _on_change(self, *events) -> None:
        self._refresh()

    def _refresh(self) -> None:
        m = self.model
        tokens, h, threshold = m.tokens, m.n_heads, m.arc_threshold
        names, descriptions, weights = m.head_names, m.head_descriptions, m.weights
        labels = unique_labels(tokens)
        n = len(tokens)

        titles, tops, arc_cols, heat_cols = [], [], [], []
        for k in range(MAX_HEADS):
            if k < h:
                color = self._color(k)
                titles.append(
                    f'<div data-testid="head-{k + 1}-title">'
                    f'<div class="mh-title"><span class="mh-swatch" style="background:{color}">'
                    f"</span>Cabeza {k + 1} · {esc(names[k])}</div>"
                    f'<p class="mh-desc">{esc(descriptions[k])}</p></div>'
                )
                tops.append(top_html(tokens, weights[k], f"head-{k + 1}-top"))
                arc_cols.append(arc_data(tokens, self._arcs(k)))
                heat_cols.append(heat_data(labels, weights[k], threshold))
            else:
                titles.append("")
                tops.append("")
                arc_cols.append(None)
                heat_cols.append(None)
        combined_arcs = arc_data(tokens, self._arcs(None))
        combined_heat = heat_data(labels, m.combined, threshold)
        combined_top = top_html(tokens, m.combined, "combined-top")
        dims = (
            f'<div class="mh-dims" data-testid="head-dims">d_model = {m.d_model}, h = {h} → '
            f"cada cabeza de dimensión {m.d_k}</div>"
        )

        with pn.io.hold():
            if tokens != self._tokens:
                self._tokens = list(tokens)
                self.token_source.data = {
                    "x": np.arange(n, dtype=float),
                    "y": np.zeros(n),
                    "anchor_y": np.full(n, BASE_Y),
                    "token": list(tokens),
                }
                self.arc_x_range.update(start=-0.6, end=max(n, 1) - 0.4)
                self.heat_x_range.factors = labels
                self.heat_y_range.factors = labels[::-1]
            for k in range(MAX_HEADS):
                self.head_titles[k].object = titles[k]
                self.head_tops[k].object = tops[k]
                if arc_cols[k] is not None:
                    self.arc_sources[k].data = arc_cols[k]
                    self.heat_sources[k].data = heat_cols[k]
                    self._arc_lines[k].glyph.line_color = self._color(k)
                elif len(self.arc_sources[k].data["peso"]) or len(
                    self.heat_sources[k].data["peso"]
                ):
                    # Hidden head: empty once, so nothing stale stays in the page.
                    self.arc_sources[k].data = {c: [] for c in ARC_COLUMNS}
                    self.heat_sources[k].data = {c: [] for c in HEAT_COLUMNS}
                self.head_panels[k].visible = k < h
            self.combined_arc_source.data = combined_arcs
            self.combined_heat_source.data = combined_heat
            self.combined_top.object = combined_top
            self.dims.object = dims

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):
    configure()
    MultiHeadView().servable(title=TITLE)
