"""Claims about the pure-numpy mathematics of the lecture (attnmodel.core)."""

from __future__ import annotations

import math

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnmodel import _params, core
from attnmodel.i18n import Refusal

import c04_testing

HUGE = 1e300


def finite_floats(bound: float = 50.0):
    return st.floats(-bound, bound, allow_nan=False, allow_infinity=False)


def score_arrays(bound: float = 50.0, min_dims: int = 1, max_dims: int = 3):
    return hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=6),
        elements=finite_floats(bound),
    )


temperatures = st.floats(0.1, 3.0, allow_nan=False, allow_infinity=False)


@st.composite
def array_and_axis(draw, bound: float = 50.0):
    x = draw(score_arrays(bound))
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    return x, axis


# --------------------------------------------------------------------------------------------
# softmax
# --------------------------------------------------------------------------------------------


@given(array_and_axis(), temperatures)
def test_softmax_rows_sum_to_one_along_any_axis_and_temperature(data, temperature):
    x, axis = data
    p = core.softmax(x, axis=axis, temperature=temperature)
    assert p.shape == x.shape
    assert np.all(p >= 0)
    np.testing.assert_allclose(np.sum(p, axis=axis), 1.0, rtol=0, atol=1e-12)


@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=6),
        elements=finite_floats(),
    ),
    st.data(),
    temperatures,
)
def test_softmax_is_invariant_to_adding_a_constant_per_row(x, data, temperature):
    shifts = data.draw(
        hnp.arrays(np.float64, (x.shape[0], 1), elements=finite_floats(100.0)), label="shifts"
    )
    np.testing.assert_allclose(
        core.softmax(x + shifts, temperature=temperature),
        core.softmax(x, temperature=temperature),
        rtol=0,
        atol=1e-9,
    )


@given(array_and_axis(bound=HUGE), temperatures)
def test_softmax_never_returns_nan_or_inf_for_scores_up_to_1e300(data, temperature):
    x, axis = data
    p = core.softmax(x, axis=axis, temperature=temperature)
    assert np.all(np.isfinite(p))
    np.testing.assert_allclose(np.sum(p, axis=axis), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("temperature", [0.1, 1.0, 3.0])
def test_softmax_of_mixed_plus_and_minus_1e300_is_finite_and_one_hot(temperature):
    x = np.array([[HUGE, -HUGE, 0.0], [-HUGE, -HUGE, HUGE], [HUGE, HUGE, -HUGE]])
    p = core.softmax(x, temperature=temperature)
    assert np.all(np.isfinite(p))
    np.testing.assert_array_equal(p, [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.0]])


def test_softmax_gives_masked_minus_inf_entries_exactly_zero():
    x = np.array([[1.0, -np.inf, 2.0], [-np.inf, -np.inf, 5.0]])
    p = core.softmax(x)
    assert p[0, 1] == 0.0
    assert p[1, 0] == 0.0
    assert p[1, 1] == 0.0
    assert p[1, 2] == 1.0
    np.testing.assert_allclose(p[0, [0, 2]], [1 / (1 + math.e), math.e / (1 + math.e)])


def test_softmax_of_a_fully_masked_row_raises():
    x = np.array([[0.0, 1.0], [-np.inf, -np.inf]])
    with pytest.raises(ValueError, match="enmascarada por completo"):
        core.softmax(x)


def test_softmax_of_a_fully_masked_column_raises_along_axis_0():
    x = np.array([[0.0, -np.inf], [1.0, -np.inf]])
    core.softmax(x, axis=-1)  # every row has a finite entry: fine
    with pytest.raises(ValueError, match="enmascarada por completo"):
        core.softmax(x, axis=0)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_softmax_rejects_nan_and_plus_inf_scores(bad):
    with pytest.raises(ValueError, match="NaN ni \\+infinito"):
        core.softmax([1.0, bad, 0.0])


@pytest.mark.parametrize("temperature", [0, -1, 0.0, float("nan"), float("inf"), "1"])
def test_softmax_rejects_a_bad_temperature(temperature):
    with pytest.raises(ValueError, match="temperatura"):
        core.softmax([1.0, 2.0], temperature=temperature)


def test_softmax_temperature_sharpens_and_flattens():
    x = np.array([1.0, 2.0, 3.0])
    cold, warm = core.softmax(x, temperature=0.1), core.softmax(x, temperature=3.0)
    assert cold.max() > core.softmax(x).max() > warm.max()


# --------------------------------------------------------------------------------------------
# scaled dot-product attention
# --------------------------------------------------------------------------------------------


@st.composite
def qkv(draw, same_length: bool = False):
    n_q = draw(st.integers(1, 6))
    n_k = n_q if same_length else draw(st.integers(1, 6))
    d_k = draw(st.integers(1, 5))
    d_v = draw(st.integers(1, 5))
    elements = finite_floats(5.0)
    q = draw(hnp.arrays(np.float64, (n_q, d_k), elements=elements))
    k = draw(hnp.arrays(np.float64, (n_k, d_k), elements=elements))
    v = draw(hnp.arrays(np.float64, (n_k, d_v), elements=elements))
    return q, k, v


@given(qkv(), st.booleans())
def test_attention_returns_scores_weights_and_output_with_the_right_shapes(mats, scale):
    q, k, v = mats
    result = core.scaled_dot_product_attention(q, k, v, scale=scale)
    assert isinstance(result, core.AttentionResult)
    assert result.scores.shape == (q.shape[0], k.shape[0])
    assert result.weights.shape == (q.shape[0], k.shape[0])
    assert result.output.shape == (q.shape[0], v.shape[1])
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0, atol=1e-12)


@given(qkv())
def test_attention_output_is_weights_times_value(mats):
    q, k, v = mats
    result = core.scaled_dot_product_attention(q, k, v)
    np.testing.assert_array_equal(result.output, result.weights @ v)


@given(qkv())
def test_attention_scale_divides_scores_by_sqrt_dk_exactly(mats):
    q, k, v = mats
    scaled = core.scaled_dot_product_attention(q, k, v, scale=True)
    unscaled = core.scaled_dot_product_attention(q, k, v, scale=False)
    np.testing.assert_array_equal(unscaled.scores, q @ k.T)
    np.testing.assert_array_equal(scaled.scores, (q @ k.T) / math.sqrt(q.shape[1]))


@given(qkv(same_length=True), st.booleans())
def test_causal_mask_leaves_scores_minus_inf_and_weights_zero_right_of_the_diagonal(mats, scale):
    q, k, v = mats
    result = core.scaled_dot_product_attention(q, k, v, causal=True, scale=scale)
    future = np.triu(np.ones(result.scores.shape, dtype=bool), k=1)
    assert np.all(np.isneginf(result.scores[future]))
    assert np.all(np.isfinite(result.scores[~future]))
    assert np.all(result.weights[future] == 0.0)
    np.testing.assert_allclose(result.weights.sum(axis=1), 1.0, atol=1e-12)
    # The first query can only look at itself.
    assert result.weights[0, 0] == 1.0


@given(st.integers(1, 20), st.integers(0, 20))
def test_causal_mask_never_leaves_a_row_empty(n_query, extra_keys):
    mask = core.causal_mask(n_query, n_query + extra_keys)
    assert mask.shape == (n_query, n_query + extra_keys)
    assert mask.dtype == bool
    assert np.all(mask.sum(axis=1) >= 1)
    i, j = np.indices(mask.shape)
    np.testing.assert_array_equal(mask, j <= i)


def test_causal_mask_defaults_to_square():
    np.testing.assert_array_equal(
        core.causal_mask(3), [[True, False, False], [True, True, False], [True, True, True]]
    )


@given(qkv(same_length=True), st.data())
def test_attention_without_position_is_permutation_equivariant(mats, data):
    q, k, v = mats
    n = q.shape[0]
    perm = np.array(data.draw(st.permutations(range(n)), label="perm"))
    base = core.scaled_dot_product_attention(q, k, v)
    permuted = core.scaled_dot_product_attention(q[perm], k[perm], v[perm])
    np.testing.assert_allclose(permuted.weights, base.weights[perm][:, perm], atol=1e-12)
    np.testing.assert_allclose(permuted.output, base.output[perm], atol=1e-9)


@pytest.mark.parametrize(
    ("q", "k", "v", "causal", "match"),
    [
        (np.ones((3, 2)), np.ones((3, 3)), np.ones((3, 2)), False, "misma d_k"),
        (np.ones((3, 2)), np.ones((3, 2)), np.ones((4, 2)), False, "mismas filas"),
        (np.ones(2), np.ones((3, 2)), np.ones((3, 2)), False, "2 dimensiones"),
        (np.ones((3, 2)), np.ones((3, 2, 1)), np.ones((3, 2)), False, "2 dimensiones"),
        (np.ones((4, 2)), np.ones((3, 2)), np.ones((3, 2)), True, "al menos tantas llaves"),
    ],
)
def test_attention_rejects_mismatched_shapes(q, k, v, causal, match):
    with pytest.raises(ValueError, match=match):
        core.scaled_dot_product_attention(q, k, v, causal=causal)


def test_attention_of_huge_finite_entries_stays_finite():
    q = np.array([[1e200, 1e200]])
    k = np.array([[1e200, 1e200], [1.0, 1.0], [-1e200, -1e200]])
    v = np.array([[1.0], [2.0], [3.0]])
    result = core.scaled_dot_product_attention(q, k, v)
    assert np.all(np.isfinite(result.weights))
    np.testing.assert_array_equal(result.weights, [[1.0, 0.0, 0.0]])


# --------------------------------------------------------------------------------------------
# softmax Jacobian, entropy
# --------------------------------------------------------------------------------------------


@settings(deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 6), elements=finite_floats(5.0)))
def test_softmax_jacobian_matches_finite_differences(scores):
    p = core.softmax(scores)
    jacobian = core.softmax_jacobian(p)
    h = 1e-6
    numeric = np.empty((scores.size, scores.size))
    for j in range(scores.size):
        step = np.zeros_like(scores)
        step[j] = h
        numeric[:, j] = (core.softmax(scores + step) - core.softmax(scores - step)) / (2 * h)
    np.testing.assert_allclose(jacobian, numeric, rtol=0, atol=1e-8)


@given(score_arrays(bound=30.0, min_dims=1, max_dims=2), st.data())
def test_softmax_jacobian_norm_equals_frobenius_norm_of_the_jacobian(scores, data):
    axis = data.draw(st.integers(-scores.ndim, scores.ndim - 1), label="axis")
    p = core.softmax(scores, axis=axis)
    norms = core.softmax_jacobian_norm(p, axis=axis)
    rows = np.moveaxis(p, axis, -1).reshape(-1, p.shape[axis])
    expected = [np.linalg.norm(core.softmax_jacobian(row), "fro") for row in rows]
    np.testing.assert_allclose(np.ravel(norms), expected, rtol=0, atol=1e-7)


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_softmax_jacobian_norm_is_zero_for_a_one_hot_row(n):
    p = np.zeros(n)
    p[-1] = 1.0
    assert core.softmax_jacobian_norm(p) <= 1e-12
    assert core.softmax_jacobian_norm(core.softmax(np.array([0.0] * (n - 1) + [1e6]))) <= 1e-12


@pytest.mark.parametrize("n", [2, 3, 8])
def test_softmax_jacobian_norm_of_a_uniform_row_is_sqrt_n_minus_1_over_n(n):
    # ||diag(p) - pp^T||_F^2 = n (1/n - 1/n^2)^2 + (n^2 - n) / n^4 = (n - 1) / n^2
    expected = math.sqrt(n - 1) / n
    assert core.softmax_jacobian_norm(np.full(n, 1 / n)) == pytest.approx(expected, rel=1e-12)


def test_softmax_jacobian_norm_vanishes_as_a_row_sharpens_towards_one_hot():
    sharpness = [2.0, 4.0, 8.0, 16.0]
    norms = [core.softmax_jacobian_norm(core.softmax(t * np.arange(8.0))) for t in sharpness]
    assert np.all(np.diff(norms) < 0)
    assert norms[-1] < 1e-6


@pytest.mark.parametrize("n", [1, 2, 3, 8, 100])
def test_entropy_of_uniform_over_n_is_log2_n(n):
    assert core.entropy_bits(np.full(n, 1 / n)) == pytest.approx(math.log2(n), abs=1e-12)


@pytest.mark.parametrize("n", [1, 2, 8])
def test_entropy_of_one_hot_is_zero(n):
    p = np.zeros(n)
    p[0] = 1.0
    h = core.entropy_bits(p)
    assert h == 0.0
    assert math.copysign(1.0, h) == 1.0  # not -0.0


@given(score_arrays(bound=HUGE, min_dims=1, max_dims=2), temperatures)
def test_entropy_is_never_negative(scores, temperature):
    p = core.softmax(scores, temperature=temperature)
    h = core.entropy_bits(p)
    assert np.all(h >= 0)
    assert np.all(h <= math.log2(scores.shape[-1]) + 1e-12)


# --------------------------------------------------------------------------------------------
# sinusoidal positional encoding
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "d"), [(1, 1), (5, 4), (50, 64), (7, 3)])
def test_sinusoidal_encoding_shape(n, d):
    assert core.sinusoidal_encoding(n, d).shape == (n, d)


@pytest.mark.parametrize(
    ("pos", "col", "d", "expected"),
    [
        (0, 0, 4, 0.0),
        (0, 1, 4, 1.0),
        (3, 0, 4, math.sin(3.0)),
        (3, 1, 4, math.cos(3.0)),
        (1, 2, 4, math.sin(1 / 10000 ** (2 / 4))),
        (1, 3, 4, math.cos(1 / 10000 ** (2 / 4))),
        (7, 4, 6, math.sin(7 / 10000 ** (4 / 6))),
        (7, 5, 6, math.cos(7 / 10000 ** (4 / 6))),
        (9, 10, 64, math.sin(9 / 10000 ** (10 / 64))),
        (9, 63, 64, math.cos(9 / 10000 ** (62 / 64))),
    ],
)
def test_sinusoidal_encoding_follows_the_formula(pos, col, d, expected):
    pe = core.sinusoidal_encoding(pos + 1, d)
    assert pe[pos, col] == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_sinusoidal_encoding_base_changes_the_frequencies():
    pe = core.sinusoidal_encoding(3, 4, base=100.0)
    assert pe[2, 2] == pytest.approx(math.sin(2 / 100 ** (2 / 4)), rel=1e-12)


@given(st.integers(1, 200), st.integers(1, 128))
def test_sinusoidal_encoding_values_lie_in_minus_one_one(n, d):
    pe = core.sinusoidal_encoding(n, d)
    assert np.all(np.abs(pe) <= 1.0)


@given(st.integers(1, 64), st.integers(0, 300), st.integers(0, 300), st.integers(0, 60))
def test_sinusoidal_dot_product_depends_only_on_distance_for_even_d(half_d, pos_a, pos_b, delta):
    d = 2 * half_d
    pe = core.sinusoidal_encoding(max(pos_a, pos_b) + delta + 1, d)
    assert pe[pos_a] @ pe[pos_a + delta] == pytest.approx(
        pe[pos_b] @ pe[pos_b + delta], abs=1e-9 * d
    )


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((0, 4), "n_positions"),
        ((-1, 4), "n_positions"),
        ((1.5, 4), "n_positions"),
        (("3", 4), "n_positions"),
        ((4, 0), "d_model"),
        ((4, -2), "d_model"),
        ((4, 2.5), "d_model"),
        ((4, 4, 1.0), "base"),
        ((4, 4, 0.5), "base"),
        ((4, 4, float("nan")), "base"),
        ((4, 4, float("inf")), "base"),
    ],
)
def test_sinusoidal_encoding_rejects_bad_arguments(args, match):
    with pytest.raises(ValueError, match=match):
        core.sinusoidal_encoding(*args)


# --------------------------------------------------------------------------------------------
# multi-head attention
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "d_model", "n_heads"), [(3, 4, 1), (3, 4, 2), (5, 6, 3), (4, 8, 8)])
def test_multi_head_attention_shapes(n, d_model, n_heads):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d_model))
    w_q, w_k, w_v = (rng.standard_normal((d_model, d_model)) for _ in range(3))
    weights, output = core.multi_head_attention(x, w_q, w_k, w_v, n_heads)
    assert weights.shape == (n_heads, n, n)
    assert output.shape == (n, d_model)
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, atol=1e-12)


def test_multi_head_attention_concatenates_the_heads():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 6))
    w_q, w_k, w_v = (rng.standard_normal((6, 6)) for _ in range(3))
    weights, output = core.multi_head_attention(x, w_q, w_k, w_v, 2, causal=True)
    for h, cols in enumerate((slice(0, 3), slice(3, 6))):
        head = core.scaled_dot_product_attention(
            (x @ w_q)[:, cols], (x @ w_k)[:, cols], (x @ w_v)[:, cols], causal=True
        )
        np.testing.assert_array_equal(weights[h], head.weights)
        np.testing.assert_array_equal(output[:, cols], head.output)


@pytest.mark.parametrize(("d_model", "n_heads"), [(4, 3), (6, 4), (5, 2), (4, 0), (4, -1)])
def test_multi_head_attention_rejects_d_model_not_divisible_by_heads(d_model, n_heads):
    x = np.ones((3, d_model))
    w = np.eye(d_model)
    with pytest.raises(ValueError, match="cabezas iguales"):
        core.multi_head_attention(x, w, w, w, n_heads)


# --------------------------------------------------------------------------------------------
# letter trigrams, as_matrix
# --------------------------------------------------------------------------------------------


def test_letter_trigrams_of_gato():
    assert core.letter_trigrams("gato") == ["#ga", "gat", "ato", "to#"]


@pytest.mark.parametrize(
    ("token", "plain"), [("Está", "esta"), ("MORDIÓ", "mordio"), ("Niño", "nino"), ("Él", "el")]
)
def test_letter_trigrams_normalise_accents_and_case(token, plain):
    assert core.letter_trigrams(token) == core.letter_trigrams(plain)


def test_letter_trigrams_of_a_one_letter_token():
    assert core.letter_trigrams("a") == ["#a#"]


def test_as_matrix_accepts_lists_and_returns_floats():
    m = core.as_matrix([[1, 2], [3, 4]], shape=(2, 2))
    assert m.dtype == np.float64
    np.testing.assert_array_equal(m, [[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize(
    ("value", "shape", "match"),
    [
        ([[1.0, 2.0], [3.0, 4.0]], (3, 2), r"W_Q: se esperaba una matriz 3×2, no 2×2\."),
        ([1.0, 2.0], None, r"W_Q: se esperaba una matriz \(2 dimensiones\), no 1\."),
        (5.0, None, r"se esperaba una matriz \(2 dimensiones\), no 0\."),
        ([[1.0, np.nan]], None, "números finitos"),
        ([[1.0, np.inf]], None, "números finitos"),
        ([[1.0, -np.inf]], None, "números finitos"),
        ([[1.0, "abc"]], None, "todas las casillas deben ser números"),
        ([[1.0, None]], None, "números finitos"),
        ([[1.0, 2.0], [3.0]], None, "todas las casillas deben ser números"),
    ],
)
def test_as_matrix_errors_are_spanish_value_errors(value, shape, match):
    with pytest.raises(ValueError, match=match):
        core.as_matrix(value, shape=shape, name="W_Q")


def test_attention_refuses_nan_inputs_instead_of_hiding_them():
    with pytest.raises(ValueError, match="finitos"):
        core.scaled_dot_product_attention([[np.nan, 1.0]], [[1.0, 1.0], [0.0, 1.0]], [[1.0], [2.0]])


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), 0, -3, 2.5, True, "4"])
def test_sinusoidal_encoding_refuses_bad_sizes_with_spanish_message(bad):
    with pytest.raises(ValueError, match="entero positivo"):
        core.sinusoidal_encoding(bad, 4)
    with pytest.raises(ValueError, match="entero positivo"):
        core.sinusoidal_encoding(4, bad)


@pytest.mark.parametrize("temperature", [np.int64(2), np.float32(0.5), 1.5])
def test_softmax_accepts_numpy_temperatures(temperature):
    np.testing.assert_allclose(core.softmax([1.0, 2.0], temperature=temperature).sum(), 1.0)


def test_softmax_refuses_boolean_temperature():
    with pytest.raises(ValueError, match="temperatura"):
        core.softmax([1.0, 2.0], temperature=True)


@pytest.mark.parametrize(
    ("refused", "english"),
    [
        (
            lambda: core.as_matrix([[1.0, 2.0]], shape=(3, 2), name="W_Q"),
            "W_Q: expected a 3×2 matrix, not 1×2.",
        ),
        (
            lambda: core.as_matrix([[np.nan]]),
            "matrix: every cell must be a finite number (no NaN, no infinity).",
        ),
        (
            lambda: core.softmax([1.0], temperature=0),
            "The temperature must be a positive number, not 0.",
        ),
        (
            lambda: core.softmax([-np.inf, -np.inf]),
            "softmax: a fully masked row has nothing to attend to.",
        ),
        (
            lambda: core.multi_head_attention(np.ones((2, 4)), *[np.eye(4)] * 3, n_heads=3),
            "d_model = 4 cannot be split into 3 equal heads.",
        ),
        (
            lambda: core.trigram_vectors([""], 3),
            "Every token must be a non-empty string, not ''.",
        ),
        (
            lambda: _params.real_number("x", "temperature"),
            "temperature: expected a number, not 'x'.",
        ),
    ],
)
def test_refusals_are_said_in_english_too(refused, english):
    """Each refusal is a ValueError whose str() stays Spanish (the tests above) and that a view
    in English shows in English."""
    with pytest.raises(Refusal) as caught:
        refused()
    assert caught.value.message("en") == english
    assert str(caught.value) == caught.value.message("es") != english
    assert c04_testing.spanish_words_left(english) == set()


@pytest.mark.parametrize(
    ("text", "expected"),
    # FNV-1a 32-bit test vectors published with the algorithm (isthe.com/chongo/tech/comp/fnv)
    [("", 0x811C9DC5), ("a", 0xE40C292C), ("foobar", 0xBF9CF968)],
)
def test_fnv1a_matches_the_published_test_vectors(text, expected):
    assert core._fnv1a(text.encode()) == expected


def test_hash_words_are_fixed_uint32_words_that_differ_per_text():
    words = core.hash_words("374255:#ga", 16)
    assert words.dtype == np.uint32
    assert words.shape == (16,)
    np.testing.assert_array_equal(words, core.hash_words("374255:#ga", 16))
    assert core.hash_words("374255:#ga", 4).tolist() == words[:4].tolist()
    assert len(set(words.tolist()) | set(core.hash_words("374255:gat", 16).tolist())) == 32
