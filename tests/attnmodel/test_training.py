"""attnmodel.training: the tiny decoder's gradients, its reproducibility and what it learns."""

from __future__ import annotations

import numpy as np
import pytest

from attnmodel.i18n import Refusal, text
from attnmodel.training import (
    CHECKPOINT_EVERY,
    DEFAULT_STEPS,
    FACTS,
    HELD_OUT,
    MAX_TOKENS,
    N_HEADS,
    PARAMETERS,
    PROBE,
    TRAINING_COUNTRIES,
    TrainingDemo,
    TrainingRun,
    _batch,
    corpus,
    encode,
    forward,
    gradients,
    init_parameters,
    loss_of,
    trained_run,
)


@pytest.fixture(scope="module")
def run():
    """The default run, trained once for the module."""
    return TrainingRun().train()


def _country_attention(run, step):
    """Each head's mean attention from "es" to the country, over the training countries."""
    return np.mean([run.country_attention(c, step) for c in TRAINING_COUNTRIES], axis=0)


# -- gradients -------------------------------------------------------------------------------


@pytest.mark.parametrize("n_heads", [1, 2])
def test_gradients_match_finite_differences(n_heads):
    rng = np.random.default_rng(7)
    params = init_parameters(rng, 6 if n_heads == 2 else 4, n_heads)
    # Larger query/key weights than at step 0, so that the attention's own gradient is tested.
    params["W_Q"] *= 10
    params["W_K"] *= 10
    inputs, targets, mask = _batch(corpus()[0][:5] + corpus()[1][:1])
    analytic = gradients(params, forward(params, inputs), targets, mask)
    eps = 1e-6
    for name in PARAMETERS:
        value = params[name]
        flat = value.reshape(-1)
        picks = rng.choice(flat.size, size=min(12, flat.size), replace=False)
        if name == "E":  # rows of words in the batch: the others have no gradient to check
            used = np.unique(inputs)
            picks = [int(w) * value.shape[1] + j for w in used[:6] for j in range(2)]
        for i in picks:
            old = flat[i]
            flat[i] = old + eps
            up = loss_of(forward(params, inputs), targets, mask)
            flat[i] = old - eps
            down = loss_of(forward(params, inputs), targets, mask)
            flat[i] = old
            numeric = (up - down) / (2 * eps)
            got = analytic[name].reshape(-1)[i]
            assert got == pytest.approx(numeric, rel=1e-5, abs=1e-8), (name, i)


# -- reproducibility -------------------------------------------------------------------------


def test_the_same_seed_gives_the_same_loss_curve_bit_for_bit(run):
    # A run of 40 steps is the default run's first 40 steps, loss for loss.
    again = TrainingRun(steps=40).train()
    assert np.array_equal(again.loss_curve, run.loss_curve[:41])
    other = TrainingRun(steps=40, seed=1).train()
    assert not np.array_equal(other.loss_curve, again.loss_curve)


def test_a_setting_changed_during_a_training_discards_it():
    r = TrainingRun(steps=4, checkpoint_every=2)
    r.train(progress=lambda step, steps: setattr(r, "seed", 9) if step == 2 else None)
    assert r._result is None  # that training was for seed 0
    assert np.array_equal(r.loss_curve, TrainingRun(steps=4, seed=9).loss_curve)


def test_a_new_setting_trains_again():
    r = TrainingRun(steps=3, checkpoint_every=2)
    first = r.loss_curve
    assert len(first) == 4
    assert r.checkpoints == [0, 2, 3]
    r.seed = 5
    assert not np.array_equal(r.loss_curve, first)


# -- what it learns --------------------------------------------------------------------------


def test_the_loss_falls_well_below_its_start(run):
    curve = run.loss_curve
    assert len(curve) == run.steps + 1
    assert curve[-1] < 0.1 * curve[0]


def test_after_training_it_names_the_capital_of_every_training_country(run):
    for country in TRAINING_COUNTRIES:
        assert run.capital_probability(country) > 0.9, country
        assert run.capital_probability(country, step=0) < 0.9, country


def test_a_head_learns_to_look_at_the_country(run):
    assert _country_attention(run, None).max() > 0.5
    # At step 0 every head spreads its attention: none looks at the country.
    assert _country_attention(run, 0).max() < 0.5


def test_each_head_s_role_is_measured(run):
    scores = run.head_scores()
    assert len(scores) == run.n_heads
    for head in scores:
        assert set(head) == {"country", "previous", "self", "first"}
        assert all(0.0 <= v <= 1.0 for v in head.values())
    country = [h["country"] for h in scores]
    np.testing.assert_allclose(country, _country_attention(run, None))
    assert max(country) > 0.5
    # Step 0: every query spreads over the words it may see, so no share is large.
    assert max(v for h in run.head_scores(0) for v in h.values()) < 0.5


def test_a_capital_never_seen_with_its_country_is_not_guessed(run):
    train, held_out = corpus()
    for country in HELD_OUT:
        assert not any(country in s and FACTS[country] in s for s in train)
        assert any(country in s for s in train)
        assert any(FACTS[country] in s for s in train)
        assert run.capital_probability(country) < 0.5
    assert run.loss(held_out) > run.loss(train)


def test_checkpoints_and_what_the_model_says(run):
    steps = run.checkpoints
    assert steps[0] == 0
    assert steps[-1] == run.steps
    prompt = PROBE.format(country="Francia")
    for step in (0, steps[len(steps) // 2], None):
        p = run.predict(prompt, step)
        assert set(p) == set(run.vocabulary)
        assert sum(p.values()) == pytest.approx(1.0)
        a = run.attention(prompt, step)
        n = len(prompt.split())
        assert a.shape == (run.n_heads, n, n)
        np.testing.assert_allclose(a.sum(axis=-1), 1.0)
        assert np.all(np.triu(a, 1) == 0)  # causal
    with pytest.raises(Refusal) as refused:
        run.predict(prompt, step=1)
    assert str(refused.value) == text("training.no_checkpoint", step=1, last=run.steps)


def test_the_kept_parameters_cannot_be_changed(run):
    with pytest.raises(ValueError, match="read-only"):
        run.parameters()["W_Q"][0, 0, 0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        run.loss_curve[0] = 0.0


# -- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prompt", "key", "values"),
    [
        ("", "training.empty", {}),
        ("   ", "training.empty", {}),
        ("La capital de Narnia es", "training.unknown_word", {"word": "Narnia"}),
        ("<pad>", "training.unknown_word", {"word": "<pad>"}),
        (" ".join(["la"] * (MAX_TOKENS + 1)), "training.too_long", {"n": MAX_TOKENS + 1}),
    ],
)
def test_a_bad_prompt_is_refused_in_spanish(run, prompt, key, values):
    if key == "training.too_long":
        values = {**values, "max_tokens": MAX_TOKENS}
    with pytest.raises(Refusal) as refused:
        run.predict(prompt)
    assert isinstance(refused.value, ValueError)
    assert str(refused.value) == text(key, **values)


def test_case_does_not_matter():
    assert encode("la CAPITAL de francia es") == encode("La capital de Francia es")


def test_heads_must_divide_d_model():
    with pytest.raises(Refusal) as refused:
        TrainingRun(d_model=10, n_heads=3).train()
    assert str(refused.value) == text("training.heads_divide", d_model=10, n_heads=3)


# -- the lecture's demo ----------------------------------------------------------------------


def test_demo_reads_the_default_run_at_its_checkpoints():
    demo = TrainingDemo()
    assert demo.checkpoints == list(range(0, DEFAULT_STEPS + 1, CHECKPOINT_EVERY))
    assert demo.step == DEFAULT_STEPS
    assert demo.loss == demo.loss_curve[DEFAULT_STEPS]
    assert demo.tokens == PROBE.format(country="Francia").split()
    assert demo.attention.shape == (N_HEADS, 5, 5)
    assert demo.capital_probability > 0.9
    assert demo.prediction == "París"
    assert trained_run(0) is demo.run  # one run per seed and process


def test_demo_refuses_a_step_that_was_not_kept_and_keeps_its_own():
    demo = TrainingDemo(step=50)
    for bad in (7, -5, DEFAULT_STEPS + CHECKPOINT_EVERY, 2.5, "10", True):
        with pytest.raises(Refusal):  # a ValueError, said in the page's language
            demo.step = bad
        assert demo.step == 50
    with pytest.raises(Refusal) as refused:
        demo.step = 7
    assert refused.value.key == "training.no_checkpoint"


def test_a_head_learns_to_look_at_the_country_and_is_named_by_it():
    start, end = TrainingDemo(step=0), TrainingDemo()
    head = end.country_head
    assert end.roles[head][0] == "country"
    assert end.roles[head][1] > 0.5
    assert end.country_attention[head] > 0.5
    assert all(role != "country" for role, _ in start.roles)
    assert max(start.country_attention) < 0.3  # ~1/5: an even spread


def test_the_comparison_with_the_hand_built_matrices():
    """What the page says: alike once trained (most of "es"'s attention on the country, a
    positive query·key cosine), unlike cell by cell (the hand-built W_Q is one cell)."""
    end, start = TrainingDemo().comparison, TrainingDemo(step=0).comparison
    assert end["cosine_hand"] == pytest.approx(1.0)
    assert end["concentration_hand"] == 1.0
    assert end["share_learned"] > 0.5 > start["share_learned"]
    assert end["cosine_learned"] > 0 > start["cosine_learned"]
    assert end["concentration_learned"] < 0.2  # spread over its cells
    assert end["cells"] == TrainingRun().parameters(0)["W_Q"][0].size


def test_a_held_out_country_gets_another_capital():
    sweden = TrainingDemo(country=HELD_OUT[0])
    assert sweden.held_out
    assert sweden.capital_probability < 0.01
    assert sweden.prediction in FACTS.values()
    assert sweden.prediction != sweden.capital
