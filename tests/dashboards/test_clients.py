"""dashboards/runtime/clients.py in process: what a forged change does to a guarded widget (the
served protocol-level test is tests/ui/test_hostile.py)."""

from __future__ import annotations

import logging
import math

import panel as pn
import pytest

from attnmodel import AttentionExplorer
from dashboards.demos.explorer import ExplorerView
from dashboards.demos.multihead import MultiHeadView
from dashboards.demos.self_attention import SelfAttentionView
from dashboards.runtime import clients

from c04_testing import use


class Widgets(pn.viewable.Viewer):
    """Panel widgets bound to an explorer's model, as the demos had before their controls went
    native on a Board (the guard's subject, whatever the demos use): a temperature slider,
    token buttons (the index is the focus) and a sentence box."""

    def __init__(self, **params):
        super().__init__(**params)
        self.model = AttentionExplorer()
        self.temperature_slider = pn.widgets.FloatSlider.from_param(
            self.model.param.temperature, step=0.05
        )
        tokens = self.model.tokens
        self.token_buttons = pn.widgets.RadioButtonGroup(
            options={f"{i} {t}": i for i, t in enumerate(tokens)}, value=self.model.focus
        )
        self.token_buttons.param.watch(
            lambda event: setattr(self.model, "focus", event.new), "value"
        )
        self.sentence_input = pn.widgets.TextInput(value=self.model.sentence, max_length=2000)

    def __panel__(self):
        return pn.Column(self.temperature_slider, self.token_buttons, self.sentence_input)


@pytest.fixture
def explorer():
    view = Widgets()
    clients.guard(view)
    return view


def errors(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


@pytest.mark.parametrize("value", [-5, math.nan, math.inf, 1e308, 10**30])
def test_a_refused_slider_value_leaves_widget_and_model_and_says_one_info_line(
    explorer, caplog, value
):
    clients.install_log_filters()
    slider = explorer.temperature_slider
    before = explorer.model.temperature
    with caplog.at_level(logging.INFO):
        slider._process_events({"value": value})
    assert explorer.model.temperature == before
    assert slider.value == before
    assert errors(caplog) == []
    lines = [r.getMessage() for r in caplog.records if r.name == "dashboards.runtime.clients"]
    assert len(lines) == 1
    assert slider.name in lines[0]


@pytest.mark.parametrize("index", [999, -1, 2.5, True, "1"])
def test_a_button_group_takes_only_an_index_of_its_buttons(explorer, caplog, index):
    clients.install_log_filters()
    before = explorer.model.focus
    with caplog.at_level(logging.INFO):
        explorer.token_buttons._process_events({"active": index})
    assert explorer.model.focus == before
    assert explorer.token_buttons.value == before
    assert errors(caplog) == []


def test_a_valid_change_goes_through(explorer):
    explorer.temperature_slider._process_events({"value": 2.0})
    assert explorer.model.temperature == 2.0
    explorer.token_buttons._process_events({"active": 1})
    assert explorer.model.focus == 1


def test_properties_a_browser_never_writes_are_dropped(explorer, caplog):
    box = explorer.sentence_input
    max_length = box.max_length
    with caplog.at_level(logging.INFO):
        box._process_events({"max_length": 10**9, "disabled": True})
    assert (box.max_length, box.disabled) == (max_length, False)
    assert any("max_length" in r.getMessage() for r in caplog.records)


def test_an_oversized_sentence_is_refused_by_the_model_at_once():
    view = ExplorerView()
    before = view.model.sentence
    use(view, "sentence", "a" * 2_000_000)  # the explorer's box: a Board's text control
    assert view.model.sentence == before
    assert view.sentence_error.spec["text"]  # the message in the page's language


@pytest.mark.parametrize(
    "forged",
    [
        {"row": 9, "col": 0, "text": "2"},
        {"row": 0, "text": "2"},
        {"row": 0, "col": 0, "text": "2", "n": 1},
        {"x": 1},
        "2",
        None,
    ],
)
def test_a_forged_commit_of_a_matrix_is_refused(caplog, forged):
    """A matrix's cells take a commit {row, col, text} from a browser and nothing else (its
    Board's message): a commit off the grid or without a cell leaves the matrix and the boxes
    and says one INFO line naming the matrix."""
    view = SelfAttentionView()
    before, shown = view.model.X.copy(), view.board.slot("X").spec
    with caplog.at_level(logging.INFO):
        view.board.receive({"control": "X", "value": forged})
    assert view.model.X.tolist() == before.tolist()
    assert view.board.slot("X").spec == shown
    assert errors(caplog) == []
    lines = [r.getMessage() for r in caplog.records if r.name == "dashboards.runtime.clients"]
    assert len(lines) == 1
    assert "«X»" in lines[0]
    view.board.receive({"control": "X", "value": {"row": 0, "col": 0, "text": "2"}})
    assert view.model.X[0, 0] == 2.0


def test_an_option_that_does_not_exist_is_refused(caplog):
    clients.install_log_filters()  # as configure() does; not left to an earlier test
    view = MultiHeadView()  # its sentence is a Board's native control: a message
    before = view.model.sentence
    with caplog.at_level(logging.INFO):
        view.board.receive({"control": "sentence", "value": "no-existe"})
    assert view.model.sentence == before
    assert view.sentence.spec["value"] == before
    assert errors(caplog) == []
    lines = [r.getMessage() for r in caplog.records if r.name == "dashboards.runtime.clients"]
    assert len(lines) == 1
    assert "sentence" in lines[0]


def test_every_widget_of_every_demo_is_guarded():
    from dashboards.components.board import Board
    from dashboards.demos.minilm import HeadGrid
    from dashboards.demos.registry import DEMOS

    # The widgets and MiniLM's grid of heads (its selection).
    written = pn.widgets.Widget | HeadGrid
    for demo in DEMOS:
        view = demo.view_class()()
        count = clients.guard(view)
        widgets = view.__panel__().select(lambda o: isinstance(o, written))
        assert count == len(widgets)
        assert all(clients.is_guarded(w) for w in widgets), demo.id
        # A demo without widgets has its controls on a Board (checked by Board.receive).
        boards = view.__panel__().select(Board)
        assert widgets or any(b.controls for b in boards), demo.id


def test_a_document_without_a_server_is_never_paced():
    """In a notebook (a document with no server loop) every change is handled at once: a
    paced one would wait for a timeout callback that never runs."""
    from bokeh.document import Document
    from panel.io.state import set_curdoc

    view = Widgets()
    clients.guard(view)
    doc = Document()
    pn.panel(view).get_root(doc)
    with set_curdoc(doc):
        for temperature in (2.0, 1.5, 0.5):
            view.temperature_slider._process_events({"value": temperature})
            assert view.model.temperature == temperature
