"""Predict, then check: the exercises of the lecture, as data
(``dashboards/sharing/exercises.toml``).

Each exercise belongs to a demo (the registry's id) and says: the question; how the student
answers (``kind = "choice"`` among ``options``, or ``kind = "number"`` within ``tolerance``);
the ``state`` of the demo's model it is about (parameters on top of the model's defaults); the
``answer``, an expression the model computes at the moment of checking (never a number typed in
the file); and why, in one or two sentences. Texts in every language of the catalogues.

The expression is a small, safe subset of Python evaluated against the model: its public
attributes (``weights``, ``probabilities``, ``row`` …), indexing (``weights[0][2]``,
``probabilities["Roma"]``), numbers, + − × ÷, comparisons, ``a if cond else b``, and the
functions of :data:`FUNCTIONS`. Nothing else: no attribute access, no other names, no calls.

:func:`load` reads and checks the file (an entry with a mistake stops the start with a message
naming the entry, :class:`ExerciseError`); :func:`solve` moves a model to an exercise's state and
computes the answer; :func:`check` says whether a student's answer is right. No Panel here.
"""

from __future__ import annotations

import ast
import functools
import logging
import math
import operator
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import attnmodel
from attnmodel.formatting import number, parse_es_number, percent
from attnmodel.i18n import DEFAULT_LANG, catalogue, languages, text
from attnmodel.minilm import ModelMissing
from dashboards.demos import registry
from dashboards.sharing import links

log = logging.getLogger("dashboards.sharing.exercises")

EXERCISES_FILE = Path(__file__).resolve().parent / "exercises.toml"
# A lecturer's own file instead (make serve, make export and the served apps read it).
EXERCISES_ENV = "C04_EXERCISES"
KINDS = ("choice", "number")
FORMATS = ("plain", "percent")
ID = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
# A student's answer longer than this is not read (a number or an option's index).
MAX_ANSWER_CHARS = 64

FUNCTIONS = {
    "argmax": lambda x: int(np.argmax(np.asarray(x, dtype=float))),
    "argmin": lambda x: int(np.argmin(np.asarray(x, dtype=float))),
    "max": lambda x: float(np.max(np.asarray(x, dtype=float))),
    "min": lambda x: float(np.min(np.asarray(x, dtype=float))),
    "sum": lambda x: float(np.sum(np.asarray(x, dtype=float))),
    "abs": lambda x: abs(x),
    "len": len,
    "round": lambda x, n=0: round(float(x), int(n)),
}
_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_COMPARE = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


class ExerciseError(ValueError):
    """A mistake in the exercises' file, naming the entry (Spanish, as the models' messages)."""


@dataclass(frozen=True)
class Exercise:
    id: str
    demo: str
    kind: str
    answer: str  # the expression
    state: dict = field(default_factory=dict)
    tolerance: float = 0.0  # number: in the format's units (percentage points for percent)
    format: str = "plain"
    decimals: int = 2
    seed: str | None = None  # the seed's "Para seguir jugando" bullet it checks (exercise.<seed>)
    texts: dict = field(default_factory=dict)  # lang -> {question, explanation, options?}

    def text(self, key: str, lang: str = DEFAULT_LANG):
        return self.texts[lang][key]

    def options(self, lang: str = DEFAULT_LANG) -> list[str]:
        return list(self.texts[lang].get("options", []))

    def options_lang(self, lang: str = DEFAULT_LANG) -> str:
        """The language the options are written in (``options_lang``: the Spanish example's
        words kept on another language's page), else the page's."""
        return self.texts[lang].get("options_lang", lang)


# ---------------------------------------------------------------------------------------------
# The expression


def _check_expression(node: ast.AST, where: str) -> None:
    allowed = (
        ast.Expression,
        ast.Name,
        ast.Load,
        ast.Subscript,
        ast.Constant,
        ast.BinOp,
        ast.UnaryOp,
        ast.USub,
        ast.Compare,
        ast.IfExp,
        ast.BoolOp,
        ast.And,
        ast.Or,
        ast.Call,
        *_BINARY,
        *_COMPARE,
    )
    for child in ast.walk(node):
        if not isinstance(child, allowed):
            raise ExerciseError(f"{where}: «{type(child).__name__}» no se admite en una respuesta")
        if isinstance(child, ast.Name) and child.id.startswith("_"):
            raise ExerciseError(f"{where}: el nombre «{child.id}» no se admite")
        if isinstance(child, ast.Call) and not (
            isinstance(child.func, ast.Name) and child.func.id in FUNCTIONS and not child.keywords
        ):
            names = ", ".join(FUNCTIONS)
            raise ExerciseError(f"{where}: solo se pueden llamar {names}")
        if isinstance(child, ast.Constant) and not isinstance(child.value, int | float | str):
            raise ExerciseError(f"{where}: constante no admitida {child.value!r}")


@functools.cache
def _parse(expression: str) -> ast.Expression:
    return ast.parse(expression, mode="eval")


def evaluate(expression: str, model):
    """The value of an answer's expression for ``model`` (checked by :func:`load` first)."""

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in FUNCTIONS:
                return FUNCTIONS[node.id]
            return getattr(model, node.id)
        if isinstance(node, ast.Subscript):
            return ev(node.value)[ev(node.slice)]
        if isinstance(node, ast.UnaryOp):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp):
            return _BINARY[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.Compare):
            left = ev(node.left)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = ev(right_node)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            values = [bool(ev(v)) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.IfExp):
            return ev(node.body) if ev(node.test) else ev(node.orelse)
        if isinstance(node, ast.Call):
            return ev(node.func)(*(ev(a) for a in node.args))
        raise ExerciseError(f"no se admite {type(node).__name__}")

    value = ev(_parse(expression))
    if isinstance(value, np.generic):
        value = value.item()
    return value


# ---------------------------------------------------------------------------------------------
# Loading


def model_class(demo_id: str) -> type:
    return getattr(attnmodel, registry.demo(demo_id).model)


def _models():
    return {d.id: model_class(d.id) for d in registry.DEMOS}


def exercises_file() -> Path:
    """The file of the exercises: ``$C04_EXERCISES`` if set, else
    dashboards/sharing/exercises.toml."""
    return Path(os.environ.get(EXERCISES_ENV) or EXERCISES_FILE)


def load(path: Path | None = None, solve_answers: bool = True) -> tuple[Exercise, ...]:
    """Every exercise of ``path`` (default: :func:`exercises_file`), checked: a mistake raises
    ExerciseError naming the entry. With ``solve_answers`` each answer is also computed in its
    state (the state's parameters, the expression's names, a finite number or an option)."""
    path = Path(path) if path is not None else exercises_file()
    try:
        with Path(path).open("rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ExerciseError(f"{path}: no se pudo leer ({exc})") from None
    entries = data.get("exercise")
    if not isinstance(entries, list) or not entries:
        raise ExerciseError(f"{path}: no hay ninguna entrada [[exercise]]")
    models = _models()
    seen: set[str] = set()
    out = []
    for n, entry in enumerate(entries, start=1):
        name = entry.get("id") if isinstance(entry, dict) else None
        where = f"{path.name}, ejercicio n.º {n}" + (f" («{name}»)" if name else "")
        try:
            exercise = _entry(entry, where, models, solve_answers)
        except ModelMissing:
            # An optional model not installed (MiniLM's weights): only its exercises are left
            # out; its section says how to install it.
            log.warning("%s: se omite, falta el modelo (%s)", where, entry["demo"])
            continue
        if exercise.id in seen:
            raise ExerciseError(f"{where}: el id «{exercise.id}» ya lo usa otro ejercicio")
        seen.add(exercise.id)
        out.append(exercise)
    return tuple(out)


KNOWN_KEYS = {"id", "demo", "kind", "answer", "state", "tolerance", "format", "decimals", "seed"}


def _entry(entry, where: str, models: dict, solve_answers: bool = True) -> Exercise:
    if not isinstance(entry, dict):
        raise ExerciseError(f"{where}: una entrada es una tabla [[exercise]]")
    langs = languages()
    unknown = set(entry) - KNOWN_KEYS - set(langs)
    if unknown:
        raise ExerciseError(f"{where}: claves desconocidas {sorted(unknown)}")
    for key in ("id", "demo", "kind", "answer"):
        if not isinstance(entry.get(key), str) or not entry[key]:
            raise ExerciseError(f"{where}: falta «{key}» (un texto)")
    if not ID.match(entry["id"]):
        raise ExerciseError(f"{where}: el id debe ser minúsculas, cifras y _ (hasta 40)")
    if entry["demo"] not in models:
        raise ExerciseError(f"{where}: «{entry['demo']}» no es una demo ({', '.join(models)})")
    if entry["kind"] not in KINDS:
        raise ExerciseError(f"{where}: kind debe ser {' o '.join(KINDS)}")
    fmt = entry.get("format", "plain")
    if fmt not in FORMATS:
        raise ExerciseError(f"{where}: format debe ser {' o '.join(FORMATS)}")
    tolerance = entry.get("tolerance", 0.0)
    decimals = entry.get("decimals", 2)
    if not isinstance(tolerance, int | float) or not 0 <= tolerance < math.inf:
        raise ExerciseError(f"{where}: tolerance debe ser un número ≥ 0")
    if not isinstance(decimals, int) or not 0 <= decimals <= 6:
        raise ExerciseError(f"{where}: decimals debe ser un entero de 0 a 6")
    state = entry.get("state", {})
    if not isinstance(state, dict):
        raise ExerciseError(f"{where}: state es una tabla de parámetros del modelo")
    seed = entry.get("seed")
    if seed is not None and f"exercise.{seed}" not in _catalogue_keys():
        raise ExerciseError(f"{where}: seed «{seed}» no es un punto de «Para seguir jugando»")
    texts = {}
    for lang in langs:
        table = entry.get(lang)
        if not isinstance(table, dict):
            raise ExerciseError(f"{where}: faltan sus textos en [{lang}]")
        for key in ("question", "explanation"):
            if not isinstance(table.get(key), str) or not table[key].strip():
                raise ExerciseError(f"{where}: falta {lang}.{key}")
        texts[lang] = dict(table)
    exercise = Exercise(
        id=entry["id"],
        demo=entry["demo"],
        kind=entry["kind"],
        answer=entry["answer"],
        state=dict(state),
        tolerance=float(tolerance),
        format=fmt,
        decimals=decimals,
        seed=seed,
        texts=texts,
    )
    try:
        _check_expression(_parse(exercise.answer), where)
    except SyntaxError as exc:
        raise ExerciseError(f"{where}: la respuesta no se puede leer ({exc.msg})") from None
    sizes = {lang: len(exercise.options(lang)) for lang in langs}
    if exercise.kind == "choice" and (min(sizes.values()) < 2 or len(set(sizes.values())) != 1):
        raise ExerciseError(f"{where}: options, las mismas (2 o más) en cada idioma: {sizes}")
    if not solve_answers:
        if not registry.demo(exercise.demo).available():
            raise ModelMissing(exercise.demo)
        return exercise
    model = models[exercise.demo]()
    try:
        value = solve(exercise, model)
    except (ExerciseError, ModelMissing):
        raise
    except Exception as exc:  # a wrong parameter, attribute or index: said with the entry
        raise ExerciseError(f"{where}: {type(exc).__name__}: {exc}") from None
    if exercise.kind == "choice":
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or not 0 <= value < sizes[DEFAULT_LANG]
        ):
            raise ExerciseError(
                f"{where}: la respuesta debe dar el número de una opción, da {value!r}"
            )
    elif not isinstance(value, int | float) or isinstance(value, bool) or not math.isfinite(value):
        raise ExerciseError(f"{where}: la respuesta debe dar un número finito, da {value!r}")
    return exercise


@functools.cache
def _catalogue_keys() -> frozenset[str]:
    return frozenset(catalogue(DEFAULT_LANG))


@functools.cache
def exercises() -> tuple[Exercise, ...]:
    """The lecture's exercises (the file is read once per process).

    Their answers are not computed here: the launcher (``dashboards.serving.check_exercises``,
    every ``clase04 serve`` / ``make serve`` / serve-prod worker) computed each one in its state
    before the server started, and a check computes its own. Computing them again in each worker
    loaded MiniLM's weights and trained the tiny Transformer on the first page: 0.21 → 1.30 s
    to a worker's first page (bench_coldstart.py)."""
    return load(solve_answers=False)


def of_demo(demo_id: str) -> tuple[Exercise, ...]:
    return tuple(e for e in exercises() if e.demo == demo_id)


# ---------------------------------------------------------------------------------------------
# Solving and checking


def move(exercise: Exercise, model) -> None:
    """Put ``model`` in the exercise's state: its link's parameters at their defaults, then
    the state's."""
    fresh = type(model)()
    defaults = {f.param: getattr(fresh, f.param) for f in links.fields(exercise.demo)}
    model.param.update(**defaults)
    model.param.update(**exercise.state)


def solve(exercise: Exercise, model):
    """Move ``model`` to the exercise's state; the answer it computes there."""
    move(exercise, model)
    return evaluate(exercise.answer, model)


def shown(exercise: Exercise, value, lang: str = DEFAULT_LANG) -> str:
    """The answer as the page writes it: an option's label, or the number in the format."""
    if exercise.kind == "choice":
        label = exercise.options(lang)[int(value)]
        # A Spanish word kept on another language's page is quoted (and marked in the page).
        return f"«{label}»" if exercise.options_lang(lang) != lang else label
    if exercise.format == "percent":
        return percent(float(value), exercise.decimals, lang)
    return number(float(value), exercise.decimals, lang=lang)


def parse_answer(exercise: Exercise, answer: str):
    """A student's answer as a value to compare (an option's index, or a number in the model's
    units: "39 %" is 0.39), or None when it does not read as one."""
    if not isinstance(answer, str) or len(answer) > MAX_ANSWER_CHARS:
        return None
    if exercise.kind == "choice":
        return int(answer) if answer.isdigit() and int(answer) < len(exercise.options()) else None
    try:
        x = parse_es_number(answer.replace("%", "").strip())
    except ValueError:
        return None
    return x / 100 if exercise.format == "percent" else x


def is_right(exercise: Exercise, given, expected) -> bool:
    if exercise.kind == "choice":
        return given == expected
    scale = 100 if exercise.format == "percent" else 1
    # The tolerance is what the student reads on screen (a percentage point), and a hair more
    # for the binary fractions of a decimal answer.
    return abs(given - expected) * scale <= exercise.tolerance + 1e-9


@dataclass(frozen=True)
class Verdict:
    right: bool | None  # None: the answer did not read
    expected: str  # as shown
    message: str  # right, wrong or unreadable, with the answer, in the language


def check(exercise: Exercise, model, answer: str, lang: str = DEFAULT_LANG) -> Verdict:
    """Move the model to the exercise's state, compute the answer there, compare the student's."""
    given = parse_answer(exercise, answer)
    if given is None:
        return Verdict(None, "", text("exercises.unreadable", lang))
    expected = solve(exercise, model)
    right = is_right(exercise, given, expected)
    said = shown(exercise, expected, lang)
    key = "exercises.right" if right else "exercises.wrong"
    return Verdict(right, said, text(key, lang, answer=said))
