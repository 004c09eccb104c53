"""What every served session does first: :func:`configure` (Panel's extensions, the page's CSS
and scripts, the log, class mode's redaction, the framework patches), the key of a reused
session, the page's ``?lang=`` and :func:`serve`.

Everything that holds state is built inside a function or a Viewer instance (one per browser
session); nothing stateful lives at module level.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import warnings

import panel as pn
from bokeh.settings import settings as bokeh_settings
from bokeh.util.warnings import BokehUserWarning
from panel.io.resources import LOCAL_DIST
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError

from attnmodel import i18n
from attnmodel.i18n import DEFAULT_LANG
from dashboards.app import notebook
from dashboards.classroom import shared_state
from dashboards.components.page import page_template
from dashboards.components.style import CSS

# Panel makes a JSComponent's data model when its class is defined; a class defined while a
# session is connected (a demo's module is imported when its section is first built, often
# after the page connected) ships that model's definition with its first instance, which
# BokehJS then cannot send back: that instance's first message fails in the page ("[object
# Function] is not serializable"). MiniLM's HeadGrid, the one component a demo module defines,
# is therefore defined here, as the server starts (as the Board is, in components/).
from dashboards.demos import minilm as _head_grid_module  # noqa: F401
from dashboards.demos import registry
from dashboards.runtime import clients

log = logging.getLogger("dashboards.app.session")


def configure() -> None:
    """Load the Panel extensions the lecture needs (idempotent).

    Also sends the views' log (a rejected input is one INFO line) to stderr next to the
    server's own log lines.
    """
    logger = logging.getLogger("dashboards")
    if not logger.handlers:
        handler = CurrentStderr()
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    # No "mathjax": formulas are MathML, written on the server (components/mathml.py).
    pn.extension(raw_css=[CSS], design="native", notifications=False)
    if notebook.in_kernel():  # the browser code that pages load from /c04/ or inline
        notebook.show()
    pn.config.session_key_func = session_key
    _local_stylesheets()
    _markup_script()
    quiet_closed_websockets()
    clients.install_log_filters()
    shared_state.install_redaction()
    # Bokeh's public setting: no callback signature checks (inspect.signature on each of the
    # ~3 on_change per model that Panel registers) and no spelling suggestions on a missing
    # attribute. Measured (cProfile, the first section's models): 9 % of a session's build.
    bokeh_settings.perform_error_diagnostics.set_value(False)
    # BokehJS 3.9 counts the models a server's patch brings (a section built after the page
    # loaded) as the page's own new models (Document._apply_json_patch adds them to
    # _new_models), so the page's first message that names one (a Board's control, an
    # exercise's answer: model.send_msg) sends its whole definition back, and the server warns
    # "reference already known" and keeps its own model: nothing goes wrong, one line of noise
    # per component. Upstream: bokeh/bokeh#12915 turned the error into this warning "so that
    # this gets fixed"; the closing note of issue 36 has a minimal reproduction.
    warnings.filterwarnings("ignore", "reference already known", BokehUserWarning)


class CurrentStderr(logging.StreamHandler):
    """A StreamHandler on ``sys.stderr`` as it is when a line is written, not as it was when
    the handler was made: pytest puts a capture there for each test and closes it after, and a
    line from a thread that outlived its test (class mode's turn watchdog, 5 s later) raised
    "I/O operation on closed file" in the suite's output."""

    def __init__(self):
        super().__init__(sys.stderr)

    def emit(self, record) -> None:
        self.stream = sys.stderr
        super().emit(record)


def quiet_closed_websockets() -> None:
    """A student closing the tab while the server writes to it is not an error (once per loop).

    Panel's ``_dispatch_msgs`` (panel/io/document.py) checks that a websocket is open, then
    writes a message's frames; when the client goes between two, tornado raises
    WebSocketClosedError in a task nobody awaits, and asyncio logs "Task exception was never
    retrieved" with a traceback (seen under the parallel `make test`: a page closed while its
    section was updating). This exception handler of the server's loop logs that case as one
    INFO line and passes every other one on to the handler that was there.
    """
    try:
        loop = asyncio.get_running_loop()  # served: the server's loop, running this script
    except RuntimeError:
        return
    previous = loop.get_exception_handler()
    if getattr(previous, "c04_quiet", False):
        return

    def handler(loop, context):
        exc = context.get("exception")
        if isinstance(exc, WebSocketClosedError | StreamClosedError):
            log.info("El cliente cerró la conexión durante un envío (%s)", type(exc).__name__)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    handler.c04_quiet = True
    loop.set_exception_handler(handler)


def _local_stylesheets() -> None:
    """Point this session's stylesheets at the server's /static/, not at cdn.holoviz.org.

    Panel sets that path when it renders a session's page; under ``--reuse-sessions`` the page
    comes from a shared session and each student's own session (built when its websocket
    connects) would load 8 stylesheets from the CDN: unstyled widgets without internet.
    """
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:  # not served (tests, the export)
        return
    dist = f"{pn.state.rel_path}/{LOCAL_DIST}" if pn.state.rel_path else LOCAL_DIST
    # Bokeh's Document.template_variables (public): the variables its page template is rendered
    # with; Panel's template reads dist_url from there. Without it, 8 CDN stylesheets per session.
    doc.template_variables.setdefault("dist_url", dist)


# Where the served page loads dashboards/static/markup.js and a11y.js (serving.command serves
# that folder at /c04/); the export inlines the files its page uses instead.
CORE_URL = "c04/c04.js"
MARKUP_URL = "c04/markup.js"
BOARD_URL = "c04/board.js"
A11Y_URL = "c04/a11y.js"
LINKS_URL = "c04/links.js"
EXERCISES_URL = "c04/exercises.js"
PRESENT_URL = "c04/present.js"
CLASSROOM_URL = "c04/classroom.js"
APP_URL = "c04/app.js"
COMPONENTS_URL = "c04/components.js"


def _markup_script() -> None:
    """Load the page's scripts of dashboards/static in served pages: the markup renderer
    (``C04.markup``, markup.js), the Boards' browser code (``C04.board``, board.js), the names
    for assistive technology (a11y.js), the link, the exercises, projector and class mode, the
    navigation (app.js) and each component's entry (``C04.components``, components.js).

    Only when served: the export's save would otherwise write a <script src> that no file
    next to the exported page holds (it inlines the files itself)."""
    doc = pn.state.curdoc
    if doc is None or doc.session_context is None:
        return
    pn.config.js_files = {
        **pn.config.js_files,
        # c04.js first: it defines window.C04 (C04.t, C04.fmt) that the others add to.
        "c04_core": CORE_URL,
        # Each demo's drawing (C04.views.<module>), as its Board draws the model's numbers.
        **{f"c04_view_{d.module}": f"c04/demos/{d.module}.js" for d in registry.DEMOS},
        "c04_markup": MARKUP_URL,
        "c04_board": BOARD_URL,
        "c04_a11y": A11Y_URL,
        "c04_links": LINKS_URL,
        "c04_exercises": EXERCISES_URL,
        "c04_present": PRESENT_URL,
        "c04_classroom": CLASSROOM_URL,
        "c04_app": APP_URL,
        "c04_components": COMPONENTS_URL,
    }


def requested(name: str) -> str | None:
    """The first ``?name=`` of the served page's address, or None."""
    args = pn.state.session_args.get(name) if pn.state.session_args else None
    if not args:
        return None
    try:
        return args[0].decode("utf-8", "replace")
    except AttributeError:
        return str(args[0])


def requested_lang() -> str:
    """``?lang=`` of the served page when a catalogue has it (``?lang=en``); else Spanish."""
    lang = requested("lang")
    if lang is None or lang not in i18n.languages():
        if lang is not None:
            log.info("?lang=%r no es un idioma de la clase; se usa %s", lang, DEFAULT_LANG)
        return DEFAULT_LANG
    return lang


def session_key(request) -> tuple:
    """Under ``--reuse-sessions`` Panel renders each page from one shared session per key; its
    default key (path, theme) would give a ``?lang=en`` visitor the Spanish page's ``<title>``
    and ``lang``, so the key holds the language too."""
    arguments = request.arguments or {}
    lang = (arguments.get("lang") or [b""])[0].decode("utf-8", "replace")
    theme = (arguments.get("theme") or [b"default"])[0].decode("utf-8", "replace")
    # The lecturer's page (?profesor=) is never rendered from a student's session, nor the
    # reverse (dashboards/classroom/classmode.py).
    lecturer = shared_state.TOKEN_KEY in arguments
    return (request.path, lang if lang in i18n.languages() else DEFAULT_LANG, theme, lecturer)


def serve(viewable, title: str, lang: str) -> None:
    """Make ``viewable`` this session's page, titled ``title``, in ``lang``."""
    doc = pn.state.curdoc
    if doc is not None and doc.session_context is not None:
        doc.template = page_template(lang, registry.BROWSER_TABLES)
    viewable.servable(title=title)
