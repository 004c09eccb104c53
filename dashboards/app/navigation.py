"""The lecture's navigation: the sections' buttons, the links to the other languages and the
presenter's switches (projector, shortcuts: present.js), drawn in the browser by one component
of ours inside a ``<nav>`` landmark (native ``<button>``s: focusable, pressed state and a 44 px
target without help), instead of a Panel button group, two HTML panes, the presenter's own
component and a Column around them (5 Bokeh models → 2).

A click sends the section's id as a message (Panel's ``on_msg``: no 50 ms debounce, no property
written by the browser). The id is checked here against the lecture's sections; anything else a
client sends is refused with one INFO line, the section on screen kept. A lecturer's shortcut
(present.js) comes as ``{"action": …}`` and goes to the lecture's handler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import param

from dashboards.app.present import ACTIONS
from dashboards.runtime import clients
from dashboards.sharing.live_link import Address

# Its own sheet: the buttons stacked, each as wide as the column, the one on screen filled; at a
# phone's width (≤ 700 px) all of it folded behind one button that names the section on screen.
NAV_CSS = """
:host { display: block; width: 100%; }
:host .c04-nav-title { font-weight: 700; margin: 10px 10px 4px 10px; }
:host .c04-nav-list { display: flex; flex-direction: column; gap: 4px; margin: 4px 10px; }
:host button { font: inherit; text-align: left; white-space: normal; cursor: pointer;
  padding: 6px 12px; min-height: 36px; color: #174a87; background: #fff;
  border: 1px solid #174a87; border-radius: 4px; }
:host button:hover { background: #e8eef6; }
:host button[aria-current=true] { color: #fff; background: #174a87; }
:host button:focus-visible { outline: 3px solid #174a87; outline-offset: 2px; }
:host .c04-note { margin: 10px; }
:host .c04-presenter { margin: 8px 10px; display: flex; flex-wrap: wrap; gap: 4px; }
:host .c04-presenter button { font-size: 90%; padding: 4px 10px; }
:host .c04-presenter button[aria-pressed=true] { color: #fff; background: #174a87; }
:host .c04-nav-toggle { display: none; }
@media (max-width: 700px) {
  :host button { min-height: 44px; min-width: 44px; }
  :host .c04-nav-toggle { display: block; width: calc(100% - 20px); margin: 4px 10px;
    font-weight: 700; }
  :host .c04-nav-toggle::after { content: " ▾"; }
  :host .c04-nav-toggle[aria-expanded=true]::after { content: " ▴"; }
  :host .c04-nav-title { display: none; }
  :host .c04-nav-menu:not(.c04-open) { display: none; }
}
"""


class Navigation(Address):
    """One button per section (the one on screen marked ``aria-current``), the links to this
    section in the other languages, then the presenter's switches; and, as the page's
    :class:`~dashboards.sharing.live_link.Address` (one component fewer on every page), the
    browser's address and what a link ignored, said under them."""

    options = param.Dict(default={}, doc="Each section's label → its id, in the lecture's order.")
    value = param.String(default="", doc="Id of the section on screen.")
    heading = param.String(default="", doc="The title above the buttons.")
    languages = param.String(
        default="", doc="HTML made by the server: this section in the other languages."
    )
    label = param.String(default="", doc="The landmark's name (a11y.nav).")
    presenter = param.Dict(
        default={}, doc="The presenter's texts and the page's sections (present.labels)."
    )

    _stylesheets: ClassVar[list[str]] = [NAV_CSS]

    def __init__(self, on_action: Callable[[str], None] | None = None, **params):
        params.setdefault("width", 250)
        params.setdefault("margin", (10, 10))
        params.setdefault("sizing_mode", None)  # its width (Address's default stretches)
        super().__init__(**params)
        self._on_action = on_action
        # The lecture's sections, as built: a client may rewrite its own copy of ``options``.
        self._sections = frozenset(self.options.values())
        # Each message comes to receive() through the Address's on_msg (Panel's public hook).

    def knows(self, section_id) -> bool:
        return isinstance(section_id, str) and section_id in self._sections

    def receive(self, msg) -> None:
        if isinstance(msg, dict) and set(msg) == {"popstate"}:  # back/forward: the Address's
            super().receive(msg)
            return
        asked = msg.get("section") if isinstance(msg, dict) else None
        action = msg.get("action") if isinstance(msg, dict) else None
        if self.knows(asked):
            self.value = asked
        elif action in ACTIONS and len(msg) == 1:
            if self._on_action is not None:
                self._on_action(action)
        else:
            clients.refused("navegación", {"mensaje": msg}, "no pide una sección de la clase")
