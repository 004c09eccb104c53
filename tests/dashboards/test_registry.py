"""The registry of demos: what the lecture, the export, the served apps and the tests read."""

from __future__ import annotations

import ast
from pathlib import Path

import panel as pn
import param
import pytest

from attnmodel.i18n import languages
from attnmodel.minilm import LECTURE_SENTENCES
from attnmodel.next_word import LECTURE_PROMPTS
from attnmodel.training import FACTS
from dashboards import export, serving
from dashboards.app import lecture
from dashboards.demos import registry

from c04_testing import spanish_words_left, viewable_texts
from c04_views import drawn

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("demo", registry.DEMOS, ids=lambda d: d.id)
def test_each_demo_has_its_model_view_app_and_titles(demo):
    assert issubclass(demo.model_class(), param.Parameterized)
    view = demo.view_class()(model=demo.model_class()())
    assert isinstance(view, pn.viewable.Viewer)
    assert (ROOT / demo.app).is_file()
    for lang in languages():
        assert demo.title(lang)


@pytest.mark.parametrize("demo", registry.DEMOS, ids=lambda d: d.id)
def test_each_demo_module_ends_by_serving_its_registry_entry(demo):
    """The standalone app is the registry's ``serve_demo("<id>")``, imported from the app shell
    in that block only (the demos never import the app otherwise)."""
    tree = ast.parse((ROOT / demo.app).read_text(encoding="utf-8"))
    last = tree.body[-1]
    assert isinstance(last, ast.If)
    assert ast.unparse(last.test) == "__name__.startswith('bokeh_app')"
    assert [ast.unparse(s) for s in last.body] == [
        "from dashboards.app.standalone import serve_demo",
        f"serve_demo('{demo.id}')",
    ]


def test_every_demo_is_in_exactly_one_section_and_sections_are_unique():
    shown = [d for s in registry.SECTIONS for d in s.demos]
    assert sorted(shown) == sorted(d.id for d in registry.DEMOS)
    ids = [s.id for s in registry.SECTIONS]
    assert len(set(ids)) == len(ids)
    assert [s.id for s in registry.SECTIONS if not s.demos] == ["jugar"]
    # ?seccion=<a demo's id> opens the section that shows it ("escalado" → "autoatencion").
    by_id = {s.id: s for s in registry.SECTIONS}
    assert registry.ALIASES["escalado"] == "autoatencion"
    for alias, section in registry.ALIASES.items():
        assert alias in by_id[section].demos
        assert alias not in by_id
    for lang in languages():
        assert all(s.label(lang) for s in registry.SECTIONS)


def test_the_lecture_the_export_and_the_serve_command_read_the_registry():
    assert lecture.SECTIONS is registry.SECTIONS
    assert list(export.SECTION_VIEWS) == [s.id for s in registry.SECTIONS if s.demos]
    assert [d.id for ds in export.SECTION_VIEWS.values() for d in ds] == [
        d.id for d in registry.DEMOS
    ]
    served = [a for a in serving.command(5006) if a.startswith("dashboards/")]
    assert served == list(registry.APP_FILES)
    assert [Path(a).stem for a in served] == list(registry.APPS)  # the URLs: /lecture, /scaling, …
    lect = lecture.create_lecture()
    for demo in registry.DEMOS:
        assert isinstance(getattr(lect, demo.module), demo.model_class())


# The explorer's token buttons show the sentence explored (the student's data; by default the
# Spanish example, quoted, marked lang="es" and glossed in the text around it).
# The words of a model's own data, kept in Spanish (the explorer's sentence, the corpus's
# countries and capitals).
STUDENT_DATA = {
    "explorador": lambda view: view.model.tokens,
    "entrenamiento": lambda view: [*FACTS, *FACTS.values()],
    # The sentences the real model reads (a select of the lecture's) and its word pieces.
    "modelo": lambda view: [
        *(w for s in LECTURE_SENTENCES for w in s.split()),
        *(p.removeprefix("##") for p in view.model.pieces),
    ],
    # The lecture's texts the language model reads: one is Spanish on purpose (it predicts
    # worse there).
    "siguiente": lambda view: [w.strip(",") for p in LECTURE_PROMPTS for w in p.split()],
}


@pytest.mark.parametrize("lang", [lang for lang in languages() if lang != "es"])
@pytest.mark.parametrize("demo", registry.DEMOS, ids=lambda d: d.id)
def test_every_demo_speaks_every_language(demo, lang):
    """A demo in another language shows no Spanish word outside the examples it keeps in
    Spanish (marked lang="es"): a demo added to the registry is held to it too."""
    view = demo.view_class()(lang=lang)
    data = {t.lower() for t in STUDENT_DATA.get(demo.id, lambda v: [])(view)}
    assert spanish_words_left(viewable_texts(view), lang) - data == set()
    assert demo.title(lang) != demo.title("es")


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("demo", registry.DEMOS, ids=lambda d: d.id)
def test_every_plot_of_every_demo_has_a_text_alternative(demo, lang):
    """A canvas says nothing to a screen reader: each plot is an image named by a catalogue
    text (a11y.plot.*) that says what it shows and where its numbers are in text. A Bokeh plot
    by its ``html_attributes``; a chart markup.js draws (``lines``, ``raster``: role="img")
    by its spec's ``aria``."""
    from bokeh.document import Document
    from bokeh.models import Plot

    from attnmodel.i18n import catalogue
    from dashboards.components.board import Board
    from dashboards.components.markup import Markup

    captions = {v for k, v in catalogue(lang).items() if k.startswith("a11y.plot.")}
    view = demo.view_class()(lang=lang)
    root = pn.panel(view).get_root(Document())
    for plot in (m for m in root.references() if isinstance(m, Plot)):
        assert plot.html_attributes.get("role") == "img", plot.name
        assert plot.html_attributes.get("aria-label") in captions, plot.name
    charts = [
        (m.kind, m.spec) for m in view.__panel__().select(Markup) if m.kind in ("lines", "raster")
    ]
    # A chart in a slot of a Board (its spec as the browser has it: tests/c04_views.py)
    for board in view.__panel__().select(Board):
        specs = drawn(board, lang)
        kinds = board.kinds.items()
        charts += [(k, specs.get(n, {})) for n, k in kinds if k in ("lines", "raster")]
    for kind, spec in charts:
        assert spec.get("aria") in captions, (kind, spec.get("testid"))
    # The sections whose charts these are (a chart lost or renamed is seen here).
    expected = {"posicion": 2, "entrenamiento": 1}.get(demo.id, 0)
    assert len(charts) == expected, demo.id
