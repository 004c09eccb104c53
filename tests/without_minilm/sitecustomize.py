"""A Python without MiniLM's weights, for the tests (never imported by the project).

A folder on ``PYTHONPATH`` whose ``sitecustomize`` (imported by ``site`` at start-up) makes the
weights' package unfindable to the standard path-based import system: every ``sys.path`` entry's
finder is wrapped so that it answers "not here" for the package, exactly what it answers when the
package is not installed. ``importlib.util.find_spec`` then returns None, as after ``pip
uninstall``, and the product's own check (``attnmodel.minilm._package_dir``) raises ModelMissing;
the installed files stay where they are. Used as ``PYTHONPATH=tests/without_minilm``.
"""

import sys

HIDDEN = "all_minilm_l6_v2"  # attnmodel.minilm.MODEL_PACKAGE (not imported: nothing is, yet)
_HOOKS = list(sys.path_hooks)


class _Hiding:
    """A path entry's finder that does not find the hidden package (and finds all else)."""

    def __init__(self, finder):
        self._finder = finder

    def find_spec(self, fullname, target=None):
        if fullname.partition(".")[0] == HIDDEN:
            return None
        return self._finder.find_spec(fullname, target)

    def __getattr__(self, name):  # invalidate_caches, iter_modules (pkgutil) …
        return getattr(self._finder, name)


def _hook(entry):
    for hook in _HOOKS:
        try:
            return _Hiding(hook(entry))
        except ImportError:
            continue
    raise ImportError(entry)


sys.path_hooks.insert(0, _hook)
sys.path_importer_cache.clear()
