"""The frame of a page, served or exported: the template with the page's language and a phone's
viewport, the skip link, the landmarks, the links to the other languages.
"""

from __future__ import annotations

import functools
import logging

import panel as pn
from panel.io.resources import BASE_TEMPLATE

from attnmodel import i18n
from dashboards.components import mathml
from dashboards.components.markup import esc
from dashboards.components.style import SKIP_CSS

log = logging.getLogger("dashboards.components.page")


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


# Panel's template writes the page's scripts as one text, ``bokeh_js``: each bundle a line
# ``<script type="text/javascript" src="…">`` when served. Panel adds Bokeh's MathJax bundle
# (1.8 MB) to every page that has an HTML or Markdown pane (panel.io.resources,
# _panel_use_mathjax), with or without pn.extension("mathjax"); the lecture's formulas are
# MathML written on the server (components/mathml.py), so the page leaves that bundle out,
# whole. The export leaves it out of the resources it saves with (export.py, save_html).
PANEL_SCRIPTS = "{{  bokeh_js if bokeh_js }}"
SCRIPTS_WITHOUT_MATHJAX = """{%- for line in (bokeh_js or "").split("\\n")
  if not (line.lstrip().startswith("<script ") and "/bokeh-mathjax" in line) %}{{ line }}
{% endfor %}"""


@functools.cache
def page_template(lang: str, tables: tuple[str, ...] = ("a11y",)):
    """Panel's page template with ``<html lang="{lang}">`` (Panel writes ``lang="en"`` outside
    any block, so a template that extends it cannot change it): what a screen reader reads
    the page in; plus the viewport of a phone and the catalogue's ``tables`` the browser code
    reads (``C04.t``: a11y.js's words, each demo's drawing), its formulas as MathML as the export
    embeds it, and without Bokeh's MathJax bundle (:data:`SCRIPTS_WITHOUT_MATHJAX`). Bokeh's
    public ``Document.template`` takes it (see :func:`serve`)."""
    env = BASE_TEMPLATE.environment
    source = env.loader.get_source(env, BASE_TEMPLATE.name)[0]
    if source.count('<html lang="en"') != 1 or source.count("</head>") != 1:
        log.info("La plantilla de Panel cambió; la página queda con su lang original")
        return BASE_TEMPLATE
    if source.count(PANEL_SCRIPTS) == 1:
        source = source.replace(PANEL_SCRIPTS, SCRIPTS_WITHOUT_MATHJAX)
    else:
        log.info("La plantilla de Panel cambió; la página carga MathJax, que no usa")
    # The catalogue as the export embeds it (#c04-text).
    words = i18n.catalogue_json(lang, tables, mathml.catalogue(lang)).replace("</", "<\\/")
    raw = f"{{% raw %}}{words}{{% endraw %}}"  # JSON is not Jinja
    text = f'<script type="application/json" id="c04-text">{raw}</script>'
    source = source.replace('<html lang="en"', f'<html lang="{lang}"', 1)
    return env.from_string(source.replace("</head>", f"{VIEWPORT_META}\n{text}\n</head>", 1))


# No tabindex here: a shadow host with tabindex="-1" takes its whole shadow tree out of the Tab
# order (the section's controls could not be reached from the navigation); a11y.js sets it
# only while it moves the focus there.
CONTENT_ATTRIBUTES = {"data-c04-content": "", "role": "main"}


def skip_link(lang: str) -> str:
    """A "Saltar al contenido" link, the first thing a keyboard reaches on a page: HTML (an
    HTML block of its own in Markdown), for a pane whose stylesheets include
    :data:`~dashboards.components.style.SKIP_CSS`."""
    label = esc(i18n.text("a11y.skip", lang))
    return f'<div class="c04-skip-box"><a class="c04-skip" href="#contenido">{label}</a></div>'


def skip_pane(lang: str) -> pn.pane.HTML:
    """The skip link in a pane of its own (the export's pages)."""
    return pn.pane.HTML(skip_link(lang), stylesheets=[SKIP_CSS], margin=0)
