"""Screenshots of every section of the running lecture, for the README.

    .venv/bin/python scripts/screenshots.py            # starts `panel serve` itself
    .venv/bin/python scripts/screenshots.py --url http://127.0.0.1:5006/lecture

Writes docs/img/<section>.png (a 1400 px window, the whole page), docs/img/phone-<section>.png
(a 360×740 phone, its first screen: the navigation folds into one menu, the section begins),
docs/img/formula-<section>.png (the section's first display formula as the browser draws its
MathML, or the line holding its first one; a 1400 px window at 2× pixels), and the lecturer's
docs/img/profesor-*.png: projector mode at 1920×1080 after a toggle, an exercise answered, the
shortcuts' help, and class mode (docs/img/profesor-clase.png: the projector with the class's
answers). Uses Debian's Chromium, as the browser tests do.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from dashboards import serving  # noqa: E402
from dashboards.app.lecture import SECTIONS  # noqa: E402
from dashboards.classroom import shared_state  # noqa: E402

from c04_testing import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

# The lecturer's token of the server this script starts (class mode's picture).
TOKEN = shared_state.new_token()


@contextlib.contextmanager
def served_lecture():
    """`make serve`'s server on a free port, stopped on exit; yields the lecture's URL."""
    port = serving.free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = serving.start(port, Path(tmp) / "serve.log", env={shared_state.TOKEN_ENV: TOKEN})
        try:
            yield f"http://127.0.0.1:{port}/lecture"
        finally:
            serving.stop(proc)


def capture(url: str, out_dir: Path, token: str | None = None) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for section in SECTIONS:
            page.goto(f"{url}?seccion={section.id}")
            marker = page.locator(f'[data-testid="section-{section.id}"]').first
            marker.wait_for(state="attached", timeout=30_000)
            page.wait_for_timeout(1500)  # Bokeh's layout settles
            path = out_dir / f"{section.id}.png"
            page.screenshot(path=str(path), full_page=True)
            written.append(path)
            print(f"  {section.label()}: {path.relative_to(ROOT)}")
        phone = browser.new_page(
            viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
        )
        for section in SECTIONS:
            phone.goto(f"{url}?seccion={section.id}")
            marker = phone.locator(f'[data-testid="section-{section.id}"]').first
            marker.wait_for(state="attached", timeout=30_000)
            phone.wait_for_timeout(1500)
            path = out_dir / f"phone-{section.id}.png"
            phone.screenshot(path=str(path))
            written.append(path)
            print(f"  {section.label()} (teléfono): {path.relative_to(ROOT)}")
        written += formulas(browser, url, out_dir)
        written += lecturer(browser, url, out_dir)
        if token:  # a server of ours (or --token): class mode needs the lecturer's link
            written.append(class_mode(browser, url, token, out_dir))
        browser.close()
    return written


# The section's first formula (a display one if it has one), through every shadow root.
FIRST_FORMULA_JS = """() => {
  const all = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (el.tagName.toLowerCase() === 'math') all.push(el);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  const main = C04.a11y.deepFind(document, '[data-c04-content]');
  walk(main.shadowRoot || main);
  const block = all.find((m) => m.getAttribute('display') === 'block');
  // Only formulas within text: the line that holds the first one, so it is read in place.
  return block || (all[0] && all[0].closest('p, li, div')) || null;
}"""


def formulas(browser, url: str, out_dir: Path) -> list[Path]:
    """docs/img/formula-<section>.png: each section's first formula (MathML), 2× pixels."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000}, device_scale_factor=2)
    written = []
    for section in SECTIONS:
        page.goto(f"{url}?seccion={section.id}")
        page.locator(f'[data-testid="section-{section.id}"]').first.wait_for(
            state="attached", timeout=30_000
        )
        page.wait_for_timeout(1000)
        formula = page.evaluate_handle(FIRST_FORMULA_JS).as_element()
        if formula is None:
            print(f"  {section.label()}: sin fórmulas")
            continue
        formula.scroll_into_view_if_needed()
        box = formula.bounding_box()
        pad = 12
        path = out_dir / f"formula-{section.id}.png"
        page.screenshot(
            path=str(path),
            clip={
                "x": max(box["x"] - pad, 0),
                "y": max(box["y"] - pad, 0),
                "width": box["width"] + 2 * pad,
                "height": box["height"] + 2 * pad,
            },
        )
        written.append(path)
        print(f"  {section.label()} (fórmula): {path.relative_to(ROOT)}")
    page.close()
    return written


def lecturer(browser, url: str, out_dir: Path) -> list[Path]:
    """The README's "Para el profesor" pictures."""
    written = []
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    page.goto(f"{url}?seccion=autoatencion&modo=proyector")
    page.locator('[data-testid="section-autoatencion"]').first.wait_for(state="attached")
    page.wait_for_timeout(1500)
    page.locator(".sa-causal input").click()
    page.wait_for_timeout(1000)
    page.evaluate("C04.a11y.deepFind(document, '.sa-causal').scrollIntoView()")
    page.wait_for_timeout(300)
    path = out_dir / "profesor-proyector.png"
    page.screenshot(path=str(path))
    written.append(path)
    page.close()

    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{url}?seccion=capital")
    page.locator('[data-testid="section-capital"]').first.wait_for(state="attached")
    page.wait_for_timeout(1500)
    page.locator('[data-testid="exercise-input-identity_minus"]').fill("0,38")
    page.locator('[data-testid="exercise-check-identity_minus"]').click()
    page.locator('[data-testid="exercise-verdict-identity_minus"] b').wait_for()
    page.wait_for_timeout(800)
    card = page.locator('[data-testid="exercise-identity_minus"]')
    card.scroll_into_view_if_needed()
    path = out_dir / "profesor-ejercicio.png"
    card.screenshot(path=str(path))
    written.append(path)
    page.keyboard.press("Escape")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("?")
    page.locator('[data-testid="shortcuts-help"]').wait_for()
    path = out_dir / "profesor-atajos.png"
    page.locator('[data-testid="shortcuts-help"] .c04-help-box').screenshot(path=str(path))
    written.append(path)
    page.close()
    for path in written:
        print(f"  profesor: {path.relative_to(ROOT)}")
    return written


def class_mode(browser, url: str, token: str, out_dir: Path) -> Path:
    """The projector of a live class after a question: three students answered, revealed."""
    lecturer = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    lecturer.goto(f"{url}?profesor={token}&seccion=capital&modo=proyector")
    lecturer.locator('[data-testid="section-capital"]').first.wait_for(state="attached")
    students = []
    for _ in range(3):
        page = browser.new_context().new_page()
        page.goto(url)
        page.locator('[data-testid="section-capital"]').first.wait_for(state="attached")
        students.append(page)
    lecturer.get_by_test_id("class-exercise").select_option("identity_zero")
    lecturer.get_by_test_id("class-ask").click()
    for page, option in zip(students, (2, 0, 2), strict=True):
        page.get_by_test_id("class-form").locator(f"input[value='{option}']").check()
        page.get_by_test_id("class-answer").click()
    lecturer.get_by_test_id("class-count").filter(has_text="3").wait_for()
    lecturer.get_by_test_id("class-reveal").click()
    lecturer.get_by_test_id("class-distribution").wait_for()
    lecturer.wait_for_timeout(1500)
    path = out_dir / "profesor-clase.png"
    lecturer.screenshot(path=str(path))
    lecturer.get_by_test_id("class-clear").click()
    lecturer.get_by_test_id("class-end").click()
    for page in [lecturer, *students]:
        page.context.close()
    print(f"  profesor: {path.relative_to(ROOT)}")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--url", help="URL de una clase ya servida (por defecto se sirve una)")
    parser.add_argument("--token", help="el token del profesor de esa clase (modo clase)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    args.out = args.out.resolve()  # the log names each file relative to the project
    if args.url:
        capture(args.url, args.out, args.token)
    else:
        with served_lecture() as url:
            capture(url, args.out, TOKEN)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
