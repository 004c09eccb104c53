"""«La siguiente palabra»: a real language model (SmolLM2, attnmodel/smollm.py) predicts the
token after the student's prompt, and samples text one token at a time.

The distribution it shows is the one sampling draws from (``smollm.shaped``):

    p = softmax(z / T),  then only the top_k most likely tokens,
        then only the smallest set of most likely tokens whose probability reaches top_p,
        renormalised,

with z the model's logits for the token after the prompt and T the explorer's temperature. A
generated token is drawn from that distribution with the seed's uniform numbers
(``smollm.splitmix64``), so a seed gives the same text every time.
"""

from __future__ import annotations

import collections
import functools
import threading
import unicodedata
from typing import NamedTuple

import numpy as np
import param

from . import smollm
from ._params import RealNumber, StrictInteger
from .i18n import Refusal

__all__ = [
    "DEFAULT_PROMPT",
    "LECTURE_PROMPTS",
    "MAX_NEW_TOKENS",
    "MAX_PROMPT_CHARS",
    "MAX_PROMPT_TOKENS",
    "REPEAT_LENGTH",
    "TOP_K_MAX",
    "Generated",
    "NextWordDemo",
    "check_prompt",
    "generate",
    "measured",
    "prompt_attention",
]

DEFAULT_PROMPT = "The capital of France is"
# The lecture's prompts (a button each; the offline file carries these): a fact, a story, and
# the fact in Spanish, which this English model predicts worse.
LECTURE_PROMPTS = (
    DEFAULT_PROMPT,
    "Once upon a time, there was a little",
    "La capital de Francia es",
)
# The repeated random sequence the heads are measured on: REPEAT_LENGTH tokens, then again.
REPEAT_LENGTH = 12
REPEAT_SEED = 0
# The prompt's caps. The characters first, checked before anything is split (a forged message
# can carry megabytes); then the tokens, which bound the model's work (a forward pass of 48
# tokens) and keep a head's 48 × 48 map readable.
MAX_PROMPT_CHARS = 300
MAX_PROMPT_TOKENS = 48
MAX_NEW_TOKENS = 24
TOP_K_MAX = 200  # the offline file keeps the 200 most likely tokens of each state
# The characters a prompt may hold beyond the printable ones.
ALLOWED_CONTROLS = frozenset("\n\t")


def check_prompt(prompt: str) -> tuple[int, ...]:
    """The prompt's token ids, or a Refusal: empty, too long, a control character, or more
    tokens than the cap. Every special token of the tokenizer typed as text is its
    characters (smollm.Vocabulary.tokenize), not the control token."""
    if len(prompt) > MAX_PROMPT_CHARS:
        raise Refusal("next_word.too_many_chars", n=len(prompt), max_chars=MAX_PROMPT_CHARS)
    if not prompt.strip():
        raise Refusal("next_word.empty")
    for c in prompt:
        if c not in ALLOWED_CONTROLS and unicodedata.category(c) in ("Cc", "Cs", "Co", "Cn"):
            raise Refusal("next_word.control_character", code=f"U+{ord(c):04X}")
    try:
        ids = smollm.tokenizer_model().tokenize(prompt).ids
    except smollm.ModelMissing:
        raise Refusal("next_word.missing") from None
    if len(ids) > MAX_PROMPT_TOKENS:
        raise Refusal("next_word.too_many_tokens", n=len(ids), max_tokens=MAX_PROMPT_TOKENS)
    return ids


class _Prompt(param.String):
    """Checked when set (not the default, at import: that needs the tokenizer)."""

    def __set__(self, obj, val):
        if not isinstance(val, str):
            raise Refusal("core.expected_text", name=self.name, value=repr(val)[:80])
        check_prompt(val)
        super().__set__(obj, val)


class Generated(NamedTuple):
    """One sampled token and the distribution it was drawn from."""

    token: int
    piece: str
    u: float  # the seed's uniform number that chose it
    top: smollm.Top  # the distribution after the text before it (the prompt and earlier tokens)


class NextWordDemo(param.Parameterized):
    """La siguiente palabra / the next word: SmolLM2-135M-Instruct on the student's prompt.

    The outputs (``tokens``, ``logits``, ``probabilities``, ``shaped``, ``generation``, ``shown``,
    ``attention_map``) are read-only properties computed from the parameters (cached per text).
    """

    prompt = _Prompt(
        default=DEFAULT_PROMPT,
        doc=f"El texto que el modelo continúa (hasta {MAX_PROMPT_CHARS} caracteres y "
        f"{MAX_PROMPT_TOKENS} tokens). Es un modelo inglés: en español predice peor.",
    )
    temperature = RealNumber(
        default=1.0,
        bounds=(0.1, 3.0),
        doc="Temperatura T: divide los logits antes del softmax (la misma T del explorador).",
    )
    # Never "all": the offline file keeps the TOP_K_MAX most likely tokens of each prompt, and
    # with k ≤ TOP_K_MAX they are all sampling can draw, at any T and top-p, exactly.
    top_k = StrictInteger(
        default=50,
        bounds=(1, TOP_K_MAX),
        doc=f"Solo los k tokens más probables (de 1 a {TOP_K_MAX}).",
    )
    top_p = RealNumber(
        default=1.0,
        bounds=(0.05, 1.0),
        doc="Solo los tokens más probables cuya probabilidad sumada llega a p (1: todos).",
    )
    seed = StrictInteger(
        default=0,
        bounds=(0, 2**31 - 1),
        doc="Semilla del muestreo: la misma semilla da el mismo texto.",
    )
    length = StrictInteger(
        default=0,
        bounds=(0, MAX_NEW_TOKENS),
        doc=f"Cuántos tokens se han generado tras el texto (hasta {MAX_NEW_TOKENS}).",
    )
    step = StrictInteger(
        default=0,
        bounds=(0, MAX_NEW_TOKENS),
        doc="Qué distribución se muestra: 0, la que sigue al texto; i, la que sigue al token "
        "generado i (hasta los generados).",
    )
    layer = StrictInteger(
        default=1, bounds=(1, smollm.N_LAYERS), doc="Capa de la atención que se muestra."
    )
    head = StrictInteger(
        default=1, bounds=(1, smollm.N_HEADS), doc="Cabeza de la atención que se muestra."
    )
    sequence = param.Selector(
        objects=["prompt", "repeated"],
        default="prompt",
        doc="Sobre qué texto se muestra la atención: el del estudiante o una secuencia "
        "aleatoria repetida (donde se miden las cabezas).",
    )

    @staticmethod
    def installed() -> bool:
        """Whether the weights' package (``make`` installs it) is on this machine."""
        return smollm.installed()

    @property
    def tokens(self) -> smollm.Tokens:
        return smollm.tokenizer_model().tokenize(self.prompt)

    @property
    def logits(self) -> np.ndarray:
        """[vocab] float32: the model's logits for the token after the prompt."""
        return _logits(self.prompt)

    @property
    def probabilities(self) -> np.ndarray:
        """[vocab] float64: softmax(logits), the model's own distribution (T = 1, no cut)."""
        return smollm.shaped(self.logits)

    @property
    def shaped(self) -> np.ndarray:
        """[vocab] float64: the distribution sampling draws from, after T, top-k and top-p."""
        return smollm.shaped(self.logits, self.temperature, self.top_k, self.top_p)

    @property
    def generation(self) -> tuple[tuple[Generated, ...], smollm.Top | None]:
        """The ``length`` tokens sampled after the prompt with the seed (fewer after an end
        token), each with the distribution it was drawn from; and the distribution after
        them (None after an end token)."""
        return generate(
            self.tokens.ids, self.length, self.temperature, self.top_k, self.top_p, self.seed
        )

    @property
    def shown(self) -> tuple[int, smollm.Top | None]:
        """(the step shown, clamped to the generated ones; its distribution's top: None after
        an end token)."""
        path, after = self.generation
        step = min(self.step, len(path))
        return step, (path[step].top if step < len(path) else after)

    @property
    def attention_map(self) -> tuple[tuple[str, ...], np.ndarray]:
        """(the tokens, the chosen head's map [n, n] float32) on the chosen sequence."""
        if self.sequence == "repeated":
            tokens, maps = measured().tokens, measured().maps
        else:
            tokens, maps = self.tokens.pieces, prompt_attention(self.tokens.ids)
        return tokens, maps[self.layer - 1, self.head - 1]


# -- the model's work, cached per text ---------------------------------------------------------

TOPS_KEPT = 4096  # ~2.4 KB each: ~10 MB, every text a class visits in a lecture


class _Tops:
    """The top of the distribution after each token sequence seen (an LRU, thread-safe): the
    lecturer's text and each student's steps are computed once."""

    def __init__(self) -> None:
        self.items: collections.OrderedDict = collections.OrderedDict()
        self.lock = threading.Lock()

    def get(self, ids: tuple[int, ...]) -> smollm.Top | None:
        with self.lock:
            top = self.items.get(ids)
            if top is not None:
                self.items.move_to_end(ids)
            return top

    def put(self, ids: tuple[int, ...], top: smollm.Top) -> None:
        with self.lock:
            self.items[ids] = top
            while len(self.items) > TOPS_KEPT:
                self.items.popitem(last=False)


_TOPS = _Tops()


def _readonly(top: smollm.Top) -> smollm.Top:
    top.ids.flags.writeable = False
    top.logits.flags.writeable = False
    return top


def generate(
    prompt_ids, n, temperature, top_k, top_p, seed
) -> tuple[tuple[Generated, ...], smollm.Top | None]:
    """``n`` tokens after ``prompt_ids`` (:func:`smollm.SmolLM2.sample`'s draws, from each
    step's top: exact for top_k ≤ TOP_K_MAX), stopping after an end token; and the top of the
    distribution after them (None after an end token). Each top is the prompt's pass, then one
    step of the key/value cache per generated token, whichever text asked for it first."""
    lm = smollm.model()
    prompt = tuple(int(i) for i in prompt_ids)
    ids = list(prompt)
    cache: smollm.KVCache | None = None

    def top_here() -> smollm.Top:
        nonlocal cache
        key = tuple(ids)
        top = _TOPS.get(key)
        if top is None:
            if cache is None:
                cache = smollm.KVCache()
                logits = lm.forward(prompt, cache, last=True)[-1]
            for token in ids[cache.length :]:
                logits = lm.forward([token], cache, last=True)[-1]
            top = _readonly(smollm.top_of(logits, TOP_K_MAX))
            _TOPS.put(key, top)
        return top

    out: list[Generated] = []
    for u in smollm.splitmix64(seed, n):
        top = top_here()
        i = smollm.draw_top(smollm.shaped_top(top, temperature, top_k, top_p), u)
        token = int(top.ids[i])
        out.append(Generated(token, lm.piece(token), u, top))
        ids.append(token)
        if token in smollm.END_IDS:
            return tuple(out), None
    return tuple(out), top_here()


@functools.lru_cache(maxsize=64)
def _logits(prompt: str) -> np.ndarray:
    logits = smollm.model().next_token(smollm.model().tokenize(prompt).ids).logits
    logits.flags.writeable = False
    return logits


@functools.lru_cache(maxsize=16)
def prompt_attention(ids: tuple[int, ...]) -> np.ndarray:
    """Every head's map on ``ids``: [layers, heads, n, n] float32, rows sum to 1."""
    maps = smollm.model().attention(list(ids))
    maps.flags.writeable = False
    return maps


class Measured(NamedTuple):
    """The heads measured on a repeated random sequence (smollm.measured_heads)."""

    ids: tuple[int, ...]  # [2 · REPEAT_LENGTH]
    tokens: tuple[str, ...]
    maps: np.ndarray  # [layers, heads, n, n] float32
    previous: np.ndarray  # [layers, heads] previous-token score
    induction: np.ndarray  # [layers, heads] induction score


@functools.cache
def measured() -> Measured:
    """The previous-token and induction scores of every head, measured once per process."""
    lm = smollm.model()
    ids = tuple(int(i) for i in smollm.repeated_sequence(REPEAT_SEED, REPEAT_LENGTH))
    maps = lm.attention(list(ids))
    maps.flags.writeable = False
    previous, induction = smollm.measured_heads(maps, REPEAT_LENGTH)
    return Measured(ids, tuple(lm.piece(i) for i in ids), maps, previous, induction)
