"""The servable lecture: "Clase 04 — Atención y Transformers".

`make serve` runs `panel serve dashboards/app/lecture.py`. Every browser session gets its own models
and views (built in `Lecture.__init__`, never at import); a section's view is built the first time
it is shown. In a served session even the first section waits until the browser has loaded the
page (``pn.state.onload``), so a new session costs the server little before its page goes out.
`?seccion=<id>` opens a section directly; `?lang=en` opens the lecture in English (every
text from the catalogue of that language).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import panel as pn
import param

from attnmodel.formatting import number
from attnmodel.i18n import DEFAULT_LANG, languages, text
from dashboards.app import present
from dashboards.app.navigation import Navigation
from dashboards.app.session import configure, requested, requested_lang, serve
from dashboards.app.try_list import TryList
from dashboards.classroom import classmode
from dashboards.components import stepper
from dashboards.components.markup import esc, md_html
from dashboards.components.page import CONTENT_ATTRIBUTES, language_links, skip_link
from dashboards.components.style import SKIP_CSS
from dashboards.components.views import LangColumn
from dashboards.demos import registry
from dashboards.runtime import clients
from dashboards.runtime.memory import freeze_survivors, release_memory_later
from dashboards.sharing import exercises, links, live_link, practice

SECTIONS = registry.SECTIONS

# Defined before any session's document, as when it lived in present.py: a JSComponent class
# first defined after a followed student's page was made (capital's stepper, imported with its
# demo) did not draw when the lecturer's section reached that page in a patch
# (tests/ui/test_classroom.py). Its model is sent with the page instead.
Stepper = stepper.Stepper


class Lecture(pn.viewable.Viewer):
    """One browser session of the lecture: its models, its lazily built sections, its navigation."""

    section = param.String(default="autoatencion", doc="Id of the section on screen.")
    lang = param.Selector(
        default=DEFAULT_LANG,
        objects=list(languages()),
        constant=True,
        doc="Language of the whole lecture (?lang=): every view's text and numbers.",
    )

    def __init__(self, **params):
        super().__init__(**params)
        # The models are cheap (one per demo, as .self_attention, .scaling, …); the views are
        # built on first show.
        for demo in registry.DEMOS:
            setattr(self, demo.module, demo.model_class()())
        self.sections = {s.id: s for s in SECTIONS}
        self._built: dict[str, pn.viewable.Viewable] = {}
        self.nav = Navigation(
            options={s.label(self.lang): s.id for s in SECTIONS},
            value=self.section if self.section in self.sections else SECTIONS[0].id,
            heading=text("lecture.sections", self.lang),
            label=text("a11y.nav", self.lang),
            presenter=present.page_labels(self.lang),
            on_action=self.shortcut,
        )
        # The navigation, then the section on screen (the page's main landmark, see content).
        self.body = pn.Row(self.nav, pn.Spacer(), sizing_mode="stretch_width")
        self.nav.param.watch(self._on_nav, "value")
        # The address: the section and every demo's state (dashboards/sharing/links.py), both ways.
        self.link = live_link.LinkState(
            {d.id: getattr(self, d.module) for d in registry.DEMOS},
            self.lang,
            section=(lambda: self.nav.value, self._go_linked),
            address=self.nav,  # the navigation is the page's address too
        )
        self.link.apply(live_link.opened_with(), navigate=False)
        # Class mode: the lecturer's page publishes its state; a student's follows a live class.
        self.classroom = classmode.join(self)
        self.classroom.start()
        if pn.state.loaded:
            # Not a page being served (tests, a notebook) or already loaded: build it now.
            self._show(self.nav.value)
        else:
            # A served page: it goes out with a placeholder and the section is built once the
            # browser reports the page loaded, over the session's websocket.
            self.section = self.nav.value
            self.nav.languages = self.language_links()
            self.body[1] = pn.pane.HTML(self._loading(), margin=(10, 10), min_height=600)
            pn.state.onload(self._load)

    def _loading(self) -> str:
        """The placeholder before the section is built: the title of its first demo (the
        catalogue's; the phone paints it with the page's frame, 0.2–0.6 s before the section)
        and a note that it is loading."""
        section = self.sections[self.section]
        demos = registry.section_demos(section)
        title = demos[0].title(self.lang) if demos else section.label(self.lang)
        note = esc(text("lecture.loading", self.lang))
        return f'<h2>{esc(title)}</h2><div class="c04-note">{note}</div>'

    def _load(self) -> None:
        if not self._built:  # unless a click on the navigation already built a section
            self._show(self.nav.value)

    def _on_nav(self, event) -> None:
        if not self.nav.knows(event.new):
            # A client wrote the property itself (a page only sends a message): refused.
            clients.refused("navegación", {"value": event.new}, "no es una sección de la clase")
            self.nav.value = event.old
            return
        if self._built or pn.state.loaded:
            self._show(event.new)
        else:  # before the page loaded (a followed class's section): built by _load
            self.section = event.new
            self.content.object = self._loading()
        self.link.refresh()

    def _go_linked(self, section_id: str) -> None:
        """A link's section (an alias is its demo's section; an unknown one is ignored)."""
        section_id = ALIASES.get(section_id, section_id)
        if section_id in self.sections:
            self.nav.value = section_id

    def _show(self, section_id: str) -> None:
        # Bokeh's property checks stay on here: bokeh 3.9.2 serializes a ColorSpec string as a
        # column or as a colour by that same check (DataSpec.to_serializable), and the section
        # goes to the browser in the PATCH-DOC made by the assignment below. With the checks
        # off, the bars' ``color="color"`` went out as the colour "color": no bars drawn.
        if section_id not in self._built:
            self._built[section_id] = build_section(self, self.sections[section_id])
        self.section = section_id
        self.nav.languages = self.language_links()  # to this section in the other language
        self.body[1] = self._built[section_id]
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            freeze_survivors()

    @property
    def content(self) -> pn.viewable.Viewable:
        """What the page shows beside the navigation: the section on screen (its column is the
        main landmark) or, before the page loaded, a note that it is loading."""
        return self.body[1]

    def language_links(self) -> str:
        """Links to this section in every other language (``?lang=…&seccion=…``), each named in
        its own language and marked with its ``lang`` for screen readers."""
        section = esc(self.section)
        links = language_links(lambda other: f"?lang={other}&amp;seccion={section}", self.lang)
        return f'<div class="c04-note">{links}</div>'

    def shortcut(self, action: str) -> None:
        """A key of the lecturer's (present.js): next/previous section, or the section's demos
        back to their defaults."""
        ids = [s.id for s in SECTIONS]
        i = ids.index(self.nav.value)
        if action in ("next", "prev"):
            self.go(ids[max(0, min(len(ids) - 1, i + (1 if action == "next" else -1)))])
        elif action == "reset":
            demos = registry.section_demos(self.sections[self.nav.value])
            links.decode([], {d.id: getattr(self, d.module) for d in demos}, self.lang)

    def go(self, section_id: str) -> None:
        """Navigate to a section (used by the "Para seguir jugando" buttons)."""
        self.nav.value = section_id

    def __panel__(self):
        return pn.Column(
            intro(self.lang),
            self.classroom.panel,
            self.body,
            sizing_mode="stretch_width",
            max_width=1400,
        )


def intro(lang: str) -> pn.pane.HTML:
    """The skip link, the first thing a keyboard reaches, and the lecture's introduction: one
    pane (each pane is a Bokeh model of every session's page), HTML made here once (a Markdown
    pane would bring Panel's markdown stylesheet, one more model, to sections that have no
    other Markdown)."""
    return pn.pane.HTML(
        md_html(f"{skip_link(lang)}\n\n{text('lecture.intro', lang)}"),
        margin=(0, 20),
        sizing_mode="stretch_width",
        css_classes=["c04-prose"],
        stylesheets=[SKIP_CSS],
    )


def section_marker(section_id: str) -> pn.pane.HTML:
    # A stable hook for the browser tests: present once the section has rendered (a demo's is
    # in its CopyLink).
    marker = f'<span data-testid="section-{esc(section_id)}"></span>'
    return pn.pane.HTML(marker, margin=0, height=0)


def section_column(*parts) -> LangColumn:
    """A section's column: the page's main landmark (the skip link's target) while shown."""
    return LangColumn(
        *parts,
        sizing_mode="stretch_width",
        min_height=600,
        html_attributes=dict(CONTENT_ATTRIBUTES),
    )


def build_section(lecture: Lecture, section: registry.Section) -> pn.viewable.Viewable:
    """A section: each of its demos' views on the lecture's model, after the demo's marker; the
    exercises for the section without demos."""
    if not section.demos:
        return _build_exercises(lecture)
    parts = []
    for demo in registry.section_demos(section):
        model = getattr(lecture, demo.module)
        view = demo.view_class()(model=model, lang=lecture.lang)
        present.mark_compare(demo.id, view)
        parts += [
            *live_link.demo_parts(view, section.id, lecture.lang, demo.id),
            practice.block(demo.id, lecture.lang, model),
        ]
    return section_column(*[p for p in parts if p is not None])


@dataclass(frozen=True)
class Exercise:
    key: str  # its text: exercise.<key>
    section: str
    apply: Callable[[Lecture], None]
    # The numbers its text quotes (lang -> its fields), written as the language writes them.
    values: Callable[[str], dict[str, str]] | None = None

    def text(self, lang: str = "es") -> str:
        return text(f"exercise.{self.key}", lang, **(self.values(lang) if self.values else {}))


@functools.cache
def _identity_probabilities() -> tuple[float, float]:
    """p(Roma) at identity −0.90 and p(París) at +0.90, as the model computes them."""
    model = registry.demo("capital").model_class()
    return (
        model(identity=-0.90).probabilities["Roma"],
        model(identity=0.90).probabilities["París"],
    )


def _identity_minus_values(lang: str) -> dict[str, str]:
    roma, paris = _identity_probabilities()
    return {
        "identity": number(-0.90, 2, lang=lang),
        "roma": number(roma, 2, lang=lang),
        "paris": number(paris, 2, lang=lang),
    }


def _seed_bullets() -> tuple[Exercise, ...]:
    """The seed's "Para seguir jugando", each bullet a one-click action: the exercises of
    dashboards/sharing/exercises.toml that name a bullet (``seed``), in the file's order. The
    state a bullet's button sets is the exercise's own (one definition of each state); the
    lecture numbers the demos as the seed does: 1 autoatención (with √d_k), 2 cabezas,
    3 posición, 4 la capital."""
    values = {"identity_minus": _identity_minus_values}
    return tuple(
        Exercise(
            entry.seed,
            ALIASES.get(entry.demo, entry.demo),
            functools.partial(_move, entry),
            values.get(entry.seed),
        )
        for entry in exercises.exercises()
        if entry.seed
    )


def _move(entry: exercises.Exercise, lecture: Lecture) -> None:
    exercises.move(entry, getattr(lecture, registry.demo(entry.demo).module))


def _build_exercises(lecture: Lecture):
    lang = lecture.lang

    def run(n: int) -> None:
        exercise = EXERCISES[n - 1]
        exercise.apply(lecture)
        lecture.go(exercise.section)

    bullets = TryList(
        heading=md_html(text("exercise.heading", lang)),
        items=[{"html": md_html(f"• {exercise.text(lang)}")} for exercise in EXERCISES],
        button_label=text("lecture.try_it", lang),
        note=f"<p>{esc(text('exercises.in_sections', lang))}</p>",
        on_try=run,
    )
    return section_column(
        section_marker("jugar"),
        bullets,
        practice.progress([e.id for e in exercises.exercises()], lang),
    )


ALIASES = registry.ALIASES
EXERCISES = _seed_bullets()


def create_lecture(section: str | None = None, lang: str = DEFAULT_LANG) -> Lecture:
    """A new Lecture for one session; an unknown section id falls back to the first section."""
    section = ALIASES.get(section, section)
    ids = {s.id for s in SECTIONS}
    return Lecture(section=section if section in ids else SECTIONS[0].id, lang=lang)


if __name__.startswith("bokeh_app"):
    configure()
    _lang = requested_lang()
    serve(create_lecture(requested("seccion"), _lang), text("lecture.title", _lang), _lang)
    pn.state.on_session_destroyed(release_memory_later)
