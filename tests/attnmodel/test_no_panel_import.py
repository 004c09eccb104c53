"""The models must not import Panel or Bokeh: they drive the tests, the handout and the docs."""

from __future__ import annotations

import pytest

from c04_testing import UI_MODULES, UI_PACKAGES, run_fresh

SCRIPT = f"""
import importlib, json, pkgutil, sys
import attnmodel
names = ["attnmodel"]
for info in pkgutil.walk_packages(attnmodel.__path__, "attnmodel."):
    importlib.import_module(info.name)
    names.append(info.name)
print(json.dumps({{"imported": names, "ui": {UI_MODULES}}}))
"""


def test_importing_attnmodel_and_every_submodule_leaves_panel_and_bokeh_out():
    result = run_fresh(SCRIPT)
    assert "attnmodel.core" in result["imported"]
    assert "attnmodel.self_attention" in result["imported"]
    assert result["ui"] == []


@pytest.mark.parametrize("package", UI_PACKAGES)
def test_the_check_would_see_a_ui_import(package):
    # Guard against a check that cannot fail: importing the package is detected.
    script = SCRIPT.replace("import attnmodel\n", f"import attnmodel, {package}\n", 1)
    result = run_fresh(script)
    assert package in {name.split(".")[0] for name in result["ui"]}
