"""A demo's changing figures in one component: the fragments ``C04.markup`` draws (tables,
bars, heat maps, notes, the announcer), laid out in rows and columns by the browser.

A section used to hold one :class:`~dashboards.components.markup.Markup` per fragment, with a
Panel Row or Column around each group: a Bokeh model each, and a session's open costs ~4.5 ms
of server CPU per model. A :class:`Board` is one model for all of them (issue 36): its
``layout`` (static, sent once) places named slots, and ``specs`` (slot -> spec) is what changes.
The browser redraws only the slots whose spec changed, and the server writes the JSON of those
only (a slot whose spec is the same object keeps its text).

Numbers cross, specs don't (issue 37): a Board with a ``view`` draws its slots in the browser
with ``C04.views[view].render(state)`` (dashboards/static/demos/<view>.js), from ``state``, the
model's numbers that Python sends; the same code draws the export, where the state comes from the
embedded tables or from the browser's own maths (``readState``). Its controls' specs stay in
``specs``, read and set one by one through :meth:`Board.slot` (a :class:`Slot`, with the
``spec``/``kind`` of a Markup); in the export, ``readState`` sets another component's part (a
Raster's values, the head grid's state, another board's control) with ``C04.apply``, the
targets given to :meth:`Board.run_offline`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import ClassVar

import panel as pn
import param
from panel.io.state import set_curdoc

from dashboards.components.bundle import Component
from dashboards.components.markup import KINDS, md_html, spec_json
from dashboards.runtime import clients

# The kinds of a slot: Markup's, and "html" (server-made HTML, e.g. a title with a formula).
SLOT_KINDS = (*KINDS, "html")
# The native controls a Board draws (static/board.js); a control's spec holds its value:
# - "range": <input type=range>, spec {value, start, end, step} and either decimals (and the
#   page's decimal sign, "decimal") or stops: texts[i] shown and values[i] sent for position i;
# - "select", "choice" (a group of buttons, one pressed): spec {value, options: [[value, label]]};
# - "checkbox": spec {value}; "text": spec {value, placeholder, max_length} and "number": spec
#   {value, start, end, step}, both applied on Enter or when left (a number box that holds no
#   number sends null); "button": spec {} (a click); "matrix": a text box per cell (the node's
#   title, labels (each cell's name, row by row), cell_width, max_chars), spec {texts, n (a
#   counter: the same texts sent again reach the boxes), error (HTML)}, a use {row, col, text}
#   (a cell committed on Enter or when left). Any of them: "disabled".
CONTROL_KINDS = ("range", "select", "choice", "checkbox", "text", "number", "button", "matrix")
MATRIX_FIELDS = ("title", "labels", "cell_width", "max_chars")


def slot(name: str, kind: str, *, caption: str = "", footnote: str = "", **style) -> dict:
    """A slot of a :class:`Board`'s layout: where fragment ``name`` of ``kind`` is drawn.

    ``caption`` and ``footnote`` are Markdown with formulas, made HTML here once (a figure's
    title and note); ``style`` holds ``css`` (classes of the slot's box) and ``width`` (px)."""
    if kind not in SLOT_KINDS:
        raise ValueError(f"tipo de fragmento desconocido: {kind!r}")
    node = {"slot": name, "kind": kind}
    if caption:
        node["caption"] = md_html(caption)
    if footnote:
        node["footnote"] = footnote if footnote.startswith("<") else md_html(footnote)
    for key in ("css", "width"):
        if key in style:
            node[key] = style.pop(key)
    if style:
        raise TypeError(f"opciones desconocidas: {sorted(style)}")
    return node


def control(
    name: str,
    kind: str,
    label: str,
    *,
    help: str = "",
    css: str = "",
    lang: str = "",
    **matrix,
) -> dict:
    """A native control of a :class:`Board` (``kind`` in :data:`CONTROL_KINDS`), named by
    ``label`` (plain text) with an optional ``help`` line under it; slot ``name``'s spec holds
    its value. Its use comes back as ``{"control": name, "value": …}`` (:meth:`Board.receive`).
    ``lang`` marks the control's own element (its options, its text) in another language than
    the page's, the label and the help outside it (e.g. a list of Spanish example sentences on
    an English page). A "matrix" also takes :data:`MATRIX_FIELDS`.
    """
    if kind not in CONTROL_KINDS:
        raise ValueError(f"tipo de control desconocido: {kind!r}")
    if set(matrix) - set(MATRIX_FIELDS) or (matrix and kind != "matrix"):
        raise TypeError(f"opciones desconocidas: {sorted(matrix)}")
    node = {"slot": name, "kind": kind, "control": True, "label": label, **matrix}
    if help:
        node["help"] = help
    if css:
        node["css"] = css
    if lang:
        node["lang"] = lang
    return node


def prose(text: str, css: str = "") -> dict:
    """Fixed text between the slots: Markdown with formulas, made HTML here once."""
    return {"html": md_html(text), **({"css": css} if css else {})}


def box(title: str, *nodes, width: int | None = None, css: str = "") -> dict:
    """Nodes in a framed box under a title (Markdown with formulas, made HTML here once): what
    a Panel Card without a collapse button was, without a model of its own."""
    node = {"box": list(nodes), "title": md_html(title)}
    if width:
        node["width"] = width
    if css:
        node["css"] = css
    return node


def group(name: str, *nodes, css: str = "") -> dict:
    """Nodes one under the other whose box takes slot ``name``'s spec as its inline styles
    (e.g. ``{"display": "none"}``; a style set to "" is cleared): a part shown or hidden by a
    render, what a Column's ``styles`` did, without a model of its own."""
    return {"col": list(nodes), "slot": name, "kind": "styles", **({"css": css} if css else {})}


def row(*nodes, css: str = "") -> dict:
    """Slots (or columns) side by side, wrapping on a narrow screen."""
    return {"row": list(nodes), **({"css": css} if css else {})}


def column(*nodes, css: str = "") -> dict:
    """Slots (or rows) one under the other."""
    return {"col": list(nodes), **({"css": css} if css else {})}


def _slots(node: dict, found: dict[str, str]) -> dict[str, str]:
    if "slot" in node:
        if node["slot"] in found:
            raise ValueError(f"fragmento repetido: {node['slot']!r}")
        found[node["slot"]] = node["kind"]
    for child in _children(node):
        _slots(child, found)
    return found


def _controls(node: dict, found: set[str]) -> set[str]:
    if node.get("control"):
        found.add(node["slot"])
    for child in _children(node):
        _controls(child, found)
    return found


def _children(node: dict) -> list[dict]:
    return node.get("row", []) + node.get("col", []) + node.get("box", [])


def _slot_json(spec) -> str:
    if isinstance(spec, str):  # an "html" slot
        return json.dumps(spec, ensure_ascii=False)
    return spec_json(spec) or "{}"


class Board(Component):
    """Named fragments of ``C04.markup`` in rows and columns, one Bokeh model for all.

    ``layout`` is a list of nodes (:func:`row`, :func:`column`, :func:`box`, :func:`group`,
    :func:`slot`, :func:`prose`), one under the other; ``specs`` maps each slot to its spec (an
    "html" slot to its HTML text). A slot not in ``specs`` is empty. Each slot's box is
    ``div.c04-slot`` with ``data-slot``: the fragment keeps its own data-testid inside, as a
    Markup's did. A node whose ``css`` has ``c04-step-<n>`` is step n of the section's stepper
    (shown up to its step: present.js, followSteps; tests/ui/test_present.py).
    """

    layout = param.List(default=[], constant=True, doc="Rows, columns and slots (see slot()).")
    specs = param.Dict(default={}, doc="Slot name -> its spec (JSON data) or HTML.")
    specs_json = param.String(
        default="{}", doc="``specs`` as JSON text: what the browser receives."
    )
    view = param.String(
        default="",
        constant=True,
        doc="The demo whose browser code (C04.views[view].render) draws the slots from ``state``.",
    )
    lang = param.String(
        default="",
        constant=True,
        doc="The view's language: the catalogue C04.t reads while it draws (a notebook shows "
        "views in several languages; a page, one).",
    )
    state = param.Dict(default={}, doc="The model's numbers the view draws (JSON data).")
    state_json = param.String(default="", doc="``state`` as JSON text: what the browser receives.")
    compare = param.List(
        default=[], item_type=str, doc="Controls whose use leaves the numbers before in view."
    )
    marker = param.String(
        default="", doc="The demo whose marker (data-testid section-<demo>) the board carries."
    )
    copy_link = param.Dict(
        default={},
        doc="A «Copiar enlace» button above the board: {section, labels} (links.js), or none.",
    )
    offline = param.Dict(
        default={},
        doc="The export only: the demo's page code a control runs (demo, kinds, extra).",
    )

    # As a Markup's spec: one JSON text travels in one step, a nested value item by item.
    _rename: ClassVar[dict] = {"specs": None, "state": None}

    def __init__(self, on_control: Callable[[str, object], None] | None = None, **params):
        super().__init__(**params)
        self.kinds = _slots({"col": self.layout}, {})
        self.controls = frozenset(_controls({"col": self.layout}, set()))
        # Slot -> (its spec, its '"name":json' text): a spec that is still the same object is
        # not written again (a spec is never changed in place: a new one replaces it).
        self._slot_texts: dict[str, tuple[object, str]] = {}
        self._encode()
        self._encode_state()
        self._on_control = on_control
        self._pending: dict[tuple, tuple[str, object]] = {}  # paced uses, by control (and cell)
        # Panel's public hook for model.send_msg: each message, as the browser sent it.
        self.on_msg(lambda event: self.receive(event.data))

    def receive(self, msg) -> None:
        """A control's use, ``{"control": name, "value": v}`` (a button's without a value):
        passed to the view's ``on_control``, which checks the value. A message naming no
        control of this board is refused with one INFO line."""
        name = msg.get("control") if isinstance(msg, dict) else None
        known = isinstance(name, str) and name in self.controls
        # A button's click has no value; every other control's use has one.
        fields = {"control"} if known and self.kinds[name] == "button" else {"control", "value"}
        if not known or set(msg) != fields:
            clients.refused("control", {"mensaje": msg}, "no es un uso de un control del tablero")
            return
        if self._on_control is None:
            return
        value = msg.get("value")
        doc = pn.state.curdoc
        wait = clients.turn(doc)
        if wait > 0 or self._pending:
            # Paced (the session sends faster than its updates are computed): the last value of
            # each control (of each cell of a matrix) is handled once the wait is over. A use
            # that comes when the wait is over but the paced ones have not run yet (their
            # timeout runs late on a loaded server) goes behind them: run at once, it would be
            # overwritten by an older value.
            cell = (value.get("row"), value.get("col")) if isinstance(value, dict) else None
            first = not self._pending
            key = (name, repr(cell))
            self._pending.pop(key, None)
            self._pending[key] = (name, value)
            if first:
                doc.add_timeout_callback(lambda: self._drain(doc), wait * 1000)
            return
        self._run(doc, name, value)

    def _drain(self, doc) -> None:
        pending, self._pending = self._pending, {}
        with set_curdoc(doc):
            for name, value in pending.values():
                self._run(doc, name, value)

    def _run(self, doc, name: str, value) -> None:
        start = time.perf_counter()
        try:
            self._on_control(name, value)
        finally:
            clients.spent(doc, time.perf_counter() - start)

    @param.depends("state", watch=True)
    def _encode_state(self) -> None:
        # NaN and infinities are not JSON: a view's state carries none (it fails here, not in
        # the browser).
        self.state_json = (
            json.dumps(self.state, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
            if self.state
            else ""
        )

    @param.depends("specs", watch=True)
    def _encode(self) -> None:
        unknown = set(self.specs) - set(self.kinds)
        if unknown:
            raise KeyError(f"fragmentos que el tablero no tiene: {sorted(unknown)}")
        known, texts = self._slot_texts, {}
        for name, spec in self.specs.items():
            cached = known.get(name)
            if cached is not None and cached[0] is spec:
                texts[name] = cached
            else:  # a shared render's SharedSpec brings its JSON made once for every session
                texts[name] = (spec, f"{json.dumps(name)}:{_slot_json(spec)}")
        self._slot_texts = texts
        self.specs_json = "{" + ",".join(text for _, text in texts.values()) + "}"

    def update_specs(self, parts: dict) -> None:
        """Set the specs of some slots (the others kept), in one change, if any differs."""
        unknown = set(parts) - set(self.kinds)
        if unknown:
            raise KeyError(f"fragmentos que el tablero no tiene: {sorted(unknown)}")
        specs = self.specs
        # The same object is the same spec (a shared render's, for an unchanged state).
        if any(
            (old := specs.get(name)) is not spec and old != spec for name, spec in parts.items()
        ):
            self.specs = {**specs, **parts}

    def run_offline(
        self, demo: str, targets: dict[str, tuple[object, str]] | None = None, **extra
    ) -> None:
        """The export: each control runs ``C04.update(demo, args, kinds)``, the demo's drawing
        in the page, with ``targets``, each control as ``w_<name>`` and ``extra`` (JSON values:
        the constants its ``readState`` reads).

        A target is a slot of this board, or a part of another component of ours (a
        ``JSComponent``: another Board's slot, a Raster's ``esm:values``) that the section
        keeps between boards: board.js finds that one in the page by its Panel ``name`` (its
        data model's), which must then be the only one of its kind on the page (Panel's own
        names, ``Board00042``, are; so is an explicit one, ``pe-heatmap``).

        A board with a ``view`` needs no targets: its control's use runs
        ``C04.views[view].readState(args)`` and gives the state to every board of that view."""
        peers = {}
        targets = targets or {}
        for name, (obj, _) in targets.items():
            if obj is self:
                continue
            if not isinstance(obj, pn.custom.ReactiveESM):
                raise ValueError(
                    "run_offline: cada destino debe ser un fragmento de este tablero o de otro"
                    f" componente propio ({name!r}: {type(obj).__name__})"
                )
            peers[name] = obj.name
        json.dumps(extra)  # only JSON crosses: fails here, not in the page
        kinds = {name: kind for name, (_, kind) in targets.items()}
        self.offline = {"demo": demo, "kinds": kinds, "extra": extra, "peers": peers}

    def slot(self, name: str) -> Slot:
        if name not in self.kinds:
            raise KeyError(name)
        return Slot(self, name)


class Slot:
    """One fragment of a :class:`Board`, read and set as a Markup was: ``spec`` (``object``
    for an "html" slot) and ``kind``."""

    __slots__ = ("board", "name")

    def __init__(self, board: Board, name: str):
        self.board = board
        self.name = name

    @property
    def kind(self) -> str:
        return self.board.kinds[self.name]

    @property
    def spec(self):
        return self.board.specs.get(self.name, "" if self.kind == "html" else {})

    @spec.setter
    def spec(self, value) -> None:
        self.board.update_specs({self.name: value})

    object = spec
