"""Claims of demo 2: why divide the scores by sqrt(d_k)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmodel import ScalingDemo, scaling
from attnmodel.core import softmax

DKS = (1, 4, 16, 64, 256, 1024)
POWERS_OF_TWO = tuple(2**k for k in range(11))  # 1 .. 1024


def demo(d_k: int, seed: int = 0) -> ScalingDemo:
    return ScalingDemo(d_k=d_k, seed=seed)


def test_defaults():
    s = ScalingDemo()
    assert s.d_k == 64
    assert s.seed == 0
    assert s.n_keys == 8


@pytest.mark.parametrize("d_k", DKS)
def test_unscaled_score_deviation_is_about_sqrt_dk(d_k):
    assert demo(d_k).score_std == pytest.approx(math.sqrt(d_k), rel=0.05)


@pytest.mark.parametrize("d_k", DKS)
def test_scaled_score_deviation_is_about_one(d_k):
    s = demo(d_k)
    assert s.scaled_score_std == pytest.approx(1.0, rel=0.05)
    assert s.scaled_score_std == pytest.approx(s.score_std / math.sqrt(d_k), rel=1e-12)


def test_entropy_with_scaling_stays_roughly_constant_across_dk():
    entropies = [demo(d_k).entropy_scaled for d_k in POWERS_OF_TWO]
    assert max(entropies) - min(entropies) < 0.2
    assert min(entropies) > 2.3  # of a maximum of log2(8) = 3 bits


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_entropy_without_scaling_decreases_monotonically_with_dk(seed):
    entropies = [demo(d_k, seed).entropy_unscaled for d_k in POWERS_OF_TWO]
    assert np.all(np.diff(entropies) < 0)


def test_entropy_without_scaling_is_below_half_a_bit_at_dk_256():
    assert demo(256).entropy_unscaled < 0.5


@pytest.mark.parametrize("d_k", POWERS_OF_TWO)
def test_entropy_is_between_zero_and_three_bits(d_k):
    s = demo(d_k)
    assert 0.0 <= s.entropy_unscaled <= 3.0
    assert 0.0 <= s.entropy_scaled <= 3.0


def test_at_dk_1_scaling_changes_nothing():
    s = demo(1)
    assert s.entropy_scaled == s.entropy_unscaled
    assert s.gradient_scaled == s.gradient_unscaled
    assert s.sample_entropy_scaled == s.sample_entropy_unscaled
    np.testing.assert_array_equal(s.weights_scaled, s.weights_unscaled)


def test_unscaled_gradient_vanishes_at_large_dk():
    gradients = [demo(d_k).gradient_unscaled for d_k in POWERS_OF_TWO]
    assert np.all(np.diff(gradients[2:]) < 0)  # from d_k = 4 on
    assert gradients[-1] < 0.05
    assert gradients[-1] < gradients[0] / 5


@pytest.mark.parametrize("d_k", [16, 32, 64, 128, 256, 512, 1024])
def test_unscaled_gradient_is_smaller_than_scaled_gradient_for_dk_at_least_16(d_k):
    s = demo(d_k)
    assert s.gradient_unscaled < s.gradient_scaled


def test_scaled_gradient_stays_roughly_constant_across_dk():
    gradients = [demo(d_k).gradient_scaled for d_k in POWERS_OF_TWO]
    assert max(gradients) - min(gradients) < 0.05


@pytest.mark.parametrize("d_k", DKS)
def test_weights_sum_to_one_over_eight_keys(d_k):
    s = demo(d_k)
    for weights in (s.weights_unscaled, s.weights_scaled):
        assert weights.shape == (8,)
        assert np.all(weights >= 0)
        assert weights.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("d_k", DKS)
def test_weights_are_the_softmax_of_the_displayed_scores(d_k):
    s = demo(d_k)
    assert s.scores_unscaled.shape == (8,)
    np.testing.assert_array_equal(s.weights_unscaled, softmax(s.scores_unscaled))
    np.testing.assert_array_equal(s.weights_scaled, softmax(s.scores_unscaled / math.sqrt(d_k)))


def hand_entropy_bits(scores) -> float:
    """Entropy in bits of the softmax of ``scores``, by hand in plain Python (not attnmodel)."""
    top = max(scores)
    exps = [math.exp(x - top) for x in scores]
    total = sum(exps)
    return -sum(e / total * math.log2(e / total) for e in exps if e > 0)


def test_n_trials_is_the_number_of_queries_drawn():
    s = demo(64)
    assert s.n_trials == scaling.N_TRIALS == 4000
    assert scaling._unscaled_scores(64, 0).shape == (s.n_trials, s.n_keys)


@pytest.mark.parametrize("d_k", DKS)
def test_mean_entropy_is_the_mean_over_all_n_trials_queries(d_k):
    s = demo(d_k)
    rows = scaling._unscaled_scores(d_k, 0)
    assert len(rows) == s.n_trials
    hand_unscaled = [hand_entropy_bits(row.tolist()) for row in rows]
    hand_scaled = [hand_entropy_bits((row / math.sqrt(d_k)).tolist()) for row in rows]
    assert s.entropy_unscaled == pytest.approx(sum(hand_unscaled) / len(rows), abs=1e-9)
    assert s.entropy_scaled == pytest.approx(sum(hand_scaled) / len(rows), abs=1e-9)
    # The drawn query is the first of those.
    assert s.sample_entropy_unscaled == pytest.approx(hand_unscaled[0], abs=1e-12)
    assert s.sample_entropy_scaled == pytest.approx(hand_scaled[0], abs=1e-12)


@pytest.mark.parametrize("d_k", DKS)
@pytest.mark.parametrize("seed", [0, 3])
def test_sample_entropy_is_that_of_the_drawn_weights(d_k, seed):
    s = demo(d_k, seed)
    scores = s.scores_unscaled.tolist()
    assert s.sample_entropy_unscaled == pytest.approx(hand_entropy_bits(scores), abs=1e-12)
    scaled = [x / math.sqrt(d_k) for x in scores]
    assert s.sample_entropy_scaled == pytest.approx(hand_entropy_bits(scaled), abs=1e-12)
    # From the very weights drawn as bars: -sum p log2 p over the nonzero bars.
    for weights, entropy in (
        (s.weights_unscaled, s.sample_entropy_unscaled),
        (s.weights_scaled, s.sample_entropy_scaled),
    ):
        by_hand = -sum(p * math.log2(p) for p in weights.tolist() if p > 0)
        assert entropy == pytest.approx(by_hand, abs=1e-12)
        assert 0.0 <= entropy <= 3.0
        assert isinstance(entropy, float)


def test_default_sample_entropy_is_not_the_mean():
    # What the lecture opens on (d_k = 64, sample 0): the bars' query has 0,63 bits unscaled
    # and 2,80 scaled, while the means over 4000 queries are 0,46 and 2,49.
    s = ScalingDemo()
    assert s.sample_entropy_unscaled == pytest.approx(0.634, abs=1e-3)
    assert s.sample_entropy_scaled == pytest.approx(2.796, abs=1e-3)
    assert s.entropy_unscaled == pytest.approx(0.464, abs=1e-3)
    assert s.entropy_scaled == pytest.approx(2.486, abs=1e-3)


def test_sample_entropy_follows_the_seed():
    s = demo(64)
    before = (s.sample_entropy_unscaled, s.sample_entropy_scaled)
    s.seed = 1
    after = (s.sample_entropy_unscaled, s.sample_entropy_scaled)
    assert after != before
    assert after[0] == pytest.approx(hand_entropy_bits(s.scores_unscaled.tolist()), abs=1e-12)


def test_unscaled_attention_one_key_takes_all_at_large_dk():
    s = demo(1024)  # the default seed, what the lecture shows
    w = np.sort(s.weights_unscaled)
    assert w[-1] > 0.9
    assert np.all(w[:-1] < 0.01)
    # With scaling the same scores are spread: no key gets more than ~3/4.
    assert s.weights_scaled.max() < 0.75


def test_unscaled_attention_one_key_takes_all_at_large_dk_for_most_seeds():
    top = np.array([demo(1024, seed).weights_unscaled.max() for seed in range(40)])
    assert np.mean(top > 0.9) >= 0.7
    top_scaled = np.array([demo(1024, seed).weights_scaled.max() for seed in range(40)])
    assert np.mean(top_scaled > 0.9) <= 0.1


def test_same_seed_gives_the_same_weights():
    first = demo(64, seed=3).weights_unscaled
    scaling._unscaled_scores.cache_clear()
    scaling._statistics.cache_clear()
    second = demo(64, seed=3)
    np.testing.assert_array_equal(second.weights_unscaled, first)
    s = demo(64, seed=3)
    s.d_k = 16
    s.d_k = 64
    np.testing.assert_array_equal(s.weights_unscaled, first)


def test_different_seed_gives_different_weights():
    a = demo(64, seed=0)
    b = demo(64, seed=1)
    assert not np.array_equal(a.weights_unscaled, b.weights_unscaled)
    assert not np.array_equal(a.scores_unscaled, b.scores_unscaled)


def test_changing_the_seed_changes_the_displayed_weights():
    s = demo(64)
    before = s.weights_scaled
    s.seed = 1
    assert not np.array_equal(s.weights_scaled, before)


def test_scores_unscaled_is_a_copy_the_caller_may_edit():
    s = demo(64)
    scores = s.scores_unscaled
    scores[:] = 0.0
    assert not np.array_equal(s.scores_unscaled, scores)


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (0, "at least 1"),
        (2000, "at most 1024"),
        (1.5, "número entero"),
        ("x", "número entero"),
        (None, "número entero"),
    ],
)
def test_bad_dk_raises_and_keeps_the_value(bad, match):
    s = demo(256)
    before = s.entropy_unscaled
    with pytest.raises(ValueError, match=match):
        s.d_k = bad
    assert s.d_k == 256
    assert s.entropy_unscaled == before


@pytest.mark.parametrize("bad", [-1, 2**32, 0.5])
def test_bad_seed_raises_and_keeps_the_value(bad):
    s = demo(16, seed=5)
    with pytest.raises(ValueError, match="seed"):
        s.seed = bad
    assert s.seed == 5
