"""The Board (dashboards/components/board.py): slots declared by the layout, specs set per slot
in one change, the JSON the browser gets, and a refusal of what the layout does not hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dashboards.components.board import Board, box, column, prose, row, slot
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


def test_a_node_of_a_step_follows_the_stepper():
    """A node with css class c04-step-<n> keeps it in the layout, and the Board's drawing hands
    its nodes to the stepper's followSteps (present.js), which shows them up to its step."""
    board = Board(layout=[box("Paso 2", slot("a", "note"), css="c04-step-2")])
    assert board.layout[0]["css"] == "c04-step-2"
    assert "C04.present?.followSteps(el)" in Board._esm
    present = Path(__file__).parents[2] / "dashboards" / "static" / "present.js"
    assert "function followSteps(el)" in present.read_text(encoding="utf-8")
