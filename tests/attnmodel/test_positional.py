"""Claims of demo 4: the sinusoidal positional encoding and the worked d = 4 table."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnmodel import PositionalEncodingDemo
from attnmodel.core import sinusoidal_encoding
from attnmodel.formatting import es_number
from attnmodel.i18n import Refusal, text
from attnmodel.positional import WORKED_EMBEDDINGS, WORKED_TOKENS, worked_tokens

SIZES = [(50, 64), (20, 4), (2, 2), (100, 16), (512, 512)]


def test_defaults():
    demo = PositionalEncodingDemo()
    assert demo.n_positions == 50
    assert demo.d_model == 64
    assert demo.encoding.shape == (50, 64)


@pytest.mark.parametrize(("n", "d"), SIZES)
def test_encoding_matches_core_sinusoidal_encoding(n, d):
    demo = PositionalEncodingDemo(n_positions=n, d_model=d)
    np.testing.assert_array_equal(demo.encoding, sinusoidal_encoding(n, d))
    np.testing.assert_array_equal(demo.deltas, np.arange(n))


@given(st.sampled_from([(50, 64), (20, 4), (100, 16), (30, 2)]), st.data())
def test_similarity_depends_only_on_distance(size, data):
    n, d = size
    demo = PositionalEncodingDemo(n_positions=n, d_model=d)
    pos = data.draw(st.integers(0, n - 1), label="pos")
    from_pos = demo.similarity_from(pos)
    assert from_pos.shape == (n - pos,)
    np.testing.assert_allclose(from_pos, demo.similarity[: n - pos], rtol=0, atol=1e-9 * d)


@pytest.mark.parametrize(("n", "d"), SIZES)
def test_similarity_is_the_sum_of_cosines_of_delta_times_frequency(n, d):
    demo = PositionalEncodingDemo(n_positions=n, d_model=d)
    frequencies = 1 / 10000 ** (np.arange(0, d, 2) / d)
    expected = np.cos(np.outer(demo.deltas, frequencies)).sum(axis=1)
    np.testing.assert_allclose(demo.similarity, expected, rtol=0, atol=1e-9 * d)


@pytest.mark.parametrize(("n", "d"), SIZES)
def test_similarity_at_zero_is_half_of_d_model(n, d):
    demo = PositionalEncodingDemo(n_positions=n, d_model=d)
    assert demo.similarity[0] == pytest.approx(d / 2, rel=1e-12)
    assert demo.similarity_normalised[0] == pytest.approx(1.0, rel=1e-12)
    assert demo.similarity.shape == (n,)


def test_similarity_decays_from_its_peak_at_zero():
    demo = PositionalEncodingDemo(n_positions=50, d_model=64)
    assert np.all(demo.similarity_normalised[1:] < 1.0)
    # It falls over the first steps and stays lower far away (with small ripples: it is a sum
    # of cosines, not strictly monotone, e.g. Δ = 5 -> 6 at d_model = 64).
    assert np.all(np.diff(demo.similarity[:6]) < 0)
    assert demo.similarity[10:].max() < demo.similarity[1:4].min()


@pytest.mark.parametrize("bad", [-1, 50, 100])
def test_similarity_from_a_position_out_of_range_raises(bad):
    demo = PositionalEncodingDemo(n_positions=50, d_model=64)
    with pytest.raises(ValueError, match="entre 0 y 49"):
        demo.similarity_from(bad)


@pytest.mark.parametrize(("n", "d"), [(50, 64), (20, 8), (100, 16)])
def test_left_columns_change_at_every_step_more_than_right_columns(n, d):
    step = np.abs(np.diff(PositionalEncodingDemo(n_positions=n, d_model=d).encoding, axis=0))
    per_column = step.mean(axis=0)
    assert per_column[0] > per_column[-1]
    assert per_column[0] > 0.5  # column 0 turns one radian per position
    assert per_column[-1] < 0.05  # the last one barely moves


# --------------------------------------------------------------------------------------------
# The worked table: "el perro mordió", d = 4
# --------------------------------------------------------------------------------------------


def test_worked_table_has_nine_rows_x_pe_and_x_plus_pe():
    table = PositionalEncodingDemo().worked_table
    assert len(table) == 9
    names = [row["vector"] for row in table]
    assert names == [
        "x(el)",
        "PE(0)",
        "x(el) + PE(0)",
        "x(perro)",
        "PE(1)",
        "x(perro) + PE(1)",
        "x(mordió)",
        "PE(2)",
        "x(mordió) + PE(2)",
    ]
    for row in table:
        assert row["values"].shape == (4,)


def test_worked_table_sum_rows_equal_x_plus_pe_exactly():
    table = PositionalEncodingDemo().worked_table
    pe = sinusoidal_encoding(3, 4)
    for pos in range(3):
        x, pe_row, total = table[3 * pos : 3 * pos + 3]
        np.testing.assert_array_equal(x["values"], WORKED_EMBEDDINGS[pos])
        np.testing.assert_array_equal(pe_row["values"], pe[pos])
        np.testing.assert_array_equal(total["values"], x["values"] + pe_row["values"])


def test_worked_table_pe_of_position_zero_is_0_1_0_1():
    table = PositionalEncodingDemo().worked_table
    np.testing.assert_array_equal(table[1]["values"], [0.0, 1.0, 0.0, 1.0])


def test_worked_table_pe_of_position_one_follows_the_formula():
    pe1 = PositionalEncodingDemo().worked_table[4]["values"]
    np.testing.assert_allclose(
        pe1, [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)], rtol=1e-12
    )


def test_worked_table_comments_are_non_empty_spanish_strings():
    table = PositionalEncodingDemo().worked_table
    for row in table:
        assert isinstance(row["comment"], str)
        assert row["comment"].strip()
    for pos, token in enumerate(WORKED_TOKENS):
        x, _, total = table[3 * pos : 3 * pos + 3]
        assert f"«{token}»" in x["comment"]
        assert "Embedding" in x["comment"]
        assert f"«{token}» en la posición {pos}" in total["comment"]
    assert table[1]["comment"].startswith("Posición 0")
    # The comment of PE(pos) quotes the low-frequency angle pos / 100 with a Spanish comma.
    for pos in (1, 2):
        comment = table[3 * pos + 1]["comment"]
        assert "frecuencia" in comment
        assert f"solo {es_number(pos / 100)} rad" in comment
        assert "0," in comment
        assert "." not in comment.rstrip(".")


def test_worked_table_does_not_depend_on_the_demo_size():
    small = PositionalEncodingDemo(n_positions=2, d_model=2).worked_table
    default = PositionalEncodingDemo().worked_table
    for a, b in zip(small, default, strict=True):
        assert a["vector"] == b["vector"]
        np.testing.assert_array_equal(a["values"], b["values"])


def test_worked_table_values_are_copies():
    demo = PositionalEncodingDemo()
    demo.worked_table[0]["values"][:] = 99.0
    np.testing.assert_array_equal(demo.worked_table[0]["values"], WORKED_EMBEDDINGS[0])
    np.testing.assert_array_equal(WORKED_EMBEDDINGS[0], [0.20, -0.10, 0.40, 0.30])


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (63, "debe ser par"),
        (3, "debe ser par"),
        (0, "at least 2"),
        (514, "at most 512"),
        (4.0, "número entero"),
    ],
)
def test_bad_d_model_raises_and_keeps_the_value(bad, match):
    demo = PositionalEncodingDemo(d_model=16)
    with pytest.raises(ValueError, match=match):
        demo.d_model = bad
    assert demo.d_model == 16
    assert demo.encoding.shape == (50, 16)


def test_odd_d_model_in_the_constructor_raises():
    with pytest.raises(ValueError, match="debe ser par"):
        PositionalEncodingDemo(d_model=5)


@pytest.mark.parametrize(
    ("bad", "match"),
    [(1, "at least 2"), (0, "at least 2"), (513, "at most 512"), ("x", "número entero")],
)
def test_n_positions_out_of_bounds_raises_and_keeps_the_value(bad, match):
    demo = PositionalEncodingDemo(n_positions=30)
    with pytest.raises(ValueError, match=match):
        demo.n_positions = bad
    assert demo.n_positions == 30
    assert demo.encoding.shape == (30, 64)


# --------------------------------------------------------------------------------------------
# Other languages: the same example and refusals, said in English
# --------------------------------------------------------------------------------------------


def test_the_catalogue_names_the_spanish_tokens():
    assert worked_tokens() == worked_tokens("es") == WORKED_TOKENS
    assert worked_tokens("en") == ("the", "dog", "bit")


def test_english_worked_rows_have_the_same_numbers_and_english_comments():
    demo = PositionalEncodingDemo()
    spanish, english = demo.worked_table, demo.worked_rows("en")
    assert [r["vector"] for r in english] == [
        "x(the)",
        "PE(0)",
        "x(the) + PE(0)",
        "x(dog)",
        "PE(1)",
        "x(dog) + PE(1)",
        "x(bit)",
        "PE(2)",
        "x(bit) + PE(2)",
    ]
    for es_row, en_row in zip(spanish, english, strict=True):
        np.testing.assert_array_equal(es_row["values"], en_row["values"])
    for pos, token in enumerate(("the", "dog", "bit")):
        x, _, total = english[3 * pos : 3 * pos + 3]
        assert x["comment"] == f"Embedding of “{token}”: which word it is."
        assert total["comment"] == f"What enters attention: “{token}” at position {pos}."
    assert english[1]["comment"].startswith("Position 0")
    # The low-frequency angle pos / 100 with a decimal point.
    assert "only 0.01 rad" in english[4]["comment"]
    assert "only 0.02 rad" in english[7]["comment"]


def test_refusals_are_said_in_english():
    demo = PositionalEncodingDemo(d_model=16)
    with pytest.raises(Refusal) as odd:
        demo.d_model = 7
    assert odd.value.message("en") == "d_model must be even (sine/cosine pairs), not 7."
    assert str(odd.value) == text("positional.odd_d_model", value=7)
    with pytest.raises(Refusal) as far:
        demo.similarity_from(50)
    assert far.value.message("en") == "The position must be between 0 and 49."
