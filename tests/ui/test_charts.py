"""Every chart of the lecture draws its marks: live and exported, in Spanish and in English.

A chart can show its axes and nothing else while every number around it is right (issue 35:
the probability bars of "La capital" and of the training section went out live with the colour
"color", the text, instead of the source's column). So each page is loaded once and every chart
on it is read as the browser drew it:

- a Bokeh plot (by name; none is left, the check stays for one that comes back): each glyph
  renderer's kind and data length as expected, each mark's colour as BokehJS resolved it a
  real, not transparent colour, and pixels of those colours on the plot's canvas;
- markup.js's curves (the similarity curves of «Codificación posicional», the loss of
  «Entrenamiento»): each path as many vertices as the model has values, a visible stroke, the
  points expected, filled;
- markup.js's raster (the heat map of the positional encoding): one canvas pixel per cell, each
  of the colour the model's value takes (RdBu over [−1, 1], as Bokeh's colour mapper picks it);
- markup.js's head drawings (the heat map of A, each head of "Varias cabezas" and their sum):
  n × n cells of non-zero size, in each row a cell shaded at least as its largest weight (≥ 1/n,
  the row sums to 1), and arcs that can be seen;
- markup.js's bars (‖J‖, the √d_k bars, «La capital»'s two charts, the training's next word): a
  coloured bar each row, one at least with a width; the charts of «La capital» and of the
  training row by row, each label, bar width and colour from the model's numbers;
- the explorer's map: n × n cells, each row shaded as its largest weight;
- MiniLM's grid (minilm.js): a painted tile per head, each row of a tile with a shade, and
  the chosen head's arcs.

The expected sizes come from the models (attnmodel), not from the views.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from attnmodel import (
    AttentionExplorer,
    CapitalWalkthrough,
    MultiHeadDemo,
    PositionalEncodingDemo,
    SelfAttention,
    TrainingDemo,
)
from attnmodel.i18n import text
from attnmodel.minilm import N_HEADS, N_LAYERS
from attnmodel.training import FACTS
from dashboards.demos.positional import CURVE_STARTS

from c04_testing import raster_colours

pytestmark = pytest.mark.ui

LANGS = ("es", "en")


def _no_charts() -> dict:
    return {
        "plots": {},
        "lines": {},
        "rasters": {},
        "head_plots": {},
        "bars": [],
        "bar_rows": {},
        "maps": {},
        "grids": {},
    }


def _charts() -> dict[str, dict]:
    """Section id -> the charts it shows (the argument of MARKS_JS)."""
    sa_tokens = SelfAttention().X.shape[0]
    heads = MultiHeadDemo()
    n_words = len(heads.tokens)
    pe = PositionalEncodingDemo()
    capital = CapitalWalkthrough()
    training = TrainingDemo()
    charts = {section: _no_charts() for section in SECTIONS}
    charts["autoatencion"]["head_plots"] = {"sa-heatmap": [sa_tokens, False]}
    charts["autoatencion"]["bars"] = ["sa-gradient", "scaling-unscaled-bars", "scaling-scaled-bars"]
    charts["cabezas"]["head_plots"] = {
        **{f"head-{k + 1}-plot": [n_words, True] for k in range(heads.n_heads)},
        "combined-plot": [n_words, True],
    }
    # «Codificación posicional»: the heat map one canvas pixel per cell, each of the colour the
    # model's value takes; the three curves, one vertex per Δ, and how many points.
    charts["posicion"]["rasters"] = {
        "pe-heatmap": [pe.n_positions, pe.d_model, raster_colours(pe.encoding).ravel().tolist()]
    }
    charts["posicion"]["lines"] = {
        "pe-similarity": [[pe.n_positions - start for start in CURVE_STARTS], 0]
    }
    # «La capital»: markup.js bars, a row per token and per word, each bar's width and colour
    # from the model's numbers (attention on 0–1, probability on a fixed 0–0.6).
    charts["capital"]["bars"] = ["capital-attention-bars", "capital-probability-bars"]
    word_colors = {"París": "#0072b2", "Roma": "#d55e00"}
    charts["capital"]["bar_rows"] = {
        "capital-attention-bars": [
            [f"{i} · {token}", 100 * float(a), "#1f5fa8"]
            for i, (token, a) in enumerate(zip(capital.tokens, capital.attention_row, strict=True))
        ],
        "capital-probability-bars": [
            [word, min(100.0, 100 * float(p) / 0.6), word_colors.get(word, "#b8c2cf")]
            for word, p in zip(capital.vocabulary, capital.probability_vector, strict=True)
        ],
    }
    charts["entrenamiento"]["lines"] = {
        "training-loss-chart": [[len(training.loss_curve)], 1],
    }
    # «Entrenamiento»'s next word: markup.js bars, one per capital and one for every other word
    # ("…"), each p on the 0–1 scale, the country's capital blue and the rest grey. The page
    # draws the 4-decimal state: a capital's width within 0.005 % more, the rest's (1 − their
    # sum) within 14 × 0.005 %.
    capitals = list(FACTS.values())
    right = FACTS[training.country]
    p = [float(training.probabilities[w]) for w in capitals]
    charts["entrenamiento"]["bars"] = ["training-probability-bars"]
    charts["entrenamiento"]["bar_rows"] = {
        "training-probability-bars": [
            *(
                [w, 100 * pw, "#0072b2" if w == right else "#b8c2cf", 0.056]
                for w, pw in zip(capitals, p, strict=True)
            ),
            ["…", 100 * (1 - sum(p)), "#b8c2cf", 0.121],
        ]
    }
    charts["explorador"]["maps"] = {"explorer-table": len(AttentionExplorer().tokens)}
    charts["modelo"]["grids"] = {"minilm-grid": N_LAYERS * N_HEADS}
    return charts


SECTIONS = (
    "autoatencion",
    "cabezas",
    "posicion",
    "capital",
    "entrenamiento",
    "explorador",
    "modelo",
)
CHARTS = _charts()


def _all_charts() -> dict:
    """Every section's charts at once (clase04.html has every section)."""
    out = _no_charts()
    for charts in CHARTS.values():
        for key, value in charts.items():
            if isinstance(value, list):
                out[key] = [*out[key], *value]
            else:
                out[key] = {**out[key], **value}
    return out


# A JS function of the expected charts: every problem found with their marks, [] when every one
# is drawn. Read through every shadow root (each Bokeh and Panel view renders into one).
MARKS_JS = """(want) => {
  const problems = [];
  const deepAll = (root, sel, out = []) => {
    out.push(...root.querySelectorAll(sel));
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) deepAll(el.shadowRoot, sel, out);
    }
    return out;
  };
  // A colour as the browser paints it, [r, g, b, a] in 0..255; null for no valid colour.
  const probe = document.createElement("canvas").getContext("2d", { willReadFrequently: true });
  const rgba = (color) => {
    if (typeof color === "number") {  // BokehJS's packed RGBA
      return [(color >>> 24) & 255, (color >>> 16) & 255, (color >>> 8) & 255, color & 255];
    }
    if (typeof color !== "string" || !CSS.supports("color", color)) return null;
    probe.clearRect(0, 0, 1, 1);
    probe.fillStyle = "#000";
    probe.fillStyle = color;
    probe.fillRect(0, 0, 1, 1);
    return Array.from(probe.getImageData(0, 0, 1, 1).data);
  };
  const alpha = (color) => (rgba(color) ?? [0, 0, 0, 0])[3];
  const seen = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== "hidden";
  };
  const shown = (el) => el.getClientRects().length > 0;
  const one = (selector, what) => {
    const found = deepAll(document, selector).filter(shown);
    if (found.length !== 1) problems.push(`${what}: ${found.length} shown, expected 1`);
    return found.length === 1 ? found[0] : null;
  };

  // Bokeh plots, by name: each glyph renderer's data, its resolved colours, its pixels.
  const plots = {};
  for (const doc of Bokeh.documents) {
    for (const m of doc.all_models) {
      if (m.type === "Figure" && m.name in want.plots) plots[m.name] = m;
    }
  }
  for (const [name, glyphs] of Object.entries(want.plots)) {
    const plot = plots[name];
    const view = plot && Bokeh.index.find_one(plot);
    if (!view) {
      problems.push(`${name}: no plot view`);
      continue;
    }
    if (!seen(view.el)) problems.push(`${name}: the plot has no size`);
    const renderers = plot.renderers.filter((r) => r.type === "GlyphRenderer");
    const drawn = JSON.stringify(renderers.map((r) => [r.glyph.type, r.data_source.get_length()]));
    if (drawn !== JSON.stringify(glyphs)) {
      problems.push(`${name}: glyphs and lengths ${drawn}, expected ${JSON.stringify(glyphs)}`);
    }
    const canvas = view.canvas_view.primary.canvas;
    const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    for (const r of renderers) {
      const rv = Bokeh.index.find_one(r);
      const where = `${name} ${r.glyph.type}`;
      if (!rv) {
        problems.push(`${where}: no view`);
        continue;
      }
      const glyph = rv.glyph;
      if (r.glyph.type === "Image") {
        for (const img of glyph.image_data ?? [null]) {
          const size = img ? img.width * img.height : 0;
          const ctx = img && img.getContext("2d");
          const data = size ? ctx.getImageData(0, 0, img.width, img.height).data : [];
          const painted = data.filter((v, k) => k % 4 === 3 && v > 0).length;
          if (!size || painted !== size) {
            problems.push(`${where}: ${painted} of ${size} pixels of the image painted`);
          }
        }
        continue;
      }
      // The colour each mark is drawn with: its fill where it has one, else its line.
      const kind = glyph.visuals.fill ? "fill" : "line";
      const visual = glyph.visuals[kind];
      const colors = new Set();
      for (let i = 0; i < r.data_source.get_length(); i++) {
        const color = visual[`${kind}_color`].get(i);
        const c = rgba(color);
        if (c === null || c[3] === 0 || !(visual[`${kind}_alpha`].get(i) > 0)) {
          problems.push(`${where}: mark ${i} has no colour (${JSON.stringify(color)})`);
        } else {
          colors.add(c.slice(0, 3).join());
        }
      }
      // The canvas has pixels of those colours (not each one's: a bar may be under a pixel).
      const rgbs = [...colors].map((s) => s.split(",").map(Number));
      const near = (k) =>
        rgbs.some(([R, G, B]) =>
          Math.abs(pixels[k] - R) + Math.abs(pixels[k + 1] - G) + Math.abs(pixels[k + 2] - B) < 24
        );
      let hits = 0;
      for (let k = 0; k < pixels.length; k += 4) if (pixels[k + 3] > 0 && near(k)) hits++;
      if (hits < 30) problems.push(`${where}: ${hits} pixels of its colours on the canvas`);
    }
  }

  // markup.js's curves (lines): per series a path with one vertex per value, a real stroke
  // colour, a width and a size on screen; the points expected, each filled.
  for (const [testid, [lengths, points]] of Object.entries(want.lines)) {
    const chart = one(`.c04-chart[data-testid="${testid}"]`, testid);
    if (!chart) continue;
    if (!seen(chart)) problems.push(`${testid}: the chart has no size`);
    const paths = [...chart.querySelectorAll("svg path.c04-line")];
    const drawn = paths.map((p) => ((p.getAttribute("d") || "").match(/[ML]/g) || []).length);
    if (JSON.stringify(drawn) !== JSON.stringify(lengths)) {
      const expected = JSON.stringify(lengths);
      problems.push(`${testid}: vertices ${JSON.stringify(drawn)}, expected ${expected}`);
    }
    paths.forEach((path, k) => {
      const style = getComputedStyle(path);
      if (lengths[k] > 1 && (!alpha(style.stroke) || !(parseFloat(style.strokeWidth) > 0) ||
          !(path.getBBox().width > 0))) {
        problems.push(`${testid}: series ${k} not visible (${style.stroke})`);
      }
    });
    const dots = [...chart.querySelectorAll("svg circle.c04-point")];
    if (dots.length !== points) problems.push(`${testid}: ${dots.length} points, not ${points}`);
    for (const dot of dots) {
      if (!seen(dot) || !alpha(getComputedStyle(dot).fill)) {
        problems.push(`${testid}: a point not visible`);
      }
    }
  }

  // markup.js's rasters: a canvas of one pixel per cell, laid out with a size, every pixel of
  // the colour expected (n × d × [r, g, b]).
  for (const [testid, [n, d, rgb]] of Object.entries(want.rasters)) {
    const fig = one(`.c04-raster[data-testid="${testid}"]`, testid);
    if (!fig) continue;
    const canvas = fig.querySelector("canvas.c04-raster-canvas");
    if (!canvas || canvas.width !== d || canvas.height !== n || !seen(canvas)) {
      const size = canvas ? `${canvas.width} × ${canvas.height}` : "none";
      problems.push(`${testid}: canvas ${size}, not ${d} × ${n}`);
      continue;
    }
    const data = canvas.getContext("2d").getImageData(0, 0, d, n).data;
    let wrong = 0;
    for (let k = 0; k < n * d; k++) {
      const same = data[4 * k + 3] === 255 && data[4 * k] === rgb[3 * k] &&
        data[4 * k + 1] === rgb[3 * k + 1] && data[4 * k + 2] === rgb[3 * k + 2];
      if (!same) wrong++;
    }
    if (wrong) problems.push(`${testid}: ${wrong} of ${n * d} cells not of their colour`);
  }

  // markup.js's head drawings (head_plot): n × n cells with a size, in each row a cell shaded
  // at least as the row's largest weight (≥ 1/n); arcs that can be seen.
  for (const [testid, [n, withArcs]] of Object.entries(want.head_plots)) {
    const head = one(`.c04-head[data-testid="${testid}"]`, testid);
    if (!head) continue;
    const cells = [...head.querySelectorAll("rect.c04-head-cell")];
    if (cells.length !== n * n) problems.push(`${testid}: ${cells.length} cells, not ${n * n}`);
    if (!cells.every(seen)) problems.push(`${testid}: a cell of no size`);
    for (let i = 0; i < n; i++) {
      const row = cells.filter((c) => c.dataset.row === String(i));
      const best = Math.max(0, ...row.map((c) => alpha(getComputedStyle(c).fill)));
      if (!(best >= 255 / n - 1)) problems.push(`${testid}: row ${i} shaded ${best}/255 at most`);
    }
    const arcs = [...head.querySelectorAll("path.c04-head-arc")];
    if (withArcs && arcs.length === 0) problems.push(`${testid}: no arcs`);
    for (const arc of arcs) {
      const style = getComputedStyle(arc);
      const width = parseFloat(style.strokeWidth);
      if (!seen(arc) || !alpha(style.stroke) || !(style.strokeOpacity > 0) || !(width > 0)) {
        problems.push(`${testid}: arc ${arc.dataset.row}→${arc.dataset.col} not visible`);
      }
    }
  }

  // markup.js's bars: a coloured bar each row, one at least with a width.
  for (const testid of want.bars) {
    const table = one(`table[data-testid="${testid}"]`, testid);
    if (!table) continue;
    const bars = [...table.rows].slice(1).map((tr) => tr.querySelector("td > div"));
    if (bars.length === 0 || bars.some((bar) => !bar)) {
      problems.push(`${testid}: ${bars.length} rows, a bar missing`);
      continue;
    }
    for (const bar of bars) {
      const height = bar.getBoundingClientRect().height;
      if (!alpha(getComputedStyle(bar).backgroundColor) || !(height > 0)) {
        problems.push(`${testid}: a bar not coloured`);
      }
    }
    if (!bars.some(seen)) problems.push(`${testid}: every bar of no width`);
  }

  // markup.js's bars row by row: [label, width (% of the bar column), colour, and optional the
  // width's tolerance (markup.js's one decimal, 0.051, unless said)] each, the width as the
  // style says and as laid out (within 2 points: a pixel's rounding).
  for (const [testid, rows] of Object.entries(want.bar_rows)) {
    const table = one(`table[data-testid="${testid}"]`, `${testid} (rows)`);
    if (!table) continue;
    const drawn = [...table.rows].slice(1);
    if (drawn.length !== rows.length) {
      problems.push(`${testid}: ${drawn.length} rows, not ${rows.length}`);
      continue;
    }
    rows.forEach(([label, width, color, tolerance = 0.051], i) => {
      const tr = drawn[i];
      const bar = tr.querySelector("td > div");
      const where = `${testid} row ${i + 1}`;
      if (tr.cells[0].textContent !== label) {
        problems.push(`${where}: label ${tr.cells[0].textContent}, expected ${label}`);
      }
      if (!bar) {
        problems.push(`${where}: no bar`);
        return;
      }
      const styled = parseFloat(bar.style.width);
      if (!(Math.abs(styled - width) <= tolerance)) {
        problems.push(`${where}: bar ${styled}%, expected ${width.toFixed(2)}%`);
      }
      const cell = bar.parentElement;
      const pad = getComputedStyle(cell);
      const inner = cell.clientWidth - parseFloat(pad.paddingLeft) - parseFloat(pad.paddingRight);
      const laid = (100 * bar.getBoundingClientRect().width) / inner;
      if (!(inner > 0) || !(Math.abs(laid - width) <= 2)) {
        problems.push(`${where}: bar laid out at ${laid.toFixed(1)}%, not ${width.toFixed(2)}%`);
      }
      const got = rgba(getComputedStyle(bar).backgroundColor);
      const expected = rgba(color);
      if (!got || !expected || got.join() !== expected.join()) {
        problems.push(`${where}: bar coloured ${JSON.stringify(got)}, expected ${color}`);
      }
    });
  }

  // The explorer's map (markup.js heatmap): n × n cells, each row shaded as its largest weight.
  for (const [testid, n] of Object.entries(want.maps)) {
    const table = one(`table.c04-map[data-testid="${testid}"]`, testid);
    if (!table) continue;
    const rows = [...table.tBodies[0].rows];
    if (rows.length !== n) problems.push(`${testid}: ${rows.length} rows, not ${n}`);
    rows.forEach((tr, i) => {
      const cells = [...tr.querySelectorAll("td")];
      if (cells.length !== n || !cells.every(seen)) {
        problems.push(`${testid}: row ${i} has ${cells.length} cells or one of no size`);
      }
      const best = Math.max(0, ...cells.map((c) => alpha(getComputedStyle(c).backgroundColor)));
      if (!(best >= 255 / n - 1)) problems.push(`${testid}: row ${i} shaded ${best}/255 at most`);
    });
  }

  // MiniLM's grid (minilm.js): a painted tile per head, each row of a tile with a shade
  // (the tile goes from white to blue, and a row's weights sum to 1); the chosen head's arcs.
  // The tiles are parts of one image, the tiles one under the other (its background): tile t
  // shows the part t of `tiles`, and that part of the image, decoded here, is painted.
  for (const [testid, tiles] of Object.entries(want.grids)) {
    const grid = one(`[data-testid="${testid}"]`, testid);
    if (!grid) continue;
    const boxes = [...grid.querySelectorAll(".c04-headgrid-table button .c04-headgrid-tile")];
    if (boxes.length !== tiles) {
      problems.push(`${testid}: ${boxes.length} tiles, not ${tiles}`);
    }
    const urls = new Set(boxes.map((box) => getComputedStyle(box).backgroundImage));
    const css = urls.size === 1 ? [...urls][0] : "";
    const png = css.startsWith('url("data:image/png;') && css.endsWith('")');
    const src = png ? css.slice(5, -2) : null;
    if (!src) problems.push(`${testid}: the tiles show ${urls.size} images, not one PNG`);
    boxes.forEach((box, t) => {
      const style = getComputedStyle(box);
      const y = tiles > 1 ? (100 * t) / (tiles - 1) : 0;
      if (!seen(box) || style.backgroundSize !== `100% ${100 * tiles}%`
          || Math.abs(parseFloat(style.backgroundPositionY) - y) > 1e-3) {
        const shows = `${style.backgroundSize} at ${style.backgroundPositionY}`;
        problems.push(`${testid}: tile ${t} shows ${shows}`);
      }
    });
    if (!src) continue;
    // The image decodes asynchronously: the first look starts it, a later one reads it.
    const cache = (window.__marksImages = window.__marksImages || new Map());
    if (!cache.has(src)) {
      const img = new Image();
      img.src = src;
      cache.set(src, img);
    }
    const img = cache.get(src);
    if (!img.complete || img.naturalWidth === 0) {
      problems.push(`${testid}: its image is not decoded yet`);
      continue;
    }
    const w = img.naturalWidth;
    const n = img.naturalHeight / tiles;
    if (!(n >= 1 && Number.isInteger(n) && w === n)) {
      problems.push(`${testid}: image ${w} × ${img.naturalHeight} for ${tiles} square tiles`);
      continue;
    }
    const sheet = document.createElement("canvas");
    sheet.width = w;
    sheet.height = img.naturalHeight;
    const ctx = sheet.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(img, 0, 0);
    const data = ctx.getImageData(0, 0, w, img.naturalHeight).data;
    for (let t = 0; t < tiles; t++) {
      let shaded = 0;
      for (let i = t * n; i < (t + 1) * n; i++) {
        for (let j = 0; j < w; j++) {
          const k = 4 * (i * w + j);
          if (data[k + 3] > 0 && data[k] < 250) {
            shaded++;
            break;
          }
        }
      }
      if (shaded !== n) problems.push(`${testid}: tile ${t} has ${shaded} of ${n} rows shaded`);
    }
    const arcs = [...grid.querySelectorAll(".c04-headgrid-arcs svg > path")];
    if (arcs.length === 0) problems.push(`${testid}: the chosen head draws no arcs`);
    for (const arc of arcs) {
      const style = getComputedStyle(arc);
      if (!seen(arc) || !alpha(style.stroke) || !(style.strokeOpacity > 0)) {
        problems.push(`${testid}: an arc not visible`);
      }
    }
  }
  return problems;
}"""


def assert_marks(page, want: dict, where: str) -> None:
    """Wait until every chart of ``want`` on ``page`` draws its marks; else fail with what
    MARKS_JS found wrong."""
    try:
        page.wait_for_function(
            f"(want) => ({MARKS_JS})(want).length === 0", arg=want, polling=250, timeout=30_000
        )
    except PlaywrightTimeoutError:
        problems = page.evaluate(MARKS_JS, want)
        pytest.fail(f"{where}: charts without their marks:\n" + "\n".join(problems))


@pytest.mark.parametrize("lang", LANGS)
def test_live_charts_draw_their_marks(page, watch, lecture_url, lang):
    """One load of the live lecture per language, on the first section; each other section
    with charts chosen from the navigation (the lecture shows one section at a time) and its
    charts read once drawn."""
    page.goto(f"{lecture_url}?lang={lang}&seccion={SECTIONS[0]}")
    for section in SECTIONS:
        if section != SECTIONS[0]:
            label = text(f"section.{section}", lang)
            page.get_by_role("button", name=label, exact=True).click()
        page.locator(f'[data-testid="section-{section}"]').first.wait_for(
            state="attached", timeout=30_000
        )
        assert_marks(page, CHARTS[section], f"live {lang} {section}")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("section", SECTIONS)
def test_exported_charts_draw_their_marks(open_export, section, lang):
    filename = f"{section}.html" if lang == "es" else f"{lang}/{section}.html"
    page = open_export(filename)
    assert_marks(page, CHARTS[section], f"export {filename}")


@pytest.mark.parametrize("lang", LANGS)
def test_the_whole_exported_lecture_draws_every_chart(whole_lecture, lang):
    """clase04.html: every section's charts at once."""
    page, offline = whole_lecture(lang)
    assert_marks(page, _all_charts(), f"export {lang} clase04.html")
    assert offline.console_errors == []
    assert offline.external == []
