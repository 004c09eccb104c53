"""The walkthrough's stepper: ◀ step n of N ▶ and "all" (drawn and run by
dashboards/static/present.js, live and offline alike)."""

from __future__ import annotations

from typing import ClassVar

import param

from attnmodel.i18n import DEFAULT_LANG, catalogue
from dashboards.components.bundle import Component
from dashboards.components.style import BUTTON_CSS


class Stepper(Component):
    """◀ step n of N ▶ and "all": shows a walkthrough's steps (layouts with the css class
    ``c04-step-<n>``) up to the current one; space moves on (present.js)."""

    labels = param.Dict(default={})
    steps = param.Integer(default=8, bounds=(1, None))
    # Which step nodes it shows: those with css class c04-steps-<group> ("" : those without one).
    group = param.String(default="")

    _stylesheets: ClassVar[list[str]] = [BUTTON_CSS]


def stepper(steps: int, lang: str = DEFAULT_LANG, group: str = "") -> Stepper:
    t = catalogue(lang)
    labels = {
        "title": t["present.step_title"],
        "prev": t["present.step_prev"],
        "next": t["present.step_next"],
        "all": t["present.step_all"],
        "now": t["present.step_now"],  # a template: present.js fills {n} and {total}
        "showing_all": t["present.step_showing_all"],
    }
    return Stepper(
        labels=labels, steps=steps, group=group, margin=(6, 10), sizing_mode="stretch_width"
    )
