"""A number box (Panel's IntInput, Bokeh's Spinner: «Semilla» of the training section) behind
dashboards/runtime/clients.py: what a browser sends when a student types in it is taken silently; a
forged value is still refused with one INFO line (issue 35, item 6)."""

from __future__ import annotations

import logging

import panel as pn
import pytest

from dashboards.runtime import clients


@pytest.fixture
def box():
    clients.install_log_filters()  # as every served session (dashboards.app.session.configure)
    widget = pn.widgets.IntInput(value=0, start=0, end=99)
    clients.guard(widget)
    return widget


def lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "dashboards.runtime.clients"]


def test_what_a_browser_sends_on_leaving_the_box_is_taken_silently(box, caplog):
    # Bokeh's Spinner sends value as the student types and value_throttled on Enter or blur.
    with caplog.at_level(logging.INFO):
        box._process_events({"value": 7})
        box._process_events({"value_throttled": 7})
    assert lines(caplog) == []
    assert (box.value, box.value_throttled) == (7, 7)


@pytest.mark.parametrize("forged", ["abc", 2.5, [1], {"x": 1}])
def test_a_forged_value_throttled_is_refused_with_one_info_line(box, caplog, forged):
    with caplog.at_level(logging.INFO):
        box._process_events({"value_throttled": forged})
    said = lines(caplog)
    assert len(said) == 1, said
    assert "rechazado" in said[0]
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert box.value == 0
