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


@pytest.mark.parametrize(
    ("temperature", "top_k", "top_p", "seed"),
    [(1.0, 50, 1.0, 0), (0.7, 200, 0.9, 3), (2.5, 120, 1.0, 11), (0.1, 5, 0.5, 7)],
)
def test_a_generation_draws_what_the_models_own_sampler_draws(temperature, top_k, top_p, seed):
    # SmolLM2.sample shapes the whole vocabulary's logits (smollm.shaped, smollm.draw); the
    # demo draws from each step's 200 most likely tokens (what the offline file carries).
    lm = smollm.model()
    demo = NextWordDemo(
        prompt="Once upon a time, there was a little",
        temperature=temperature,
        top_k=top_k,
        top_p=top_p,
        seed=seed,
        length=10,
    )
    path, after = demo.generation
    expected = lm.sample(demo.tokens.ids, 10, temperature, top_k, top_p, seed)
    assert [g.token for g in path] == [s.token for s in expected]
    assert [g.u for g in path] == [s.u for s in expected]
    # Each step's top: the 200 most likely after the text so far, recomputed in one pass.
    ids = list(demo.tokens.ids)
    for g in path[:3]:
        z = lm.forward(ids, last=True)[-1].astype(np.float64)
        order = np.argsort(-z, kind="stable")[:TOP_K_MAX]
        assert list(g.top.ids) == list(order)
        assert np.allclose(g.top.logits, z[order], atol=1e-4)
        assert g.top.lse == pytest.approx(np.log(np.exp(z - z.max()).sum()) + z.max(), abs=1e-4)
        ids.append(g.token)
    assert after is not None or path[-1].token in smollm.END_IDS


def test_the_same_settings_give_the_same_text_and_the_step_shows_its_draw():
    settings = {"prompt": "The capital of France is", "temperature": 0.5, "top_k": 3, "length": 6}
    demo = NextWordDemo(**settings, step=2)
    assert demo.generation == NextWordDemo(**settings).generation
    step, top = demo.shown
    path, _ = demo.generation
    assert step == 2
    assert top is path[2].top
    demo.step = 24  # past the generated tokens: the distribution after the last one
    assert demo.shown[0] == len(path)


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
