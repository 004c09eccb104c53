"""Claims of "Varias cabezas, varias relaciones a la vez", checked on the real softmax weights."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnmodel.core import multi_head_attention
from attnmodel.i18n import Refusal, catalogue, text
from attnmodel.multihead import (
    HEAD_OPTIONS,
    RELATIONS,
    SENTENCE_IDS,
    SENTENCES,
    MultiHeadDemo,
)

# The heads' names, as the model gives them (Spanish, from the catalogue).
PREVIOUS, SUBJECT_VERB, PRONOUN, DETERMINER = (text(f"multihead.relation.{r}") for r in RELATIONS)

# Gold relations, annotated independently of the model's features: query index -> target index.
GOLD = {
    "El perro mordió al cartero porque él tenía hambre": {
        SUBJECT_VERB: {2: 1, 7: 6},
        PRONOUN: {6: 1},
        DETERMINER: {0: 1, 3: 4},
    },
    "María dijo que ella llegaría tarde": {
        SUBJECT_VERB: {1: 0, 4: 3},
        PRONOUN: {3: 0},
        DETERMINER: {},
    },
    "Los niños comen pan porque ellos tienen hambre": {
        SUBJECT_VERB: {2: 1, 6: 5},
        PRONOUN: {5: 1},
        DETERMINER: {0: 1},
    },
    "La profesora saludó al niño porque él llegó temprano": {
        SUBJECT_VERB: {2: 1, 7: 6},
        PRONOUN: {6: 4},
        DETERMINER: {0: 1, 3: 4},
    },
}
MULTI = [h for h in HEAD_OPTIONS if h >= 2]


def model(sentence: str, n_heads: int) -> MultiHeadDemo:
    return MultiHeadDemo(sentence=sentence, n_heads=n_heads)


def head_weights(m: MultiHeadDemo, name: str) -> np.ndarray:
    return m.weights[m.head_names.index(name)]


def assert_head_follows_gold(sentence: str, n_heads: int, name: str, what: str) -> None:
    """In head ``name``, each annotated token of GOLD attends most to its partner; the sentence
    has at least one such token (``what``)."""
    w = head_weights(model(sentence, n_heads), name)
    gold = GOLD[sentence][name]
    assert gold, f"every sentence has {what}"
    for i, j in gold.items():
        assert w[i].argmax() == j


def test_offers_three_or_four_annotated_sentences_of_six_to_ten_tokens():
    assert 3 <= len(SENTENCES) <= 4
    assert set(GOLD) == set(SENTENCES)
    for sentence in SENTENCES:
        assert 6 <= len(model(sentence, 4).tokens) <= 10


def test_default_is_first_sentence_with_at_least_three_heads():
    m = MultiHeadDemo()
    assert m.sentence == SENTENCES[0]
    assert m.n_heads >= 3
    assert m.tokens == SENTENCES[0].split()


@pytest.mark.parametrize("n_heads", MULTI)
@pytest.mark.parametrize("sentence", SENTENCES)
def test_previous_neighbour_head_attends_previous_token_above_half(sentence, n_heads):
    w = head_weights(model(sentence, n_heads), PREVIOUS)
    for i in range(1, w.shape[0]):
        assert w[i].argmax() == i - 1
        assert w[i, i - 1] > 0.5


@pytest.mark.parametrize("sentence", SENTENCES)
def test_previous_neighbour_head_first_token_attends_itself(sentence):
    w = head_weights(model(sentence, 4), PREVIOUS)
    assert w[0].argmax() == 0
    assert w[0, 0] > 0.5


@pytest.mark.parametrize("n_heads", MULTI)
@pytest.mark.parametrize("sentence", SENTENCES)
def test_subject_verb_head_verb_attends_its_subject(sentence, n_heads):
    assert_head_follows_gold(sentence, n_heads, SUBJECT_VERB, "verbs")


@pytest.mark.parametrize("n_heads", [h for h in MULTI if h >= 3])
@pytest.mark.parametrize("sentence", SENTENCES)
def test_pronoun_head_pronoun_attends_its_antecedent(sentence, n_heads):
    assert_head_follows_gold(sentence, n_heads, PRONOUN, "a pronoun")


@pytest.mark.parametrize("sentence", SENTENCES)
def test_determiner_head_determiner_attends_its_noun(sentence):
    w = head_weights(model(sentence, 4), DETERMINER)
    for determiner, noun in GOLD[sentence][DETERMINER].items():
        assert w[determiner].argmax() == noun


@pytest.mark.parametrize("sentence", SENTENCES)
def test_relation_heads_are_confident_on_their_relation_tokens(sentence):
    m = model(sentence, 4)
    for name, pairs in GOLD[sentence].items():
        w = head_weights(m, name)
        for i, j in pairs.items():
            assert w[i, j] > 0.5, (name, m.tokens[i], m.tokens[j])


@pytest.mark.parametrize("sentence", SENTENCES)
def test_verb_less_tokens_spread_attention_in_subject_verb_head(sentence):
    m = model(sentence, 4)
    w = head_weights(m, SUBJECT_VERB)
    others = [i for i in range(len(m.tokens)) if i not in GOLD[sentence][SUBJECT_VERB]]
    # No non-verb locks onto a single token the way verbs do.
    assert all(w[i].max() < 0.9 for i in others)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_single_head_must_choose_verbs_keep_subject_pronouns_lose_antecedent(sentence):
    m = model(sentence, 1)
    assert m.weights.shape[0] == 1
    w = m.weights[0]
    for verb, subject in GOLD[sentence][SUBJECT_VERB].items():
        assert w[verb].argmax() == subject
    for pronoun, antecedent in GOLD[sentence][PRONOUN].items():
        assert w[pronoun].argmax() != antecedent
    for determiner, noun in GOLD[sentence][DETERMINER].items():
        assert w[determiner].argmax() != noun


@pytest.mark.parametrize("n_heads", HEAD_OPTIONS)
@pytest.mark.parametrize("sentence", SENTENCES)
def test_weights_have_shape_heads_by_tokens_by_tokens_and_rows_sum_to_one(sentence, n_heads):
    m = model(sentence, n_heads)
    n = len(m.tokens)
    assert m.weights.shape == (n_heads, n, n)
    np.testing.assert_allclose(m.weights.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all(m.weights >= 0)


@pytest.mark.parametrize("n_heads", HEAD_OPTIONS)
def test_d_k_is_d_model_divided_by_heads(n_heads):
    m = model(SENTENCES[0], n_heads)
    assert m.d_model % n_heads == 0
    assert m.d_k == m.d_model // n_heads
    assert m.d_k * n_heads == m.d_model


@pytest.mark.parametrize("n_heads", HEAD_OPTIONS)
@pytest.mark.parametrize("sentence", SENTENCES)
def test_combined_is_mean_of_heads_and_rows_sum_to_one(sentence, n_heads):
    m = model(sentence, n_heads)
    n = len(m.tokens)
    assert m.combined.shape == (n, n)
    np.testing.assert_allclose(m.combined, m.weights.sum(axis=0) / n_heads, atol=1e-15)
    np.testing.assert_allclose(m.combined.sum(axis=-1), 1.0, atol=1e-12)


@pytest.mark.parametrize("n_heads", HEAD_OPTIONS)
@pytest.mark.parametrize("sentence", SENTENCES)
def test_output_matches_core_multi_head_attention(sentence, n_heads):
    m = model(sentence, n_heads)
    weights, output = multi_head_attention(m.embeddings, m.w_query, m.w_key, m.w_value, n_heads)
    assert m.output.shape == (len(m.tokens), m.d_model)
    np.testing.assert_allclose(m.weights, weights, atol=1e-12)
    np.testing.assert_allclose(m.output, output, atol=1e-12)


def test_each_head_owns_its_own_projection_columns():
    m = model(SENTENCES[0], 4)
    for w in (m.w_query, m.w_key, m.w_value):
        assert w.shape == (m.d_model, m.d_model)
        blocks = [w[:, h * m.d_k : (h + 1) * m.d_k] for h in range(4)]
        # Each head's slice is non-zero and differs from every other head's slice.
        assert all(np.any(b) for b in blocks)
        assert all(not np.array_equal(a, b) for k, a in enumerate(blocks) for b in blocks[k + 1 :])


def test_embeddings_keep_position_in_its_own_dims():
    m = model(SENTENCES[0], 4)
    assert m.embeddings.shape == (len(m.tokens), m.d_model)
    assert len(m.feature_names) == m.d_model
    pe_cols = [k for k, name in enumerate(m.feature_names) if name.startswith("PE")]
    content = np.delete(m.embeddings, pe_cols, axis=1)
    # The same word category in different positions has identical content features.
    assert m.tokens[0] == "El"
    assert m.tokens[3] == "al"
    np.testing.assert_array_equal(content[0], content[3])
    assert not np.array_equal(m.embeddings[0], m.embeddings[3])


def test_changing_n_heads_changes_number_of_heads():
    m = MultiHeadDemo()
    for h in HEAD_OPTIONS:
        m.n_heads = h
        assert m.weights.shape[0] == h
        assert len(m.head_names) == h
        assert len(m.head_descriptions) == h
        assert m.d_k == m.d_model // h


def test_first_heads_follow_relation_order():
    names = [PREVIOUS, SUBJECT_VERB, PRONOUN]
    for h in MULTI:
        assert model(SENTENCES[0], h).head_names[:3] == names[:h]


@pytest.mark.parametrize("bad", [0, 5, "x", 2.0, True, None, -1])
def test_invalid_n_heads_raises_and_keeps_last_valid_value(bad):
    m = MultiHeadDemo(n_heads=2)
    with pytest.raises(ValueError, match="número de cabezas"):
        m.n_heads = bad
    assert m.n_heads == 2
    assert m.weights.shape[0] == 2


def test_numpy_integer_n_heads_is_accepted_as_int():
    m = MultiHeadDemo()
    m.n_heads = np.int64(3)
    assert m.n_heads == 3
    assert type(m.n_heads) is int


@pytest.mark.parametrize("bad", ["El gato duerme", "", 3, None])
def test_invalid_sentence_raises_and_keeps_last_valid_value(bad):
    m = MultiHeadDemo(sentence=SENTENCES[1])
    with pytest.raises(ValueError, match="frase"):
        m.sentence = bad
    assert m.sentence == SENTENCES[1]


def test_invalid_constructor_arguments_raise_value_error():
    with pytest.raises(ValueError, match="número de cabezas"):
        MultiHeadDemo(n_heads=5)
    with pytest.raises(ValueError, match="frase"):
        MultiHeadDemo(sentence="no está en la lista")


@pytest.mark.parametrize("bad", [-0.1, 1.5, "x", True])
def test_invalid_arc_threshold_raises_and_keeps_last_valid_value(bad):
    m = MultiHeadDemo(arc_threshold=0.2)
    with pytest.raises(ValueError, match="entre 0 y 1"):
        m.arc_threshold = bad
    assert m.arc_threshold == 0.2


def test_arcs_list_every_weight_above_threshold_from_query_to_key():
    m = model(SENTENCES[0], 4)
    for head in range(4):
        w = m.weights[head]
        arcs = m.arcs(head, threshold=0.0)
        assert len(arcs) == w.size
        for i, j, alpha in arcs:
            assert alpha == w[i, j]
        strong = m.arcs(head)
        assert {(i, j) for i, j, _ in strong} == set(
            zip(*np.nonzero(w >= m.arc_threshold), strict=True)
        )
        assert all(alpha >= m.arc_threshold for _, _, alpha in strong)


def test_arcs_of_previous_neighbour_head_point_back_one_token():
    m = model(SENTENCES[0], 4)
    arcs = m.arcs(0, threshold=0.5)
    assert [(i, j) for i, j, _ in arcs] == [(0, 0)] + [(i, i - 1) for i in range(1, 9)]


@pytest.mark.parametrize("bad", [-1, 4, 1.0, "0", True])
def test_arcs_reject_missing_heads(bad):
    with pytest.raises(ValueError, match="cabeza"):
        model(SENTENCES[0], 4).arcs(bad)


@pytest.mark.parametrize("bad", [-0.5, 2, "x"])
def test_arcs_reject_bad_threshold(bad):
    with pytest.raises(ValueError, match="umbral"):
        model(SENTENCES[0], 4).arcs(0, threshold=bad)


def test_outputs_are_read_only():
    m = MultiHeadDemo()
    with pytest.raises(ValueError, match="read-only"):
        m.weights[0, 0, 0] = 5.0
    with pytest.raises(AttributeError):
        m.weights = np.zeros(3)


@given(sentence=st.sampled_from(SENTENCES), n_heads=st.sampled_from(HEAD_OPTIONS))
def test_any_sentence_and_head_count_gives_finite_outputs_and_unit_rows(sentence, n_heads):
    m = MultiHeadDemo(sentence=sentence, n_heads=n_heads)
    for array in (m.embeddings, m.scores, m.weights, m.combined, m.output):
        assert np.all(np.isfinite(array))
    np.testing.assert_allclose(m.weights.sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(m.combined.sum(axis=-1), 1.0, atol=1e-12)
    assert m.output.shape == (len(m.tokens), m.d_model)


# --- Languages: the heads' names and the refusals come from the catalogue ----------------------


def test_heads_are_named_in_each_language():
    m = MultiHeadDemo()
    assert m.relations() == list(RELATIONS)
    assert m.head_names == m.names("es") == [text(f"multihead.relation.{r}") for r in RELATIONS]
    assert m.names("en")[1] == text("multihead.relation.subject_verb", "en") == "subject–verb"
    assert m.descriptions("en") == [text(f"multihead.description.{r}", "en") for r in RELATIONS]
    m.n_heads = 1
    assert m.relations() == ["all"]
    assert m.names("en") == [text("multihead.relation.all", "en")]
    assert m.head_descriptions == [text("multihead.description.all")]


def test_every_sentence_has_a_gloss_in_every_language():
    assert len(SENTENCE_IDS) == len(SENTENCES)
    for sid, sentence in zip(SENTENCE_IDS, SENTENCES, strict=True):
        # In Spanish, the sentence itself; in English, a translation.
        assert text(f"multihead.gloss.{sid}") == sentence
        assert text(f"multihead.gloss.{sid}", "en") != sentence
    assert {k for k in catalogue("en") if k.startswith("multihead.gloss.")} == {
        f"multihead.gloss.{sid}" for sid in SENTENCE_IDS
    }


def test_refusals_are_said_in_english_too():
    m = MultiHeadDemo(n_heads=2)
    with pytest.raises(Refusal) as heads:
        m.n_heads = 5
    assert str(heads.value) == "número de cabezas: 5 no es válido; las opciones son 1, 2, 3, 4."
    assert heads.value.message("en") == (
        "number of heads: 5 is not valid; the options are 1, 2, 3, 4."
    )
    with pytest.raises(Refusal) as threshold:
        m.arc_threshold = 1.5
    assert threshold.value.message("en") == (
        "The arc threshold must be a number between 0 and 1, not 1.5."
    )
    with pytest.raises(Refusal) as head:
        m.arcs(3)
    assert head.value.message("en") == "Head 3 does not exist: there are 2 (0 to 1)."
    assert m.n_heads == 2
    assert m.arc_threshold == 0.1
