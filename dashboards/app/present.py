"""In front of a class: the projector switch and the keyboard shortcuts (drawn and run by
dashboards/static/present.js, live and offline alike; the walkthrough's stepper is
dashboards/components/stepper.py).

Live, the shortcuts that change the session (the section, a reset) come to the server as
messages: :class:`Presenter` passes them to the lecture's handler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import param

from attnmodel.i18n import DEFAULT_LANG, catalogue
from dashboards.components.board import Slot
from dashboards.components.bundle import Component
from dashboards.components.style import BUTTON_CSS
from dashboards.demos import registry

ACTIONS = ("next", "prev", "reset")


def labels(lang: str, sections: list[str], demos: dict[str, list[str]]) -> dict:
    t = {k.split(".", 1)[1]: v for k, v in catalogue(lang).items() if k.startswith("present.")}
    keys = [
        ("← →", t["key_arrows"]),
        ("R", t["key_reset"]),
        ("1 … 9", t["key_digits"]),
        (t["space"], t["key_space"]),
        ("P", t["key_projector"]),
        ("?", t["key_help"]),
    ]
    return {
        "projector": t["projector"],
        "shortcuts": t["shortcuts"],
        "title": t["title"],
        "close": t["close"],
        "keys": keys,
        "sections": sections,
        "demos": demos,
    }


class Presenter(Component):
    """The projector switch and the shortcuts' help button; the keys (present.js)."""

    labels = param.Dict(default={}, doc="Texts, the page's sections and their demos.")
    mode = param.Selector(default="live", objects=["live", "export"], constant=True)

    _stylesheets: ClassVar[list[str]] = [BUTTON_CSS]

    def __init__(self, on_action: Callable[[str], None] | None = None, **params):
        super().__init__(**params)
        # Panel's public hook for model.send_msg: each message, as the browser sent it.
        self.on_msg(lambda event: self.receive(event.data))
        self._on_action = on_action

    def receive(self, msg) -> None:
        action = msg.get("action") if isinstance(msg, dict) else None
        if action in ACTIONS and self._on_action is not None:
            self._on_action(action)


def page_labels(lang: str = DEFAULT_LANG, sections: list[str] | None = None) -> dict:
    """The presenter's texts for a page of ``sections`` (ids in its order; default: the
    lecture's) and their demos: a Presenter's, or the lecture's navigation's."""
    ids = sections if sections is not None else [s.id for s in registry.SECTIONS]
    demos = {s.id: list(s.demos) for s in registry.SECTIONS if s.id in ids}
    return labels(lang, ids, demos)


def presenter(
    lang: str = DEFAULT_LANG,
    sections: list[str] | None = None,
    on_action: Callable[[str], None] | None = None,
    mode: str = "live",
) -> Presenter:
    """The page's presenter: ``sections`` the ids in its order (default: the lecture's)."""
    return Presenter(
        labels=page_labels(lang, sections),
        mode=mode,
        on_action=on_action,
        margin=(4, 10),
    )


def mark_compare(demo_id: str, view) -> None:
    """Mark the Board controls of the demo's ``compare`` parameters (``Board.compare``): using
    one leaves the numbers before it in view (dashboards/static/markup.js)."""
    controls = view.link_widgets()
    for name in registry.demo(demo_id).compare:
        control: Slot = controls[name]  # a Board's control: its board marks it (board.js)
        if control.name not in control.board.compare:
            control.board.compare = [*control.board.compare, control.name]
