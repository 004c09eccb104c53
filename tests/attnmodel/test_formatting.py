"""Spanish number formatting: decimal comma, typographic minus, no '−0,00'."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnmodel.formatting import MAX_NUMBER_CHARS, MINUS, es_number, es_percent, parse_es_number

finite = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12)


def test_minus_is_the_typographic_u2212():
    assert MINUS == "\u2212"


@pytest.mark.parametrize(
    ("x", "kwargs", "expected"),
    [
        (3.14159, {}, "3,14"),
        (0.0, {}, "0,00"),
        (2, {}, "2,00"),
        (-0.5, {}, "\u22120,50"),
        (-1234.5678, {}, "\u22121234,57"),
        (3.14159, {"decimals": 4}, "3,1416"),
        (2.5, {"decimals": 0}, "2"),
        (0.5, {"signed": True}, "+0,50"),
        (-0.5, {"signed": True}, "\u22120,50"),
        (0.0, {"signed": True}, "0,00"),
    ],
)
def test_es_number_uses_a_decimal_comma_and_the_typographic_minus(x, kwargs, expected):
    assert es_number(x, **kwargs) == expected


@pytest.mark.parametrize("x", [-0.0, -0.001, -0.004999, 0.001])
@pytest.mark.parametrize("signed", [False, True])
def test_es_number_never_prints_minus_zero(x, signed):
    text = es_number(x, signed=signed)
    assert text == "0,00"


@pytest.mark.parametrize("x", [-0.4, -0.0])
def test_es_number_never_prints_minus_zero_without_decimals(x):
    assert es_number(x, decimals=0) == "0"


@given(finite, st.integers(0, 4), st.booleans())
def test_es_number_has_no_ascii_minus_no_point_and_no_negative_zero(x, decimals, signed):
    text = es_number(x, decimals=decimals, signed=signed)
    assert "-" not in text
    assert "." not in text
    zero = "0" if decimals == 0 else "0," + "0" * decimals
    assert text not in (MINUS + zero, "+" + zero)
    value = float(text.replace(MINUS, "-").replace(",", "."))
    assert value == pytest.approx(x, abs=0.5 * 10**-decimals + 1e-9 * abs(x))


@pytest.mark.parametrize(
    ("x", "signed", "expected"),
    [
        (math.inf, False, "∞"),
        (math.inf, True, "+∞"),
        (-math.inf, False, "\u2212∞"),
        (-math.inf, True, "\u2212∞"),
        (math.nan, False, "—"),
    ],
)
def test_es_number_handles_infinity_and_nan(x, signed, expected):
    assert es_number(x, signed=signed) == expected


@pytest.mark.parametrize(
    ("p", "decimals", "expected"),
    [
        (0.391, 0, "39 %"),
        (0.38054, 1, "38,1 %"),
        (1.0, 0, "100 %"),
        (0.0, 0, "0 %"),
        (-0.001, 0, "0 %"),
        (-0.25, 0, "\u221225 %"),
    ],
)
def test_es_percent_puts_a_space_before_the_percent_sign(p, decimals, expected):
    assert es_percent(p, decimals) == expected


def test_a_number_longer_than_a_cell_is_refused_before_it_is_read():
    """MAX_NUMBER_CHARS: a forged megabyte is refused by its length, and never said back."""
    assert parse_es_number("0" * (MAX_NUMBER_CHARS - 1) + "1") == 1.0
    for text in ("1" * (MAX_NUMBER_CHARS + 1), "9" * 1_000_000):
        with pytest.raises(ValueError, match=f"más de {MAX_NUMBER_CHARS} caracteres") as info:
            parse_es_number(text)
        assert len(str(info.value)) < 100
