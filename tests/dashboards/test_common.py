"""The shared building blocks of dashboards/components/ and the session set-up of
dashboards/app/session.py that the views rely on for speed."""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import logging
import types
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import panel as pn
import param
import pytest
from bokeh.document import Document
from tornado.websocket import WebSocketClosedError

from attnmodel.i18n import languages
from dashboards.app import session
from dashboards.app.session import configure, quiet_closed_websockets
from dashboards.components import render as shared_renders
from dashboards.components.markup import Markup, SharedSpec, spec_json
from dashboards.components.page import page_template
from dashboards.components.render import model_state, shared_render
from dashboards.components.views import respond_immediately
from dashboards.demos import registry
from dashboards.sharing import links

import c04_testing

pytestmark = pytest.mark.usefixtures("panel_cleanup")


@pytest.fixture(scope="module", autouse=True)
def _extensions():
    configure()


def test_respond_immediately_covers_every_widget_of_a_layout():
    inner = pn.Column(pn.widgets.Checkbox(), pn.Row(pn.widgets.IntSlider(), pn.pane.HTML("x")))
    layout = pn.Column(pn.widgets.Select(options=["a", "b"]), inner)
    assert respond_immediately(layout) == 3
    assert all(w._debounce == 0 for w in layout.select(pn.widgets.Widget))


def _in_a_fresh_loop(coro_fn):
    """Run ``coro_fn()`` with asyncio.run in a thread of its own: Playwright's sync fixtures
    keep a loop running in the test thread when a browser test ran before on this worker."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro_fn()).result(timeout=30)


def test_a_client_gone_mid_write_is_one_info_line_not_a_traceback(caplog):
    async def run():
        quiet_closed_websockets()
        quiet_closed_websockets()  # idempotent: one handler per loop
        loop = asyncio.get_running_loop()

        async def write_to_a_closed_socket():
            raise WebSocketClosedError()

        async def fail_otherwise():
            raise ValueError("otra cosa")

        tasks = [loop.create_task(write_to_a_closed_socket()), loop.create_task(fail_otherwise())]
        await asyncio.sleep(0.01)
        del tasks  # never retrieved: asyncio reports both to the loop's exception handler
        gc.collect()
        return getattr(loop.get_exception_handler(), "c04_quiet", False)

    with caplog.at_level(logging.INFO):
        assert _in_a_fresh_loop(run) is True
    ours = [r for r in caplog.records if r.name == "dashboards.app.session"]
    assert [r.levelno for r in ours] == [logging.INFO]
    assert "WebSocketClosedError" in ours[0].getMessage()
    # Anything else still reaches asyncio's own handler, traceback and all.
    others = [r for r in caplog.records if r.name == "asyncio"]
    assert len(others) == 1
    assert others[0].levelno == logging.ERROR
    assert "otra cosa" in str(others[0].exc_info[1])


@pytest.mark.parametrize("lang", languages())
def test_the_served_page_says_its_language(lang):
    from bokeh.core.templates import MACROS

    context = {"title": "t", "docs": [], "roots": [], "macros": MACROS, "plot_script": ""}
    page = page_template(lang).render(context)
    assert f'<html lang="{lang}"' in page
    assert page.count("<html") == 1


def test_shared_pages_are_kept_per_language():
    """--reuse-sessions shares a page per key: one per path, language and theme."""

    def request(**arguments):
        args = {k: [v.encode()] for k, v in arguments.items()}
        return types.SimpleNamespace(path="/explorer", arguments=args)

    assert session.session_key(request()) == ("/explorer", "es", "default", False)
    assert session.session_key(request(lang="en")) == ("/explorer", "en", "default", False)
    assert session.session_key(request(lang="xx")) == ("/explorer", "es", "default", False)
    assert session.session_key(request(lang="en", theme="dark"))[2] == "dark"
    # The lecturer's page is never rendered from a student's session
    # (dashboards/classroom/classmode.py).
    assert session.session_key(request(profesor="x" * 20))[3] is True


def on_a_board(editor):
    """``editor`` alone on a Board, as a view puts it; and the list of the specs of its cells
    sent to the browser from then on (each change of the Board's specs_json)."""
    from dashboards.components.board import Board

    board = Board(layout=[editor.node()], on_control=lambda _name, value: editor.receive(value))
    editor.attach(board)
    name, sent = editor.name_param, []

    def record(event):
        spec = json.loads(event.new).get(name)
        if spec is not None and spec != json.loads(event.old).get(name):
            sent.append(spec)

    board.param.watch(record, "specs_json")
    return editor, sent


def test_a_refused_cell_is_shown_again_once():
    """A refused commit sends the boxes their texts once more (the counter moves even where the
    texts are the ones the server sent before: the browser's box holds the refused text)."""
    from attnmodel import SelfAttention
    from dashboards.components.matrix import MatrixEditor

    model = SelfAttention()
    editor, sent = on_a_board(MatrixEditor(model=model, name_param="W_V"))
    before = editor.board.slot("W_V").spec
    c04_testing.commit(editor, 1, 0, "2e6")
    assert [(s["texts"], s["n"]) for s in sent] == [(before["texts"], before["n"] + 1)]
    assert editor.error.startswith("W_V[2,1]: ")
    np.testing.assert_array_equal(model.W_V, SelfAttention().W_V)


def test_a_committed_cell_keeps_its_text_and_others_follow_the_model():
    """A valid commit keeps the student's text ("2,0" stays); a change of the model from
    elsewhere rewrites the cells whose number it is not, in one message."""
    from attnmodel import SelfAttention
    from dashboards.components.matrix import MatrixEditor

    model = SelfAttention()
    editor, sent = on_a_board(MatrixEditor(model=model, name_param="X"))
    c04_testing.commit(editor, 0, 0, "2,0")
    assert model.X[0, 0] == 2.0
    assert c04_testing.cell_texts(editor)[0][0] == "2,0"
    sent.clear()
    model.X = [[2.0, 0.5], [0, 1], [1, 1]]
    assert len(sent) == 1
    assert c04_testing.cell_texts(editor)[0] == ["2,0", "0,5"]


@pytest.mark.parametrize(
    "forged",
    [
        {},
        {"row": 0, "col": 0},
        {"row": 7, "col": 0, "text": "1"},
        {"row": -1, "col": 0, "text": "1"},
        {"row": "0", "col": 0, "text": "1"},
        {"row": True, "col": 0, "text": "1"},
        {"row": 0, "col": 0, "text": 5},
        {"row": 0, "col": 0, "text": "1", "extra": 1},
    ],
)
def test_a_forged_commit_is_refused(forged, caplog):
    """A commit the page never sends (no cell, a cell off the grid, a number for the text) is
    refused with one INFO line (dashboards/runtime/clients.py); the matrix and the boxes stay."""
    from attnmodel import SelfAttention
    from dashboards.components.matrix import MatrixEditor

    model = SelfAttention()
    editor, sent = on_a_board(MatrixEditor(model=model, name_param="X"))
    with caplog.at_level(logging.INFO, logger="dashboards.runtime.clients"):
        editor.receive(forged)
    assert sent == []
    np.testing.assert_array_equal(model.X, SelfAttention().X)
    lines = [r for r in caplog.records if "valor de un cliente rechazado" in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].levelno == logging.INFO


def test_the_lean_update_of_properties_gives_what_panel_s_gives():
    """configure()'s patch of Reactive._update_properties: the same properties for Bokeh as
    Panel's own, for a value and for stylesheets (which it leaves to Panel's)."""
    from panel.reactive import Reactive

    configure()
    lean = Reactive._update_properties
    original = lean.c04_original
    slider = pn.widgets.IntSlider(start=0, end=10, value=1, label="d_k")
    doc = Document()
    doc.add_root(slider.get_root(doc))
    events = []
    slider.param.watch(lambda *batch: events.extend(batch), ["value", "label", "stylesheets"])
    slider.param.update(value=4, label="otro")
    slider.stylesheets = [":host { color: red; }"]
    assert len(events) == 3

    def plain(properties):  # a stylesheet made anew at each call: compared by its url
        return {
            k: [getattr(x, "url", x) for x in v] if k == "stylesheets" else v
            for k, v in properties.items()
        }

    for batch in (events[:2], events[2:]):
        assert plain(lean(slider, *batch, doc=doc)) == plain(original(slider, *batch, doc=doc))


def test_cached_bokeh_defaults_read_as_bokeh_s_own():
    """configure()'s cache of Bokeh's stable defaults: every property of a fresh model, themed
    or not, reads as Bokeh's own reading gives it, and a container default stays per model (a
    list changed on one model is not another model's default)."""
    from bokeh.core.property.descriptors import PropertyDescriptor
    from bokeh.models import Slider, TextInput
    from bokeh.themes import Theme

    configure()
    cached = PropertyDescriptor._get_default
    original = cached.c04_original
    assert cached is not original
    theme = Theme(json={"attrs": {"TextInput": {"placeholder": "tema", "width": 77}}})
    for themed in (False, True):
        for cls in (TextInput, Slider):
            a, b = cls(), cls()
            if themed:
                doc = Document(theme=theme)
                doc.add_root(a)
                doc.add_root(b)
            for name in a.properties():
                descriptor = a.lookup(name)
                if name in a._property_values:
                    continue
                assert repr(cached(descriptor, a)) == repr(original(descriptor, b)), name
    a, b = TextInput(), TextInput()
    a.css_classes.append("solo-a")
    assert b.css_classes == []
    doc = Document(theme=theme)
    doc.add_root(a)
    assert (a.placeholder, a.width, b.placeholder) == ("tema", 77, "")
    # A theme dropped: back to the class's own defaults.
    doc.theme = None
    assert (a.placeholder, a.width) == ("", None)


def test_lazy_serializer_references_encode_as_bokeh_s_own():
    """configure()'s lazy refs of Bokeh's Serializer: a patch of a document's model encodes as
    with Bokeh's own Serializer, and both know the same models."""
    from bokeh.core.serialization import Serializer
    from bokeh.document.events import ModelChangedEvent
    from bokeh.models import Column, Div

    configure()
    original = Serializer.__init__.c04_original
    doc = Document()
    divs = [Div(text=str(i)) for i in range(5)]
    doc.add_root(Column(*divs))
    known = set(doc.models)
    divs[2].text = "nuevo"
    events = [
        ModelChangedEvent(doc, divs[2], "text", "nuevo"),
        ModelChangedEvent(doc, divs[0], "styles", {"color": "red"}),
    ]
    lazy = Serializer(references=known)
    bokeh = Serializer.__new__(Serializer)
    original(bokeh, references=known)
    assert lazy.encode(events) == bokeh.encode(events)
    fresh = Div(text="fuera del documento")
    for model in [*known, fresh]:
        assert lazy.has_ref(model) == bokeh.has_ref(model)
        assert lazy.get_ref(model) == bokeh.get_ref(model)
    assert lazy.encode(fresh) == bokeh.encode(fresh)  # a new model: in full, then a ref


def test_edit_readonly_unlocks_and_locks_back_as_panel_s_own():
    """configure()'s edit_readonly: the same parameters editable inside, and the same flags and
    values after (also after an error inside), as Panel's own."""
    import sys

    configure()

    class Thing(param.Parameterized):
        free = param.Integer(default=1)
        fixed = param.Integer(default=2, constant=True)
        shown = param.Integer(default=3, readonly=True)

    edit = sys.modules["panel.reactive"].edit_readonly
    assert edit is sys.modules["panel.io.state"].edit_readonly
    assert edit is not edit.c04_original

    def run(editor):
        thing = Thing(name="cosa")
        with editor(thing):
            thing.fixed, thing.shown, thing.free = 20, 30, 10
        with pytest.raises(RuntimeError), editor(thing):
            raise RuntimeError("dentro")
        flags = {n: (p.constant, p.readonly) for n, p in thing.param.objects("existing").items()}
        return thing.param.values(), flags

    assert run(edit) == run(edit.c04_original)
    assert Thing.param.fixed.constant
    assert Thing.param.shown.readonly


def _row_of(pane) -> dict:
    row = pane.layout
    assert list(row.objects) == [pane]
    values = row.param.values()
    return {"type": type(row), **{k: v for k, v in values.items() if k not in ("name", "objects")}}


def _pane_life(make):
    """A pane's Row as read after its sizing changed, and again after a later change."""
    pane = make()
    pane.param.update(width=150, height=40)
    first = _row_of(pane)
    pane.margin = (3, 7)
    pane.sizing_mode = "stretch_width"
    return first, _row_of(pane)


@pytest.mark.parametrize(
    "make",
    [
        lambda: pn.pane.Markdown("uno", width=100, margin=(5, 10), styles={"color": "red"}),
        lambda: pn.pane.HTML("<b>dos</b>", sizing_mode="stretch_width", min_height=20),
        lambda: pn.pane.HTML("tres", margin=4, visible=False),
        lambda: pn.pane.Str("cuatro"),
    ],
    ids=["markdown", "html", "live-html", "str"],
)
def test_a_pane_s_lazy_row_is_panel_s_own_when_read(make, monkeypatch):
    """configure()'s lazy pane layout: the Row a pane keeps around itself, built when first read,
    is the one Panel's own __init__ builds and syncs (its sizing, margins and styles), before
    and after the pane's sizing changes."""
    from panel.pane.base import PaneBase

    lazy = _pane_life(make)
    assert "_c04_layout_kwargs" in make().__dict__  # a new pane: its Row not built yet
    monkeypatch.setattr(PaneBase, "__init__", PaneBase.__init__.c04_original)
    monkeypatch.setattr(PaneBase, "_sync_layoutable", PaneBase._sync_layoutable.c04_original)
    monkeypatch.delattr(PaneBase, "layout")
    assert _pane_life(make) == lazy


def test_a_pane_is_still_its_own_root_and_takes_a_new_row():
    """pn.panel() of a pane (its Row, or the pane itself) and a Row set by hand, as Panel does it
    (the Param pane sets its own)."""
    pane = pn.pane.Markdown("raíz", width=90)
    assert pn.panel(pane) is pane
    root = pane.get_root(Document())
    assert root.text
    assert pane.layout.width == 90 + 2 * pane.margin[1]  # Panel adds the margins
    row = pn.Row(pane)
    pane.layout = row
    assert pane.layout is row
    assert isinstance(pn.Param(_Toy(), parameters=["weight"]).layout, pn.Column)


def test_the_first_section_builds_no_hidden_row():
    """What the lazy layout saves: a new session's lecture and its first section, built into a
    document, leave every pane's Row unbuilt."""
    from panel.io.state import set_curdoc
    from panel.pane.base import PaneBase

    from dashboards.app import lecture

    doc = Document()
    with set_curdoc(doc):
        view = pn.panel(lecture.create_lecture())
        doc.add_root(view.get_root(doc))
        pn.state._on_load(doc)
    panes = [p for p in view.select(PaneBase) if p._models]
    assert len(panes) >= 1  # a pane, for the check to mean something (the first section is Boards)
    assert [p for p in panes if {"layout", "_c04_layout"} & p.__dict__.keys()] == []


@pytest.mark.parametrize(
    "text",
    [
        "Hola, **mundo**: $\\mathrm{softmax}(QK^\\top/\\sqrt{d_k})V$",
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n- uno\n- dos",
        "    sangrado\n    y más",
        "",
    ],
)
def test_a_markdown_pane_s_html_is_panel_s_own_and_rendered_once(text, monkeypatch):
    """configure()'s cache of Markdown's rendered HTML: the same HTML as Panel's own for every
    option the rendering reads; a text rendered once per process (the second time, with both
    renderers broken, it still comes back: from the cache)."""
    import markdown
    from panel.pane.markup import Markdown

    cached = Markdown._transform_object
    original = cached.c04_original
    options = [
        {},
        {"dedent": False},
        {"hard_line_break": True},
        {"disable_anchors": False},
        {"renderer": "markdown"},
        {"renderer_options": {"breaks": True}},
    ]
    first = []
    for params in options:
        pane = Markdown(text, **params)
        first.append(cached(pane, text))
        assert first[-1] == original(pane, text), params

    def broken(*args, **kwargs):
        raise AssertionError("rendered again")

    monkeypatch.setattr(Markdown, "_get_parser", classmethod(broken))
    monkeypatch.setattr(markdown, "markdown", broken)
    with pytest.raises(AssertionError, match="rendered again"):
        original(Markdown(text), text)
    for params, html in zip(options, first, strict=True):
        assert cached(Markdown(text, **params), text) == html, params


def test_the_markdown_cache_is_bounded():
    from panel.pane.markup import Markdown

    cached = Markdown._transform_object
    pane = Markdown()
    for i in range(1100):
        assert cached(pane, f"número {i}") == cached.c04_original(pane, f"número {i}")
    assert len(cached.c04_rendered) == 1024


def test_a_design_s_modifiers_are_panel_s_own_and_each_caller_s_copy():
    """configure()'s design modifiers per class: what a component's design gives it (its
    stylesheets, its settings, its children's) is what Panel's own gives, for several classes,
    themes and isolation; a caller changing its copy changes no one else's."""
    from panel.theme import Design
    from panel.theme.native import Native

    from dashboards.components.markup import Markup

    cached = Design._get_modifiers.__func__
    original = cached.c04_original
    design = Native(theme="default")
    viewables = [
        pn.Column(),
        pn.pane.Markdown("x"),
        pn.widgets.Checkbox(),
        Markup(),
        pn.pane.HTML("y"),
    ]
    for viewable in viewables:
        for theme in (design.theme, type(design.theme)):
            for isolated in (True, False):
                args = (Native, viewable, theme, isolated)
                assert cached(*args) == original(*args), (type(viewable), theme, isolated)
    modifiers, children = cached(Native, pn.Column(), design.theme, True)
    assert modifiers["stylesheets"]
    modifiers["stylesheets"].append("ajena.css")
    modifiers["sizing_mode"] = "ajeno"
    children["ajeno"] = 1
    again = cached(Native, pn.Column(), design.theme, True)
    assert again == original(Native, pn.Column(), design.theme, True)


def test_bokeh_s_overridden_defaults_per_class_are_bokeh_s_own():
    """configure()'s merge of Bokeh's overridden defaults once per class: for every model class
    Bokeh knows (Panel's and the lecture's included), the same names and values as Bokeh's own
    merge, and a view nobody can change."""
    from bokeh.core.has_props import HasProps
    from bokeh.model import Model

    from dashboards.components.markup import Markup

    Markup().get_root(Document())  # Panel makes its data-model classes when first rendered
    cached = HasProps._overridden_defaults.__func__
    original = cached.c04_original
    classes = list(Model.model_class_reverse_map.values())
    assert len(classes) > 300
    assert sum(bool(original(cls)) for cls in classes) > 10  # classes that override some
    for cls in classes:
        assert dict(cls._overridden_defaults()) == original(cls), cls
    assert cls._overridden_defaults() is cls._overridden_defaults()
    with pytest.raises(TypeError):
        cls._overridden_defaults()["ajeno"] = 1


def test_bokeh_s_unstable_defaults_per_class_are_bokeh_s_own():
    """configure()'s answer per (property, class) to whether a default is made anew for each
    model: Bokeh's own answer for every property of every model class Bokeh knows, whatever
    instance asks first."""
    from bokeh.core.property.descriptors import PropertyDescriptor
    from bokeh.model import Model

    from dashboards.components.markup import Markup

    Markup().get_root(Document())  # Panel makes its data-model classes when first rendered
    cached = PropertyDescriptor.has_unstable_default
    original = cached.c04_original
    answers = set()
    for cls in list(Model.model_class_reverse_map.values()):
        try:
            a, b = cls(), cls()
        except Exception:  # an abstract or argument-taking class: no instance to ask about
            continue
        for name in cls.properties(_with_props=True):  # what HasProps.__init__ asks about
            descriptor = cls.lookup(name)
            if not isinstance(descriptor, PropertyDescriptor):  # an alias answers on its own
                continue
            answer = cached(descriptor, a)
            assert answer == original(descriptor, b) == cached(descriptor, b), (cls, name)
            answers.add(answer)
    assert answers == {True, False}


def test_empty_container_defaults_are_made_as_bokeh_makes_them():
    """configure()'s empty list, set and dict defaults: for every property of every model class
    Bokeh knows, a fresh model's default equals Bokeh's own for another fresh model (the same
    wrapper type, value and owner), is kept for the next read and is that model's alone; a
    themed property still takes Bokeh's own path."""
    from bokeh.core.property.descriptors import PropertyDescriptor
    from bokeh.core.property.wrappers import PropertyValueContainer
    from bokeh.model import Model
    from bokeh.models import Div
    from bokeh.themes import Theme

    from dashboards.components.markup import Markup

    configure()
    Markup().get_root(Document())  # Panel makes its data-model classes when first rendered
    cached = PropertyDescriptor._get_default
    original = cached.c04_original
    made = 0
    for cls in list(Model.model_class_reverse_map.values()):
        try:
            a, b = cls.__new__(cls), cls.__new__(cls)
            for model in (a, b):  # HasProps.__init__ without its filling of the defaults
                model._property_values = {}
                model._unstable_default_values = {}
                model._unstable_themed_values = {}
        except Exception:
            continue
        for name in cls.properties(_with_props=True):
            descriptor = cls.lookup(name)
            if not isinstance(descriptor, PropertyDescriptor):
                continue
            if not descriptor.has_unstable_default(a):
                continue
            try:
                theirs = original(descriptor, b)
            except Exception:  # a default Bokeh itself cannot make without a full model
                continue
            ours = cached(descriptor, a)
            assert type(ours) is type(theirs), (cls, name)
            if isinstance(theirs, PropertyValueContainer) and not theirs:  # not a new model
                assert ours == theirs, (cls, name)
                made += 1
                assert ours._owners == {(a, descriptor)}, (cls, name)
                assert a._unstable_default_values[name] is ours is cached(descriptor, a)
                assert ours is not cached(descriptor, b)
    assert made > 1000
    a, b = Div(), Div()
    a.css_classes.append("solo-a")
    assert (a.css_classes, b.css_classes) == (["solo-a"], [])
    theme = Theme(json={"attrs": {"Div": {"css_classes": ["del-tema"]}}})
    doc = Document(theme=theme)
    doc.add_root(b)
    assert b.css_classes == ["del-tema"]
    doc.theme = None
    assert b.css_classes == []


# -- shared_render ------------------------------------------------------------------------------


class _Toy(param.Parameterized):
    weight = param.Number(0.0)
    matrix = param.Array(default=np.zeros((2, 2)))
    other = param.Parameter(None)


def _counting():
    calls = []

    def render(model, lang="es"):
        calls.append((model.weight, lang))
        return {"weight": f"{model.weight!r}", "lang": lang}

    return shared_render(render), calls


def test_one_render_per_state_and_language_shared_by_every_session():
    render, calls = _counting()
    first, second = _Toy(weight=0.5), _Toy(weight=0.5)
    assert render(first) is render(second)  # two sessions, one state: one render
    assert render(first, "en") is not render(first)
    assert calls == [(0.5, "es"), (0.5, "en")]


@pytest.mark.parametrize(
    "change",
    [
        {"weight": -0.0},  # equal to 0.0, written "−0,0" by the views
        {"weight": 5e-324},
        {"matrix": np.array([[0.0, 0.0], [0.0, -0.0]])},
        {"matrix": np.zeros((2, 2), dtype=np.float32)},
        {"matrix": np.zeros((1, 4))},
    ],
)
def test_a_state_that_differs_in_any_bit_is_rendered_again(change):
    render, calls = _counting()
    render(_Toy())
    render(_Toy(**change))
    assert len(calls) == 2


def test_a_value_without_an_exact_key_is_rendered_each_time():
    render, calls = _counting()
    model = _Toy(other=object())
    render(model)
    render(model)
    assert len(calls) == 2


def test_the_shared_renders_are_bounded(monkeypatch):
    monkeypatch.setattr(shared_renders, "SHARED_RENDERS", 3)
    render, calls = _counting()
    for w in range(5):
        render(_Toy(weight=float(w)))
    assert list(render.cache) == [("es", model_state(_Toy(weight=float(w)))) for w in (2, 3, 4)]
    render(_Toy(weight=0.0))  # dropped: rendered again
    assert len(calls) == 6


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("demo", registry.DEMOS, ids=lambda d: d.id)
def test_each_demo_s_shared_render_is_its_render(demo, lang):
    """A state reached by another path (a session that changed every field and came back, a
    new one) gets what its own render would compute."""
    render = importlib.import_module(demo.import_name).render
    model = demo.model_class()()
    for f in links.fields(demo.id):
        p = model.param[f.param]
        kind = links.kind_of(p)
        if kind == "bool":
            setattr(model, f.param, not getattr(model, f.param))
    uncached = getattr(render, "uncached", render)
    assert _same(render(model, lang), uncached(model, lang))
    fresh = demo.model_class()()
    assert _same(render(fresh, lang), uncached(fresh, lang))


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def test_a_shared_render_s_specs_are_made_json_once():
    shared = shared_render(lambda m, lang="es": {"spec": {"rows": [1, 2]}, "text": "x"})
    values = shared(_Toy())
    spec = values["spec"]
    assert isinstance(spec, SharedSpec)
    assert values["text"] == "x"
    first = spec_json(spec)
    assert first == '{"rows":[1,2]}'
    assert spec_json(spec) is first  # kept, not made again
    assert spec_json({"rows": [1, 2]}) == first  # a plain dict: the same JSON


def test_a_markup_tells_its_watchers_when_a_shared_spec_s_content_changes():
    markup = Markup(kind="note")
    seen = []
    markup.param.watch(lambda e: seen.append(e.new), "spec")
    markup.spec = SharedSpec(text="uno")
    markup.spec = SharedSpec(text="uno")  # another object, the same content
    markup.spec = SharedSpec(text="dos")
    assert seen == [{"text": "uno"}, {"text": "dos"}]
    assert markup.spec_json == '{"text":"dos"}'
