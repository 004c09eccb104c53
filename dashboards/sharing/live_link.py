"""The link in the page: the address follows the state, a link opens its state, "Copiar enlace".

- :class:`Address` (live): the browser's address follows the models (``links.encode``): a change
  writes the query, a burst of changes (a slider dragged) one history entry
  (``C04.links.write`` in dashboards/static/links.js); back/forward send the address back and
  :class:`LinkState` applies it.

  Not Panel's ``pn.state.location.sync``: its Location pushes a history entry for every change of
  ``search`` (a dragged slider is dozens) and does not listen to ``popstate`` (only
  ``hashchange``), so back/forward would change the address and nothing else (panel 1.9.4,
  models/location.ts). ``pn.state.location`` still gives the address the page was opened with.
- :class:`CopyLink`: one button per demo, the page's address with that demo's section.
- The export: :func:`export_fields` describes each field's widget for dashboards/static/links.js,
  which reads the fragment (``#…``) and applies it to the widgets, their own callbacks computing
  the numbers as for a student's click.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from typing import ClassVar

import panel as pn
import param

from attnmodel.i18n import DEFAULT_LANG, text
from dashboards.components.board import Board, Slot
from dashboards.components.bundle import Component
from dashboards.components.markup import Markup
from dashboards.components.matrix import MatrixEditor
from dashboards.sharing import links

# The longest address the browser may send back (a link is refused beyond links.MAX_LINK_CHARS
# anyway; this only bounds what a message can make the server parse).
MAX_MESSAGE_CHARS = 4 * links.MAX_LINK_CHARS


class Address(Component):
    """Keeps the browser's address equal to ``query``, reports back/forward, and says what a
    link's address had that was ignored (``notice``; nothing drawn without one).

    The first ``query`` replaces the address the page was opened with (a hostile link's valid
    part, or the same link); each later one is written by ``C04.links.write`` (one history
    entry per burst of changes). On ``popstate`` the ESM sends ``{"popstate": "?…"}``.
    """

    query = param.String(default="", doc="The link of the state on screen, without its '?'.")
    notice = param.Dict(default={}, doc="What the link ignored: a note's spec (notice_spec).")

    def __init__(self, on_popstate: Callable[[str], None] | None = None, **params):
        params.setdefault("margin", (0, 10))
        params.setdefault("sizing_mode", "stretch_width")
        super().__init__(**params)
        # Panel's public hook for model.send_msg: each message, as the browser sent it.
        self.on_msg(lambda event: self.receive(event.data))
        self._on_popstate = on_popstate

    def on_popstate(self, callback: Callable[[str], None]) -> None:
        """Where back/forward's address goes (:meth:`LinkState.apply`)."""
        self._on_popstate = callback

    def receive(self, msg) -> None:
        # A message is whatever a client sends: only a short string under "popstate" is read.
        search = msg.get("popstate") if isinstance(msg, dict) else None
        if isinstance(search, str) and len(search) <= MAX_MESSAGE_CHARS and self._on_popstate:
            self._on_popstate(search)


class CopyLink(Component):
    """A "Copiar enlace" button: copies the page's address, set to ``section`` when the page
    has sections (live ``?seccion=``, export ``#seccion=``), and says so; where the clipboard
    is refused (an old browser, some file:// pages) it shows the link selected to copy.

    The first thing of a demo on a page, it also carries the demo's marker (``marker``:
    ``data-testid="section-<demo>"``, the anchor the export's navigation scrolls to and the
    browser tests' sign that the demo is drawn), a pane of its own before."""

    section = param.String(default="", doc="The section the link opens ('' for none).")
    labels = param.Dict(default={}, doc="copy, copied, copy_manual, copy_label in the language.")
    marker = param.String(default="", doc="The demo whose marker it carries ('' for none).")

    _stylesheets: ClassVar[list[str]] = [
        """
:host button { font: inherit; font-size: 90%; padding: 4px 10px; cursor: pointer;
  color: #174a87; background: #fff; border: 1px solid #174a87; border-radius: 4px; }
:host button:focus-visible { outline: 3px solid #174a87; outline-offset: 2px; }
:host .c04-link-status { font-size: 90%; color: #2a5a2a; margin-left: 8px; }
:host input { width: min(36em, 90%); font-size: 85%; margin-top: 4px; }
@media (max-width: 700px) { :host button, :host input { min-height: 44px; min-width: 44px; } }
"""
    ]


def copy_labels(lang: str = DEFAULT_LANG) -> dict[str, str]:
    return {k: text(f"links.{k}", lang) for k in ("copy", "copied", "copy_manual", "copy_label")}


def copy_link(section: str, lang: str = DEFAULT_LANG, marker: str = "") -> CopyLink:
    """The button of a page (``section`` ''), or of demo ``marker``'s place in ``section``."""
    return CopyLink(section=section, labels=copy_labels(lang), marker=marker, margin=(4, 10, 0, 10))


def demo_parts(view, section: str, lang: str, demo_id: str) -> list:
    """A demo's parts in a section, its «Copiar enlace» and marker first: drawn by the view's
    first Board (no component of their own), else a :class:`CopyLink` before the view."""
    parts = view.parts()
    first = parts[0] if parts else None
    if isinstance(first, Board):
        first.param.update(
            marker=demo_id, copy_link={"section": section, "labels": copy_labels(lang)}
        )
        return parts
    return [copy_link(section, lang, marker=demo_id), *parts]


def notice_pane() -> Markup:
    """Where a link's ignored part is said (``links.notice``) in the export, whose links.js
    writes it; a live page says it in its :class:`Address`."""
    return Markup(
        kind="note",
        margin=(4, 10),
        sizing_mode="stretch_width",
        css_classes=["c04-link-notice"],
    )


def notice_spec(ignored: list[links.Ignored], lang: str) -> dict:
    said = links.notice(ignored, lang)
    if not said:
        return {}
    return {"testid": "link-notice", "cls": "c04-note c04-link-notice", "text": said}


class LinkState:
    """The link of one page (the lecture, or one demo on its own): applies the address it was
    opened with and each back/forward to the models, says what it ignored, and keeps
    :class:`Address` equal to the state. ``section``: a getter and a setter of the page's
    section, for the lecture."""

    def __init__(
        self,
        models: Mapping[str, object],
        lang: str = DEFAULT_LANG,
        section: tuple[Callable[[], str], Callable[[str], None]] | None = None,
        address: Address | None = None,
    ):
        self.models = dict(models)
        self.lang = lang
        self.section = section
        # The page's Address, or a component of the page that is one (the lecture's navigation).
        self.address = address if address is not None else Address()
        self.address.on_popstate(self.apply)
        # Each demo's part of the link, recomputed only when that demo changes (every page
        # has all six demos; a follower's update recomputed all six: 4.5 % of it, py-spy).
        self._pairs = {d: links.demo_pairs(d, m) for d, m in self.models.items()}
        for demo_id, model in self.models.items():
            fields = [f.param for f in links.fields(demo_id)]
            model.param.watch(functools.partial(self._changed, demo_id), fields)

    def apply(self, link: str, navigate: bool = True, only_changed: bool = False) -> None:
        """Apply a link (``?…``): its demos' values and (``navigate``) its section; say what it
        ignored. The lecture opens the first section itself (lazily), so not ``navigate``.
        ``only_changed``: leave alone the demos whose fields the link gives as they are now (a
        followed class: one control changed, one demo recomputed, not six)."""
        pairs = links.parse(link)
        models = self.models
        if only_changed:
            given, now = dict(pairs), dict(links.parse(self.address.query))
            models = {
                demo_id: model
                for demo_id, model in self.models.items()
                if any(given.get(f.key) != now.get(f.key) for f in links.fields(demo_id))
            }
        with pn.io.hold():
            ignored = links.decode(pairs, models, self.lang)
            if self.section is not None and navigate:
                wanted = dict(pairs).get(links.SECTION_KEY)
                if wanted is not None:
                    self.section[1](wanted)
            self.address.notice = notice_spec(ignored, self.lang)
            self.refresh()

    def _changed(self, demo_id: str, *_events) -> None:
        self._pairs[demo_id] = links.demo_pairs(demo_id, self.models[demo_id])
        self.refresh()

    def refresh(self) -> None:
        section = self.section[0]() if self.section is not None else None
        self.address.query = links.encode_pairs(self._pairs, section, self.lang)


def opened_with() -> str:
    """The query the served page was opened with (``pn.state.location``), "" elsewhere."""
    location = pn.state.location
    return location.search if location is not None and location.search else ""


# ---------------------------------------------------------------------------------------------
# The export


def _css(field: links.Field) -> str:
    return "-".join(["c04-link", field.demo, field.param])


def _tag(widget, css: str) -> None:
    widget.css_classes = [*widget.css_classes, css]


def _widget_field(field: links.Field, widget, lang: str) -> dict:
    """How links.js reads and sets one field's control in the export (a Board's control, its
    board tagged with the field's css class; the map from the link's text to the control's
    value, or the values it offers)."""
    out: dict = {"css": _css(field)}
    if isinstance(widget, MatrixEditor):  # a Board's "matrix" control
        _tag(widget.board, out["css"])
        p = widget.model.param[field.param]
        out.update(
            control=widget.name_param,
            rows=len(widget.texts),
            cols=len(widget.texts[0]),
            max_abs=p.max_abs,
            label=p.label_es or p.name,  # as Matrix's refusal names it
            bound=p.bound_text,
        )
        return out
    if widget is None:  # kept by the view's twin itself (scaling's seed)
        return out
    if isinstance(widget, Slot):  # a Board's control: links.js goes through C04.boards
        _tag(widget.board, out["css"])
        out["control"] = widget.name
        spec = widget.spec
        if widget.kind == "range" and "values" in spec:  # stops: the link's text is the stop
            out["map"] = {str(v): i for i, v in enumerate(spec["values"])}
        elif widget.kind in ("range", "number"):  # the link's number is the control's
            out["range"] = [spec["start"], spec["end"], spec["step"]]
        elif widget.kind in ("select", "choice") and field.param != "focus":
            out["map"] = {links.to_text("text", v): v for v, _ in spec["options"]}
        # (the explorer's focus: the index is the value, its options those of the sentence
        # on screen: links.js checks it against them)
        elif widget.kind == "text":
            out["max_chars"] = spec.get("max_length")
        return out
    raise TypeError(f"{field.key}: no es un control de un tablero ({type(widget).__name__})")


def export_fields(demo_id: str, view, lang: str = DEFAULT_LANG) -> list[dict]:
    """The fields of a demo on an exported page, for dashboards/static/links.js: each with its
    key, kind, condition, default text and widget (``view.link_widgets()``)."""
    widgets = view.link_widgets()
    defaults = links.default_texts(demo_id)
    out = []
    for field in links.fields(demo_id):
        spec = _widget_field(field, widgets[field.param], lang)
        extra = view.link_export(field.param) if hasattr(view, "link_export") else None
        out.append(
            {
                "key": field.key,
                "demo": field.demo,
                "kind": field.kind,
                "when": [f"{field.demo}.{field.when[0]}", links.to_text("text", field.when[1])]
                if field.when
                else None,
                "default": defaults[field.param],
                **spec,
                **(extra or {}),
            }
        )
    return out


def export_spec(states: dict, demo_id: str, view, lang: str, sections: bool) -> None:
    """Add a demo's fields to a page's embedded states (``states["links"]``)."""
    spec = states.setdefault(
        "links", {"sections": sections, "fields": [], "grammar": links.grammar()}
    )
    spec["fields"] += export_fields(demo_id, view, lang)


def spec_json(spec: dict) -> str:
    return json.dumps(spec, ensure_ascii=False)
