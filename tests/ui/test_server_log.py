"""Browser: ordinary use of every section leaves no noise in the server's log (issue 35, item 6).

A student typing in «Semilla» (Bokeh's Spinner sends ``value_throttled`` on Enter or leaving the
box) is an ordinary browser, not a forged client: nothing "ignored" is logged. Nor does an
ordinary session log Bokeh's "reference already known" warning.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel import TrainingDemo
from attnmodel.i18n import text
from dashboards.demos import registry
from dashboards.sharing import links

pytestmark = pytest.mark.ui

NOISE = ("ignorado", "ignored", "reference already known", "Traceback")
SEED = 7  # typed by the "student": test data


def log_since(server, offset: int) -> list[str]:
    with server["log_path"].open("rb") as log:
        log.seek(offset)
        return log.read().decode("utf-8", errors="replace").splitlines()


def test_every_section_used_as_a_student_does_logs_no_noise(
    page, watch, server, open_lecture_section
):
    offset = server["log_path"].stat().st_size
    for section in registry.SECTIONS:
        open_lecture_section(section.id)
    open_lecture_section("entrenamiento")
    box = page.get_by_label(text("training.seed"), exact=True)
    expect(box).to_be_editable()
    box.click()
    box.press("ControlOrMeta+a")
    page.keyboard.type(str(SEED))
    page.keyboard.press("Tab")
    page.get_by_role("button", name=text("training.retrain")).click()
    # The server trained on the seed: the address it writes has it.
    link = links.encode({"entrenamiento": TrainingDemo(seed=SEED)}, "entrenamiento")
    page.wait_for_function("(link) => location.search === '?' + link", arg=link, timeout=60_000)
    noisy = [line for line in log_since(server, offset) if any(n in line for n in NOISE)]
    assert noisy == []
    assert watch.console_errors == []
