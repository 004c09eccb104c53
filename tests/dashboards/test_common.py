"""The shared building blocks of dashboards/components/ and the session set-up of
dashboards/app/session.py that the views rely on for speed."""

from __future__ import annotations

import asyncio
import gc
import importlib
import io
import json
import logging
import sys
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
from dashboards.demos import registry
from dashboards.sharing import links

import c04_testing
from c04_testing import one_refusal

pytestmark = pytest.mark.usefixtures("panel_cleanup")


@pytest.fixture(scope="module", autouse=True)
def _extensions():
    configure()


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
    one_refusal(caplog)


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
    module = importlib.import_module(demo.import_name)
    # The numbers a view's browser code draws, or a view's Python render (not yet moved).
    render = getattr(module, "numbers", None) or module.render
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


def test_a_log_line_goes_to_the_stderr_of_the_moment(monkeypatch):
    # pytest replaces sys.stderr for each test and closes it after; a thread's line comes later.
    made_with, now = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", made_with)
    handler = session.CurrentStderr()
    made_with.close()
    monkeypatch.setattr(sys, "stderr", now)
    handler.emit(logging.LogRecord("dashboards", logging.INFO, __file__, 1, "una línea", (), None))
    assert now.getvalue() == "una línea\n"
