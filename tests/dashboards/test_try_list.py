"""«Para seguir jugando» (dashboards/app/try_list.py): a click's message runs its bullet; any
other message is refused with one INFO line and runs nothing."""

from __future__ import annotations

import logging

import pytest

from dashboards.app.try_list import TryList


@pytest.fixture
def bullets():
    ran = []
    tries = TryList(items=[{"html": "<p>uno</p>"}, {"html": "<p>dos</p>"}], on_try=ran.append)
    return tries, ran


def test_a_click_runs_its_bullet(bullets):
    tries, ran = bullets
    tries.receive({"exercise": 2})
    tries.receive({"exercise": 1})
    assert ran == [2, 1]


@pytest.mark.parametrize(
    "msg",
    [{"exercise": 0}, {"exercise": 3}, {"exercise": True}, {"exercise": "1"}, {"x": 1}, 1, None],
)
def test_a_forged_message_is_refused_and_runs_nothing(bullets, msg, caplog):
    tries, ran = bullets
    with caplog.at_level(logging.INFO):
        tries.receive(msg)
    assert ran == []
    (record,) = [r for r in caplog.records if "rechazado" in r.getMessage()]
    assert record.levelno == logging.INFO
    assert "para seguir jugando" in record.getMessage()
