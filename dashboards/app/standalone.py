"""Each demo served on its own (``/self_attention``, ``/scaling``, …): its view, its link, its
exercises and projector mode's keys, without the lecture around it.
"""

from __future__ import annotations

import panel as pn

from dashboards.app import present
from dashboards.app.session import configure, requested_lang, serve
from dashboards.demos import registry
from dashboards.sharing import links, live_link, practice


def serve_demo(demo_id: str) -> None:
    """The end of each demo's module, served on its own (``panel serve
    dashboards/demos/<module>.py``, at ``/<module>``): only when the module runs as that app
    script does it import this one (the demos never import the app otherwise):
    the registry's view for ``demo_id`` with a model of its own, in the page's ``?lang=``,
    titled from the catalogue."""
    configure()
    demo = registry.demo(demo_id)
    lang = requested_lang()
    model = demo.model_class()()
    link = live_link.LinkState({demo.id: model}, lang)
    link.apply(live_link.opened_with())
    view = demo.view_class()(model=model, lang=lang)
    present.mark_compare(demo.id, view)

    def shortcut(action: str) -> None:  # R: the demo back to its defaults (no sections here)
        if action == "reset":
            links.decode([], {demo.id: model}, lang)

    page = pn.Column(
        present.presenter(lang, [], on_action=shortcut),
        link.address,
        live_link.copy_link("", lang),
        view,
        practice.block(demo.id, lang, model),
        practice.progress([e.id for e in practice.exercises.of_demo(demo.id)], lang),
        sizing_mode="stretch_width",
    )
    serve(page, demo.title(lang), lang)
