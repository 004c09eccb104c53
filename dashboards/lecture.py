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

from attnmodel import (
    AttentionExplorer,
    CapitalWalkthrough,
    MultiHeadDemo,
    PositionalEncodingDemo,
    ScalingDemo,
    SelfAttention,
)
from dashboards.capital import CapitalView
from dashboards.common import LiveHTML, configure, esc, math_md, respond_immediately
from dashboards.explorer import ExplorerView
from dashboards.multihead import MultiHeadView
from dashboards.positional import PositionalView
from dashboards.scaling import ScalingView
from dashboards.self_attention import SelfAttentionView

# A fixed name, not __name__: served, this file also runs as a bokeh_app_<uuid> script per
# session, and every such name would leave one more logger behind.
log = logging.getLogger("dashboards.lecture")

TITLE = "Clase 04 — Atención y Transformers"

INTRO = r"""
# Clase 04 — Atención y Transformers

Aquí no hay matrices de adorno: $$Q$$, $$K$$, $$V$$, los puntajes, el softmax y la mezcla se
calculan de verdad a partir de las matrices que puedes editar. Los valores por defecto reproducen,
número a número, los ejemplos trabajados del apunte.

$$\text{Attention}(Q,K,V) = \text{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V$$
"""


LOADING = '<div class="c04-note">Cargando la sección…</div>'


@dataclass(frozen=True)
class Section:
    id: str
    label: str
    build: Callable[[Lecture], pn.viewable.Viewable]


class Lecture(pn.viewable.Viewer):
    """One browser session of the lecture: its models, its lazily built sections, its navigation."""

    section = param.String(default="autoatencion", doc="Id of the section on screen.")

    def __init__(self, **params):
        super().__init__(**params)
        # The models are cheap; the views are built on first show.
        self.self_attention = SelfAttention()
        self.scaling = ScalingDemo()
        self.multihead = MultiHeadDemo()
        self.positional = PositionalEncodingDemo()
        self.capital = CapitalWalkthrough()
        self.explorer = AttentionExplorer()
        self.sections = {s.id: s for s in SECTIONS}
        self._built: dict[str, pn.viewable.Viewable] = {}
        self.nav = pn.widgets.RadioButtonGroup(
            options={s.label: s.id for s in SECTIONS},
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
            self._built[section_id] = self.sections[section_id].build(self)
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
            LiveHTML("<b>Secciones</b>", margin=(10, 10, 0, 10)),
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


def _build_attention(lecture: Lecture):
    return pn.Column(
        section_marker("autoatencion"),
        SelfAttentionView(model=lecture.self_attention),
        section_marker("escalado"),
        ScalingView(model=lecture.scaling),
        sizing_mode="stretch_width",
    )


def _build_heads(lecture: Lecture):
    return pn.Column(
        section_marker("cabezas"),
        MultiHeadView(model=lecture.multihead),
        sizing_mode="stretch_width",
    )


def _build_position(lecture: Lecture):
    return pn.Column(
        section_marker("posicion"),
        PositionalView(model=lecture.positional),
        sizing_mode="stretch_width",
    )


def _build_capital(lecture: Lecture):
    return pn.Column(
        section_marker("capital"), CapitalView(model=lecture.capital), sizing_mode="stretch_width"
    )


def _build_explorer(lecture: Lecture):
    return pn.Column(
        section_marker("explorador"),
        ExplorerView(model=lecture.explorer),
        sizing_mode="stretch_width",
    )


@dataclass(frozen=True)
class Exercise:
    text: str
    section: str
    apply: Callable[[Lecture], None]


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
    Exercise(
        r"En la 1, activa la máscara causal: la fila del token 1 pasa a ser (1, 0, 0) — sin "
        r"nada que mirar salvo a sí mismo, el softmax no tiene elección.",
        "autoatencion",
        _causal,
    ),
    Exercise(
        r"Desactiva el escalado por $$\sqrt{d_k}$$ con el preset \"puntajes grandes\": el "
        r"softmax colapsa a one-hot y el gradiente se apaga.",
        "autoatencion",
        _large_scores,
    ),
    Exercise(
        r"Pon $$W_K = W_Q$$ (preset 2): la diagonal domina y cada token se mira a sí mismo. Las "
        r"proyecciones aprendidas existen para poder romper eso.",
        "autoatencion",
        _wk_equals_wq,
    ),
    Exercise(
        r"En la 4, arrastra la identidad del país hasta 0: el modelo queda genuinamente indeciso "
        r"entre París y Roma, ambas con la misma probabilidad.",
        "capital",
        _identity_zero,
    ),
    Exercise(
        r"En la 4, pon la identidad en −0.90 y compara: $$p(\text{Roma}) \approx 0.34$$, no "
        r"0.38. La asimetría es real y el apunte explica por qué.",
        "capital",
        _identity_minus,
    ),
)


def _build_exercises(lecture: Lecture):
    rows = [section_marker("jugar"), math_md("## Para seguir jugando")]
    for n, exercise in enumerate(EXERCISES, start=1):
        button = pn.widgets.Button(
            label="Probarlo",
            color="primary",
            width=110,
            margin=(12, 10),
            css_classes=[f"c04-exercise-{n}"],
        )

        def run(event, exercise=exercise):
            exercise.apply(lecture)
            lecture.go(exercise.section)

        button.on_click(run)
        rows.append(pn.Row(button, math_md(f"• {exercise.text}"), sizing_mode="stretch_width"))
    return pn.Column(*rows, sizing_mode="stretch_width")


SECTIONS = (
    Section("autoatencion", "1 · Autoatención y √d_k", _build_attention),
    Section("cabezas", "2 · Varias cabezas", _build_heads),
    Section("posicion", "3 · Codificación posicional", _build_position),
    Section("capital", "4 · «La capital de ___ es …»", _build_capital),
    Section("explorador", "Explorador: ¿qué mira un Transformer?", _build_explorer),
    Section("jugar", "Para seguir jugando", _build_exercises),
)
ALIASES = {"escalado": "autoatencion"}


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
