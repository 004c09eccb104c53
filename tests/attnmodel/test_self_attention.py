"""Claims of demo 1: self-attention on three tokens (worked example 4.2.6) and its presets."""

from __future__ import annotations

import math

import numpy as np
import pytest

from attnmodel import SelfAttention
from attnmodel.i18n import Refusal
from attnmodel.self_attention import CUSTOM, PRESETS

MATRICES = ("X", "W_Q", "W_K", "W_V")
X_426 = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
W_Q_426 = [[2.0, 1.0], [-1.0, 1.0]]
W_K_426 = [[1.0, 0.0], [0.0, 1.0]]
W_V_426 = [[1.0, 0.0], [1.0, 2.0]]
QKT_426 = [[2.0, 1.0, 3.0], [-1.0, 1.0, 0.0], [1.0, 2.0, 3.0]]


def snapshot(model: SelfAttention) -> dict[str, np.ndarray]:
    return {name: getattr(model, name).copy() for name in MATRICES}


def assert_unchanged(model: SelfAttention, before: dict[str, np.ndarray], preset: str) -> None:
    for name in MATRICES:
        np.testing.assert_array_equal(getattr(model, name), before[name])
    assert model.preset == preset


# --------------------------------------------------------------------------------------------
# Worked example 4.2.6
# --------------------------------------------------------------------------------------------


def test_defaults_are_worked_example_4_2_6():
    m = SelfAttention()
    assert m.preset == "4.2.6"
    np.testing.assert_array_equal(m.X, X_426)
    np.testing.assert_array_equal(m.W_Q, W_Q_426)
    np.testing.assert_array_equal(m.W_K, W_K_426)
    np.testing.assert_array_equal(m.W_V, W_V_426)
    assert m.causal is False
    assert m.scaled is True
    assert m.d_k == 2


def test_projections_are_x_times_w():
    m = SelfAttention()
    np.testing.assert_array_equal(m.Q, [[2.0, 1.0], [-1.0, 1.0], [1.0, 2.0]])
    np.testing.assert_array_equal(m.K, X_426)
    np.testing.assert_array_equal(m.V, [[1.0, 0.0], [1.0, 2.0], [2.0, 2.0]])


def test_qkt_of_4_2_6_matches_the_notes_and_scores_are_divided_by_sqrt_2():
    m = SelfAttention()
    np.testing.assert_array_equal(m.Q @ m.K.T, QKT_426)
    np.testing.assert_array_equal(m.scores, np.array(QKT_426) / math.sqrt(2))
    m.scaled = False
    np.testing.assert_array_equal(m.scores, QKT_426)


def test_weights_of_4_2_6_match_the_hand_computation():
    m = SelfAttention()
    row = np.exp(np.array(QKT_426[0]) / math.sqrt(2))
    np.testing.assert_allclose(m.weights[0], row / row.sum(), rtol=1e-12)
    # Rows 0 and 2 see the same three scores in different orders.
    np.testing.assert_allclose(m.weights[0], [0.284, 0.140, 0.576], atol=5e-4)


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("scaled", [True, False])
@pytest.mark.parametrize("causal", [True, False])
def test_rows_of_weights_sum_to_one_and_z_is_weights_times_v(preset, scaled, causal):
    m = SelfAttention(scaled=scaled, causal=causal)
    m.preset = preset
    np.testing.assert_allclose(m.weights.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(m.Z, m.weights @ m.V)
    assert m.Z.shape == (3, 2)


# --------------------------------------------------------------------------------------------
# "Para seguir jugando"
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_causal_mask_makes_row_of_token_1_one_zero_zero(preset):
    m = SelfAttention()
    m.preset = preset
    m.causal = True
    np.testing.assert_array_equal(m.weights[0], [1.0, 0.0, 0.0])
    # Everything right of the diagonal is masked: -inf scores, weight exactly 0.
    upper = np.triu_indices(3, k=1)
    assert np.all(np.isneginf(m.scores[upper]))
    assert np.all(m.weights[upper] == 0.0)
    # Without the mask, token 1 does look at the others.
    m.causal = False
    assert m.weights[0, 0] < 1.0


def test_large_scores_preset_without_scaling_collapses_to_one_hot_and_gradient_vanishes():
    reference = SelfAttention(scaled=False)
    m = SelfAttention(scaled=False)
    m.preset = "puntajes grandes"
    np.testing.assert_array_equal(m.X, 3.0 * np.array(X_426))
    assert np.all(m.weights.max(axis=1) > 0.99)
    assert np.all(m.gradient < 1e-3)
    assert np.all(m.gradient < reference.gradient / 100)
    # The same preset with the 1/sqrt(d_k) factor keeps over ten times more gradient alive.
    unscaled = m.gradient
    m.scaled = True
    assert np.all(unscaled < m.gradient / 10)


def test_large_scores_preset_gradient_is_the_softmax_jacobian_norm():
    m = SelfAttention()
    m.preset = "puntajes grandes"
    m.scaled = False
    for row, g in zip(m.weights, m.gradient, strict=True):
        jacobian = np.diag(row) - np.outer(row, row)
        assert g == pytest.approx(np.linalg.norm(jacobian, "fro"), abs=1e-9)


@pytest.mark.parametrize("scaled", [True, False])
def test_wk_equals_wq_preset_makes_diagonal_dominate(scaled):
    m = SelfAttention(scaled=scaled)
    m.preset = "W_K = W_Q"
    np.testing.assert_array_equal(m.W_K, m.W_Q)
    w = m.weights
    for i in range(3):
        others = np.delete(w[i], i)
        assert w[i, i] > others.max()
    # With the 4.2.6 keys it does not happen: token 1 attends most to token 3.
    m.preset = "4.2.6"
    assert np.argmax(m.weights[0]) != 0


# --------------------------------------------------------------------------------------------
# Presets and editing
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_selecting_a_preset_sets_its_matrices(preset):
    m = SelfAttention()
    m.preset = CUSTOM  # no effect on the matrices
    m.preset = preset
    for name in MATRICES:
        np.testing.assert_array_equal(getattr(m, name), PRESETS[preset][name])
    assert m.preset == preset


@pytest.mark.parametrize("preset", ["puntajes grandes", "W_K = W_Q"])
def test_preset_given_to_the_constructor_sets_its_matrices(preset):
    m = SelfAttention(preset=preset)
    for name in MATRICES:
        np.testing.assert_array_equal(getattr(m, name), PRESETS[preset][name])


def test_matrix_given_to_the_constructor_sets_preset_to_custom():
    m = SelfAttention(X=[[5.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert m.preset == CUSTOM


def test_selecting_custom_keeps_the_matrices():
    m = SelfAttention()
    before = snapshot(m)
    m.preset = CUSTOM
    for name in MATRICES:
        np.testing.assert_array_equal(getattr(m, name), before[name])


def test_set_cell_flips_preset_to_custom_and_typing_the_value_back_restores_it():
    m = SelfAttention()
    m.set_cell("W_V", 1, 1, 5)
    assert m.W_V[1, 1] == 5.0
    assert m.preset == CUSTOM
    m.set_cell("W_V", 1, 1, "2")
    assert m.preset == "4.2.6"


def test_assigning_a_matrix_flips_preset_to_custom_and_back():
    m = SelfAttention()
    m.preset = "W_K = W_Q"
    m.W_K = [[1.0, 0.0], [0.0, 1.0]]
    assert m.preset == "4.2.6"  # W_K = I is exactly the 4.2.6 preset
    m.X = [[1.0, 0.0], [0.0, 1.0], [1.0, 2.0]]
    assert m.preset == CUSTOM
    m.X = np.array(X_426) * 3
    assert m.preset == "puntajes grandes"


def test_set_cell_accepts_a_numeric_string():
    m = SelfAttention()
    m.set_cell("X", 0, 1, "1.5")
    assert m.X[0, 1] == 1.5
    assert m.preset == CUSTOM


def test_set_cell_does_not_accept_a_spanish_decimal_comma():
    m = SelfAttention()
    before = snapshot(m)
    with pytest.raises(ValueError, match="no es un número"):
        m.set_cell("X", 0, 1, "1,5")
    assert_unchanged(m, before, "4.2.6")


@pytest.mark.parametrize(
    ("value", "match"),
    [
        (float("nan"), "finitos"),
        (float("inf"), "finitos"),
        (-float("inf"), "finitos"),
        ("nan", "finitos"),
        ("1e309", "finitos"),
        (1e309, "finitos"),
        ("abc", "no es un número"),
        ("", "no es un número"),
        (None, "no es un número"),
        ([1.0, 2.0], "no es un número"),
    ],
)
@pytest.mark.parametrize("matrix", MATRICES)
def test_set_cell_rejects_bad_values_and_changes_nothing(matrix, value, match):
    m = SelfAttention()
    m.set_cell("W_V", 0, 0, 7)  # start from a custom state
    before = snapshot(m)
    with pytest.raises(ValueError, match=match):
        m.set_cell(matrix, 0, 0, value)
    assert_unchanged(m, before, CUSTOM)


@pytest.mark.parametrize(
    ("matrix", "row", "col", "match"),
    [
        ("W_Q", 2, 0, "no tiene la casilla"),
        ("X", 0, 2, "no tiene la casilla"),
        ("Y", 0, 0, "No existe"),
    ],
)
def test_set_cell_rejects_a_missing_cell_or_matrix(matrix, row, col, match):
    m = SelfAttention()
    before = snapshot(m)
    with pytest.raises(ValueError, match=match):
        m.set_cell(matrix, row, col, 1.0)
    assert_unchanged(m, before, "4.2.6")


@pytest.mark.parametrize(
    ("name", "value", "match"),
    [
        ("X", [[1.0, 0.0], [0.0, 1.0]], "se esperaba una matriz 3×2"),
        ("W_Q", [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], "se esperaba una matriz 2×2"),
        ("W_K", [1.0, 0.0], "2 dimensiones"),
        ("W_V", [[1.0, np.nan], [0.0, 1.0]], "finitos"),
        ("W_V", [[1.0, np.inf], [0.0, 1.0]], "finitos"),
        ("X", [[1.0, 0.0], [0.0, 1e309], [1.0, 1.0]], "finitos"),
        ("W_Q", [["abc", 0.0], [0.0, 1.0]], "deben ser números"),
        ("W_K", None, "2 dimensiones"),
    ],
)
def test_assigning_a_bad_matrix_raises_and_changes_nothing(name, value, match):
    m = SelfAttention()
    m.preset = "W_K = W_Q"
    before = snapshot(m)
    with pytest.raises(ValueError, match=match):
        setattr(m, name, value)
    assert_unchanged(m, before, "W_K = W_Q")


def test_assigning_a_matrix_stores_a_copy():
    m = SelfAttention()
    mine = np.array([[1.0, 2.0], [3.0, 4.0]])
    m.W_V = mine
    mine[0, 0] = 99.0
    np.testing.assert_array_equal(m.W_V, [[1.0, 2.0], [3.0, 4.0]])


def test_instances_do_not_share_matrices():
    a, b = SelfAttention(), SelfAttention()
    a.set_cell("X", 0, 0, 9)
    np.testing.assert_array_equal(b.X, X_426)
    np.testing.assert_array_equal(SelfAttention().X, X_426)


def test_editing_a_matrix_updates_the_attention():
    m = SelfAttention()
    before = m.weights.copy()
    m.set_cell("W_K", 0, 1, 3)
    assert not np.array_equal(m.weights, before)
    np.testing.assert_array_equal(m.Q @ m.K.T / math.sqrt(2), m.scores)


@pytest.mark.parametrize(("row", "col"), [(-1, 0), (0, -1), (3, 0), (0, 2)])
def test_set_cell_refuses_cells_outside_the_matrix(row, col):
    m = SelfAttention()
    before = m.X.copy()
    with pytest.raises(ValueError, match="no tiene la casilla"):
        m.set_cell("X", row, col, 5)
    np.testing.assert_array_equal(m.X, before)


@pytest.mark.parametrize(
    ("edit", "spanish", "english"),
    [
        (("Y", 0, 0, 1.0), "No existe la matriz 'Y'.", "There is no matrix 'Y'."),
        (
            ("X", 0.5, 0, 1.0),
            "X: la fila y la columna deben ser enteros.",
            "X: the row and the column must be integers.",
        ),
        (("X", 3, 0, 1.0), "X no tiene la casilla (4, 1).", "X has no cell (4, 1)."),
        (
            ("W_Q", 0, 1, "abc"),
            "W_Q[1,2]: «abc» no es un número.",
            "W_Q[1,2]: “abc” is not a number.",
        ),
        (
            ("X", 0, 0, 2e7),
            "X: cada casilla debe estar entre −1 000 000 y 1 000 000.",
            "X: every cell must lie between −1 000 000 and 1 000 000.",
        ),
    ],
)
def test_set_cell_refusals_are_said_in_spanish_and_in_english(edit, spanish, english):
    m = SelfAttention()
    before = snapshot(m)
    with pytest.raises(Refusal) as caught:
        m.set_cell(*edit)
    assert str(caught.value) == spanish
    assert caught.value.message("en") == english
    assert_unchanged(m, before, "4.2.6")
