"""The mathematics of the lecture, as pure numpy functions.

Everything here follows Vaswani et al., "Attention Is All You Need" (2017), section 3.2 (scaled
dot-product and multi-head attention) and section 3.5 (sinusoidal positional encoding), with the
paper's names: ``query``, ``key``, ``value``, ``d_k``, ``n_heads``. No function keeps state; the
``param`` models of each demo call these, and the views only display what the models return.
"""

from __future__ import annotations

import functools
import math
import unicodedata
from typing import NamedTuple

import numpy as np

from .i18n import Refusal

__all__ = [
    "AttentionResult",
    "as_matrix",
    "causal_mask",
    "entropy_bits",
    "hash_words",
    "letter_trigrams",
    "multi_head_attention",
    "scaled_dot_product_attention",
    "sinusoidal_encoding",
    "softmax",
    "softmax_jacobian",
    "softmax_jacobian_norm",
    "trigram_vectors",
]


def _is_real(x) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(
        x, (bool, np.bool_)
    )


def _positive_int(value, name: str) -> int:
    if not _is_real(value) or not math.isfinite(value) or value < 1 or int(value) != value:
        raise Refusal("core.positive_int", name=name, value=repr(value))
    return int(value)


def _has_complex(value) -> bool:
    try:
        if np.iscomplexobj(value):
            return True
        cells = np.asarray(value, dtype=object).ravel()
    except ValueError:  # ragged: the float conversion in as_matrix refuses it
        return False
    return any(isinstance(v, (complex, np.complexfloating)) for v in cells)


def as_matrix(value, shape: tuple[int, int] | None = None, name=None) -> np.ndarray:
    """Return ``value`` as a finite float matrix, or raise a :class:`~attnmodel.i18n.Refusal`
    (a ValueError, Spanish by default) naming it ``name`` ("matriz" / "matrix" if None)."""
    if name is None:
        name = Refusal("core.matrix_label")  # a name said in the catalogue, like a message
    if _has_complex(value):  # np.array(..., dtype=float) would silently drop the imaginary part
        raise Refusal("core.matrix_real", name=name)
    try:
        array = np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError) as exc:
        raise Refusal("core.matrix_numbers", name=name) from exc
    if array.ndim != 2:
        raise Refusal("core.matrix_ndim", name=name, ndim=array.ndim)
    if shape is not None and array.shape != tuple(shape):
        expected = "×".join(map(str, shape))
        got = "×".join(map(str, array.shape))
        raise Refusal("core.matrix_shape", name=name, expected=expected, got=got)
    if not np.all(np.isfinite(array)):
        raise Refusal("core.matrix_finite", name=name)
    return array


def softmax(x, axis: int = -1, temperature: float = 1.0) -> np.ndarray:
    """Numerically stable softmax of ``x / temperature`` along ``axis``.

    ``-inf`` entries are masked positions and get weight exactly 0; every other entry must be
    finite. Subtracting the maximum first keeps ``exp`` in range for scores as large as 1e300.
    """
    # [..., n] -> [..., n], each slice along `axis` sums to 1
    x = np.asarray(x, dtype=float)
    if not (_is_real(temperature) and math.isfinite(temperature) and temperature > 0):
        raise Refusal("core.temperature", value=repr(temperature))
    if np.isnan(x).any() or np.isposinf(x).any():
        raise Refusal("core.softmax_not_finite")
    if np.isneginf(x).all(axis=axis).any():
        raise Refusal("core.softmax_all_masked")
    with np.errstate(over="ignore", invalid="ignore"):
        # Dividing 1e300 by a small temperature overflows to inf; differences are what matter,
        # so shift first, then scale (a shifted row is <= 0, its maximum exactly 0).
        shifted = x - np.max(x, axis=axis, keepdims=True)
        shifted = np.where(np.isneginf(x), -np.inf, shifted)
        scaled = shifted / temperature
        scaled = np.where(np.isnan(scaled), -np.inf, scaled)
    e = np.exp(scaled)
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_jacobian(p) -> np.ndarray:
    """Jacobian d softmax / d scores for a probability vector: ``diag(p) - p p^T``."""
    # [n] -> [n, n]
    p = np.asarray(p, dtype=float)
    return np.diag(p) - np.outer(p, p)


def softmax_jacobian_norm(p, axis: int = -1) -> np.ndarray:
    """Frobenius norm of the softmax Jacobian for each distribution along ``axis``.

    It is the size of the gradient that flows back through the softmax: 0 for a one-hot row,
    sqrt(n - 1) / n for a uniform one.
    ``||diag(p) - pp^T||_F^2 = sum p^2 - 2 sum p^3 + (sum p^2)^2``.
    """
    # [..., n] -> [...]
    p = np.moveaxis(np.asarray(p, dtype=float), axis, -1)
    s2 = np.sum(p**2, axis=-1)
    s3 = np.sum(p**3, axis=-1)
    return np.sqrt(np.maximum(s2 - 2 * s3 + s2**2, 0.0))


def entropy_bits(p, axis: int = -1) -> np.ndarray:
    """Shannon entropy in bits along ``axis``, with 0 · log 0 = 0."""
    # [..., n] -> [...]
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return np.sum(terms, axis=axis) + 0.0  # + 0.0 turns -0.0 into 0.0


def causal_mask(n_query: int, n_key: int | None = None) -> np.ndarray:
    """Boolean mask, True where query i may attend to key j (j <= i)."""
    # -> [n_query, n_key]
    n_key = n_query if n_key is None else n_key
    return np.tril(np.ones((n_query, n_key), dtype=bool))


class AttentionResult(NamedTuple):
    """What one attention call computes: the scores, the weights, and the output."""

    scores: np.ndarray  # [n_q, n_k], after the optional 1/sqrt(d_k); -inf where masked
    weights: np.ndarray  # [n_q, n_k], each row sums to 1
    output: np.ndarray  # [n_q, d_v]


def scaled_dot_product_attention(
    query, key, value, causal: bool = False, scale: bool = True, temperature: float = 1.0
) -> AttentionResult:
    """softmax(Q K^T / sqrt(d_k)) V, returning scores and weights as well as the output."""
    # [n_q, d_k], [n_k, d_k], [n_k, d_v] -> scores [n_q, n_k], weights [n_q, n_k], output [n_q, d_v]
    query = np.asarray(query, dtype=float)
    key = np.asarray(key, dtype=float)
    value = np.asarray(value, dtype=float)
    if query.ndim != 2 or key.ndim != 2 or value.ndim != 2:
        raise Refusal("core.attention_ndim")
    if not (np.isfinite(query).all() and np.isfinite(key).all() and np.isfinite(value).all()):
        raise Refusal("core.attention_finite")
    if query.shape[1] != key.shape[1]:
        raise Refusal("core.attention_d_k", query=query.shape[1], key=key.shape[1])
    if key.shape[0] != value.shape[0]:
        raise Refusal("core.attention_rows", key=key.shape[0], value=value.shape[0])
    if causal and query.shape[0] > key.shape[0]:
        raise Refusal("core.causal_keys")
    d_k = query.shape[1]
    # 1) score every query against every key
    with np.errstate(over="ignore", invalid="ignore"):
        scores = query @ key.T
    if scale:
        scores = scores / math.sqrt(d_k)
    # Products of huge but finite entries can overflow; saturate instead of poisoning the row.
    scores = np.nan_to_num(scores, nan=0.0, posinf=np.finfo(float).max, neginf=-np.finfo(float).max)
    # 2) mask the future: -inf means weight exactly 0 after the softmax
    if causal:
        scores = np.where(causal_mask(query.shape[0], key.shape[0]), scores, -np.inf)
    # 3) normalise each row into a distribution
    weights = softmax(scores, axis=-1, temperature=temperature)
    # 4) mix the values
    output = weights @ value
    return AttentionResult(scores, weights, output)


def multi_head_attention(x, w_query, w_key, w_value, n_heads: int, causal: bool = False):
    """Split d_model into ``n_heads`` heads of size d_model / n_heads and attend in each.

    Returns (weights [n_heads, n, n], output [n, d_model] = concatenated head outputs).
    """
    # x [n, d_model], w_* [d_model, d_model] -> weights [h, n, n], output [n, d_model]
    x = np.asarray(x, dtype=float)
    d_model = x.shape[1]
    if n_heads < 1 or d_model % n_heads:
        raise Refusal("core.heads_split", d_model=d_model, n_heads=n_heads)
    d_k = d_model // n_heads
    query, key, value = x @ w_query, x @ w_key, x @ w_value
    weights, outputs = [], []
    for h in range(n_heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        result = scaled_dot_product_attention(query[:, cols], key[:, cols], value[:, cols], causal)
        weights.append(result.weights)
        outputs.append(result.output)
    return np.stack(weights), np.concatenate(outputs, axis=1)


def sinusoidal_encoding(n_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """PE[pos, 2i] = sin(pos / base^(2i/d)), PE[pos, 2i+1] = cos(pos / base^(2i/d))."""
    # -> [n_positions, d_model]
    n_positions = _positive_int(n_positions, "n_positions")
    d_model = _positive_int(d_model, "d_model")
    if not (_is_real(base) and math.isfinite(base) and base > 1):
        raise Refusal("core.base", value=repr(base))
    pos = np.arange(n_positions, dtype=float)[:, None]
    two_i = 2 * (np.arange(d_model) // 2)
    angle = pos / np.power(float(base), two_i / d_model)
    return np.where(np.arange(d_model) % 2 == 0, np.sin(angle), np.cos(angle))


def _normalise_token(token: str) -> str:
    # Lower case and strip accents so "Está" and "esta" share trigrams.
    decomposed = unicodedata.normalize("NFKD", token.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def letter_trigrams(token: str) -> list[str]:
    """Letter trigrams of a token padded with '#' at both ends: 'gato' -> #ga, gat, ato, to#."""
    padded = f"#{_normalise_token(token)}#"
    return [padded[i : i + 3] for i in range(len(padded) - 2)]


# Hashed letter-trigram vectors: the explorer's toy "embedding table".
#
# FNV-1a (32 bit) of the text's UTF-8, then one murmur3 finaliser per coordinate: integer
# arithmetic modulo 2**32 that the export's JS repeats exactly with Math.imul (c04.js hashWords).
# Never hash(): Python salts hash() per process, and the worked example must give the same
# numbers on every machine and every run. Not cryptographic, and it need not be.
_FNV_OFFSET, _FNV_PRIME = 0x811C9DC5, 0x01000193
_GOLDEN = np.uint32(0x9E3779B9)  # 2**32 / golden ratio: spreads the coordinates' counters


def _fnv1a(data: bytes) -> int:
    h = _FNV_OFFSET
    for byte in data:
        h = ((h ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return h


def hash_words(text: str, n: int) -> np.ndarray:
    """``n`` pseudo-random uint32 words for ``text``: fmix32(fnv1a(text) + j · 0x9E3779B9)."""
    # [n] uint32; numpy's uint32 arrays wrap modulo 2**32 as the JS twin's Math.imul does
    start = np.uint32(_fnv1a(text.encode("utf-8", "surrogatepass")))
    x = start + np.arange(n, dtype=np.uint32) * _GOLDEN
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x85EBCA6B)
    x ^= x >> np.uint32(13)
    x *= np.uint32(0xC2B2AE35)
    x ^= x >> np.uint32(16)
    return x


def _trigram_matrix(trigrams: list[str], d_model: int, salt: int) -> np.ndarray:
    # [k] trigrams -> [k, d_model], each row a fixed pseudo-random unit vector.
    words = np.stack([hash_words(f"{salt}:{t}", d_model) for t in trigrams])
    vectors = words.astype(float) / 2**32 * 2 - 1  # uniform in [-1, 1) per coordinate
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@functools.lru_cache(maxsize=4096)
def _token_vector(token: str, d_model: int, salt: int) -> np.ndarray:
    # A token made only of combining marks normalises to "" and has no letter trigram; fall back
    # to the trigrams of its raw characters so that every token gets a nonzero vector.
    trigrams = letter_trigrams(token) or [f"#{token}#"[i : i + 3] for i in range(len(token))]
    per_trigram = _trigram_matrix(trigrams, d_model, salt)
    total = per_trigram.sum(axis=0)
    norm = np.linalg.norm(total)
    # A zero sum would need trigram vectors that cancel exactly; keep the first one then.
    vector = total / norm if norm > 0 else per_trigram[0].copy()
    vector.flags.writeable = False  # shared by the cache: nobody may edit it in place
    return vector


def trigram_vectors(tokens, d_model: int, salt: int = 0) -> np.ndarray:
    """Unit vectors in R^d_model for ``tokens``, built from their letter trigrams.

    Each trigram of :func:`letter_trigrams` maps to a fixed pseudo-random unit vector (its
    coordinates come from :func:`hash_words` of ``"salt:trigram"``), and a token is the
    normalised sum of its trigram vectors. Tokens that share trigrams point in similar
    directions (gato ~ gatos); tokens that share none are nearly orthogonal, up to the chance
    overlap of random vectors in a small space. No learning is involved: the similarity is
    orthographic, not semantic.
    """
    # [n] tokens -> [n, d_model], each row of norm 1
    if isinstance(d_model, bool) or not isinstance(d_model, (int, np.integer)) or d_model < 1:
        raise Refusal("core.positive_int", name="d_model", value=repr(d_model))
    tokens = [tokens] if isinstance(tokens, str) else list(tokens)
    for token in tokens:
        if not isinstance(token, str) or not token:
            raise Refusal("core.token_text", value=repr(token))
    if not tokens:
        return np.zeros((0, int(d_model)))
    return np.stack([_token_vector(t, int(d_model), int(salt)) for t in tokens])
