"""Building blocks shared by the demo views: Spanish numbers, matrices, readouts, editors.

Everything that holds state is built inside a function or a Viewer instance (one per browser
session); nothing stateful lives at module level.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import html
import json
import logging
import math
import operator
import threading
from typing import ClassVar

import numpy as np
import panel as pn
import param
from bokeh.models import GlyphRenderer
from bokeh.settings import settings as bokeh_settings
from panel.io.resources import BASE_TEMPLATE, LOCAL_DIST
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

from attnmodel import i18n
from attnmodel.formatting import (
    MAX_NUMBER_CHARS,
    es_number,
    es_percent,
    number,
    parse_es_number,
    percent,
)
from attnmodel.i18n import DEFAULT_LANG
from dashboards import classroom, clients

# Under the "dashboards" logger, which configure() sends to stderr beside the server's lines.
log = logging.getLogger("dashboards.common")

__all__ = [
    "CSS",
    "HEAD_PLOT_CSS",
    "DemoView",
    "LangColumn",
    "LiveHTML",
    "Markup",
    "MatrixEditor",
    "apply_render",
    "configure",
    "es_number",
    "es_percent",
    "esc",
    "language_links",
    "lean_renderers",
    "math_md",
    "matrix_spec",
    "readout_spec",
    "respond_immediately",
    "rich",
    "section_header",
    "serve_demo",
]

ACCENT = "#1f5fa8"

# The colours that tell categories apart (heads, curves, words): Okabe & Ito's blue, vermillion
# and bluish green, and Tol's wine. Under protanopia, deuteranopia and tritanopia every pair
# stays at least 12 CIEDE2000 units apart (tests/dashboards/test_colours.py simulates each),
# and each has 3:1 or more against white, as WCAG asks of a line or a mark.
CATEGORY_COLORS = ("#0072b2", "#d55e00", "#009e73", "#882255")


def luminance(color: str) -> float:
    """WCAG's relative luminance of a ``#rrggbb`` colour."""
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


# A drawing of C04.markup.head_plot (a head of "Varias cabezas", the heat map of A): the arcs
# and the matrix side by side, the matrix under the arcs when the page is narrower than both;
# each scales down to the page's width. Its tooltip sits beside the pointer.
HEAD_PLOT_CSS = """
.c04-head { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 4px 12px;
  position: relative; }
.c04-head-arcs, .c04-head-matrix { max-width: 100%; height: auto; }
.c04-head-matrix rect.c04-head-cell:hover { stroke: #111; stroke-width: 1.5; }
.c04-head text { font-family: inherit; }
.c04-head-title { flex: 0 0 100%; font-weight: 600; margin: 0 0 2px; }
.c04-tip { position: absolute; z-index: 2; pointer-events: none; white-space: nowrap;
  padding: 3px 7px; border: 1px solid #c9d0da; border-radius: 3px; background: #fff;
  box-shadow: 0 1px 4px rgba(0, 0, 0, 0.15); font-size: 85%; line-height: 1.35; }
"""


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


CSS = """
:host { --accent: #1f5fa8; --code-text-color: #174a87 !important; }
.c04-matrix { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 2px 0; }
.c04-matrix caption { caption-side: top; text-align: left; font-weight: 600; padding: 2px 0 4px; }
.c04-matrix th { font-weight: 500; color: var(--c04-muted, #555); padding: 2px 8px;
  text-align: center; font-size: var(--c04-label-size, inherit); }
.c04-matrix td { padding: 3px 10px; text-align: right; border: 1px solid #d6dbe3;
  min-width: 3.5em; font-size: var(--c04-cell-size, inherit); }
.c04-matrix td.c04-masked { color: #555; background: #f3f3f3; }
.c04-matrix td.c04-sum { border: none; color: #2a7a2a; font-size: 90%; text-align: left; }
.c04-numbers > summary { cursor: pointer; color: #174a87; font-size: 90%; padding: 12px 0; }
.c04-readout { display: inline-block; min-width: 11em; padding: 8px 14px; margin: 4px 8px 4px 0;
  border-left: 4px solid #1f5fa8; background: #f5f8fc; }
.c04-readout .c04-label { font-size: var(--c04-label-size, 85%); color: var(--c04-muted, #444); }
.c04-readout .c04-value { font-size: var(--c04-value-size, 170%); font-weight: 600;
  font-variant-numeric: tabular-nums; }
.c04-readout .c04-unit { font-size: 85%; color: var(--c04-muted, #666); }
.c04-error { color: #a40000; font-size: 90%; min-height: 1.2em; }
.c04-note { color: var(--c04-note-color, #555); font-size: 92%; }
/* The number before a toggle or a choice, beside the new one (markup.js, compare). */
.c04-before::before { content: attr(data-before) " → "; opacity: 0.55; font-size: 85%;
  font-weight: 400; }
/* Projector mode (dashboards/static/present.js sets the custom properties): the paragraphs of
   prose panes fold away, their headings and formulas stay. */
:host(.c04-prose) p:not(:has(mjx-container)) { display: var(--c04-prose-p, block); }
/* Projector mode (present.js sets --c04-projector and lifts the page's 1400 px): a card is as
   wide as its widest row of tables (its 28 px numbers overflowed the fixed width into the next
   card) and a row of fixed-size items wraps instead of running off the screen (stretched items
   have a flex basis of 0 and never wrap); a card's own rows keep their tables side by side. */
:host(.bk-panel-models-layout-Card) { --c04-in-card: 1; }
@container style(--c04-projector: 1) {
  :host(.bk-panel-models-layout-Card) { width: min-content !important; flex: 0 0 auto !important; }
  :host(.bk-Row) { flex-wrap: wrap !important; }
}
@container style(--c04-in-card: 1) { :host(.bk-Row) { flex-wrap: nowrap !important; } }
@media (prefers-reduced-motion: reduce) {
  /* Nothing moves by itself for a student who asked the system for less motion. */
  *, *::before, *::after, :host { animation: none !important; transition: none !important;
    scroll-behavior: auto !important; }
}
@media (max-width: 700px) {
  /* A phone: nothing wider than the screen. Every Panel/Bokeh element gets this sheet in its
     own shadow root, so :host is each one: a row becomes a column (the lecture's navigation
     goes above the section) whose items keep their own height (a row's stretch is a flex basis
     of 0, which a column would read as no height); an element that holds no others (a widget,
     a pane, a plot) is at most as wide as its box less its margins, and what cannot shrink (a
     table, a plot, a long formula) scrolls inside its own box. */
  :host { max-width: 100% !important; min-width: 0 !important; flex: 0 0 auto !important; }
  :host(.bk-Row) { flex-direction: column !important; }
  /* That column (and a card's title row) takes its container's width: shrink-wrapped, its
     width came from its items, whose "100% - 20px" then cut 20 px off them (a table's last
     column, a title wrapped word by word). */
  :host(.bk-Row) { width: auto !important; align-self: stretch !important; }
  :host(.card-header-row) { flex: 1 1 0 !important; }
  /* An HTML pane's text wraps at the pane's width, not at the fixed width of a desktop. */
  :host(.bk-panel-models-markup-HTML) > div { width: auto !important; min-width: 0 !important; }
  :host(:not(.bk-Row):not(.bk-Column):not(.bk-GridBox):not([class*="-layout-"])) {
    max-width: calc(100% - 20px) !important; }
  :host(.bk-panel-models-esm-ReactiveESM), :host(.bk-panel-models-markup-HTML) {
    overflow-x: auto !important; }
  /* Every control a finger can hit: 44 px at least (a slider's handle through its touch
     area, a checkbox through its whole line: a11y.js makes its text toggle it too). */
  .bk-btn, input.bk-input, select.bk-input, .c04-cell input { min-height: 44px; }
  .bk-btn-group > .bk-btn { min-width: 44px; }
  .noUi-touch-area { position: absolute !important; width: auto !important; height: auto !important;
    left: -16px !important; right: -16px !important; top: -14px !important;
    bottom: -14px !important; }
  /* A number input's arrows (22 px high): a phone types the number on its own keypad. */
  [class*="bk-spin-btn"] { display: none !important; }
  /* That touch area reaches past a handle at the end of its track (the training's step
     starts at its last stop): the track keeps 12 px inside the slider's box. */
  :host(.bk-Slider) { box-sizing: border-box !important; padding: 0 12px !important; }
  :host(.bk-Checkbox) { min-height: 44px; display: flex !important; align-items: center; }
  :host(.bk-Checkbox) input, :host(.bk-Checkbox) .bk-label { cursor: pointer; }
  /* A Bokeh plot does not get this sheet: its container's copy styles it. */
  .bk-Figure, .bk-GridPlot { max-width: calc(100% - 20px) !important; overflow-x: auto !important; }
}
"""


def configure() -> None:
    """Load the Panel extensions the lecture needs (idempotent).

    Also sends the views' log (a rejected input is one INFO line) to stderr next to the
    server's own log lines.
    """
    logger = logging.getLogger("dashboards")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    pn.extension("mathjax", raw_css=[CSS], design="native", notifications=False)
    pn.config.session_key_func = session_key
    _local_stylesheets()
    _markup_script()
    quiet_closed_websockets()
    clients.install_log_filters()
    classroom.install_redaction()
    _design_params_only_for_stylesheets()
    # Bokeh's public setting: no callback signature checks (inspect.signature on each of the
    # ~3 on_change per model that Panel registers) and no spelling suggestions on a missing
    # attribute. Measured (cProfile, the first section's models): 9 % of a session's build.
    bokeh_settings.perform_error_diagnostics.set_value(False)
    _stable_bokeh_defaults_once()
    _lazy_serializer_references()
    _edit_only_readonly_params()
    _esm_properties_per_class()
    _synced_params_once()
    _lazy_pane_layout()
    _markdown_html_cache()
    _design_modifiers_per_class()
    _bokeh_overridden_defaults_per_class()
    _bokeh_unstable_defaults_per_class()


def _design_params_only_for_stylesheets() -> None:
    """Private Panel API, panel 1.9.4's ``Reactive._update_properties``: it resolves the design's
    modifiers (stylesheets, a file stat) on every parameter change of every component, and uses
    them only when ``stylesheets`` changed. Measured (cProfile, 10 followers applying a d_k
    change in process, Bokeh models built): 0.35 ms a widget, a quarter of a follower's update.
    This keeps the original for a change of ``stylesheets``, and skips the unused work otherwise."""
    from panel.reactive import Reactive

    original = Reactive._update_properties
    if getattr(original, "c04_lean", False):
        return

    def _update_properties(self, *events, doc):
        if any(event.name == "stylesheets" for event in events):
            return original(self, *events, doc=doc)
        return self._process_param_change({event.name: event.new for event in events})

    _update_properties.c04_lean = True
    _update_properties.c04_original = original
    Reactive._update_properties = _update_properties


def _stable_bokeh_defaults_once() -> None:
    """Private Bokeh API, bokeh 3.9.2's ``PropertyDescriptor._get_default``: a property not set
    on a model is read through its default, copied and validated again on every read, and Bokeh
    reads each one when a model is built (to compare before it sets a value) and again when it
    is serialized. A stable default (not a container, model or callable; not themed) is the
    same for every instance of a class, so it is computed once per (property, class, theme).
    Measured in process (a new session: the lecture, its first section, the document's JSON;
    30 sessions, with the diagnostics setting above): p50/p95 1 134/1 273 → 783/890 ms.

    An unstable default that is an empty list, set or dict of a plain ``List``, ``Set`` or
    ``Dict`` property (the class does not override it, no theme sets it) is made here as
    Bokeh's ``prepare_value`` would make it (an empty container always validates, and
    ``transform`` leaves it as it is): each model fills ~27 of them when it is built, ~3 500 an
    open, and Bokeh's own path cost 27 ms of a 210 ms open (timed in process). Measured (the
    lecture's open in process, paired with the patch before this, 30 opens each): p50 155 →
    136 ms, mean 162 → 142 ms; the document's JSON is the same."""
    from bokeh.core.property.container import Dict, List, Set
    from bokeh.core.property.descriptors import PropertyDescriptor

    original = PropertyDescriptor._get_default
    if getattr(original, "c04_cached", False):
        return
    stable: dict[tuple, object] = {}
    empty_makers: dict[tuple, type | None] = {}

    def empty_maker(descriptor, cls) -> type | None:
        """``list``, ``set`` or ``dict`` when the default of ``descriptor`` on ``cls`` is a new
        empty one of those on a plain List, Set or Dict property; None otherwise."""
        key = (descriptor, cls)
        try:
            return empty_makers[key]
        except KeyError:
            pass
        prop = descriptor.property
        default = prop._default
        maker = None
        if (
            type(prop) in (List, Set, Dict)
            and descriptor.name not in cls._overridden_defaults()
            and type(default) in (list, set, dict)
            and not default
        ):
            maker = type(default)
        empty_makers[key] = maker
        return maker

    def _get_default(self, obj):
        # A theme's values are one dict shared by the instances it themes (Bokeh's
        # ``apply_theme``): the cache keys on it, kept alive by the entry.
        themed = obj.__dict__.get("__themed_values__")
        key = (self, type(obj), id(themed))
        try:
            entry = stable[key]
        except KeyError:
            entry = None
        if entry is not None and entry[0] is themed:
            return entry[1]
        # Bokeh's own order: the dict of the themed or of the plain unstable values, then a
        # value made anew.
        is_themed = themed is not None and self.name in themed
        unstable = obj._unstable_themed_values if is_themed else obj._unstable_default_values
        if self.name in unstable:
            return unstable[self.name]
        if self.has_unstable_default(obj):
            maker = empty_maker(self, type(obj))
            if maker is None or is_themed:
                return original(self, obj)
            value = self.property.wrap(maker())
            value._register_owner(obj, self)
            obj._unstable_default_values[self.name] = value
            return value
        value = self.instance_default(obj)
        stable[key] = (themed, value)
        return value

    _get_default.c04_cached = True
    _get_default.c04_original = original
    PropertyDescriptor._get_default = _get_default


class _LazyRefs:
    """``Serializer._references`` (id(model) -> its Ref) whose Refs of the document's synced
    models are made only when a patch refers to one of them."""

    __slots__ = ("known", "refs")

    def __init__(self, models):
        self.known = {id(m): m for m in models}
        self.refs: dict = {}

    def __contains__(self, key) -> bool:
        return key in self.refs or key in self.known

    def get(self, key, default=None):
        ref = self.refs.get(key)
        if ref is None:
            model = self.known.get(key)
            if model is None:
                return default
            ref = self.refs[key] = model.ref
        return ref

    def __setitem__(self, key, ref) -> None:
        self.refs[key] = ref


def _lazy_serializer_references() -> None:
    """Private Bokeh API, bokeh 3.9.2's ``Serializer.__init__``: every PATCH-DOC the server sends
    first makes a Ref of every model the browser already has (~250 in a section), to then use
    the two or three a change touches. Measured (py-spy, 30 sessions changing the causal mask
    once a second): 13 % of the server's time per change. The refs are made when asked."""
    from bokeh.core.serialization import Serializer

    original = Serializer.__init__
    if getattr(original, "c04_lazy", False):
        return

    def __init__(self, *, references=(), deferred=True, check_circular=False):
        original(self, references=(), deferred=deferred, check_circular=check_circular)
        if references:
            self._references = _LazyRefs(references)

    __init__.c04_lazy = True
    __init__.c04_original = original
    Serializer.__init__ = __init__


@contextlib.contextmanager
def _edit_readonly(parameterized):
    """Panel's ``edit_readonly`` for the parameters that are read-only or constant only: the
    others are left alone rather than set to False and back."""
    locked = [
        (p, p.readonly, p.constant)
        for p in parameterized.param.objects("existing").values()
        if p.readonly or p.constant
    ]
    for p, _, _ in locked:
        p.readonly = False
        p.constant = False
    try:
        yield
    finally:
        for p, readonly, constant in locked:
            p.readonly = readonly
            p.constant = constant


def _edit_only_readonly_params() -> None:
    """Private Panel API, panel 1.9.4's ``edit_readonly``: on every change from a browser Panel
    runs it four or five times (on the widget, and on its global state to count busy events),
    each time setting every parameter's ``readonly`` and ``constant`` to False and back,
    ~0.2–0.4 ms a call (timeit), ~1,3 ms of a change. This one touches only the parameters
    that are locked. Replaced in each Panel module that imported it by name."""
    import sys

    from panel.util import parameters

    original = getattr(parameters.edit_readonly, "c04_original", parameters.edit_readonly)
    for name, module in list(sys.modules.items()):
        if name.startswith("panel") and getattr(module, "edit_readonly", None) is original:
            module.edit_readonly = _edit_readonly
    _edit_readonly.c04_original = original


def _esm_properties_per_class() -> None:
    """Private Panel API, panel 1.9.4's ``ReactiveESM._get_properties`` and ``_get_children``:
    for each component built they read every parameter through ``self.param[k]`` (which makes
    the instance its own copy of each Parameter, ~23 for a Markup) and resolve the class's
    bundle and ESM again (file stats, imports). What they derive is the same for every
    instance of a class, so it is worked out once per class; the instance's own copy of a
    Parameter is read only where it has one (a changed precedence). Components with a bundle
    file, or under autoreload, keep Panel's code. Measured (in process, a Column of 20
    Markups built into a served document, the same document JSON): p50 98 → 53 ms."""
    from panel.config import config
    from panel.custom import ReactiveESM
    from panel.reactive import Reactive
    from panel.viewable import Viewable, is_viewable_param

    original_props = ReactiveESM._get_properties
    if getattr(original_props, "c04_per_class", False):
        return
    plans: dict[type, dict] = {}

    def plan_of(cls) -> dict:
        plan = plans.get(cls)
        if plan is not None:
            return plan
        declared = cls.param.objects(instance=False)
        # Panel's split, as in its _get_properties: which parameters go to the data model.
        ignored = frozenset(
            p
            for p in Reactive.param
            if not issubclass(declared[p].owner, ReactiveESM)
            or (
                p in Viewable.param
                and p not in ("name", "use_shadow_dom")
                and type(Reactive.param[p]) is type(declared[p])
            )
        )
        drop, data, children = [], [], []
        for k, p in declared.items():
            mapped = cls._property_mapping.get(k, "") is not None
            if is_viewable_param(p) or not mapped:
                drop.append(k)
                if is_viewable_param(p) and mapped:
                    children.append(k)
            elif not (k in ignored and k != "name"):
                data.append(k)
        lean = cls._bundle_path is None
        plan = plans[cls] = {
            "declared": declared,
            "ignored": ignored,
            "drop": drop,
            "data": data,
            "children": children,
            "lean": lean,
            "importmap": cls._process_importmap() if lean else None,
            "esm": {},
        }
        return plan

    def _get_properties(self, doc):
        cls = type(self)
        plan = plan_of(cls)
        if config.autoreload or getattr(self, "_debug", False) or not plan["lean"]:
            return original_props(self, doc)
        props = Reactive._get_properties(self, doc)
        own, declared = self._param__private.params, plan["declared"]
        for k in plan["drop"]:
            props.pop(k, None)
        data, events = {}, []
        for k in plan["data"]:
            if k not in props:
                continue
            p = own.get(k) or declared[k]
            if (p.precedence or 0) < 0:
                continue
            if isinstance(p, param.Event):
                events.append(k)
            data[k] = props.pop(k)
        data["esm_constants"] = self._constants
        defs = [] if cls._data_model__initialized else [cls._data_model]
        cls._data_model__initialized = True
        is_session = bool(doc and doc.session_context and doc.session_context.server_context)
        esm = plan["esm"].get(is_session)
        if esm is None:
            esm = plan["esm"][is_session] = cls._render_esm(True, server=is_session)
        props.update(
            {
                "_defs": defs,
                "bundle": None,
                "css_bundle": None,
                "class_name": cls.__name__,
                "data": self._data_model(
                    **{k: v for k, v in data.items() if k not in plan["ignored"]}
                ),
                "dev": False,
                "esm": esm,
                "events": events,
                "importmap": plan["importmap"],
                "render_policy": self._render_policy,
                "name": cls.__name__,
            }
        )
        return props

    def _get_children(self, data_model, doc, root, parent, comm):
        children, old_models = {}, []
        for k in plan_of(type(self))["children"]:
            children[k], old = self._get_child_model(getattr(self, k), doc, root, parent, comm)
            old_models += old
        return children, old_models

    _get_properties.c04_per_class = True
    _get_properties.c04_original = original_props
    ReactiveESM._get_properties = _get_properties
    ReactiveESM._get_children = _get_children


def _synced_params_once() -> None:
    """Private Panel API, panel 1.9.4's ``Reactive._init_params``: for each parameter of a
    component it builds ``self._synced_params`` (a list of all of them) again to test
    membership, ~40² steps for a layout, each time a component's model is built. This builds
    the list once per call, with the same result. Measured (new sessions' opens in process):
    22 000 list builds per 10 opens, ~4 % of an open in cProfile, 6–7 % in paired runs."""
    from panel.reactive import Reactive

    original = Reactive._init_params
    if getattr(original, "c04_once", False):
        return

    def _init_params(self):
        synced = set(self._synced_params)
        params = {}
        for p in self.param:
            if p in synced:
                v = getattr(self, p)
                if v is not None:
                    params[p] = v
        return params

    _init_params.c04_once = True
    _init_params.c04_original = original
    Reactive._init_params = _init_params


def _lazy_pane_layout() -> None:
    """Private Panel API, panel 1.9.4's ``PaneBase.__init__``: every pane builds a hidden ``Row``
    around itself (``self.layout``) and syncs its sizing into it, used only when the pane is a
    root itself (``get_root``, ``pn.panel``) or swaps its object's type. The lecture's panes
    live in its own Columns: ~50 such Rows per section, never shown. Here the Row is built the
    first time ``layout`` is read, from the same arguments and then synced as Panel does, and
    the sync on a sizing change waits until it exists. Measured (paired, in process, 27 opens
    each: the lecture and its first section, the document's JSON identical): mean 254 → 236
    ms, p50 248 → 240 ms."""
    from panel.pane.base import PaneBase
    from panel.viewable import Layoutable

    original_init = PaneBase.__init__
    if getattr(original_init, "c04_lazy", False):
        return
    original_sync = PaneBase._sync_layoutable
    # Panel's __init__ with its two last steps (build the Row, sync it) deferred: keep in
    # step with panel/pane/base.py when Panel is upgraded (the test compares the Rows).

    def __init__(self, object=None, **params):
        self._object_changing = False
        super(PaneBase, self).__init__(object=object, **params)
        if not hasattr(self, "_internal_callbacks"):
            self._internal_callbacks = []
        applies = self.applies(self.object, **(params if self._applies_kw else {}))
        if (isinstance(applies, bool) and not applies) and self.object is not None:
            self._type_error(self.object)
        self.__dict__["_c04_layout_kwargs"] = {
            k: v
            for k, v in params.items()
            if k in Layoutable.param and k not in self._skip_layoutable
        }
        self._internal_callbacks.append(
            self.param.watch(self._sync_layoutable, list(Layoutable.param))
        )

    def get_layout(self):
        layout = self.__dict__.get("_c04_layout")
        if layout is None:
            kwargs = self.__dict__.pop("_c04_layout_kwargs", {})
            layout = self.__dict__["_c04_layout"] = self.default_layout(self, **kwargs)
            original_sync(self)
        return layout

    def set_layout(self, value):
        self.__dict__["_c04_layout"] = value
        self.__dict__.pop("_c04_layout_kwargs", None)

    def _sync_layoutable(self, *events):
        if self.__dict__.get("_c04_layout") is not None:
            original_sync(self, *events)

    __init__.c04_lazy = True
    __init__.c04_original = original_init
    _sync_layoutable.c04_original = original_sync
    PaneBase.__init__ = __init__
    PaneBase.layout = property(get_layout, set_layout)
    PaneBase._sync_layoutable = _sync_layoutable


def _markdown_html_cache() -> None:
    """Private Panel API, panel 1.9.4's ``Markdown._transform_object``: each Markdown pane parses
    and renders its text with markdown-it when its model is built, and the lecture's texts are
    the same in every session (the catalogue's, in two languages). The rendered HTML is kept
    per process for a pane's text and every parameter the rendering reads (the oldest of more
    than 1 024 dropped, so texts with numbers in them cannot grow it). Measured (cProfile, a
    new session's first section): ~7 ms of an open, 15 panes."""
    from panel.pane.markup import Markdown

    original = Markdown._transform_object
    if getattr(original, "c04_cached", False):
        return
    rendered: collections.OrderedDict = collections.OrderedDict()

    def _transform_object(self, obj):
        if not isinstance(obj, str):
            return original(self, obj)
        key = (
            obj,
            type(self),
            self.renderer,
            self.dedent,
            self.hard_line_break,
            self.disable_anchors,
            tuple(self.extensions),
            tuple(self.plugins),
            repr(sorted(self.renderer_options.items())),
        )
        try:
            text = rendered.get(key)
        except TypeError:  # an unhashable plugin or extension: Panel's own, uncached
            return original(self, obj)
        if text is None:
            text = rendered[key] = original(self, obj)["object"]
            if len(rendered) > 1024:
                rendered.popitem(last=False)
        return {"object": text}

    _transform_object.c04_cached = True
    _transform_object.c04_original = original
    _transform_object.c04_rendered = rendered
    Markdown._transform_object = _transform_object


def _design_modifiers_per_class() -> None:
    """Private Panel API, panel 1.9.4's ``Design._get_modifiers``: each component's model build
    asks its design for the stylesheets and settings that apply to its class, and each time
    the design reads its theme's ``base_css`` and ``css`` (``param.Filename``: resolved on the
    file system on every read) and builds ``pathlib`` paths. The answer depends on the
    component's class, the theme, and whether a server renders it, so it is worked out once
    per such key; each caller gets its own copies. Measured (cProfile, a new session's first
    section, ~90 components): 0.1 ms a theme read, two per component."""
    from panel.io.state import state
    from panel.theme.base import Design

    original = Design._get_modifiers.__func__
    if getattr(original, "c04_per_class", False):
        return
    known: dict[tuple, tuple] = {}

    def _get_modifiers(cls, viewable, theme=None, isolated=True):
        # Panel's own test of a server render, which the result depends on.
        doc = state.curdoc
        is_server = bool(doc.session_context) if not state._is_pyodide and doc else False
        key = (cls, type(viewable), theme, isolated, is_server)
        try:
            found = known.get(key)
        except TypeError:  # an unhashable theme argument: Panel's own
            return original(cls, viewable, theme, isolated)
        if found is None:
            found = known[key] = original(cls, viewable, theme, isolated)
        modifiers, child_modifiers = found
        modifiers = dict(modifiers)
        if "stylesheets" in modifiers:
            modifiers["stylesheets"] = list(modifiers["stylesheets"])
        return modifiers, dict(child_modifiers)

    _get_modifiers.c04_per_class = True
    _get_modifiers.c04_original = original
    Design._get_modifiers = classmethod(_get_modifiers)


def _bokeh_overridden_defaults_per_class() -> None:
    """Private Bokeh API, bokeh 3.9.2's ``HasProps._overridden_defaults``: each read of a
    container default (a model's ``css_classes``, ``stylesheets``, ``styles``…, filled in for
    every model built) merges the ``__overridden_defaults__`` of every class of the model's
    MRO into a new dict. Those are class attributes, set when Bokeh creates the class, so the
    merge is made once per class; its one reader (``Property.themed_default``) only looks
    names up, and gets a read-only view. Measured: ~1 300 merges in a new session's open
    (cProfile), 3.9 µs each for Panel's HTML model (timeit, 14 classes) and 0.08 µs cached:
    ~5 ms of an open; paired opens in process, p50 141 → 136 ms, same document."""
    import types

    from bokeh.core.has_props import HasProps

    original = HasProps.__dict__["_overridden_defaults"].__func__
    if getattr(original, "c04_per_class", False):
        return
    merged: dict[type, types.MappingProxyType] = {}

    def _overridden_defaults(cls):
        found = merged.get(cls)
        if found is None:
            found = merged[cls] = types.MappingProxyType(original(cls))
        return found

    _overridden_defaults.c04_per_class = True
    _overridden_defaults.c04_original = original
    HasProps._overridden_defaults = classmethod(_overridden_defaults)


def _bokeh_unstable_defaults_per_class() -> None:
    """Private Bokeh API, bokeh 3.9.2's ``PropertyDescriptor.has_unstable_default``: whether a
    property's default must be made anew for each model (a container, a model, a callable).
    ``HasProps.__init__`` asks it for every property a new model was not given, and each read
    of a default asks again: ~5 000 times an open, each walking the property's type
    parameters. The answer is the property's (its default and types, fixed when the class is
    made) and the class's overridden default, so it is kept per (property, class). Measured:
    2.7 µs a call for Panel's HTML model's properties (timeit), 0.14 µs kept; paired opens in
    process, mean 165 → 153 and 222 → 201 ms (two runs of 27), same document."""
    from bokeh.core.property.descriptors import PropertyDescriptor

    original = PropertyDescriptor.has_unstable_default
    if getattr(original, "c04_per_class", False):
        return
    known: dict[tuple, bool] = {}

    def has_unstable_default(self, obj) -> bool:
        key = (self, type(obj))
        found = known.get(key)
        if found is None:
            found = known[key] = original(self, obj)
        return found

    has_unstable_default.c04_per_class = True
    has_unstable_default.c04_original = original
    PropertyDescriptor.has_unstable_default = has_unstable_default


def quiet_closed_websockets() -> None:
    """A student closing the tab while the server writes to it is not an error (once per loop).

    Panel's ``_dispatch_msgs`` (panel/io/document.py) checks that a websocket is open, then
    writes a message's frames; when the client goes between two, tornado raises
    WebSocketClosedError in a task nobody awaits, and asyncio logs "Task exception was never
    retrieved" with a traceback (seen under the parallel `make test`: a page closed while its
    section was updating). This exception handler of the server's loop logs that case as one
    INFO line and passes every other one on to the handler that was there.
    """
    try:
        loop = asyncio.get_running_loop()  # served: the server's loop, running this script
    except RuntimeError:
        return
    previous = loop.get_exception_handler()
    if getattr(previous, "c04_quiet", False):
        return

    def handler(loop, context):
        exc = context.get("exception")
        if isinstance(exc, WebSocketClosedError | StreamClosedError):
            log.info("El cliente cerró la conexión durante un envío (%s)", type(exc).__name__)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler.c04_quiet = True
    loop.set_exception_handler(handler)


def _local_stylesheets() -> None:
    """Point this session's stylesheets at the server's /static/, not at cdn.holoviz.org.

    Panel sets that path when it renders a session's page; under ``--reuse-sessions`` the page
    comes from a shared session and each student's own session (built when its websocket
    connects) would load 8 stylesheets from the CDN: unstyled widgets without internet.
    """
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:  # not served (tests, the export)
        return
    dist = f"{pn.state.rel_path}/{LOCAL_DIST}" if pn.state.rel_path else LOCAL_DIST
    # Private API: Panel has no public setter; without it, 8 CDN stylesheets per student session.
    doc._template_variables.setdefault("dist_url", dist)


# Where the served page loads dashboards/static/markup.js and a11y.js (serving.command serves
# that folder at /c04/); the export inlines every file of it with the twins instead.
MARKUP_URL = "c04/markup.js"
A11Y_URL = "c04/a11y.js"
LINKS_URL = "c04/links.js"
EXERCISES_URL = "c04/exercises.js"
PRESENT_URL = "c04/present.js"
CLASSROOM_URL = "c04/classroom.js"
SERVER_CHANGES_URL = "c04/server_changes.js"


def _markup_script() -> None:
    """Load the page's scripts of dashboards/static in served pages: the markup renderer
    (``C04.markup``, markup.js), the names for assistive technology (a11y.js), the link, the
    exercises, projector and class mode, and server_changes.js (a change from the server that
    the page cannot draw yet does not lose the others sent with it).

    Only when served: the export's save would otherwise write a <script src> that no file
    next to the exported page holds (it inlines the files itself)."""
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return
    pn.config.js_files = {
        **pn.config.js_files,
        "c04_markup": MARKUP_URL,
        "c04_a11y": A11Y_URL,
        "c04_links": LINKS_URL,
        "c04_exercises": EXERCISES_URL,
        "c04_present": PRESENT_URL,
        "c04_classroom": CLASSROOM_URL,
        "c04_server_changes": SERVER_CHANGES_URL,
    }


def requested(name: str) -> str | None:
    """The first ``?name=`` of the served page's address, or None."""
    args = pn.state.session_args.get(name) if pn.state.session_args else None
    if not args:
        return None
    try:
        return args[0].decode("utf-8", "replace")
    except AttributeError:
        return str(args[0])


def requested_lang() -> str:
    """``?lang=`` of the served page when a catalogue has it (``?lang=en``); else Spanish."""
    lang = requested("lang")
    if lang is None or lang not in i18n.languages():
        if lang is not None:
            log.info("?lang=%r no es un idioma de la clase; se usa %s", lang, DEFAULT_LANG)
        return DEFAULT_LANG
    return lang


def language_links(href, lang: str) -> str:
    """Links to every language but ``lang``, ``href(other)`` their addresses, each link named in
    its own language and marked with its ``lang`` (the live lecture's ``?lang=`` and the
    export's ``en/`` files both)."""
    return " · ".join(
        f'<a href="{href(other)}" hreflang="{other}" lang="{other}" data-testid="lang-{other}">'
        f"{esc(i18n.text('lecture.language', other))}</a>"
        for other in i18n.languages()
        if other != lang
    )


# Without it a phone lays the page out 980 px wide and shrinks it to fit: unreadable (neither
# Panel's page template nor Bokeh's file template has one). The export writes it too.
VIEWPORT_META = '<meta name="viewport" content="width=device-width, initial-scale=1">'


@functools.cache
def page_template(lang: str):
    """Panel's page template with ``<html lang="{lang}">`` (Panel writes ``lang="en"`` outside
    any block, so a template that extends it cannot change it): what a screen reader reads
    the page in; plus the viewport of a phone and the words a11y.js needs. Bokeh's public
    ``Document.template`` takes it (see :func:`serve`)."""
    env = BASE_TEMPLATE.environment
    source = env.loader.get_source(env, BASE_TEMPLATE.name)[0]
    if source.count('<html lang="en"') != 1 or source.count("</head>") != 1:
        log.info("La plantilla de Panel cambió; la página queda con su lang original")
        return BASE_TEMPLATE
    # The words a11y.js says formulas with, as the export embeds them (#c04-text).
    words = i18n.catalogue_json(lang, ("a11y",)).replace("</", "<\\/")
    raw = f"{{% raw %}}{words}{{% endraw %}}"  # JSON is not Jinja
    text = f'<script type="application/json" id="c04-text">{raw}</script>'
    source = source.replace('<html lang="en"', f'<html lang="{lang}"', 1)
    return env.from_string(source.replace("</head>", f"{VIEWPORT_META}\n{text}\n</head>", 1))


def session_key(request) -> tuple:
    """Under ``--reuse-sessions`` Panel renders each page from one shared session per key; its
    default key (path, theme) would give a ``?lang=en`` visitor the Spanish page's ``<title>``
    and ``lang``, so the key holds the language too."""
    arguments = request.arguments or {}
    lang = (arguments.get("lang") or [b""])[0].decode("utf-8", "replace")
    theme = (arguments.get("theme") or [b"default"])[0].decode("utf-8", "replace")
    # The lecturer's page (?profesor=) is never rendered from a student's session, nor the
    # reverse (dashboards/classmode.py).
    lecturer = classroom.TOKEN_KEY in arguments
    return (request.path, lang if lang in i18n.languages() else DEFAULT_LANG, theme, lecturer)


def serve(viewable, title: str, lang: str) -> None:
    """Make ``viewable`` this session's page, titled ``title``, in ``lang``."""
    doc = pn.state.curdoc
    if doc is not None and doc.session_context is not None:
        doc.template = page_template(lang)
    viewable.servable(title=title)


def serve_demo(demo_id: str) -> None:
    """The end of each demo's module, served on its own (``panel serve dashboards/<module>.py``):
    the registry's view for ``demo_id`` with a model of its own, in the page's ``?lang=``,
    titled from the catalogue."""
    # They import the view modules (or this one) that import this module: imported here.
    from dashboards import links, practice, present, registry, sharing

    configure()
    demo = registry.demo(demo_id)
    lang = requested_lang()
    model = demo.model_class()()
    link = sharing.LinkState({demo.id: model}, lang)
    link.apply(sharing.opened_with())
    view = demo.view_class()(model=model, lang=lang)
    present.mark_compare(demo.id, view)
    respond_immediately(view)
    clients.guard(view)

    def shortcut(action: str) -> None:  # R: the demo back to its defaults (no sections here)
        if action == "reset":
            links.decode([], {demo.id: model}, lang)

    page = pn.Column(
        present.presenter(lang, [], on_action=shortcut),
        link.notice,
        sharing.copy_link("", lang),
        view,
        practice.block(demo.id, lang, model),
        practice.progress([e.id for e in practice.exercises.of_demo(demo.id)], lang),
        link.address,
        sizing_mode="stretch_width",
    )
    serve(page, demo.title(lang), lang)


def esc(text) -> str:
    """HTML-escape anything a user may have typed (tokens, sentences, cell text)."""
    return html.escape(str(text), quote=True)


def math_md(text: str, **params) -> pn.pane.Markdown:
    """Markdown with MathJax: write math as $$...$$ (inline) — it renders offline."""
    params.setdefault("sizing_mode", "stretch_width")
    return pn.pane.Markdown(text, **params)


def section_header(title: str, intro: str = "", anchor: str | None = None) -> pn.pane.Markdown:
    """The demo's title and its introduction (prose: folded in projector mode)."""
    anchor_html = f'<a id="{esc(anchor)}"></a>' if anchor else ""
    body = f"{anchor_html}\n\n## {title}\n\n{intro}" if intro else f"{anchor_html}\n\n## {title}"
    return math_md(body, css_classes=["c04-prose"])


def matrix_spec(
    matrix,
    row_labels,
    col_labels,
    decimals: int = 2,
    row_sums: bool = False,
    testid: str | None = None,
    shade: bool = False,
    title: str = "",
    note: str | None = None,
    lang: str = DEFAULT_LANG,
) -> dict:
    """The spec of ``C04.markup.matrix``: cell texts in ``lang``, None for −∞ (masked), each
    row's weights when ``shade`` (cells coloured by value in [0, 1]), its "Σ" when ``row_sums``,
    and a ``note`` under the table. A label may be ``{"text", "lang"}`` (a word kept in
    another language)."""
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    rows = []
    for label, row in zip(row_labels, m, strict=True):
        rows.append(
            {
                "label": str(label),
                "cells": [None if np.isneginf(v) else number(v, decimals, lang=lang) for v in row],
                "shade": [float(v) for v in row] if shade else None,
                "sum": number(row[np.isfinite(row)].sum(), decimals, lang=lang)
                if row_sums
                else None,
            }
        )
    return {
        "testid": testid,
        "title": title,
        "cols": [str(c) for c in col_labels],
        "rows": rows,
        "note": note,
    }


def kept_label(word: str, lang: str, word_lang: str) -> str | dict:
    """A word of an example kept in ``word_lang`` as a label of ``C04.markup``: as is on a page
    in that language, marked ({"text", "lang"}) on a page in another."""
    return word if lang == word_lang else {"text": word, "lang": word_lang}


def kept_labels(spec: dict, words, lang: str, word_lang: str) -> dict:
    """A matrix spec whose labels that are one of ``words`` are written as :func:`kept_label`
    writes them."""
    words = set(words)

    def mark(label):
        return kept_label(label, lang, word_lang) if label in words else label

    spec["cols"] = [mark(c) for c in spec["cols"]]
    for row in spec["rows"]:
        row["label"] = mark(row["label"])
    return spec


def rich(key: str, lang: str = DEFAULT_LANG, /, **fields) -> list:
    """Catalogue text ``key`` as a label of ``C04.markup`` (markup.js): the catalogue's own
    text and markup as ``{"html": …}`` pieces, each ``{field}`` replaced by its value, itself a
    label: a text (escaped by the markup), ``{"text", "lang"?, "testid"?, "tag"?}`` or a list.
    The browser twin builds the same list (``C04.rich``)."""
    parts = i18n.FIELD.split(i18n.catalogue(lang)[key])
    if set(parts[1::2]) != set(fields):
        raise KeyError(f"campos {sorted(set(parts[1::2]))} ≠ valores {sorted(fields)} en {key!r}")
    return [fields[part] if i % 2 else {"html": part} for i, part in enumerate(parts) if part]


def readout_spec(label, value, unit="", testid: str | None = None) -> dict:
    """``C04.markup.readout``: one big number with its label and unit (each a label)."""
    return {"testid": testid, "label": label, "value": value, "unit": unit}


class Markup(pn.custom.JSComponent):
    """HTML drawn in the browser by ``C04.markup[kind](spec)`` (dashboards/static/markup.js).

    The one renderer of the lecture's changing markup: a live view sets ``spec`` (text in its
    language and numbers, see each kind in markup.js), the export's twin sets the same spec
    in the page. ``kind`` is fixed at creation.
    """

    kind = param.Selector(
        default="matrix",
        objects=[
            "matrix",
            "bars",
            "readout",
            "readouts",
            "note",
            "heatmap",
            "focus_row",
            "tokens",
            "head_plot",
            "announce",
        ],
        constant=True,
        doc="Which renderer of C04.markup draws the spec.",
    )
    spec = param.Dict(default={}, doc="The fragment's text and numbers (JSON).")
    spec_json = param.String(
        default="", doc='``spec`` as JSON text ("" for none): what the browser receives.'
    )

    # The browser gets the spec as one JSON text: Bokeh encodes a string in one step but a
    # nested value item by item, and with the dict a capital update took 32 ms on the server
    # (make bench, "cambio → modelos Bokeh") instead of 13.
    _rename: ClassVar[dict] = {"spec": None}

    _esm = """
export function render({ model, el, view }) {
  window.C04.markup.unobserved(view)
  const draw = () => {
    const spec = model.spec_json ? JSON.parse(model.spec_json) : null
    // A folded table the student opened stays open when its numbers change.
    const open = new Set(Array.from(el.querySelectorAll("details[open]"), (d) => d.dataset.key))
    const before = window.C04.markup.numbers(el)
    window.C04.markup.draw(el, model.kind, spec)
    for (const d of el.querySelectorAll("details[data-key]")) {
      if (open.has(d.dataset.key)) d.open = true
    }
    // "antes → ahora" after a toggle or a choice (markup.js, compare).
    window.C04.markup.compare(el, before)
  }
  model.on("spec_json", () => {
    draw()
    // A change, not the first drawing: the page's live region says it (a11y.js).
    if (model.kind === "announce" && model.spec_json && window.C04.a11y) {
      window.C04.a11y.announce(window.C04.markup.said(JSON.parse(model.spec_json)))
    }
  })
  draw()
}
"""

    @param.depends("spec", watch=True, on_init=True)
    def _encode_spec(self) -> None:
        self.spec_json = spec_json(self.spec)

    # Private API, the three hooks below. A spec only goes from the server to the browser (the
    # browser never writes it back): so nothing listens for it coming back (Panel's echo
    # handling took ~3,6 ms per spec in `make bench`'s updates: a capital update 7 → 31 ms), and
    # a new spec is set on the model and that is all (Panel's generic path, with the design's
    # modifiers recomputed and a failing getattr that builds spelling suggestions, took ~1 ms).
    @property
    def _linked_properties(self) -> tuple[str, ...]:
        return ()

    def _update_properties(self, *events, doc):
        if all(e.name == "spec_json" for e in events):
            return {"spec_json": events[-1].new}
        return super()._update_properties(*events, doc=doc)

    def _update_model(self, events, msg, root, model, doc, comm) -> None:
        if msg.keys() != {"spec_json"}:
            super()._update_model(events, msg, root, model, doc, comm)
            return
        with pn.io.hold(doc, comm=comm):
            model.data.spec_json = msg["spec_json"]


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


class DemoView(pn.viewable.Viewer):
    """A demo's view: built per session with its model and the language of its text.

    ``t``, ``num``, ``pct`` and ``say`` read the catalogue and write numbers in ``lang``.
    """

    lang = param.Selector(
        default=DEFAULT_LANG,
        objects=list(i18n.languages()),
        constant=True,
        doc="Language of every text and number of the view (a catalogue in attnmodel/locales).",
    )

    def t(self, key: str, /, **values) -> str:
        return i18n.text(key, self.lang, **values)

    def num(self, x: float, decimals: int = 2, signed: bool = False) -> str:
        return number(x, decimals, signed, self.lang)

    def pct(self, p: float, decimals: int = 0) -> str:
        return percent(p, decimals, self.lang)

    def say(self, exc) -> str:
        """A refused input's message (an attnmodel Refusal) in the view's language."""
        return i18n.say(exc, self.lang)


# The skip link: hidden until focused (the first Tab of the page), then a visible button-like
# link; a11y.js moves the focus to the element marked data-c04-content (fragments cannot reach
# into Panel's shadow roots).
SKIP_CSS = """
.c04-skip { position: absolute; left: -10000px; top: 0; }
.c04-skip:focus { position: static; display: inline-block; padding: 8px 14px; background: #fff;
  color: #174a87; border: 2px solid #174a87; border-radius: 4px; font-weight: 600; }
"""
# No tabindex here: a shadow host with tabindex="-1" takes its whole shadow tree out of the Tab
# order (the section's controls could not be reached from the navigation); a11y.js sets it
# only while it moves the focus there.
CONTENT_ATTRIBUTES = {"data-c04-content": "", "role": "main"}


def announcer() -> Markup:
    """Where a demo's ``announce`` target goes: draws nothing; each new spec ({text: label},
    ``announce_spec``) is said once by the page's polite live region (a11y.js, announce)."""
    return Markup(kind="announce", margin=0, height=0, sizing_mode="stretch_width")


def announce_spec(key: str, lang: str = DEFAULT_LANG, /, **fields) -> dict:
    """The spec of an announcer: catalogue text ``a11y.announce.<key>`` with its fields
    (labels, as ``rich``). ``C04.spec.announce`` builds the same in the export."""
    return {"text": rich(f"a11y.announce.{key}", lang, **fields)}


def first_max(values) -> int:
    """Index of the largest value, the first of those within 1e-9 of it: the live app and the
    export (``C04.math.firstMax``) compute the weights to 1e-12 of each other, so a tie broken
    by the last bit could name different tokens."""
    values = [float(v) for v in values]
    top = max(values)
    return next(i for i, v in enumerate(values) if v >= top - 1e-9)


def plot_alternative(view: DemoView, key: str) -> dict[str, str]:
    """A plot's ``html_attributes``: an image named by the catalogue's ``a11y.plot.<key>``,
    which says what it shows and where its numbers are in text (a canvas says nothing)."""
    return {"role": "img", "aria-label": view.t(f"a11y.plot.{key}")}


def skip_link(lang: str) -> pn.pane.HTML:
    """A "Saltar al contenido" link, the first thing a keyboard reaches on a page."""
    label = esc(i18n.text("a11y.skip", lang))
    return LiveHTML(
        f'<a class="c04-skip" href="#contenido">{label}</a>',
        stylesheets=[SKIP_CSS],
        margin=0,
        css_classes=["c04-skip-link"],
    )


class LangColumn(pn.Column):
    """A Column whose element carries HTML attributes (Bokeh's ``html_attributes``), e.g.
    ``lang="es"`` around an example kept in Spanish on a page in another language, or the role
    of a landmark (``role="navigation"``, :data:`CONTENT_ATTRIBUTES`)."""

    html_attributes = param.Dict(default={}, doc="Attributes of the column's element.")


# A widget's <label> there for a screen reader and hidden from the eye (the usual
# visually-hidden recipe): a matrix cell's "X, fila 1, columna 2", which the grid's rows and
# columns already show; a select whose visible label is drawn outside it.
HIDDEN_LABEL_CSS = """
:host label { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
"""


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

    labels = param.List(default=[], doc="Each cell's accessible name, row by row.")
    cell_width = param.Integer(default=68, bounds=(20, 400), doc="A box's width in pixels.")
    max_chars = param.Integer(default=MAX_NUMBER_CHARS, doc="The longest text a box takes.")
    texts_json = param.String(
        default="", doc='What the boxes show: {"texts": rows of texts, "n": a counter} (JSON).'
    )
    commit = param.Dict(
        default={}, doc="The browser's last commit: {row, col, text, n} (0-based row and col)."
    )

    # What a browser writes (dashboards/clients.py takes only these from a client).
    client_writes: ClassVar[tuple[str, ...]] = ("commit",)

    _stylesheets: ClassVar[list[str]] = [
        """
.c04-grid { display: grid; gap: 4px 6px; margin: 2px 3px; }
.c04-cell input { box-sizing: border-box; width: 100%; padding: 5px 8px; font: inherit;
  text-align: right; color: inherit;
  background: var(--panel-background-color, #fff); border: 1px solid #b8bec6;
  border-radius: 4px; }
.c04-cell input:focus { outline: 2px solid #1f5fa8; outline-offset: 1px; }
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
  el.append(grid)
}
"""

    def __init__(self, **params):
        super().__init__(**params)
        self._shown = 0

    def show(self, texts: list[list[str]]) -> None:
        """Put ``texts`` in the boxes, even where the boxes already hold them."""
        self._shown += 1
        self.texts_json = json.dumps({"texts": texts, "n": self._shown}, ensure_ascii=False)

    # Private API: the browser never writes the texts back, so Panel need not listen for them
    # (as Markup's spec); it listens for a commit only.
    @property
    def _linked_properties(self) -> tuple[str, ...]:
        return ("commit",)


class MatrixEditor(DemoView):
    """Editable cells for one matrix parameter of a model.

    Each cell accepts "1,5", "1.5", "−2". A bad value shows a message in ``lang`` under the
    grid, the cell goes back to the last valid value, and the model is not touched.
    ``texts`` holds what the cells show (row by row); ``edit(i, j, text)`` is what a student's
    commit of a cell does.
    """

    model = param.Parameter(doc="The param.Parameterized that owns the matrix.")
    name_param = param.String(doc="Name of the matrix parameter on the model (e.g. 'X').")
    title = param.String(default="", doc="Caption shown above the cells (Markdown/MathJax).")
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
            margin=0,
        )
        self.grid.show(self.texts)
        self.grid.param.watch(self._on_commit, "commit")
        self.error = LiveHTML("", css_classes=["c04-error"], margin=(0, 4))
        self.model.param.watch(self._from_model, [self.name_param])
        self._layout = pn.Column(
            math_md(self.title, margin=(0, 4)) if self.title else None,
            self.grid,
            self.error,
            margin=(4, 12, 4, 0),
            css_classes=self.css_classes,
        )

    def _text(self, value: float) -> str:
        """A cell's text: 4 decimals at most, no trailing zeros ("1,5", "2", "−0,25")."""
        text = self.num(value, 4)
        separator = self.t("format.decimal")
        return text.rstrip("0").rstrip(separator) if separator in text else text

    def _on_commit(self, event) -> None:
        """A commit from the browser: {row, col, text, n}. Anything else is a forged message,
        refused (dashboards/clients.py logs it; the matrix and the boxes stay)."""
        commit = event.new
        if commit == {}:  # none yet, or put back after a forged one (dashboards/clients.py)
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
                self.error.object = ""
                return
            new = current.copy()
            new[i, j] = value
            setattr(self.model, self.name_param, new)
        except ValueError as exc:
            label = self.name_param
            self.error.object = esc(
                self.t(
                    "input.cell_refused", name=label, row=i + 1, col=j + 1, message=self.say(exc)
                )
            )
            self.texts[i][j] = self._text(current[i, j])
            self.grid.show(self.texts)
            return
        self.error.object = ""

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
        return self._layout


class LiveHTML(pn.pane.HTML):
    """``pn.pane.HTML`` whose updates send the new text and nothing else.

    Panel's HTML pane recomputes all its Bokeh properties on every new ``object`` (stylesheets,
    design modifiers, file paths resolved again): about 1 ms per pane and change on the server,
    for properties that never change here. Every other parameter still goes through Panel.
    """

    # Private API: Panel's hook for a new object; ~1 ms per pane and change saved on the server.
    def _update(self, ref: str, model) -> None:
        model.update(**self._process_param_change({"object": self.object}))


def lean_renderers(fig) -> None:
    """Drop the selection, non-selection and muted glyphs of every renderer of ``fig``.

    Nothing in the lecture selects or mutes, yet BokehJS builds a view for each of them and, on
    every data change, recomputes its visuals (and, for text, measures every string again).
    A new sentence in "Varias cabezas" spent most of its script time there. A hover glyph, if
    any, stays.
    """
    for renderer in fig.renderers:
        if isinstance(renderer, GlyphRenderer):
            renderer.selection_glyph = None
            renderer.nonselection_glyph = None
            renderer.muted_glyph = None


def respond_immediately(root) -> int:
    """Process every widget change under ``root`` on the server's next tick, not 50 ms later.

    Panel waits ``_debounce`` = 50 ms before it handles a widget's change from the browser, to
    batch a burst. Those 50 ms were most of the live input → text time (explorer checkbox:
    72 ms, of which ~22 ms is work). Without the wait a burst is still batched: changes that
    arrive while the server is busy are handled together. Returns the number of widgets.
    """
    widgets = clients.controls(root)
    for widget in widgets:
        widget._debounce = 0  # private API: no public setting; 72 → ~22 ms input → text
    return len(widgets)


def parse_or_none(text) -> float | None:
    try:
        return parse_es_number(text)
    except ValueError:
        return None


class _NoKey(TypeError):
    """A parameter value with no exact hashable image: that render is not shared."""


def _frozen(value):
    """An exact, hashable image of a parameter's value: equal only for values that render the
    same (a float by its bits: 0.0 and -0.0 are written differently; an array by its shape,
    dtype and bytes; a bool is not the int 1)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    if isinstance(value, float | np.floating):
        return ("float", float(value).hex())
    if value is None or isinstance(value, str | bool | int | np.integer | np.bool_):
        return (type(value).__name__, value)
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_frozen(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _frozen(v)) for k, v in value.items())))
    raise _NoKey(type(value).__name__)


def model_state(model: param.Parameterized) -> tuple:
    """Every parameter of a demo's model (its whole state: outputs are properties), exactly."""
    return tuple(
        (name, _frozen(value)) for name, value in model.param.values().items() if name != "name"
    )


# How many states each demo keeps rendered: a class follows one state at a time, new sessions
# open on the default one (one per language). The largest render (the explorer's map of a
# 40-word sentence) is ~150 KB of Python objects: at most ~5 MB a demo, whatever the students do.
SHARED_RENDERS = 32
_SHARED_CACHES: list[collections.OrderedDict] = []


def clear_shared_renders() -> None:
    """Forget every shared render (bench/bench_updates.py: a state rendered the first time)."""
    for cache in _SHARED_CACHES:
        cache.clear()


def shared_render(render):
    """``render(model, lang)`` computed once per (state, language) in this process and shared
    by every session showing that state: the lecturer's followers (one change, every
    follower's view) and every new session's first section (the default state).

    What it returns is read, never changed, by ``apply_render`` and the views (Bokeh copies
    what it keeps: a source's ``data`` and a list property are wrapped in its own containers;
    a Markup keeps the spec and sends its JSON, made once: its dicts are :class:`SharedSpec`).
    A state with a value that has no exact key is rendered each time."""
    cache: collections.OrderedDict = collections.OrderedDict()
    _SHARED_CACHES.append(cache)
    lock = threading.Lock()

    @functools.wraps(render)
    def shared(model, lang: str = DEFAULT_LANG) -> dict[str, object]:
        try:
            key = (lang, model_state(model))
        except _NoKey:
            return render(model, lang)
        with lock:
            values = cache.get(key)
            if values is not None:
                cache.move_to_end(key)
                return values
        values = {
            k: SharedSpec(v) if type(v) is dict else v for k, v in render(model, lang).items()
        }
        with lock:
            cache[key] = values
            while len(cache) > SHARED_RENDERS:
                cache.popitem(last=False)
        return values

    shared.uncached = render
    shared.cache = cache
    return shared


def client_update(demo: str, targets: dict[str, tuple[object, str]], **extra) -> tuple[str, dict]:
    """The code and args of an exported control's ``jscallback``: ``C04.update(demo, …)`` with
    every target of the view's ``client_targets()`` and ``extra`` (its controls, constants)."""
    kinds = {name: kind for name, (_, kind) in targets.items()}
    args = {name: obj for name, (obj, _) in targets.items()} | extra
    # Bokeh's CustomJS passes each arg as a variable of its own: gather them in one object.
    names = ", ".join(args)
    return f'C04.update("{demo}", {{{names}, trigger: cb_obj}}, {json.dumps(kinds)});', args


def apply_render(targets: dict[str, tuple[object, str]], values: dict[str, object]) -> None:
    """Put the output of a view's ``render(model)`` on screen (the live side of the twin).

    ``targets`` is the view's ``client_targets()``: name -> (object, kind) with kind "html" (a
    pane's ``object``), "markup" (a :class:`Markup`'s ``spec``), "data" (a ColumnDataSource's
    ``data``) or "prop:<name>" (a Bokeh/Panel property, set only when it changed). The
    browser twin (``C04.apply``) does the same with the same names, so the live app and the
    export show the same thing.
    """
    # Bokeh's property checks stay on: besides catching a wrong value, bokeh 3.9 decides by
    # that check how a colour string is serialized (a column or a colour), see Lecture._show.
    with pn.io.hold():
        for name, value in values.items():
            obj, kind = targets[name]
            if kind == "html":
                if obj.object != value:
                    obj.object = value
            elif kind == "markup":
                if obj.spec != value:
                    obj.spec = value
            elif kind == "data":
                obj.data = value
            elif kind.startswith("prop:"):
                prop = kind[5:]
                if getattr(obj, prop) != value:
                    setattr(obj, prop, value)
            else:
                raise ValueError(f"tipo de destino desconocido: {kind!r}")
