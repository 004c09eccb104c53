"""Demo "Varias cabezas, varias relaciones a la vez": one arc diagram and one matrix per head.

Everything drawn comes from ``attnmodel.multihead.MultiHeadDemo``: the arcs are the model's
``arcs(head)`` (weights at or above ``arc_threshold``), the matrices are its ``weights`` and the
last panel is its ``combined`` matrix. Hovering a row of a matrix fades every arc that does not
start at that row's token; that happens in the browser (a Bokeh ``CustomJS`` on the heatmap's
``HoverTool``), so it needs no server round trip and keeps working in a static HTML export.
The plots are plain Bokeh figures built once per view; a change only replaces their sources'
``data`` (ten HoloViews DynamicMaps used to cost about a second per change).

What is on screen is one pure function, ``render(model, lang)`` (target name -> HTML / source
data / property), shared by the live view (``apply_render``) and the static export, which embeds
the render of all 16 discrete states in the page's language (``client_table``) for
dashboards/static/multihead.js.

Every text comes from the catalogue (``multihead.*``, ``demo.cabezas``). The sentences are
Spanish data (``SENTENCE_LANG``): a page in another language keeps them, marks them
``lang="es"`` where HTML allows (the sentence selector, the token lists) and says so with a
gloss of each sentence; the tokens drawn on the Bokeh canvases cannot carry a language.
"""

from __future__ import annotations

import functools
import json
import math

import numpy as np
import panel as pn
import param
from bokeh.core.properties import field
from bokeh.models import ColumnDataSource, CustomJS, HoverTool, Range1d
from bokeh.palettes import Blues256
from bokeh.plotting import figure

from attnmodel.formatting import number, percent
from attnmodel.i18n import DEFAULT_LANG, text
from attnmodel.multihead import (
    HEAD_OPTIONS,
    SENTENCE_IDS,
    SENTENCE_LANG,
    SENTENCES,
    MultiHeadDemo,
)
from dashboards.common import (
    CATEGORY_COLORS,
    HIDDEN_LABEL_CSS,
    DemoView,
    LangColumn,
    LiveHTML,
    Markup,
    announce_spec,
    announcer,
    apply_render,
    esc,
    first_max,
    ink,
    kept_label,
    kept_labels,
    lean_renderers,
    math_md,
    matrix_spec,
    plot_alternative,
    section_header,
    serve_demo,
)

MAX_HEADS = max(HEAD_OPTIONS)

# Arc style: line_width = ARC_WIDTH · α_ij px and line_alpha = α_ij, both proportional to α_ij.
ARC_WIDTH = 8.0
FADE = 0.1  # opacity factor of the arcs of the rows that are not hovered
HEAD_COLORS = CATEGORY_COLORS
SINGLE_HEAD_COLOR = "#444444"
COMBINED_COLOR = "#222222"
BASE_Y = 0.18  # arcs start and end just above the token labels
ARC_POINTS = 32
LOOP_RADIUS = 0.16  # i == j: a loop of this radius above the token
ARC_HEIGHT = (0.35, 0.28)  # i != j: height = a + b·|i − j| (leftward arcs) …
ARC_RIGHTWARD = 0.8  # … times this for rightward arcs (j > i)
ARROW = (0.09, 0.16)  # arrowhead: half width and height of the "V"
_ARC_T = np.linspace(0.0, np.pi, ARC_POINTS)
_LOOP_T = np.linspace(-np.pi / 2, 3 * np.pi / 2, ARC_POINTS)
_TRIG = {
    "arc_cos": np.cos(_ARC_T),
    "arc_sin": np.sin(_ARC_T),
    "loop_cos": np.cos(_LOOP_T),
    "loop_sin": np.sin(_LOOP_T),
}
for _table in _TRIG.values():
    _table.flags.writeable = False
# Light (α = 0) to dark (α = 1); Bokeh lists its sequential palettes dark first.
HEAT_PALETTE = np.array(Blues256[::-1])
# The text drawn on each shade of it (common.ink: white or black, whichever contrasts more).
HEAT_INK = np.array([ink(color) for color in HEAT_PALETTE])
ARC_COLUMNS = ("xs", "ys", "peso", "fila", "col", "line_alpha", "line_width", "relacion")
HEAT_COLUMNS = (
    *("x", "y", "lado"),
    *("atendido", "consulta", "peso", "fila", "color", "texto", "valor", "valor_color"),
)
# A matrix is drawn in a fixed frame whose data units are its pixels; the token labels are text
# glyphs. With categorical axes, each new sentence made Bokeh measure the new tick labels and lay
# the five matrix figures out again in the browser (~100 ms of a ~300 ms sentence change); now
# a sentence changes the sources' data only.
HEAT_FRAME = (370, 320)  # frame width, height
HEAT_MARGIN = (96, 6, 6, 70)  # left, right, top, bottom: room for the labels and axis titles
HEAT_GAP = 5.0  # between a label and the matrix
HEAT_LABEL_ANGLE = math.pi / 4  # column labels, like a 45° axis
HEAT_LABEL_COLUMNS = ("x", "y", "text", "angle")
HEAT_TITLE_KEYS = ("multihead.key_axis", "multihead.query_axis")  # under, left of the matrix

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
# The note of pages in another language than the sentences' (kept_example_html).
KEPT_CSS = ".mh-kept ul { margin: 2px 0 0; padding-left: 1.2em; }"
# A head's panel; hidden by CSS (display: none) rather than Bokeh's `visible`: in the browser a
# `visible` change relays out the whole document (70–200 ms per panel), a style change does not.
# "display" is always named: Bokeh only sets the styles it is given, so "" clears the "none".
PANEL_STYLES = {"border-top": "1px solid #d6dbe3", "display": ""}
HIDDEN_PANEL_STYLES = {**PANEL_STYLES, "display": "none"}
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
    """The matrices' hover labels (``consulta``/``atendido``): a repeated word gets invisible
    zero-width spaces, so the two "gato" of a sentence stay two distinct labels."""
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
    Cached (a pure function of i, j), so the arrays are read-only. multihead.js repeats these
    few operations, in this order, on the same cos/sin tables (``_TRIG``), for the export.
    """
    if i == j:
        r = LOOP_RADIUS
        return _frozen(i + r * _TRIG["loop_cos"], BASE_Y + r + r * _TRIG["loop_sin"])
    height = (ARC_HEIGHT[0] + ARC_HEIGHT[1] * abs(i - j)) * (1.0 if j < i else ARC_RIGHTWARD)
    xs = (i + j) / 2 + (i - j) / 2 * _TRIG["arc_cos"]
    ys = BASE_Y + height * _TRIG["arc_sin"]
    # The curve arrives at j vertically, so the arrowhead is a "V" pointing down.
    wing_x, wing_y = ARROW[0], BASE_Y + ARROW[1]
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


def kept_word(word: str, lang: str = DEFAULT_LANG) -> str:
    """A word of the sentences, escaped, as a page in ``lang`` shows it: as is on a page in the
    sentences' language, marked ``<span lang="es">`` on any other (kept on purpose)."""
    if lang == SENTENCE_LANG:
        return esc(word)
    return f'<span lang="{SENTENCE_LANG}">{esc(word)}</span>'


def top_html(tokens, weights, testid: str, lang: str = DEFAULT_LANG) -> str:
    """Compact list "mordió → perro 97 %" of each row's most attended token."""
    items = []
    for i, j, a in top_entries(tokens, weights):
        cls = ' class="mh-strong"' if a >= 0.5 else ""
        items.append(
            f'<li{cls} data-row="{i}">{kept_word(tokens[i], lang)} → '
            f"{kept_word(tokens[j], lang)} {percent(a, lang=lang)}</li>"
        )
    return (
        f'<div class="mh-top-label">{esc(text("multihead.top_label", lang))}</div>'
        f'<ul class="mh-top" data-testid="{esc(testid)}">{"".join(items)}</ul>'
    )


def weights_table(tokens, weights, testid: str, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.matrix``, folded under "Los números de esta matriz": every weight of a
    matrix the canvas draws (the drawn cells show only those ≥ the threshold), with the drawn
    cells' 2 decimals; the sentence's words marked Spanish on a page in another language."""
    spec = matrix_spec(
        weights,
        tokens,
        tokens,
        2,
        testid=testid,
        title=text("multihead.table_title", lang),
        lang=lang,
    )
    spec["details"] = text("multihead.table_summary", lang)
    return kept_labels(spec, tokens, lang, SENTENCE_LANG)


def announce(tokens, combined, n_heads: int, d_k: int, lang: str = DEFAULT_LANG) -> dict:
    """What the live region says after a change: h, d_k and the largest weight of the sum."""
    flat = np.asarray(combined, dtype=float).ravel()
    i, j = divmod(first_max(flat), len(tokens))
    return announce_spec(
        "multihead",
        lang,
        heads=str(n_heads),
        d_k=str(d_k),
        query=kept_label(tokens[i], lang, SENTENCE_LANG),
        key=kept_label(tokens[j], lang, SENTENCE_LANG),
        weight=percent(flat[i * len(tokens) + j], 1, lang),
    )


def arc_data(tokens, arcs, lang: str = DEFAULT_LANG) -> dict:
    """Columns of an arc source: one polyline (with its arrowhead) per (i, j, α_ij)."""
    xs, ys, rel = [], [], []
    for i, j, a in arcs:
        x, y = arc_geometry(i, j)
        xs.append(x)
        ys.append(y)
        rel.append(f"{tokens[i]} → {tokens[j]}: α = {number(a, lang=lang)}")
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


@functools.lru_cache(maxsize=64)
def heat_grid(n: int) -> tuple[tuple[float, ...], tuple[float, ...], float]:
    """Centres of the columns (x of column j), of the rows (y of row i, row 0 at the top) and
    side of the square cells of an n × n matrix in the fixed frame (``HEAT_FRAME``)."""
    width, height = HEAT_FRAME
    left, right, top, bottom = HEAT_MARGIN
    n = max(n, 1)
    side = min((width - left - right) / n, (height - top - bottom) / n)
    xs = tuple(left + (j + 0.5) * side for j in range(n))
    ys = tuple(height - top - (i + 0.5) * side for i in range(n))
    return xs, ys, side


def heat_labels(tokens) -> dict:
    """The matrix labels: row i's token left of row i, then column j's token under column j
    (at 45°, ending under the column), shared by every matrix of the sentence."""
    n = len(tokens)
    xs, ys, side = heat_grid(n)
    left = HEAT_MARGIN[0]
    below = HEAT_FRAME[1] - HEAT_MARGIN[2] - n * side - HEAT_GAP
    return {
        "x": [left - HEAT_GAP] * n + list(xs[:n]),
        "y": list(ys[:n]) + [below] * n,
        "text": list(tokens) * 2,
        "angle": [0.0] * n + [HEAT_LABEL_ANGLE] * n,
    }


def heat_data(labels, weights, threshold: float, lang: str = DEFAULT_LANG) -> dict:
    """Columns of a heatmap source: one cell per (i, j) at its place in the frame
    (``heat_grid``), colour and label text precomputed."""
    if weights is None:
        return {c: [] for c in HEAT_COLUMNS}
    w = np.asarray(weights, dtype=float)
    n = len(labels)
    a = w.ravel()  # row-major: cell k is (i, j) = divmod(k, n)
    rows = np.repeat(np.arange(n, dtype=np.int32), n)
    cols = np.tile(np.arange(n), n)
    shade = np.clip((a * len(HEAT_PALETTE)).astype(int), 0, len(HEAT_PALETTE) - 1)
    values = a.tolist()
    grid_x, grid_y, side = heat_grid(n)
    return {
        "x": [grid_x[j] for j in cols],
        "y": [grid_y[i] for i in rows],
        "lado": [side] * len(values),
        "atendido": [labels[j] for j in cols],
        "consulta": [labels[i] for i in rows],
        "peso": a,
        "fila": rows,
        "color": HEAT_PALETTE[shade].tolist(),
        "texto": [f"{number(v, lang=lang)} ({percent(v, lang=lang)})" for v in values],
        "valor": [number(v, lang=lang) if v >= threshold else "" for v in values],
        "valor_color": HEAT_INK[shade].tolist(),
    }


# --- what is on screen: one pure function of the model -------------------------------------

DEMO = "multihead"
# Sources of a hidden head: always these very objects, so an unchanged hidden head is skipped.
EMPTY_ARCS: dict = {c: [] for c in ARC_COLUMNS}
EMPTY_HEAT: dict = {c: [] for c in HEAT_COLUMNS}


def head_color(head: int | None, n_heads: int) -> str:
    """Line colour of the arcs of head index ``head`` (0-based; ``None``: the sum)."""
    if head is None:
        return COMBINED_COLOR
    if n_heads == 1:
        return SINGLE_HEAD_COLOR
    return HEAD_COLORS[head % len(HEAD_COLORS)]


def head_shown(styles) -> bool:
    """Whether a head panel with these ``styles`` (``render``'s ``panel_<k>``) is on screen."""
    return dict(styles).get("display") != "none"


def state_key(sentence: str, n_heads: int) -> str:
    """Key of one discrete state in the export's table; multihead.js builds the same string."""
    return f"sentence={sentence}|n_heads={int(n_heads)}"


def title_html(k: int, name: str, description: str, color: str, lang: str = DEFAULT_LANG) -> str:
    """Title and description of head index ``k`` (0-based); ``name`` and ``description`` are
    already in ``lang``."""
    title = text("multihead.head_title", lang, number=k + 1, name=name)
    return (
        f'<div data-testid="head-{k + 1}-title">'
        f'<div class="mh-title"><span class="mh-swatch" style="background:{color}">'
        f"</span>{esc(title)}</div>"
        f'<p class="mh-desc">{esc(description)}</p></div>'
    )


def dims_html(d_model: int, n_heads: int, d_k: int, lang: str = DEFAULT_LANG) -> str:
    line = text("multihead.dims", lang, d_model=d_model, h=n_heads, d_k=d_k)
    return f'<div class="mh-dims" data-testid="head-dims">{esc(line)}</div>'


def kept_example_html(lang: str) -> str:
    """On a page in another language than the sentences': why they stay in Spanish, and each
    sentence (marked ``lang="es"``) with its gloss in ``lang``."""
    glosses = "".join(
        f'<li><span lang="{SENTENCE_LANG}">{esc(sentence)}</span> — '
        f"{esc(text(f'multihead.gloss.{sid}', lang))}</li>"
        for sentence, sid in zip(SENTENCES, SENTENCE_IDS, strict=True)
    )
    marker = "\x00"  # survives esc(): the list goes where the catalogue puts {glosses}
    note = esc(text("multihead.kept_example", lang, glosses=marker))
    return (
        '<div class="c04-note mh-kept" data-testid="multihead-kept-example">'
        f"{note.replace(marker, f'<ul>{glosses}</ul>')}</div>"
    )


@functools.lru_cache(maxsize=16)
def _sentence_parts(tokens: tuple[str, ...]) -> tuple[dict, float, tuple[str, ...], dict]:
    """Token source data, end of the arcs' x range, hover labels and matrix label source data of
    one sentence (cached: the same objects come back for the same sentence, so a change of h
    does not resend them)."""
    n = len(tokens)
    data = {
        "x": np.arange(n, dtype=float),
        "y": np.zeros(n),
        "anchor_y": np.full(n, BASE_Y),
        "token": list(tokens),
    }
    return (
        plain_columns(data),
        float(max(n, 1) - 0.4),
        tuple(unique_labels(tokens)),
        heat_labels(tokens),
    )


def plain_columns(data: dict) -> dict:
    """The columns of a source as plain lists (an array per arc in ``xs``/``ys``: a list each).

    Bokeh sends every numpy array to the browser as a binary buffer of its own, one websocket
    frame each: a render held 324 of them (mostly the small polylines), and the served page
    received its patch over ~150 ms of frames before it could apply it. Plain lists travel
    inside the patch's JSON. Same numbers: ``tolist()`` gives the same doubles.
    """
    out = {}
    for column, values in data.items():
        if isinstance(values, np.ndarray):
            out[column] = values.tolist()
        elif isinstance(values, list) and any(isinstance(v, np.ndarray) for v in values):
            out[column] = [v.tolist() if isinstance(v, np.ndarray) else v for v in values]
        else:
            out[column] = values
    return out


@functools.lru_cache(maxsize=128)
def _render(sentence: str, n_heads: int, threshold: float, lang: str) -> dict[str, object]:
    m = MultiHeadDemo(sentence=sentence, n_heads=n_heads, arc_threshold=threshold)
    tokens, h = m.tokens, m.n_heads
    names, descriptions = m.names(lang), m.descriptions(lang)
    weights, combined = m.weights, m.combined
    token_data, arc_x_end, labels, label_data = _sentence_parts(tuple(tokens))
    labels = list(labels)
    out: dict[str, object] = {
        "tokens": token_data,
        "arc_x_end": arc_x_end,
        "heat_labels": label_data,
        "arc_color_1": head_color(0, h),
    }
    for k in range(MAX_HEADS):
        shown = k < h
        out[f"panel_{k + 1}"] = PANEL_STYLES if shown else HIDDEN_PANEL_STYLES
        if shown:
            color = head_color(k, h)
            out[f"title_{k + 1}"] = title_html(k, names[k], descriptions[k], color, lang)
            out[f"top_{k + 1}"] = top_html(tokens, weights[k], f"head-{k + 1}-top", lang)
            out[f"arcs_{k + 1}"] = plain_columns(arc_data(tokens, m.arcs(k), lang))
            out[f"heat_{k + 1}"] = plain_columns(heat_data(labels, weights[k], threshold, lang))
            out[f"table_{k + 1}"] = weights_table(tokens, weights[k], f"head-{k + 1}-table", lang)
        else:
            out[f"title_{k + 1}"] = ""
            out[f"top_{k + 1}"] = ""
            out[f"arcs_{k + 1}"] = EMPTY_ARCS
            out[f"heat_{k + 1}"] = EMPTY_HEAT
            out[f"table_{k + 1}"] = {}
    out["arcs_suma"] = plain_columns(arc_data(tokens, arcs_from(combined, threshold), lang))
    out["heat_suma"] = plain_columns(heat_data(labels, combined, threshold, lang))
    out["combined_top"] = top_html(tokens, combined, "combined-top", lang)
    out["table_suma"] = weights_table(tokens, combined, "combined-table", lang)
    out["dims"] = dims_html(m.d_model, h, m.d_k, lang)
    out["announce"] = announce(tokens, combined, h, m.d_k, lang)
    return out


def render(model: MultiHeadDemo, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """Everything the view shows that depends on the model, by target name, in ``lang``.

    HTML panes (raw HTML): ``title_<k>``, ``top_<k>`` (k = 1 … 4; "" for a hidden head),
    ``combined_top``, ``dims``. Sources (column -> plain list, see ``plain_columns``;
    ``xs``/``ys`` hold one list per arc): ``tokens``, ``arcs_<k>``, ``heat_<k>``,
    ``arcs_suma``, ``heat_suma``.
    Properties: ``panel_<k>`` (the styles of head k's panel: ``display: none`` when hidden,
    ``head_shown(styles)`` tells), ``arc_x_end`` (end of the arc
    diagrams' x range), ``heat_labels`` (a source: the matrices' token labels),
    ``arc_color_1`` (line colour of head 1's arcs: grey when one head carries everything).

    A pure function of (sentence, n_heads, arc_threshold, lang), cached: treat the values as
    read-only.
    """
    return dict(_render(model.sentence, model.n_heads, float(model.arc_threshold), lang))


def jsonable(value):
    """``value`` with every numpy array/scalar turned into plain lists/numbers (for JSON)."""
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def all_states(threshold: float = 0.1, lang: str = DEFAULT_LANG) -> dict[str, dict[str, object]]:
    """Python ``render`` of every discrete state (sentence × n_heads) in ``lang``, JSON-ready,
    by key."""
    return {
        state_key(sentence, h): jsonable(
            render(MultiHeadDemo(sentence=sentence, n_heads=h, arc_threshold=threshold), lang)
        )
        for sentence in SENTENCES
        for h in HEAD_OPTIONS
    }


# Target names that are sources, and how each is packed in the export's table.
_ARC_TARGETS = (*(f"arcs_{k + 1}" for k in range(MAX_HEADS)), "arcs_suma")
_HEAT_TARGETS = (*(f"heat_{k + 1}" for k in range(MAX_HEADS)), "heat_suma")


def client_table(threshold: float = 0.1, lang: str = DEFAULT_LANG) -> dict[str, dict]:
    """The table multihead.js looks states up in: ``{state_key: packed render, "_shared": …}``,
    every text in ``lang`` (the page's language).

    The full ``render`` of the 16 states is about 1.9 MB of JSON, mostly repeated numbers: every
    arc's polyline (a function of (i, j) only), and columns that are other columns in another
    form. The table keeps each number once and multihead.js unpacks it without formatting or
    trigonometry: copies, lookups by cell, the comparisons of ``heat_data``, ``ARC_WIDTH · α``
    and ``arc_geometry``'s few additions and products on the embedded cos/sin tables, in the
    same order, so every double comes out the same and the result is exactly ``render`` (the
    twin test checks every state for equality; about 0.2 MB instead of 1.9). Packed per state:

    - ``tokens``: the words (x = 0 … n − 1, y = 0, anchor_y = BASE_Y);
    - ``heat_labels`` as is, and ``heat_side`` = the side of a cell (``heat_grid``);
    - ``heat_<k>``: ``[peso, texto]`` (``valor`` = the number before " (" when α ≥ threshold,
      ``color`` from the palette, the hover labels from the row/column of the cell and
      ``unique_labels``, ``x``/``y`` the column/row centres of ``heat_labels``), ``None`` when
      the head is hidden (all columns empty);
    - ``arcs_<k>``: ``[fila, col]`` (α from the same head's matrix; ``relacion`` from the tokens
      and the cell's ``valor``; ``xs``/``ys`` by ``arc_geometry(i, j)``), ``None`` for a
      hidden head;
    - everything else (HTML, visibility, colours, ``arc_x_end``) as is.
    """
    table: dict[str, dict] = {}
    for sentence in SENTENCES:
        for h in HEAD_OPTIONS:
            model = MultiHeadDemo(sentence=sentence, n_heads=h, arc_threshold=threshold)
            values = render(model, lang)
            packed: dict[str, object] = {}
            for name, value in values.items():
                if name == "tokens":
                    packed[name] = list(value["token"])
                elif name in _HEAT_TARGETS:
                    packed[name] = None if value is EMPTY_HEAT else [value["peso"], value["texto"]]
                elif name in _ARC_TARGETS:
                    if value is EMPTY_ARCS:
                        packed[name] = None
                        continue
                    packed[name] = [value["fila"], value["col"]]
                else:
                    packed[name] = value
            packed["heat_side"] = heat_grid(len(model.tokens))[2]
            table[state_key(sentence, h)] = jsonable(packed)
    table["_shared"] = jsonable(
        {
            **_TRIG,
            "loop_radius": LOOP_RADIUS,
            "arc_height": ARC_HEIGHT,
            "arc_rightward": ARC_RIGHTWARD,
            "arrow": ARROW,
            "palette": HEAT_PALETTE,
            "palette_ink": HEAT_INK,
            "arc_width": ARC_WIDTH,
            "base_y": BASE_Y,
            "threshold": threshold,
            "arc_columns": ARC_COLUMNS,
            "heat_columns": HEAT_COLUMNS,
        }
    )
    return table


def _changed(old, new) -> bool:
    if old is new:
        return False
    if isinstance(new, dict):  # sources: the cached render gives back the same object
        return True
    return old != new


class MultiHeadView(DemoView):
    """Sentence and number-of-heads controls, one arc diagram + matrix per head, their sum.

    Panels for the maximum number of heads are built once; ``n_heads`` only shows or hides them
    (``display: none`` in their styles). Every plot is a plain Bokeh figure built once; one model
    watcher (``sentence``, ``n_heads``, ``arc_threshold``) puts ``render(model)`` on screen with
    ``apply_render`` (one ``pn.io.hold()``), passing only the targets whose value changed: the
    sources' ``data`` (the matrix labels included), the arcs' shared x range, the panels'
    styles, head 1's line colour and the HTML panes (titles, top lists, dimensions line).
    Hidden heads keep empty sources.
    ``client_targets()`` names them; ``enable_client_side()`` wires the export.

    data-testids (k = 1 … 4 is the head number shown on screen):

    - ``head-<k>-title``: "Cabeza k · <name>" and the head's description (``multihead.*``).
    - ``head-<k>-top``: a ``ul``; each ``li`` (``data-row="i"``) reads "mordió → perro 97 %",
      the most attended token j of row i of ``weights[k − 1]`` and its weight.
    - ``combined-top``: the same list for ``combined``.
    - ``head-dims``: "d_model = 24, h = 4 → cada cabeza de dimensión 6".
    - ``multihead-caveat``: the "patrones ilustrativos" note.
    - ``multihead-kept-example`` (pages in another language than the sentences' only): why the
      example stays in Spanish and a gloss of each sentence. There the sentence selector sits
      in an element marked ``lang="es"`` with its label outside it, and the tokens of the lists
      are marked ``<span lang="es">``.

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

        kept = self.lang != SENTENCE_LANG  # the sentences stay Spanish: marked, glossed
        sentence_label = self.t("multihead.sentence_label")
        self.sentence_select = pn.widgets.Select.from_param(
            m.param.sentence,
            # When kept, the label shown goes outside the lang="es" element (sentence_control);
            # its own stays, hidden, as the select's name.
            label=sentence_label,
            stylesheets=[HIDDEN_LABEL_CSS] if kept else [],
            description=self.t("multihead.sentence_doc"),
            width=460,
            margin=(6, 20, 6, 10),
        )
        self.heads_buttons = pn.widgets.RadioButtonGroup.from_param(
            m.param.n_heads,
            name=self.t("multihead.heads_label"),
            description=self.t("multihead.n_heads_doc"),
            color="primary",
            variant="outline",
            width=200,
            margin=(0, 10, 6, 10),
        )
        label_styles = [":host { font-size: 90%; }"]
        heads_control = pn.Column(
            LiveHTML(
                self.t("multihead.heads_label"), margin=(6, 10, 0, 10), stylesheets=label_styles
            ),
            self.heads_buttons,
            margin=0,
            css_classes=["mh-heads-control"],
        )
        sentence_control = self.sentence_select
        self.kept_example = None
        if kept:
            sentence_control = pn.Column(
                LiveHTML(esc(sentence_label), margin=(6, 10, 0, 10), stylesheets=label_styles),
                LangColumn(self.sentence_select, html_attributes={"lang": SENTENCE_LANG}, margin=0),
                margin=0,
            )
            self.kept_example = LiveHTML(
                kept_example_html(self.lang),
                sizing_mode="stretch_width",
                stylesheets=[KEPT_CSS],
                margin=(0, 10, 6, 10),
            )

        # Shared by all panels: every diagram shows the same tokens on the same axes.
        self.token_source = ColumnDataSource(
            {"x": [], "y": [], "anchor_y": [], "token": []}, name="multihead-tokens"
        )
        self.arc_x_range = Range1d(-0.6, 0.6)
        self.heat_label_source = ColumnDataSource(
            {c: [] for c in HEAT_LABEL_COLUMNS}, name="multihead-heat-labels"
        )

        self.arc_sources: list[ColumnDataSource] = []
        self.heat_sources: list[ColumnDataSource] = []
        self.arc_figures: list[figure] = []
        self.heat_figures: list[figure] = []
        self._arc_lines = []  # MultiLine renderers, to recolour head 1 when h = 1
        self.head_titles: list[pn.pane.HTML] = []
        self.head_tops: list[pn.pane.HTML] = []
        self.head_panels: list[pn.Column] = []
        # Each matrix's numbers, for a screen reader (the canvas draws only those ≥ threshold).
        self.head_tables = [Markup(kind="matrix", margin=0) for _ in range(MAX_HEADS)]
        for k in range(MAX_HEADS):
            arc_fig, heat_fig = self._figures(k)
            title = LiveHTML("", sizing_mode="stretch_width", stylesheets=[CSS], margin=(4, 10))
            top = LiveHTML("", sizing_mode="stretch_width", stylesheets=[CSS], margin=(0, 10))
            panel = pn.Column(
                title,
                pn.Row(
                    self._plot_pane(arc_fig, f"mh-arcs-{k + 1}"),
                    self._plot_pane(heat_fig, f"mh-heat-{k + 1}"),
                ),
                top,
                self.head_tables[k],
                sizing_mode="stretch_width",
                styles=PANEL_STYLES,
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
        self.combined_top = LiveHTML(
            "", sizing_mode="stretch_width", stylesheets=[CSS], margin=(0, 10)
        )
        self.dims = LiveHTML("", stylesheets=[CSS], margin=(0, 0, 8, 0))
        self.combined_table = Markup(kind="matrix", margin=0)
        self.announcer = announcer()

        self._targets = self.client_targets()
        self._shown: dict[str, object] = {}
        self._refresh()
        m.param.watch(self._on_change, ["sentence", "n_heads", "arc_threshold"])

        caveat = self.t("multihead.caveat")
        self._layout = pn.Column(
            section_header(self.t("demo.cabezas"), self.t("multihead.intro"), anchor="cabezas"),
            LiveHTML(
                f'<div class="c04-note" data-testid="multihead-caveat"><em>{caveat}</em></div>',
                sizing_mode="stretch_width",
                margin=(0, 10, 6, 10),
            ),
            pn.Row(sentence_control, heads_control),
            *([self.kept_example] if self.kept_example is not None else []),
            math_md(self.t("multihead.how_to_read")),
            *self.head_panels,
            pn.Column(
                math_md(
                    f"### {self.t('multihead.combined_title')}\n\n"
                    f"{self.t('multihead.combined_note')}"
                ),
                pn.Row(
                    self._plot_pane(self.combined_arc_figure, "mh-arcs-suma"),
                    self._plot_pane(self.combined_heat_figure, "mh-heat-suma"),
                ),
                self.combined_top,
                self.combined_table,
                sizing_mode="stretch_width",
                styles=PANEL_STYLES,
                margin=(6, 0),
            ),
            pn.Column(
                math_md(self.t("multihead.why_heads")),
                self.dims,
                styles=BOX_STYLES,
                sizing_mode="stretch_width",
            ),
            self.announcer,
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
            html_attributes=plot_alternative(self, "multihead_arcs"),
        )
        arc_fig.axis.visible = False
        arc_fig.grid.visible = False
        lines = arc_fig.multi_line(
            xs=field("xs"),
            ys=field("ys"),
            source=arcs,
            line_color=head_color(head, self.model.n_heads),
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
        width, height = HEAT_FRAME
        heat_fig = figure(
            frame_width=width,
            frame_height=height,
            min_border=5,
            x_range=Range1d(0, width),
            y_range=Range1d(0, height),
            tools="",
            toolbar_location=None,
            outline_line_color=None,
            name=f"{self.heat_name(head)}-figure",
            html_attributes=plot_alternative(self, "multihead_heat"),
        )
        heat_fig.axis.visible = False
        heat_fig.grid.visible = False
        heat_fig.text(
            x="x",
            y="y",
            text=field("text"),
            angle=field("angle"),
            source=self.heat_label_source,
            text_font_size="11px",
            text_align="right",
            text_baseline="middle",
            text_color="#444444",
        )
        # The axis titles never move: fixed data, set once.
        left, right, top, bottom = HEAT_MARGIN
        heat_fig.text(
            x=[left + (width - left - right) / 2, 4.0],
            y=[4.0, height - top - (height - top - bottom) / 2],
            text=[self.t(key) for key in HEAT_TITLE_KEYS],
            angle=[0.0, math.pi / 2],
            text_font_size="11px",
            text_font_style="italic",
            text_align="center",
            text_baseline=["bottom", "top"],
            text_color="#444444",
        )
        cells = heat_fig.rect(
            x=field("x"),
            y=field("y"),
            width=field("lado"),
            height=field("lado"),
            source=heat,
            fill_color=field("color"),
            line_color=None,
            hover_line_color="#111111",
        )
        heat_fig.text(
            x="x",
            y="y",
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
                tooltips=[
                    (self.t("multihead.hover_query"), "@consulta"),
                    (self.t("multihead.hover_key"), "@atendido"),
                    ("α", "@texto"),
                ],
                callback=CustomJS(args=args, code=_HIGHLIGHT_JS),
            )
        )
        heat_fig.js_on_event("mouseleave", CustomJS(args=args, code=_HIGHLIGHT_JS))

        lean_renderers(arc_fig)
        lean_renderers(heat_fig)
        self.arc_sources.append(arcs)
        self.heat_sources.append(heat)
        self.arc_figures.append(arc_fig)
        self.heat_figures.append(heat_fig)
        self._arc_lines.append(lines)
        return arc_fig, heat_fig

    # --- updates -------------------------------------------------------------------------

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (pane / source / Bokeh model, kind), the names of ``render``."""
        targets: dict[str, tuple[object, str]] = {
            "tokens": (self.token_source, "data"),
            "arc_x_end": (self.arc_x_range, "prop:end"),
            "heat_labels": (self.heat_label_source, "data"),
            "arc_color_1": (self._arc_lines[0].glyph, "prop:line_color"),
        }
        for k in range(MAX_HEADS):
            targets[f"panel_{k + 1}"] = (self.head_panels[k], "prop:styles")
            targets[f"title_{k + 1}"] = (self.head_titles[k], "html")
            targets[f"top_{k + 1}"] = (self.head_tops[k], "html")
            targets[f"arcs_{k + 1}"] = (self.arc_sources[k], "data")
            targets[f"heat_{k + 1}"] = (self.heat_sources[k], "data")
            targets[f"table_{k + 1}"] = (self.head_tables[k], "markup")
        targets["arcs_suma"] = (self.combined_arc_source, "data")
        targets["heat_suma"] = (self.combined_heat_source, "data")
        targets["combined_top"] = (self.combined_top, "html")
        targets["table_suma"] = (self.combined_table, "markup")
        targets["dims"] = (self.dims, "html")
        targets["announce"] = (self.announcer, "markup")
        return targets

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing.py)."""
        return {"sentence": self.sentence_select, "n_heads": self.heads_buttons}

    def _on_change(self, *events) -> None:
        self._refresh()

    def _refresh(self) -> None:
        values = render(self.model, self.lang)
        # Only what changed since the last update: same picture, fewer Bokeh events.
        changed = {
            name: value
            for name, value in values.items()
            if name not in self._shown or _changed(self._shown[name], value)
        }
        apply_render(self._targets, changed)
        self._shown = values

    # --- static export -------------------------------------------------------------------

    def enable_client_side(self, states: dict | None = None) -> int:
        """Make the controls work without a server (export only; the live app never calls it).

        Fills ``states["multihead"]`` with the Python ``render`` of every sentence × n_heads in
        the view's language (key: ``state_key``; packed, see ``client_table``) and attaches to
        both controls a ``jscallback`` that looks the state up and puts it on screen
        (``C04.update("multihead", …)``, dashboards/static/multihead.js). The hover on the
        matrices is already client-side. Returns the number of states.
        """
        table = client_table(self.model.arc_threshold, self.lang)
        if states is not None:
            states[DEMO] = table
        kinds = {name: kind for name, (_, kind) in self._targets.items()}
        args = {name: obj for name, (obj, _) in self._targets.items()}
        args["w_sentence"] = self.sentence_select
        args["w_heads"] = self.heads_buttons
        code = (
            f'C04.update("{DEMO}", {{{", ".join(args)}}}, '
            f"{json.dumps(kinds, separators=(',', ':'))});"
        )
        self.sentence_select.jscallback(value=code, args=args)
        self.heads_buttons.jscallback(value=code, args=args)
        return len(table) - 1  # the "_shared" entry is not a state

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):
    serve_demo("cabezas")
