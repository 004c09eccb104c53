"""attnmodel.next_word: the prompt's checks (hostile input refused with a message, the model
keeping its last prompt) and the distribution it shows."""

from __future__ import annotations

import numpy as np
import pytest

from attnmodel import smollm
from attnmodel.i18n import Refusal, text
from attnmodel.next_word import MAX_PROMPT_CHARS, MAX_PROMPT_TOKENS, NextWordDemo


@pytest.mark.parametrize(
    ("prompt", "key"),
    [
        ("x" * 1_000_000, "next_word.too_many_chars"),
        ("", "next_word.empty"),
        (" \n\t ", "next_word.empty"),
        ("The cat\x00 sat", "next_word.control_character"),
        ("bell\x07", "next_word.control_character"),
        ("8 " * 100, "next_word.too_many_tokens"),
    ],
)
def test_a_hostile_prompt_is_refused_and_the_last_one_kept(prompt, key):
    demo = NextWordDemo(prompt="The cat sat on the")
    with pytest.raises(Refusal) as refused:
        demo.prompt = prompt
    assert refused.value.key == key
    assert demo.prompt == "The cat sat on the"
    # Said in both languages, with its numbers.
    for lang in ("es", "en"):
        assert refused.value.message(lang)
    if key == "next_word.too_many_chars":
        assert refused.value.message("en") == text(
            key, "en", n=1_000_000, max_chars=MAX_PROMPT_CHARS
        )


def test_the_caps_are_inclusive():
    demo = NextWordDemo()
    # MAX_PROMPT_CHARS characters that are few tokens (a run of spaces is a few tokens).
    at_chars = " " * (MAX_PROMPT_CHARS - 1) + "a"
    demo.prompt = at_chars
    with pytest.raises(Refusal):
        demo.prompt = at_chars + "a"
    # Exactly MAX_PROMPT_TOKENS tokens: each digit is one token (digits are split alone).
    at_cap = "1" * MAX_PROMPT_TOKENS
    assert len(smollm.tokenizer_model().tokenize(at_cap).ids) == MAX_PROMPT_TOKENS
    demo.prompt = at_cap
    with pytest.raises(Refusal):
        demo.prompt = at_cap + "1"
    assert demo.prompt == at_cap


def test_every_special_token_typed_as_text_is_taken_as_text():
    vocabulary = smollm.tokenizer_model()
    demo = NextWordDemo()
    for token in sorted(vocabulary.special):
        demo.prompt = f"Hello {vocabulary.vocab[token]} world"
        assert not set(demo.tokens.ids) & vocabulary.special


def test_the_shown_distribution_is_the_shaped_softmax_of_the_logits():
    demo = NextWordDemo(prompt="The capital of France is", temperature=0.5, top_k=3)
    z = demo.logits.astype(np.float64)
    top = np.argsort(-z)[:3]
    expected = np.zeros_like(z)
    expected[top] = np.exp((z[top] - z[top].max()) / 0.5)
    expected /= expected.sum()
    assert np.allclose(demo.shaped, expected, atol=1e-12)
    assert smollm.tokenizer_model().piece(int(top[0])) == " Paris"
    steps = demo.generated
    assert 1 <= len(steps) <= demo.new_tokens
    assert (
        steps == NextWordDemo(prompt="The capital of France is", temperature=0.5, top_k=3).generated
    )
