"""Varias cabezas, varias relaciones a la vez: a hand-built multi-head attention layer.

Every token is a hand-made feature vector (part of speech, gender, number, clause, subject role)
with a sinusoidal positional encoding in its own dimensions. Each head has its own W_Q, W_K, W_V,
chosen so that its real softmax of real scores shows one recognisable relation:

1. "vecino anterior": W_Q rotates PE(pos) into PE(pos - 1), so each token attends the previous
   one; the first token has nothing before it, and PE(-1) is closest to PE(0), so it attends
   itself.
2. "sujeto–verbo": a verb looks for the subject of its own clause that agrees with it in number.
3. "pronombre → antecedente": a pronoun looks for a noun of the same gender and number, with a
   small preference for subjects.
4. "determinante → sustantivo": a determiner looks for the nearest following noun that agrees
   with it in gender and number.

W_Q, W_K and W_V are linear, so a head cannot switch its search off for tokens that lack its
relation: those tokens keep the rest of the query (clause, agreement, position) and spread their
attention; each head's description says where. With ``n_heads = h >= 2`` the first h relations get
one head each, of size d_model / h. With ``n_heads = 1`` the single head of size d_model receives
all four projections side by side, so its score is the sum of the four relations' scores and one
distribution has to choose between them: that is the point of "Por qué varias cabezas y no una
más grande".

These are illustrative patterns: in a real model such roles emerge from training and are rarely
this clean.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import param

from .core import scaled_dot_product_attention, sinusoidal_encoding
from .i18n import DEFAULT_LANG, Refusal, text

__all__ = [
    "D_MODEL",
    "FEATURE_NAMES",
    "HEAD_OPTIONS",
    "RELATIONS",
    "RELATION_DESCRIPTIONS",
    "RELATION_NAMES",
    "SENTENCES",
    "SENTENCE_IDS",
    "SENTENCE_LANG",
    "MultiHeadDemo",
]

HEAD_OPTIONS = (1, 2, 3, 4)
D_MODEL = 24  # divisible by every option in HEAD_OPTIONS
_BLOCK = D_MODEL // max(HEAD_OPTIONS)  # columns one relation needs: d_k of the smallest head

_POS_TAGS = ("sustantivo", "verbo", "pronombre", "determinante", "conjunción", "adverbio")
_CONTENT_NAMES = (
    *_POS_TAGS,
    "género (+1 masc., −1 fem.)",
    "número (+1 sing., −1 plural)",
    "cláusula (+1 principal, −1 subordinada)",
    "sujeto de su cláusula",
)
_D_PE = D_MODEL - len(_CONTENT_NAMES)  # 14 positional dims
_PE_START = len(_CONTENT_NAMES)
FEATURE_NAMES = (
    *_CONTENT_NAMES,
    *(f"PE {'sin' if i % 2 == 0 else 'cos'} {i // 2}" for i in range(_D_PE)),
)

# Column of each feature in the embedding.
_F = {name: i for i, name in enumerate(_POS_TAGS)}
_GENDER, _NUMBER, _CLAUSE, _SUBJECT = 6, 7, 8, 9
# Angular frequencies of the sinusoidal pairs: pair k lives in columns _PE_START + 2k, + 2k + 1.
_OMEGA = 1.0 / np.power(10000.0, 2 * np.arange(_D_PE // 2) / _D_PE)


class _Token(NamedTuple):
    word: str
    pos: str  # one of _POS_TAGS
    gender: int = 0  # +1 masculine, -1 feminine, 0 none
    number: int = 0  # +1 singular, -1 plural, 0 none
    clause: int = 1  # +1 main clause, -1 subordinate clause
    subject: bool = False  # subject of its own clause


def _t(word, pos, gender="", number="", clause=1, subject=False) -> _Token:
    g = {"m": 1, "f": -1, "": 0}[gender]
    n = {"sg": 1, "pl": -1, "": 0}[number]
    return _Token(word, pos, g, n, clause, subject)


# Hand annotation. "al" (a + el) counts as a determiner; "el hambre" is feminine ("mucha hambre").
_ANNOTATED = (
    (
        _t("El", "determinante", "m", "sg"),
        _t("perro", "sustantivo", "m", "sg", subject=True),
        _t("mordió", "verbo", "", "sg"),
        _t("al", "determinante", "m", "sg"),
        _t("cartero", "sustantivo", "m", "sg"),
        _t("porque", "conjunción", clause=-1),
        _t("él", "pronombre", "m", "sg", -1, subject=True),
        _t("tenía", "verbo", "", "sg", -1),
        _t("hambre", "sustantivo", "f", "sg", -1),
    ),
    (
        _t("María", "sustantivo", "f", "sg", subject=True),
        _t("dijo", "verbo", "", "sg"),
        _t("que", "conjunción", clause=-1),
        _t("ella", "pronombre", "f", "sg", -1, subject=True),
        _t("llegaría", "verbo", "", "sg", -1),
        _t("tarde", "adverbio", clause=-1),
    ),
    (
        _t("Los", "determinante", "m", "pl"),
        _t("niños", "sustantivo", "m", "pl", subject=True),
        _t("comen", "verbo", "", "pl"),
        _t("pan", "sustantivo", "m", "sg"),
        _t("porque", "conjunción", clause=-1),
        _t("ellos", "pronombre", "m", "pl", -1, subject=True),
        _t("tienen", "verbo", "", "pl", -1),
        _t("hambre", "sustantivo", "f", "sg", -1),
    ),
    (
        _t("La", "determinante", "f", "sg"),
        _t("profesora", "sustantivo", "f", "sg", subject=True),
        _t("saludó", "verbo", "", "sg"),
        _t("al", "determinante", "m", "sg"),
        _t("niño", "sustantivo", "m", "sg"),
        _t("porque", "conjunción", clause=-1),
        _t("él", "pronombre", "m", "sg", -1, subject=True),
        _t("llegó", "verbo", "", "sg", -1),
        _t("temprano", "adverbio", clause=-1),
    ),
)
_BY_TEXT = {" ".join(tok.word for tok in sent): sent for sent in _ANNOTATED}
SENTENCES = tuple(_BY_TEXT)
# The language of the sentences (their words are the model's data): a page in another language
# keeps them, marked, with a gloss of each (catalogue: multihead.gloss.<id>, by SENTENCE_IDS).
SENTENCE_LANG = "es"
SENTENCE_IDS = ("perro", "maria", "ninos", "profesora")

# The relation of each head, in order: catalogue keys multihead.relation.<id> (its name) and
# multihead.description.<id>; SINGLE_HEAD ("all") is the one head that carries the four.
RELATIONS = ("previous", "subject_verb", "pronoun", "determiner")
SINGLE_HEAD = "all"
RELATION_NAMES = tuple(text(f"multihead.relation.{r}") for r in RELATIONS)
RELATION_DESCRIPTIONS = tuple(text(f"multihead.description.{r}") for r in RELATIONS)


def _embed(tokens) -> np.ndarray:
    """Feature vector of each token, with the sinusoidal encoding in the last _D_PE columns."""
    # n tokens -> [n, d_model]
    x = np.zeros((len(tokens), D_MODEL))
    for i, tok in enumerate(tokens):
        x[i, _F[tok.pos]] = 1.0
        x[i, [_GENDER, _NUMBER, _CLAUSE, _SUBJECT]] = (
            tok.gender,
            tok.number,
            tok.clause,
            tok.subject,
        )
    x[:, _PE_START:] = sinusoidal_encoding(len(tokens), _D_PE)
    return x


def _pe_pair(k: int) -> list[int]:
    return [_PE_START + 2 * k, _PE_START + 2 * k + 1]


def _shift(omega: float, steps: int) -> np.ndarray:
    """2×2 map with [sin(ωp), cos(ωp)] @ M = [sin(ω(p + steps)), cos(ω(p + steps))]."""
    # [2] -> [2]
    a = omega * steps
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _relation_blocks() -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """W_Q, W_K, W_V columns of each relation, each [d_model, _BLOCK].

    The scores (x W_Q)(x W_K)^T of a block are the final logits: the caller folds in sqrt(d_k).
    """
    blocks = []

    # 1) previous neighbour: q = c · PE(pos - 1) on the two fastest pairs, k = PE(pos).
    wq, wk, wv = (np.zeros((D_MODEL, _BLOCK)) for _ in range(3))
    for k in range(2):
        rows, cols = _pe_pair(k), [2 * k, 2 * k + 1]
        wq[np.ix_(rows, cols)] = 6.0 * _shift(_OMEGA[k], -1)
        wk[rows, cols] = 1.0
    wv[list(_F.values()), range(len(_POS_TAGS))] = 1.0  # carries the neighbour's part of speech
    blocks.append((wq, wk, wv))

    # 2) subject–verb: verb -> subject, same clause (±1 · ±1), same number.
    wq, wk, wv = (np.zeros((D_MODEL, _BLOCK)) for _ in range(3))
    wq[_F["verbo"], 0], wk[_SUBJECT, 0] = 6.0, 1.0
    wq[_CLAUSE, 1], wk[_CLAUSE, 1] = 2.0, 1.0
    wq[_NUMBER, 2], wk[_NUMBER, 2] = 1.0, 1.0
    wv[[_F["sustantivo"], _F["pronombre"], _GENDER, _NUMBER], range(4)] = 1.0
    blocks.append((wq, wk, wv))

    # 3) pronoun -> antecedent: a noun (subjects slightly preferred), same gender and number.
    wq, wk, wv = (np.zeros((D_MODEL, _BLOCK)) for _ in range(3))
    wq[_F["pronombre"], 0], wk[_F["sustantivo"], 0], wk[_SUBJECT, 0] = 6.0, 1.0, 2.5 / 6.0
    wq[_GENDER, 1], wk[_GENDER, 1] = 2.5, 1.0
    wq[_NUMBER, 2], wk[_NUMBER, 2] = 1.5, 1.0
    wv[[_F["sustantivo"], _GENDER, _NUMBER, _SUBJECT], range(4)] = 1.0
    blocks.append((wq, wk, wv))

    # 4) determiner -> noun: a noun, same gender and number, near PE(pos + 1). The slow pair is
    #    monotone in distance over a whole sentence, so it ranks nouns by proximity.
    wq, wk, wv = (np.zeros((D_MODEL, _BLOCK)) for _ in range(3))
    wq[_F["determinante"], 0], wk[_F["sustantivo"], 0] = 6.0, 1.0
    wq[_GENDER, 1], wk[_GENDER, 1] = 2.0, 1.0
    wq[_NUMBER, 2], wk[_NUMBER, 2] = 2.0, 1.0
    rows = _pe_pair(1)
    wq[np.ix_(rows, [3, 4])] = 8.0 * _shift(_OMEGA[1], +1)
    wk[rows, [3, 4]] = 1.0
    wv[[_F["sustantivo"], _GENDER, _NUMBER], range(3)] = 1.0
    blocks.append((wq, wk, wv))
    return blocks


@lru_cache(maxsize=len(HEAD_OPTIONS))
def _projections(n_heads: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full W_Q, W_K, W_V [d_model, d_model]; head k owns columns k·d_k ... (k + 1)·d_k."""
    # h -> 3 × [d_model, d_model]
    blocks = _relation_blocks()
    d_k = D_MODEL // n_heads
    # One relation per head; with a single head all four relations share it.
    groups = [blocks] if n_heads == 1 else [[blocks[k]] for k in range(n_heads)]
    w_q, w_k, w_v = (np.zeros((D_MODEL, D_MODEL)) for _ in range(3))
    for head, group in enumerate(groups):
        start = head * d_k
        for wq, wk, wv in group:
            cols = slice(start, start + _BLOCK)
            # Attention divides by sqrt(d_k); undo it so a relation looks the same for every h.
            w_q[:, cols], w_k[:, cols], w_v[:, cols] = wq * math.sqrt(d_k), wk, wv
            start += _BLOCK
    for w in (w_q, w_k, w_v):
        w.flags.writeable = False
    return w_q, w_k, w_v


class _Layer(NamedTuple):
    x: np.ndarray  # [n, d_model]
    scores: np.ndarray  # [h, n, n]
    weights: np.ndarray  # [h, n, n]
    output: np.ndarray  # [n, d_model]


@lru_cache(maxsize=32)
def _layer(sentence: str, n_heads: int) -> _Layer:
    # sentence, h -> x [n, d_model], scores/weights [h, n, n], output [n, d_model]
    x = _embed(_BY_TEXT[sentence])
    w_q, w_k, w_v = _projections(n_heads)
    d_k = D_MODEL // n_heads
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    heads = [
        scaled_dot_product_attention(q[:, c], k[:, c], v[:, c])
        for c in (slice(h * d_k, (h + 1) * d_k) for h in range(n_heads))
    ]
    scores = np.stack([r.scores for r in heads])  # [h, n, n]
    weights = np.stack([r.weights for r in heads])  # [h, n, n]
    output = np.concatenate([r.output for r in heads], axis=1)  # [n, h · d_k] = [n, d_model]
    layer = _Layer(x, scores, weights, output)
    for array in layer:
        array.flags.writeable = False  # shared by the cache
    return layer


class _Choice(param.Selector):
    """A Selector that rejects anything outside its options: Refusal(``refusal``, value=…,
    options=…), a catalogue message."""

    __slots__ = ["refusal"]

    def __init__(self, *, refusal: str, **params):
        self.refusal = refusal
        super().__init__(**params)

    def __set__(self, obj, val):
        # A numpy scalar from a widget or an array is as good as the plain Python value.
        if isinstance(val, np.generic):
            val = val.item()
        super().__set__(obj, val)

    def _validate_value(self, value, allow_None=None):
        # `True in [1, 2]` and `2.0 in [1, 2]` hold in Python; an option must match in type too.
        valid = any(type(value) is type(obj) and value == obj for obj in self.objects)
        if not valid:
            options = ", ".join(map(str, self.objects))
            raise Refusal(self.refusal, value=repr(value), options=options)
        super()._validate_value(value, allow_None)


class _Fraction(param.Number):
    """A threshold in [0, 1], refused with a catalogue message."""

    def _validate_value(self, value, allow_None):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not (ok and 0.0 <= value <= 1.0):
            raise Refusal("multihead.bad_arc_threshold", value=repr(value))
        super()._validate_value(value, allow_None)


class MultiHeadDemo(param.Parameterized):
    """Several heads over one sentence, each with its own W_Q, W_K, W_V and its own relation.

    Every output is a read-only property recomputed from ``sentence`` and ``n_heads``.
    Illustrative patterns: in a real model these roles emerge from training and are rarely this
    clean.
    """

    sentence = _Choice(
        default=SENTENCES[0],
        objects=list(SENTENCES),
        refusal="multihead.bad_sentence",
        doc=text("multihead.sentence_doc"),
    )
    n_heads = _Choice(
        default=4,
        objects=list(HEAD_OPTIONS),
        refusal="multihead.bad_n_heads",
        doc=text("multihead.n_heads_doc"),
    )
    arc_threshold = _Fraction(
        default=0.1,
        doc=text("multihead.arc_threshold_doc"),
    )

    @property
    def tokens(self) -> list[str]:
        """The words of the sentence, in order."""
        return [tok.word for tok in _BY_TEXT[self.sentence]]

    @property
    def d_model(self) -> int:
        return D_MODEL

    @property
    def d_k(self) -> int:
        """Size of each head: d_model / n_heads."""
        return D_MODEL // self.n_heads

    def relations(self) -> list[str]:
        """The relation id of each head (RELATIONS; ``["all"]`` for a single head): its name
        and description are the catalogue's ``multihead.relation.<id>`` and
        ``multihead.description.<id>``."""
        if self.n_heads == 1:
            return [SINGLE_HEAD]
        return list(RELATIONS[: self.n_heads])

    def names(self, lang: str = DEFAULT_LANG) -> list[str]:
        """The name of each head's relation in ``lang``."""
        return [text(f"multihead.relation.{r}", lang) for r in self.relations()]

    def descriptions(self, lang: str = DEFAULT_LANG) -> list[str]:
        """What each head looks for, in ``lang``."""
        return [text(f"multihead.description.{r}", lang) for r in self.relations()]

    @property
    def head_names(self) -> list[str]:
        """The Spanish name of each head's relation (``names("es")``)."""
        return self.names()

    @property
    def head_descriptions(self) -> list[str]:
        return self.descriptions()

    @property
    def feature_names(self) -> list[str]:
        """Spanish name of each embedding dimension."""
        return list(FEATURE_NAMES)

    @property
    def embeddings(self) -> np.ndarray:
        """x = hand-made features + sinusoidal encoding in its own dims, [n, d_model]."""
        return _layer(self.sentence, self.n_heads).x

    @property
    def w_query(self) -> np.ndarray:
        """W_Q [d_model, d_model], with sqrt(d_k) folded in; head k owns columns k·d_k ..."""
        return _projections(self.n_heads)[0]

    @property
    def w_key(self) -> np.ndarray:
        return _projections(self.n_heads)[1]

    @property
    def w_value(self) -> np.ndarray:
        return _projections(self.n_heads)[2]

    @property
    def scores(self) -> np.ndarray:
        """Scaled scores Q_h K_h^T / sqrt(d_k) of each head, [h, n, n]."""
        return _layer(self.sentence, self.n_heads).scores

    @property
    def weights(self) -> np.ndarray:
        """Attention weights of each head, [h, n, n]; row i is query token i, each row sums to 1."""
        return _layer(self.sentence, self.n_heads).weights

    @property
    def combined(self) -> np.ndarray:
        """Suma de todas las cabezas, dividida por h para que cada fila siga sumando 1, [n, n]."""
        # [h, n, n] -> [n, n]
        return self.weights.mean(axis=0)

    @property
    def output(self) -> np.ndarray:
        """What the next layer receives: the heads' outputs concatenated, [n, d_model]."""
        return _layer(self.sentence, self.n_heads).output

    def arcs(self, head: int, threshold: float | None = None) -> list[tuple[int, int, float]]:
        """(i, j, α_ij) from query token i to attended token j, for every α_ij >= threshold.

        ``threshold`` defaults to ``arc_threshold``. Self-attention (i == j) is included.
        """
        # head -> [(i, j, alpha_ij)]
        if isinstance(head, bool) or not isinstance(head, (int, np.integer)):
            raise Refusal("multihead.head_not_integer", value=repr(head))
        if not 0 <= head < self.n_heads:
            raise Refusal(
                "multihead.no_such_head", head=head, count=self.n_heads, last=self.n_heads - 1
            )
        if threshold is None:
            threshold = self.arc_threshold
        elif isinstance(threshold, bool) or not (
            isinstance(threshold, (int, float)) and 0.0 <= threshold <= 1.0
        ):
            raise Refusal("multihead.bad_threshold", value=repr(threshold))
        w = self.weights[head]
        return [
            (int(i), int(j), float(w[i, j]))
            for i, j in zip(*np.nonzero(w >= threshold), strict=True)
        ]
