"""The offline export: `make export` end to end, file sizes, first render offline in Chromium.

    make bench            # or: .venv/bin/python bench/bench_export.py [--repeat 5] [--no-make]

1. Runs `make export` (fresh Python process, imports included) and times it; the per-file build
   times come from its progress lines.
2. Opens every file of dist/ from disk in Chromium (Playwright, /usr/bin/chromium) with every
   request that is not file:, data:, blob: or about: aborted, ``--repeat`` times each in a new
   page, and measures the first render: navigation start to the section marker and a formula
   (MathML) attached (for index.html, to its file table). Blocked requests and console errors are
   counted too.
3. Lists where each file's bytes are (issue 38): every ``<script>`` by what it holds (Bokeh's
   bundles, panel.min.js, es-module-shims, our static JS, the embedded states and catalogue,
   the Bokeh document and, inside it, each component's ESM source), for every file of both
   languages; the table shows the lecture and one section file, es and en.
Targets (from the issue): export ≤ 60 s, each file ≤ dashboards.export.MAX_BYTES (the largest
measured + 10 %, issue 38), first render ≤ 2 s offline.
Writes bench/export_results.json.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import html
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

from dashboards.export import MAX_BYTES, PACKED_JS  # noqa: E402

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

# The files whose bytes the table lists per bundle (every file's go to the results json).
BUNDLE_FILES = ("clase04.html", "autoatencion.html", "en/clase04.html", "en/autoatencion.html")
# The parts of a page, in the table's order; "resto" is what no listed script holds (the HTML,
# the <style>s, the tags themselves and the small scripts).
PARTS = (
    "bokeh",
    "bokeh-widgets",
    "bokeh-tables",
    "bokeh-gl",
    "bokeh-mathjax",
    "panel",
    "es-module-shims",
    "static-js",
    "c04-states",
    "c04-text",
    "bokeh-document",
    "resto",
)
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S | re.I)
_BUNDLE = re.compile(r"/\* BEGIN ([\w.-]+?)(?:\.min)?\.js \*/")
_STATIC = re.compile(r"/\* ([\w-]+\.js) \*/")  # export.head_elements: "/* <name> */" first
_JSON_ID = re.compile(r'type="application/json" id="([^"]+)"')


def page_parts(page: str) -> tuple[dict[str, int], dict[str, int]]:
    """Where an exported page's bytes (UTF-8) are: ``{part: bytes}`` over :data:`PARTS` (the
    content of each ``<script>`` by what it holds, packed or not; they add up to the file's
    size) and
    ``{component: bytes}``, the ESM source each kind of ``ReactiveESM`` component sends inside
    the Bokeh document (Panel sends it with every instance)."""
    parts = dict.fromkeys(PARTS, 0)
    esm: dict[str, int] = {}
    for match in _SCRIPT.finditer(page):
        attrs, body = match.groups()
        size = len(body.encode("utf-8"))  # in the file: a packed script's gzipped base64
        if PACKED_JS in attrs:  # dashboards/export.py, pack_scripts: told apart by its code
            body = gzip.decompress(base64.b64decode(body)).decode("utf-8")
        head = body[:400]
        json_id = _JSON_ID.search(attrs)
        if json_id and json_id.group(1) in ("c04-states", "c04-text"):
            part = json_id.group(1)
        elif json_id:
            part = "bokeh-document"
            _document_esm(json.loads(html.unescape(body)), esm)
        elif bundle := _BUNDLE.search(head):
            part = bundle.group(1) if bundle.group(1) in parts else "resto"
        elif "es-module-shims" in head:
            part = "es-module-shims"
        elif _STATIC.match(body):
            part = "static-js"
        else:
            part = "resto"
        parts[part] += size
    parts["resto"] += len(page.encode("utf-8")) - sum(parts.values())
    return parts, esm


def _document_esm(node, esm: dict[str, int]) -> None:
    if isinstance(node, dict):
        attrs = node.get("attributes")
        if node.get("type") == "object" and isinstance(attrs, dict) and "esm" in attrs:
            name = attrs.get("class_name") or node.get("name", "?")
            esm[name] = esm.get(name, 0) + len(attrs["esm"].encode("utf-8"))
        for value in node.values():
            _document_esm(value, esm)
    elif isinstance(node, list):
        for value in node:
            _document_esm(value, esm)


def bundles(dist: Path) -> dict[str, dict]:
    """:func:`page_parts` of every exported page of ``dist`` (both languages; not the
    indexes, which hold no script), by its path inside ``dist``."""
    found = {}
    for path in sorted(dist.rglob("*.html")):
        if path.name == "index.html":
            continue
        page = path.read_text(encoding="utf-8")
        parts, esm = page_parts(page)
        found[path.relative_to(dist).as_posix()] = {
            "bytes": path.stat().st_size,
            "parts": parts,
            "document_esm": dict(sorted(esm.items(), key=lambda kv: -kv[1])),
        }
    return found


def print_bundles(found: dict[str, dict]) -> None:
    """The table of :data:`BUNDLE_FILES`: kB per part, a column per file."""
    shown = [name for name in BUNDLE_FILES if name in found]
    if not shown:
        return
    print(f"\n{'kB por parte':<22}" + "".join(f"{name:>22}" for name in shown))
    components = sorted({c for name in shown for c in found[name]["document_esm"]})
    for part in PARTS:
        values = [found[name]["parts"][part] for name in shown]
        if any(values):
            print(f"{part:<22}" + "".join(f"{v / 1e3:>22.1f}" for v in values))
        if part != "bokeh-document":
            continue
        for component in components:  # inside the document: each component's ESM source
            values = [found[name]["document_esm"].get(component, 0) for name in shown]
            print(f"{'  ESM ' + component:<22}" + "".join(f"{v / 1e3:>22.1f}" for v in values))
    print(f"{'total':<22}" + "".join(f"{found[n]['bytes'] / 1e3:>22.1f}" for n in shown))


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
    found = bundles(DIST)
    print_bundles(found)
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
        # Every exported page of both languages: its bytes by part (page_parts).
        "bundles": found,
        "largest_file": max(found, key=lambda name: found[name]["bytes"], default=None),
        "all_languages_meet_size": all(f["bytes"] <= TARGET_BYTES for f in found.values()),
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
