"""What a Jupyter notebook's page needs before a view can draw (docs/clase04.ipynb).

A served page loads the browser code from /c04/ (``session._markup_script``) and the export
inlines it; in a kernel, :func:`~dashboards.app.session.configure` displays it as one output,
before any view: the scripts of dashboards/static as the export inlines them, and the
catalogue of the default language (``#c04-text``) and of each other one (``#c04-text-<lang>``,
which ``C04.t`` reads while a view in that language draws: a notebook shows both). Without it,
every Board's ESM threw on an undefined ``window.C04`` and no view drew
(tests/ui/test_notebook.py renders the notebook's outputs in Chromium).

The output is HTML with ``<script>`` elements: JupyterLab, Notebook and VS Code run those of a
trusted output (one made in this session, as Panel's own outputs are).
"""

from __future__ import annotations

import sys

from attnmodel.i18n import DEFAULT_LANG, catalogue_json, languages
from dashboards.components import mathml
from dashboards.components.scripts import (
    json_in_script,
    script_element,
    static_scripts,
    without_comment_lines,
)
from dashboards.demos import registry


def in_kernel() -> bool:
    """A Jupyter kernel runs this (Panel's own test: an IPython shell with a kernel)."""
    ipython = sys.modules.get("IPython")
    return ipython is not None and hasattr(ipython.get_ipython(), "kernel")


def browser_code() -> str:
    """The catalogues and the scripts, as HTML (about 0.3 MB, once per ``configure()``)."""
    parts = []
    for lang in languages():
        element = "c04-text" if lang == DEFAULT_LANG else f"c04-text-{lang}"
        words = catalogue_json(lang, registry.BROWSER_TABLES, mathml.catalogue(lang))
        parts.append(
            f'<script type="application/json" id="{element}">{json_in_script(words)}</script>'
        )
    for name, code in static_scripts():
        parts.append(script_element(f"/* {name} */\n{without_comment_lines(code)}"))
    return "\n".join(parts)


def show() -> None:
    """Display :func:`browser_code` as this cell's output (a kernel only)."""
    from IPython.display import HTML, display

    display(HTML(browser_code()))
