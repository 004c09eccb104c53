"""attnmodel.next_word: the prompt's checks (hostile input refused with a message, the model
keeping its last prompt) and the distribution it shows."""

from __future__ import annotations

import numpy as np
import pytest

from attnmodel import smollm
from attnmodel.i18n import Refusal, text
from attnmodel.next_word import MAX_PROMPT_CHARS, MAX_PROMPT_TOKENS, TOP_K_MAX, NextWordDemo


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


def test_the_200_most_likely_logits_give_the_same_sampling_distribution_at_any_setting():
    # What the offline file can keep per prompt: the TOP_K_MAX largest logits and their ids.
    logits = NextWordDemo(prompt="The capital of France is").logits
    kept = np.argsort(-logits.astype(np.float64), kind="stable")[:TOP_K_MAX]
    rng = np.random.default_rng(39)
    for _ in range(25):
        t = float(rng.uniform(0.1, 3.0))
        k = int(rng.integers(1, TOP_K_MAX + 1))
        p = float(rng.uniform(0.05, 1.0))
        full = smollm.shaped(logits, t, k, p)
        partial = smollm.shaped(logits[kept], t, k, p)
        assert np.allclose(full[kept], partial, atol=1e-12)
        assert full.sum() == pytest.approx(full[kept].sum(), abs=1e-12)


@pytest.mark.parametrize("k", [0, TOP_K_MAX + 1, -5])
def test_top_k_outside_1_to_200_is_refused(k):
    demo = NextWordDemo()
    with pytest.raises(ValueError, match="top_k"):
        demo.top_k = k
    assert demo.top_k == 50
