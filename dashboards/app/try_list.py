"""«Para seguir jugando»: the seed's bullets, each with a button that sets its state and opens its
section, drawn in the browser by one component of ours (native ``<button>``s) instead of a
Panel Button, a Markdown pane and a Row per bullet (43 → 28 Bokeh models for the section).

A click sends the bullet's number as a message (Panel's ``on_msg``); the number is checked here
against the bullets; anything else a client sends is refused with one INFO line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import param

from dashboards.components.bundle import Component
from dashboards.runtime import clients

TRY_CSS = """
:host { display: block; width: 100%; }
:host .c04-try-row { display: flex; align-items: center; gap: 10px; margin: 8px 10px; }
:host .c04-try-row p { margin: 0; }
:host button { font: inherit; flex: 0 0 auto; min-width: 110px; padding: 6px 12px;
  cursor: pointer; color: #fff; background: #174a87; border: 1px solid #174a87;
  border-radius: 4px; }
:host button:hover { background: #0f3868; }
:host button:focus-visible { outline: 3px solid #174a87; outline-offset: 2px; }
@media (max-width: 700px) {
  :host .c04-try-row { flex-direction: column; align-items: flex-start; }
  :host button { min-height: 44px; min-width: 44px; }
}
"""


class TryList(Component):
    """The heading, then one row per bullet (``div.c04-try-row.c04-exercise-<n>``: a button,
    then the bullet's text), then a closing note."""

    heading = param.String(default="", doc="HTML above the bullets, made by the server.")
    items = param.List(
        default=[], doc="Each bullet: {html: its text as HTML made by the server}, in order."
    )
    button_label = param.String(default="", doc="Every button's label.")
    note = param.String(default="", doc="HTML under the bullets, made by the server.")

    _stylesheets: ClassVar[list[str]] = [TRY_CSS]

    def __init__(self, on_try: Callable[[int], None] | None = None, **params):
        params.setdefault("sizing_mode", "stretch_width")
        params.setdefault("margin", 0)
        super().__init__(**params)
        self._on_try = on_try
        # Panel's public hook for model.send_msg: each message, as the browser sent it.
        self.on_msg(lambda event: self.receive(event.data))

    def receive(self, msg) -> None:
        """{exercise: n} from a click on bullet n (1-based): its action; anything else refused."""
        n = msg.get("exercise") if isinstance(msg, dict) else None
        if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= len(self.items):
            if self._on_try is not None:
                self._on_try(n)
        else:
            clients.refused("para seguir jugando", {"mensaje": msg}, "no es uno de los ejercicios")
