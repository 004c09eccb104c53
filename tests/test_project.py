"""The project files agree with each other: anaconda-project.yml, the Makefile, the README, CI."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _project():
    return yaml.safe_load((ROOT / "anaconda-project.yml").read_text(encoding="utf-8"))


def _make_recipe(target: str) -> str:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n|\s*\n)+)", text, re.MULTILINE)
    assert match, f"Makefile has no target {target!r}"
    return match.group(1)


def test_anaconda_project_has_the_template_fields():
    project = _project()
    assert re.fullmatch(r"[a-z_]+", project["name"])
    assert project["description"].strip()
    assert project["platforms"]
    for pkg in project["packages"]:
        assert pkg == "pip" or ">=" in pkg, f"{pkg!r} needs a >= minimum pin"
    assert project["dependencies"] == project["packages"]
    assert "test" in project["env_specs"]


def _make_apps() -> list[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8").replace("\\\n", " ")
    match = re.search(r"^APPS := (.*)$", text, re.MULTILINE)
    assert match, "Makefile has no APPS"
    return match.group(1).split()


def test_dashboard_command_serves_the_same_files_as_make_serve():
    command = _project()["commands"]["dashboard"]
    assert command["supports_http_options"] is True
    argv = shlex.split(command["unix"])
    assert argv[:2] == ["panel", "serve"]
    apps = [a for a in argv[2:] if a.endswith(".py")]
    assert apps == _make_apps()
    assert "panel serve $(APPS)" in _make_recipe("serve")
    for app in apps:
        assert (ROOT / app).is_file()


def test_make_serve_lists_every_app_of_the_package():
    import dashboards

    assert _make_apps() == [f"dashboards/{name}.py" for name in dashboards.APPS]


def test_test_command_runs_pytest_like_make_test():
    command = _project()["commands"]["test"]
    assert command["env_spec"] == "test"
    assert shlex.split(command["unix"])[0] == "pytest"
    assert "-m pytest" in _make_recipe("test")


def test_every_command_maps_to_a_make_target():
    mapping = {"dashboard": "serve", "test": "test", "export": "export"}
    for name in _project()["commands"]:
        _make_recipe(mapping[name])


def test_ci_runs_make_test():
    run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "set -euo pipefail" in run
    assert re.search(r"^make test$", run, re.MULTILINE)


def test_readme_quick_start_is_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Inicio rápido", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^make \w+", quick, re.MULTILINE)
    assert commands == ["make serve", "make test"]


def test_test_extra_lists_what_the_tests_import():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for pkg in ("pytest", "hypothesis", "playwright", "pytest-playwright", "pyyaml", "ruff"):
        assert f'"{pkg}>=' in text


def _bench_module(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_server_runs_with_the_system_allocator():
    # Measured (bench/bench_sessions.py): with CPython's own allocator the server stayed at
    # ~1.8x its baseline after a class closed its sessions; with malloc it is back within 10 %.
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    match = re.search(r"^SERVE_ENV := (.*)$", text, re.MULTILINE)
    assert match, "Makefile has no SERVE_ENV"
    assert match.group(1).split() == ["PYTHONMALLOC=malloc"]
    assert "$(SERVE_ENV) $(BIN)/panel serve $(APPS)" in _make_recipe("serve")
    assert _bench_module("_server").SERVE_ENV == {"PYTHONMALLOC": "malloc"}
    prod = (ROOT / "deploy" / "serve-prod.sh").read_text(encoding="utf-8")
    assert re.search(r'^\s*PYTHONMALLOC=malloc .*"\$VENV/bin/panel" serve', prod, re.MULTILINE)
    assert _project()["variables"]["PYTHONMALLOC"]["default"] == "malloc"
    conftest = (ROOT / "tests" / "ui" / "conftest.py").read_text(encoding="utf-8")
    assert '"PYTHONMALLOC": "malloc"' in conftest


def test_make_bench_and_make_soak_run_every_benchmark():
    assert "bench/run.py" in _make_recipe("bench")
    assert "bench/run.py --only soak" in _make_recipe("soak")
    run = _bench_module("run")
    scripts = {script for script, _full, _quick in run.PARTS.values()}
    assert scripts == {p.name for p in (ROOT / "bench").glob("bench_*.py")}
    assert set(run.DEFAULT_PARTS) | {"soak"} == set(run.PARTS)
    assert "soak" not in run.DEFAULT_PARTS
