"""Claims of demo 5: "La capital de ___ es …", the eight steps computed."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnmodel import CapitalWalkthrough
from attnmodel.i18n import text

identities = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False)
countries = st.sampled_from(["Francia", "Italia"])
OTHERS = ("grande", "bonita", "antigua", "famosa", "una", "muy")


def walkthrough(identity: float, country: str = "Francia") -> CapitalWalkthrough:
    c = CapitalWalkthrough()
    c.country = country
    c.identity = identity
    return c


def test_defaults_are_francia_at_090():
    c = CapitalWalkthrough()
    assert c.country == "Francia"
    assert c.identity == 0.90
    assert c.tokens == ["La", "capital", "de", "Francia", "es"]


def test_default_forward_pass_matches_the_hand_computation():
    """Francia at +0,90, step by step with scalars (the appendix's numbers): position adds
    (sin t, cos t) to "lugar" and "función"; "es" asks with q = 12 · función(es); keys are
    "lugar"; scores q · k / √3; values are the whole vectors."""
    rows = [(0.0, 1.0, 0.0), (1.0, 0.5, 0.0), (0.0, 1.0, 0.0), (2.0, 0.0, 0.90), (0.0, 1.0, 0.0)]
    x = [(lugar + math.sin(t), funcion + math.cos(t), ident) for t, (lugar, funcion, ident) in
         enumerate(rows)]  # fmt: skip
    q = 12.0 * x[4][1]
    scores = [q * xt[0] / math.sqrt(3.0) for xt in x]
    e = [math.exp(s - max(scores)) for s in scores]
    a = [v / sum(e) for v in e]
    z = [sum(a[t] * x[t][d] for t in range(5)) for d in range(3)]
    paris, roma = 0.5 * z[0] + 1.00 * z[2], 0.5 * z[0] - 0.61 * z[2]
    p_paris = math.exp(paris) / (math.exp(paris) + math.exp(roma) + 6.0)  # six logits of 0

    c = CapitalWalkthrough()
    np.testing.assert_allclose(c.with_position, x, rtol=0, atol=1e-12)
    np.testing.assert_allclose(c.scores, scores, rtol=1e-12)
    np.testing.assert_allclose(c.attention_row, a, rtol=1e-12)
    np.testing.assert_allclose(c.mixed, z, rtol=1e-12)
    assert c.probability == pytest.approx(p_paris, rel=1e-12)
    # The numbers the lecture prints (docs/ejemplos-trabajados.md, pasos 6–8).
    np.testing.assert_allclose(
        c.attention_row, [0.0038, 0.3151, 0.0337, 0.6468, 0.0006], rtol=0, atol=5e-5
    )
    np.testing.assert_allclose(c.mixed, [1.9953, -0.2850, 0.5821], rtol=0, atol=5e-5)
    assert round(c.probability, 4) == 0.3805


# --------------------------------------------------------------------------------------------
# "Para seguir jugando"
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("country", ["Francia", "Italia"])
def test_identity_zero_gives_paris_and_roma_exactly_equal_probability(country):
    c = walkthrough(0.0, country)
    p = c.probabilities
    assert p["París"] == p["Roma"]
    assert c.logits[0] == c.logits[1]
    assert p["París"] > p["grande"]  # both still beat the six other words


def test_identity_plus_090_gives_paris_about_038():
    c = walkthrough(0.90, "Francia")
    assert c.prediction == "París"
    assert round(c.probabilities["París"], 2) == 0.38
    assert c.probability == c.probabilities["París"]


def test_identity_minus_090_gives_roma_about_034_not_038():
    c = walkthrough(-0.90, "Italia")
    assert c.prediction == "Roma"
    p_roma = c.probabilities["Roma"]
    assert round(p_roma, 2) == 0.34
    assert round(p_roma, 2) != 0.38
    assert p_roma < walkthrough(0.90).probabilities["París"]


@given(identities, countries)
def test_attention_row_is_identical_for_every_identity_and_country(identity, country):
    reference = CapitalWalkthrough().attention_row
    c = walkthrough(identity, country)
    np.testing.assert_array_equal(c.attention_row, reference)
    np.testing.assert_array_equal(c.scores, CapitalWalkthrough().scores)


def test_attention_row_is_a_distribution_over_the_five_tokens_peaked_on_the_country():
    row = CapitalWalkthrough().attention_row
    assert row.shape == (5,)
    assert row.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.argmax(row) == 3  # "es" attends most to the country


@given(identities, countries)
def test_six_other_words_get_logit_exactly_zero(identity, country):
    c = walkthrough(identity, country)
    logits = dict(zip(c.vocabulary, c.logits, strict=True))
    for word in OTHERS:
        assert logits[word] == 0.0
    p = c.probabilities
    assert len({p[word] for word in OTHERS}) == 1


@given(identities, countries)
def test_what_changes_is_the_content_that_travels(identity, country):
    c = walkthrough(identity, country)
    # Only the identity dimension of the country token changes, and it travels with weight a_3.
    base = walkthrough(0.0, country)
    np.testing.assert_allclose(
        c.mixed - base.mixed, [0.0, 0.0, c.attention_row[3] * identity], rtol=0, atol=1e-15
    )


# --------------------------------------------------------------------------------------------
# Country and identity
# --------------------------------------------------------------------------------------------


def test_choosing_italia_sets_identity_minus_090_and_the_token():
    c = CapitalWalkthrough()
    c.country = "Italia"
    assert c.identity == -0.90
    assert c.tokens[3] == "Italia"
    assert c.prediction == "Roma"


def test_choosing_francia_sets_identity_090_and_the_token():
    c = CapitalWalkthrough()
    c.country = "Italia"
    c.identity = 0.1
    c.country = "Francia"
    assert c.identity == 0.90
    assert c.tokens[3] == "Francia"
    assert c.prediction == "París"


def test_vocabulary_has_eight_words_with_paris_and_roma():
    vocabulary = CapitalWalkthrough().vocabulary
    assert len(vocabulary) == 8
    assert len(set(vocabulary)) == 8
    assert vocabulary[:2] == ["París", "Roma"]
    assert set(OTHERS) <= set(vocabulary)


@given(identities, countries)
def test_probabilities_sum_to_one(identity, country):
    c = walkthrough(identity, country)
    assert list(c.probabilities) == c.vocabulary
    assert sum(c.probabilities.values()) == pytest.approx(1.0, abs=1e-12)
    assert c.probability_vector.sum() == pytest.approx(1.0, abs=1e-12)


@given(identities)
def test_loss_is_minus_ln_of_the_probability(identity):
    c = walkthrough(identity)
    assert c.loss == -math.log(c.probability)
    assert c.probability == max(c.probabilities.values())
    assert c.loss > 0


def test_prediction_at_identity_zero_says_tie():
    c = walkthrough(0.0)
    assert c.prediction == "París o Roma (empate)"
    # The Spanish words of the catalogue (capital.readout): the views say it in their language.
    assert text("capital.readout.tie", "en", words="París or Roma") == "París or Roma (a tie)"


def test_parameter_docs_are_the_catalogue_texts():
    assert CapitalWalkthrough.param.country.doc == text("capital.country_help")
    assert CapitalWalkthrough.param.identity.doc == text("capital.identity_help")


@given(st.floats(0.01, 1.0))
def test_prediction_follows_the_sign_of_identity(magnitude):
    assert walkthrough(magnitude).prediction == "París"
    assert walkthrough(-magnitude).prediction == "Roma"


def test_asymmetry_is_explained_by_identity_slopes():
    slopes = CapitalWalkthrough().identity_slopes
    assert set(slopes) == {"París", "Roma"}
    assert slopes["París"] > 0 > slopes["Roma"]
    assert abs(slopes["París"]) > abs(slopes["Roma"])
    # The slopes do not depend on the identity: the attention row does not.
    assert walkthrough(-0.5, "Italia").identity_slopes == slopes


@given(identities, countries)
def test_logits_are_linear_in_identity_with_the_identity_slopes(identity, country):
    c = walkthrough(identity, country)
    base = walkthrough(0.0, country).logits
    slopes = c.identity_slopes
    assert c.logits[0] == pytest.approx(base[0] + slopes["París"] * identity, abs=1e-12)
    assert c.logits[1] == pytest.approx(base[1] + slopes["Roma"] * identity, abs=1e-12)


def test_same_identity_magnitude_moves_paris_further_than_roma():
    plus, minus, zero = walkthrough(0.9).logits, walkthrough(-0.9).logits, walkthrough(0.0).logits
    gain_paris = plus[0] - zero[0]
    gain_roma = minus[1] - zero[1]
    assert gain_paris > gain_roma > 0


def test_positional_encoding_leaves_the_identity_dimension_alone():
    c = walkthrough(0.37)
    np.testing.assert_array_equal(c.positional[:, 2], 0.0)
    assert c.with_position[3, 2] == 0.37
    np.testing.assert_array_equal(c.with_position, c.embeddings + c.positional)


def test_q_k_v_are_the_projections_of_x_plus_pe():
    c = CapitalWalkthrough()
    assert c.Q.shape == c.K.shape == c.V.shape == (5, 3)
    np.testing.assert_array_equal(c.V, c.with_position)  # W_V is the identity
    np.testing.assert_array_equal(c.K[:, 1:], 0.0)  # keys see "lugar" only
    np.testing.assert_allclose(c.scores, c.Q[4] @ c.K.T / math.sqrt(3), rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        (1.5, "at most 1.0"),
        (-1.01, "at least -1.0"),
        (float("nan"), "identity"),
        (float("inf"), "at most 1.0"),
        ("x", "se esperaba un número"),
        (None, "se esperaba un número"),
    ],
)
def test_bad_identity_raises_and_keeps_the_value(bad, match):
    c = walkthrough(-0.25, "Italia")
    before = c.probabilities
    with pytest.raises(ValueError, match=match):
        c.identity = bad
    assert c.identity == -0.25
    assert c.probabilities == before


@pytest.mark.parametrize("bad", ["España", "francia", "", None])
def test_bad_country_raises_and_keeps_the_value(bad):
    c = CapitalWalkthrough()
    c.country = "Italia"
    with pytest.raises(ValueError, match="country"):
        c.country = bad
    assert c.country == "Italia"
    assert c.identity == -0.90


def test_country_given_to_the_constructor_sets_its_identity():
    assert CapitalWalkthrough(country="Italia").identity == -0.90
    assert CapitalWalkthrough(country="Italia", identity=0.2).identity == 0.2
