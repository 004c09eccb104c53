"""Demo 1: self-attention on three tokens with editable matrices (worked example 4.2.6)."""

from __future__ import annotations

import operator

import numpy as np
import param

from ._params import Matrix
from .core import scaled_dot_product_attention, softmax_jacobian_norm
from .i18n import Refusal

CUSTOM = "personalizado"
MATRICES = ("X", "W_Q", "W_K", "W_V")
MAX_ABS = 1e6  # a cell bound that keeps every product finite and every number printable

# Worked example 4.2.6 (docs/ejemplos-trabajados.md): small integers so every score can be
# checked by hand: Q K^T = [[2, 1, 3], [-1, 1, 0], [1, 2, 3]], then divided by sqrt(2).
_X_426 = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
_W_Q_426 = [[2.0, 1.0], [-1.0, 1.0]]
_W_K_426 = [[1.0, 0.0], [0.0, 1.0]]
_W_V_426 = [[1.0, 0.0], [1.0, 2.0]]

PRESETS: dict[str, dict[str, list[list[float]]]] = {
    "4.2.6": {"X": _X_426, "W_Q": _W_Q_426, "W_K": _W_K_426, "W_V": _W_V_426},
    # Embeddings three times longer: every score is nine times larger, the gaps within a row
    # reach 9, and without the 1/sqrt(d_k) the softmax saturates.
    "puntajes grandes": {
        "X": [[3.0 * v for v in row] for row in _X_426],
        "W_Q": _W_Q_426,
        "W_K": _W_K_426,
        "W_V": _W_V_426,
    },
    # With W_K = W_Q the score matrix is Q Q^T; these queries satisfy q_i·q_i > q_i·q_j for
    # every j != i, so each token's largest score is with itself.
    "W_K = W_Q": {"X": _X_426, "W_Q": _W_Q_426, "W_K": _W_Q_426, "W_V": _W_V_426},
}


class SelfAttention(param.Parameterized):
    """Q = X W_Q, K = X W_K, V = X W_V, A = softmax(Q K^T / sqrt(d_k)), Z = A V."""

    X = Matrix(
        _X_426,
        shape=(3, 2),
        label_es="X",
        max_abs=MAX_ABS,
        doc="Embeddings de entrada, un token por fila (3×2).",
    )
    W_Q = Matrix(
        _W_Q_426,
        shape=(2, 2),
        label_es="W_Q",
        max_abs=MAX_ABS,
        doc="Proyección de consultas (2×2).",
    )
    W_K = Matrix(
        _W_K_426, shape=(2, 2), label_es="W_K", max_abs=MAX_ABS, doc="Proyección de llaves (2×2)."
    )
    W_V = Matrix(
        _W_V_426, shape=(2, 2), label_es="W_V", max_abs=MAX_ABS, doc="Proyección de valores (2×2)."
    )
    causal = param.Boolean(
        False, doc="Máscara causal: cada token solo mira a sí mismo y hacia atrás."
    )
    scaled = param.Boolean(True, doc="Dividir los puntajes por sqrt(d_k).")
    preset = param.Selector(
        default="4.2.6",
        objects=[*PRESETS, CUSTOM],
        doc="Conjunto de matrices de fábrica; editar una casilla lo pasa a 'personalizado'.",
    )

    def __init__(self, **params):
        matrices_given = any(name in params for name in MATRICES)
        super().__init__(**params)
        # Watchers do not run for constructor arguments: apply the same rules here.
        if matrices_given:
            self._detect_preset()
        else:
            self._apply_preset()

    @param.depends("preset", watch=True)
    def _apply_preset(self):
        if self.preset in PRESETS:
            self.param.update(**PRESETS[self.preset])

    @param.depends("X", "W_Q", "W_K", "W_V", watch=True)
    def _detect_preset(self):
        matching = next(
            (
                name
                for name, mats in PRESETS.items()
                if all(np.array_equal(getattr(self, k), v) for k, v in mats.items())
            ),
            CUSTOM,
        )
        if matching != self.preset:
            self.preset = matching

    def set_cell(self, matrix: str, row: int, col: int, value) -> None:
        """Edit one cell; a non-number, NaN or infinity raises a Refusal (a ValueError) and
        changes nothing."""
        if matrix not in MATRICES:
            raise Refusal("self_attention.no_matrix", matrix=repr(matrix))
        new = getattr(self, matrix).copy()
        try:
            row, col = operator.index(row), operator.index(col)
        except TypeError as exc:
            raise Refusal("self_attention.cell_index", matrix=matrix) from exc
        if not (0 <= row < new.shape[0] and 0 <= col < new.shape[1]):
            raise Refusal("self_attention.no_cell", matrix=matrix, row=row + 1, col=col + 1)
        try:
            if isinstance(value, (complex, np.complexfloating)):
                raise TypeError("complex")
            new[row, col] = float(value)
        except (TypeError, ValueError, OverflowError) as exc:
            raise Refusal(
                "self_attention.not_a_number", matrix=matrix, row=row + 1, col=col + 1, value=value
            ) from exc
        setattr(self, matrix, new)

    @property
    def d_k(self) -> int:
        return self.W_K.shape[1]

    @property
    def Q(self) -> np.ndarray:  # [3, 2] @ [2, 2] -> [3, 2]
        return self.X @ self.W_Q

    @property
    def K(self) -> np.ndarray:
        return self.X @ self.W_K

    @property
    def V(self) -> np.ndarray:
        return self.X @ self.W_V

    def _attention(self):
        return scaled_dot_product_attention(
            self.Q, self.K, self.V, causal=self.causal, scale=self.scaled
        )

    @property
    def scores(self) -> np.ndarray:
        """Q K^T (divided by sqrt(d_k) when ``scaled``); -inf where the causal mask hides a key."""
        return self._attention().scores

    @property
    def weights(self) -> np.ndarray:
        """A: each row is a distribution over the three tokens."""
        return self._attention().weights

    @property
    def Z(self) -> np.ndarray:
        return self._attention().output

    @property
    def gradient(self) -> np.ndarray:
        """Per row, the size of the softmax Jacobian: how much gradient reaches the scores."""
        return softmax_jacobian_norm(self.weights)
