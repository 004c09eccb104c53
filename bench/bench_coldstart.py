"""Cold start: `make serve`'s command to the first HTTP 200 on /lecture, from the installed .venv.

    make bench            # or: .venv/bin/python bench/bench_coldstart.py [--runs 3]

Each run launches `panel serve` with the app list and flags of `make serve` (on a free 127.0.0.1
port, so it can run beside a server on 5006) as a new process (``--via-make``: `make serve
PORT=<free> HOST=127.0.0.1` itself), polls every 50 ms, and records
when the port first accepts a connection and when GET /lecture first answers 200 (that request
runs the lecture's app script for its session, as a student's first request does). The server
is stopped between runs. Target (issue #5): ready ≤ 5 s, median of the runs.
Writes bench/coldstart_results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from _server import ROOT, SERVE_ENV, free_port, listening, make_command, serve_command, stop

TARGET_S = 5.0
POLL_S = 0.05
TIMEOUT_S = 120.0


def one_run(log_path: Path, via_make: bool) -> dict[str, float]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/lecture"
    command = make_command(port) if via_make else serve_command(port)
    with log_path.open("w", encoding="utf-8") as log:
        start = time.perf_counter()
        proc = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **SERVE_ENV},
            start_new_session=True,
        )
        try:
            port_open = None
            while True:
                if time.perf_counter() - start > TIMEOUT_S:
                    sys.exit(f"panel serve no respondió en {TIMEOUT_S:g} s (log: {log_path})")
                if proc.poll() is not None:
                    sys.exit(f"panel serve terminó con código {proc.returncode} (log: {log_path})")
                if port_open is None:
                    if listening(port, POLL_S):
                        port_open = time.perf_counter() - start
                    else:
                        time.sleep(POLL_S)
                    continue
                try:
                    with urllib.request.urlopen(url, timeout=30) as response:
                        if response.status == 200:
                            response.read()
                            ready = time.perf_counter() - start
                            break
                except (urllib.error.URLError, OSError):
                    time.sleep(POLL_S)
        finally:
            stop(proc)
    return {"listening_s": port_open, "ready_s": ready, "first_page_s": ready - port_open}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "coldstart_results.json")
    parser.add_argument(
        "--log", type=Path, default=Path("/tmp") / "clase04-bench-coldstart.log", help="server log"
    )
    parser.add_argument(
        "--via-make",
        action="store_true",
        help="launch `make serve PORT=<free> HOST=127.0.0.1` instead of its panel command",
    )
    args = parser.parse_args(argv)

    header = f"{'arranque':<9} {'escucha s':>10} {'1.ª página s':>13} {'lista (200) s':>14}"
    print(header)
    print("-" * len(header))
    runs = []
    for k in range(1, args.runs + 1):
        run = one_run(args.log, args.via_make)
        runs.append(run)
        print(
            f"{k:<9} {run['listening_s']:10.2f} {run['first_page_s']:13.2f} {run['ready_s']:14.2f}"
        )
    median = statistics.median(r["ready_s"] for r in runs)
    meets = median <= TARGET_S
    print(
        f"\nMediana hasta HTTP 200 en /lecture: {median:.2f} s · objetivo ≤ {TARGET_S:g} s: "
        f"{'sí' if meets else 'NO'}"
    )
    summary = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "command": " ".join((make_command if args.via_make else serve_command)("<puerto libre>")),
        "target_s": TARGET_S,
        "runs": runs,
        "median_ready_s": median,
        "median_listening_s": statistics.median(r["listening_s"] for r in runs),
        "meets_target": meets,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"Resultados en {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
