"""A demo's ``numbers(model)`` computed once per state in a process and shared by every session
showing that state (:func:`shared_render`): the lecturer's followers and every new session's
first section. Its Board sends the numbers to the page, whose drawing (``C04.views.<demo>``)
turns them into what is seen.
"""

from __future__ import annotations

import collections
import functools
import threading

import numpy as np
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

    What it returns is read, never changed, by the views (Bokeh copies what it keeps: a
    Board's ``state`` is sent as its JSON; a Markup keeps the spec and sends its JSON, made
    once: its dicts are :class:`SharedSpec`).
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
