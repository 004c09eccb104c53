"""Spanish number formatting: decimal comma, typographic minus, no '−0,00'; halves away from
zero on the exact binary value (the browser's toFixed); one grammar for a typed number."""

from __future__ import annotations

import math
from fractions import Fraction

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
        (2.5, {"decimals": 0}, "3"),  # a tie: away from zero, as toFixed
        (0.125, {}, "0,13"),
        (-0.125, {}, "\u22120,13"),
        (2.675, {}, "2,67"),  # 2.67499999999999982236431605997495353221893310546875
        (1e21, {"decimals": 1}, "1000000000000000000000,0"),  # toFixed's exponent starts here
        (2.0**70, {"decimals": 0}, "1180591620717411303424"),
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


def rule(x: float, decimals: int) -> str:
    """The rule apart from the module: |x|'s exact value (a Fraction) times 10^d, rounded half
    away from zero, with `decimals` places, the typographic minus unless the digits are zero."""
    n = math.floor(abs(Fraction(x)) * 10**decimals + Fraction(1, 2))
    digits = str(n).rjust(decimals + 1, "0")
    if decimals:
        digits = digits[:-decimals] + "," + digits[-decimals:]
    return (MINUS if x < 0 and n else "") + digits


@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(0, 8))
def test_es_number_is_the_exact_value_rounded_half_away_from_zero(x, decimals):
    assert es_number(x, decimals) == rule(x, decimals)


@pytest.mark.parametrize(
    "x", [k / 2**j for k in range(-41, 42, 2) for j in range(1, 8)] + [1e21, -1e22, 5e-324]
)
@pytest.mark.parametrize("decimals", [0, 1, 2, 3, 4, 6])
def test_es_number_on_exact_binary_ties(x, decimals):
    assert es_number(x, decimals) == rule(x, decimals)


def test_percent_rounds_its_ties_up():
    assert es_percent(0.125) == "13 %"  # 12.5
    assert es_percent(0.005) == "1 %"  # 100 * 0.005 is 0.5 exactly
    assert es_percent(-0.125) == "\u221213 %"


@pytest.mark.parametrize("decimals", [-1, 101, 0.5])
def test_decimals_are_those_tofixed_takes(decimals):
    with pytest.raises((ValueError, TypeError)):
        es_number(1.5, decimals)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,5", 1.5),
        ("1.5", 1.5),
        ("−2", -2.0),
        ("-2", -2.0),
        ("+2", 2.0),
        (" 3,25 ", 3.25),
        ("1e3", 1000.0),
        ("1E−3", 0.001),
        ("−1,5e+2", -150.0),
        (",5", 0.5),
        ("5,", 5.0),
        ("1 000", 1000.0),
        ("1\u00a0000", 1000.0),
        ("1\u2009000,5", 1000.5),
        ("1\u202f000", 1000.0),
        ("\t7\r\n", 7.0),
        ("1e-400", 0.0),
    ],
)
def test_a_typed_number_is_read_by_the_grammar(text, value):
    assert parse_es_number(text) == value


def test_a_typed_minus_zero_keeps_its_sign():
    assert math.copysign(1, parse_es_number("−0")) == -1
    assert math.copysign(1, parse_es_number("-0,0")) == -1


@pytest.mark.parametrize(
    "text",
    [
        "inf", "-Infinity", "nan", "1_000", "١٢٣", "１２３", "²", "0x10", "1,5,6", "1.5,2",
        "1.000,5", "--1", "+−1", "−", "1e", "e3", ",", "\u2003 7", "7\u3000", "\ufeff4", "4\x85",
        "1e1.5",
    ],
)  # fmt: skip
def test_anything_else_is_not_a_number(text):
    with pytest.raises(ValueError, match=r"no es un número\.$"):
        parse_es_number(text)


@pytest.mark.parametrize("text", ["", " ", "\u00a0\u2009\u202f", "\t\n"])
def test_only_spaces_is_an_empty_cell(text):
    with pytest.raises(ValueError, match="vacía"):
        parse_es_number(text)


def test_a_number_too_large_for_a_double_is_not_finite():
    with pytest.raises(ValueError, match="no es un número finito"):
        parse_es_number("1e400")
