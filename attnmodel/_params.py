"""Parameter types shared by the demo models.

They validate before param stores anything, so a bad value raises ``ValueError`` with a Spanish
message and the model keeps its last valid state.
"""

from __future__ import annotations

import numpy as np
import param

from .core import as_matrix


class Matrix(param.Array):
    """A finite float matrix of a fixed shape; lists of lists are accepted and converted."""

    __slots__ = ["label_es", "max_abs", "shape"]

    def __init__(self, default=None, *, shape=None, label_es=None, max_abs=None, **params):
        self.shape = tuple(shape) if shape is not None else None
        self.label_es = label_es
        self.max_abs = max_abs
        if default is not None:
            default = as_matrix(default, self.shape, label_es or "matriz")
        super().__init__(default=default, **params)

    def _checked(self, val):
        label = self.label_es or self.name or "matriz"
        array = as_matrix(val, self.shape, label)
        if self.max_abs is not None and np.abs(array).max(initial=0) > self.max_abs:
            bound = f"{self.max_abs:,.0f}".replace(",", " ")
            raise ValueError(f"{label}: cada casilla debe estar entre −{bound} y {bound}.")
        return array

    def _validate_value(self, val, allow_None):
        if val is None and allow_None:
            return
        self._checked(val)

    def __set__(self, obj, val):
        # Store a float copy so later edits of the caller's array cannot change the model.
        if val is not None:
            val = self._checked(val).copy()
        super().__set__(obj, val)


class Sentence(param.String):
    """A non-empty sentence of at most ``max_tokens`` whitespace-separated tokens."""

    __slots__ = ["max_tokens"]

    def __init__(self, default="", *, max_tokens=40, **params):
        self.max_tokens = max_tokens
        super().__init__(default=default, **params)

    def _validate_value(self, val, allow_None):
        super()._validate_value(val, allow_None)
        if val is None:
            return
        n = len(val.split())
        if n == 0:
            raise ValueError("La frase está vacía: escribe al menos una palabra.")
        if n > self.max_tokens:
            raise ValueError(f"La frase tiene {n} palabras; el máximo es {self.max_tokens}.")
