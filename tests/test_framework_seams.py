"""dashboards/ uses Panel, Bokeh, param and tornado only at their public seams (issue 36, item 1).

Three reads of the code, each independent of how the code is written today:

- Python, by its syntax tree: a private attribute (``x._name``, not ``self``/``cls``/``super()``)
  read or written on anything, and any assignment or ``setattr`` on a name imported from a
  framework module (``Reactive.method = …``, ``Serializer.__init__ = …``);
- Python, by import: a method of one of our classes whose underscore name a framework base class
  defines (an override of their private method). Declarations a custom component makes by
  documented class attributes (``_esm``, ``_stylesheets``, ``_rename``…) are data, not methods;
  param's and Panel's metaclass bookkeeping (``_param__*``, ``_data_model*``) is theirs;
- the browser code, by pattern: a prototype or a framework object's private member written.

``REMAINING`` lists what is allowed: nothing. A new use fails this test.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import dashboards

ROOT = Path(__file__).resolve().parents[1]
DASHBOARDS = ROOT / "dashboards"
FRAMEWORKS = ("panel", "bokeh", "param", "tornado")
# Panel's documented settings are written by assignment (``pn.config.js_files = …``).
PUBLIC_SETTINGS = ("pn.config.",)

# Every use issue 36 found is gone (31 at the start of the work); the list stays, empty, so a
# new use is a decision someone writes here with its reason.
REMAINING: set[str] = set()


def _framework_names(tree: ast.Module) -> set[str]:
    """Names bound by ``import panel as pn``, ``from bokeh.x import Y`` and the like."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FRAMEWORKS:
                    names.add((alias.asname or alias.name).split(".")[0])
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.split(".")[0] in FRAMEWORKS
        ):
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def python_uses(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    framework = _framework_names(tree)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            private = node.attr.startswith("_") and not node.attr.startswith("__")
            base = node.value
            ours = (isinstance(base, ast.Name) and base.id in ("self", "cls")) or (
                isinstance(base, ast.Call)
                and isinstance(base.func, ast.Name)
                and base.func.id == "super"
            )
            if private and not ours:
                found.add(ast.unparse(node))
        targets = []
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("setattr", "delattr")
            and node.args
        ):
            targets = [node.args[0]]
        for target in targets:
            written = isinstance(target, ast.Attribute) or isinstance(node, ast.Call)
            if written and _root_name(target) in framework:
                text = ast.unparse(target)
                if not text.startswith(PUBLIC_SETTINGS):
                    found.add(text)
    return found


def _our_classes():
    for info in pkgutil.walk_packages(dashboards.__path__, "dashboards."):
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__:
                yield module, cls


def private_overrides() -> set[str]:
    """``file: Class._method`` for every method of ours that overrides a framework's private
    one (a function, property or class/static method; data declarations are not methods)."""
    found = set()
    for module, cls in _our_classes():
        for name, value in vars(cls).items():
            if not name.startswith("_") or name.startswith("__"):
                continue
            if name.startswith(("_param__", "_data_model")):
                continue  # param's and Panel's metaclasses write these on every class
            method = callable(value) or isinstance(value, property | classmethod | staticmethod)
            theirs = any(
                base.__module__.split(".")[0] in FRAMEWORKS and name in vars(base)
                for base in cls.__mro__[1:]
            )
            if method and theirs:
                path = Path(inspect.getfile(module)).resolve().relative_to(ROOT)
                found.add(f"{path.as_posix()}: {cls.__name__}.{name}")
    return found


_JS_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_JS_PATTERNS = (
    re.compile(r"\b\w+\.prototype\.\w+\s*=(?!=)"),  # a prototype's method replaced
    re.compile(r"\b(?!this\b)\w+\._\w+"),  # a private member of someone else's object
    re.compile(r"\bdocuments\.push\s*=(?!=)"),  # Bokeh's list of documents
)


def js_uses(path: Path) -> set[str]:
    code = _JS_COMMENT.sub("", path.read_text(encoding="utf-8"))
    code = re.sub(r"(['\"`])(?:\\.|(?!\1).)*\1", "''", code)  # strings say nothing
    return {m.group(0).rstrip() for p in _JS_PATTERNS for m in p.finditer(code)}


def used() -> set[str]:
    found = set()
    for path in sorted(DASHBOARDS.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        found |= {f"{rel}: {use}" for use in python_uses(path)}
    for path in sorted([*DASHBOARDS.rglob("*.js"), *DASHBOARDS.rglob("*.mjs")]):
        rel = path.relative_to(ROOT).as_posix()
        found |= {f"{rel}: {use}" for use in js_uses(path)}
    return found | private_overrides()


def test_dashboards_uses_no_framework_internal_beyond_the_known_ones():
    found = used()
    assert sorted(found - REMAINING) == [], "nuevo uso de un detalle interno del framework"
    assert sorted(REMAINING - found) == [], "ya no se usa: quítese de REMAINING"


def test_the_reads_see_what_they_look_for():
    """Each read finds a use of each kind in a sample, so an empty result means something."""
    sample = (
        "import panel as pn\n"
        "from panel.reactive import Reactive\n"
        "Reactive._update = f\n"
        "pn.config.x = 1\n"
        "param = 3\n"
        "setattr(Reactive, 'y', 2)\n"
        "widget._events = {}\n"
        "self._mine = 1\n"
    )
    tmp = ROOT / "tests" / ".seams_sample.py"
    try:
        tmp.write_text(sample, encoding="utf-8")
        assert python_uses(tmp) == {
            "Reactive._update",
            "Reactive",
            "widget._events",
        }
    finally:
        tmp.unlink()
    js = ROOT / "tests" / ".seams_sample.js"
    try:
        js.write_text(
            "// Element.prototype.x = 1\nElement.prototype.attachShadow = f\n"
            "view._resize_observer.disconnect(); this._own = 1; const s = 'a._b'\n",
            encoding="utf-8",
        )
        assert js_uses(js) == {"Element.prototype.attachShadow =", "view._resize_observer"}
    finally:
        js.unlink()
