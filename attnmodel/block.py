"""«El bloque, paso a paso» (section «La siguiente palabra»): one Transformer block walked part by
part for the last position of a prompt, in two models.

SmolLM2-135M (attnmodel/smollm.py), layer L of its 30, the last position's vector x [576]:

    1 the stream entering the layer   x                          (layer 1: the embedding E[t])
    2 norm                            h = RMSNorm(x) ⊙ g_attn    [576]
    3 Q, K, V                         q = h W_Qᵀ [9 heads × 64], k = h W_Kᵀ, v = h W_Vᵀ
                                      [3 heads × 64]
    4 attention                       a = concat_h(A_h V) W_Oᵀ   [576]
    5 + residual                      x' = x + a                 [576]
    6 norm                            h' = RMSNorm(x') ⊙ g_ffn   [576]
    7 MLP                             m = (SiLU(h' W_gateᵀ) ⊙ h' W_upᵀ) W_downᵀ, hidden [1536]
    8 + residual                      x'' = x' + m               [576]
    9 output head                     z = RMSNorm(x'') ⊙ g_out Eᵀ [49 152]
    10 softmax                        p = softmax(z)             [49 152]

Steps 9 and 10 after a layer before the last are the logit lens (nostalgebraist 2020,
``SmolLM2.lens``): the output head applied to that layer's stream as if it were the last one's;
after layer 30 they are the model's own prediction. At each state of the residual stream (1, 5,
8) the lens's top 5 tokens are shown.

The lecture's tiny Transformer (attnmodel/training.py, the training demo's default seed at its
last checkpoint) has one layer and only some of the parts: x⁰ = E[t] + PE [16], Q, K, V
[2 heads × 8], attention C W_O [16], x¹ = x⁰ + C W_O, logits x¹ U + b [65], softmax. No norm
and no MLP (steps 2, 6, 7 and 8 say so).

Pure numpy and param: no Panel. The outputs are read-only properties; the walk of a prompt is
computed once (``walk_of``, cached) and every layer and step read from it.
"""

from __future__ import annotations

import functools

import numpy as np
import param

from . import smollm, training
from ._params import StrictInteger
from .i18n import Refusal
from .next_word import DEFAULT_PROMPT, check_prompt

__all__ = [
    "DEFAULT_PROMPTS",
    "LENS_TOP",
    "MISSING",
    "MODELS",
    "N_STEPS",
    "BlockDemo",
    "walk_of",
]

MODELS = ("smollm", "tiny")
# Each model's prompt when it is chosen: SmolLM2 is English; the tiny one knows the lecture's
# Spanish words only (its probe, "La capital de Francia es").
DEFAULT_PROMPTS = {"smollm": DEFAULT_PROMPT, "tiny": training.PROBE.format(country="Francia")}
N_STEPS = 10
LENS_TOP = 5  # the logit lens's top tokens shown at each state of the residual stream
# The steps a model does not have (1-based): the tiny Transformer has no norm and no MLP.
MISSING = {"smollm": (), "tiny": (2, 6, 7, 8)}
N_LAYERS = {"smollm": smollm.N_LAYERS, "tiny": 1}


def _norm(x: np.ndarray) -> float:
    """The Euclidean norm of a vector, in float64."""
    return float(np.linalg.norm(np.asarray(x, dtype=np.float64)))


def _top(p: np.ndarray, piece) -> dict[str, list]:
    """The LENS_TOP most likely entries of ``p`` [vocab] (ties by id): their text and
    probability."""
    order = np.lexsort((np.arange(p.size), -p))[:LENS_TOP]
    return {"tokens": [piece(int(i)) for i in order], "p": [float(p[i]) for i in order]}


def _smollm_walk(prompt: str) -> dict:
    m = smollm.model()
    ids = check_prompt(prompt)
    n = len(ids)
    w = m.w
    walk = m.walk(ids)
    # Every state of the stream whose lens is shown: the embedding, then after each layer's
    # attention and after its MLP: [1 + 2 · layers, d_model], one output head for all.
    states = np.concatenate([walk.embedding[None], walk.stream[:, 1:].reshape(-1, smollm.D_MODEL)])
    h = smollm._rms_norm(states.astype(np.float32), w["output_norm.weight"])  # [61, 576]
    logits = h @ w["token_embd.weight"].T  # [61, vocab] float32
    z = logits.astype(np.float64)
    p = np.exp(z - z.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)  # [61, vocab]
    cos, sin = smollm.rope_angles(n - 1, 1)  # the last position's angles: [1, 32]
    layers = []
    for layer in range(smollm.N_LAYERS):
        pre = f"blk.{layer}."
        x = walk.stream[layer, 0]  # [576] the stream entering the layer
        mid = walk.stream[layer, 1]  # [576] after its attention
        out = walk.stream[layer, 2]  # [576] after its MLP
        h1 = smollm._rms_norm(x[None], w[pre + "attn_norm.weight"])  # [1, 576]
        q = (h1 @ w[pre + "attn_q.weight"].T).reshape(1, smollm.N_HEADS, smollm.D_HEAD)
        k = (h1 @ w[pre + "attn_k.weight"].T).reshape(1, smollm.N_KV_HEADS, smollm.D_HEAD)
        v = (h1 @ w[pre + "attn_v.weight"].T).reshape(1, smollm.N_KV_HEADS, smollm.D_HEAD)
        q = smollm.rope(q.transpose(1, 0, 2), cos, sin)  # [9, 1, 64]
        k = smollm.rope(k.transpose(1, 0, 2), cos, sin)  # [3, 1, 64]
        h2 = smollm._rms_norm(mid[None], w[pre + "ffn_norm.weight"])  # [1, 576]
        gate = smollm._silu(h2 @ w[pre + "ffn_gate.weight"].T)  # [1, 1536]
        hidden = gate * (h2 @ w[pre + "ffn_up.weight"].T)  # [1, 1536]
        before, after = 2 * layer, 2 * layer + 1  # rows of states: entering (0: the embedding)
        layers.append(
            {
                "input": _norm(x),
                "norm1": _norm(h1),
                "q": _norm(q),
                "k": _norm(k),
                "v": _norm(v),
                "attention": _norm(walk.attention[layer]),
                "mid": _norm(mid),
                "norm2": _norm(h2),
                "hidden": _norm(hidden),
                "mlp": _norm(walk.mlp[layer]),
                "out": _norm(out),
                "logits": _norm(logits[after + 1]),
                "top_logit": float(logits[after + 1].max()),
                "probabilities": _norm(p[after + 1]),
                "lens": {
                    "input": _top(p[before], m.piece),
                    "mid": _top(p[after], m.piece),
                    "out": _top(p[after + 1], m.piece),
                },
            }
        )
    return {
        "which": "smollm",
        "prompt": prompt,
        "tokens": [m.piece(i) for i in ids],
        "shapes": {
            "d_model": smollm.D_MODEL,
            "heads": smollm.N_HEADS,
            "kv_heads": smollm.N_KV_HEADS,
            "d_head": smollm.D_HEAD,
            "d_ff": smollm.D_FF,
            "vocab": smollm.VOCAB,
        },
        "layers": layers,
    }


def _tiny_walk(prompt: str) -> dict:
    ids = training.encode(prompt)
    run = training.trained_run(training.TrainingDemo.param.seed.default)
    params = run.parameters(training.DEFAULT_STEPS)
    f = training.forward(params, np.array([ids]))
    n_heads, d_model, d_head = params["W_Q"].shape
    x0 = f.x0[0, -1]  # [16] E[t] + PE
    attention = f.C[0, -1] @ params["W_O"]  # [16]
    x1 = f.x1[0, -1]  # [16]
    words = training.VOCABULARY

    def head(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The output head on a stream x [16]: logits [65] (<pad> −∞) and softmax [65]."""
        z = x @ params["U"] + params["b"]
        z[training.PAD] = -np.inf  # padding is never a next word
        e = np.exp(z - z.max())
        return z, e / e.sum()

    z_in, p_in = head(x0)
    z, p = head(x1)
    finite = np.delete(z, training.PAD)  # [64] the logits of the words
    layer = {
        "input": _norm(x0),
        "norm1": None,
        "q": _norm(f.Q[0, :, -1]),
        "k": _norm(f.K[0, :, -1]),
        "v": _norm(f.V[0, :, -1]),
        "attention": _norm(attention),
        "mid": _norm(x1),
        "norm2": None,
        "hidden": None,
        "mlp": None,
        "out": _norm(x1),
        "logits": _norm(finite),
        "top_logit": float(finite.max()),
        "probabilities": _norm(p),
        "lens": {
            "input": _top(p_in, words.__getitem__),
            "mid": _top(p, words.__getitem__),
            "out": _top(p, words.__getitem__),
        },
    }
    del z_in
    return {
        "which": "tiny",
        "prompt": prompt,
        "tokens": [words[i] for i in ids],
        "shapes": {
            "d_model": int(d_model),
            "heads": int(n_heads),
            "kv_heads": int(n_heads),
            "d_head": int(d_head),
            "d_ff": None,
            "vocab": len(words),
        },
        "layers": [layer],
    }


@functools.lru_cache(maxsize=16)
def walk_of(which: str, prompt: str) -> dict:
    """The walk of ``prompt``'s last position through model ``which`` ("smollm" or "tiny"),
    every layer: the shapes and, per layer, the norms of each part's output (``None`` where the
    model has no such part) and the logit lens's top tokens at the three states of the stream
    (``input``, ``mid`` after the attention, ``out`` after the MLP). Plain JSON data.
    Cached: the two models are deterministic."""
    return _smollm_walk(prompt) if which == "smollm" else _tiny_walk(prompt)


def check_block_prompt(which: str, prompt) -> None:
    """A prompt model ``which`` can read, or a Refusal: SmolLM2's checks
    (``next_word.check_prompt``), the tiny Transformer's vocabulary (``training.encode``)."""
    if not isinstance(prompt, str):
        raise Refusal("block.not_text")
    if which == "smollm":
        check_prompt(prompt)
    else:
        training.encode(prompt)


class _Prompt(param.String):
    """A prompt, checked against the model chosen when it is set."""

    def __set__(self, obj, val):
        if obj is not None:
            check_block_prompt(obj.which, val)
        super().__set__(obj, val)


class _Layer(StrictInteger):
    """A layer (1-based) of the model chosen: 1–30 for SmolLM2, 1 for the tiny one."""

    def __set__(self, obj, val):
        if obj is not None and isinstance(val, int) and not isinstance(val, bool):
            last = N_LAYERS[obj.which]
            if not 1 <= val <= last:
                raise Refusal("block.no_layer", layer=val, last=last)
        super().__set__(obj, val)


class BlockDemo(param.Parameterized):
    """The block, step by step: the last position of ``prompt`` through layer ``layer`` of model
    ``which``, shown up to step ``step``.

    Outputs (read-only): ``walk`` (:func:`walk_of`: every layer's norms and lens), ``tokens``,
    ``n_layers``, ``missing`` (the steps this model has not). Choosing a model sets its prompt
    (``DEFAULT_PROMPTS``) and a layer it has.
    """

    which = param.Selector(
        objects=list(MODELS),
        default="smollm",
        doc="El modelo: SmolLM2-135M (smollm) o el Transformer diminuto de la clase (tiny).",
    )
    prompt = _Prompt(
        default=DEFAULT_PROMPT,
        doc="El texto cuya última posición recorre el bloque (SmolLM2: inglés, hasta 48 "
        "tokens; el diminuto: solo las palabras de su vocabulario).",
    )
    layer = _Layer(
        default=1,
        bounds=(1, smollm.N_LAYERS),
        doc="La capa que se recorre, desde 1 (SmolLM2 tiene 30; el diminuto, 1).",
    )
    step = StrictInteger(
        default=1, bounds=(1, N_STEPS), doc="El paso del bloque que se muestra en detalle (1–10)."
    )

    def __init__(self, **params):
        # The model first: the prompt and the layer are checked against it; a model given alone
        # comes with its own prompt.
        which = params.pop("which", self.param.which.default)
        if which != self.param.which.default and "prompt" not in params:
            params["prompt"] = DEFAULT_PROMPTS.get(which, DEFAULT_PROMPT)
        super().__init__(which=which, **params)

    @param.depends("which", watch=True)
    def _model_chosen(self) -> None:
        # What the new model cannot read goes back to its own: a layer past its last, a prompt
        # it refuses (a view choosing a model sets that model's prompt with it: choose).
        changes = {}
        if self.layer > N_LAYERS[self.which]:
            changes["layer"] = N_LAYERS[self.which]
        try:
            check_block_prompt(self.which, self.prompt)
        except Refusal:
            changes["prompt"] = DEFAULT_PROMPTS[self.which]
        if changes:
            self.param.update(changes)

    def choose(self, which) -> None:
        """Model ``which`` with its own prompt and a layer it has (param checks ``which``)."""
        self.param.update(which=which)
        if self.prompt != DEFAULT_PROMPTS[self.which]:
            self.prompt = DEFAULT_PROMPTS[self.which]

    @property
    def n_layers(self) -> int:
        return N_LAYERS[self.which]

    @property
    def missing(self) -> tuple[int, ...]:
        return MISSING[self.which]

    @property
    def walk(self) -> dict:
        return walk_of(self.which, self.prompt)

    @property
    def tokens(self) -> list[str]:
        return self.walk["tokens"]

    @property
    def shown(self) -> dict:
        """The walk's numbers of ``layer`` (a dict of :func:`walk_of`'s layers)."""
        return self.walk["layers"][self.layer - 1]
