"""Issue 18: how long the tiny Transformer takes to train (attnmodel.TrainingRun, its default
settings), wall time of the whole run from its seed to its last checkpoint.

    .venv/bin/python bench/bench_training.py [--runs 3]

Writes bench/training_results.json. Target: the default run in ≤ 10 s on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from attnmodel.training import TRAINING_COUNTRIES, TrainingRun  # noqa: E402

TARGET_S = 10.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "training_results.json")
    args = parser.parse_args(argv)
    seconds, run = [], None
    for _ in range(max(1, args.runs)):
        start = time.perf_counter()
        run = TrainingRun().train()
        seconds.append(time.perf_counter() - start)
    assert run is not None
    median = statistics.median(seconds)
    result = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "settings": {k: v for k, v in run.param.values().items() if k != "name"},
        "seconds": seconds,
        "median_s": median,
        "first_loss": float(run.loss_curve[0]),
        "last_loss": float(run.loss_curve[-1]),
        "min_capital_probability": min(run.capital_probability(c) for c in TRAINING_COUNTRIES),
        "target_s": TARGET_S,
        "meets_target": median <= TARGET_S,
    }
    args.out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(
        f"entrenamiento por defecto ({run.steps} pasos): mediana {median:.2f} s "
        f"(objetivo ≤ {TARGET_S:g} s); pérdida {result['first_loss']:.3f} → "
        f"{result['last_loss']:.3f}; p(capital) mínima {result['min_capital_probability']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
