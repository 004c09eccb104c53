"""Numbers as a language writes them, shared by the worked-examples document and the views.

The decimal separator and the percent pattern come from the language's catalogue
(``[format]`` in ``locales/<lang>.toml``); the minus is always the typographic U+2212.

The browser writes and reads numbers by the same two rules, in plain JavaScript
(``C04.fmt`` in dashboards/static/c04.js), and the tests compute the page's expected texts here:

- **Written**: the exact binary value rounded to ``decimals`` places, halves away from zero
  (what JavaScript's ``toFixed`` does), every integer digit from 10^21 on (``toFixed`` switches
  to exponent notation there; c04.js writes the exact integer instead), no sign on a zero.
- **Read** (a matrix cell, an exercise's answer): :data:`NUMBER_PATTERN` after the characters of
  :data:`SPACES_PATTERN` are dropped, wherever they are: ASCII digits, an optional sign (``+``,
  ``-`` or ``−``), one ``,`` or ``.`` as the decimal separator, an optional exponent; at most
  :data:`MAX_NUMBER_CHARS` characters. Nothing else: no other script's digits, no ``_``, no
  ``inf`` or ``nan``. c04.js holds the two patterns as the same text (a test compares them).
"""

from __future__ import annotations

import decimal
import json
import math
import operator
import re

from . import i18n
from .i18n import DEFAULT_LANG

MINUS = "−"  # U+2212, the typographic minus
# The longest text read as a number (a cell's box has it as its length): "−1,2345678901234567e-300"
# is 24; a forged megabyte is refused before it is cleaned, parsed or said back.
MAX_NUMBER_CHARS = 64
# A typed number, once its spaces are dropped. The same text is c04.js's NUMBER (Python's re
# and JavaScript's RegExp read it alike: ASCII classes, \u escapes, no flags), matched whole.
NUMBER_PATTERN = r"[+\-\u2212]?(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)(?:[eE][+\-\u2212]?[0-9]+)?"
# Dropped wherever they are: space, tab, line breaks, no-break, thin and narrow no-break spaces
# (a group of thousands written "1 000", with any of them).
SPACES_PATTERN = r"[ \t\n\r\u00a0\u2009\u202f]"
_NUMBER = re.compile(NUMBER_PATTERN)
_SPACES = re.compile(SPACES_PATTERN)
# toFixed's limit: up to 100 decimals.
MAX_DECIMALS = 100


def _fixed(x: float, decimals: int) -> str:
    """|x| with ``decimals`` places: the exact binary value rounded half away from zero."""
    if not 0 <= operator.index(decimals) <= MAX_DECIMALS:
        raise ValueError(f"decimals must be in 0..{MAX_DECIMALS}: {decimals!r}")
    with decimal.localcontext() as context:
        context.prec = 1000  # more than any double's exact digits: no rounding but ours
        step = decimal.Decimal(1).scaleb(-decimals)
        rounded = abs(decimal.Decimal(x)).quantize(step, rounding=decimal.ROUND_HALF_UP)
    return f"{rounded:f}"


def number(x: float, decimals: int = 2, signed: bool = False, lang: str = DEFAULT_LANG) -> str:
    """3.14159 -> '3,14' (es) or '3.14' (en); -0.5 -> '−0,50'; inf -> '∞'. Never '−0,00'.
    Halves away from zero, on the exact binary value: 0.125 -> '0,13', 2.5 -> '3' (decimals=0)."""
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "−∞" if x < 0 else "+∞" if signed else "∞"
    digits = _fixed(x, decimals)
    zero = digits.strip("0.") == ""
    sign = "" if zero else MINUS if x < 0 else "+" if signed else ""
    return sign + digits.replace(".", i18n.text("format.decimal", lang))


# From this magnitude on, a number is written with LARGE_DIGITS significant digits times a power
# of ten ("8,1235×10²⁴"): every integer digit of a score near 10^25 would show the last bits of
# one machine's arithmetic, not the model.
LARGE = 1e6
LARGE_DIGITS = 5
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def large_number(x: float, decimals: int = 2, lang: str = DEFAULT_LANG) -> str:
    """:func:`number` below 10^6 in magnitude; from 10^6 on, 5 significant digits times a power
    of ten: 8.12345e24 -> '8,1235×10²⁴' (es) or '8.1235×10²⁴' (en); −1234567 -> '−1,2346×10⁶'.

    The digits are those of the exact binary value rounded half away from zero, as JavaScript's
    toExponential writes them (C04.fmt.large, dashboards/static/c04.js)."""
    x = float(x)
    if not math.isfinite(x) or abs(x) < LARGE:
        return number(x, decimals, lang=lang)
    with decimal.localcontext() as context:
        context.prec = 1000  # more than any double's exact digits: no rounding but ours
        exact = decimal.Decimal(abs(x))
        exponent = exact.adjusted()
        step = decimal.Decimal(1).scaleb(exponent - LARGE_DIGITS + 1)
        rounded = exact.quantize(step, rounding=decimal.ROUND_HALF_UP)
    digits = "".join(map(str, rounded.as_tuple().digits))
    exponent = rounded.adjusted()  # one more when the digits carried (9,99995 -> 10,000)
    separator = i18n.text("format.decimal", lang)
    mantissa = digits[0] + separator + digits[1:LARGE_DIGITS]
    sign = MINUS if x < 0 else ""
    return f"{sign}{mantissa}×10{str(exponent).translate(SUPERSCRIPTS)}"


def percent(p: float, decimals: int = 0, lang: str = DEFAULT_LANG) -> str:
    """0.391 -> '39 %' (es: a space before the sign) or '39%' (en)."""
    return i18n.text("format.percent", lang, value=number(100 * p, decimals, lang=lang))


def es_number(x: float, decimals: int = 2, signed: bool = False) -> str:
    """:func:`number` in Spanish: 3.14159 -> '3,14'; -0.5 -> '−0,50'."""
    return number(x, decimals, signed, "es")


def es_percent(p: float, decimals: int = 0) -> str:
    """:func:`percent` in Spanish: 0.391 -> '39 %'."""
    return percent(p, decimals, "es")


def tick_js(decimals: int | None = None, name: str = "tick", lang: str = DEFAULT_LANG) -> str:
    """The body of a Bokeh ``CustomJS*Formatter`` writing ``name`` as :func:`number` would:
    the language's decimal separator and U+2212. ``decimals=None``: as few decimals as the
    value needs, rounded to 6 (no float noise such as 0.30000000000000004)."""
    shown = (
        f"{name}.toFixed({int(decimals)})"
        if decimals is not None
        else f"String(Math.round({name} * 1e6) / 1e6)"
    )
    separator = json.dumps(i18n.text("format.decimal", lang))
    return f"return {shown}.replace('-', '\\u2212').replace('.', {separator});"


def parse_es_number(text) -> float:
    """Read a typed number: '1,5', '−2', ' 3.25 ', '1e3', '1 000' (the grammar in the module's
    docstring; c04.js's C04.fmt.parseNumber reads the same texts to the same values).

    Raises :class:`~attnmodel.i18n.Refusal` (a ValueError, said in any language) for anything
    that is not a finite number.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        text = str(text)
        if len(text) > MAX_NUMBER_CHARS:
            raise i18n.Refusal("input.number_too_long", max_chars=MAX_NUMBER_CHARS)
        cleaned = _SPACES.sub("", text)
        if not cleaned:
            raise i18n.Refusal("input.empty")
        if not _NUMBER.fullmatch(cleaned):
            raise i18n.Refusal("input.not_a_number", text=text)
        value = float(cleaned.replace(MINUS, "-").replace(",", "."))
    if not math.isfinite(value):
        raise i18n.Refusal("input.not_finite", text=text)
    return value
