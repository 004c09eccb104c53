"""Browser time from an input event to the updated text and plots, in Chromium, live and exported.

    make bench            # or: .venv/bin/python bench/bench_browser.py [--quick] [--reps 20]

For every section of the lecture, at least one control of each demo and every kind of control
(slider by keyboard, select by keyboard, checkbox, matrix cell, buttons, typed sentence,
temperature) is driven with real input through Playwright in Debian's Chromium
(/usr/bin/chromium), alternating two values so that every repetition changes something: first
in the served lecture (`make serve`'s command, bench/_server.py, ``?seccion=<id>``), then in the
exported files opened from disk (dist/<section>.html; `python -m dashboards.export` runs first
when dist/ is older than dashboards/ or attnmodel/). Every request that is not to 127.0.0.1,
file:, data:, blob: or about: is aborted.

What is measured, in the page (an init script, ``PROBE_JS``):

- start: the ``timeStamp`` of the input event (``keydown`` of the key, or ``click``), seen by a
  capture-phase listener on ``window``: the time the browser received the input.
- ``texto``: a MutationObserver on the shadow root holding the readout (the data-testid element
  whose text the control changes) sees its text change. This is "input → DOM": the observer
  runs when the task that changed the text has finished its synchronous work (nothing can be
  on screen earlier).
- ``pintado``: the end of the main-thread work of the first frame that holds both the new text
  and every Bokeh canvas repaint the change caused (each PlotView's ``_actual_paint`` is wrapped;
  a paint inside ``requestAnimationFrame`` belongs to that frame, anything else to the next
  frame), measured as a MessageChannel message posted from that frame's rAF callback, which runs
  once the frame's style, layout, paint and commit are done. Raster and compositing (other
  threads) are not included; a 60 Hz frame clock puts 0–17 ms of waiting in this figure.
- in the table, beside them: the time in the export's ``C04.update`` (the JS twin: reading the
  controls, computing, setting the Bokeh models) and the number of Bokeh canvas paints; in the
  JSON also their total duration, the input delay (event to listener) and ``next_frame_ms``,
  the start of the frame after that one (the "two rAF callbacks" proxy).

A sample ends when the text has changed and three frames have passed without a canvas paint.
Two warm-up changes per control are not counted; then ``--reps`` (20) changes, p50/p95 reported.
Targets (issue #5): input → DOM p95 ≤ 100 ms live, ≤ 30 ms in the export; the last column
says whether ``texto`` and ``pintado`` p95 meet them. Writes bench/browser_results.json.
``--quick``: one warm-up and 3 changes per control; ``--solo vivo|export``, ``--secciones``,
``--dist DIR`` (measure exported files as they are) narrow a run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import _server
import numpy as np
from _browser import CHROMIUM, CHROMIUM_ARGS, DEEP_FIND_JS, OFFLINE_PREFIXES, watched_page

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "dist"
SOURCES = (ROOT / "dashboards", ROOT / "attnmodel")
LIVE_PREFIXES = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")
TARGET_MS = {"vivo": 100.0, "export": 30.0}
SAMPLE_TIMEOUT_MS = 15_000
SECTION_TIMEOUT_MS = 60_000

# Sentences for the explorer: the default (8 words, attnmodel.explorer.DEFAULT_SENTENCE) and
# another of 9, and two of 40 (the limit).
DEFAULT_SENTENCE = "El gato duerme porque el gato está cansado"
OTHER_SENTENCE = "El perro muerde al hombre porque el hombre grita"
LONG_A = " ".join(
    ["la reina habla con el rey y el rey escucha a la reina mientras el pueblo espera en la plaza"]
    * 2
)
LONG_B = " ".join(
    ["el gato duerme en la casa y el perro mira al gato desde la puerta de la cocina vieja hoy"] * 2
)
assert len(LONG_A.split()) == len(LONG_B.split()) == 40  # the explorer's limit

PROBE_JS = (
    r"""
(() => {
  if (window.__bb) return;
  // Every rAF callback runs with frameTs = its frame's timestamp (shared by the whole frame).
  const origRaf = window.requestAnimationFrame.bind(window);
  let frameTs = null;
  window.requestAnimationFrame = function (cb) {
    return origRaf((ts) => {
      const outer = frameTs;
      frameTs = ts;
      try {
        return cb(ts);
      } finally {
        frameTs = outer;
      }
    });
  };

  let S = null; // the sample being measured
  const hooked = new WeakSet();
  const live = () => S !== null && S.t0 !== null && !S.done;

  function onInput(e) {
    if (S === null || S.t0 !== null || e.type !== S.evType) return;
    if (S.key !== null && e.key !== S.key) return;
    S.t0 = e.timeStamp;
    S.listener = performance.now();
  }
  window.addEventListener("keydown", onInput, true);
  window.addEventListener("click", onInput, true);

  """
    + DEEP_FIND_JS
    + r"""

  function check(via) {
    if (!live() || S.text !== null) return;
    const t = performance.now();
    const fr = frameTs;
    // Cheap first: the element itself, else its shadow root (a pane replaces its innerHTML);
    // the whole document only when the root itself has gone.
    let el = S.el.isConnected ? S.el : null;
    if (el === null && S.root.isConnected) el = S.root.querySelector(S.sel);
    if (el === null && !S.root.isConnected) el = deepFind(document, S.sel);
    if (el === null) return;
    if (el !== S.el) {
      S.el = el;
      if (el.getRootNode() !== S.root) {
        S.root = el.getRootNode();
        S.obs.disconnect();
        S.obs.observe(S.root, { subtree: true, childList: true, characterData: true });
      }
    }
    if (el.textContent !== S.before) {
      S.text = { t, frame: fr };
      S.via = via;
      S.obs.disconnect();
    }
  }

  // The frame an event belongs to: the rAF frame it ran in, else the next frame.
  function frameOf(ev) {
    if (ev.frame !== null) return ev.frame;
    const f = S.frames.find((x) => x.t > ev.t);
    return f ? f.ts : null;
  }

  function maybeFinish() {
    if (!live() || S.text === null) return;
    const events = [S.text, ...S.paints.map((p) => ({ t: p.e, frame: p.frame }))];
    let last = null;
    for (const ev of events) {
      const f = frameOf(ev);
      if (f === null) return; // its frame has not started yet
      if (last === null || f > last) last = f;
    }
    const after = S.frames.filter((x) => x.ts > last);
    if (after.length < 3 || !S.frameEnds.has(last)) return;
    S.done = true;
    S.obs.disconnect();
    const mine = S.paints.filter((p) => p.s >= S.t0);
    S.resolve({
      text_ms: S.text.t - S.t0,
      painted_ms: S.frameEnds.get(last) - S.t0,
      next_frame_ms: after[0].t - S.t0,
      input_delay_ms: S.listener - S.t0,
      js_ms: S.updates.reduce((a, b) => a + b, 0),
      paints: mine.length,
      paint_ms: mine.reduce((a, p) => a + (p.e - p.s), 0),
      painted_plots: [...new Set(mine.map((p) => p.name))],
      via: S.via,
    });
  }

  // One chain of rAF callbacks per sample: every frame's start and the end of its main-thread
  // work (a message posted from the rAF callback runs once the frame has been produced).
  function tick(sample) {
    requestAnimationFrame((ts) => {
      if (sample !== S || sample.done) return;
      sample.frames.push({ ts, t: performance.now() });
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        if (sample !== S || sample.done) return;
        sample.frameEnds.set(ts, performance.now());
        maybeFinish();
      };
      channel.port2.postMessage(0);
      // The readout's host was replaced (the observer cannot see that): look it up again.
      if (live() && sample.text === null && !sample.root.isConnected) check("raf");
      tick(sample);
    });
  }

  window.__bb = {
    // Wrap the paint of every Bokeh plot view and the export's C04.update (idempotent).
    hook() {
      let plots = 0;
      if (window.Bokeh && Bokeh.index && Bokeh.index.query) {
        const views = Bokeh.index.query((v) => typeof v._actual_paint === "function");
        for (const v of views) {
          plots += 1;
          if (hooked.has(v)) continue;
          hooked.add(v);
          const orig = v._actual_paint;
          v._actual_paint = function () {
            const s = performance.now();
            const fr = frameTs;
            try {
              return orig.apply(this, arguments);
            } finally {
              if (live()) {
                S.paints.push({ s, e: performance.now(), frame: fr, name: this.model.name || "" });
              }
            }
          };
        }
      }
      if (window.C04 && typeof C04.update === "function" && !C04.__bb) {
        const update = C04.update;
        C04.update = function () {
          const s = performance.now();
          try {
            return update.apply(this, arguments);
          } finally {
            if (live()) S.updates.push(performance.now() - s);
          }
        };
        C04.__bb = true;
      }
      return plots;
    },
    text(testid) {
      const el = deepFind(document, `[data-testid="${testid}"]`);
      return el === null ? null : el.textContent;
    },
    // Arm a sample: the next `evType` (and `key`) starts it, `testid`'s text change ends it.
    arm(testid, evType, key) {
      if (S !== null && !S.done) S.done = true;
      const sel = `[data-testid="${testid}"]`;
      const el = deepFind(document, sel);
      if (el === null) throw new Error(`no hay lectura ${testid}`);
      S = {
        sel, el, root: el.getRootNode(), before: el.textContent, evType, key: key || null,
        t0: null, listener: null, text: null, via: null, paints: [], updates: [], frames: [],
        frameEnds: new Map(), done: false, resolve: null,
      };
      S.result = new Promise((resolve) => { S.resolve = resolve; });
      S.obs = new MutationObserver(() => check("mutation"));
      S.obs.observe(S.root, { subtree: true, childList: true, characterData: true });
      tick(S);
    },
    result(timeoutMs) {
      const sample = S;
      const timeout = new Promise((resolve) => setTimeout(() => {
        sample.done = true;
        sample.obs.disconnect();
        resolve({ error: sample.t0 === null ? "no llegó el evento de entrada"
          : sample.text === null ? "la lectura no cambió" : "no terminó de pintar" });
      }, timeoutMs));
      return Promise.race([sample.result, timeout]);
    },
  };
})();
"""
)


# ---------------------------------------------------------------------------------------------
# The controls


def slider(title: str) -> Callable:
    """The keyboard handle of the slider whose title starts with ``title``."""

    def find(page):
        group = page.locator(
            ".bk-input-group", has=page.locator(".bk-slider-title", has_text=title)
        )
        return group.locator(".noUi-handle")

    return find


def css(selector: str, nth: int = 0) -> Callable:
    return lambda page: page.locator(selector).nth(nth)


def button(scope: str, name: str) -> Callable:
    return lambda page: page.locator(scope).get_by_role("button", name=name, exact=True)


def native(role: str, name: str, exact: bool = False) -> Callable:
    """A Board's native control (board.js), named by its label."""
    return lambda page: page.get_by_role(role, name=name, exact=exact)


def token(name: str) -> Callable:
    """A button of the explorer's token group (a Board's choice, named by its label)."""
    group = native("group", "Token que consulta (fila del mapa)")
    return lambda page: group(page).get_by_role("button", name=name, exact=True)


def placeholder(text: str) -> Callable:
    return lambda page: page.get_by_placeholder(text)


@dataclass(frozen=True)
class Control:
    """One control: ``kind`` "teclado" (focus ``target``, press ``steps[k % 2]``), "clic" (click
    ``steps[k % 2]``, locator factories) or "texto" (type ``steps[k % 2]`` into ``target`` and
    press Enter); ``readout`` is the data-testid whose text every change must alter."""

    section: str
    demo: str
    name: str
    kind: str
    readout: str
    steps: tuple
    target: Callable | None = None
    # Unmeasured, before the warm-up and after the last change: put the page in a known state.
    before: Callable | None = None
    after: Callable | None = None

    @property
    def key(self) -> str:
        return f"{self.section}/{self.name}"


SENTENCE_BOX = placeholder("Escribe una frase y pulsa Enter")


def sentence(text: str) -> Callable:
    """Put a sentence into the explorer (unmeasured) and wait until the map shows it."""

    def put(page):
        before = page.evaluate("(t) => __bb.text(t)", "explorer-table")
        box = SENTENCE_BOX(page)
        box.fill(text)
        box.press("Enter")
        page.wait_for_function(
            "(b) => __bb.text('explorer-table') !== b", arg=before, timeout=SECTION_TIMEOUT_MS
        )

    return put


def explorer_defaults(page) -> None:
    """The explorer's "Frase por defecto" button (unmeasured): default sentence, T = 1."""
    page.get_by_role("button", name="Frase por defecto, segundo gato").click()
    page.get_by_text("Temperatura T: 1,00").wait_for(timeout=SECTION_TIMEOUT_MS)


CONTROLS = (
    Control(
        "autoatencion",
        "autoatención",
        "celda X[1,1]",
        "texto",
        "sa-weights",
        ("1,5", "1"),
        css(".sa-editor-X .c04-cell input"),
    ),
    Control(
        "autoatencion",
        "autoatención",
        "preset (lista)",
        "teclado",
        "sa-weights",
        ("ArrowDown", "ArrowUp"),
        css(".sa-preset select"),
    ),
    Control(
        "autoatencion",
        "autoatención",
        "máscara causal",
        "clic",
        "sa-weights",
        (css(".sa-causal input"), css(".sa-causal input")),
    ),
    Control(
        "autoatencion",
        "autoatención",
        "dividir por √d_k",
        "clic",
        "sa-scores",
        (css(".sa-scaled input"), css(".sa-scaled input")),
    ),
    Control(
        "autoatencion",
        "escalado",
        "d_k (deslizador)",
        "teclado",
        "scaling-score-std",
        ("ArrowRight", "ArrowLeft"),
        # The scaling Board's native range, named by its label.
        lambda page: page.get_by_role("slider", name="Dimensión d_k"),
    ),
    Control(
        "autoatencion",
        "escalado",
        "Nueva muestra",
        "clic",
        "scaling-seed",
        (button("body", "Nueva muestra"), button("body", "Nueva muestra")),
    ),
    Control(
        "cabezas",
        "varias cabezas",
        "frase (lista)",
        "teclado",
        "head-1-top",
        ("ArrowDown", "ArrowUp"),
        # The multihead Board's native <select>, named by its label.
        lambda page: page.get_by_role("combobox", name="Frase"),
    ),
    Control(
        "cabezas",
        "varias cabezas",
        "cabezas 2 ↔ 4",
        "clic",
        "head-dims",
        # The Board's group of buttons (its control's css class).
        (button(".mh-heads-control", "2"), button(".mh-heads-control", "4")),
    ),
    Control(
        "posicion",
        "posicional",
        "posiciones (deslizador)",
        "teclado",
        "pe-shape",
        ("ArrowRight", "ArrowLeft"),
        # The positional Board's native ranges, named by their labels.
        lambda page: page.get_by_role("slider", name="Número de posiciones"),
    ),
    Control(
        "posicion",
        "posicional",
        "d_model (deslizador)",
        "teclado",
        "pe-shape",
        ("ArrowRight", "ArrowLeft"),
        lambda page: page.get_by_role("slider", name="d_model"),
    ),
    Control(
        "capital",
        "la capital",
        "identidad (deslizador)",
        "teclado",
        "capital-probability",
        ("ArrowLeft", "ArrowRight"),
        # The capital Board's native range and select, named by their labels.
        lambda page: page.get_by_role("slider", name="Identidad del país"),
    ),
    Control(
        "capital",
        "la capital",
        "país (lista)",
        "teclado",
        "capital-probability",
        ("ArrowDown", "ArrowUp"),
        lambda page: page.get_by_role("combobox", name="País", exact=True),
    ),
    Control(
        "explorador",
        "explorador",
        "botón de token",
        "clic",
        "explorer-row-title",
        (token("duerme"), token("está")),
    ),
    Control(
        "explorador",
        "explorador",
        "token (lista)",
        "teclado",
        "explorer-row-title",
        ("ArrowDown", "ArrowUp"),
        native("combobox", "o elígelo de la lista"),
    ),
    Control(
        "explorador",
        "explorador",
        "temperatura",
        "teclado",
        "explorer-table",
        ("ArrowRight", "ArrowLeft"),
        native("slider", "Temperatura T"),
    ),
    Control(
        "explorador",
        "explorador",
        "codificación posicional",
        "clic",
        "explorer-table",
        (
            native("checkbox", "Codificación posicional"),
            native("checkbox", "Codificación posicional"),
        ),
    ),
    Control(
        "explorador",
        "explorador",
        "máscara causal",
        "clic",
        "explorer-table",
        (native("checkbox", "Máscara causal"), native("checkbox", "Máscara causal")),
    ),
    Control(
        "explorador",
        "explorador",
        "Fíjate: T = 0,1 ↔ 3",
        "clic",
        "explorer-table",
        (native("button", "T = 0,1", exact=True), native("button", "T = 3", exact=True)),
        after=explorer_defaults,
    ),
    Control(
        "explorador",
        "explorador",
        "frase (8–9 palabras)",
        "texto",
        "explorer-table",
        (OTHER_SENTENCE, DEFAULT_SENTENCE),
        SENTENCE_BOX,
    ),
    Control(
        "explorador",
        "explorador",
        "frase (40 palabras)",
        "texto",
        "explorer-table",
        (LONG_A, LONG_B),
        SENTENCE_BOX,
    ),
    Control(
        "explorador",
        "explorador",
        "temperatura (40 palabras)",
        "teclado",
        "explorer-table",
        ("ArrowRight", "ArrowLeft"),
        native("slider", "Temperatura T"),
        before=sentence(LONG_A),
        after=explorer_defaults,
    ),
)
SECTIONS = tuple(dict.fromkeys(c.section for c in CONTROLS))


# ---------------------------------------------------------------------------------------------
# Driving a page


def act(page, control: Control, k: int) -> None:
    """Arm the probe, then do the k-th change of ``control`` with real input."""
    step = control.steps[k % 2]
    if control.kind == "teclado":
        control.target(page).focus()
        page.evaluate("([t, e, k]) => __bb.arm(t, e, k)", [control.readout, "keydown", step])
        page.keyboard.press(step)
    elif control.kind == "clic":
        locator = step(page)
        locator.scroll_into_view_if_needed()
        page.evaluate("([t, e]) => __bb.arm(t, e, null)", [control.readout, "click"])
        locator.click()
    elif control.kind == "texto":
        box = control.target(page)
        box.fill(step)
        page.evaluate("([t, e, k]) => __bb.arm(t, e, k)", [control.readout, "keydown", "Enter"])
        box.press("Enter")
    else:
        raise ValueError(control.kind)


def measure(page, control: Control, warmup: int, reps: int) -> tuple[list[dict], list[str]]:
    page.evaluate("() => __bb.hook()")
    if control.before:
        control.before(page)
    samples, errors = [], []
    total = warmup + reps
    for k in range(total + total % 2):  # an even count: the control ends where it started
        act(page, control, k)
        result = page.evaluate("(ms) => __bb.result(ms)", SAMPLE_TIMEOUT_MS)
        if "error" in result:
            errors.append(f"cambio {k + 1}: {result['error']}")
        elif warmup <= k < total:
            samples.append(result)
    if control.after:
        control.after(page)
    return samples, errors


def stats(samples: list[dict], field: str) -> dict:
    values = [s[field] for s in samples]
    if not values:
        return {"p50": None, "p95": None}
    return {
        "p50": float(np.percentile(values, 50)),
        "p95": float(np.percentile(values, 95)),
    }


def open_page(browser, url: str, section: str, allowed: tuple[str, ...], blocked: list[str]):
    errors: list[str] = []
    page = watched_page(browser, allowed, errors, blocked)
    page.add_init_script(PROBE_JS)
    page.goto(url)
    page.locator(f'[data-testid="section-{section}"]').first.wait_for(
        state="attached", timeout=SECTION_TIMEOUT_MS
    )
    readouts = [c.readout for c in CONTROLS if c.section == section]
    for testid in dict.fromkeys(readouts):
        page.locator(f'[data-testid="{testid}"]').first.wait_for(timeout=SECTION_TIMEOUT_MS)
    page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0")
    page.wait_for_timeout(1000)  # the first paints settle
    return page, errors


def run_mode(browser, mode: str, url_of: Callable[[str], str], sections, warmup, reps, log):
    allowed = LIVE_PREFIXES if mode == "vivo" else OFFLINE_PREFIXES
    rows, blocked, console = [], [], []
    for section in sections:
        page, page_errors = open_page(browser, url_of(section), section, allowed, blocked)
        for control in (c for c in CONTROLS if c.section == section):
            start = time.perf_counter()
            samples, errors = measure(page, control, warmup, reps)
            row = {
                "mode": mode,
                "section": control.section,
                "demo": control.demo,
                "control": control.name,
                "kind": control.kind,
                "readout": control.readout,
                "n": len(samples),
                "text_ms": stats(samples, "text_ms"),
                "painted_ms": stats(samples, "painted_ms"),
                "next_frame_ms": stats(samples, "next_frame_ms"),
                "input_delay_ms": stats(samples, "input_delay_ms"),
                "js_ms": stats(samples, "js_ms"),
                "paint_ms": stats(samples, "paint_ms"),
                "paints_median": (
                    statistics.median(s["paints"] for s in samples) if samples else None
                ),
                "painted_plots": sorted({p for s in samples for p in s["painted_plots"]}),
                "fallback_samples": sum(s["via"] != "mutation" for s in samples),
                "samples": samples,
                "errors": errors,
            }
            rows.append(row)
            row["seconds"] = time.perf_counter() - start
            log(row)
        console += [f"{section}: {e}" for e in page_errors]
        page.close()
    return rows, sorted(set(blocked)), console


# ---------------------------------------------------------------------------------------------
# The export


def newest_source() -> float:
    return max(p.stat().st_mtime for d in SOURCES for p in d.rglob("*") if p.is_file())


def ensure_export(sections) -> str:
    """dist/ as it is when it is newer than every source file, else a fresh export."""
    files = [DIST / f"{s}.html" for s in sections]
    if all(f.exists() for f in files) and min(f.stat().st_mtime for f in files) > newest_source():
        return "dist/ al día"
    print("dist/ falta o es más viejo que dashboards/ o attnmodel/: exportando …", flush=True)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "dashboards.export"], cwd=ROOT, capture_output=True, text=True
    )
    if proc.returncode != 0:
        sys.exit(f"La exportación falló ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return f"exportado de nuevo en {time.perf_counter() - start:.1f} s"


# ---------------------------------------------------------------------------------------------
# Report


def ms(value) -> str:
    return "—" if value is None else f"{value:.1f}"


HEADER = (
    f"{'modo':<7} {'sección':<13} {'control':<26} {'tipo':<8} "
    f"{'texto p50':>9} {'p95':>6} {'pintado p50':>11} {'p95':>6} {'JS p50':>7} "
    f"{'lienzos':>7} {'n':>3}"
)


def print_row(row: dict) -> None:
    target = TARGET_MS[row["mode"]]
    text_ok = row["text_ms"]["p95"] is not None and row["text_ms"]["p95"] <= target
    paint_ok = row["painted_ms"]["p95"] is not None and row["painted_ms"]["p95"] <= target
    mark = f"{'sí' if text_ok else 'NO'}/{'sí' if paint_ok else 'NO'}"
    js = ms(row["js_ms"]["p50"]) if row["mode"] == "export" else "—"
    paints = "—" if row["paints_median"] is None else f"{row['paints_median']:g}"
    line = (
        f"{row['mode']:<7} {row['section']:<13} {row['control']:<26} {row['kind']:<8} "
        f"{ms(row['text_ms']['p50']):>9} {ms(row['text_ms']['p95']):>6} "
        f"{ms(row['painted_ms']['p50']):>11} {ms(row['painted_ms']['p95']):>6} {js:>7} "
        f"{paints:>7} {row['n']:>3}  {mark}"
    )
    if row["errors"]:
        line += f"  errores: {len(row['errors'])} ({row['errors'][0]})"
    print(line, flush=True)


def worst(rows: list[dict], mode: str, field: str) -> dict | None:
    candidates = [r for r in rows if r["mode"] == mode and r[field]["p95"] is not None]
    return max(candidates, key=lambda r: r[field]["p95"]) if candidates else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--reps", type=int, default=20, help="cambios medidos por control")
    parser.add_argument("--warmup", type=int, default=2, help="cambios de calentamiento")
    parser.add_argument("--quick", action="store_true", help="prueba rápida: 3 cambios, 1 previo")
    parser.add_argument("--solo", choices=("vivo", "export"), help="medir un solo modo")
    parser.add_argument(
        "--secciones", nargs="+", choices=SECTIONS, metavar="SECCIÓN", help="solo estas secciones"
    )
    parser.add_argument(
        "--dist", type=Path, help="medir los archivos exportados de esta carpeta (sin exportar)"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "browser_results.json")
    args = parser.parse_args(argv)
    if args.quick:
        args.reps, args.warmup = 3, 1
    if not Path(CHROMIUM).exists():
        sys.exit(f"No se encontró Chromium en {CHROMIUM} (`make test` lo instala con apt-get).")
    modes = [args.solo] if args.solo else ["vivo", "export"]
    sections = args.secciones or SECTIONS

    from playwright.sync_api import sync_playwright

    dist = args.dist.resolve() if args.dist else DIST
    if "export" not in modes:
        export_note = None
    elif args.dist:
        export_note = f"archivos de {dist}"
    else:
        export_note = ensure_export(sections)
    started = time.perf_counter()
    print(
        f"Entrada → texto y → pintado en Chromium; objetivos p95: en vivo ≤ "
        f"{TARGET_MS['vivo']:g} ms, exportación ≤ {TARGET_MS['export']:g} ms "
        f"(última columna: texto/pintado cumplen)"
    )
    if export_note:
        print(f"Exportación: {export_note}")
    print(HEADER)
    print("-" * len(HEADER))
    rows, blocked, console = [], {}, {}
    server = None
    log_path = Path(tempfile.gettempdir()) / "bench-browser-serve.log"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            version = browser.version
            for mode in modes:
                if mode == "vivo":
                    port = _server.free_port()
                    server = _server.start(port, log_path)

                    def url_of(section, port=port):
                        return f"http://127.0.0.1:{port}/lecture?seccion={section}"

                else:

                    def url_of(section, dist=dist):
                        return (dist / f"{section}.html").as_uri()

                mode_rows, blocked[mode], console[mode] = run_mode(
                    browser, mode, url_of, sections, args.warmup, args.reps, print_row
                )
                rows += mode_rows
                if server is not None:
                    _server.stop(server)
                    server = None
            browser.close()
    finally:
        if server is not None:
            _server.stop(server)
    seconds = time.perf_counter() - started

    summary_modes = {}
    for mode in modes:
        target = TARGET_MS[mode]
        mine = [r for r in rows if r["mode"] == mode]
        w_text, w_paint = worst(rows, mode, "text_ms"), worst(rows, mode, "painted_ms")
        summary_modes[mode] = {
            "target_p95_ms": target,
            "worst_text_p95_ms": w_text and w_text["text_ms"]["p95"],
            "worst_text_control": w_text and f"{w_text['section']}/{w_text['control']}",
            "worst_painted_p95_ms": w_paint and w_paint["painted_ms"]["p95"],
            "worst_painted_control": w_paint and f"{w_paint['section']}/{w_paint['control']}",
            "all_text_meet_target": all(
                r["text_ms"]["p95"] is not None and r["text_ms"]["p95"] <= target for r in mine
            ),
            "all_painted_meet_target": all(
                r["painted_ms"]["p95"] is not None and r["painted_ms"]["p95"] <= target
                for r in mine
            ),
            "blocked_requests": blocked.get(mode, []),
            "console_errors": console.get(mode, []),
            "errors": sum(len(r["errors"]) for r in mine),
        }
    summary = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "chromium": version,
        },
        "reps": args.reps,
        "warmup": args.warmup,
        "seconds": seconds,
        "export": export_note,
        "method": {
            "start": "event.timeStamp del keydown/click (listener en captura sobre window)",
            "text": "MutationObserver sobre la raíz (shadow root) de la lectura data-testid",
            "painted": (
                "fin del trabajo del hilo principal del primer cuadro con el texto nuevo y "
                "todos los repintados de lienzos Bokeh (rAF → MessageChannel)"
            ),
            "next_frame": "inicio del cuadro siguiente (dos rAF)",
        },
        "targets_p95_ms": TARGET_MS,
        "modes": summary_modes,
        "controls": rows,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2, ensure_ascii=False), encoding="utf-8")
    print()
    names = {"vivo": "En vivo", "export": "Exportación"}
    for mode, s in summary_modes.items():
        yes = {True: "sí", False: "NO"}
        print(
            f"{names[mode]}: peor p95 texto {ms(s['worst_text_p95_ms'])} ms "
            f"({s['worst_text_control']}), pintado {ms(s['worst_painted_p95_ms'])} ms "
            f"({s['worst_painted_control']}); objetivo ≤ {s['target_p95_ms']:g} ms: texto "
            f"{yes[s['all_text_meet_target']]}, pintado {yes[s['all_painted_meet_target']]}; "
            f"peticiones bloqueadas: {len(s['blocked_requests'])}, errores de consola: "
            f"{len(s['console_errors'])}, cambios fallidos: {s['errors']}"
        )
    print(f"Listo en {seconds:.0f} s · resultados en {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
