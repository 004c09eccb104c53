"""Parameter types shared by the demo models.

They validate before param stores anything, so a bad value raises a ``ValueError`` (an
:class:`~attnmodel.i18n.Refusal`: Spanish by default, said in any language with ``.message``)
and the model keeps its last valid state.
"""

from __future__ import annotations

import numpy as np
import param

from .core import as_matrix
from .i18n import Refusal


def real_number(value, label, integer: bool = False):
    """``value`` as a plain ``float`` (or ``int``), or a Refusal (ValueError) naming ``label``.

    param.Number and param.Integer take callables as "dynamic" values and duck-type numbers, so
    functions, complex numbers, numpy strings, dates and 1×1 arrays would get through; refuse
    anything that is not a real number (booleans included) before param sees it.
    """
    valid = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_, np.timedelta64)
    )
    if not valid or (integer and not isinstance(value, (int, np.integer))):
        key = "core.expected_integer" if integer else "core.expected_number"
        raise Refusal(key, name=label, value=repr(value))
    try:
        return int(value) if integer else float(value)
    except OverflowError:  # an int beyond the float range: out of every bound anyway
        raise Refusal("core.out_of_range", name=label, value=repr(value)) from None


class RealNumber(param.Number):
    """A param.Number that only takes real numbers (no callables, complex, arrays, dates)."""

    def __set__(self, obj, val):
        if val is not None or not self.allow_None:
            val = real_number(val, self.name or Refusal("core.number_label"))
        super().__set__(obj, val)


class StrictInteger(param.Integer):
    """A param.Integer that only takes integers (no callables, floats, booleans, timedeltas)."""

    def __set__(self, obj, val):
        if val is not None or not self.allow_None:
            val = real_number(val, self.name or Refusal("core.integer_label"), integer=True)
        super().__set__(obj, val)


class Matrix(param.Array):
    """A finite float matrix of a fixed shape; lists of lists are accepted and converted."""

    __slots__ = ["label_es", "max_abs", "shape"]

    def __init__(self, default=None, *, shape=None, label_es=None, max_abs=None, **params):
        self.shape = tuple(shape) if shape is not None else None
        self.label_es = label_es
        self.max_abs = max_abs
        if default is not None:
            default = as_matrix(default, self.shape, label_es)
        super().__init__(default=default, **params)

    def _checked(self, val):
        label = self.label_es or self.name or Refusal("core.matrix_label")
        array = as_matrix(val, self.shape, label)
        if self.max_abs is not None and np.abs(array).max(initial=0) > self.max_abs:
            raise Refusal("core.matrix_cell_bounds", name=label, bound=self.bound_text)
        return array

    @property
    def bound_text(self) -> str:
        """``max_abs`` grouped by thousands with spaces ("1 000 000"), as the message says it."""
        return f"{self.max_abs:,.0f}".replace(",", " ")

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
    """A non-empty sentence of at most ``max_tokens`` whitespace-separated tokens, ``max_chars``
    characters in all and ``max_word_chars`` per token: the work per sentence is bounded by the
    model, whatever the widget lets through (a forged message can carry megabytes)."""

    __slots__ = ["max_chars", "max_tokens", "max_word_chars"]

    def __init__(self, default="", *, max_tokens=40, max_chars=2000, max_word_chars=48, **params):
        self.max_tokens = max_tokens
        self.max_chars = max_chars
        self.max_word_chars = max_word_chars
        super().__init__(default=default, **params)

    def _validate_value(self, val, allow_None):
        super()._validate_value(val, allow_None)
        if val is None:
            return
        # The length first: it costs nothing, the split of a huge text does.
        if len(val) > self.max_chars:
            raise Refusal("core.sentence_too_many_chars", n=len(val), max_chars=self.max_chars)
        words = val.split()
        n = len(words)
        if n == 0:
            raise Refusal("core.sentence_empty")
        if n > self.max_tokens:
            raise Refusal("core.sentence_too_long", n=n, max_tokens=self.max_tokens)
        longest = max(len(w) for w in words)
        if longest > self.max_word_chars:
            raise Refusal("core.word_too_long", n=longest, max_chars=self.max_word_chars)
