"""The twin of every demo on the live side: a view's ``render(model, lang)`` shared by every
session showing that state, put on screen by :func:`apply_render`; an exported control's call
of the browser twin (:func:`client_update`).
"""

from __future__ import annotations

import collections
import functools
import json
import threading

import numpy as np
import panel as pn
import param

from attnmodel.i18n import DEFAULT_LANG
from dashboards.components.markup import SharedSpec


class _NoKey(TypeError):
    """A parameter value with no exact hashable image: that render is not shared."""


def _frozen(value):
    """An exact, hashable image of a parameter's value: equal only for values that render the
    same (a float by its bits: 0.0 and -0.0 are written differently; an array by its shape,
    dtype and bytes; a bool is not the int 1)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    if isinstance(value, float | np.floating):
        return ("float", float(value).hex())
    if value is None or isinstance(value, str | bool | int | np.integer | np.bool_):
        return (type(value).__name__, value)
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_frozen(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _frozen(v)) for k, v in value.items())))
    raise _NoKey(type(value).__name__)


def model_state(model: param.Parameterized) -> tuple:
    """Every parameter of a demo's model (its whole state: outputs are properties), exactly."""
    return tuple(
        (name, _frozen(value)) for name, value in model.param.values().items() if name != "name"
    )


# How many states each demo keeps rendered: a class follows one state at a time, new sessions
# open on the default one (one per language). The largest render (the explorer's map of a
# 40-word sentence) is ~150 KB of Python objects: at most ~5 MB a demo, whatever the students do.
SHARED_RENDERS = 32
_SHARED_CACHES: list[collections.OrderedDict] = []


def clear_shared_renders() -> None:
    """Forget every shared render (bench/bench_updates.py: a state rendered the first time)."""
    for cache in _SHARED_CACHES:
        cache.clear()


def shared_render(render):
    """``render(model, lang)`` computed once per (state, language) in this process and shared
    by every session showing that state: the lecturer's followers (one change, every
    follower's view) and every new session's first section (the default state).

    What it returns is read, never changed, by ``apply_render`` and the views (Bokeh copies
    what it keeps: a source's ``data`` and a list property are wrapped in its own containers;
    a Markup keeps the spec and sends its JSON, made once: its dicts are :class:`SharedSpec`).
    A state with a value that has no exact key is rendered each time."""
    cache: collections.OrderedDict = collections.OrderedDict()
    _SHARED_CACHES.append(cache)
    lock = threading.Lock()

    @functools.wraps(render)
    def shared(model, lang: str = DEFAULT_LANG) -> dict[str, object]:
        try:
            key = (lang, model_state(model))
        except _NoKey:
            return render(model, lang)
        with lock:
            values = cache.get(key)
            if values is not None:
                cache.move_to_end(key)
                return values
        values = {
            k: SharedSpec(v) if type(v) is dict else v for k, v in render(model, lang).items()
        }
        with lock:
            cache[key] = values
            while len(cache) > SHARED_RENDERS:
                cache.popitem(last=False)
        return values

    shared.uncached = render
    shared.cache = cache
    return shared


def client_update(demo: str, targets: dict[str, tuple[object, str]], **extra) -> tuple[str, dict]:
    """The code and args of an exported control's ``jscallback``: ``C04.update(demo, …)`` with
    every target of the view's ``client_targets()`` and ``extra`` (its controls, constants)."""
    kinds = {name: kind for name, (_, kind) in targets.items()}
    args = {name: obj for name, (obj, _) in targets.items()} | extra
    # Bokeh's CustomJS passes each arg as a variable of its own: gather them in one object.
    names = ", ".join(args)
    return f'C04.update("{demo}", {{{names}, trigger: cb_obj}}, {json.dumps(kinds)});', args


def apply_render(targets: dict[str, tuple[object, str]], values: dict[str, object]) -> None:
    """Put the output of a view's ``render(model)`` on screen (the live side of the twin).

    ``targets`` is the view's ``client_targets()``: name -> (object, kind) with kind "markup"
    (a :class:`Markup`'s ``spec``), "board:<slot>" (a slot of a
    :class:`~dashboards.components.board.Board`) or "esm:<name>" (a parameter of a component
    of ours, set when it is another object). The browser twin (``C04.apply``) does the same
    with the same names, so the live app and the export show the same thing. (A view whose
    Board draws the model's numbers, ``Board(view=…)``, needs none of this.)
    """
    boards: dict[int, tuple[object, dict]] = {}
    with pn.io.hold():
        for name, value in values.items():
            obj, kind = targets[name]
            if kind.startswith("board:"):
                boards.setdefault(id(obj), (obj, {}))[1][kind[6:]] = value
            elif kind == "markup":
                if obj.spec != value:
                    obj.spec = value
            elif kind.startswith("esm:"):
                # A shared render's array is the same object for the same state.
                if getattr(obj, kind[4:]) is not value:
                    setattr(obj, kind[4:], value)
            else:
                raise ValueError(f"tipo de destino desconocido: {kind!r}")
        # A Board's slots in one change of its specs (one message to the browser).
        for board, parts in boards.values():
            board.update_specs(parts)
