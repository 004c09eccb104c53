"""The lecture's changing HTML: the specs ``C04.markup`` (dashboards/static/markup.js) draws and
the :class:`Markup` component that carries them; Markdown with formulas (MathML); escaping.

The demos' drawings build their specs in the page (``C04.rich``, ``C04.spec``).
"""

from __future__ import annotations

import functools
import html
import json
import math
import operator
from typing import ClassVar

import panel as pn
import param
from markdown_it import MarkdownIt

from dashboards.components import mathml
from dashboards.components.bundle import Component

# Panel's own Markdown parser (markdown-it-py, a dependency of Panel), as its pane is set up.
_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable("table")


def esc(text) -> str:
    """HTML-escape anything a user may have typed (tokens, sentences, cell text)."""
    return html.escape(str(text), quote=True)


def math_md(text: str, **params) -> pn.pane.Markdown:
    """Markdown with formulas: write them as $$...$$, the server writes each as MathML
    (``mathml.with_math``; one alone on its line is a block)."""
    params.setdefault("sizing_mode", "stretch_width")
    return pn.pane.Markdown(mathml.with_math(text), **params)


@functools.lru_cache(maxsize=1024)
def md_html(text: str) -> str:
    """Markdown with formulas as HTML made on the server (CommonMark, raw HTML kept; formulas
    MathML): what a component of ours shows as is, e.g. a figure's :attr:`Markup.caption`."""
    return _MARKDOWN.render(mathml.with_math(text)).strip()


def section_markdown(title: str, intro: str = "", anchor: str | None = None) -> str:
    """The demo's title and its introduction, as Markdown (a pane's, or a Board's prose)."""
    anchor_html = f'<a id="{esc(anchor)}"></a>' if anchor else ""
    return f"{anchor_html}\n\n## {title}\n\n{intro}" if intro else f"{anchor_html}\n\n## {title}"


def section_header(title: str, intro: str = "", anchor: str | None = None) -> pn.pane.Markdown:
    """The demo's title and its introduction (prose: folded in projector mode)."""
    return math_md(section_markdown(title, intro, anchor), css_classes=["c04-prose"])


# The renderers of C04.markup (markup.js), one per kind of fragment.
KINDS = (
    "matrix",
    "bars",
    "readout",
    "readouts",
    "note",
    "heatmap",
    "focus_row",
    "tokens",
    "head_plot",
    "lines",
    "raster",
    "announce",
)


class Markup(Component):
    """HTML drawn in the browser by ``C04.markup[kind](spec)`` (dashboards/static/markup.js).

    The one renderer of the lecture's changing markup: a live view sets ``spec`` (text in its
    language and numbers, see each kind in markup.js), the export's page code sets the same
    spec. ``kind`` is fixed at creation.
    """

    kind = param.Selector(
        default="matrix",
        objects=list(KINDS),
        constant=True,
        doc="Which renderer of C04.markup draws the spec.",
    )
    spec = param.Dict(default={}, doc="The fragment's text and numbers (JSON).")
    spec_json = param.String(
        default="", doc='``spec`` as JSON text ("" for none): what the browser receives.'
    )
    caption = param.String(
        default="",
        doc="HTML above the drawing, made by the server (its formulas MathML): the figure's "
        "title, in the same component instead of a pane and a column of its own.",
    )
    footnote = param.String(default="", doc="HTML under the drawing, as ``caption``.")

    # The browser gets the spec as one JSON text: Bokeh encodes a string in one step but a
    # nested value item by item, and with the dict a capital update took 32 ms on the server
    # (make bench, "cambio → modelos Bokeh") instead of 13.
    _rename: ClassVar[dict] = {"spec": None}

    @param.depends("spec", watch=True, on_init=True)
    def _encode_spec(self) -> None:
        self.spec_json = spec_json(self.spec)


class Raster(Markup):
    """A matrix of numbers as coloured cells, drawn on a canvas by ``C04.markup.raster``
    (markup.js): ``spec`` holds its texts and colour scale (set once), ``values`` the matrix.

    ``values`` is a float32 numpy array: Panel declares a ``param.Array`` to Bokeh as
    ``Array(Any)``, and Bokeh sends an ndarray as a binary buffer (a websocket frame of its
    own, base64 in the export's document), not as numbers in JSON: a 512 × 512 encoding is
    1 MB, not ~5 MB of text. The browser gets a typed array with its shape. In the export the
    page computes it and sets the same (``C04.apply``, kind "esm:values").
    """

    kind = param.Selector(default="raster", objects=["raster"], constant=True)
    values = param.Array(default=None, doc="The matrix, rows top to bottom (2-D float32).")


def _finite(value):
    # JSON has no NaN or infinity: JavaScript's JSON.stringify writes them as null, and so here.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


class SharedSpec(dict):
    """A spec of a shared render (:func:`shared_render`): the same object on every session
    showing that state, never changed, so its JSON is computed once (``spec_json``). Measured
    (py-spy, 150 followers of a d_k change): the JSON of each Markup's spec was 2.8 % of a
    follower's update, then 0."""

    __slots__ = ("json",)


# param compares a new value with the old one before it tells the watchers; for a dict it walks
# both in Python (Comparator, 6.4 % of a follower's update, then 3.0 % with this). A spec is
# plain JSON data, so dict equality says the same. Registered through param's own mechanism.
param.parameterized.Comparator.equalities[SharedSpec] = operator.eq


def spec_json(spec: dict) -> str:
    """A Markup spec as the browser receives it (C04.apply writes the same): "" for none."""
    if not spec:
        return ""
    if isinstance(spec, SharedSpec):
        try:
            return spec.json
        except AttributeError:
            spec.json = _spec_json(spec)
            return spec.json
    return _spec_json(spec)


def _spec_json(spec: dict) -> str:
    try:
        return json.dumps(spec, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError:  # a NaN or an infinity somewhere: rare, so only then walk the spec
        return json.dumps(_finite(spec), ensure_ascii=False, separators=(",", ":"))
