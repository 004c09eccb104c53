"""Demo 2: why divide by sqrt(d_k).

If q and k have independent components of variance 1, q·k has variance d_k. Large scores push the
softmax towards one-hot, where its Jacobian (the gradient that reaches the scores) vanishes.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import param

from ._params import StrictInteger
from .core import entropy_bits, softmax, softmax_jacobian_norm

N_KEYS = 8
N_TRIALS = 4000  # queries drawn per (d_k, seed): enough for two stable decimals in every readout


@lru_cache(maxsize=64)
def _unscaled_scores(d_k: int, seed: int) -> np.ndarray:
    """Scores q·k_j of N_TRIALS random queries against N_KEYS random keys each.

    Given q, q·k with k ~ N(0, I) is exactly N(0, |q|^2), and |q|^2 ~ chi^2(d_k): drawing |q| and
    one standard normal per key gives the same joint distribution as the full dot products at
    O(N_TRIALS · N_KEYS) cost instead of O(N_TRIALS · N_KEYS · d_k).
    """
    # -> [N_TRIALS, N_KEYS]
    rng = np.random.default_rng(seed)
    query_norm = np.sqrt(rng.chisquare(d_k, size=(N_TRIALS, 1)))
    scores = query_norm * rng.standard_normal((N_TRIALS, N_KEYS))
    scores.flags.writeable = False
    return scores


@lru_cache(maxsize=64)
def _statistics(d_k: int, seed: int, scaled: bool) -> tuple[float, float, float]:
    """(score deviation, mean entropy in bits, mean softmax-Jacobian norm) over all trials."""
    scores = _unscaled_scores(d_k, seed)
    if scaled:
        scores = scores / math.sqrt(d_k)
    weights = softmax(scores)
    return (
        float(np.std(scores)),
        float(np.mean(entropy_bits(weights))),
        float(np.mean(softmax_jacobian_norm(weights))),
    )


class ScalingDemo(param.Parameterized):
    """Softmax over 8 random keys, with and without the 1/sqrt(d_k) factor."""

    d_k = StrictInteger(64, bounds=(1, 1024), doc="Dimensión de consultas y llaves (d_k).")
    seed = StrictInteger(0, bounds=(0, 2**32 - 1), doc="Semilla de los vectores aleatorios.")

    @property
    def n_keys(self) -> int:
        return N_KEYS

    @property
    def n_trials(self) -> int:
        """How many random queries the statistics (score deviation, mean entropies and mean
        gradients) are taken over: N_TRIALS, counted from the drawn scores."""
        return int(_unscaled_scores(self.d_k, self.seed).shape[0])

    def _stats(self, scaled: bool) -> tuple[float, float, float]:
        return _statistics(self.d_k, self.seed, scaled)

    @property
    def score_std(self) -> float:
        """Typical (standard) deviation of an unscaled score: ≈ sqrt(d_k)."""
        return self._stats(False)[0]

    @property
    def scaled_score_std(self) -> float:
        """The same after dividing by sqrt(d_k): ≈ 1 for every d_k."""
        return self._stats(True)[0]

    @property
    def entropy_unscaled(self) -> float:
        """Mean entropy (bits) of the softmax over the 8 keys, scores not scaled. Maximum: 3.

        A mean over all ``n_trials`` queries, not the one drawn as bars
        (``sample_entropy_unscaled``).
        """
        return self._stats(False)[1]

    @property
    def entropy_scaled(self) -> float:
        """Mean entropy (bits) over all ``n_trials`` queries, scores divided by sqrt(d_k)."""
        return self._stats(True)[1]

    @property
    def gradient_unscaled(self) -> float:
        """Mean Frobenius norm of the softmax Jacobian, unscaled: -> 0 as d_k grows."""
        return self._stats(False)[2]

    @property
    def gradient_scaled(self) -> float:
        return self._stats(True)[2]

    @property
    def scores_unscaled(self) -> np.ndarray:
        """The 8 scores of the first random query (the one drawn as bars)."""
        return np.array(_unscaled_scores(self.d_k, self.seed)[0])

    @property
    def weights_unscaled(self) -> np.ndarray:
        """Attention of the first random query over its 8 keys, unscaled."""
        return softmax(self.scores_unscaled)

    @property
    def weights_scaled(self) -> np.ndarray:
        return softmax(self.scores_unscaled / math.sqrt(self.d_k))

    @property
    def sample_entropy_unscaled(self) -> float:
        """Entropy (bits) of the one query drawn as bars, unscaled: of ``weights_unscaled``.

        One draw, not the mean over ``n_trials`` queries that ``entropy_unscaled`` is.
        """
        return float(entropy_bits(self.weights_unscaled))

    @property
    def sample_entropy_scaled(self) -> float:
        """Entropy (bits) of the same query after dividing by sqrt(d_k): of ``weights_scaled``."""
        return float(entropy_bits(self.weights_scaled))
