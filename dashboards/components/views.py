"""What every demo view is made of: :class:`DemoView` (a view in one language), panes and
columns whose updates stay cheap, a plot's text alternative.
"""

from __future__ import annotations

import panel as pn
import param

from attnmodel import i18n
from attnmodel.formatting import number, percent
from attnmodel.i18n import DEFAULT_LANG


class DemoView(pn.viewable.Viewer):
    """A demo's view: built per session with its model and the language of its text.

    ``t``, ``num``, ``pct`` and ``say`` read the catalogue and write numbers in ``lang``.
    """

    lang = param.Selector(
        default=DEFAULT_LANG,
        objects=list(i18n.languages()),
        constant=True,
        doc="Language of every text and number of the view (a catalogue in attnmodel/locales).",
    )

    def t(self, key: str, /, **values) -> str:
        return i18n.text(key, self.lang, **values)

    def num(self, x: float, decimals: int = 2, signed: bool = False) -> str:
        return number(x, decimals, signed, self.lang)

    def pct(self, p: float, decimals: int = 0) -> str:
        return percent(p, decimals, self.lang)

    def say(self, exc) -> str:
        """A refused input's message (an attnmodel Refusal) in the view's language."""
        return i18n.say(exc, self.lang)

    def parts(self) -> list:
        """What the view shows, top to bottom, for a page to put straight into its own column:
        a Column around each demo was one more Bokeh model on every page that shows it."""
        layout = self.__panel__()
        return list(layout.objects) if type(layout) is pn.Column else [layout]


class LangColumn(pn.Column):
    """A Column whose element carries HTML attributes (Bokeh's ``html_attributes``), e.g.
    ``lang="es"`` around an example kept in Spanish on a page in another language, or the role
    of a landmark (``role="navigation"``, :data:`CONTENT_ATTRIBUTES`)."""

    html_attributes = param.Dict(default={}, doc="Attributes of the column's element.")
