"""The offline export: `make export` end to end, file sizes, first render offline in Chromium.

    make bench            # or: .venv/bin/python bench/bench_export.py [--repeat 5] [--no-make]

1. Runs `make export` (fresh Python process, imports included) and times it; the per-file build
   times come from its progress lines.
2. Opens every file of dist/ from disk in Chromium (Playwright, /usr/bin/chromium) with every
   request that is not file:, data:, blob: or about: aborted, ``--repeat`` times each in a new
   page, and measures the first render: navigation start to the section marker and a formula
   (MathML) attached (for index.html, to its file table). Blocked requests and console errors are
   counted too.
Targets (from the issue): export ≤ 60 s, each file ≤ 7 MB (6 MB before issue 18's embedded
training checkpoints), first render ≤ 2 s offline.
Writes bench/export_results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _browser import CHROMIUM, CHROMIUM_ARGS, DEEP_FIND_JS, OFFLINE_PREFIXES, watched_page

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboards.export import MAX_BYTES  # noqa: E402

DIST = ROOT / "dist"
TARGET_EXPORT_S = 60.0
TARGET_BYTES = MAX_BYTES
TARGET_RENDER_MS = 2000.0

# The marker each file's first render waits for (as in tests/ui/test_export.py).
MARKERS = {
    "clase04.html": "autoatencion",
    "autoatencion.html": "autoatencion",
    "cabezas.html": "cabezas",
    "posicion.html": "posicion",
    "capital.html": "capital",
    "explorador.html": "explorador",
}

# performance.now() once `selector` is attached (shadow roots included) and, when `math` is
# true, a formula (<math>, written by the export) is attached too; false until then.
FIRST_RENDER_JS = (
    """([selector, math]) => {
  """
    + DEEP_FIND_JS
    + """
  const ready = deepFind(document, selector) && (!math || deepFind(document, "math"));
  return ready ? performance.now() : false;
}"""
)

PROGRESS = re.compile(r"^\[\d+/\d+\] (\S+) … (\d+) estados, ([\d,]+) MB, ([\d,]+) s$")


def es(value: float, decimals: int = 2) -> str:
    return f"{value:.{decimals}f}".replace(".", ",")


def run_make_export() -> tuple[float, dict[str, dict], str]:
    start = time.perf_counter()
    proc = subprocess.run(["make", "export"], cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"make export falló ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    per_file = {}
    for line in proc.stdout.splitlines():
        match = PROGRESS.match(line.strip())
        if match:
            name, states, _, secs = match.groups()
            per_file[name] = {"states": int(states), "build_s": float(secs.replace(",", "."))}
    return seconds, per_file, proc.stdout


def first_renders(files: list[Path], repeat: int) -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for path in files:
            marker = MARKERS.get(path.name)
            selector = f'[data-testid="section-{marker}"]' if marker else "[data-testid]"
            samples, blocked, errors = [], [], []
            for _ in range(repeat):
                page = watched_page(browser, OFFLINE_PREFIXES, errors, blocked)
                page.goto(path.as_uri(), wait_until="commit")
                handle = page.wait_for_function(
                    FIRST_RENDER_JS, arg=[selector, bool(marker)], polling="raf", timeout=60_000
                )
                samples.append(float(handle.json_value()))
                page.wait_for_timeout(300)  # late errors or requests
                page.close()
            results[path.name] = {
                "first_render_ms": samples,
                "first_render_median_ms": statistics.median(samples),
                "first_render_cold_ms": samples[0],
                "blocked_requests": sorted(set(blocked)),
                "console_errors": errors,
            }
        browser.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=5, help="aperturas por archivo")
    parser.add_argument("--no-make", action="store_true", help="medir el dist/ que ya existe")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "export_results.json")
    args = parser.parse_args(argv)

    export_s, per_file, log = (None, {}, "") if args.no_make else run_make_export()
    if export_s is not None:
        print(log.rstrip())
        print(f"\nmake export: {es(export_s, 1)} s (objetivo ≤ {TARGET_EXPORT_S:g} s)\n")
    files = sorted(DIST.glob("*.html"), key=lambda p: (p.name == "index.html", p.name))
    if not files:
        sys.exit("dist/ está vacío: corre `make export` primero.")
    renders = first_renders(files, args.repeat)

    rows = []
    print(
        f"{'archivo':<18} {'MB':>5} {'estados':>7} {'export s':>8} "
        f"{'render ms':>9} {'frío ms':>8} {'bloqueadas':>10} {'errores':>7}"
    )
    for path in files:
        size = path.stat().st_size
        built = per_file.get(path.name, {})
        r = renders[path.name]
        row = {
            "file": path.name,
            "bytes": size,
            "mb": round(size / 1e6, 3),
            "states": built.get("states"),
            "build_s": built.get("build_s"),
            **r,
            "meets_size": size <= TARGET_BYTES,
            "meets_render": r["first_render_median_ms"] <= TARGET_RENDER_MS,
        }
        rows.append(row)
        build = es(row["build_s"], 1) if row["build_s"] is not None else "—"
        states = row["states"] if row["states"] is not None else "—"
        print(
            f"{path.name:<18} {es(size / 1e6):>5} {states!s:>7} {build:>8} "
            f"{r['first_render_median_ms']:9.0f} {r['first_render_cold_ms']:8.0f} "
            f"{len(r['blocked_requests']):10d} {len(r['console_errors']):7d}"
        )
    summary = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "repeat": args.repeat,
        "targets": {
            "export_s": TARGET_EXPORT_S,
            "file_bytes": TARGET_BYTES,
            "first_render_ms": TARGET_RENDER_MS,
        },
        "make_export_s": export_s,
        "files": rows,
        "total_bytes": sum(r["bytes"] for r in rows),
        "all_offline": all(not r["blocked_requests"] and not r["console_errors"] for r in rows),
        "all_meet_size": all(r["meets_size"] for r in rows),
        "all_meet_render": all(r["meets_render"] for r in rows),
        "meets_export_time": export_s is None or export_s <= TARGET_EXPORT_S,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    yes = {True: "sí", False: "NO"}
    print(
        f"\nsin red y sin errores: {yes[summary['all_offline']]} · ≤ {TARGET_BYTES / 1e6:g} MB: "
        f"{yes[summary['all_meet_size']]} · render ≤ 2 s: {yes[summary['all_meet_render']]} · "
        f"export ≤ 60 s: {yes[summary['meets_export_time']]} · resultados en {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
