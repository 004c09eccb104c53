"""The models must not import Panel or Bokeh: they drive the tests, the handout and the docs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

UI_PACKAGES = ("panel", "bokeh")

SCRIPT = """
import importlib, json, pkgutil, sys
import attnmodel
names = ["attnmodel"]
for info in pkgutil.walk_packages(attnmodel.__path__, "attnmodel."):
    importlib.import_module(info.name)
    names.append(info.name)
ui = sorted(m for m in sys.modules if m.split(".")[0] in {ui_packages!r})
print(json.dumps({{"imported": names, "ui": ui}}))
"""


def run(script: str) -> dict:
    completed = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_importing_attnmodel_and_every_submodule_leaves_panel_and_bokeh_out():
    result = run(SCRIPT.format(ui_packages=set(UI_PACKAGES)))
    assert "attnmodel.core" in result["imported"]
    assert "attnmodel.self_attention" in result["imported"]
    assert result["ui"] == []


@pytest.mark.parametrize("package", UI_PACKAGES)
def test_the_check_would_see_a_ui_import(package):
    # Guard against a check that cannot fail: importing the package is detected.
    script = SCRIPT.replace("import attnmodel\n", f"import attnmodel, {package}\n", 1)
    result = run(script.format(ui_packages=set(UI_PACKAGES)))
    assert package in {name.split(".")[0] for name in result["ui"]}
