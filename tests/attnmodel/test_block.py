"""attnmodel.block against a forward pass written here from the weights (numpy, Llama's
decoder as the model card describes it) and against the models' own outputs it must agree
with: the logit lens after the last layer is ``next_token``'s distribution, the tiny
Transformer's is its ``predict``."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from attnmodel import smollm, training
from attnmodel.block import DEFAULT_PROMPTS, LENS_TOP, MISSING, BlockDemo, walk_of
from attnmodel.i18n import Refusal
from attnmodel.next_word import check_prompt

PROMPT = DEFAULT_PROMPTS["smollm"]
REL = 1e-4  # float32 sums in another order


def rms(x, g):
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + 1e-5) * np.asarray(g, np.float64)


def rotate(x, positions):
    """RoPE on adjacent pairs (2i, 2i + 1), θ_i = 100000^(−2i/64): x [heads, n, 64]."""
    theta = 100_000.0 ** (-np.arange(0, 64, 2) / 64)
    angle = positions[:, None] * theta[None, :]
    cos, sin = np.cos(angle), np.sin(angle)
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    out[..., 1::2] = x[..., 0::2] * sin + x[..., 1::2] * cos
    return out


@pytest.fixture(scope="module")
def reference():
    """Every layer's parts for the prompt's last position, recomputed in float64: a dict of
    lists per layer (x entering, h, q, k, v, a, mid, h2, hidden, m, out)."""
    w = smollm.model().w
    ids = np.array(check_prompt(PROMPT))
    n = ids.size
    x = np.asarray(w["token_embd.weight"][ids], dtype=np.float64)  # [n, 576]
    positions = np.arange(n, dtype=np.float64)
    mask = np.triu(np.full((n, n), -np.inf), k=1)
    rows = []
    for layer in range(30):
        p = lambda name, layer=layer: np.asarray(w[f"blk.{layer}.{name}.weight"], np.float64)  # noqa: E731
        h = rms(x, p("attn_norm"))
        q = rotate((h @ p("attn_q").T).reshape(n, 9, 64).transpose(1, 0, 2), positions)
        k = rotate((h @ p("attn_k").T).reshape(n, 3, 64).transpose(1, 0, 2), positions)
        v = (h @ p("attn_v").T).reshape(n, 3, 64).transpose(1, 0, 2)
        heads = []
        for head in range(9):
            s = q[head] @ k[head // 3].T / 8.0 + mask
            e = np.exp(s - s.max(axis=-1, keepdims=True))
            heads.append((e / e.sum(axis=-1, keepdims=True)) @ v[head // 3])
        a = np.concatenate(heads, axis=-1) @ p("attn_output").T
        mid = x + a
        h2 = rms(mid, p("ffn_norm"))
        g = h2 @ p("ffn_gate").T
        hidden = g / (1 + np.exp(-g)) * (h2 @ p("ffn_up").T)
        m = hidden @ p("ffn_down").T
        out = mid + m
        rows.append(
            {
                "x": x[-1],
                "h": h[-1],
                "q": q[:, -1],
                "k": k[:, -1],
                "v": v[:, -1],
                "a": a[-1],
                "mid": mid[-1],
                "h2": h2[-1],
                "hidden": hidden[-1],
                "m": m[-1],
                "out": out[-1],
            }
        )
        x = out
    return rows


def lens(x):
    w = smollm.model().w
    z = rms(x, w["output_norm.weight"]) @ np.asarray(w["token_embd.weight"], np.float64).T
    e = np.exp(z - z.max())
    return z, e / e.sum()


def top(p, k=LENS_TOP):
    order = np.argsort(-p, kind="stable")[:k]
    return order, p[order]


@pytest.mark.parametrize("layer", [0, 1, 15, 29])
def test_each_part_s_norm_is_the_forward_pass_s(reference, layer):
    got = walk_of("smollm", PROMPT)["layers"][layer]
    r = reference[layer]
    expected = {
        "input": r["x"],
        "norm1": r["h"],
        "q": r["q"],
        "k": r["k"],
        "v": r["v"],
        "attention": r["a"],
        "mid": r["mid"],
        "norm2": r["h2"],
        "hidden": r["hidden"],
        "mlp": r["m"],
        "out": r["out"],
    }
    for name, vector in expected.items():
        assert got[name] == pytest.approx(np.linalg.norm(vector), rel=REL), name


@pytest.mark.parametrize("layer", [0, 9, 29])
def test_the_logit_lens_at_each_state_is_the_output_head_on_it(reference, layer):
    got = walk_of("smollm", PROMPT)["layers"][layer]
    vocab = smollm.model()
    for state, vector in (("input", "x"), ("mid", "mid"), ("out", "out")):
        z, p = lens(reference[layer][vector])
        ids, probs = top(p)
        assert got["lens"][state]["tokens"] == [vocab.piece(int(i)) for i in ids], state
        np.testing.assert_allclose(got["lens"][state]["p"], probs, rtol=1e-3, atol=1e-9)
    z, p = lens(reference[layer]["out"])
    assert got["logits"] == pytest.approx(np.linalg.norm(z), rel=REL)
    assert got["top_logit"] == pytest.approx(z.max(), rel=REL)
    assert got["probabilities"] == pytest.approx(np.linalg.norm(p), rel=REL)


def test_the_lens_after_the_last_layer_is_the_model_s_next_token():
    last = walk_of("smollm", PROMPT)["layers"][-1]["lens"]["out"]
    distribution = smollm.model().next_token(check_prompt(PROMPT)).probabilities
    ids, probs = top(distribution)
    assert last["tokens"] == [smollm.model().piece(int(i)) for i in ids]
    assert last["tokens"][0] == " Paris"
    np.testing.assert_allclose(last["p"], probs, rtol=1e-4)


def test_the_first_layer_s_input_is_the_embedding_and_each_layer_starts_where_the_last_ended():
    walk = walk_of("smollm", PROMPT)["layers"]
    ids = check_prompt(PROMPT)
    e = np.asarray(smollm.model().w["token_embd.weight"][ids[-1]], np.float64)
    assert walk[0]["input"] == pytest.approx(np.linalg.norm(e), rel=1e-6)
    for before, after in itertools.pairwise(walk):
        assert after["input"] == before["out"]
        assert after["lens"]["input"] == before["lens"]["out"]


def test_the_tiny_transformer_s_walk_is_its_forward_pass():
    prompt = DEFAULT_PROMPTS["tiny"]
    walk = walk_of("tiny", prompt)
    assert walk["shapes"] == {
        "d_model": 16,
        "heads": 2,
        "kv_heads": 2,
        "d_head": 8,
        "d_ff": None,
        "vocab": len(training.VOCABULARY),
    }
    (got,) = walk["layers"]
    run = training.trained_run(0)
    params = run.parameters(training.DEFAULT_STEPS)
    ids = [training.VOCABULARY.index(w) for w in prompt.split()]
    n, d = len(ids), 16
    position = np.arange(n)[:, None] / 10_000 ** (2 * (np.arange(d) // 2)[None, :] / d)
    pe = np.where(np.arange(d) % 2 == 0, np.sin(position), np.cos(position))
    x0 = params["E"][ids] + pe  # [n, 16]
    q = np.einsum("nd,hde->hne", x0, params["W_Q"])
    k = np.einsum("nd,hde->hne", x0, params["W_K"])
    v = np.einsum("nd,hde->hne", x0, params["W_V"])
    s = q[:, -1:] @ k.transpose(0, 2, 1) / math.sqrt(8)  # the last row: [2, 1, n]
    a = np.exp(s - s.max(axis=-1, keepdims=True))
    a /= a.sum(axis=-1, keepdims=True)
    c = (a @ v)[:, 0].reshape(-1)  # [16]
    attended = c @ params["W_O"]
    x1 = x0[-1] + attended
    z = x1 @ params["U"] + params["b"]
    words = np.delete(z, training.PAD)
    assert got["input"] == pytest.approx(np.linalg.norm(x0[-1]), rel=1e-9)
    assert got["q"] == pytest.approx(np.linalg.norm(q[:, -1]), rel=1e-9)
    assert got["k"] == pytest.approx(np.linalg.norm(k[:, -1]), rel=1e-9)
    assert got["v"] == pytest.approx(np.linalg.norm(v[:, -1]), rel=1e-9)
    assert got["attention"] == pytest.approx(np.linalg.norm(attended), rel=1e-9)
    assert got["mid"] == got["out"] == pytest.approx(np.linalg.norm(x1), rel=1e-9)
    assert got["logits"] == pytest.approx(np.linalg.norm(words), rel=1e-9)
    assert got["norm1"] is got["norm2"] is got["hidden"] is got["mlp"] is None
    # Its lens after the layer is its prediction (TrainingRun.predict).
    predicted = run.predict(prompt, training.DEFAULT_STEPS)
    best = sorted(predicted.items(), key=lambda kv: -kv[1])[:LENS_TOP]
    assert got["lens"]["out"]["tokens"] == [w for w, _ in best]
    np.testing.assert_allclose(got["lens"]["out"]["p"], [p for _, p in best], rtol=1e-9)
    assert got["lens"]["out"]["tokens"][0] == "París"


def test_the_tiny_model_lacks_the_norms_and_the_mlp():
    assert MISSING == {"smollm": (), "tiny": (2, 6, 7, 8)}
    assert BlockDemo(which="tiny").n_layers == 1


def test_choosing_a_model_sets_its_prompt_and_a_layer_it_has():
    demo = BlockDemo(layer=12)
    demo.choose("tiny")
    assert (demo.prompt, demo.layer) == ("La capital de Francia es", 1)
    demo.choose("smollm")
    assert (demo.prompt, demo.layer) == ("The capital of France is", 1)


def test_a_model_set_alone_keeps_what_it_can_read_and_replaces_the_rest():
    demo = BlockDemo(layer=12)
    demo.which = "tiny"  # "The capital of France is": not its words; no layer 12
    assert (demo.prompt, demo.layer) == ("La capital de Francia es", 1)
    demo.which = "smollm"  # a text SmolLM2 reads (Spanish, weakly): kept
    assert demo.prompt == "La capital de Francia es"
    # Built or updated with a model and a prompt, in any order: the prompt checked against it.
    assert BlockDemo(which="tiny").prompt == "La capital de Francia es"
    built = BlockDemo(prompt="La capital de Italia es", which="tiny")
    assert built.prompt == "La capital de Italia es"
    demo.param.update(which="tiny", prompt="La capital de Chile es")
    assert demo.prompt == "La capital de Chile es"


@pytest.mark.parametrize(
    ("which", "prompt", "key"),
    [
        ("smollm", "", "next_word.empty"),
        ("smollm", "a\x00b", "next_word.control_character"),
        ("smollm", "x" * 301, "next_word.too_many_chars"),
        ("smollm", "word " * 60, "next_word.too_many_tokens"),
        ("tiny", "The capital of France is", "training.unknown_word"),
        ("tiny", "", "training.empty"),
        ("smollm", 3, "block.not_text"),
    ],
)
def test_a_bad_prompt_is_refused_and_the_last_valid_one_kept(which, prompt, key):
    demo = BlockDemo(which=which)
    before = demo.prompt
    with pytest.raises(Refusal) as refused:
        demo.prompt = prompt
    assert refused.value.key == key
    assert demo.prompt == before


@pytest.mark.parametrize(("which", "layer"), [("smollm", 31), ("smollm", 0), ("tiny", 2)])
def test_a_layer_the_model_has_not_is_refused(which, layer):
    demo = BlockDemo(which=which)
    with pytest.raises(Refusal) as refused:
        demo.layer = layer
    assert refused.value.key == "block.no_layer"
    assert demo.layer == 1


@pytest.mark.parametrize("value", [1.5, True, "3", None, 11, 0])
def test_a_step_outside_1_to_10_or_not_an_integer_is_refused(value):
    demo = BlockDemo()
    with pytest.raises((ValueError, TypeError)):
        demo.step = value
    assert demo.step == 1
