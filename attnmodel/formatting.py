"""Numbers as a language writes them, shared by the worked-examples document and the views.

The decimal separator and the percent pattern come from the language's catalogue
(``[format]`` in ``locales/<lang>.toml``); the minus is always the typographic U+2212.
"""

from __future__ import annotations

import json
import math

from . import i18n
from .i18n import DEFAULT_LANG

MINUS = "−"  # U+2212, the typographic minus
# The longest text read as a number (a cell's box has it as its length): "−1,2345678901234567e-300"
# is 24; a forged megabyte is refused before it is cleaned, parsed or said back.
MAX_NUMBER_CHARS = 64


def number(x: float, decimals: int = 2, signed: bool = False, lang: str = DEFAULT_LANG) -> str:
    """3.14159 -> '3,14' (es) or '3.14' (en); -0.5 -> '−0,50'; inf -> '∞'. Never '−0,00'."""
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "−∞" if x < 0 else "+∞" if signed else "∞"
    digits = f"{x:.{decimals}f}"
    if float(digits) == 0:
        digits = digits.lstrip("-")
    sign = "+" if signed and not digits.startswith("-") and float(digits) != 0 else ""
    return sign + digits.replace("-", MINUS).replace(".", i18n.text("format.decimal", lang))


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
    """Read a typed number: '1,5', '−2', ' 3.25 ', '1e3' (a lone comma is a decimal comma).

    Raises :class:`~attnmodel.i18n.Refusal` (a ValueError, said in any language) for anything
    that is not a finite number.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        if len(str(text)) > MAX_NUMBER_CHARS:
            raise i18n.Refusal("input.number_too_long", max_chars=MAX_NUMBER_CHARS)
        cleaned = str(text).strip().replace(MINUS, "-").replace("\u00a0", "").replace(" ", "")
        if cleaned.count(",") == 1 and "." not in cleaned:
            cleaned = cleaned.replace(",", ".")
        if not cleaned:
            raise i18n.Refusal("input.empty")
        try:
            value = float(cleaned)
        except ValueError:
            raise i18n.Refusal("input.not_a_number", text=text) from None
    if not math.isfinite(value):
        raise i18n.Refusal("input.not_finite", text=text)
    return value
