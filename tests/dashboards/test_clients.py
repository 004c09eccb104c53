"""dashboards/runtime/clients.py in process: what a forged message does to a demo's controls,
each a native control of a Board whose use is a message (``Board.receive``; the served
protocol-level test is tests/ui/test_hostile.py)."""

from __future__ import annotations

import logging
import math

import panel as pn
import pytest

from dashboards.demos.explorer import ExplorerView
from dashboards.demos.multihead import MultiHeadView
from dashboards.demos.self_attention import SelfAttentionView
from dashboards.demos.training import TrainingView

from c04_testing import use


@pytest.fixture
def explorer():
    return ExplorerView()


def errors(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


def lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "dashboards.runtime.clients"]


@pytest.mark.parametrize("value", [-5, math.nan, math.inf, 1e308, 10**30, "abc", None, [1]])
def test_a_refused_slider_value_leaves_control_and_model_and_says_one_info_line(
    explorer, caplog, value
):
    before, shown = explorer.model.temperature, explorer.board.slot("temperature").spec
    with caplog.at_level(logging.INFO):
        use(explorer, "temperature", value)
    assert explorer.model.temperature == before
    assert explorer.board.slot("temperature").spec == shown
    assert errors(caplog) == []
    said = lines(caplog)
    assert len(said) == 1, said
    assert "temperature" in said[0]


@pytest.mark.parametrize("index", [999, -1, 2.5, True, "1"])
def test_the_focus_takes_only_an_index_of_its_pieces(explorer, caplog, index):
    before = explorer.model.focus
    with caplog.at_level(logging.INFO):
        use(explorer, "focus", index)
    assert explorer.model.focus == before
    assert errors(caplog) == []
    assert len(lines(caplog)) == 1


def test_a_valid_use_goes_through(explorer, caplog):
    with caplog.at_level(logging.INFO):
        use(explorer, "temperature", 2.0)
        use(explorer, "focus", 1)
    assert explorer.model.temperature == 2.0
    assert explorer.model.focus == 1
    assert lines(caplog) == []


@pytest.mark.parametrize(
    "forged",
    [
        {"control": "sentence", "value": "x", "max_length": 10**9},  # what no page sends
        {"control": "max_length", "value": 10**9},
        {"control": "temperature"},  # a range's use has a value
        {"value": 1},
        {},
        "temperature",
        None,
    ],
)
def test_a_message_that_is_no_use_of_a_control_is_refused(explorer, caplog, forged):
    """A property a browser never writes (a forged ``max_length``…) has no message: anything
    but {control, value} naming a control of the board is one INFO line, nothing changed."""
    before = dict(explorer.model.param.values())
    specs = dict(explorer.board.specs)
    with caplog.at_level(logging.INFO):
        explorer.board.receive(forged)
    assert dict(explorer.model.param.values()).keys() == before.keys()
    assert explorer.model.sentence == before["sentence"]
    assert explorer.board.specs == specs
    assert errors(caplog) == []
    assert len(lines(caplog)) == 1


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
    said = lines(caplog)
    assert len(said) == 1
    assert "«X»" in said[0]
    view.board.receive({"control": "X", "value": {"row": 0, "col": 0, "text": "2"}})
    assert view.model.X[0, 0] == 2.0


def test_an_option_that_does_not_exist_is_refused(caplog):
    view = MultiHeadView()  # its sentence is a Board's native control: a message
    before = view.model.sentence
    with caplog.at_level(logging.INFO):
        view.board.receive({"control": "sentence", "value": "no-existe"})
    assert view.model.sentence == before
    assert view.sentence.spec["value"] == before
    assert errors(caplog) == []
    said = lines(caplog)
    assert len(said) == 1
    assert "sentence" in said[0]


def test_a_typed_seed_is_taken_silently_and_a_forged_one_refused(caplog):
    """«Semilla» (a Board's number box): what a page sends when a student types in it is taken
    without a line; a forged value is refused with one INFO line, the model's seed kept."""
    view = TrainingView()
    seed = view.model.seed
    with caplog.at_level(logging.INFO):
        use(view, "seed", 7)
    assert lines(caplog) == []
    for forged in ("abc", 2.5, [1], {"x": 1}, True, 10**30):
        caplog.clear()
        with caplog.at_level(logging.INFO):
            use(view, "seed", forged)
        said = lines(caplog)
        assert len(said) == 1, said
        assert "rechazado" in said[0]
        assert errors(caplog) == []
    assert view.model.seed == seed


def test_no_demo_builds_a_panel_widget():
    """Every control of every demo is a message checked where it enters: a native control of
    a Board (Board.receive) or MiniLM's grid of heads (HeadGrid.receive). No Panel widget is
    left whose property a browser writes."""
    from dashboards.components.board import Board
    from dashboards.demos.minilm import HeadGrid
    from dashboards.demos.registry import DEMOS

    for demo in DEMOS:
        view = demo.view_class()()
        layout = view.__panel__()
        assert layout.select(pn.widgets.Widget) == [], demo.id
        boards = layout.select(Board)
        assert any(b.controls for b in boards) or layout.select(HeadGrid), demo.id


def test_a_document_without_a_server_is_never_paced():
    """In a notebook (a document with no server loop) every use is handled at once: a paced
    one would wait for a timeout callback that never runs."""
    from bokeh.document import Document
    from panel.io.state import set_curdoc

    view = ExplorerView()
    doc = Document()
    pn.panel(view).get_root(doc)
    with set_curdoc(doc):
        for temperature in (2.0, 1.5, 0.5):
            use(view, "temperature", temperature)
            assert view.model.temperature == temperature
