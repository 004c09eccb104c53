"""attnmodel.smollm against figures it did not compute: llama.cpp's (recorded, see
data/record_smollm2_reference.py for how), SplitMix64's published outputs, and hand-made
distributions."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from attnmodel import smollm

REFERENCE = Path(__file__).parent / "data" / "smollm2_reference.npz"
# The texts the reference was recorded on, saved with it: the prompt, the English text, and
# three more for the tokenizer.
with np.load(REFERENCE) as _recorded:
    TOKENIZED = tuple(str(t) for t in _recorded["texts"])
PROMPT, TEXT = TOKENIZED[:2]


@pytest.fixture(scope="module")
def lm():
    return smollm.model()


@pytest.fixture(scope="module")
def reference():
    return np.load(REFERENCE)


def test_the_tokenizer_splits_as_llama_cpp_does(lm, reference):
    for i, text in enumerate(TOKENIZED):
        assert list(lm.tokenize(text).ids) == list(reference[f"tokens_{i}"]), text
        assert lm.detokenize(lm.tokenize(text).ids) == text


def test_a_special_token_typed_as_text_is_its_characters(lm):
    for token in sorted(lm.special):
        typed = lm.vocab[token]
        ids = lm.tokenize(typed).ids
        assert token not in ids, typed
        assert len(ids) > 1, typed
        assert lm.detokenize(ids) == typed


def test_the_logits_of_a_prompt_equal_llama_cpp_s_on_the_same_weights(lm, reference):
    logits = lm.next_token(lm.tokenize(PROMPT).ids).logits
    expected = reference["prompt_logits"]
    assert logits.shape == expected.shape == (smollm.VOCAB,)
    assert np.max(np.abs(logits - expected)) < 1e-3
    assert lm.piece(int(np.argmax(logits))) == " Paris"


def test_the_perplexity_of_an_english_text_is_llama_cpp_s_within_5_percent(lm, reference):
    ids = lm.tokenize(TEXT).ids
    expected = math.exp(-reference["text_logp"].mean())
    assert lm.perplexity(ids) == pytest.approx(expected, rel=0.05)
    # Each token's log-probability, not only their mean.
    assert np.max(np.abs(lm.log_likelihood(ids) - reference["text_logp"])) < 1e-3


def test_decoding_with_the_cache_equals_recomputing_everything(lm):
    ids = lm.tokenize(TEXT).ids[:24]
    full = lm.forward(ids)
    cache = smollm.KVCache()
    pieces = [lm.forward(ids[:10], cache)] + [lm.forward([t], cache) for t in ids[10:]]
    assert np.max(np.abs(np.concatenate(pieces) - full)) < 1e-4
    assert cache.length == len(ids)


def test_attention_is_causal_and_each_row_a_distribution(lm):
    ids = lm.tokenize(PROMPT).ids
    maps = lm.attention(ids)
    n = len(ids)
    assert maps.shape == (smollm.N_LAYERS, smollm.N_HEADS, n, n)
    assert np.allclose(maps.sum(axis=-1), 1, atol=1e-5)
    assert np.all(maps[..., np.triu_indices(n, k=1)[0], np.triu_indices(n, k=1)[1]] == 0)


def test_rope_rotates_adjacent_pairs_each_by_its_own_angle():
    x = np.zeros((1, 3, smollm.D_HEAD), dtype=np.float32)
    x[0, :, 2] = 1.0  # the first dimension of pair 1, at positions 5, 6, 7
    out = smollm.rope(x, *smollm.rope_angles(5, 3))
    theta = smollm.ROPE_BASE ** (-2 / smollm.D_HEAD)
    for row, position in enumerate((5, 6, 7)):
        expected = np.zeros(smollm.D_HEAD)
        expected[2], expected[3] = math.cos(position * theta), math.sin(position * theta)
        assert np.allclose(out[0, row], expected, atol=1e-6)


def test_splitmix64_gives_the_reference_outputs():
    # SplitMix64 from seed 0: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F
    # (Vigna's splitmix64.c); u is the top 53 bits.
    words = (0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F)
    assert smollm.splitmix64(0, 3) == [(w >> 11) / 2.0**53 for w in words]


def test_temperature_top_k_and_top_p_shape_a_hand_made_distribution():
    logits = np.log(np.array([0.1, 0.4, 0.2, 0.3]))
    assert np.allclose(smollm.shaped(logits), [0.1, 0.4, 0.2, 0.3])
    assert np.allclose(smollm.shaped(logits, top_k=2), [0, 4 / 7, 0, 3 / 7])
    # 0.4 + 0.3 = 0.7 reaches 0.7: two tokens; 0.71 needs the third.
    assert np.allclose(smollm.shaped(logits, top_p=0.7), [0, 4 / 7, 0, 3 / 7])
    assert np.allclose(smollm.shaped(logits, top_p=0.71), [0, 4 / 9, 2 / 9, 3 / 9])
    assert np.allclose(smollm.shaped(logits, top_p=0.01), [0, 1, 0, 0])
    # T = 2 is the square root of each probability, renormalised.
    root = np.sqrt([0.1, 0.4, 0.2, 0.3])
    assert np.allclose(smollm.shaped(logits, temperature=2), root / root.sum())
    assert np.allclose(smollm.shaped(logits, temperature=0), [0, 1, 0, 0])
    # A tie goes to the lower id, for greedy and for top-k alike.
    tie = np.log(np.array([0.3, 0.3, 0.4]))
    assert np.allclose(smollm.shaped(tie, temperature=0), [0, 0, 1])
    assert np.allclose(smollm.shaped(tie, top_k=2), [3 / 7, 0, 4 / 7])


def test_a_draw_is_the_inverse_of_the_distribution():
    p = np.array([0.1, 0.4, 0.2, 0.3])  # laid out 1, 3, 2, 0: [0, .4) [.4, .7) [.7, .9) [.9, 1)
    us = (0.0, 0.39, 0.41, 0.69, 0.71, 0.89, 0.91, 0.999)
    assert [smollm.draw(p, u) for u in us] == [1, 1, 3, 3, 2, 2, 0, 0]


def test_sampling_is_reproducible_by_seed_and_its_frequencies_match_the_distribution(lm):
    ids = lm.tokenize(PROMPT).ids
    first = lm.sample(ids, 6, temperature=0.8, top_k=40, seed=7)
    again = lm.sample(ids, 6, temperature=0.8, top_k=40, seed=7)
    assert [s.token for s in first] == [s.token for s in again]
    assert [s.token for s in lm.sample(ids, 6, temperature=0.8, top_k=40, seed=8)] != [
        s.token for s in first
    ]
    # Each step's token was drawn from the distribution it shows.
    for step in first:
        assert step.probabilities[step.token] > 0
        assert step.token == smollm.draw(step.probabilities, step.u)
    # χ² of 20 000 seeded draws from the next token's shaped distribution (top 5).
    p = smollm.shaped(lm.next_token(ids).logits, temperature=1.0, top_k=5)
    support = np.flatnonzero(p)
    draws = [smollm.draw(p, u) for u in smollm.splitmix64(2024, 20_000)]
    counts = np.array([draws.count(t) for t in support])
    expected = 20_000 * p[support]
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    # 4 degrees of freedom: P(χ² > 18.47) = 0.001.
    assert chi2 < 18.47, (counts, expected)
    assert counts.sum() == 20_000


def test_the_walk_adds_up_to_the_model_s_output(lm):
    ids = lm.tokenize(PROMPT).ids
    walk = lm.walk(ids)
    assert walk.stream.shape == (smollm.N_LAYERS, 3, smollm.D_MODEL)
    # Each layer starts where the one before ended, and its parts are what it added.
    assert np.allclose(walk.stream[1:, 0], walk.stream[:-1, 2], atol=1e-5)
    assert np.allclose(walk.stream[:, 1] - walk.stream[:, 0], walk.attention, atol=1e-4)
    assert np.allclose(walk.stream[:, 2] - walk.stream[:, 1], walk.mlp, atol=1e-4)
    assert np.allclose(walk.stream[0, 0], walk.embedding)
    # The lens of the last stream is the model's own next-token distribution.
    expected = lm.next_token(ids).probabilities
    assert np.max(np.abs(lm.lens(walk.stream[-1, 2]) - expected)) < 1e-5
    assert np.allclose(walk.logits, lm.next_token(ids).logits, atol=1e-4)


def test_the_previous_token_and_induction_heads_are_found_by_measurement(lm):
    length = 30
    seq = smollm.repeated_sequence(0, length)
    assert list(seq[:length]) == list(seq[length:])
    maps = lm.attention(seq)
    previous, induction = smollm.measured_heads(maps, length)
    # The scores, recomputed here for two heads from the maps themselves.
    n = 2 * length
    assert previous[16, 0] == pytest.approx(np.mean([maps[16, 0, i, i - 1] for i in range(1, n)]))
    assert induction[18, 6] == pytest.approx(
        np.mean([maps[18, 6, i, i - length + 1] for i in range(length, n)])
    )
    # The issue's own probe, on another random sequence, found L16H0 (0.90) and L18H6 (0.94).
    best_previous = smollm.best_heads(previous, 1)[0]
    best_induction = smollm.best_heads(induction, 1)[0]
    assert (best_previous.layer, best_previous.head) == (16, 0)
    assert (best_induction.layer, best_induction.head) == (18, 6)
    assert best_previous.score > 0.85
    assert best_induction.score > 0.85
