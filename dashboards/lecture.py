"""The servable lecture: "Clase 04 — Atención y Transformers".

`make serve` runs `panel serve dashboards/lecture.py`. Every browser session gets its own models
and views (built in `Lecture.__init__`, never at import); a section's view is built the first time
it is shown. In a served session even the first section waits until the browser has loaded the
page (``pn.state.onload``), so a new session costs the server little before its page goes out.
`?seccion=<id>` opens a section directly.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import panel as pn
import param
from tornado.ioloop import IOLoop

from attnmodel.i18n import text
from dashboards import registry
from dashboards.common import LiveHTML, configure, esc, math_md, respond_immediately

# A fixed name, not __name__: served, this file also runs as a bokeh_app_<uuid> script per
# session, and every such name would leave one more logger behind.
log = logging.getLogger("dashboards.lecture")

TITLE = text("lecture.title")
INTRO = text("lecture.intro")
LOADING = f'<div class="c04-note">{esc(text("lecture.loading"))}</div>'
SECTIONS = registry.SECTIONS


class Lecture(pn.viewable.Viewer):
    """One browser session of the lecture: its models, its lazily built sections, its navigation."""

    section = param.String(default="autoatencion", doc="Id of the section on screen.")

    def __init__(self, **params):
        super().__init__(**params)
        # The models are cheap (one per demo, as .self_attention, .scaling, …); the views are
        # built on first show.
        for demo in registry.DEMOS:
            setattr(self, demo.module, demo.model_class()())
        self.sections = {s.id: s for s in SECTIONS}
        self._built: dict[str, pn.viewable.Viewable] = {}
        self.nav = pn.widgets.RadioButtonGroup(
            options={s.label(): s.id for s in SECTIONS},
            value=self.section if self.section in self.sections else SECTIONS[0].id,
            orientation="vertical",
            color="primary",
            variant="outline",
            sizing_mode="stretch_width",
            stylesheets=[":host .bk-btn { text-align: left; white-space: normal; }"],
        )
        respond_immediately(self.nav)
        self.main = pn.Column(sizing_mode="stretch_width", min_height=600)
        self.nav.param.watch(self._on_nav, "value")
        if pn.state.loaded:
            # Not a page being served (tests, a notebook) or already loaded: build it now.
            self._show(self.nav.value)
        else:
            # A served page: it goes out with a placeholder and the section is built once the
            # browser reports the page loaded, over the session's websocket.
            self.section = self.nav.value
            self.main.objects = [LiveHTML(LOADING, margin=(10, 10))]
            pn.state.onload(self._load)

    def _load(self) -> None:
        if not self._built:  # unless a click on the navigation already built a section
            self._show(self.nav.value)

    def _on_nav(self, event) -> None:
        self._show(event.new)
        if pn.state.location is not None:
            pn.state.location.update_query(seccion=event.new)

    def _show(self, section_id: str) -> None:
        if section_id not in self._built:
            self._built[section_id] = build_section(self, self.sections[section_id])
            respond_immediately(self._built[section_id])
        self.section = section_id
        self.main.objects = [self._built[section_id]]
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            freeze_survivors()

    def go(self, section_id: str) -> None:
        """Navigate to a section (used by the "Para seguir jugando" buttons)."""
        self.nav.value = section_id

    def __panel__(self):
        sidebar = pn.Column(
            LiveHTML(f"<b>{esc(text('lecture.sections'))}</b>", margin=(10, 10, 0, 10)),
            self.nav,
            width=250,
            margin=(10, 10),
        )
        return pn.Column(
            math_md(INTRO, margin=(0, 20)),
            pn.Row(sidebar, self.main, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",
            max_width=1400,
        )


def section_marker(section_id: str) -> pn.pane.HTML:
    # A stable hook for the browser tests: present once the section has rendered.
    return LiveHTML(f'<span data-testid="section-{esc(section_id)}"></span>', margin=0, height=0)


def build_section(lecture: Lecture, section: registry.Section) -> pn.viewable.Viewable:
    """A section: each of its demos' views on the lecture's model, after the demo's marker; the
    exercises for the section without demos."""
    if not section.demos:
        return _build_exercises(lecture)
    parts = []
    for demo in registry.section_demos(section):
        parts += [
            section_marker(demo.id),
            demo.view_class()(model=getattr(lecture, demo.module)),
        ]
    return pn.Column(*parts, sizing_mode="stretch_width")


@dataclass(frozen=True)
class Exercise:
    key: str  # its text: exercise.<key>
    section: str
    apply: Callable[[Lecture], None]

    def text(self, lang: str = "es") -> str:
        return text(f"exercise.{self.key}", lang)


def _causal(lecture: Lecture) -> None:
    lecture.self_attention.causal = True


def _large_scores(lecture: Lecture) -> None:
    lecture.self_attention.param.update(preset="puntajes grandes", scaled=False, causal=False)


def _wk_equals_wq(lecture: Lecture) -> None:
    lecture.self_attention.param.update(preset="W_K = W_Q", scaled=True, causal=False)


def _identity_zero(lecture: Lecture) -> None:
    lecture.capital.identity = 0.0


def _identity_minus(lecture: Lecture) -> None:
    lecture.capital.identity = -0.90


# The seed's "Para seguir jugando", each bullet a one-click action. The lecture numbers the demos
# as the seed does: 1 autoatención (with √d_k), 2 cabezas, 3 posición, 4 la capital.
EXERCISES = (
    Exercise("causal", "autoatencion", _causal),
    Exercise("large_scores", "autoatencion", _large_scores),
    Exercise("wk_equals_wq", "autoatencion", _wk_equals_wq),
    Exercise("identity_zero", "capital", _identity_zero),
    Exercise("identity_minus", "capital", _identity_minus),
)


def _build_exercises(lecture: Lecture):
    rows = [section_marker("jugar"), math_md(text("exercise.heading"))]
    for n, exercise in enumerate(EXERCISES, start=1):
        button = pn.widgets.Button(
            label=text("lecture.try_it"),
            color="primary",
            width=110,
            margin=(12, 10),
            css_classes=[f"c04-exercise-{n}"],
        )

        def run(event, exercise=exercise):
            exercise.apply(lecture)
            lecture.go(exercise.section)

        button.on_click(run)
        rows.append(pn.Row(button, math_md(f"• {exercise.text()}"), sizing_mode="stretch_width"))
    return pn.Column(*rows, sizing_mode="stretch_width")


ALIASES = registry.ALIASES


def create_lecture(section: str | None = None) -> Lecture:
    """A new Lecture for one session; an unknown section id falls back to the first section."""
    section = ALIASES.get(section, section)
    ids = {s.id for s in SECTIONS}
    return Lecture(section=section if section in ids else SECTIONS[0].id)


# Seconds after the last discarded session before its memory is handed back to the system: after
# Panel's own debounced gc.collect() (5 s), and once for a burst of closing sessions. The server's
# environment may set it (C04_RELEASE_DELAY, 0.1–600 s): `make test`'s soak smoke waits 1 s.
DEFAULT_RELEASE_DELAY = 6.0


def release_delay(value: str | None) -> float:
    """C04_RELEASE_DELAY read as seconds; the default when unset or not a number in 0.1–600."""
    try:
        seconds = float(value) if value is not None else DEFAULT_RELEASE_DELAY
    except ValueError:
        seconds = math.nan
    if not 0.1 <= seconds <= 600:
        log.info(
            "C04_RELEASE_DELAY=%r no es un número de segundos entre 0,1 y 600; se usan %g s",
            value,
            DEFAULT_RELEASE_DELAY,
        )
        return DEFAULT_RELEASE_DELAY
    return seconds


RELEASE_DELAY = release_delay(os.environ.get("C04_RELEASE_DELAY"))
_release = {"handle": None, "trim": None}


def _malloc_trim():
    """glibc's malloc_trim, or None (another C library)."""
    if _release["trim"] is None:
        try:
            _release["trim"] = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _release["trim"] = False
    return _release["trim"] or None


def freeze_survivors() -> None:
    """Put every object alive now out of the cyclic garbage collector's walks (``gc.freeze``).

    Called once a served session has its section on screen. Without it, each of CPython's full
    collections walked every object of every open session: in a 100-session load run, 17 pauses
    of up to 2.9 s (p95 of a change: 1.8 s). ``_release_memory`` unfreezes everything before
    it collects, so the sessions that closed are still freed.
    """
    gc.freeze()


def _release_memory() -> None:
    _release["handle"] = None
    start = time.perf_counter()
    gc.unfreeze()
    collected = gc.collect()
    gc.freeze()  # the open sessions that survived stay out of the automatic collections
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
    # One line per burst of closed sessions: the soak and session benches wait for it.
    log.info(
        "Memoria liberada: %d objetos recogidos en %.0f ms",
        collected,
        (time.perf_counter() - start) * 1e3,
    )


def release_memory_later(session_context) -> None:
    """On a discarded session: collect and hand free heap pages back to the system, a few
    seconds after the last of a burst (glibc's malloc_trim; CPython's own small-object arenas
    only shrink when the server runs with PYTHONMALLOC=malloc)."""
    loop = IOLoop.current()
    if _release["handle"] is not None:
        loop.remove_timeout(_release["handle"])
    _release["handle"] = loop.call_later(RELEASE_DELAY, _release_memory)


def _requested_section() -> str | None:
    args = pn.state.session_args.get("seccion") if pn.state.session_args else None
    if not args:
        return None
    try:
        return args[0].decode("utf-8", "replace")
    except AttributeError:
        return str(args[0])


if __name__.startswith("bokeh_app"):
    configure()
    create_lecture(_requested_section()).servable(title=TITLE)
    # From the imported module: Panel empties this script's namespace when the session ends.
    from dashboards.lecture import release_memory_later

    pn.state.on_session_destroyed(release_memory_later)
