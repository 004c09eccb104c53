"""Screenshots of every section of the running lecture, for the README.

    .venv/bin/python scripts/screenshots.py            # starts `panel serve` itself
    .venv/bin/python scripts/screenshots.py --url http://127.0.0.1:5006/lecture

Writes docs/img/<section>.png. Uses Debian's Chromium, as the browser tests do.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboards.lecture import SECTIONS  # noqa: E402

ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


@contextlib.contextmanager
def served_lecture():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "panel",
            "serve",
            "dashboards/lecture.py",
            "--address",
            "127.0.0.1",
            "--port",
            str(port),
            "--allow-websocket-origin",
            f"127.0.0.1:{port}",
            "--index",
            "lecture",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/lecture"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(url, timeout=5).close()
                break
            except OSError:
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def capture(url: str, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for section in SECTIONS:
            page.goto(f"{url}?seccion={section.id}")
            marker = page.locator(f'[data-testid="section-{section.id}"]').first
            marker.wait_for(state="attached", timeout=30_000)
            page.wait_for_timeout(1500)  # MathJax and Bokeh layout settle
            path = out_dir / f"{section.id}.png"
            page.screenshot(path=str(path), full_page=True)
            written.append(path)
            print(f"  {section.label}: {path.relative_to(ROOT)}")
        browser.close()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--url", help="URL de una clase ya servida (por defecto se sirve una)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    if args.url:
        capture(args.url, args.out)
    else:
        with served_lecture() as url:
            capture(url, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
