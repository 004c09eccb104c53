"""The lecture page: sections built lazily per session, navigation, the "Para seguir jugando"
exercises (each a one-click action that makes the seed's claim true on screen)."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import panel as pn
import pytest
from bokeh.models import GlyphRenderer, Plot

from attnmodel.i18n import text
from dashboards.app import lecture
from dashboards.app.lecture import EXERCISES, SECTIONS, Lecture, create_lecture
from dashboards.app.try_list import TryList
from dashboards.components.board import Board
from dashboards.components.markup import esc, md_html
from dashboards.sharing.live_link import CopyLink

from c04_testing import spanish_words_left
from c04_views import js_views

# Outputs (data-testid) each section's views render: the section itself, not a placeholder.
SECTION_OUTPUTS = {
    "autoatencion": {"sa-Q", "sa-weights", "sa-Z", "scaling-dk", "scaling-entropy-scaled"},
    "cabezas": {"head-1-top", "head-4-top", "combined-top"},
    "posicion": {"pe-shape", "pe-worked-table"},
    "capital": {"capital-attention-row", "capital-mixed", "capital-probability"},
    "entrenamiento": {"training-head-1", "training-probability", "training-comparison"},
    "explorador": {"explorer-table", "explorer-row"},
    "modelo": {"minilm-pieces-count", "minilm-pieces", "minilm-toy-1", "minilm-real-4"},
    "siguiente": {
        "next-word-bars",
        "next-word-kept",
        "next-word-map",
        "next-word-heads",
        "block-tokens",
        "block-detail-after",
        "block-step-5-after",
        "block-overview",
    },
    "jugar": set(),
}
TESTID = re.compile(r'data-testid=(?:&quot;|")([\w-]+)')


def spec_testids(spec) -> list[str]:
    found = []
    if isinstance(spec, dict):
        if spec.get("testid"):
            found.append(spec["testid"])
        spec = list(spec.values())
    if isinstance(spec, list):
        for value in spec:
            found += spec_testids(value)
    return found


def rendered_testids(viewable) -> list[str]:
    """The data-testids in the text of every Bokeh model ``viewable`` renders to, and those of
    its Markup and Board specs."""
    texts, testids = [], []
    for model in viewable.get_root().references():
        values = model.properties_with_values(include_defaults=False)
        if values.get("view") and values.get("state_json"):  # a Board drawn by its view
            drawing = js_views().render(values["view"], json.loads(values["state_json"]))
            for spec in drawing.values():  # an "html" slot's HTML, or a spec
                testids += TESTID.findall(spec) if isinstance(spec, str) else spec_testids(spec)
        for name, value in values.items():
            if isinstance(value, str):
                texts.append(value)
            if name == "spec_json":  # a Markup component's fragment, and the fields inside it
                testids += spec_testids(json.loads(value or "{}"))
            if name == "specs_json":  # a Board's fragments
                for spec in json.loads(value).values():
                    # an "html" slot's HTML, or a spec
                    testids += TESTID.findall(spec) if isinstance(spec, str) else spec_testids(spec)
    return TESTID.findall(" ".join(texts)) + testids


def test_section_outputs_cover_every_section():
    assert list(SECTION_OUTPUTS) == [s.id for s in SECTIONS]


@pytest.fixture
def lect():
    return create_lecture()


def test_only_the_first_section_is_built_at_start(lect):
    assert list(lect._built) == [SECTIONS[0].id]
    assert lect.content is lect._built[SECTIONS[0].id]


def test_navigating_builds_a_section_once_and_shows_it(lect):
    lect.nav.value = "capital"
    built = lect._built["capital"]
    assert lect.content is built
    lect.nav.value = "autoatencion"
    lect.nav.value = "capital"
    assert lect._built["capital"] is built


@pytest.mark.parametrize("section", [s.id for s in SECTIONS])
def test_every_section_builds(lect, section):
    lect.go(section)
    assert lect.section == section
    built = lect._built[section]
    assert lect.content is built
    first = built.objects[0]  # the marker first: a demo's on its Board or CopyLink, else a pane
    if isinstance(first, CopyLink | Board):
        assert first.marker == section
    else:
        assert f'data-testid="section-{section}"' in first.object
    testids = rendered_testids(built)
    assert SECTION_OUTPUTS[section] <= set(testids), set(testids)
    if section == "jugar":
        (bullets,) = built.select(TryList)
        assert [item["html"] for item in bullets.items] == [
            md_html(f"• {e.text()}") for e in EXERCISES
        ]


def test_no_section_builds_a_panel_widget(lect):
    """Every control of every section is a message (a Board's native control, MiniLM's grid of
    heads, «Para seguir jugando»'s buttons): handled on the server's next tick (no Panel
    debounce of 50 ms, which was most of the live input → text time, bench/bench_browser.py)
    and checked where it enters. No Panel widget is left whose property a browser writes."""
    widgets, native = [], 0
    for section in SECTIONS:
        lect.go(section.id)
        widgets += lect._built[section.id].select(pn.widgets.Widget)
        native += sum(len(b.controls) for b in lect._built[section.id].select(Board))
    assert widgets == []
    assert native > 25  # every demo's controls
    assert pn.panel(lect).select(pn.widgets.Widget) == []  # nor the page around the sections


def test_no_section_builds_a_bokeh_plot(lect):
    """Every chart is drawn by markup.js (issue 36: a Bokeh figure was 30–60 models in every
    session): no section's document holds a plot or a glyph renderer."""
    found = []
    for section in SECTIONS:
        lect.go(section.id)
        root = lect._built[section.id].get_root()
        found += [
            (section.id, type(m).__name__)
            for m in root.references()
            if isinstance(m, Plot | GlyphRenderer)
        ]
    assert found == []


@pytest.mark.parametrize(
    ("requested", "shown"),
    [
        ("capital", "capital"),
        ("escalado", "autoatencion"),
        ("zzz", "autoatencion"),
        (None, "autoatencion"),
        ("<script>", "autoatencion"),
    ],
)
def test_requested_section_falls_back_to_the_first(requested, shown):
    assert create_lecture(requested).section == shown


def test_two_sessions_share_no_model():
    a, b = create_lecture(), create_lecture()
    a.self_attention.causal = True
    assert b.self_attention.causal is False
    assert a.self_attention is not b.self_attention
    assert a.nav is not b.nav


def _exercise(n: int) -> tuple[Lecture, object]:
    lect = create_lecture()
    lect.go("jugar")
    exercise = EXERCISES[n]
    (bullets,) = lect._built["jugar"].select(TryList)
    bullets.receive({"exercise": n + 1})  # what a click on bullet n + 1 sends
    assert lect.section == exercise.section
    return lect, exercise


def test_exercise_causal_mask_makes_row_of_token_1_one_zero_zero():
    lect, _ = _exercise(0)
    np.testing.assert_array_equal(lect.self_attention.weights[0], [1.0, 0.0, 0.0])


def test_exercise_large_scores_without_scaling_collapses_to_one_hot_and_gradient_fades():
    lect, _ = _exercise(1)
    m = lect.self_attention
    assert m.preset == "puntajes grandes"
    assert not m.scaled
    assert (m.weights.max(axis=1) > 0.99).all()
    assert (m.gradient < 1e-3).all()


def test_exercise_wk_equals_wq_makes_the_diagonal_dominate():
    lect, _ = _exercise(2)
    w = lect.self_attention.weights
    np.testing.assert_array_equal(w.argmax(axis=1), [0, 1, 2])


def test_exercise_identity_zero_makes_paris_and_roma_equally_likely():
    lect, _ = _exercise(3)
    p = lect.capital.probabilities
    assert p["París"] == p["Roma"]
    assert "empate" in lect.capital.prediction


def test_exercise_identity_minus_090_gives_roma_about_034_not_038():
    lect, _ = _exercise(4)
    p = lect.capital.probabilities
    assert round(p["Roma"], 2) == 0.34
    assert not math.isclose(p["Roma"], 0.38, abs_tol=0.01)


# --- A served session: the first section waits for the page to load --------------------------


def _served_document():
    """A Document with a session context and request, as `panel serve` gives a new session."""
    import weakref

    from bokeh.document import Document
    from bokeh.server.contexts import BokehSessionContext, _RequestProxy
    from bokeh.util.token import generate_session_id
    from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

    doc = Document()
    context = BokehSessionContext(generate_session_id(), None, doc)
    context._request = _RequestProxy(
        HTTPServerRequest(
            start_line=RequestStartLine("GET", "/lecture", "HTTP/1.1"),
            headers=HTTPHeaders({"Host": "127.0.0.1"}),
        )
    )
    doc._session_context = weakref.ref(context)
    return doc, context


@pytest.fixture
def served():
    """(doc, load): a served session's Document as curdoc, and what the browser's document_ready
    runs (Panel's onload callbacks)."""
    from panel.io.state import set_curdoc

    doc, context = _served_document()
    with set_curdoc(doc):
        yield doc, lambda: lecture.pn.state._on_load(doc)
    del context


def test_served_session_sends_the_page_before_building_the_first_section(served):
    doc, load = served
    lect = create_lecture("capital")
    doc.add_root(lecture.pn.panel(lect).get_root(doc))
    assert lect._built == {}
    assert lect.section == "capital"
    assert lect.nav.value == "capital"
    assert esc(text("lecture.loading")) in lect.content.object
    # the phone paints the section's name with the frame, before the section is built
    assert f"<h2>{esc(text('demo.capital'))}</h2>" in lect.content.object
    load()
    assert list(lect._built) == ["capital"]
    assert lect.content is lect._built["capital"]


def test_a_click_before_the_page_has_loaded_is_not_undone_by_the_load(served):
    doc, load = served
    lect = create_lecture()
    doc.add_root(lecture.pn.panel(lect).get_root(doc))
    lect.go("posicion")
    assert f"<h2>{esc(text('demo.posicion'))}</h2>" in lect.content.object
    load()
    assert list(lect._built) == ["posicion"]
    assert lect.section == "posicion"
    assert lect.content is lect._built["posicion"]


# --- The lecture in English (?lang=en): its own text; each section's is its view's tests'


def test_the_english_lecture_speaks_english_around_the_sections():
    lect = create_lecture("capital", lang="en")
    assert list(lect.nav.options) == [s.label("en") for s in SECTIONS]
    (intro,) = [
        pane
        for pane in pn.panel(lect).select(pn.pane.HTML)
        if isinstance(pane.object, str) and "c04-skip-box" in pane.object
    ]
    # The skip link first (one pane with the introduction), in English too.
    skip = f'<a class="c04-skip" href="#contenido">{text("a11y.skip", "en")}</a>'
    assert intro.object.startswith(f'<div class="c04-skip-box">{skip}</div>')
    assert "<h1" in intro.object
    assert ">Lecture 04" in intro.object
    links = lect.language_links()
    assert 'href="?lang=es&amp;seccion=capital"' in links
    assert f'lang="es" data-testid="lang-es">{text("lecture.language", "es")}</a>' in links
    assert "lang-en" not in links
    lect.go("jugar")
    built = lect._built["jugar"]
    (bullets,) = built.select(TryList)
    assert bullets.button_label == text("lecture.try_it", "en")
    assert bullets.heading == md_html(text("exercise.heading", "en"))
    assert [i["html"] for i in bullets.items] == [md_html(f"• {e.text('en')}") for e in EXERCISES]
    texts = [bullets.heading, bullets.button_label, *(i["html"] for i in bullets.items)]
    chrome = " ".join([*lect.nav.options, intro.object, links, *texts])
    assert spanish_words_left(chrome) == set()


def test_the_spanish_lecture_links_to_english():
    lect = create_lecture("posicion")
    assert 'href="?lang=en&amp;seccion=posicion"' in lect.language_links()
    assert next(iter(lect.nav.options)) == text("section.autoatencion", "es")


@pytest.mark.parametrize(
    ("asked", "lang"), [("en", "en"), ("es", "es"), ("xx", "es"), ("<b>", "es"), (None, "es")]
)
def test_the_address_chooses_the_language(monkeypatch, asked, lang):
    from dashboards.app import session

    args = {} if asked is None else {"lang": [asked.encode()]}
    monkeypatch.setattr(type(session.pn.state), "session_args", property(lambda self: args))
    assert session.requested_lang() == lang


@pytest.mark.parametrize(("lang", "decimal", "other"), [("es", ",", "."), ("en", ".", ",")])
def test_para_seguir_jugando_writes_its_numbers_as_the_language_does(lang, decimal, other):
    from attnmodel import CapitalWalkthrough

    lect = create_lecture("jugar", lang)
    (tries,) = lect._built["jugar"].select(TryList)
    said = " ".join(item["html"] for item in tries.items)
    # Every decimal number of the bullets uses the language's separator, never the other's.
    assert not re.search(rf"\d{re.escape(other)}\d", said)
    roma = CapitalWalkthrough(identity=-0.9).probabilities["Roma"]
    paris = CapitalWalkthrough(identity=0.9).probabilities["París"]
    for x in (-0.9, roma, paris):
        shown = f"{abs(x):.2f}".replace(".", decimal)
        assert shown in said, shown
