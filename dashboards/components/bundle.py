"""One ES module for every component of ours (Panel's public ``_bundle``).

Each of the lecture's components (a Board, a Markup, the stepper, the navigation, the exercises'
cards…) is a ``pn.custom.JSComponent`` drawn by the page's classic scripts (dashboards/static,
``C04.*``). With an ``_esm`` per class, the page ran Panel's sucrase transform on every
instance's module text and es-module-shims imported one module per class: in a served section
on the phone profile (4× CPU), ~200 ms of its ~1.5 s of JavaScript (a V8 profile of
bench_phone's pages). With one bundle, Panel transforms nothing and imports one module. Served,
every instance names the bundle's URL; saved (the export, a notebook), every instance carries
its text: so it is one line, which calls the entry of the instance's class in
``C04.components`` (dashboards/static/components.js).
"""

from __future__ import annotations

from pathlib import Path

import panel as pn

# Beside this module: Panel serves a bundle by its path relative to the class's module.
BUNDLE = Path(__file__).resolve().with_name("bundle.mjs")


class Component(pn.custom.JSComponent):
    """The base of our components: in the browser, :data:`BUNDLE` draws each with its class's
    entry of ``C04.components``."""

    __abstract = True

    _bundle = BUNDLE
