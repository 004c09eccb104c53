"""Issue 19: the real Transformer (all-MiniLM-L6-v2 in numpy, attnmodel/minilm.py) on the server.

    .venv/bin/python bench/bench_minilm.py [--repeat 30]

Measured in this process, one thing at a time:
- loading the weights (first ``model()``: unzip, safetensors, tokenizer), and the process's
  resident memory before and after (the model is loaded once per process, shared);
- the forward pass on a 20-word sentence (float32, every attention map kept), p50/p95;
- the section's update for a new sentence (``MiniLMView``: the model, its numbers, the Bokeh
  models; a sentence not seen before, so no cache helps), p50/p95, and a head chosen in the
  grid (its server side: the model's layer and head);
- memory per session: the section built N times with the model loaded (resident memory / N).

Writes bench/minilm_results.json. Targets: forward ≤ 50 ms (issue 19), an update ≤ 30 ms p95
(a new sentence: the forward pass's 50 ms and bench_updates.py's 30 ms), a head chosen ≤ 30 ms,
memory per session ≤ 5 MB (issue 17).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

# As the server runs (dashboards.serving.SERVE_ENV): one BLAS thread, set before numpy loads.
os.environ["OPENBLAS_NUM_THREADS"] = "1"

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import panel as pn  # noqa: E402
from bokeh.document import Document  # noqa: E402

from attnmodel import minilm  # noqa: E402

FORWARD_TARGET_MS = 50.0
UPDATE_TARGET_MS = 80.0  # the forward pass (50 ms) + the server update target (30 ms)
SELECT_TARGET_MS = 30.0
SESSION_TARGET_MB = 5.0
TWENTY_WORDS = (
    "The quick brown fox jumps over the lazy dog while the children play "
    "in the sunny garden behind the old house"
)
WORDS = [
    *("cat", "dog", "house", "river", "tree", "light", "music", "table", "window", "garden"),
    *("city", "road", "book", "paper", "stone", "cloud", "friend", "teacher", "student", "day"),
]


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def sentences(n: int):
    """n different sentences of 8 words (none in any cache)."""
    for i in range(n):
        words = [WORDS[(i * 7 + k * 3 + i // 20) % len(WORDS)] for k in range(8)]
        yield f"The {' '.join(words)} number {i}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "minilm_results.json")
    args = parser.parse_args(argv)
    repeat = max(3, args.repeat)

    from dashboards.app.session import configure
    from dashboards.demos.minilm import MiniLMView

    configure()
    gc.collect()
    before = rss_mb()
    start = time.perf_counter()
    model = minilm.model()
    load_s = time.perf_counter() - start
    gc.collect()
    loaded = rss_mb()

    ids = model.encode(TWENTY_WORDS).ids
    model.forward(ids)  # warm
    forward = []
    for _ in range(repeat):
        start = time.perf_counter()
        model.forward(ids)
        forward.append(1000 * (time.perf_counter() - start))

    view = MiniLMView()
    root = pn.panel(view).get_root(Document())
    assert root is not None
    updates = []
    for sentence in sentences(repeat):
        start = time.perf_counter()
        view.model.sentence = sentence
        updates.append(1000 * (time.perf_counter() - start))
    selects = []
    for i in range(repeat):
        start = time.perf_counter()
        view.grid.receive({"selected": [i % minilm.N_LAYERS, (i * 5) % minilm.N_HEADS]})
        selects.append(1000 * (time.perf_counter() - start))

    gc.collect()
    base = rss_mb()
    kept = []
    for _ in range(args.sessions):
        v = MiniLMView()
        kept.append((v, pn.panel(v).get_root(Document())))
    gc.collect()
    per_session = (rss_mb() - base) / args.sessions

    result = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "blas_threads": os.environ["OPENBLAS_NUM_THREADS"],
        "pieces_20_words": len(ids),
        "load_s": load_s,
        "rss_before_mb": before,
        "rss_loaded_mb": loaded,
        "model_mb": loaded - before,
        "forward_ms": {"p50": statistics.median(forward), "p95": percentile(forward, 0.95)},
        "update_ms": {"p50": statistics.median(updates), "p95": percentile(updates, 0.95)},
        "select_ms": {"p50": statistics.median(selects), "p95": percentile(selects, 0.95)},
        "session_mb": per_session,
        "targets": {
            "forward_ms": FORWARD_TARGET_MS,
            "update_ms": UPDATE_TARGET_MS,
            "select_ms": SELECT_TARGET_MS,
            "session_mb": SESSION_TARGET_MB,
        },
    }
    result["meets_target"] = (
        result["forward_ms"]["p95"] <= FORWARD_TARGET_MS
        and result["update_ms"]["p95"] <= UPDATE_TARGET_MS
        and result["select_ms"]["p95"] <= SELECT_TARGET_MS
        and per_session <= SESSION_TARGET_MB
    )
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"MiniLM: carga {load_s:.2f} s, +{result['model_mb']:.0f} MB; forward de 20 palabras "
        f"({len(ids)} trozos) p50 {result['forward_ms']['p50']:.1f} / p95 "
        f"{result['forward_ms']['p95']:.1f} ms (objetivo ≤ {FORWARD_TARGET_MS:g}); frase nueva "
        f"p95 {result['update_ms']['p95']:.1f} ms; cabeza elegida p95 "
        f"{result['select_ms']['p95']:.2f} ms; por sesión {per_session:.2f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
