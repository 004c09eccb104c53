"""Where W_Q and W_K come from: a tiny Transformer trained by gradient descent, in numpy.

The corpus (``corpus``) is generated from the lecture's own templates:

- the fact template of "La capital": "la capital de <país> es <capital>", and the same fact
  said the other way round, "<país> tiene como capital <capital>", so that the country is not
  always at the same distance from the word that must name its capital;
- agreement: "<país> es un país", "<capital> es una ciudad" (the article after "es" agrees with
  the subject, which is at the start);
- the four sentences of the multi-head demo (``attnmodel.multihead.SENTENCES``).

Two countries' facts (``HELD_OUT``) are kept out of training: their names and capitals are in
the corpus (agreement sentences), their link is not. The model cannot guess a capital it never
saw with its country, and the page says so.

The model (``forward``): a decoder with one causal attention layer. Token embeddings ``E`` plus
sinusoidal positions (``core.sinusoidal_encoding``, fixed); ``n_heads`` heads of size
d_model / n_heads with their ``W_Q``, ``W_K``, ``W_V``; the heads' outputs concatenated and
projected by ``W_O``, added to the input (residual); unembedding ``U`` and bias ``b``. No MLP and
no LayerNorm: one layer of attention is the whole model, so what it learns is in the heads.
Loss: mean cross-entropy of each next word. Gradients written by hand (``gradients``, checked
against finite differences in tests/attnmodel/test_training.py); Adam; full batch (the corpus
is ~50 sentences). Deterministic for a seed: same seed, same loss curve, bit for bit.
"""

from __future__ import annotations

import functools
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import param

from ._params import StrictInteger, real_number
from .capital import COUNTRY_SLOT as HAND_COUNTRY
from .capital import QUERY as HAND_QUERY
from .capital import W_Q as _HAND_W_Q
from .capital import CapitalWalkthrough
from .core import sinusoidal_encoding, softmax
from .i18n import Refusal
from .multihead import SENTENCES as MULTIHEAD_SENTENCES

# The facts: country -> capital, one word each. The last two are held out of training.
FACTS = {
    "Francia": "París",
    "Italia": "Roma",
    "España": "Madrid",
    "Alemania": "Berlín",
    "Portugal": "Lisboa",
    "Grecia": "Atenas",
    "Perú": "Lima",
    "Chile": "Santiago",
    "Japón": "Tokio",
    "Colombia": "Bogotá",
    "Noruega": "Oslo",
    "Austria": "Viena",
    "Suecia": "Estocolmo",
    "Kenia": "Nairobi",
}
HELD_OUT = ("Suecia", "Kenia")
TRAINING_COUNTRIES = tuple(c for c in FACTS if c not in HELD_OUT)
PROBE = "La capital de {country} es"  # the prompt of the lecture's walkthrough
PROBE_COUNTRY = 3  # the country's position in PROBE
PAD = 0  # the padding token's index (never attended to: it only follows the real tokens)


def fact_sentences(country: str) -> list[str]:
    capital = FACTS[country]
    return [f"La capital de {country} es {capital}", f"{country} tiene como capital {capital}"]


@functools.cache
def corpus() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(training sentences, held-out sentences), in a fixed order."""
    train: list[str] = []
    for country in TRAINING_COUNTRIES:
        train += fact_sentences(country)
    for country, capital in FACTS.items():
        train += [f"{country} es un país", f"{capital} es una ciudad"]
    train += list(MULTIHEAD_SENTENCES)
    held_out = [s for c in HELD_OUT for s in fact_sentences(c)]
    return tuple(train), tuple(held_out)


def _key(word: str) -> str:
    return word.casefold()


def _vocabulary() -> tuple[str, ...]:
    """Every word of the corpus once, as first written, after the padding token."""
    train, held_out = corpus()
    seen: dict[str, str] = {}
    for sentence in train + held_out:
        for word in sentence.split():
            seen.setdefault(_key(word), word)
    return ("<pad>", *seen.values())


VOCABULARY = _vocabulary()
_INDEX = {_key(w): i for i, w in enumerate(VOCABULARY)}
MAX_TOKENS = max(len(s.split()) for part in corpus() for s in part)


def encode(sentence: str) -> list[int]:
    """Word indices of ``sentence`` (case does not matter); a Spanish ValueError (Refusal) for an
    empty sentence, an unknown word or a sentence longer than the model's positions."""
    if not isinstance(sentence, str) or not sentence.split():
        raise Refusal("training.empty")
    words = sentence.split()
    if len(words) > MAX_TOKENS:
        raise Refusal("training.too_long", n=len(words), max_tokens=MAX_TOKENS)
    unknown = [w for w in words if _key(w) not in _INDEX or _key(w) == _key(VOCABULARY[PAD])]
    if unknown:
        raise Refusal("training.unknown_word", word=unknown[0])
    return [_INDEX[_key(w)] for w in words]


def _batch(sentences: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(inputs [B, n], targets [B, n], loss mask [B, n]) of next-word prediction, padded."""
    rows = [encode(s) for s in sentences]
    n = max(len(r) for r in rows) - 1
    inputs = np.full((len(rows), n), PAD)
    targets = np.full((len(rows), n), PAD)
    mask = np.zeros((len(rows), n))
    for i, r in enumerate(rows):
        inputs[i, : len(r) - 1] = r[:-1]
        targets[i, : len(r) - 1] = r[1:]
        mask[i, : len(r) - 1] = 1.0
    return inputs, targets, mask


# ---------------------------------------------------------------------------------------------
# The model: parameters, forward pass, gradients


PARAMETERS = ("E", "W_Q", "W_K", "W_V", "W_O", "U", "b")


def init_parameters(rng: np.random.Generator, d_model: int, n_heads: int) -> dict:
    """Random parameters. W_Q and W_K start ten times smaller than the others, so that at step 0
    every head spreads its attention almost evenly: what it looks at later was learned."""
    d_head = d_model // n_heads
    v = len(VOCABULARY)
    scale = 1.0 / math.sqrt(d_model)
    return {
        "E": rng.normal(0.0, 1.0, (v, d_model)),  # [V, d]
        "W_Q": rng.normal(0.0, scale / 10, (n_heads, d_model, d_head)),  # [h, d, d_h]
        "W_K": rng.normal(0.0, scale / 10, (n_heads, d_model, d_head)),
        "W_V": rng.normal(0.0, scale, (n_heads, d_model, d_head)),
        "W_O": rng.normal(0.0, scale, (d_model, d_model)),  # [h * d_h, d]
        "U": rng.normal(0.0, scale, (d_model, v)),  # [d, V]
        "b": np.zeros(v),  # [V]
    }


@dataclass
class Forward:
    """What the backward pass needs of one forward pass."""

    tokens: np.ndarray  # [B, n]
    x0: np.ndarray  # [B, n, d]  embeddings + positions
    Q: np.ndarray  # [B, h, n, d_h]
    K: np.ndarray
    V: np.ndarray
    A: np.ndarray  # [B, h, n, n]  attention weights
    C: np.ndarray  # [B, n, d]  heads' outputs, concatenated
    x1: np.ndarray  # [B, n, d]  x0 + C W_O
    P: np.ndarray  # [B, n, V]  next-word probabilities


def forward(params: dict, tokens: np.ndarray) -> Forward:
    """The decoder on a batch of token rows (padding after the real tokens)."""
    tokens = np.asarray(tokens)
    b, n = tokens.shape
    h, d, d_head = params["W_Q"].shape
    x0 = params["E"][tokens] + sinusoidal_encoding(n, d)[None]  # [B, n, d]
    Q = np.einsum("bnd,hde->bhne", x0, params["W_Q"])  # [B, h, n, d_h]
    K = np.einsum("bnd,hde->bhne", x0, params["W_K"])
    V = np.einsum("bnd,hde->bhne", x0, params["W_V"])
    scores = Q @ K.transpose(0, 1, 3, 2) / math.sqrt(d_head)  # [B, h, n, n]
    scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    A = softmax(scores, axis=-1)
    Z = A @ V  # [B, h, n, d_h]
    C = Z.transpose(0, 2, 1, 3).reshape(b, n, h * d_head)  # [B, n, d]
    x1 = x0 + C @ params["W_O"]
    logits = x1 @ params["U"] + params["b"]  # [B, n, V]
    logits[..., PAD] = -np.inf  # padding is never a next word
    P = softmax(logits, axis=-1)
    return Forward(tokens, x0, Q, K, V, A, C, x1, P)


def loss_of(f: Forward, targets: np.ndarray, mask: np.ndarray) -> float:
    """Mean cross-entropy (nats) of the next words where ``mask`` is 1."""
    p = np.take_along_axis(f.P, targets[..., None], axis=-1)[..., 0]
    return float(-(np.log(np.maximum(p, 1e-300)) * mask).sum() / mask.sum())


def gradients(params: dict, f: Forward, targets: np.ndarray, mask: np.ndarray) -> dict:
    """d loss / d parameter for every parameter, by hand (the chain rule of ``forward``)."""
    b, n = f.tokens.shape
    h, _, d_head = params["W_Q"].shape
    dlogits = f.P.copy()
    np.put_along_axis(
        dlogits, targets[..., None], np.take_along_axis(dlogits, targets[..., None], -1) - 1.0, -1
    )
    dlogits *= (mask / mask.sum())[..., None]  # [B, n, V]
    g = {
        "U": np.einsum("bnd,bnv->dv", f.x1, dlogits),
        "b": dlogits.sum(axis=(0, 1)),
    }
    dx1 = dlogits @ params["U"].T  # [B, n, d]
    g["W_O"] = np.einsum("bnd,bne->de", f.C, dx1)
    dC = dx1 @ params["W_O"].T  # [B, n, d]
    dZ = dC.reshape(b, n, h, d_head).transpose(0, 2, 1, 3)  # [B, h, n, d_h]
    dA = dZ @ f.V.transpose(0, 1, 3, 2)  # [B, h, n, n]
    dV = f.A.transpose(0, 1, 3, 2) @ dZ
    dS = f.A * (dA - (dA * f.A).sum(axis=-1, keepdims=True)) / math.sqrt(d_head)
    dQ = dS @ f.K  # [B, h, n, d_h]
    dK = dS.transpose(0, 1, 3, 2) @ f.Q
    dx0 = dx1.copy()
    for name, dproj in (("W_Q", dQ), ("W_K", dK), ("W_V", dV)):
        g[name] = np.einsum("bnd,bhne->hde", f.x0, dproj)
        dx0 += np.einsum("bhne,hde->bnd", dproj, params[name])
    g["E"] = np.zeros_like(params["E"])
    np.add.at(g["E"], f.tokens, dx0)
    return g


class _Adam:
    """Adam (Kingma & Ba), the usual constants."""

    def __init__(self, params: dict, lr: float, beta1=0.9, beta2=0.98, eps=1e-9):
        self.lr, self.beta1, self.beta2, self.eps, self.t = lr, beta1, beta2, eps, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict, grads: dict) -> None:
        self.t += 1
        c1, c2 = 1 - self.beta1**self.t, 1 - self.beta2**self.t
        for k, g in grads.items():
            self.m[k] = self.beta1 * self.m[k] + (1 - self.beta1) * g
            self.v[k] = self.beta2 * self.v[k] + (1 - self.beta2) * g * g
            params[k] -= self.lr * (self.m[k] / c1) / (np.sqrt(self.v[k] / c2) + self.eps)


# ---------------------------------------------------------------------------------------------
# A training run


class TrainingRun(param.Parameterized):
    """One training of the tiny decoder on ``corpus()``: its loss curve, the parameters at each
    checkpoint, and what the model predicts and where it looks at any checkpoint.

    Trained on first use (or by :meth:`train`, which reports progress); a change of any setting
    starts over. Outputs are read-only properties.
    """

    seed = param.Integer(0, bounds=(0, 2**31 - 1), doc="Semilla de la inicialización.")
    steps = param.Integer(200, bounds=(1, 5000), doc="Pasos de descenso de gradiente (Adam).")
    learning_rate = param.Number(0.02, bounds=(1e-5, 1.0), doc="Tasa de aprendizaje de Adam.")
    n_heads = param.Integer(2, bounds=(1, 4), doc="Cabezas de atención de la capa.")
    d_model = param.Integer(16, bounds=(4, 64), doc="Dimensión del modelo (múltiplo de n_heads).")
    checkpoint_every = param.Integer(
        5, bounds=(1, 1000), doc="Cada cuántos pasos se guardan los parámetros."
    )

    def __init__(self, **params):
        super().__init__(**params)
        self._lock = threading.Lock()
        self._result: tuple[np.ndarray, dict[int, dict]] | None = None
        self._settings = 0  # a change of any setting: a training under way keeps nothing
        self.param.watch(self._forget, list(self.param.values().keys() - {"name"}))

    def _forget(self, *_events) -> None:
        with self._lock:
            self._result = None
            self._settings += 1

    # -- training ------------------------------------------------------------------------------

    def train(self, progress: Callable[[int, int], None] | None = None) -> TrainingRun:
        """Train now (again, if the settings changed); ``progress(step, steps)`` after each step."""
        if self.d_model % self.n_heads:
            raise Refusal("training.heads_divide", d_model=self.d_model, n_heads=self.n_heads)
        with self._lock:
            settings = self._settings
        rng = np.random.default_rng(self.seed)
        params = init_parameters(rng, self.d_model, self.n_heads)
        inputs, targets, mask = _batch(corpus()[0])
        adam = _Adam(params, self.learning_rate)
        losses = np.empty(self.steps + 1)
        kept = {0: _copy(params)}
        for step in range(self.steps):
            f = forward(params, inputs)
            losses[step] = loss_of(f, targets, mask)
            adam.step(params, gradients(params, f, targets, mask))
            done = step + 1
            if done % self.checkpoint_every == 0 or done == self.steps:
                kept[done] = _copy(params)
            if progress is not None:
                progress(done, self.steps)
        losses[self.steps] = loss_of(forward(params, inputs), targets, mask)
        losses.flags.writeable = False
        with self._lock:
            if settings == self._settings:  # else the settings changed meanwhile: not theirs
                self._result = (losses, kept)
        return self

    def _trained(self) -> tuple[np.ndarray, dict[int, dict]]:
        while True:
            with self._lock:
                result = self._result
            if result is not None:
                return result
            self.train()

    @property
    def loss_curve(self) -> np.ndarray:
        """Training loss (mean cross-entropy, nats) at steps 0 … steps."""
        return self._trained()[0]

    @property
    def checkpoints(self) -> list[int]:
        """The steps whose parameters were kept, 0 and the last included."""
        return sorted(self._trained()[1])

    @property
    def vocabulary(self) -> list[str]:
        """The words the model knows, as the corpus writes them (the padding token left out)."""
        return list(VOCABULARY[1:])

    def parameters(self, step: int | None = None) -> dict[str, np.ndarray]:
        """The parameters at a checkpoint (default: the last)."""
        kept = self._trained()[1]
        step = max(kept) if step is None else step
        if step not in kept:
            raise Refusal("training.no_checkpoint", step=step, last=max(kept))
        return kept[step]

    # -- what the model says ----------------------------------------------------------------------

    def _forward(self, prompt: str, step: int | None) -> Forward:
        return forward(self.parameters(step), np.array([encode(prompt)]))

    def predict(self, prompt: str, step: int | None = None) -> dict[str, float]:
        """Word -> probability of the next word after ``prompt`` (at ``step``)."""
        p = self._forward(prompt, step).P[0, -1]
        return {w: float(p[i]) for i, w in enumerate(VOCABULARY) if i != PAD}

    def attention(self, prompt: str, step: int | None = None) -> np.ndarray:
        """Attention weights of each head on ``prompt``: [heads, n, n], rows sum to 1."""
        return self._forward(prompt, step).A[0]

    def loss(self, sentences: Sequence[str], step: int | None = None) -> float:
        """Mean next-word cross-entropy of ``sentences`` (e.g. the held-out ones) at ``step``."""
        inputs, targets, mask = _batch(sentences)
        return loss_of(forward(self.parameters(step), inputs), targets, mask)

    def capital_probability(self, country: str, step: int | None = None) -> float:
        """p(the country's capital | "La capital de <country> es") at ``step``."""
        return self.predict(PROBE.format(country=country), step)[FACTS[country]]

    def country_attention(self, country: str, step: int | None = None) -> np.ndarray:
        """Each head's attention from "es" (the probe's last word) to the country: [heads]."""
        return self.attention(PROBE.format(country=country), step)[:, -1, PROBE_COUNTRY]

    def head_scores(self, step: int | None = None) -> list[dict[str, float]]:
        """What each head does, measured at ``step``: the share of its attention that goes
        "country" (from "es" to the country in PROBE, mean over the training countries),
        "previous" (to the word just before), "self" (to the word itself) and "first" (to the
        sentence's first word); the last three are means over every position but the first of
        the training sentences (the first can only look at itself)."""
        inputs, _, mask = _batch(corpus()[0])
        A = forward(self.parameters(step), inputs).A  # [B, h, n, n]
        later = mask[:, None, 1:]  # [B, 1, n - 1]: real positions after the first
        total = later.sum()

        def share(w: np.ndarray) -> np.ndarray:  # [B, h, n - 1] -> [h]
            return (w * later).sum(axis=(0, 2)) / total

        previous = share(np.diagonal(A, offset=-1, axis1=2, axis2=3))
        itself = share(np.diagonal(A, axis1=2, axis2=3)[..., 1:])
        first = share(A[:, :, 1:, 0])
        country = np.mean([self.country_attention(c, step) for c in TRAINING_COUNTRIES], axis=0)
        return [
            {
                "country": float(country[h]),
                "previous": float(previous[h]),
                "self": float(itself[h]),
                "first": float(first[h]),
            }
            for h in range(A.shape[1])
        ]


def _copy(params: dict) -> dict[str, np.ndarray]:
    out = {k: v.copy() for k, v in params.items()}
    for v in out.values():
        v.flags.writeable = False
    return out


# -- the lecture's demo: one trained run, read at a checkpoint for a probe -----------------------

DEFAULT_STEPS = TrainingRun.param.steps.default
CHECKPOINT_EVERY = TrainingRun.param.checkpoint_every.default
N_HEADS = TrainingRun.param.n_heads.default
# Runs kept per process (a run of the default settings: 1.04 MB of checkpoints, measured).
KEPT_RUNS = 8
_runs: dict[int, TrainingRun] = {}
_runs_lock = threading.Lock()


def trained_run(seed: int, progress: Callable[[int, int], None] | None = None) -> TrainingRun:
    """The run of ``seed`` with the default settings, trained once per process (the last
    ``KEPT_RUNS`` seeds are kept); ``progress`` as :meth:`TrainingRun.train` calls it."""
    with _runs_lock:
        run = _runs.pop(seed, None)
        if run is not None:
            _runs[seed] = run  # most recent last
            return run
    run = TrainingRun(seed=seed).train(progress)
    with _runs_lock:
        _runs[seed] = run
        while len(_runs) > KEPT_RUNS:
            del _runs[next(iter(_runs))]
    return run


def is_trained(seed: int) -> bool:
    """Whether :func:`trained_run` has ``seed`` at hand (no training needed)."""
    with _runs_lock:
        return seed in _runs


class CheckpointStep(param.Integer):
    """A training step that is a checkpoint of the default run: 0, 5, …, 200."""

    def __set__(self, obj, val):
        val = real_number(val, self.name, integer=True)
        if not 0 <= val <= DEFAULT_STEPS or val % CHECKPOINT_EVERY:
            raise Refusal("training.no_checkpoint", step=val, last=DEFAULT_STEPS)
        super().__set__(obj, val)


class TrainingDemo(param.Parameterized):
    """The section "¿De dónde salen W_Q y W_K?": the run of ``seed`` (default settings), read at
    checkpoint ``step`` on the probe "La capital de <country> es".

    Outputs (read-only): the run's loss curve; at ``step``: the probe's attention per head, the
    next-word probabilities, each head's measured role (``roles``), and the comparison of the
    head that looks most at the country with the hand-built matrices of "La capital"
    (``comparison``). The first use of a seed trains it (~3 s; :func:`trained_run`).
    """

    seed = StrictInteger(0, bounds=(0, 9999), doc="Semilla del entrenamiento que se muestra.")
    step = CheckpointStep(
        DEFAULT_STEPS,
        bounds=(0, DEFAULT_STEPS),
        doc=f"Paso de entrenamiento que se muestra (un punto guardado: múltiplo de "
        f"{CHECKPOINT_EVERY}).",
    )
    country = param.Selector(
        objects=list(FACTS), default="Francia", doc="País de la frase de prueba."
    )

    @property
    def run(self) -> TrainingRun:
        return trained_run(self.seed)

    @property
    def prompt(self) -> str:
        return PROBE.format(country=self.country)

    @property
    def tokens(self) -> list[str]:
        return self.prompt.split()

    @property
    def capital(self) -> str:
        return FACTS[self.country]

    @property
    def held_out(self) -> bool:
        """Whether the country's fact was kept out of training."""
        return self.country in HELD_OUT

    @property
    def loss_curve(self) -> np.ndarray:
        return self.run.loss_curve

    @property
    def checkpoints(self) -> list[int]:
        return self.run.checkpoints

    @property
    def loss(self) -> float:
        """The training loss at ``step`` (nats)."""
        return float(self.loss_curve[self.step])

    @property
    def attention(self) -> np.ndarray:
        """The probe's attention per head at ``step``: [heads, n, n]."""
        return self.run.attention(self.prompt, self.step)

    @property
    def probabilities(self) -> dict[str, float]:
        """Next word after the probe -> probability, at ``step``."""
        return self.run.predict(self.prompt, self.step)

    @property
    def capital_probability(self) -> float:
        return self.probabilities[self.capital]

    @property
    def prediction(self) -> str:
        """The most probable next word (the first in vocabulary order on a tie)."""
        p = self.probabilities
        return max(p, key=p.get)

    @property
    def country_attention(self) -> np.ndarray:
        """Each head's attention from "es" to the country in the probe: [heads]."""
        return self.attention[:, -1, PROBE_COUNTRY]

    @property
    def heads(self) -> list[dict[str, float]]:
        """:meth:`TrainingRun.head_scores` at ``step``."""
        return list(_head_scores(self.seed, self.step))

    @property
    def roles(self) -> list[tuple[str, float]]:
        """Each head's largest measured share: (role, share), role in ``ROLES``."""
        return [max(((r, h[r]) for r in ROLES), key=lambda rs: rs[1]) for h in self.heads]

    @property
    def country_head(self) -> int:
        """The head that looks most at the country (mean over the training countries)."""
        return int(np.argmax([h["country"] for h in self.heads]))

    @property
    def comparison(self) -> dict[str, float | int]:
        """The country head at ``step`` against the hand-built W_Q/W_K of "La capital".

        ``cosine_*``: cosine between the query of "es" and the key of the country (learned: in
        the country head, on the probe; hand-built: ``attnmodel.capital``, France at identity
        +1); ``share_*``: the attention of "es" on the country; ``concentration_*``: the
        largest cell's share of W_Q's squared weights (1 when the query reads one dimension
        only, 1 / cells when it is spread evenly); ``cells``: the learned head's W_Q cells."""
        h = self.country_head
        params = self.run.parameters(self.step)
        f = self.run._forward(self.prompt, self.step)
        q = f.Q[0, h, -1]  # [d_head]
        k = f.K[0, h]  # [n, d_head]
        learned = params["W_Q"][h]
        return {
            "head": h,
            "cosine_learned": _cosine(q, k[PROBE_COUNTRY]),
            "cosine_hand": hand_comparison()["cosine_hand"],
            "share_learned": float(f.A[0, h, -1, PROBE_COUNTRY]),
            "share_hand": hand_comparison()["share_hand"],
            "concentration_learned": _concentration(learned),
            "concentration_hand": hand_comparison()["concentration_hand"],
            "cells": int(learned.size),
        }


ROLES = ("country", "previous", "self", "first")


@functools.lru_cache(maxsize=256)
def _head_scores(seed: int, step: int) -> tuple[dict[str, float], ...]:
    """The run of ``seed``'s head scores at ``step``, once per process (a run is deterministic:
    the same whether it was kept or trained again)."""
    return tuple(trained_run(seed).head_scores(step))


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norm if norm else 0.0


def _concentration(w: np.ndarray) -> float:
    squares = np.square(w)
    total = float(squares.sum())
    return float(squares.max()) / total if total else 0.0


@functools.cache
def hand_comparison() -> dict[str, float]:
    """The hand-built side of :attr:`TrainingDemo.comparison` ("La capital", France at identity
    +1): no training needed."""
    hand = CapitalWalkthrough(country="Francia")
    return {
        "cosine_hand": _cosine(hand.Q[HAND_QUERY], hand.K[HAND_COUNTRY]),
        "share_hand": float(hand.attention_row[HAND_COUNTRY]),
        "concentration_hand": _concentration(_HAND_W_Q),
    }
