"""First render of every section on a phone-class client, live and in the export (issue 17).

    make bench            # or: .venv/bin/python bench/bench_phone.py [--repeat 3] [--rate 4]
                          #     [--secciones cabezas …]

Debian's Chromium with a phone's screen (390×844, 3× pixels, touch) and its CPU slowed down
``--rate`` times through DevTools (``Emulation.setCPUThrottlingRate``, what Chrome's
"4× slowdown" does), a new page per sample:

- live: the served lecture (`make serve`'s command, bench/_server.py) at
  ``/lecture?seccion=<id>``, every section;
- export: every section's file of dist/ opened from disk (exported first when dist/ is older
  than the sources, as bench_browser.py does), every request off file: aborted.

First render: navigation start to the section's first marker attached and, where the section
shows formulas, its first formula attached (MathML written by Python, drawn with the HTML:
``math_wait_ms``, the time from the marker to it, was MathJax's typesetting and is now none);
then every Bokeh plot of the page painted (its canvas drawn), whichever comes last, as
``performance.now()`` in the page. Target: ≤ 3 s, median of ``--repeat`` samples, on every
section in both modes. Writes bench/phone_results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import _server
from _browser import CHROMIUM, CHROMIUM_ARGS, DEEP_FIND_JS, OFFLINE_PREFIXES, PageWatch
from bench_browser import DIST, ensure_export

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dashboards.demos import registry

TARGET_MS = 3000.0
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}
# Sections whose first screen has no formula do not wait for one.
NO_MATH = {"explorador", "jugar"}

# Once the marker is attached, a formula (<math>) is too (when asked) and every Bokeh plot
# view reports itself painted (``has_finished``): {first render, and when each of those was
# first seen, and the page's DOMContentLoaded} in ms since navigation start; false until then.
FIRST_RENDER_JS = (
    """([selector, math]) => {
  """
    + DEEP_FIND_JS
    + """
  const seen = (window.__c04_phone = window.__c04_phone || {});
  const now = performance.now();
  if (!deepFind(document, selector)) return false;
  seen.marker = seen.marker || now;
  if (math && !deepFind(document, "math")) return false;
  seen.math = seen.math || now;
  const views = window.Bokeh ? Object.values(window.Bokeh.index || {}) : [];
  const pending = [];
  const walk = (view) => {
    if (!view) return;
    if (view.model && view.model.type === "Plot" && !view.has_finished()) pending.push(view);
    for (const child of view.child_views || []) walk(child);
  };
  for (const root of views) walk(root);
  if (pending.length) return false;
  const nav = performance.getEntriesByType("navigation")[0];
  return {
    ms: now,
    marker_ms: seen.marker,
    math_ms: seen.math,
    dom_content_loaded_ms: nav ? nav.domContentLoadedEventEnd : null,
  };
}"""
)


def marker(section: registry.Section) -> str:
    first = registry.section_demos(section)[0].id if section.demos else section.id
    return f'[data-testid="section-{first}"]'


def sample(browser, url: str, selector: str, math: bool, rate: float, allowed) -> tuple:
    errors, blocked = [], []
    context = browser.new_context(**PHONE)
    try:
        page = context.new_page()
        PageWatch(page, allowed, errors, blocked)
        cdp = context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
        page.goto(url, wait_until="commit")
        handle = page.wait_for_function(
            FIRST_RENDER_JS, arg=[selector, math], polling=100, timeout=120_000
        )
        return handle.json_value(), errors, blocked
    finally:
        context.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3, help="samples per section and mode")
    parser.add_argument("--rate", type=float, default=4.0, help="CPU slowdown (DevTools)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "phone_results.json")
    parser.add_argument(
        "--secciones",
        nargs="+",
        choices=[s.id for s in registry.SECTIONS],
        metavar="SECCIÓN",
        help="solo estas secciones",
    )
    args = parser.parse_args(argv)
    if not (1 <= args.repeat <= 20 and 1 <= args.rate <= 20):
        parser.error("límites: 1 ≤ --repeat ≤ 20, 1 ≤ --rate ≤ 20")
    from playwright.sync_api import sync_playwright

    exported = [s.id for s in registry.SECTIONS if s.demos]
    note = ensure_export(exported)
    print(f"Exportación: {note}")
    started = time.perf_counter()
    rows = []
    server = None
    log_path = Path(tempfile.gettempdir()) / "bench-phone-serve.log"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            port = _server.free_port()
            server = _server.start(port, log_path)
            live_allowed = (f"http://127.0.0.1:{port}/", f"ws://127.0.0.1:{port}/", "data:")
            for mode in ("vivo", "export"):
                for section in registry.SECTIONS:
                    if mode == "export" and section.id not in exported:
                        continue
                    if args.secciones and section.id not in args.secciones:
                        continue
                    if mode == "vivo":
                        url = f"http://127.0.0.1:{port}/lecture?seccion={section.id}"
                        allowed = live_allowed
                    else:
                        url = (DIST / f"{section.id}.html").as_uri()
                        allowed = OFFLINE_PREFIXES
                    math = section.id not in NO_MATH
                    samples, errors, blocked = [], [], []
                    for _ in range(args.repeat):
                        got, e, b = sample(browser, url, marker(section), math, args.rate, allowed)
                        samples.append(got)
                        errors += e
                        blocked += b
                    times = [g["ms"] for g in samples]
                    row = {
                        "mode": mode,
                        "section": section.id,
                        "samples": samples,
                        "median_ms": statistics.median(times),
                        "max_ms": max(times),
                        # Where the time went (medians): the page's scripts parsed and run
                        # (DOMContentLoaded), the section's marker, the first formula.
                        "dom_content_loaded_ms": statistics.median(
                            g["dom_content_loaded_ms"] or 0 for g in samples
                        ),
                        "marker_ms": statistics.median(g["marker_ms"] for g in samples),
                        "math_ms": statistics.median(g["math_ms"] for g in samples),
                        # From the marker to the first formula: MathJax's typesetting before
                        # formulas were MathML; now they come with the HTML.
                        "math_wait_ms": statistics.median(
                            g["math_ms"] - g["marker_ms"] for g in samples
                        ),
                        "console_errors": errors,
                        "blocked_requests": sorted(set(blocked)),
                    }
                    row["meets_target"] = row["median_ms"] <= TARGET_MS and not errors
                    rows.append(row)
                    print(
                        f"{mode:<7} {section.id:<13} mediana {row['median_ms']:6.0f} ms  "
                        f"máx {row['max_ms']:6.0f} ms  (DOMContentLoaded "
                        f"{row['dom_content_loaded_ms']:5.0f}, marca {row['marker_ms']:5.0f}, "
                        f"fórmula {row['math_ms']:5.0f}, espera {row['math_wait_ms']:4.0f})  "
                        f"{'sí' if row['meets_target'] else 'NO'}",
                        flush=True,
                    )
            version = browser.version
            browser.close()
    finally:
        if server is not None:
            _server.stop(server)
    summary = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "chromium": version,
        "cpu_slowdown": args.rate,
        "repeat": args.repeat,
        "phone": PHONE,
        "target_ms": TARGET_MS,
        "export": note,
        "seconds": round(time.perf_counter() - started, 1),
        "rows": rows,
        "worst": {
            mode: max((r for r in rows if r["mode"] == mode), key=lambda r: r["median_ms"])
            for mode in ("vivo", "export")
        },
        "all_meet_target": all(r["meets_target"] for r in rows),
    }
    args.out.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    print(f"Resultados en {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
