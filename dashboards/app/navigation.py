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

# Its own sheet: the buttons stacked, each as wide as the column, the one on screen filled.
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
@media (max-width: 700px) { :host button { min-height: 44px; min-width: 44px; } }
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

    _esm = """
export function render({ model, el }) {
  const nav = document.createElement("nav")
  nav.setAttribute("aria-label", model.label)
  const title = document.createElement("div")
  title.className = "c04-nav-title"
  const list = document.createElement("div")
  list.className = "c04-nav-list"
  const languages = document.createElement("div")
  const presenter = document.createElement("div")
  presenter.className = "c04-presenter"
  const notice = document.createElement("div")
  nav.append(title, list, languages, presenter, notice)
  el.append(nav)
  model.on("remove", window.C04.links.follow(model, notice))  // the page's address
  const draw = () => {
    title.textContent = model.heading
    const focused = list.contains(el.getRootNode().activeElement)
      ? el.getRootNode().activeElement.dataset.section : null
    list.replaceChildren()
    for (const [label, id] of Object.entries(model.options)) {
      const button = document.createElement("button")
      button.type = "button"
      button.textContent = label
      button.dataset.section = id
      button.setAttribute("aria-current", String(id === model.value))
      button.addEventListener("click", () => model.send_msg({ section: id }))
      list.append(button)
      if (id === focused) button.focus()
    }
    languages.innerHTML = model.languages
  }
  const mark = () => {
    for (const button of list.children) {
      button.setAttribute("aria-current", String(button.dataset.section === model.value))
    }
    languages.innerHTML = model.languages
  }
  model.on(["options", "heading"], draw)
  model.on(["value", "languages"], mark)
  draw()
  // present.js draws and runs the switches as for a presenter of its own; its keys come back
  // here as messages.
  const live = { labels: model.presenter, mode: "live", send_msg: (msg) => model.send_msg(msg) }
  const stop = window.C04.present.renderPresenter(live, presenter)
  model.on("remove", stop)
}
"""
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
