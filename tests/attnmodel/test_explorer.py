"""Claims of the toy attention explorer (seed 003, "Mueve las variables"), one test per claim."""

from __future__ import annotations

import math

import numpy as np
import param
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnmodel.core import entropy_bits, sinusoidal_encoding, trigram_vectors
from attnmodel.explorer import (
    DEFAULT_FOCUS,
    DEFAULT_SENTENCE,
    MAX_SENTENCE_CHARS,
    MAX_TOKENS,
    MAX_WORD_CHARS,
    POSITION_WEIGHT,
    SCORE_SCALE,
    TOKEN_DIM,
    TRIGRAM_SALT,
    AttentionExplorer,
    percentages,
)
from attnmodel.i18n import Refusal, text

# The seed's row for the second "gato" (defaults: T = 1, position on, causal off).
SEED_ROW = {
    "El": 0,
    "gato": 39,
    "duerme": 3,
    "porque": 0,
    "el": 0,
    "gato ": 44,  # the focus token itself (a dict needs distinct keys)
    "está": 2,
    "cansado": 11,
}
SEED_PERCENTAGES = list(SEED_ROW.values())
FIRST_GATO, SECOND_GATO = 1, 5
# First coordinates of the "gato" vector (core.hash_words, identical on every run/machine).
PINNED_GATO = [0.1854747338363898, -0.048036974358336426, -0.20109475231672289]


def snapshot(model: AttentionExplorer) -> dict:
    return {
        "sentence": model.sentence,
        "focus": model.focus,
        "temperature": model.temperature,
        "weights": model.weights.copy(),
    }


def assert_unchanged(model: AttentionExplorer, before: dict) -> None:
    assert model.sentence == before["sentence"]
    assert model.focus == before["focus"]
    assert model.temperature == before["temperature"]
    np.testing.assert_array_equal(model.weights, before["weights"])


def assert_refused(model: AttentionExplorer, name: str, value, match: str) -> None:
    """Setting ``name`` to ``value`` raises a ValueError matching ``match``; nothing changes."""
    before = snapshot(model)
    with pytest.raises(ValueError, match=match):
        setattr(model, name, value)
    assert_unchanged(model, before)


def normalised_entropy(p) -> float:
    return float(entropy_bits(p)) / math.log2(len(p))


# --------------------------------------------------------------------------------------------
# The worked row of the seed
# --------------------------------------------------------------------------------------------


def test_defaults_are_the_seed_setting():
    m = AttentionExplorer()
    assert m.sentence == DEFAULT_SENTENCE == "El gato duerme porque el gato está cansado"
    assert m.tokens == ["El", "gato", "duerme", "porque", "el", "gato", "está", "cansado"]
    assert m.focus == DEFAULT_FOCUS == SECOND_GATO
    assert m.tokens[m.focus] == "gato"
    assert (m.temperature, m.positional, m.causal) == (1.0, True, False)


def test_default_row_reproduces_seed_percentages():
    m = AttentionExplorer()
    assert m.row_percentages == SEED_PERCENTAGES
    # Round-half-up (the page's rule) and numpy's round-half-even agree: no entry is near a .5.
    assert np.round(100 * m.row).astype(int).tolist() == SEED_PERCENTAGES
    # Every unrounded entry lies within 0.3 points of the printed integer.
    np.testing.assert_allclose(100 * m.row, SEED_PERCENTAGES, rtol=0, atol=0.3)


def test_percentages_round_halves_up():
    assert percentages([0.005, 0.015, 0.025, 0.394, 0.4449]).tolist() == [1, 2, 3, 39, 44]


def test_two_gatos_take_most_of_the_focus_row():
    row = AttentionExplorer().row
    assert row[FIRST_GATO] + row[SECOND_GATO] > 0.5


def test_second_gato_attends_first_gato_most():
    # "la atención se va al primer gato. Se parecen, así que se atienden."
    row = AttentionExplorer().row.copy()
    row[SECOND_GATO] = -1.0  # leave the focus token out
    assert int(np.argmax(row)) == FIRST_GATO


def test_first_gato_attends_second_gato_back():
    # The similarity is symmetric: the first gato's row also goes to the second one.
    w = AttentionExplorer().weights
    others = np.delete(w[FIRST_GATO], FIRST_GATO)
    assert w[FIRST_GATO, SECOND_GATO] == others.max()
    assert w[FIRST_GATO, SECOND_GATO] > 0.3


# --------------------------------------------------------------------------------------------
# Temperature
# --------------------------------------------------------------------------------------------


def test_low_temperature_is_near_one_hot():
    m = AttentionExplorer(temperature=0.1)
    w = m.weights
    # A token whose spelling is unique in the sentence puts > 90 % on a single token.
    for token in ["duerme", "porque", "está", "cansado"]:
        assert w[m.tokens.index(token)].max() > 0.9, token
    # The focus row splits between the two identical "gato": w(T) ∝ w(1)^(1/T), so with the
    # seed's 39 % vs 44 % the second gato gets 1 / (1 + (39/44)^10) ≈ 0.77 at T = 0.1, not 0.9.
    # Nearly all of the budget still falls on "gato", and the largest share is > 3/4.
    assert m.row[FIRST_GATO] + m.row[SECOND_GATO] > 0.99
    assert m.row.max() > 0.75
    assert entropy_bits(m.row) < 1.0  # of log2(8) = 3 bits at most


def test_high_temperature_is_near_uniform():
    # Threshold: normalised entropy >= 0.85 (>= 2.55 of 3 bits) and no token above 30 %.
    # 0.9 is out of reach for the focus row: w(3) ∝ w(1)^(1/3) is fixed by the seed's own row.
    m = AttentionExplorer(temperature=3.0)
    n = len(m.tokens)
    assert normalised_entropy(m.row) >= 0.85
    assert m.row.max() < 0.3
    assert m.row.min() > 1 / (6 * n)  # even the 0 % tokens get a visible share


def test_raising_temperature_flattens_the_row():
    entropies = [
        float(entropy_bits(AttentionExplorer(temperature=t).row)) for t in (0.1, 0.5, 1, 2, 3)
    ]
    assert entropies == sorted(entropies)
    assert entropies[0] < 1.0 < 2.5 < entropies[-1]


# --------------------------------------------------------------------------------------------
# Causal mask
# --------------------------------------------------------------------------------------------


def test_causal_mask_zeroes_right_of_diagonal():
    m = AttentionExplorer(causal=True)
    n = len(m.tokens)
    above = np.triu_indices(n, k=1)
    assert np.all(m.weights[above] == 0.0)
    assert np.all(np.isneginf(m.scores[above]))
    np.testing.assert_allclose(m.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert m.weights[0].tolist() == [1.0] + [0.0] * (n - 1)  # the first token only sees itself


def test_causal_mask_keeps_the_past_as_it_was_renormalised():
    # Masking the future only removes columns; the remaining ones keep their ratios.
    free, masked = AttentionExplorer().weights, AttentionExplorer(causal=True).weights
    i = SECOND_GATO
    np.testing.assert_allclose(
        masked[i, : i + 1], free[i, : i + 1] / free[i, : i + 1].sum(), rtol=1e-12
    )


# --------------------------------------------------------------------------------------------
# Outputs: weighted means of the vectors
# --------------------------------------------------------------------------------------------


def test_token_attending_80_percent_comes_out_80_percent_like_it():
    # The seed's own example: the first "muerde" attends 80 % to the other "muerde" at T = 0.32
    # (same spelling, and with this position code the farther copy wins over itself).
    m = AttentionExplorer(sentence="perro muerde hombre y hombre muerde perro", temperature=0.32)
    i, j = 1, 5
    w = m.weights[i]
    assert w[j] == pytest.approx(0.80, abs=0.005)
    # The output is literally the weighted mean of the vectors...
    np.testing.assert_allclose(m.outputs[i], w @ m.vectors, rtol=0, atol=1e-12)
    # ... so it is 80 % of v_j plus the remaining 20 % spread over the others (here: itself).
    rest = sum(w[k] * m.vectors[k] for k in range(len(w)) if k != j)
    np.testing.assert_allclose(m.outputs[i], w[j] * m.vectors[j] + rest, rtol=0, atol=1e-12)
    assert w[i] + w[j] == pytest.approx(1.0, abs=1e-4)


def test_outputs_are_the_weighted_means_of_the_vectors():
    m = AttentionExplorer()
    np.testing.assert_allclose(m.outputs, m.weights @ m.vectors, rtol=0, atol=1e-12)


def test_vectors_are_token_vector_plus_position():
    m = AttentionExplorer()
    n = len(m.tokens)
    token_vectors = trigram_vectors(m.tokens, TOKEN_DIM, salt=TRIGRAM_SALT)
    position = sinusoidal_encoding(n, TOKEN_DIM)
    position = POSITION_WEIGHT * position / np.linalg.norm(position, axis=1, keepdims=True)
    np.testing.assert_allclose(m.vectors, token_vectors + position, rtol=0, atol=1e-12)
    m.positional = False
    np.testing.assert_array_equal(m.vectors, token_vectors)


def test_scores_are_scaled_dot_products_of_the_vectors():
    m = AttentionExplorer()
    np.testing.assert_allclose(m.scores, SCORE_SCALE * (m.vectors @ m.vectors.T), rtol=1e-12)


def test_outputs_are_read_only():
    m = AttentionExplorer()
    for array in (m.vectors, m.scores, m.weights, m.row, m.outputs):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0.0


# --------------------------------------------------------------------------------------------
# Orthographic similarity and position
# --------------------------------------------------------------------------------------------


def test_orthographic_similarity_gato_gatos_beats_gato_felino():
    gato, gatos, felino = trigram_vectors(["gato", "gatos", "felino"], TOKEN_DIM, TRIGRAM_SALT)
    assert gato @ gatos > gato @ felino
    assert gato @ gatos > 0.5
    m = AttentionExplorer(sentence="gato gatos felino", focus=0, positional=False)
    assert m.row[1] > m.row[2]


def test_orthographic_similarity_cat_cats_beats_cat_feline():
    # The English page's example of the same claim (explorer.toy).
    assert "(`cat` ~ `cats`)" in text("explorer.toy", "en")
    assert "`cat` ~ `feline`" in text("explorer.toy", "en")
    cat, cats, feline = trigram_vectors(["cat", "cats", "feline"], TOKEN_DIM, TRIGRAM_SALT)
    assert cat @ cats > cat @ feline
    assert cat @ cats > 0.3
    m = AttentionExplorer(sentence="cat cats feline", focus=0, positional=False)
    assert m.row[1] > m.row[2]


def test_case_and_accents_do_not_change_the_token_vector():
    a, b, c = trigram_vectors(["Está", "esta", "ESTA"], TOKEN_DIM, TRIGRAM_SALT)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_trigram_vectors_are_stable_across_runs():
    # core.hash_words of the trigrams, not Python's per-process hash(): pinned values.
    v = trigram_vectors(["gato"], TOKEN_DIM, TRIGRAM_SALT)[0]
    assert np.linalg.norm(v) == pytest.approx(1.0)
    np.testing.assert_allclose(v[:3], PINNED_GATO, rtol=0, atol=1e-12)


def test_without_position_word_order_does_not_matter():
    # "sin ella el modelo no distinguiría «perro muerde hombre» de «hombre muerde perro»"
    a = AttentionExplorer(sentence="perro muerde hombre", positional=False)
    b = AttentionExplorer(sentence="hombre muerde perro", positional=False)
    perm = [2, 1, 0]
    np.testing.assert_allclose(b.weights, a.weights[np.ix_(perm, perm)], rtol=0, atol=1e-12)
    a.positional = b.positional = True
    assert not np.allclose(b.weights, a.weights[np.ix_(perm, perm)], rtol=0, atol=1e-3)


# --------------------------------------------------------------------------------------------
# Focus follows the sentence
# --------------------------------------------------------------------------------------------


def test_focus_is_clamped_when_the_sentence_shrinks():
    m = AttentionExplorer()
    m.sentence = "el perro ladra"
    assert m.focus == 2
    assert m.row.shape == (3,)


def test_focus_is_kept_when_still_valid():
    m = AttentionExplorer(focus=2)
    m.sentence = "el perro ladra mucho"
    assert m.focus == 2


def test_focus_and_short_sentence_can_be_given_together():
    m = AttentionExplorer(sentence="hola mundo", focus=0)
    assert (m.focus, m.tokens) == (0, ["hola", "mundo"])
    assert AttentionExplorer(sentence="hola mundo").focus == 1


@pytest.mark.parametrize("focus", [8, 40, -1])
def test_focus_out_of_range_raises_in_spanish_and_keeps_the_last_value(focus):
    assert_refused(AttentionExplorer(), "focus", focus, r"token en foco debe estar entre 0 y 7")


def test_boolean_focus_is_rejected():
    assert_refused(AttentionExplorer(), "focus", True, "número entero")


def test_focus_refusals_are_said_in_english_too():
    with pytest.raises(Refusal) as out_of_range:
        AttentionExplorer().focus = 8
    assert out_of_range.value.message("en") == (
        "The token in focus must be between 0 and 7 (the sentence has 8 tokens), not 8."
    )
    with pytest.raises(Refusal) as boolean:
        AttentionExplorer().focus = True
    assert boolean.value.message("en") == "The token in focus must be a whole number, not True."


def test_focus_out_of_range_at_construction_raises():
    with pytest.raises(ValueError, match="token en foco"):
        AttentionExplorer(sentence="hola mundo", focus=2)


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sentence", ["", "   ", "\t\n "])
def test_empty_sentence_raises_in_spanish_and_keeps_the_last_sentence(sentence):
    assert_refused(AttentionExplorer(), "sentence", sentence, "La frase está vacía")


def test_too_many_tokens_raises_in_spanish_and_keeps_the_last_sentence():
    too_long = " ".join(["gato"] * (MAX_TOKENS + 1))
    assert_refused(AttentionExplorer(), "sentence", too_long, f"el máximo es {MAX_TOKENS}")


def test_the_text_is_capped_too_before_it_is_split():
    """A forged megabyte is refused by its length (no split, no trigrams), and so is a word
    longer than a word can be; at the caps themselves the sentence is accepted."""
    m = AttentionExplorer()
    assert_refused(m, "sentence", "a" * 2_000_000, "2000000 caracteres; el máximo es 2000")
    assert_refused(m, "sentence", "x" * (MAX_WORD_CHARS + 1), "el máximo por palabra es 48")
    assert_refused(m, "sentence", "a " * 1001, "2002 caracteres")
    m.sentence = "x" * MAX_WORD_CHARS
    assert list(m.tokens) == ["x" * MAX_WORD_CHARS]
    m.sentence = " ".join(["y" * MAX_WORD_CHARS] * MAX_TOKENS)  # 40 × 48 + 39 spaces
    assert len(m.sentence) <= MAX_SENTENCE_CHARS
    assert len(m.tokens) == MAX_TOKENS


def test_forty_tokens_are_accepted():
    m = AttentionExplorer(sentence=" ".join(f"palabra{i}" for i in range(MAX_TOKENS)))
    assert m.weights.shape == (MAX_TOKENS, MAX_TOKENS)


@pytest.mark.parametrize("temperature", [0.0, 0.05, 3.5, -1.0])
def test_temperature_out_of_range_raises_and_keeps_the_last_value(temperature):
    assert_refused(AttentionExplorer(temperature=0.5), "temperature", temperature, "temperature")


@pytest.mark.parametrize(
    "sentence",
    [
        "<script>alert(1)</script>",
        "<b>hola</b> & adiós",
        "😀 🐈 gato 🐈",
        "猫 が 寝て いる",
        "!!! ... ¿? --- 42",
        "\u0301 e\u0301 \u0301\u0301",  # tokens made only of combining accents
        "\ud800 gato",  # a lone surrogate is still a str
        "\u200b \ufeff gato",  # zero-width characters are not whitespace
    ],
)
def test_odd_tokens_are_just_strings_and_never_give_nan(sentence):
    m = AttentionExplorer(sentence=sentence)
    assert m.tokens == sentence.split()
    for array in (m.vectors, m.scores, m.weights, m.outputs):
        assert np.all(np.isfinite(array))
    assert np.all(np.linalg.norm(m.vectors, axis=1) > 0)
    np.testing.assert_allclose(m.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_html_is_kept_verbatim():
    m = AttentionExplorer(sentence="<script>alert(1)</script>")
    assert m.tokens == ["<script>alert(1)</script>"]
    assert m.focus == 0
    assert m.row.tolist() == [1.0]


def test_parameters_have_docs_and_bounds():
    p = AttentionExplorer.param
    for name in ("sentence", "focus", "temperature", "positional", "causal"):
        assert p[name].doc, name
    assert p["temperature"].bounds == (0.1, 3.0)
    assert p["focus"].bounds == (0, None)
    assert p["sentence"].max_tokens == MAX_TOKENS


def test_docstring_states_the_toy_nature():
    doc = AttentionExplorer.__doc__
    assert "Q = K = V" in doc
    assert "juguete" in doc
    assert "sin proyecciones aprendidas" in doc


def test_explorer_is_a_parameterized():
    assert isinstance(AttentionExplorer(), param.Parameterized)


# --------------------------------------------------------------------------------------------
# Properties over random input
# --------------------------------------------------------------------------------------------

# Str.split() splits exactly on the characters of categories Z* and Cc; keep them out of tokens.
token_text = st.text(
    st.characters(exclude_categories=("Zs", "Zl", "Zp", "Cc", "Cs")), min_size=1, max_size=8
)
token_lists = st.lists(token_text, min_size=1, max_size=12)
temperatures = st.floats(min_value=0.1, max_value=3.0)


@settings(max_examples=150, deadline=None)
@given(tokens=token_lists, temperature=temperatures, positional=st.booleans(), causal=st.booleans())
def test_rows_sum_to_one_and_everything_is_finite(tokens, temperature, positional, causal):
    m = AttentionExplorer(
        sentence=" ".join(tokens), temperature=temperature, positional=positional, causal=causal
    )
    n = len(tokens)
    assert m.tokens == tokens
    assert m.weights.shape == (n, n)
    assert m.vectors.shape == m.outputs.shape == (n, TOKEN_DIM)
    for array in (m.vectors, m.weights, m.outputs):
        assert np.all(np.isfinite(array))
    assert not np.isnan(m.scores).any()
    assert np.all(m.weights >= 0)
    np.testing.assert_allclose(m.weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    if causal:
        assert np.all(m.weights[np.triu_indices(n, k=1)] == 0.0)
    assert 0 <= m.focus < n


@settings(max_examples=100, deadline=None)
@given(data=st.data(), tokens=token_lists, temperature=temperatures)
def test_without_position_permuting_tokens_permutes_the_weights(data, tokens, temperature):
    perm = data.draw(st.permutations(range(len(tokens))))
    a = AttentionExplorer(sentence=" ".join(tokens), temperature=temperature, positional=False)
    b = AttentionExplorer(
        sentence=" ".join(tokens[k] for k in perm), temperature=temperature, positional=False
    )
    np.testing.assert_allclose(b.weights, a.weights[np.ix_(perm, perm)], rtol=0, atol=1e-12)
    np.testing.assert_allclose(b.outputs, a.outputs[perm], rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(tokens=token_lists, shrink_to=st.integers(min_value=1, max_value=12))
def test_focus_always_points_at_a_token(tokens, shrink_to):
    m = AttentionExplorer(sentence=" ".join(tokens), focus=len(tokens) - 1)
    m.sentence = " ".join(tokens[:shrink_to])
    assert m.focus == min(len(tokens), shrink_to) - 1
    assert m.row.shape == (min(len(tokens), shrink_to),)
