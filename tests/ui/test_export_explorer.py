"""The explorer in the exported files (dist/explorador.html, dist/clase04.html), opened offline.

The same user actions (token buttons, token list, temperature slider by keyboard, the two
switches, typed sentences — refused, hostile —, the "Fíjate" buttons) are done in the export and
in the live app; after each one, every data-testid text of the map, the focus row and the
message, and every native control as the page shows it must be what the Python view shows for
the same actions, in both. Nothing may be requested from the network, logged as an error, or
run from the typed text.
"""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from attnmodel.explorer import AttentionExplorer
from attnmodel.i18n import text
from dashboards.demos.explorer import ExplorerView

from c04_testing import board_labels, by_testid, control_value, slider_handle, use
from c04_views import drawn

SECTION = "explorador"
FILE = "explorador.html"
SEED_ROW = ["0 %", "39 %", "3 %", "0 %", "0 %", "44 %", "2 %", "11 %"]
XSS = "<script>alert(1)</script>"
HOSTILE = f"{XSS} <img src=x onerror=alert(1)> hola"


def looks_at(token: str) -> str:
    """The focus row's title in Spanish ("Adónde mira gato")."""
    return text("explorer.row_title", token=token)


TESTID_PREFIXES = ("cell-", "row-", "explorer-")

# Every data-testid text of the explorer (through the shadow roots), and its controls as the
# page shows them (the Board's native controls, board.js: each box has data-control).
SNAPSHOT_JS = """() => {
  const texts = {};
  const boxes = {};
  // The explorer's Board: the root (a shadow root) holding its map. Other sections of the whole
  // lecture have controls of the same names ("sentence", "temperature").
  const find = (root) => {
    if (root.querySelector('[data-testid="explorer-table"]')) return root;
    for (const el of root.querySelectorAll("*")) {
      const hit = el.shadowRoot && find(el.shadowRoot);
      if (hit) return hit;
    }
    return null;
  };
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      const id = el.getAttribute("data-testid");
      if (id && /^(cell-|row-|explorer-)/.test(id)) texts[id] = el.textContent;
      if (el.dataset && el.dataset.control) boxes[el.dataset.control] = el;
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(find(document) || document);
  const buttons = Array.from(boxes.focus.querySelectorAll("button"));
  const select = boxes.focus_list.querySelector("select");
  const controls = {
    labels: buttons.map((b) => b.textContent),
    active: buttons.findIndex((b) => b.getAttribute("aria-pressed") === "true"),
    options: Array.from(select.options).map((o) => o.textContent),
    value: select.selectedIndex,
    positional: boxes.positional.querySelector("input").checked,
    causal: boxes.causal.querySelector("input").checked,
    temperature: Number(boxes.temperature.querySelector("input").value),
    sentence: boxes.sentence.querySelector("input").value,
  };
  return {texts, controls};
}"""

# Every C04.update of the page, with its trigger and duration (the callbacks look C04.update
# up when they run, so wrapping it after load sees them all).
TIMING_JS = """() => {
  if (window.__c04times) return;
  window.__c04times = [];
  const update = C04.update;
  C04.update = function (demo, args, kinds) {
    const ms = update.call(this, demo, args, kinds);
    window.__c04times.push([args.trigger.name, ms]);
    return ms;
  };
}"""


def expected_snapshot(view: ExplorerView, page) -> dict:
    """What the page must show: the Python view's numbers as explorer.js draws them (run in
    Node, tests/c04_views.py), its message and controls; the specs drawn by the page's own
    markup.js."""
    specs = drawn(view.board, view.lang)
    markup = page.evaluate(
        "(items) => items.map(([kind, spec]) => C04.markup[kind](spec))",
        [[view.board.kinds[name], specs[name]] for name in ("table", "row", "sentence_error")],
    )
    return {
        # The text of every element with one of our data-testids (nested ones included).
        "texts": by_testid(*markup, prefixes=TESTID_PREFIXES).texts,
        "controls": {
            "labels": [label for _, label in view.focus.spec["options"]],
            "active": index_of(view.focus),
            "options": [label for _, label in view.focus_list.spec["options"]],
            "value": index_of(view.focus_list),
            "positional": control_value(view.positional),
            "causal": control_value(view.causal),
            "temperature": control_value(view.temperature),
            "sentence": control_value(view.sentence),
        },
    }


def index_of(slot) -> int:
    """The position of a choice's or a select's value among its options."""
    return [value for value, _ in slot.spec["options"]].index(slot.spec["value"])


def snapshot(page) -> dict:
    return page.evaluate(SNAPSHOT_JS)


def wait_for_snapshot(page, expected: dict, timeout: float = 15.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        got = snapshot(page)
        if got == expected or time.monotonic() > deadline:
            return got
        page.wait_for_timeout(50)


def sentence_box(page):
    return page.get_by_placeholder(text("explorer.placeholder"))


def board(page):
    """The explorer's Board (its outermost column: the one page of the lecture has other
    sections' controls with the same names, e.g. «Autoatención»'s "Máscara causal")."""
    return page.locator(".c04-col", has=page.locator('[data-testid="explorer-table"]')).first


def token_button(page, label: str):
    group = board(page).get_by_role("group", name=text("explorer.focus_label"))
    return group.get_by_role("button", name=label, exact=True)


def slider_value(page) -> float:
    return snapshot(page)["controls"]["temperature"]


# (what the user does, what the same action is on the Python view)
def act(page, view: ExplorerView, action: tuple) -> None:
    kind, arg = action
    if kind == "token":
        token_button(page, arg).click()
        use(view, "focus", next(v for v, label in view.focus.spec["options"] if label == arg))
    elif kind == "list":
        board(page).get_by_role("combobox", name=text("explorer.list_label")).select_option(
            label=arg
        )
        use(view, "focus_list", int(arg.split(" · ")[0]))
    elif kind == "slider":  # keyboard on the native range: it moves by its step
        before = slider_value(page)
        handle = slider_handle(board(page), text("explorer.temperature"))
        expect(handle).to_have_count(1)
        handle.focus()
        for _ in range(abs(arg)):
            handle.press("ArrowRight" if arg > 0 else "ArrowLeft")
        deadline = time.monotonic() + 10
        while slider_value(page) == before and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        use(view, "temperature", slider_value(page))  # the very number the browser sent
    elif kind == "check":
        board(page).get_by_role("checkbox", name=text(f"explorer.{arg}")).click()
        use(view, arg, not control_value(view.board.slot(arg)))
    elif kind == "type":
        box = sentence_box(page)
        box.fill(arg)
        box.press("Enter")
        use(view, "sentence", arg)
    elif kind == "button":  # found by the label the Python view gives it ("T = 0,1")
        name = {"cold": "cold", "hot": "hot", "causal": "causal_button", "reset": "reset"}[arg]
        label = board_labels(view.board)[name]
        board(page).get_by_role("button", name=label, exact=True).click()
        use(view, name)
    else:  # pragma: no cover - a typo in ACTIONS
        raise ValueError(kind)


ACTIONS = [
    ("token", "duerme"),  # discrete
    ("list", "6 · está"),
    ("slider", 3),  # continuous: T 1 -> 1,15
    ("check", "positional"),
    ("check", "causal"),
    ("slider", -7),
    ("type", "la reina habla con el rey"),
    ("type", ""),  # refused: Spanish message, the map keeps the last valid sentence
    ("token", "reina"),
    ("type", HOSTILE),  # shown as text, never run
    ("token", XSS),
    ("button", "hot"),  # T = 3
    ("type", " ".join(["a"] * 41)),  # refused: too long
    ("button", "reset"),  # Frase por defecto, segundo gato
    ("button", "cold"),  # T = 0,1
    ("button", "causal"),  # Activar la máscara causal
]


def run_actions(page, view: ExplorerView) -> list[dict]:
    """Do ACTIONS on ``page``; after each, wait for (and return) what the Python view shows."""
    shots = []
    expected = expected_snapshot(view, page)
    assert wait_for_snapshot(page, expected) == expected, "valores por defecto"
    for action in ACTIONS:
        act(page, view, action)
        expected = expected_snapshot(view, page)
        got = wait_for_snapshot(page, expected)
        assert got == expected, action
        shots.append(got)
    return shots


@pytest.fixture
def explorer_export(page, offline, open_export, panel_cleanup):
    open_export(FILE, SECTION)
    page.locator('[data-testid="explorer-table"]').wait_for(timeout=30_000)
    page.evaluate(TIMING_JS)
    yield page
    # `offline` also records the errors Panel's try/catch around JS callbacks console.log()s.
    assert offline.console_errors == []


def test_defaults_offline(explorer_export, offline):
    page = explorer_export
    expect(page.get_by_text(text("demo.explorador"))).to_be_visible()
    for j, want in enumerate(SEED_ROW):
        expect(page.locator(f'[data-testid="cell-5-{j}"]')).to_have_text(want)
        expect(page.locator(f'[data-testid="row-{j}"]')).to_have_text(want)
    expect(page.locator('[data-testid="explorer-row-title"]')).to_have_text(looks_at("gato"))
    assert snapshot(page) == expected_snapshot(ExplorerView(), page)
    assert page.evaluate("() => C04.views.explorer !== undefined")
    assert offline.external == []
    assert offline.console_errors == []


def test_export_and_live_show_the_same_after_the_same_actions(explorer_export, offline, open_live):
    page = explorer_export
    exported = run_actions(page, ExplorerView())
    page.wait_for_timeout(300)  # a script from the typed text would have run by now
    assert offline.dialogs == []
    assert offline.external == []
    assert offline.console_errors == []
    times = page.evaluate("() => window.__c04times")
    assert {trigger for trigger, _ in times} >= {
        *("focus", "focus_list", "temperature", "positional", "causal", "sentence"),
        *("hot", "cold", "reset", "causal_button"),
    }
    slowest = max(ms for _, ms in times)
    print(f"\nexport, C04.update: {len(times)} llamadas, la más lenta {slowest:.1f} ms")

    live, live_watch = open_live(SECTION)
    live.locator('[data-testid="explorer-table"]').wait_for(timeout=30_000)
    served = run_actions(live, ExplorerView())
    live.wait_for_timeout(300)
    for action, in_export, in_live in zip(ACTIONS, exported, served, strict=True):
        assert in_export == in_live, action
    assert live_watch.console_errors == []
    assert live_watch.dialogs == []
    assert live_watch.external == []


def test_hostile_sentence_is_text_in_the_export(explorer_export, offline):
    page = explorer_export
    box = sentence_box(page)
    box.fill(HOSTILE)
    box.press("Enter")
    table = page.locator('[data-testid="explorer-table"]')
    expect(table.locator("thead th").nth(1)).to_have_text(XSS)
    token_button(page, XSS).click()
    expect(page.locator('[data-testid="explorer-row-title"]')).to_have_text(looks_at(XSS))
    model = AttentionExplorer(sentence=HOSTILE, focus=0)
    for j, p in enumerate(model.row_percentages):
        expect(page.locator(f'[data-testid="row-{j}"]')).to_have_text(f"{p} %")
    page.wait_for_timeout(300)
    assert offline.dialogs == []
    assert offline.console_errors == []
    assert offline.external == []


def test_time_of_a_temperature_change_on_forty_tokens(explorer_export, offline):
    """Reported, not asserted: C04.update and the time until the map shows it."""
    page = explorer_export
    words = " ".join(f"palabra{i % 7}x{i}" for i in range(40))
    box = sentence_box(page)
    box.fill(words)
    box.press("Enter")
    expect(page.locator('[data-testid="cell-39-39"]')).to_be_attached()
    result = page.evaluate(
        """async () => {
          let slider = null;
          const walk = (root) => {
            for (const el of root.querySelectorAll("*")) {
              if (el.dataset && el.dataset.control === "temperature") {
                slider = el.querySelector("input");
              }
              if (el.shadowRoot) walk(el.shadowRoot);
            }
          };
          walk(document);
          const runs = [];
          for (const value of [0.5, 2.5, 0.3, 2.8, 0.4, 2.2]) {
            const before = window.__c04times.length;
            const t0 = performance.now();
            slider.value = String(value);  // what a drag does to the native range
            slider.dispatchEvent(new Event("input", { bubbles: true }));
            while (window.__c04times.length === before)
              await new Promise((r) => setTimeout(r, 0));
            await new Promise((r) => requestAnimationFrame(() => r()));  // the next frame
            runs.push({update: window.__c04times[before][1], total: performance.now() - t0});
          }
          return runs;
        }"""
    )
    updates = sorted(r["update"] for r in result)
    totals = sorted(r["total"] for r in result)
    print(
        f"\nexport, 40 tokens, cambio de T: C04.update {updates[len(updates) // 2]:.1f} ms "
        f"(máx {updates[-1]:.1f}), hasta el siguiente cuadro {totals[len(totals) // 2]:.1f} ms "
        f"(máx {totals[-1]:.1f})"
    )
    model = AttentionExplorer(sentence=words, focus=5, temperature=2.2)
    for j, p in enumerate(model.row_percentages[:5]):
        expect(page.locator(f'[data-testid="row-{j}"]')).to_have_text(f"{p} %")
    assert offline.console_errors == []
    assert offline.external == []


def test_whole_lecture_file_has_a_working_explorer(page, offline, open_export, panel_cleanup):
    open_export("clase04.html", SECTION)
    page.locator('[data-testid="explorer-table"]').wait_for(timeout=30_000)
    view = ExplorerView()
    assert wait_for_snapshot(page, expected_snapshot(view, page)) == expected_snapshot(view, page)
    for action in [("token", "duerme"), ("button", "hot"), ("check", "causal")]:
        act(page, view, action)
        expected = expected_snapshot(view, page)
        assert wait_for_snapshot(page, expected) == expected, action
    assert offline.external == []
    assert offline.console_errors == []
