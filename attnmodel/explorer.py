"""The toy attention explorer of the lecture's first page ("Mueve las variables").

A sentence, one query token in focus, a temperature and two switches (position, causal mask) go
in; the attention map and the mixed outputs come out. The numbers are those of one attention head
with Q = K = V = the token vectors themselves, so everything the page shows can be recomputed by
hand from :func:`attnmodel.core.trigram_vectors` and :func:`attnmodel.core.sinusoidal_encoding`.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import NamedTuple

import numpy as np
import param

from ._params import RealNumber, Sentence, StrictInteger
from .core import causal_mask, sinusoidal_encoding, softmax, trigram_vectors
from .i18n import Refusal

__all__ = [
    "DEFAULT_FOCUS",
    "DEFAULT_SENTENCE",
    "MAX_SENTENCE_CHARS",
    "MAX_TOKENS",
    "MAX_WORD_CHARS",
    "POSITION_WEIGHT",
    "SCORE_SCALE",
    "TOKEN_DIM",
    "TRIGRAM_SALT",
    "AttentionExplorer",
    "ExplorerState",
    "percentages",
]

# Spanish model data (the seed row below comes from its words): the other languages' pages keep
# it, quoted with a gloss in explorer.move of their catalogue (locales/<lang>.toml).
DEFAULT_SENTENCE = "El gato duerme porque el gato está cansado"
DEFAULT_FOCUS = 5  # the second "gato"
MAX_TOKENS = 40
# Caps on the text too (the box in the page has MAX_SENTENCE_CHARS as its length): 40 words
# of MAX_WORD_CHARS and their spaces fit.
MAX_SENTENCE_CHARS = 2000
MAX_WORD_CHARS = 48

# The four constants below were chosen (by a search over 10⁶ salts, then weight and scale) so
# that the defaults reproduce the seed's worked row: El 0, gato 39, duerme 3, porque 0, el 0,
# gato 44, está 2, cansado 11 (%), every entry within 0.3 points of the printed integer.
TOKEN_DIM = 16  # d: size of the trigram vectors and of the position code
TRIGRAM_SALT = 374255  # seed mixed into the trigram hash; picks one fixed "embedding table"
POSITION_WEIGHT = 0.51  # norm of the position vector added to each unit-norm token vector
SCORE_SCALE = 4.35  # fixed sharpness: s_ij = SCORE_SCALE · v_i · v_j (stands in for 1/sqrt(d_k))


def percentages(weights) -> np.ndarray:
    """Round ``100 · weights`` to whole percentages, halves rounded up (0.5 -> 1).

    Rows of rounded percentages need not add up to exactly 100, as on the page.
    """
    # [...] -> [...] of int
    return np.floor(100 * np.asarray(weights, dtype=float) + 0.5).astype(int)


@functools.lru_cache(maxsize=MAX_TOKENS)
def _position_vectors(n_tokens: int) -> np.ndarray:
    # Each row of the sinusoidal code has norm sqrt(d/2); rescale it to POSITION_WEIGHT so the
    # constant reads as "how loud the position is next to the word" (the word has norm 1).
    code = sinusoidal_encoding(n_tokens, TOKEN_DIM) * (POSITION_WEIGHT / math.sqrt(TOKEN_DIM / 2))
    code.flags.writeable = False
    return code


class ExplorerState(NamedTuple):
    """Everything the explorer computes for one setting of its parameters (read-only arrays)."""

    tokens: tuple[str, ...]
    vectors: np.ndarray  # [n, d], Q = K = V
    scores: np.ndarray  # [n, n], SCORE_SCALE · v_i · v_j; -inf where the causal mask hides j
    weights: np.ndarray  # [n, n], softmax(scores / T) row by row; each row sums to 1
    outputs: np.ndarray  # [n, d], weights @ vectors


# Panels re-read every output on each change; compute once per setting of the parameters.
@functools.lru_cache(maxsize=64)
def _compute(sentence: str, positional: bool, causal: bool, temperature: float) -> ExplorerState:
    tokens = tuple(sentence.split())
    n = len(tokens)
    # 1) one vector per token: its spelling (trigrams), plus where it stands (position)
    vectors = trigram_vectors(tokens, TOKEN_DIM, salt=TRIGRAM_SALT)
    if positional:
        vectors = vectors + _position_vectors(n)
    # 2) Q = K = V = vectors: score every token against every token
    scores = SCORE_SCALE * (vectors @ vectors.T)
    # 3) the causal mask hides the future; -inf becomes a weight of exactly 0
    if causal:
        scores = np.where(causal_mask(n), scores, -np.inf)
    # 4) each row becomes a 100 % budget; 5) each output is the weighted mean of the vectors
    weights = softmax(scores, axis=-1, temperature=temperature)
    outputs = weights @ vectors
    for array in (vectors, scores, weights, outputs):
        array.flags.writeable = False  # cached and shared: callers must copy before editing
    return ExplorerState(tokens, vectors, scores, weights, outputs)


class _TokenIndex(StrictInteger):
    """An integer that must point at a token of the owner's current sentence."""

    __slots__ = []

    def __set__(self, obj, val):
        # Checked before param stores anything, so a bad index leaves the last valid one.
        if isinstance(val, (bool, np.bool_)):  # param.Integer would take True as 1
            raise Refusal("explorer.focus_not_integer", value=repr(val))
        if obj is not None and isinstance(val, numbers.Integral):
            n = len(obj.sentence.split())
            if not 0 <= val < n:
                raise Refusal("explorer.focus_out_of_range", last=n - 1, n=n, value=val)
        super().__set__(obj, val)


class AttentionExplorer(param.Parameterized):
    """Explorador de atención de juguete / toy attention explorer.

    Modelo de juguete, sin red: una sola cabeza, sin proyecciones aprendidas. Cada token es un
    vector fijo construido con sus trigramas de letras (similitud ortográfica, no semántica), al
    que se suma un código de posición sinusoidal si ``positional`` está activo. No hay matrices
    W_Q, W_K, W_V: Q = K = V = ese vector. El puntaje es s_ij = SCORE_SCALE · v_i · v_j y

        atención(i, j) = exp(s_ij / T) / Σ_k exp(s_ik / T),

    con la máscara causal poniendo a 0 lo que está a la derecha de la diagonal. La salida de
    cada token es la media ponderada de los vectores con esos pesos.

    A toy with no network: one head and no learned projections (Q = K = V = the token vector,
    made of hashed letter trigrams plus an optional sinusoidal position code). The softmax,
    temperature, position and causal-mask mechanics are exactly those of a real Transformer.

    The outputs (``tokens``, ``vectors``, ``scores``, ``weights``, ``row``, ``outputs``) are
    read-only properties recomputed from the parameters (and cached per setting).
    """

    sentence = Sentence(
        default=DEFAULT_SENTENCE,
        max_tokens=MAX_TOKENS,
        max_chars=MAX_SENTENCE_CHARS,
        max_word_chars=MAX_WORD_CHARS,
        doc="Frase a analizar; los tokens son las palabras separadas por espacios "
        f"(entre 1 y {MAX_TOKENS}, de hasta {MAX_WORD_CHARS} caracteres cada una y "
        f"{MAX_SENTENCE_CHARS} en total).",
    )
    focus = _TokenIndex(
        default=DEFAULT_FOCUS,
        bounds=(0, None),
        doc="Índice del token que consulta (la fila del mapa que se detalla). "
        "Si la frase se acorta, se mueve al último token.",
    )
    temperature = RealNumber(
        default=1.0,
        bounds=(0.1, 3.0),
        doc="Temperatura T del softmax: baja = reparto tacaño (casi un solo token), "
        "alta = reparto generoso (casi uniforme).",
    )
    positional = param.Boolean(
        default=True,
        doc="Sumar a cada token su código de posición sinusoidal. Sin él, el orden de las "
        "palabras no cambia nada.",
    )
    causal = param.Boolean(
        default=False,
        doc="Máscara causal: cada token solo puede mirar hacia atrás (j ≤ i).",
    )

    def __init__(self, **params):
        # Set the sentence before the focus, so the focus is checked against the new sentence.
        sentence = params.pop("sentence", None)
        focus = params.pop("focus", None)
        super().__init__(**params)
        if sentence is not None:
            self.sentence = sentence
        if focus is not None:
            self.focus = focus

    @param.depends("sentence", watch=True)
    def _clamp_focus(self):
        n = len(self.sentence.split())
        if self.focus >= n:
            self.focus = n - 1

    @param.depends("sentence", "temperature", "positional", "causal")
    def state(self) -> ExplorerState:
        """All outputs for the current parameters, computed once per setting."""
        return _compute(
            self.sentence, bool(self.positional), bool(self.causal), float(self.temperature)
        )

    @property
    def tokens(self) -> list[str]:
        """The whitespace-separated words, with their original spelling."""
        return list(self.state().tokens)

    @property
    def vectors(self) -> np.ndarray:
        """[n, d] token vector (+ position): what Q, K and V all are."""
        return self.state().vectors

    @property
    def scores(self) -> np.ndarray:
        """[n, n] SCORE_SCALE · v_i · v_j, -inf where the causal mask hides key j."""
        return self.state().scores

    @property
    def weights(self) -> np.ndarray:
        """[n, n] attention weights; row i is how query i splits its 100 %."""
        return self.state().weights

    @property
    def row(self) -> np.ndarray:
        """[n] the focus token's row of ``weights``."""
        return self.state().weights[self.focus]

    @property
    def row_percentages(self) -> list[int]:
        """The focus row as whole percentages (halves rounded up), as the page prints it."""
        return percentages(self.row).tolist()

    @property
    def outputs(self) -> np.ndarray:
        """[n, d] weights @ vectors: each token's weighted mean of all the vectors."""
        return self.state().outputs
