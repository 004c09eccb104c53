"""The project files agree with each other: anaconda-project.yml, the Makefile, the README, CI."""

from __future__ import annotations

import importlib.util
import re
import shlex
import tomllib
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


def test_every_server_comes_from_the_one_serve_command():
    """`make serve`, anaconda-project's dashboard and serve-prod's workers run ``clase04 serve``
    (``python -m dashboards.cli serve`` where the package is not installed, as anaconda-project
    runs it from the project folder); the tests, the benches and the screenshots import
    dashboards.serving."""
    command = _project()["commands"]["dashboard"]
    assert command["supports_http_options"] is True
    assert shlex.split(command["unix"])[:4] == ["python", "-m", "dashboards.cli", "serve"]
    assert "$(BIN)/clase04 serve --address $(HOST) --port $(PORT)" in _make_recipe("serve")
    prod = (ROOT / "deploy" / "serve-prod.sh").read_text(encoding="utf-8")
    assert re.search(r'^\s*PYTHONUNBUFFERED=1 "\$VENV/bin/clase04" serve ', prod, re.M)
    assert _project()["commands"]["export"]["unix"] == "python -m dashboards.cli export"
    assert "$(BIN)/clase04 export" in _make_recipe("export")
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'clase04 = "dashboards.cli:main"' in text
    for user, call in (
        ("tests/ui/conftest.py", "serving.start("),
        ("bench/_server.py", "serving.start("),
        ("scripts/screenshots.py", "serving.start("),
    ):
        assert call in (ROOT / user).read_text(encoding="utf-8"), user


def test_no_other_file_writes_a_serve_command():
    """panel serve's --index flag (and so the app list) is written once, outside the tests (which
    read the command), in dashboards/serving.py."""
    writers = []
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if parts[0].startswith(".") or parts[0] in {"dist", "docs", "tests"} or not path.is_file():
            continue
        if path.suffix in {".py", ".sh", ".yml", ".md", ""} or path.name == "Makefile":
            text = path.read_text(encoding="utf-8", errors="replace")
            if "--index" in text:
                writers.append(path.relative_to(ROOT).as_posix())
    assert writers == ["dashboards/serving.py"]


def test_test_command_runs_pytest_like_make_test():
    command = _project()["commands"]["test"]
    assert command["env_spec"] == "test"
    argv = shlex.split(command["unix"])
    assert argv[0] == "pytest"
    recipe = _make_recipe("test")
    assert "-m pytest $(PYTEST_PARALLEL) --durations=15" in recipe
    # The same parallel run as make test (TEST_WORKERS defaults to auto).
    assert argv[1:] == ["-n", "auto", "--dist", "loadgroup", "--durations=15"]
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^TEST_WORKERS \?= auto$", text, re.MULTILINE)
    assert re.search(r"^PYTEST_PARALLEL := -n \$\(TEST_WORKERS\) --dist loadgroup$", text, re.M)


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


def test_runtime_pins_allow_only_the_tested_major_minor():
    """pyproject's and anaconda-project's runtime dependencies allow exactly the major.minor of
    the version constraints.txt locks (what the suite runs against), no older and no newer."""
    from packaging.requirements import Requirement
    from packaging.version import Version

    locked = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        name, _, version = line.partition("==")
        locked[name.strip().lower().replace("_", "-")] = Version(version)
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    conda_names = {"redis-py": "redis"}
    specs = [Requirement(r) for r in pyproject["project"]["dependencies"]]
    for pkg in _project()["packages"]:
        name = pkg.split(">", 1)[0].split("<", 1)[0].split("=", 1)[0]
        if name not in ("pip", "python"):
            specs.append(Requirement(conda_names.get(name, name) + pkg[len(name) :]))
    assert len(specs) == 2 * len(pyproject["project"]["dependencies"])
    for req in specs:
        tested = locked[req.name]
        major, minor = tested.release[:2]
        assert tested in req.specifier, f"{req} excludes the tested {tested}"
        for outside in (
            f"{major}.{minor - 1}.99" if minor else f"{major - 1}.99",
            f"{major}.{minor + 1}.0",
            f"{major + 1}.0",
        ):
            assert Version(outside) not in req.specifier, f"{req} allows the untested {outside}"


def test_test_extra_lists_what_the_tests_import():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for pkg in (
        "pytest",
        "hypothesis",
        "playwright",
        "pytest-playwright",
        "pytest-xdist",
        "filelock",
        "pyyaml",
        "ruff",
        "nbclient",
        "nbformat",
        "ipykernel",
    ):
        assert f'"{pkg}>=' in text


def _bench_module(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_server_runs_with_the_system_allocator():
    # Measured (bench/bench_sessions.py): with CPython's own allocator the server stayed at
    # ~1.8x its baseline after a class closed its sessions; with malloc it is back within 10 %.
    from dashboards import serving

    assert serving.SERVE_ENV == {"PYTHONMALLOC": "malloc", "OPENBLAS_NUM_THREADS": "1"}
    assert serving.environment()["PYTHONMALLOC"] == "malloc"
    # and one BLAS thread (MiniLM's forward pass: p50 678 ms with two against busy cores).
    assert serving.environment()["OPENBLAS_NUM_THREADS"] == "1"
    assert _bench_module("_server").SERVE_ENV is serving.SERVE_ENV


def test_make_bench_and_make_soak_run_every_benchmark():
    assert "bench/run.py" in _make_recipe("bench")
    soak = _make_recipe("soak")
    assert "bench/run.py --only soak" in soak
    # then the long soak's assertions on the figures it wrote
    assert "C04_SOAK_RESULTS=bench/soak_results.json" in soak
    assert "-m pytest -m soak" in soak
    run = _bench_module("run")
    scripts = {script for script, _full, _quick in run.PARTS.values()}
    assert scripts == {p.name for p in (ROOT / "bench").glob("bench_*.py")}
    assert set(run.DEFAULT_PARTS) | {"soak"} == set(run.PARTS)
    assert "soak" not in run.DEFAULT_PARTS


def test_readme_load_figures_are_the_bench_s():
    """README's load tables are `bench/run.py --readme`'s output on the results it kept
    (bench/readme-figures.json), with the machine, date and commit of each; not retyped."""
    import json

    run = _bench_module("run")
    block = run.readme_block()
    assert block is not None, "README.md perdió las marcas de bench/run.py --readme"
    parts = json.loads(run.README_FIGURES.read_text(encoding="utf-8"))
    assert set(parts) == set(run.README_PARTS)
    assert block == run.readme_table(parts)
    for name, part in parts.items():
        assert re.fullmatch(r"[0-9a-f]{7,}(\+cambios)?", part.get("commit", "")), name


# The layers of dashboards/, lowest first: a module imports only from its own layer or lower
# ones (README, «Estructura»). What a client may send, and memory; the page's
# building blocks; the demos (and their registry); links and exercises; class mode; the app
# shell; the three commands at the top of the package.
LAYERS = ("runtime", "components", "demos", "sharing", "classroom", "app", "")
COMMANDS = {"cli", "serving", "export"}


def _dashboards_modules() -> dict[str, Path]:
    package = ROOT / "dashboards"
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The dashboards modules ``path`` imports, at its top or in its functions; not in a
    module's ``if __name__ ...`` block (a demo's file run as its own app imports the app
    shell there, and only there)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "__name__" in ast.unparse(node.test):
            skipped |= {id(n) for n in ast.walk(node)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [
                f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                for a in node.names
            ]
        else:
            continue
        found |= {n for n in names if n.split(".")[0] == "dashboards"}
    return found


def _layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in LAYERS[:-1]:
        return LAYERS.index(parts[1])
    assert (len(parts) == 2 and parts[1] in COMMANDS | {"__init__"}) or module == "dashboards", (
        f"{module}: not in a layer of dashboards/ (tests/test_project.py, LAYERS)"
    )
    return len(LAYERS) - 1


def test_dashboards_layers_import_only_downwards():
    """No module of a lower layer imports one of a higher layer: the demos and the components
    never import class mode, the links and exercises or the app; nothing imports the commands."""
    modules = _dashboards_modules()
    wrong = []
    for module, path in modules.items():
        for imported in _imports(path, modules):
            if _layer(imported) > _layer(module):
                wrong.append(f"{module} → {imported}")
    assert not wrong, wrong
    assert {m.split(".")[1] for m in modules if m.count(".") > 1} == set(LAYERS) - {""}


def test_dashboards_has_no_import_cycle():
    modules = _dashboards_modules()
    graph = {m: _imports(p, modules) & set(modules) for m, p in modules.items()}
    done, path = set(), []

    def visit(module):
        if module in path:
            raise AssertionError("ciclo de imports: " + " → ".join([*path, module]))
        if module in done:
            return
        path.append(module)
        for imported in sorted(graph[module]):
            visit(imported)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
