"""Fuzz of every model's parameters (issue #6).

For every ``param.Parameterized`` model of ``attnmodel`` and every one of its parameters, a
hypothesis-driven sequence of assignments mixes plausible values and garbage (None, strings,
NaN, ±inf, 1e309, huge ints, bools, lists and arrays of the wrong shape, numpy scalars,
callables…). Each assignment must either

- work, and then every public output of the model (each public property, plus the few public
  methods that compute something) is finite — apart from the −∞ the causal mask puts in a score
  matrix on purpose — and every attention row / probability vector sums to 1; or
- raise ``ValueError`` (param's own validation errors are ``ValueError`` as well), and then the
  model keeps its last valid state: every parameter and every output as before.

Any other exception (``TypeError``, ``OverflowError``, ``IndexError``…) is a bug. The bugs this
fuzz found (callables, complex and other non-real numbers taken by param.Number/Integer, ints
too large for a float, non-integer cell indices) are fixed and pinned, one deterministic case
each, by the tests at the end of the file.

Then the softmax: scores up to ±1e300 in ``core.softmax`` and ``core.scaled_dot_product_attention``
(whose Q K^T overflows to ±inf and is saturated), and the self-attention demo with every cell at
its ±1e6 bound: no NaN, no inf, every row sums to 1.

The pyproject turns warnings into errors, so a silent overflow or a discarded imaginary part
(``RuntimeWarning``, ``ComplexWarning``) fails here too.
"""

from __future__ import annotations

import decimal
import fractions
import math
import os
import sys

import hypothesis.extra.numpy as hnp
import numpy as np
import param
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnmodel import (
    AttentionExplorer,
    CapitalWalkthrough,
    MultiHeadDemo,
    PositionalEncodingDemo,
    ScalingDemo,
    SelfAttention,
)
from attnmodel._params import Matrix, Sentence
from attnmodel.core import scaled_dot_product_attention, softmax
from attnmodel.self_attention import MATRICES, MAX_ABS

MODELS = (
    SelfAttention,
    ScalingDemo,
    MultiHeadDemo,
    PositionalEncodingDemo,
    CapitalWalkthrough,
    AttentionExplorer,
)
FLOAT_MAX = sys.float_info.max
ROW_SUM_TOL = 1e-12

# C04_FUZZ_EXAMPLES=2000 for a deeper run; the default keeps the file under ~20 s.
FUZZ = settings(
    max_examples=int(os.environ.get("C04_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# ---------------------------------------------------------------------------------------------
# What kind of parameter each one is (drives the plausible values and the known bugs)


def kind(cls: type, name: str) -> str:
    p = cls.param[name]
    if isinstance(p, Matrix):
        return "matrix"
    if isinstance(p, Sentence):
        return "sentence"
    if isinstance(p, param.Boolean):
        return "boolean"
    if isinstance(p, param.Selector):  # Selector and MultiHeadDemo._Choice
        return "selector"
    if isinstance(p, param.Integer):  # Integer, EvenInteger, explorer._TokenIndex
        return "integer"
    if isinstance(p, param.Number):  # Number and MultiHeadDemo._Fraction
        return "fraction" if type(p).__name__ == "_Fraction" else "number"
    raise AssertionError(f"{cls.__name__}.{name}: tipo de parámetro sin fuzz ({type(p)})")


def parameters(cls: type) -> list[str]:
    return [name for name in cls.param if name != "name"]


def test_every_parameter_has_a_kind():
    """A new parameter type must get its plausible values here before the fuzz can cover it."""
    kinds = {(cls.__name__, name): kind(cls, name) for cls in MODELS for name in parameters(cls)}
    assert len(kinds) == 21
    assert set(kinds.values()) == {
        "matrix",
        "sentence",
        "boolean",
        "selector",
        "integer",
        "number",
        "fraction",
    }


# ---------------------------------------------------------------------------------------------
# Values: plausible ones (often accepted) and garbage


def _walk(value):
    """Every leaf of nested lists / tuples / object arrays."""
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from _walk(item)
    elif isinstance(value, np.ndarray) and value.dtype == object:
        for item in value.ravel():
            yield from _walk(item)
    else:
        yield value


def _numpy_scalars():
    return st.one_of(
        st.floats().map(np.float64),
        st.floats(width=32).map(np.float32),
        st.floats(width=16).map(np.float16),
        st.floats(-1e300, 1e300).map(np.longdouble),
        st.integers(-128, 127).map(np.int8),
        st.integers(-(2**63), 2**63 - 1).map(np.int64),
        st.integers(0, 2**64 - 1).map(np.uint64),
        st.booleans().map(np.bool_),
        st.complex_numbers(allow_nan=False, max_magnitude=1e6).map(np.complex128),
        st.sampled_from(
            [
                np.str_("1,5"),
                np.str_("Francia"),
                np.bytes_(b"2"),
                np.datetime64("2020-01-01"),
                np.timedelta64(3, "s"),
            ]
        ),
    )


def _arrays(max_dims: int = 3):
    return hnp.arrays(
        dtype=st.sampled_from([np.float64, np.int64, np.bool_, np.float32]),
        shape=hnp.array_shapes(min_dims=0, max_dims=max_dims, min_side=0, max_side=4),
    )


SPECIAL_STRINGS = ["", " ", "abc", "1,5", "−2", "NaN", "inf", "-inf", "1e309", "1e6", "2e6", "None"]
SPECIAL_FLOATS = [math.nan, math.inf, -math.inf, 1e309, -1e309, 5e-324, FLOAT_MAX, -0.0, 1e-300]
HUGE_INTS = [2**63, 2**64, -(2**63) - 1, 10**400, -(10**400), 2**1024]
CALLABLES = [lambda: 0.5, lambda: 50, print, int, np.sin, str.upper]


def garbage():
    """Anything at all: the parameter should take it or refuse it with ValueError."""
    leaf = st.one_of(st.floats(), st.integers(), st.text(max_size=5), st.none(), st.booleans())
    return st.one_of(
        st.none(),
        st.booleans(),
        st.text(max_size=12),
        st.sampled_from(SPECIAL_STRINGS),
        st.floats(),
        st.sampled_from(SPECIAL_FLOATS),
        st.integers(),
        st.sampled_from(HUGE_INTS),
        _numpy_scalars(),
        _arrays(),
        st.lists(leaf, max_size=4),
        st.lists(st.lists(leaf, max_size=3), max_size=4),  # ragged or of the wrong shape
        st.tuples(st.floats(), st.floats()),
        st.complex_numbers(max_magnitude=10),
        st.decimals(allow_nan=True, allow_infinity=True),
        st.fractions(max_denominator=100),
        st.sampled_from([fractions.Fraction(10**400, 3), decimal.Decimal("1e400"), b"1", {"a": 1}]),
        st.sampled_from([object(), {1, 2}, range(3), Ellipsis, NotImplemented]),
        st.sampled_from(CALLABLES),
    )


def _matrix_values(shape):
    cell = st.one_of(
        st.floats(-MAX_ABS, MAX_ABS),
        st.sampled_from(
            [MAX_ABS, -MAX_ABS, 0.0, 1e-300, -5e-324, 999_999.5, MAX_ABS * (1 + 1e-16)]
        ),
        st.sampled_from([MAX_ABS * 1.000001, 2e6, math.nan, math.inf]),  # refused
        st.integers(-(10**6), 10**6),
    )
    as_array = hnp.arrays(np.float64, shape, elements=cell)
    as_ints = hnp.arrays(np.int64, shape, elements=st.integers(-(10**6) - 1, 10**6 + 1))
    return st.one_of(as_array, as_array.map(lambda a: a.tolist()), as_ints)


def plausible(cls: type, name: str):
    """Values close to (and just outside) what the parameter accepts."""
    p = cls.param[name]
    k = kind(cls, name)
    if k == "matrix":
        return _matrix_values(p.shape)
    if k == "boolean":
        return st.booleans()
    if k == "selector":
        objects = list(p.objects)
        return st.one_of(st.sampled_from(objects), st.sampled_from(objects).map(str), st.text())
    if k == "sentence":
        word = st.one_of(
            st.text(min_size=1, max_size=8),
            st.sampled_from(
                ["gato", "🐱", "él", "猫", "¡¿...?!", "<b>", "{{7*7}}", "\u0301", "\ud800", "\x00"]
            ),
            st.text(st.characters(categories=["Cs", "Mn", "So", "Cc"]), min_size=1, max_size=3),
        )
        separator = st.sampled_from([" ", "  ", "\t", "\n", "\u3000", "\u00a0", "\x1c"])
        return st.one_of(
            st.lists(word, min_size=0, max_size=44).flatmap(
                lambda words: separator.map(lambda sep: sep.join(words))
            ),
            st.text(max_size=60),
        )
    if k == "integer":
        lo, hi = p.bounds
        lo = -3 if lo is None else lo - 3
        hi = 60 if hi is None else hi + 3
        ints = st.integers(lo, min(hi, lo + 4_000_000_000))
        return st.one_of(ints, ints.map(np.int64), st.sampled_from([lo + 3, hi - 3, True, False]))
    if k in ("number", "fraction"):
        lo, hi = p.bounds or (0.0, 1.0)  # _Fraction checks [0, 1] itself
        floats = st.floats(lo - 1, hi + 1)
        low, high = decimal.Decimal(str(lo - 1)), decimal.Decimal(str(hi + 1))
        return st.one_of(
            floats,
            floats.map(np.float64),
            st.sampled_from([lo, hi, 0, 1, np.array(1.0), np.float32(0.5)]),
            st.decimals(low, high, places=3),
            st.fractions(fractions.Fraction(low), fractions.Fraction(high), max_denominator=50),
        )
    raise AssertionError(k)


def assignments(cls: type):
    """(parameter, value) pairs for one model, values plausible or garbage."""

    def one(name):
        # Two plausible values for one of garbage (st.one_of would flatten garbage's branches
        # next to the single plausible one and drown it).
        values = st.integers(0, 2).flatmap(lambda i: garbage() if i == 0 else plausible(cls, name))
        return values.map(lambda v: (name, v))

    return st.sampled_from(parameters(cls)).flatmap(one)


# ---------------------------------------------------------------------------------------------
# Reading every output of a model


def public_properties(cls: type) -> list[str]:
    names = set()
    for klass in cls.__mro__:
        if klass.__module__.startswith("attnmodel"):
            names |= {n for n, v in vars(klass).items() if isinstance(v, property)}
    return sorted(n for n in names if not n.startswith("_"))


EXPECTED_OUTPUTS = {
    SelfAttention: {"d_k", "Q", "K", "V", "scores", "weights", "Z", "gradient"},
    ScalingDemo: {
        "n_keys",
        "score_std",
        "scaled_score_std",
        "entropy_unscaled",
        "entropy_scaled",
        "gradient_unscaled",
        "gradient_scaled",
        "scores_unscaled",
        "weights_unscaled",
        "weights_scaled",
        "n_trials",
        "sample_entropy_unscaled",
        "sample_entropy_scaled",
    },
    MultiHeadDemo: {
        "tokens",
        "d_model",
        "d_k",
        "head_names",
        "head_descriptions",
        "feature_names",
        "embeddings",
        "w_query",
        "w_key",
        "w_value",
        "scores",
        "weights",
        "combined",
        "output",
    },
    PositionalEncodingDemo: {
        "encoding",
        "deltas",
        "similarity",
        "similarity_normalised",
        "worked_table",
    },
    CapitalWalkthrough: {
        "vocabulary",
        "tokens",
        "embeddings",
        "positional",
        "with_position",
        "Q",
        "K",
        "V",
        "scores",
        "attention_row",
        "mixed",
        "logits",
        "probability_vector",
        "probabilities",
        "prediction",
        "probability",
        "loss",
        "identity_slopes",
    },
    AttentionExplorer: {
        "tokens",
        "vectors",
        "scores",
        "weights",
        "row",
        "row_percentages",
        "outputs",
    },
}

# Outputs that are probability distributions along their last axis.
DISTRIBUTIONS = {
    (SelfAttention, "weights"),
    (ScalingDemo, "weights_unscaled"),
    (ScalingDemo, "weights_scaled"),
    (MultiHeadDemo, "weights"),
    (MultiHeadDemo, "combined"),
    (CapitalWalkthrough, "attention_row"),
    (CapitalWalkthrough, "probability_vector"),
    (AttentionExplorer, "weights"),
    (AttentionExplorer, "row"),
}


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_outputs_list_is_complete(cls):
    """The fuzz reads every public property; a new one must be added to EXPECTED_OUTPUTS."""
    assert set(public_properties(cls)) == EXPECTED_OUTPUTS[cls]


def _extra_outputs(m) -> dict[str, object]:
    """Public methods that compute from the parameters."""
    if isinstance(m, MultiHeadDemo):
        return {f"arcs({h})": m.arcs(h) for h in range(m.n_heads)} | {
            f"arcs({h}, 0)": m.arcs(h, 0.0) for h in range(m.n_heads)
        }
    if isinstance(m, PositionalEncodingDemo):
        last = m.n_positions - 1
        return {
            "similarity_from(0)": m.similarity_from(0),
            "similarity_from(-1)": m.similarity_from(last),
        }
    if isinstance(m, AttentionExplorer):
        return {f"state().{k}": v for k, v in m.state()._asdict().items()}
    return {}


def outputs(m) -> dict[str, object]:
    out = {name: getattr(m, name) for name in public_properties(type(m))}
    out.update(_extra_outputs(m))
    return out


def _leaves(value, path: str):
    """(path, number) for every number inside value; arrays are yielded whole."""
    if isinstance(value, np.ndarray):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}[{k!r}]")
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    elif isinstance(value, (bool, np.bool_, str)):
        return
    elif isinstance(value, (int, float, np.number)):
        yield path, np.asarray(value)
    else:
        raise AssertionError(f"{path}: salida de tipo inesperado {type(value)}")


def _masked(m, name: str) -> np.ndarray | None:
    """Where the causal mask must put −∞ in a score matrix (None: nowhere)."""
    base = name.removeprefix("state().")
    if base != "scores" or not getattr(m, "causal", False):
        return None
    if not isinstance(m, (SelfAttention, AttentionExplorer)):
        return None
    n = m.scores.shape[0]
    return ~np.tril(np.ones((n, n), dtype=bool))


def check_outputs(m) -> dict[str, object]:
    """Every numeric output finite (−∞ only where masked), distributions summing to 1."""
    out = outputs(m)
    for name, value in out.items():
        mask = _masked(m, name)
        for path, array in _leaves(value, name):
            a = np.asarray(array)
            assert np.issubdtype(a.dtype, np.number) or a.dtype == bool, f"{path}: {a.dtype}"
            assert not np.iscomplexobj(a), f"{path} es complejo: {a!r}"
            if mask is not None and path == name:
                assert np.all(np.isneginf(a[mask])), f"{path}: la máscara no da −∞"
                a = a[~mask]
            assert np.all(np.isfinite(a)), f"{path} no es finito: {a!r}"
        if (type(m), name) in DISTRIBUTIONS:
            w = np.asarray(value)
            assert np.all((w >= 0) & (w <= 1)), f"{name} fuera de [0, 1]"
            np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=ROW_SUM_TOL)
    return out


# ---------------------------------------------------------------------------------------------
# Comparing states


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (
            isinstance(a, np.ndarray)
            and isinstance(b, np.ndarray)
            and a.shape == b.shape
            and np.array_equal(a, b, equal_nan=True)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and (a is b or a == b)


def snapshot(m) -> dict[str, object]:
    values = {name: getattr(m, name) for name in parameters(type(m))}
    return {
        "params": {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in values.items()},
        "outputs": outputs(m),
    }


def assert_same_state(before: dict, after: dict, what: str) -> None:
    for part in ("params", "outputs"):
        for key, value in before[part].items():
            assert _same(value, after[part][key]), f"{what}: {part} {key} cambió tras el rechazo"


def try_set(m, name: str, value) -> bool:
    """Set one parameter; True if accepted. Anything but ValueError is a failure."""
    try:
        setattr(m, name, value)
    except ValueError:
        return False
    except Exception as exc:  # pragma: no cover - reported by the assertion below
        pytest.fail(
            f"{type(m).__name__}.{name} = {value!r} lanzó {type(exc).__name__}: {exc} "
            "(se esperaba ValueError)"
        )
    return True


# ---------------------------------------------------------------------------------------------
# The fuzz


def _run_sequence(cls, steps) -> None:
    m = cls()
    state = snapshot(m)
    check_outputs(m)
    for name, value in steps:
        what = f"{cls.__name__}.{name} = {value!r}"
        if try_set(m, name, value):
            check_outputs(m)
            state = snapshot(m)
        else:
            assert_same_state(state, snapshot(m), what)


def _fuzz_test(cls):
    @FUZZ
    @given(steps=st.lists(assignments(cls), min_size=1, max_size=6))
    def test(steps):
        _run_sequence(cls, steps)

    test.__name__ = f"test_fuzz_{cls.__name__}"
    test.__doc__ = f"Random sequences of assignments to {cls.__name__}'s parameters."
    return test


test_fuzz_SelfAttention = _fuzz_test(SelfAttention)
test_fuzz_ScalingDemo = _fuzz_test(ScalingDemo)
test_fuzz_MultiHeadDemo = _fuzz_test(MultiHeadDemo)
test_fuzz_PositionalEncodingDemo = _fuzz_test(PositionalEncodingDemo)
test_fuzz_CapitalWalkthrough = _fuzz_test(CapitalWalkthrough)
test_fuzz_AttentionExplorer = _fuzz_test(AttentionExplorer)


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_fixed_garbage_on_every_parameter(cls):
    """The named garbage of the issue on every parameter, each from a fresh model."""
    fixed = [
        None,
        "",
        "abc",
        "1,5",
        "−2",
        "NaN",
        "1e309",
        math.nan,
        math.inf,
        -math.inf,
        1e309,
        2**64,
        -(2**63) - 1,
        True,
        False,
        [1, 2],
        [[1, 2, 3]],
        np.zeros((4, 4)),
        np.zeros(0),
        np.float64(0.5),
        np.int64(2),
        np.bool_(True),
        np.float32("nan"),
        np.uint8(255),
        object(),
    ]
    for name in parameters(cls):
        for value in fixed:
            _run_sequence(cls, [(name, value)])


@FUZZ
@given(
    matrix=st.sampled_from([*MATRICES, "Y", "", None]),
    row=st.integers(-2, 4),
    col=st.integers(-2, 3),
    value=st.one_of(garbage(), st.floats(-2e6, 2e6)),
)
def test_fuzz_set_cell(matrix, row, col, value):
    """SelfAttention.set_cell: a typed cell either lands or raises ValueError changing nothing."""
    m = SelfAttention()
    state = snapshot(m)
    try:
        m.set_cell(matrix, row, col, value)
    except ValueError:
        assert_same_state(state, snapshot(m), f"set_cell({matrix!r}, {row}, {col}, {value!r})")
        return
    except Exception as exc:
        pytest.fail(f"set_cell({matrix!r}, {row}, {col}, {value!r}): {type(exc).__name__}: {exc}")
    assert getattr(m, matrix)[row, col] == float(value)
    check_outputs(m)


# ---------------------------------------------------------------------------------------------
# Softmax with huge scores


def _score_rows(draw, max_abs: float):
    rows = draw(st.integers(1, 6))
    cols = draw(st.integers(1, 8))
    big = st.one_of(
        st.floats(-max_abs, max_abs),
        st.sampled_from([max_abs, -max_abs, 0.0, max_abs / 3, -max_abs * 0.999]),
    )
    scores = draw(hnp.arrays(np.float64, (rows, cols), elements=big))
    mask = draw(hnp.arrays(np.bool_, (rows, cols)))
    mask[
        np.arange(rows), draw(st.lists(st.integers(0, cols - 1), min_size=rows, max_size=rows))
    ] = False  # at least one visible key per row
    return scores, mask


@st.composite
def score_matrices(draw):
    return _score_rows(draw, 1e300)


@FUZZ
@given(data=score_matrices(), temperature=st.floats(1e-300, 1e300))
def test_softmax_of_scores_up_to_1e300(data, temperature):
    scores, mask = data
    masked = np.where(mask, -np.inf, scores)
    for x in (scores, masked):
        w = softmax(x, temperature=temperature)
        assert np.all(np.isfinite(w)), (x, temperature, w)
        assert np.all((w >= 0) & (w <= 1))
        np.testing.assert_allclose(w.sum(axis=-1), 1.0, rtol=0, atol=ROW_SUM_TOL)
    assert np.all(softmax(masked, temperature=temperature)[mask] == 0)
    # The largest score of each row gets the largest weight.
    w = softmax(scores, temperature=temperature)
    rows = np.arange(scores.shape[0])
    assert np.all(w[rows, scores.argmax(axis=1)] == w.max(axis=1))


@FUZZ
@given(
    q=hnp.arrays(np.float64, (3, 2), elements=st.floats(-1e300, 1e300)),
    k=hnp.arrays(np.float64, (4, 2), elements=st.floats(-1e300, 1e300)),
    v=hnp.arrays(np.float64, (4, 3), elements=st.floats(-1e300, 1e300)),
    causal=st.booleans(),
    scale=st.booleans(),
    temperature=st.floats(0.1, 3.0),
)
def test_attention_with_scores_that_overflow(q, k, v, causal, scale, temperature):
    """Q K^T of ±1e300 entries overflows to ±inf (or inf − inf): saturated, never NaN."""
    result = scaled_dot_product_attention(
        q, k, v, causal=causal, scale=scale, temperature=temperature
    )
    visible = np.tril(np.ones((3, 4), dtype=bool)) if causal else np.ones((3, 4), dtype=bool)
    assert np.all(np.isfinite(result.scores[visible]))
    assert np.all(np.isneginf(result.scores[~visible]))
    assert np.all(np.isfinite(result.weights))
    np.testing.assert_allclose(result.weights.sum(axis=-1), 1.0, rtol=0, atol=ROW_SUM_TOL)
    assert np.all(result.weights[~visible] == 0)
    assert np.all(np.isfinite(result.output))


def test_attention_saturates_infinite_products():
    q = np.array([[1e300, 1e300]])
    k = np.array([[1e300, 1e300], [-1e300, -1e300], [1e300, -1e300]])
    result = scaled_dot_product_attention(q, k, np.eye(3), scale=False)
    assert result.scores[0, 0] == FLOAT_MAX
    assert result.scores[0, 1] == -FLOAT_MAX
    assert np.isfinite(result.scores[0, 2])  # inf - inf (or ±inf, by BLAS order): saturated
    np.testing.assert_array_equal(result.weights, [[1.0, 0.0, 0.0]])


BOUND_CELLS = st.sampled_from([MAX_ABS, -MAX_ABS, 0.0, 1.0, -1.0, MAX_ABS / 2, 1e-300])


@FUZZ
@given(
    x=hnp.arrays(np.float64, (3, 2), elements=BOUND_CELLS),
    wq=hnp.arrays(np.float64, (2, 2), elements=BOUND_CELLS),
    wk=hnp.arrays(np.float64, (2, 2), elements=BOUND_CELLS),
    wv=hnp.arrays(np.float64, (2, 2), elements=BOUND_CELLS),
    causal=st.booleans(),
    scaled=st.booleans(),
)
def test_self_attention_at_the_cell_bound(x, wq, wk, wv, causal, scaled):
    """Cells at ±1e6: scores up to ~8e24, a softmax that saturates, nothing NaN or infinite."""
    m = SelfAttention(X=x, W_Q=wq, W_K=wk, W_V=wv, causal=causal, scaled=scaled)
    check_outputs(m)
    assert np.abs(m.scores[np.isfinite(m.scores)]).max(initial=0) <= 8e24 + 1e10


def test_self_attention_largest_scores():
    m = SelfAttention(
        X=np.full((3, 2), MAX_ABS), W_Q=np.full((2, 2), MAX_ABS), W_K=np.full((2, 2), -MAX_ABS)
    )
    m.scaled = False
    assert m.scores.min() == -8e24
    check_outputs(m)
    np.testing.assert_allclose(m.weights, np.full((3, 3), 1 / 3), rtol=0, atol=1e-15)


# ---------------------------------------------------------------------------------------------
# Known bugs, one deterministic case each (strict: they must fail until fixed)


def _refused_and_unchanged(m, name: str, value) -> None:
    before = snapshot(m)
    with pytest.raises(ValueError):  # noqa: PT011 - any ValueError is the contract
        setattr(m, name, value)
    assert_same_state(before, snapshot(m), f"{type(m).__name__}.{name} = {value!r}")


DYNAMIC = (
    "param.Number/param.Integer are param 'Dynamic' parameters: a callable is stored as a value "
    "generator without type or bounds checks (param/parameters.py Number._validate_value and "
    "_validate_bounds return early for callables); the models subclass them without turning "
    "that off"
)


@pytest.mark.parametrize(
    ("cls", "name", "value", "actual"),
    [
        pytest.param(
            CapitalWalkthrough,
            "identity",
            lambda: 50.0,
            "accepted; every later read of .identity (and .loss, .probabilities…) raises "
            "ValueError 'must be at most 1.0, not 50.0'",
            id="capital.identity=lambda:50",
        ),
        pytest.param(
            AttentionExplorer,
            "temperature",
            int,
            "raises TypeError 'cannot set _Dynamic_last attribute of immutable type int' AFTER "
            "storing int: .weights then raises TypeError",
            id="explorer.temperature=int",
        ),
        pytest.param(
            AttentionExplorer,
            "focus",
            lambda: 100,
            "accepted (_TokenIndex only checks numbers.Integral); .row raises IndexError",
            id="explorer.focus=lambda:100",
        ),
        pytest.param(
            ScalingDemo,
            "d_k",
            lambda: -5,
            "accepted; .d_k and every output raise ValueError 'must be at least 1, not -5'",
            id="scaling.d_k=lambda:-5",
        ),
        pytest.param(
            ScalingDemo,
            "seed",
            print,
            "raises AttributeError (no _Dynamic_last on a builtin) after storing print",
            id="scaling.seed=print",
        ),
        pytest.param(
            PositionalEncodingDemo,
            "n_positions",
            lambda: 10**6,
            "accepted; every read raises ValueError 'must be at most 512'",
            id="positional.n_positions=lambda:1e6",
        ),
        pytest.param(
            PositionalEncodingDemo,
            "d_model",
            lambda: 3,
            "raises TypeError (EvenInteger does val % 2 on the function)",
            id="positional.d_model=lambda:3",
        ),
    ],
)
def test_numeric_parameters_refuse_callables(cls, name, value, actual):
    _refused_and_unchanged(cls(), name, value)


NUMBER_TYPES = (
    "param.Number's _is_number is duck-typed (anything with __int__ and __add__, i.e. every "
    "numpy scalar, or numbers.Number): complex and numpy str/bytes/datetime scalars get to the "
    "bounds check, where '<=' raises TypeError, or pass it; size-1 arrays pass the bounds check "
    "and break every output"
)


@pytest.mark.parametrize("cls", [CapitalWalkthrough, AttentionExplorer], ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    ("value", "actual"),
    [
        pytest.param(
            0.5 + 0j,
            "TypeError: '<=' not supported between 'complex' and 'float'",
            id="complex",
        ),
        pytest.param(
            np.complex128(0.5 + 2j),
            "accepted; outputs drop the imaginary part (ComplexWarning)",
            id="np.complex128",
        ),
        pytest.param(
            np.str_("0.5"),
            "TypeError: '<=' not supported between 'numpy.str_' and 'float'",
            id="np.str_",
        ),
        pytest.param(
            np.datetime64("2020-01-01"),
            "numpy UFuncTypeError (a TypeError) from '<='",
            id="np.datetime64",
        ),
        pytest.param(
            decimal.Decimal("NaN"),
            "decimal.InvalidOperation (an ArithmeticError) from '<='",
            id="Decimal-NaN",
        ),
        pytest.param(
            np.array([[1.0]]),
            "accepted; identity: .embeddings raises ValueError (inhomogeneous shape); "
            "temperature: .weights raises TypeError (only 0-d arrays convert to scalars)",
            id="array-1x1",
        ),
    ],
)
def test_number_parameters_refuse_non_real_values(cls, value, actual):
    name = "identity" if cls is CapitalWalkthrough else "temperature"
    _refused_and_unchanged(cls(), name, value)


@pytest.mark.parametrize(
    ("cls", "name", "actual"),
    [
        pytest.param(
            ScalingDemo,
            "d_k",
            "accepted (np.timedelta64 subclasses np.signedinteger); every output raises "
            'ValueError "Can\'t hash generic timedelta64" from the lru_cache',
            id="scaling.d_k",
        ),
        pytest.param(
            AttentionExplorer,
            "focus",
            "accepted; .row raises IndexError (a timedelta64 is not a valid index)",
            id="explorer.focus",
        ),
    ],
)
def test_integer_parameters_refuse_timedelta(cls, name, actual):
    _refused_and_unchanged(cls(), name, np.timedelta64(3))


OVERFLOW = (
    "attnmodel/core.py as_matrix catches only (TypeError, ValueError) around "
    "np.array(value, dtype=float); a Python int beyond the float range raises OverflowError "
    "'int too large to convert to float' instead of the Spanish ValueError"
)


def test_matrix_refuses_an_int_too_large_for_a_float():
    _refused_and_unchanged(SelfAttention(), "X", [[10**400, 0], [0, 1], [1, 1]])


def test_set_cell_refuses_an_int_too_large_for_a_float():
    m = SelfAttention()
    before = snapshot(m)
    with pytest.raises(ValueError, match="no es un número"):
        m.set_cell("X", 0, 0, 10**400)
    assert_same_state(before, snapshot(m), "set_cell")


def test_matrix_refuses_complex_cells():
    _refused_and_unchanged(SelfAttention(), "X", np.array([[1 + 2j, 0], [0, 1], [1, 1]]))


def test_set_cell_refuses_numpy_complex():
    m = SelfAttention()
    before = snapshot(m)
    with pytest.raises(ValueError, match="no es un número"):
        m.set_cell("X", 0, 0, np.complex128(3 + 2j))
    assert_same_state(before, snapshot(m), "set_cell")


@pytest.mark.parametrize(
    ("row", "actual"),
    [
        pytest.param(
            1.5,
            "IndexError (only integers are valid indices)",
            id="row=1.5",
        ),
        pytest.param(
            None,
            "TypeError: '<=' not supported between 'int' and 'NoneType'",
            id="row=None",
        ),
        pytest.param(
            "0",
            "TypeError: '<=' not supported between 'int' and 'str'",
            id="row='0'",
        ),
    ],
)
def test_set_cell_refuses_non_integer_indices(row, actual):
    m = SelfAttention()
    before = snapshot(m)
    with pytest.raises(ValueError):  # noqa: PT011
        m.set_cell("X", row, 0, 1.0)
    assert_same_state(before, snapshot(m), "set_cell")
