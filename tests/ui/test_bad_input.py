"""Bad input typed into the page (issue #6), in the served lecture and in the offline export.

1. Every editable cell of the self-attention demo (X 3×2, W_Q, W_K, W_V 2×2). One cell per
   matrix gets, in a loop, "", "abc", "1,5", "NaN", "inf", "1e309", "1e6", "2e6", "1e-300" and
   "−2" (U+2212); then every one of the 14 cells gets a refused value. After each one the page
   must show what the Python view shows for the same typing (an in-process ``SelfAttentionView``
   driven through its widgets, whose tables are ``render(model)``): accepted values update every
   table to the model's numbers, refused ones put the Spanish message in that matrix's error pane
   and the last valid value back in the cell. No traceback in the page; live, no "Traceback" or
   " ERROR " line in the server log either.
2. The explorer's sentence box: empty, one token, 200 tokens (refused with a Spanish message,
   the old sentence kept, and the page still answers a valid sentence within a few seconds),
   emoji, accents, CJK, punctuation only, and three hostile texts (a script tag, an image with
   onerror, a template expression) that must show as text: no dialog, no image, "49" nowhere.
3. URL query parameters (``?seccion=zzz`` and friends): the lecture opens on a valid section.

Every page: no console error, no request outside localhost (live) or file: (export).
"""

from __future__ import annotations

import html
import time
import urllib.parse

import pytest
from playwright.sync_api import expect

from attnmodel import i18n
from attnmodel.explorer import AttentionExplorer, percentages
from attnmodel.self_attention import MATRICES, SelfAttention
from dashboards.app.lecture import SECTIONS
from dashboards.demos.self_attention import SelfAttentionView

from c04_testing import (
    SA_SNAPSHOT_START_JS,
    SA_TABLES,
    commit,
    sa_editors,
    sa_panes,
    spec_td_texts,
)

pytestmark = pytest.mark.ui

SHAPES = {"X": (3, 2), "W_Q": (2, 2), "W_K": (2, 2), "W_V": (2, 2)}
BOUND = "cada casilla debe estar entre −1 000 000 y 1 000 000."

# (typed text, the number the model must hold afterwards or None if refused, the message)
VALUES = [
    ("", None, "La casilla está vacía: escribe un número."),
    ("abc", None, "«abc» no es un número."),
    ("1,5", 1.5, ""),
    ("NaN", None, "«NaN» no es un número."),  # not in the grammar (attnmodel/formatting.py)
    ("inf", None, "«inf» no es un número."),
    ("1e309", None, "«1e309» no es un número finito."),
    ("1e6", 1e6, ""),
    ("2e6", None, "{name}: " + BOUND),
    ("1e-300", 1e-300, ""),
    ("\u22122", -2.0, ""),  # "−2" with the typographic minus
]
# The cell of each matrix that gets every value (0-based row, column).
DRIVERS = {"X": (0, 0), "W_Q": (1, 1), "W_K": (0, 1), "W_V": (1, 0)}
# Refused values for the pass over every cell.
BAD = ["abc", "", "NaN", "inf", "1e309", "2e6", "1,2,3", "0x10"]

# Tables (td texts), error panes and cells of the demo, found through the shadow roots.
SA_SNAPSHOT_JS = (
    "(tables) => {\n"
    + SA_SNAPSHOT_START_JS
    + """\
  for (const tid of tables) {
    const node = hosts('[data-testid="' + tid + '"]')[0];
    out.tables[tid] = node ? [...node.querySelectorAll('td')].map((td) => td.textContent) : null;
  }
  for (const name of ['X', 'W_Q', 'W_K', 'W_V']) {
    const editor = hosts('.sa-editor-' + name)[0];
    if (!editor) return null;
    const root = editor.shadowRoot || editor;
    const error = hosts('.c04-error', root)[0];
    out.errors[name] = error ? error.textContent : null;
    out.cells[name] = hosts('input', root).map((i) => i.value);
  }
  return out;
}"""
)

# All the text the page shows (text nodes outside <style>/<script>), shadow roots included.
DEEP_TEXT_JS = """() => {
  const parts = [];
  const walk = (root) => {
    const it = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = it.nextNode(); n; n = it.nextNode()) {
      const tag = n.parentElement ? n.parentElement.tagName : '';
      if (tag !== 'STYLE' && tag !== 'SCRIPT') parts.push(n.textContent);
    }
    for (const node of root.querySelectorAll('*')) if (node.shadowRoot) walk(node.shadowRoot);
  };
  walk(document.body);
  return parts.join('\\n');
}"""


def sa_expected(view: SelfAttentionView) -> dict:
    """What the page must show: the in-process view's tables (td texts), error panes and cells."""
    return {
        "tables": {tid: spec_td_texts(pane.spec) for tid, pane in sa_panes(view).items()},
        **sa_editors(view),
    }


def sa_steps() -> list[tuple[str, int, int, str, float | None, str]]:
    """(matrix, row, col, text, accepted value or None, message): drivers, then every cell."""
    steps = []
    for name, (i, j) in DRIVERS.items():
        for text, value, message in VALUES:
            steps.append((name, i, j, text, value, message.format(name=name)))
    n = 0
    for name in MATRICES:
        rows, cols = SHAPES[name]
        for i in range(rows):
            for j in range(cols):
                text = BAD[n % len(BAD)]
                n += 1
                steps.append((name, i, j, text, None, None))
    return steps


def sa_plan() -> list[tuple[tuple, dict]]:
    """Each step with the snapshot the Python view shows after it (checked against the model)."""
    view = SelfAttentionView()
    model = SelfAttention()  # the same edits, straight on a model
    plan = []
    previous = sa_expected(view)
    for step in sa_steps():
        name, i, j, text, value, message = step
        before = getattr(view.model, name).copy()
        commit(view.editors[name], i, j, text)
        after = getattr(view.model, name)
        error = html.unescape(view.editors[name].error)
        if value is None:  # refused: message beside the cell, the model untouched
            assert (after == before).all(), step
            assert error.startswith(f"{name}[{i + 1},{j + 1}]: "), (step, error)
            assert error.endswith(" " + i18n.text("input.kept")), (step, error)
            if message:
                assert message in error, (step, error)
        else:
            assert after[i, j] == value, step
            assert error == "", step
            model.set_cell(name, i, j, value)
        for m in MATRICES:
            assert (getattr(view.model, m) == getattr(model, m)).all()
        want = sa_expected(view)
        assert want != previous, f"el paso {step} no cambia nada visible: no se podría esperar"
        plan.append((step, want))
        previous = want
    # The tables are the model's numbers: spot-check A and Z against the model directly.
    assert model.preset == "personalizado"
    assert plan[-1][1]["tables"]["sa-weights"][:3] == [
        f"{w:.4f}".replace(".", ",") for w in model.weights[0]
    ]
    return plan


def sa_cell(page, name: str, i: int, j: int):
    cols = SHAPES[name][1]
    return page.locator(f".sa-editor-{name} .c04-cell input").nth(cols * i + j)


def wait_for_snapshot(page, want: dict, what: str, timeout: float = 15.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        snap = page.evaluate(SA_SNAPSHOT_JS, list(SA_TABLES))
        if snap == want:
            return snap
        if time.monotonic() > deadline:
            diff = (
                {k: (snap[k], want[k]) for k in want if snap[k] != want[k]} if snap else "sin demo"
            )
            raise AssertionError(f"{what}: la página no muestra lo que calcula Python: {diff}")
        page.wait_for_timeout(30)


def drive_self_attention(page) -> list[str]:
    """Type every step into the page, checking it after each; returns a log of what it did."""
    page.locator('[data-testid="sa-weights"]').first.wait_for(timeout=30_000)
    wait_for_snapshot(page, sa_expected(SelfAttentionView()), "valores de fábrica")
    report = []
    for step, want in sa_plan():
        name, i, j, text, value, _ = step
        box = sa_cell(page, name, i, j)
        box.fill(text)
        expect(box).to_have_value(text)  # typed into the cell on screen, then committed
        box.press("Enter")
        wait_for_snapshot(page, want, f"{name}[{i + 1},{j + 1}] = {text!r}")
        shown = want["errors"][name] or f"aceptado ({value!r})"
        report.append(f"{name}[{i + 1},{j + 1}] ← {text!r}: {shown}")
    text = page.evaluate(DEEP_TEXT_JS)
    assert "Traceback" not in text
    return report


def new_log_lines(server, start: int) -> list[str]:
    with server["log_path"].open(encoding="utf-8", errors="replace") as log:
        log.seek(start)
        return [line for line in log.read().splitlines() if line.strip()]


def assert_clean_log(lines: list[str]) -> None:
    bad = [line for line in lines if "Traceback" in line or " ERROR " in line]
    assert bad == [], "\n".join(bad)


def test_self_attention_cells_live(page, watch, server, open_lecture_section):
    start = server["log_path"].stat().st_size
    open_lecture_section("autoatencion")
    report = drive_self_attention(page)
    print("\nautoatención (en vivo):\n  " + "\n  ".join(report))
    page.wait_for_timeout(300)  # let the last log lines reach the file
    lines = new_log_lines(server, start)
    assert_clean_log(lines)
    assert any("Casilla de X rechazada" in line for line in lines)
    assert watch.console_errors == []
    assert watch.external == []
    assert watch.dialogs == []


def test_self_attention_cells_export(page, offline, open_export):
    open_export("autoatencion.html", "autoatencion")
    report = drive_self_attention(page)
    print("\nautoatención (exportado):\n  " + "\n  ".join(report))
    assert offline.console_errors == []
    assert offline.external == []
    assert offline.dialogs == []


# ---------------------------------------------------------------------------------------------
# The explorer's sentence box

# 200 words in under 2 000 characters (the box's length, MAX_SENTENCE_CHARS).
LONG = " ".join(f"p{n}" for n in range(200))
SENTENCES = [
    "",
    "gato",
    LONG,
    "el gato duerme",  # right after the refused 200 tokens: must answer within a few seconds
    "🐱 duerme 😴",
    "él está cansadísimo",
    "猫 が 寝る",
    "¡¿...?!",
    "<script>alert(1)</script> hola",
    "<img src=x onerror=alert(1)> gato",
    "<img/src=x/onerror=alert(1)> gato",  # the same without spaces: one whole tag as a token
    "{{7*7}} gato",
]
RESPONSIVE_S = 5.0

# Explorer texts by data-testid, the map's header, and any <img> inside it, through shadow roots.
EX_SNAPSHOT_JS = """() => {
  const texts = {};
  let header = null, images = 0;
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const id = el.getAttribute('data-testid');
      if (id && /^(cell-|row-|explorer-)/.test(id)) texts[id] = el.textContent;
      if (id === 'explorer-table') {
        header = [...el.querySelectorAll('thead th')].map((th) => th.textContent);
        images += el.querySelectorAll('img, script').length;
      }
      if (id === 'explorer-row') images += el.querySelectorAll('img, script').length;
      if (el.tagName === 'IMG' && el.getAttribute('src') === 'x') images += 1;
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return {texts, header, images};
}"""


def explorer_expected(model: AttentionExplorer, error: str) -> dict:
    tokens = model.tokens
    focus = model.focus
    texts = {
        "explorer-table": None,  # compared through the header and the cells
        "explorer-row": None,
        "explorer-row-title": f"Adónde mira {tokens[focus]}",
        "explorer-sentence-error": error,
    }
    for i, row in enumerate(percentages(model.weights).tolist()):
        for j, p in enumerate(row):
            texts[f"cell-{i}-{j}"] = f"{p} %"
    for j, p in enumerate(model.row_percentages):
        texts[f"row-{j}"] = f"{p} %"
    return {"texts": texts, "header": ["Consulta", *tokens], "images": 0}


def explorer_matches(snap: dict, want: dict) -> bool:
    texts = {k: v for k, v in snap["texts"].items() if k not in ("explorer-table", "explorer-row")}
    expected = {k: v for k, v in want["texts"].items() if v is not None}
    return (
        texts == expected and snap["header"] == want["header"] and snap["images"] == want["images"]
    )


def wait_for_explorer(page, want: dict, what: str, timeout: float = 15.0) -> float:
    t0 = time.monotonic()
    while True:
        snap = page.evaluate(EX_SNAPSHOT_JS)
        if explorer_matches(snap, want):
            return time.monotonic() - t0
        if time.monotonic() - t0 > timeout:
            raise AssertionError(
                f"{what}: el explorador no muestra lo que calcula Python:\n"
                f"página: {snap['header']} {snap['texts'].get('explorer-sentence-error')!r}\n"
                f"python: {want['header']} {want['texts']['explorer-sentence-error']!r}"
            )
        page.wait_for_timeout(30)


def drive_explorer(page, dialogs: list[str]) -> list[str]:
    page.locator('[data-testid="explorer-table"]').first.wait_for(timeout=30_000)
    model = AttentionExplorer()
    wait_for_explorer(page, explorer_expected(model, ""), "frase por defecto")
    box = page.get_by_placeholder("Escribe una frase y pulsa Enter")
    report = []
    for text in SENTENCES:
        try:
            model.sentence = text
            error = ""
        except ValueError as exc:
            error = f"{exc} {i18n.text('explorer.kept')}"
        box.fill(text)
        box.press("Enter")
        seconds = wait_for_explorer(page, explorer_expected(model, error), repr(text[:40]))
        label = repr(text) if len(text) < 40 else f"{len(text.split())} palabras"
        report.append(f"{label}: {error or f'aceptada, tokens {model.tokens}'} ({seconds:.2f} s)")
        if text == LONG:
            too_long = i18n.text("core.sentence_too_long", n=200, max_tokens=40)
            assert error == f"{too_long} {i18n.text('explorer.kept')}"
        if text == "el gato duerme":
            assert seconds < RESPONSIVE_S, f"tras 200 palabras la página tardó {seconds:.1f} s"
        if text == "gato":
            assert model.tokens == ["gato"]
            assert model.row_percentages == [100]
        if text == "":
            assert error.startswith("La frase está vacía")
    page.wait_for_timeout(300)  # give a script or an onerror a chance to run, if one ever could
    snap = page.evaluate(EX_SNAPSHOT_JS)
    assert snap["header"] == ["Consulta", "{{7*7}}", "gato"]
    assert snap["texts"]["explorer-row-title"] == "Adónde mira {{7*7}}"
    assert "49" not in snap["header"]
    page_text = page.evaluate(DEEP_TEXT_JS)
    assert "Traceback" not in page_text
    assert dialogs == []
    return report


def test_explorer_sentences_live(page, watch, server, open_lecture_section):
    start = server["log_path"].stat().st_size
    open_lecture_section("explorador")
    report = drive_explorer(page, watch.dialogs)
    print("\nexplorador (en vivo):\n  " + "\n  ".join(report))
    assert_clean_log(new_log_lines(server, start))
    assert watch.console_errors == []
    assert watch.external == []
    assert watch.dialogs == []


def test_explorer_sentences_export(page, offline, open_export):
    open_export("explorador.html", "explorador")
    report = drive_explorer(page, offline.dialogs)
    print("\nexplorador (exportado):\n  " + "\n  ".join(report))
    assert offline.console_errors == []
    assert offline.external == []
    assert offline.dialogs == []


# ---------------------------------------------------------------------------------------------
# URL query parameters

DEFAULT = SECTIONS[0]
LABELS = {s.id: s.label() for s in SECTIONS}
QUERIES = [
    ("seccion=zzz", DEFAULT.id),
    ("seccion=" + urllib.parse.quote("<script>alert(1)</script>"), DEFAULT.id),
    ("seccion=", DEFAULT.id),
    ("seccion=capital&seccion=explorador", "capital"),
    ("foo=bar", DEFAULT.id),
]


@pytest.mark.parametrize(("query", "section"), QUERIES, ids=[q for q, _ in QUERIES])
def test_query_parameters_open_a_valid_section(page, watch, lecture_url, query, section):
    page.goto(f"{lecture_url}?{query}")
    page.locator(f'[data-testid="section-{section}"]').first.wait_for(
        state="attached", timeout=30_000
    )
    active = page.locator('button[aria-current="true"]')  # the navigation's section on screen
    active.first.wait_for(timeout=10_000)
    assert active.all_text_contents() == [LABELS[section]]
    others = [s.id for s in SECTIONS if s.id != section and s.id != "escalado"]
    for other in others:
        assert page.locator(f'[data-testid="section-{other}"]').count() == 0
    # The page works: the section's first control answers.
    page.get_by_role("button", name=LABELS["jugar"]).click()
    page.locator('[data-testid="section-jugar"]').first.wait_for(state="attached")
    page.wait_for_timeout(200)
    assert watch.dialogs == []
    assert watch.console_errors == []
    assert watch.external == []


@pytest.mark.parametrize(
    "suffix",
    [
        "?seccion=zzz",
        "?seccion=" + urllib.parse.quote("<script>alert(1)</script>"),
        "#" + urllib.parse.quote("<img src=x onerror=alert(1)>"),
    ],
)
def test_query_and_hash_in_the_export(page, offline, exported, suffix):
    page.goto((exported / "capital.html").as_uri() + suffix)
    page.locator('[data-testid="section-capital"]').first.wait_for(state="attached", timeout=30_000)
    page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0", timeout=30_000)
    page.locator('[data-testid="capital-prediction"]').first.wait_for()
    page.wait_for_timeout(500)  # the hash handler polls for two seconds; let it start
    assert offline.dialogs == []
    assert offline.console_errors == []
    assert offline.external == []
