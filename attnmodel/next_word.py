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

import functools
import unicodedata

import numpy as np
import param

from . import smollm
from ._params import RealNumber, StrictInteger
from .i18n import Refusal

__all__ = [
    "DEFAULT_PROMPT",
    "MAX_NEW_TOKENS",
    "MAX_PROMPT_CHARS",
    "MAX_PROMPT_TOKENS",
    "TOP_K_MAX",
    "NextWordDemo",
    "check_prompt",
]

DEFAULT_PROMPT = "The capital of France is"
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
    ids = smollm.tokenizer_model().tokenize(prompt).ids
    if len(ids) > MAX_PROMPT_TOKENS:
        raise Refusal("next_word.too_many_tokens", n=len(ids), max_tokens=MAX_PROMPT_TOKENS)
    return ids


class _Prompt(param.String):
    def _validate_value(self, val, allow_None):
        super()._validate_value(val, allow_None)
        check_prompt(val)


class NextWordDemo(param.Parameterized):
    """La siguiente palabra / the next word: SmolLM2-135M-Instruct on the student's prompt.

    The outputs (``tokens``, ``logits``, ``probabilities``, ``shaped``, ``generated``) are
    read-only properties computed from the parameters (and cached per prompt).
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
    new_tokens = StrictInteger(
        default=8,
        bounds=(1, MAX_NEW_TOKENS),
        doc=f"Cuántos tokens genera «Generar» (hasta {MAX_NEW_TOKENS}).",
    )

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
    def generated(self) -> tuple[smollm.Step, ...]:
        """``new_tokens`` tokens sampled after the prompt with the seed (stops at an end)."""
        return _generate(
            self.prompt, self.new_tokens, self.temperature, self.top_k, self.top_p, self.seed
        )


@functools.lru_cache(maxsize=64)
def _logits(prompt: str) -> np.ndarray:
    logits = smollm.model().next_token(smollm.model().tokenize(prompt).ids).logits
    logits.flags.writeable = False
    return logits


@functools.lru_cache(maxsize=64)
def _generate(prompt, n, temperature, top_k, top_p, seed) -> tuple[smollm.Step, ...]:
    lm = smollm.model()
    return tuple(lm.sample(lm.tokenize(prompt).ids, n, temperature, top_k, top_p, seed))
