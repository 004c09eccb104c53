"""Spanish number formatting, shared by the worked-examples document and the views."""

from __future__ import annotations

import math

MINUS = "−"  # U+2212, the typographic minus


def es_number(x: float, decimals: int = 2, signed: bool = False) -> str:
    """3.14159 -> '3,14'; -0.5 -> '−0,50'; inf -> '∞'. Never prints '-0,00'."""
    x = float(x)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "−∞" if x < 0 else "+∞" if signed else "∞"
    text = f"{x:.{decimals}f}"
    if float(text) == 0:
        text = text.lstrip("-")
    sign = "+" if signed and not text.startswith("-") and float(text) != 0 else ""
    return sign + text.replace("-", MINUS).replace(".", ",")


def es_percent(p: float, decimals: int = 0) -> str:
    """0.391 -> '39 %' (Spanish puts a space before the percent sign)."""
    return f"{es_number(100 * p, decimals)} %"


def parse_es_number(text) -> float:
    """Read a number typed by a Spanish speaker: '1,5', '−2', ' 3.25 ', '1e3'.

    Raises ValueError (Spanish message) for anything that is not a finite number.
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
    else:
        cleaned = str(text).strip().replace(MINUS, "-").replace("\u00a0", "").replace(" ", "")
        if cleaned.count(",") == 1 and "." not in cleaned:
            cleaned = cleaned.replace(",", ".")
        if not cleaned:
            raise ValueError("La casilla está vacía: escribe un número.")
        try:
            value = float(cleaned)
        except ValueError:
            raise ValueError(f"«{text}» no es un número.") from None
    if not math.isfinite(value):
        raise ValueError(f"«{text}» no es un número finito.")
    return value
