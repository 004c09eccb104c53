"""The Board (dashboards/components/board.py): slots declared by the layout, specs set per slot
in one change, the JSON the browser gets, and a refusal of what the layout does not hold."""

from __future__ import annotations

import json

import pytest

from dashboards.components.board import Board, box, column, group, prose, row, slot
from dashboards.components.markup import md_html


@pytest.fixture
def board():
    return Board(
        layout=[
            row(slot("a", "matrix", caption="$$Q$$"), column(slot("b", "note"), slot("t", "html"))),
            box("Paso 1", prose("Un *texto*"), slot("c", "bars")),
        ]
    )


def test_the_layout_declares_each_slot_and_its_kind(board):
    assert board.kinds == {"a": "matrix", "b": "note", "t": "html", "c": "bars"}
    assert board.layout[0]["row"][0]["caption"] == md_html("$$Q$$")
    assert board.layout[1]["title"] == md_html("Paso 1")
    assert board.layout[1]["box"][0] == {"html": "<p>Un <em>texto</em></p>"}


def test_a_slot_is_declared_once_and_of_a_known_kind():
    with pytest.raises(ValueError, match="repetido"):
        Board(layout=[slot("a", "note"), slot("a", "bars")])
    with pytest.raises(ValueError, match="desconocido"):
        slot("a", "canvas")


def test_specs_change_by_slot_and_travel_as_one_json(board):
    board.update_specs({"b": {"text": "hola"}, "t": "<b>x</b>"})
    assert json.loads(board.specs_json) == {"b": {"text": "hola"}, "t": "<b>x</b>"}
    sent = []
    board.param.watch(lambda e: sent.append(e.new), "specs_json")
    board.update_specs({"a": {"rows": []}})  # a new slot: the others are kept
    assert json.loads(sent[-1]) == {"b": {"text": "hola"}, "t": "<b>x</b>", "a": {"rows": []}}
    board.update_specs({"b": {"text": "hola"}})  # the same spec: nothing is sent
    assert len(sent) == 1
    assert board.slot("t").object == "<b>x</b>"
    board.slot("c").spec = {"rows": [1]}
    assert board.slot("c").kind == "bars"
    assert json.loads(board.specs_json)["c"] == {"rows": [1]}


def test_a_slot_the_layout_does_not_hold_is_refused(board):
    with pytest.raises(KeyError):
        board.update_specs({"z": {}})
    with pytest.raises(KeyError):
        board.slot("z")
    assert "z" not in board.specs
    assert "z" not in json.loads(board.specs_json)


def test_a_group_is_a_slot_of_styles_around_its_nodes():
    board = Board(layout=[group("panel", slot("a", "note"), prose("x"), css="frame")])
    assert board.kinds == {"panel": "styles", "a": "note"}
    assert board.layout[0]["col"][0] == slot("a", "note")
    assert board.layout[0]["css"] == "frame"
    board.slot("panel").spec = {"display": "none"}
    assert json.loads(board.specs_json) == {"panel": {"display": "none"}}


def test_only_a_changed_slot_is_written_again_and_the_text_is_the_specs_json(board, monkeypatch):
    """A slot whose spec is the same object keeps its JSON text; the whole text is what
    json.dumps writes of each spec (compact, non-ASCII kept), slot by slot in their order."""
    import dashboards.components.board as board_module

    written = []
    real = board_module._slot_json
    monkeypatch.setattr(board_module, "_slot_json", lambda spec: written.append(spec) or real(spec))
    a, b = {"rows": [[1.5, -0.0]], "title": "Atención «Q»"}, {"text": "hola"}
    board.update_specs({"a": a, "b": b, "t": "<b>ñ</b>"})
    assert written == [a, b, "<b>ñ</b>"]
    written.clear()
    c = {"bars": [0.25, 0.75]}
    board.update_specs({"c": c, "a": a})  # a: the same object, not written again
    assert written == [c]
    written.clear()
    board.update_specs({"b": {"text": "hola"}})  # equal to b: no change at all
    assert written == []
    b2 = {"text": "adiós"}
    board.update_specs({"b": b2})
    assert written == [b2]

    def dumps(value):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    specs = {"a": a, "b": b2, "t": "<b>ñ</b>", "c": c}
    assert board.specs == specs
    expected = ",".join(f"{dumps(k)}:{dumps(v)}" for k, v in specs.items())
    assert board.specs_json == "{" + expected + "}"
    # A board made from the same specs writes the same text.
    assert Board(layout=board.layout, specs=specs).specs_json == board.specs_json


def test_a_shared_renders_spec_brings_its_own_json():
    from dashboards.components.markup import SharedSpec

    spec = SharedSpec({"text": "x"})
    spec.json = '{"text":"made once"}'  # what spec_json() made for the first session
    board = Board(layout=[slot("n", "note")], specs={"n": spec})
    assert board.specs_json == '{"n":{"text":"made once"}}'


def test_a_session_faster_than_its_updates_is_paced_to_its_last_values(monkeypatch):
    """A served session that sends uses faster than they are computed waits for its turn
    (clients.turn): what arrives meanwhile is merged, the last value of each control (of each
    cell of a matrix) handled once, in the order of their last arrival, when the wait is over."""
    from panel.io.state import set_curdoc

    from dashboards.components.board import Board, control
    from dashboards.runtime import clients

    handled, later = [], []

    class Doc:  # a served document: only its timeout callback matters here
        session_context = None  # (clients.spent then keeps no turn: `turn` is patched)

        def add_timeout_callback(self, callback, ms):
            later.append((callback, ms))

    board = Board(
        layout=[control("d", "range", "d"), control("m", "matrix", "m", labels=[["a", "b"]])],
        on_control=lambda name, value: handled.append((name, value)),
    )
    monkeypatch.setattr(clients, "turn", lambda doc: 0.05)
    with set_curdoc(Doc()):
        for value in (1, 2, 3):
            board.receive({"control": "d", "value": value})
        board.receive({"control": "m", "value": {"row": 0, "col": 0, "text": "1"}})
        board.receive({"control": "m", "value": {"row": 0, "col": 1, "text": "2"}})
        board.receive({"control": "m", "value": {"row": 0, "col": 0, "text": "9"}})
    assert handled == []
    assert len(later) == 1  # one callback,
    assert later[0][1] == 50  # after the wait
    monkeypatch.setattr(clients, "turn", lambda doc: 0.0)
    later[0][0]()
    assert handled == [
        ("d", 3),
        ("m", {"row": 0, "col": 1, "text": "2"}),
        ("m", {"row": 0, "col": 0, "text": "9"}),
    ]


def test_a_use_that_comes_after_the_wait_but_before_the_paced_ones_ran_waits_behind_them(
    monkeypatch,
):
    """The wait is over (clients.turn says 0) but the timeout that handles the paced uses has
    not run yet (a loaded server runs it late): a use that arrives then goes behind them, so
    the student's last value is the one that stays (it was run at once, and then the older
    paced value over it: a slider pressed seven times ended one step short, a clean-clone CI
    caught it in test_export_explorer)."""
    from panel.io.state import set_curdoc

    from dashboards.components.board import Board, control
    from dashboards.runtime import clients

    handled, later = [], []

    class Doc:
        session_context = None

        def add_timeout_callback(self, callback, ms):
            later.append((callback, ms))

    board = Board(
        layout=[control("t", "range", "t")],
        on_control=lambda name, value: handled.append((name, value)),
    )
    monkeypatch.setattr(clients, "turn", lambda doc: 0.05)
    with set_curdoc(Doc()):
        board.receive({"control": "t", "value": 0.85})
        monkeypatch.setattr(clients, "turn", lambda doc: 0.0)  # the wait is over
        board.receive({"control": "t", "value": 0.8})
    assert handled == []  # nothing ran before the paced use
    later[0][0]()
    assert handled == [("t", 0.8)]
    with set_curdoc(Doc()):
        board.receive({"control": "t", "value": 0.75})  # nothing paced now: run at once
    assert handled == [("t", 0.8), ("t", 0.75)]


def test_run_offline_reaches_another_component_of_ours_by_its_name(panel_cleanup):
    """The export: a twin's targets on another Board or a Raster (a component the section keeps
    between boards) are found in the page by their Panel name; anything else is refused."""
    import panel as pn

    from dashboards.components.board import control
    from dashboards.components.markup import Raster

    controls = Board(layout=[control("n", "range", "n"), slot("shape", "note")])
    figures = Board(layout=[slot("curve", "lines")])
    heatmap = Raster(name="pe-heatmap", spec={})
    targets = {
        "shape": (controls, "board:shape"),
        "curve": (figures, "board:curve"),
        "values": (heatmap, "esm:values"),
    }
    controls.run_offline("demo", targets, bounds=[2, 512])
    assert controls.offline == {
        "demo": "demo",
        "kinds": {"shape": "board:shape", "curve": "board:curve", "values": "esm:values"},
        "extra": {"bounds": [2, 512]},
        "peers": {"curve": figures.name, "values": "pe-heatmap"},
    }
    with pytest.raises(ValueError, match="run_offline"):
        controls.run_offline("demo", {"x": (pn.pane.HTML("x"), "html")})
