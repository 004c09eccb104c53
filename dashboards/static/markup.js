/* The lecture's markup: the one place where a shown number becomes HTML.
 *
 * C04.markup[kind](spec) returns the HTML of one fragment from its spec: plain JSON made of
 * text already written in the page's language (numbers formatted, catalogue text filled) and of
 * the numbers the markup itself needs (a cell's shade, a bar's width). The live app's views
 * build the specs in Python (dashboards/demos/<demo>.py, render) and send them to a Markup component
 * (dashboards.components.markup.Markup), whose browser side calls this file; the offline export's twins
 * (dashboards/static/demos/<demo>.js) build the same specs from their own numbers and hand them to
 * the same components. So only the numbers exist twice (tested equal within 1e-12), the HTML
 * once.
 *
 * A classic script with no dependency: the live page loads it by URL (pn.config.js_files,
 * served from /c04/), the export inlines it with the twins.
 */
(function () {
  "use strict";

  const root = typeof window !== "undefined" ? window : globalThis;
  const C04 = (root.C04 = root.C04 || {});

  const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };

  /** html.escape(text) of Python: the five characters. */
  function esc(text) {
    return String(text).replace(/[&<>"']/g, (c) => ESCAPES[c]);
  }

  const testid = (id) => (id ? ` data-testid="${esc(id)}"` : "");

  function clip01(v) {
    return v < 0 ? 0 : v > 1 ? 1 : v;
  }

  const TAGS = new Set(["span", "b"]);

  /**
   * A label (any text a spec shows): a text (escaped); {html}, a piece of the catalogue's own
   * text and markup (dashboards.components.markup.rich: never what a student typed); {text, lang, testid,
   * tag} an element around a label (a word kept in another language, a number the tests find);
   * or a list of labels, one after the other.
   */
  function label(value) {
    if (Array.isArray(value)) return value.map(label).join("");
    if (value === null || value === undefined) return "";
    if (typeof value !== "object") return esc(value);
    if (typeof value.html === "string") return value.html;
    const tag = TAGS.has(value.tag) ? value.tag : "span";
    const lang = value.lang ? ` lang="${esc(value.lang)}"` : "";
    return `<${tag}${lang}${testid(value.testid)}>${label(value.text)}</${tag}>`;
  }

  // The weights' blue (#1f5fa8) laid over white with opacity alpha, as the browser paints it.
  const SHADE = [31, 95, 168];
  function luminance(alpha) {
    const channel = (c) => {
      const v = (255 * (1 - alpha) + c * alpha) / 255;
      return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    };
    const [r, g, b] = SHADE.map(channel);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  /**
   * The text colour on a cell shaded with opacity alpha: white or black, whichever contrasts
   * more (WCAG's ratio). The worse of the two best is 4.6:1, at the crossing: never under AA's
   * 4.5:1, as the old fixed switch at 0.55 was (2.3:1 just under it).
   */
  function ink(alpha) {
    const l = luminance(alpha);
    return (1.05 / (l + 0.05) >= (l + 0.05) / 0.05) ? "#fff" : "#000";
  }

  /**
   * A matrix as a table. spec: {testid, title, cols: [label], rows: [{label, cells: [text |
   * null], shade: [weight in [0, 1]] | null, sum: text | null}], note: text | null}. A null
   * cell is masked (−∞ on grey); a shaded cell is blue in proportion to its weight, its text
   * white or black (ink()); the note goes under the table. With details (a label) the table is
   * folded under that summary, closed until opened (the numbers of a plot a canvas draws,
   * beside the plot: a closed one costs no layout on each change); data-key keeps it open
   * across redraws (dashboards.components.markup.Markup).
   */
  function matrix(spec) {
    const rows = spec.rows || [];
    const sums = rows.some((row) => row.sum != null);
    const parts = [`<table class="c04-matrix"${testid(spec.testid)}>`];
    if (spec.title && spec.title.length) parts.push(`<caption>${label(spec.title)}</caption>`);
    parts.push("<tr><th></th>" + spec.cols.map((c) => `<th>${label(c)}</th>`).join(""));
    if (sums) parts.push("<th></th>");
    parts.push("</tr>");
    for (const row of rows) {
      const cells = row.cells.map((text, j) => {
        if (text === null) return '<td class="c04-masked">−∞</td>';
        let style = "";
        if (row.shade) {
          const alpha = clip01(row.shade[j]);
          const color = ink(alpha);
          style = ` style="background: rgba(31,95,168,${alpha.toFixed(3)}); color: ${color}"`;
        }
        return `<td${style}>${esc(text)}</td>`;
      });
      const sum = row.sum != null ? `<td class="c04-sum">Σ = ${esc(row.sum)}</td>` : "";
      parts.push(`<tr><th>${label(row.label)}</th>${cells.join("")}${sum}</tr>`);
    }
    parts.push("</table>");
    if (spec.note) parts.push(`<div class="c04-note">${esc(spec.note)}</div>`);
    if (spec.details) {
      return (
        `<details class="c04-numbers" data-key="${esc(spec.testid || "")}">` +
        `<summary>${label(spec.details)}</summary>${parts.join("")}</details>`
      );
    }
    return parts.join("");
  }

  /**
   * Per row, a value, a bar and a note (the softmax gradient of "Autoatención", the attention
   * of one query in "¿Por qué dividir por √d_k?", the two charts of «La capital», the next-word
   * bars of «Entrenamiento»). spec: {testid, head, rows: [{label, value, width: 0–100 (% of the
   * bar), note}]} and, optional,
   * caption (the table's title), corner (the label column's header), note_head (the notes'
   * column's header), color (the bars'), a row's
   * own color (its bar's, over the spec's) and bar_em (the bar column's width, in em); a row's
   * label is a label (label(): a word kept in another language is marked); the value cells are
   * <testid>-1, …
   */
  function bars(spec) {
    const color = spec.color || "#1f5fa8";
    const barEm = Number(spec.bar_em) || 8;
    const rows = spec.rows.map(
      (row, i) =>
        `<tr><th>${label(row.label)}</th><td${testid(`${spec.testid}-${i + 1}`)}>${esc(row.value)}</td>` +
        `<td style="border:none; min-width:${barEm}em"><div style="background:${esc(row.color || color)}; height:10px; ` +
        `width:${(clip01(row.width / 100) * 100).toFixed(1)}%"></div></td>` +
        `<td class="c04-sum" style="color:#a40000">${esc(row.note)}</td></tr>`
    );
    const caption = spec.caption ? `<caption>${esc(spec.caption)}</caption>` : "";
    return (
      `<table class="c04-matrix"${testid(spec.testid)}>${caption}` +
      `<tr><th>${esc(spec.corner || "")}</th><th>${esc(spec.head)}</th><th></th>` +
      `<th>${esc(spec.note_head || "")}</th></tr>` +
      `${rows.join("")}</table>`
    );
  }

  /** One big number with its label and unit. spec: {testid, label, value, unit} (labels). */
  function readout(spec) {
    return (
      `<div class="c04-readout"${testid(spec.testid)}><div class="c04-label">${label(spec.label)}` +
      `</div><div class="c04-value">${label(spec.value)}</div>` +
      `<div class="c04-unit">${label(spec.unit)}</div></div>`
    );
  }

  /** Several readouts side by side. spec: {items: [readout spec]}. */
  function readouts(spec) {
    return spec.items.map(readout).join("");
  }

  /** A line of text. spec: {testid, cls, text (a label: see label())}. */
  function note(spec) {
    return `<div class="${esc(spec.cls || "c04-note")}"${testid(spec.testid)}>${label(spec.text)}</div>`;
  }

  /**
   * The explorer's attention map: whole percentages shaded by weight. spec: {testid, corner,
   * tokens, focus, causal, cells: [[text]], weights: [[w]], cell}. Cell (i, j) is <cell>-i-j
   * ("cell" by default: the explorer's; another map on the page names its own); the
   * focus row has class "f"; with causal, cells j > i are masked ("m"); "d" (white text)
   * where ink() says white.
   * Built as one list of strings: a 40-token sentence is 1600 cells.
   */
  /** Cell (i, j) of the map: its class ("m" masked, "d" white text, null) and its style (the
   * shade by weight, null when masked); heatmap() and heatmap.update() both draw it. */
  function mapCell(spec, i, j) {
    if (spec.causal && j > i) return ["m", null];
    const w = clip01(spec.weights[i][j]);
    return [ink(w) === "#fff" ? "d" : null, `background:rgba(31,95,168,${w.toFixed(3)})`];
  }

  function heatmap(spec) {
    const names = spec.tokens.map(esc);
    const cell = esc(spec.cell || "cell"); // the cells' data-testid: <cell>-<i>-<j>
    const parts = [
      `<div class="c04-map-wrap"><table class="c04-map"${testid(spec.testid)}>` +
        `<thead><tr><th>${esc(spec.corner)}</th>`,
    ];
    for (const name of names) parts.push(`<th>${name}</th>`);
    parts.push("</tr></thead><tbody>");
    for (let i = 0; i < names.length; i++) {
      parts.push(i === spec.focus ? '<tr class="f">' : "<tr>");
      parts.push(`<th>${names[i]}</th>`);
      const cells = spec.cells[i];
      for (let j = 0; j < names.length; j++) {
        const [cls, style] = mapCell(spec, i, j);
        parts.push(
          `<td${cls ? ` class="${cls}"` : ""}${style ? ` style="${style}"` : ""} ` +
            `data-testid="${cell}-${i}-${j}">${esc(cells[j])}</td>`
        );
      }
      parts.push("</tr>");
    }
    parts.push("</tbody></table></div>");
    return parts.join("");
  }

  /** Redraw ``heatmap(spec)`` in ``el`` over the map it already holds when that map has as many
   * tokens: each cell's text, class and shade, each heading's text and the focus row are set
   * where they changed, and ``el`` ends up as ``innerHTML = heatmap(spec)`` would leave it
   * (tests/ui/test_twin_explorer.py). A map of 40 tokens is 1 600 cells, and building them all
   * again made the browser create and style every cell on each change of the temperature
   * (bench/bench_browser.py, the explorer, runs back to back: the export's painted p50 76 → 44
   * ms, live 122 → 88 ms). False (nothing done) when the map has another size. */
  heatmap.update = function (el, spec) {
    const table = el.querySelector("table.c04-map");
    const n = spec.tokens.length;
    if (!table || el.childElementCount !== 1 || table.rows.length !== n + 1) return false;
    if (table.rows[0].cells.length !== n + 1) return false;
    setAttr(table, "data-testid", spec.testid ? spec.testid : null);
    const head = table.rows[0].cells;
    setText(head[0], spec.corner);
    for (let j = 0; j < n; j++) setText(head[j + 1], spec.tokens[j]);
    for (let i = 0; i < n; i++) {
      const row = table.rows[i + 1];
      setAttr(row, "class", i === spec.focus ? "f" : null);
      setText(row.cells[0], spec.tokens[i]);
      for (let j = 0; j < n; j++) {
        const td = row.cells[j + 1];
        const [cls, style] = mapCell(spec, i, j);
        setAttr(td, "class", cls);
        setAttr(td, "style", style);
        setAttr(td, "data-before", null); // compare()'s mark of the drawing before
        setText(td, spec.cells[i][j]);
      }
    }
    return true;
  };

  /** ``node``'s attribute set to ``value`` (removed for null), only if it differs. */
  function setAttr(node, name, value) {
    if (value === null) {
      if (node.hasAttribute(name)) node.removeAttribute(name);
    } else if (node.getAttribute(name) !== value) {
      node.setAttribute(name, value);
    }
  }

  /** ``node``'s text set to ``text``, only if it differs. */
  function setText(node, text) {
    const value = String(text);
    if (node.textContent !== value) node.textContent = value;
  }

  /**
   * One query's row of the map as bars: "Adónde mira <token>", a bar per key token. spec:
   * {testid, title, tokens, focus, causal, cells: [text], widths: [0–100]}; the percentage of
   * token j is row-j; with causal, the tokens after the focus are masked ("m").
   */
  function focus_row(spec) {
    const parts = [
      `<div class="c04-row-title"${testid(`${spec.testid}-title`)}>${esc(spec.title)}</div>` +
        `<div class="c04-bars"${testid(spec.testid)}>`,
    ];
    spec.tokens.forEach((token, j) => {
      const masked = spec.causal && j > spec.focus ? ' m"' : '"';
      parts.push(
        `<div class="t${masked}>${esc(token)}</div>` +
          `<div class="b"><div style="width:${spec.widths[j].toFixed(2)}%"></div></div>` +
          `<div class="p${masked} data-testid="row-${j}">${esc(spec.cells[j])}</div>`
      );
    });
    parts.push("</div>");
    return parts.join("");
  }

  /**
   * The capital walkthrough's tokens with their positions. spec: {testid, tokens: [label],
   * country, query (their positions, marked), note (a label, under the tokens)}.
   */
  function tokens(spec) {
    const chips = spec.tokens.map((token, pos) => {
      let cls = "c04-token";
      if (pos === spec.country) cls += " c04-country";
      else if (pos === spec.query) cls += " c04-query";
      return `<div class="${cls}">${label(token)}<small>pos ${pos}</small></div>`;
    });
    return (
      `<div class="c04-tokens"${testid(spec.testid)}>${chips.join("")}</div>` +
      `<div class="c04-note">${label(spec.note)}</div>`
    );
  }

  // -- One head of "Varias cabezas" (dashboards/static/demos/multihead.js, plotSpec), and the
  // heat map of A (dashboards/demos/self_attention.py, heatmap_spec: the matrix alone) ----------
  //
  // Drawn here, as SVG, from the weights: it was two Bokeh canvases per head (ten for four
  // heads and their sum), the slowest section to paint (make bench, browser and phone), and
  // one more figure in the first section of every session. Only this file knows the geometry;
  // Python sends the numbers and the texts.
  const HEAD = {
    fade: 0.1, // opacity factor of the arcs of the rows not hovered
    arc_width: 8, // an arc's stroke width is arc_width · α (drawing units), its opacity α
    // The arc diagram: tokens at x = 0 … n − 1 in [−0.6, n − 0.4], y in [−0.45, 3.0].
    arcs: { width: 600, height: 300, y0: -0.45, y1: 3.0 },
    base_y: 0.18, // arcs start and end just above the token labels
    loop: 0.16, // i = j: a loop of this radius above the token
    arc_height: [0.35, 0.28], // i ≠ j: height a + b·|i − j| (leftward arcs) …
    rightward: 0.8, // … times this for rightward arcs (j > i), so i→j and j→i do not overlap
    arrow: [0.09, 0.16], // arrowhead at j: half width and height of the "V"
    // The matrix: square cells in a fixed frame, room for the labels around it.
    matrix: { width: 370, height: 320, left: 96, right: 6, top: 6, bottom: 70, gap: 5 },
  };

  const fixed = (v) => (Math.round(v * 10) / 10).toString();

  // A token of a drawing: a text, or {text, lang} (a word kept in another language): its
  // plain text (an SVG text's) and the attribute that marks its language.
  const plain = (token) => (token !== null && typeof token === "object" ? String(token.text) : String(token));
  const langOf = (token) =>
    token !== null && typeof token === "object" && token.lang ? ` lang="${esc(token.lang)}"` : "";
  // A tooltip is HTML (below, showTip), kept in the element's data-tip: an SVG <title> is plain
  // text, so a word kept in Spanish could not be marked there, and no phone shows it.
  const tip = (html) => ` data-tip="${esc(html)}"`;

  function headArcs(spec, n) {
    const { width, height, y0, y1 } = HEAD.arcs;
    const dx = width / (n + 0.2);
    const sy = height / (y1 - y0);
    const X = (x) => (x + 0.6) * dx;
    const Y = (y) => height - (y - y0) * sy;
    const base = Y(HEAD.base_y);
    const parts = [
      `<svg class="c04-head-arcs" viewBox="0 0 ${width} ${height}" style="width:${width}px" ` +
        'role="img" ' +
        `aria-label="${esc(spec.texts.arcs)}">`,
    ];
    for (const [i, j] of spec.arcs) {
      const a = spec.weights[i][j];
      let d;
      if (i === j) {
        // A loop above the token: two half ellipses (a circle in the data's units).
        const rx = HEAD.loop * dx;
        const ry = HEAD.loop * sy;
        d = `M${fixed(X(i))} ${fixed(base)}a${fixed(rx)} ${fixed(ry)} 0 1 1 0 ${fixed(-2 * ry)}` +
          `a${fixed(rx)} ${fixed(ry)} 0 1 1 0 ${fixed(2 * ry)}`;
      } else {
        // Half an ellipse from i to j above the line, then a "V" pointing down at j.
        const [h0, h1] = HEAD.arc_height;
        const h = (h0 + h1 * Math.abs(i - j)) * (j < i ? 1 : HEAD.rightward);
        const sweep = j > i ? 1 : 0;
        const wingX = HEAD.arrow[0] * dx;
        const wingY = Y(HEAD.base_y + HEAD.arrow[1]);
        d = `M${fixed(X(i))} ${fixed(base)}A${fixed((Math.abs(i - j) / 2) * dx)} ${fixed(h * sy)} ` +
          `0 0 ${sweep} ${fixed(X(j))} ${fixed(base)}M${fixed(X(j) - wingX)} ${fixed(wingY)}` +
          `L${fixed(X(j))} ${fixed(base)}L${fixed(X(j) + wingX)} ${fixed(wingY)}`;
      }
      parts.push(
        `<path class="c04-head-arc" data-row="${i}" data-col="${j}" d="${d}" fill="none" ` +
          `stroke="${esc(spec.color)}" stroke-opacity="${a}" stroke-width="${HEAD.arc_width * a}" ` +
          `stroke-linecap="round" stroke-linejoin="round"` +
          tip(`${label(spec.tokens[i])} → ${label(spec.tokens[j])}: α = ${esc(spec.cells[i][j])}`) +
          "/>"
      );
    }
    parts.push(`<g fill="#888">`);
    for (let i = 0; i < n; i++) parts.push(`<circle cx="${fixed(X(i))}" cy="${fixed(base)}" r="2"/>`);
    parts.push(`</g><g font-size="16" fill="#111" text-anchor="middle">`);
    spec.tokens.forEach((token, i) => {
      parts.push(
        `<text${langOf(token)} x="${fixed(X(i))}" y="${fixed(Y(0))}" dy="0.9em">` +
          `${esc(plain(token))}</text>`
      );
    });
    parts.push("</g></svg>");
    return parts.join("");
  }

  function headMatrix(spec, n) {
    const frame = Object.assign({}, HEAD.matrix, spec.frame || {});
    const { width, height, left, right, top, bottom, gap } = frame;
    const side = Math.min((width - left - right) / n, (height - top - bottom) / n);
    const t = spec.texts;
    const parts = [
      `<svg class="c04-head-matrix" viewBox="0 0 ${width} ${height}" style="width:${width}px" ` +
        'role="img" ' +
        `aria-label="${esc(t.matrix)}">`,
    ];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const a = clip01(spec.weights[i][j]);
        const x = left + j * side;
        const y = top + i * side;
        parts.push(
          `<rect class="c04-head-cell" data-row="${i}" data-col="${j}" x="${fixed(x)}" y="${fixed(y)}" ` +
            `width="${fixed(side)}" height="${fixed(side)}" fill="rgba(31,95,168,${a.toFixed(3)})"` +
            tip(
              `${esc(t.query)}: ${label(spec.tokens[i])}<br>${esc(t.key)}: ` +
                `${label(spec.tokens[j])}<br>${esc(t.weight)}: ${esc(spec.tips[i][j])}`
            ) +
            "/>"
        );
        if (spec.cells[i][j]) {
          parts.push(
            `<text x="${fixed(x + side / 2)}" y="${fixed(y + side / 2)}" fill="${ink(a)}" ` +
              // Not a target: the pointer stays on the cell (its row, its tooltip) under it.
              `font-size="10.5" text-anchor="middle" dominant-baseline="central" ` +
              `pointer-events="none">` +
              `${esc(spec.cells[i][j])}</text>`
          );
        }
      }
    }
    const below = top + n * side + gap;
    parts.push(`<g font-size="11" fill="#444" dominant-baseline="central" text-anchor="end">`);
    spec.tokens.forEach((token, i) => {
      parts.push(
        `<text${langOf(token)} x="${left - gap}" y="${fixed(top + (i + 0.5) * side)}">` +
          `${esc(plain(token))}</text>`
      );
    });
    spec.tokens.forEach((token, j) => {
      const x = fixed(left + (j + 0.5) * side);
      parts.push(
        `<text${langOf(token)} x="${x}" y="${fixed(below)}" ` +
          `transform="rotate(-45 ${x} ${fixed(below)})">${esc(plain(token))}</text>`
      );
    });
    const middleX = left + (width - left - right) / 2;
    const middleY = top + (height - top - bottom) / 2;
    parts.push(
      `</g><g font-size="11" font-style="italic" fill="#444" text-anchor="middle">` +
        `<text x="${middleX}" y="${height - 4}">${esc(t.key_axis)}</text>` +
        `<text transform="translate(4 ${middleY}) rotate(-90)" dominant-baseline="hanging">` +
        `${esc(t.query_axis)}</text></g></svg>`
    );
    return parts.join("");
  }

  /**
   * One head of "Varias cabezas": its arc diagram and its matrix, side by side (one under the
   * other on a narrow screen), or a matrix alone. spec: {testid, color (the arcs'), tokens
   * (texts, or {text, lang} for a word kept in another language), weights: [[α_ij]], arcs:
   * [[i, j]] (the arcs drawn, from query token i to attended token j), cells: [[text]] (the
   * number drawn in cell (i, j), "" for none), tips: [[text]] (the weight and its percentage,
   * a cell's tooltip), texts: {arcs, matrix (what each drawing shows, for a screen reader),
   * key_axis, query_axis, query, key, weight (the tooltip's labels)}}. Optional: title (above
   * the drawing), frame (the matrix's viewBox and margins, over HEAD.matrix's); without arcs,
   * the matrix alone (the heat map of "Autoatención"). An arc is path.c04-head-arc, a cell
   * rect.c04-head-cell, both with data-row = i and data-col = j; hovering (or touching) a cell
   * of row i fades the arcs of the other rows to HEAD.fade of their opacity, and an arc or a
   * cell under the pointer shows its tooltip (div.c04-tip) (below, one listener for the page).
   */
  function head_plot(spec) {
    const n = spec.tokens.length;
    const title = spec.title ? `<div class="c04-head-title">${esc(spec.title)}</div>` : "";
    const arcs = Array.isArray(spec.arcs) ? headArcs(spec, n) : "";
    return (
      `<div class="c04-head"${testid(spec.testid)}>${title}${arcs}${headMatrix(spec, n)}` +
      '<div class="c04-tip" role="tooltip" hidden></div></div>'
    );
  }

  // Which head's arcs are faded, and for which row; which head shows a tooltip, and whose
  // (one pointer: at most one of each at a time).
  let fadedHead = null;
  let fadedRow = null;
  let tipHead = null;
  let tipOf = null;

  function showTip(head, target, event) {
    if (tipHead && tipHead !== head) tipHead.querySelector(".c04-tip").hidden = true;
    tipHead = head;
    if (!head) return;
    const box = head.querySelector(".c04-tip");
    if (target !== tipOf) {
      box.innerHTML = target.dataset.tip;
      tipOf = target;
    }
    box.hidden = false;
    // Beside the pointer, inside the drawing: left of it near the right edge.
    const frame = head.getBoundingClientRect();
    let x = event.clientX - frame.left + 14;
    if (x + box.offsetWidth > frame.width) x = Math.max(0, x - box.offsetWidth - 28);
    box.style.left = `${x}px`;
    box.style.top = `${event.clientY - frame.top + 14}px`;
  }

  function fadeArcs(head, row) {
    for (const arc of head.querySelectorAll("path.c04-head-arc")) {
      arc.style.opacity = row === null || arc.dataset.row === row ? "" : String(HEAD.fade);
    }
  }

  /** The pointer over a cell of row i keeps that row's arcs and fades the others; anywhere
   * else, they come back. Through shadow roots: the event's composed path holds the cell.
   * On every pointer move (and touch): Chromium sent no pointerover when the pointer jumped
   * from a cell to another part of the page (tests/ui/test_multihead.py), so the arcs stayed
   * faded. A move that changes nothing costs the walk up the path only. */
  function hoverHead(event) {
    const path = event.composedPath ? event.composedPath() : [];
    let row = null;
    let target = null;
    let head = null;
    for (const el of path) {
      if (!el || !el.classList) continue;
      if (target === null && el.dataset && el.dataset.tip !== undefined) target = el;
      if (el.classList.contains("c04-head-cell")) row = el.dataset.row;
      if (el.classList.contains("c04-head")) {
        head = el;
        break;
      }
    }
    showTip(target && head, target, event);
    if (row === null) head = null;
    if (head === fadedHead && row === fadedRow) return;
    if (fadedHead && fadedHead !== head) fadeArcs(fadedHead, null);
    if (head) fadeArcs(head, row);
    fadedHead = head;
    fadedRow = row;
  }

  if (typeof document !== "undefined") {
    for (const type of ["pointermove", "pointerdown"]) {
      document.addEventListener(type, hoverHead, { capture: true, passive: true });
    }
  }

  /**
   * A change's key figure, for the page's live region (C04.a11y.announce). spec: {text (a
   * label)}. Nothing is drawn where the component sits: said(spec) is what is announced.
   */
  function announce() {
    return "";
  }

  /** The plain text of an announce spec (its label's HTML without the tags). */
  function said(spec) {
    const box = document.createElement("template");
    box.innerHTML = label(spec && spec.text);
    return box.content.textContent.replace(/\s+/g, " ").trim();
  }

  // -- Charts of our own: curves (SVG, lines) and a matrix of colours (canvas, raster) --------
  //
  // The similarity curves and the heat map of «Codificación posicional» and the loss curve of
  // «Entrenamiento» were Bokeh figures: 30–60 Bokeh models each in every session (issue 36).
  // As with head_plot, Python (or the export's twin) sends the numbers and the texts; only this
  // file knows the geometry. No pan or zoom: the numbers are in the tooltips and in the tables.

  /** A tick as the page writes a number (attnmodel.formatting.tick_js): as few decimals as it
   * needs (rounded to 6), U+2212, the page's decimal separator. */
  function tickText(value, decimal) {
    return String(Math.round(value * 1e6) / 1e6).replace("-", "−").replace(".", decimal || ".");
  }

  /** attnmodel.formatting.number(x, decimals): never "−0,0000". */
  function fixedText(value, decimals, decimal) {
    let text = Number(value).toFixed(decimals);
    if (Number(text) === 0) text = text.replace("-", "");
    return text.replace("-", "−").replace(".", decimal || ".");
  }

  /** Round ticks in [lo, hi], at most about ``count`` of them (steps 1, 2, 5 × 10^k; whole
   * numbers only when ``integer``). */
  function niceTicks(lo, hi, count, integer) {
    const span = hi - lo;
    if (!(span > 0)) return [lo];
    const raw = span / Math.max(1, count);
    const power = 10 ** Math.floor(Math.log10(raw));
    let step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) || 10 * power;
    if (integer) step = Math.max(1, Math.round(step));
    const ticks = [];
    for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + 1e-9 * step; k++) {
      ticks.push(Math.round(k * step * 1e9) / 1e9);
    }
    return ticks;
  }

  const CHART = { left: 58, right: 14, top: 12, bottom: 46, font: 12 };

  /** The SVG of a lines spec drawn ``width`` px wide (lines()). */
  function linesSvg(spec, width) {
    const height = spec.height || 300;
    const { left, right, top, bottom, font } = CHART;
    const w = Math.max(10, width - left - right);
    const h = Math.max(10, height - top - bottom);
    const xs = spec.x;
    const ys = spec.y;
    const xSpan = xs.max - xs.min || 1;
    const ySpan = ys.max - ys.min || 1;
    const X = (v) => left + ((v - xs.min) / xSpan) * w;
    const Y = (v) => top + ((ys.max - v) / ySpan) * h;
    const parts = [
      `<svg viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" ` +
        `style="max-width:100%; height:auto" font-size="${font}" ` +
        `data-frame="${left} ${top} ${w} ${h}" data-x="${xs.min} ${xs.max}" ` +
        `data-y="${ys.min} ${ys.max}">`,
      `<rect class="c04-frame" x="${left}" y="${top}" width="${w}" height="${h}" fill="#fff" ` +
        'stroke="#c9d0da"/>',
      '<g stroke="#eef1f5">',
    ];
    const xTicks = niceTicks(xs.min, xs.max, Math.max(2, Math.floor(w / 70)), xs.integer);
    const yTicks = niceTicks(ys.min, ys.max, Math.max(2, Math.floor(h / 40)), ys.integer);
    for (const t of xTicks) parts.push(`<line x1="${fixed(X(t))}" x2="${fixed(X(t))}" y1="${top}" y2="${top + h}"/>`);
    for (const t of yTicks) parts.push(`<line x1="${left}" x2="${left + w}" y1="${fixed(Y(t))}" y2="${fixed(Y(t))}"/>`);
    parts.push('</g><g fill="#444" text-anchor="middle">');
    for (const t of xTicks) {
      parts.push(`<text x="${fixed(X(t))}" y="${top + h + 16}">${esc(tickText(t, spec.decimal))}</text>`);
    }
    parts.push(`<text x="${fixed(left + w / 2)}" y="${height - 6}" font-style="italic">${esc(xs.label)}</text>`);
    parts.push('</g><g fill="#444" text-anchor="end" dominant-baseline="central">');
    for (const t of yTicks) {
      parts.push(`<text x="${left - 6}" y="${fixed(Y(t))}">${esc(tickText(t, spec.decimal))}</text>`);
    }
    parts.push(
      `</g><text transform="translate(14 ${fixed(top + h / 2)}) rotate(-90)" fill="#444" ` +
        `text-anchor="middle" font-style="italic">${esc(ys.label)}</text>`
    );
    (spec.series || []).forEach((series, s) => {
      const x0 = series.x0 || 0;
      let d = "";
      let pen = "M";
      series.y.forEach((v, i) => {
        if (v === null || !Number.isFinite(v)) {
          pen = "M";
          return;
        }
        d += `${pen}${fixed(X(x0 + i))} ${fixed(Y(v))}`;
        pen = "L";
      });
      const dash = series.dash ? ' stroke-dasharray="7 5"' : "";
      parts.push(
        `<path class="c04-line" data-series="${s}" d="${d}" fill="none" stroke="${esc(series.color)}" ` +
          `stroke-width="${Number(series.width) || 2}"${dash} stroke-linejoin="round"/>`
      );
    }
    );
    (spec.points || []).forEach((point, p) => {
      parts.push(
        `<circle class="c04-point" data-point="${p}" cx="${fixed(X(point.x))}" cy="${fixed(Y(point.y))}" ` +
          `r="${(Number(point.size) || 10) / 2}" fill="${esc(point.color)}" stroke="#fff"/>`
      );
    });
    const named = (spec.series || []).filter((series) => series.name);
    if (spec.legend && named.length) {
      // Bottom left, inside the frame (where the curves of the lecture leave room).
      const rowH = font + 8;
      const boxW = 34 + Math.max(...named.map((series) => String(series.name).length)) * font * 0.56;
      const boxH = named.length * rowH + 6;
      const bx = left + 8;
      const by = top + h - boxH - 8;
      parts.push(
        `<g class="c04-legend"><rect x="${bx}" y="${fixed(by)}" width="${fixed(boxW)}" height="${boxH}" ` +
          'fill="#fff" fill-opacity="0.9" stroke="#c9d0da"/>'
      );
      named.forEach((series, k) => {
        const y = by + 3 + rowH * (k + 0.5);
        const dash = series.dash ? ' stroke-dasharray="7 5"' : "";
        parts.push(
          `<line x1="${bx + 6}" x2="${bx + 28}" y1="${fixed(y)}" y2="${fixed(y)}" stroke="${esc(series.color)}" ` +
            `stroke-width="${Number(series.width) || 2}"${dash}/>` +
            `<text x="${bx + 34}" y="${fixed(y)}" dominant-baseline="central" fill="#111">${esc(series.name)}</text>`
        );
      });
      parts.push("</g>");
    }
    parts.push(`<line class="c04-guide" y1="${top}" y2="${top + h}" stroke="#888" visibility="hidden"/>`);
    parts.push("</svg>");
    return parts.join("");
  }

  /**
   * Curves and points on two linear axes, as SVG (the similarity curves of «Codificación
   * posicional», the loss of «Entrenamiento»). spec: {testid, aria (what it shows, for a screen
   * reader), height, width (px; none: the box's width, redrawn when the box changes), decimal
   * (the page's separator), x and y: {label, min, max, integer}, series: [{name (the legend's;
   * "" for none), color, width, dash, y: [value at x0 + i], x0, labels: [the tooltip's text of
   * each value] (none: no tooltip)}], points: [{x, y, color, size, tip: [[label, text]]}],
   * legend, tip: {series, x, y} (the tooltip's labels)}. A series is path.c04-line
   * (data-series = its index), a point circle.c04-point; the svg says where the frame is
   * (data-frame: left top width height) and its ranges (data-x, data-y), so a test reads the
   * drawn values back. The pointer over the frame shows, at the nearest x, each series' value
   * (as Bokeh's "vline" hover did); near a point, the point's tip.
   */
  function lines(spec, width) {
    return (
      `<div class="c04-chart"${testid(spec.testid)} role="img" aria-label="${esc(spec.aria || "")}">` +
      `${linesSvg(spec, width || spec.width || 600)}` +
      '<div class="c04-tip" role="tooltip" hidden></div></div>'
    );
  }

  /** Draw a lines spec into ``el`` at the box's width (or the spec's), and again when the box
   * changes width; the tooltip follows the pointer. */
  lines.into = function (el, spec) {
    el.c04Lines = spec;
    const paint = () => {
      const now = el.c04Lines;
      if (!now) return;
      el.c04Width = now.width || el.clientWidth || 0;
      el.innerHTML = lines(now, el.c04Width || 600);
    };
    paint();
    if (el.c04Wired) return;
    el.c04Wired = true;
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(() => {
        const spec = el.c04Lines;
        if (spec && !spec.width && el.clientWidth && el.clientWidth !== el.c04Width) paint();
      }).observe(el);
    }
    el.addEventListener("pointermove", (event) => hoverLines(el, event));
    el.addEventListener("pointerdown", (event) => hoverLines(el, event));
    el.addEventListener("pointerleave", () => hoverLines(el, null));
  };

  function hoverLines(el, event) {
    const spec = el.c04Lines;
    const svg = el.querySelector("svg");
    const box = el.querySelector(".c04-tip");
    const guide = el.querySelector(".c04-guide");
    if (!spec || !svg || !box) return;
    const hide = () => {
      box.hidden = true;
      if (guide) guide.setAttribute("visibility", "hidden");
    };
    if (!event) return hide();
    const [left, top, w, h] = svg.dataset.frame.split(" ").map(Number);
    const rect = svg.getBoundingClientRect();
    const scale = rect.width / svg.viewBox.baseVal.width || 1;
    const px = (event.clientX - rect.left) / scale;
    const py = (event.clientY - rect.top) / scale;
    if (px < left - 8 || px > left + w + 8 || py < top - 8 || py > top + h + 8) return hide();
    const xs = spec.x;
    const ys = spec.y;
    const toX = (v) => left + ((v - xs.min) / (xs.max - xs.min || 1)) * w;
    const toY = (v) => top + ((ys.max - v) / (ys.max - ys.min || 1)) * h;
    const blocks = [];
    let guideX = null;
    // A point under the pointer (within 12 px) shows its own tip.
    for (const point of spec.points || []) {
      if (Math.hypot(toX(point.x) - px, toY(point.y) - py) <= 12 && point.tip) {
        blocks.push(point.tip.map(([k, v]) => `${esc(k)}: ${esc(v)}`).join("<br>"));
      }
    }
    if (!blocks.length && spec.tip) {
      const at = xs.min + ((px - left) / w) * (xs.max - xs.min);
      for (const series of spec.series || []) {
        if (!series.labels) continue;
        const i = Math.round(at - (series.x0 || 0));
        if (i < 0 || i >= series.labels.length) continue;
        guideX = toX((series.x0 || 0) + i);
        blocks.push(
          `<b>${esc(spec.tip.series)}: ${esc(series.name)}</b><br>${esc(spec.tip.x)}: ` +
            `${(series.x0 || 0) + i}<br>${esc(spec.tip.y)}: ${esc(series.labels[i])}`
        );
      }
    }
    if (!blocks.length) return hide();
    if (guide && guideX !== null) {
      guide.setAttribute("x1", fixed(guideX));
      guide.setAttribute("x2", fixed(guideX));
      guide.setAttribute("visibility", "visible");
    } else if (guide) {
      guide.setAttribute("visibility", "hidden");
    }
    box.innerHTML = blocks.join('<hr class="c04-tip-rule">');
    box.hidden = false;
    placeTip(el, box, event);
  }

  /** The tooltip beside the pointer, inside ``frame`` (left of the pointer near its right edge). */
  function placeTip(frame, box, event) {
    const bounds = frame.getBoundingClientRect();
    let x = event.clientX - bounds.left + 14;
    if (x + box.offsetWidth > bounds.width) x = Math.max(0, x - box.offsetWidth - 28);
    box.style.left = `${x}px`;
    box.style.top = `${event.clientY - bounds.top + 14}px`;
  }

  /** The palette's colours as [r, g, b] (a spec's "#rrggbb" list, read once per list). */
  const RGB = new WeakMap();
  function paletteRgb(palette) {
    let rgb = RGB.get(palette);
    if (!rgb) {
      rgb = palette.map((c) => [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16)));
      RGB.set(palette, rgb);
    }
    return rgb;
  }

  /** The palette index of ``value``, as Bokeh's LinearColorMapper: N equal bins over
   * [low, high], high itself in the last one, values beyond clipped. */
  function colorIndex(value, low, high, count) {
    const k = Math.floor(((value - low) / (high - low)) * count);
    return k < 0 ? 0 : k >= count ? count - 1 : k;
  }

  function rasterFrame(spec) {
    const ticks = (spec.bar_ticks || []).map((v) => {
      const top = ((spec.high - v) / (spec.high - spec.low)) * 100;
      return `<span style="top:${top.toFixed(3)}%">${esc(tickText(v, spec.decimal))}</span>`;
    });
    return (
      `<div class="c04-raster"${testid(spec.testid)} role="img" aria-label="${esc(spec.aria || "")}">` +
      `<div class="c04-raster-title"${testid(spec.testid && `${spec.testid}-title`)}></div>` +
      '<div class="c04-raster-grid">' +
      `<div class="c04-raster-ylabel"><span>${esc(spec.y_label)}</span></div>` +
      '<div class="c04-raster-ticks c04-raster-yticks"></div>' +
      '<div class="c04-raster-plot"><canvas class="c04-raster-canvas" width="1" height="1"></canvas></div>' +
      '<div class="c04-raster-bar"><canvas class="c04-raster-scale" width="1" height="256"></canvas>' +
      `<div class="c04-raster-ticks c04-raster-barticks">${ticks.join("")}</div></div>` +
      '<div></div><div></div><div class="c04-raster-ticks c04-raster-xticks"></div><div></div></div>' +
      `<div class="c04-raster-xlabel">${esc(spec.x_label)}</div>` +
      '<div class="c04-tip" role="tooltip" hidden></div></div>'
    );
  }

  /**
   * A matrix of numbers as coloured cells (the positional encoding: row = position, top to
   * bottom; column = dimension), drawn into ``el``: one canvas pixel per cell, stretched to the
   * box's width with image-rendering: pixelated (each cell a crisp block on a projector, at any
   * pixel ratio), ticks on both axes, a colour bar, a tooltip per cell. spec (the texts, set
   * once): {testid, aria, title (a template: {n}, {d} are the matrix's rows and columns),
   * x_label, y_label, tip: {row, col, value} (the tooltip's labels), decimal, palette
   * ["#rrggbb"], low, high, bar_ticks}; values: the matrix (a Bokeh NDArray or a typed array
   * with a shape [n, d], row by row), which travels from Python as a binary buffer. Cell (i, j)
   * is pixel (j, i) of canvas.c04-raster-canvas, coloured as Bokeh's LinearColorMapper would.
   */
  function raster(el, spec, values) {
    if (!spec || !Object.keys(spec).length) {
      el.innerHTML = "";
      return;
    }
    let fig = el.firstElementChild;
    if (!fig || !fig.classList.contains("c04-raster") || el.c04Raster !== spec.testid) {
      el.innerHTML = rasterFrame(spec);
      fig = el.firstElementChild;
      el.c04Raster = spec.testid;
      const scale = fig.querySelector("canvas.c04-raster-scale");
      const ctx = scale.getContext("2d");
      const rgb = paletteRgb(spec.palette);
      for (let k = 0; k < 256; k++) {
        // Top = high.
        const [r, g, b] = rgb[colorIndex(spec.high - ((k + 0.5) / 256) * (spec.high - spec.low), spec.low, spec.high, rgb.length)];
        ctx.fillStyle = `rgb(${r},${g},${b})`;
        ctx.fillRect(0, k, 1, 1);
      }
      const canvas = fig.querySelector("canvas.c04-raster-canvas");
      const tip = (event) => hoverRaster(fig, canvas, event);
      canvas.addEventListener("pointermove", tip);
      canvas.addEventListener("pointerdown", tip);
      canvas.addEventListener("pointerleave", () => {
        fig.querySelector(".c04-tip").hidden = true;
      });
    }
    fig.c04Spec = spec;
    fig.c04Values = values;
    if (!values || !values.shape || values.shape.length !== 2) return;
    const [n, d] = values.shape.map(Number);
    const canvas = fig.querySelector("canvas.c04-raster-canvas");
    if (canvas.width !== d) canvas.width = d;
    if (canvas.height !== n) canvas.height = n;
    const ctx = canvas.getContext("2d");
    const image = ctx.createImageData(d, n);
    const pixels = image.data;
    const rgb = paletteRgb(spec.palette);
    const count = rgb.length;
    for (let k = 0; k < n * d; k++) {
      const [r, g, b] = rgb[colorIndex(values[k], spec.low, spec.high, count)];
      pixels[4 * k] = r;
      pixels[4 * k + 1] = g;
      pixels[4 * k + 2] = b;
      pixels[4 * k + 3] = 255;
    }
    ctx.putImageData(image, 0, 0);
    const title = String(spec.title).replace(/\{n\}/g, String(n)).replace(/\{d\}/g, String(d));
    setText(fig.querySelector(".c04-raster-title"), title);
    // Ticks at the cells' centres (cell j spans [j, j + 1) of the axis).
    const at = (t, count) => (((t + 0.5) / count) * 100).toFixed(3);
    fig.querySelector(".c04-raster-xticks").innerHTML = niceTicks(0, d - 1, 10, true)
      .map((t) => `<span style="left:${at(t, d)}%">${t}</span>`)
      .join("");
    fig.querySelector(".c04-raster-yticks").innerHTML = niceTicks(0, n - 1, 8, true)
      .map((t) => `<span style="top:${at(t, n)}%">${t}</span>`)
      .join("");
  }

  function hoverRaster(fig, canvas, event) {
    const spec = fig.c04Spec;
    const values = fig.c04Values;
    const box = fig.querySelector(".c04-tip");
    if (!spec || !values || !values.shape) return;
    const [n, d] = values.shape.map(Number);
    const rect = canvas.getBoundingClientRect();
    const j = Math.min(d - 1, Math.max(0, Math.floor(((event.clientX - rect.left) / rect.width) * d)));
    const i = Math.min(n - 1, Math.max(0, Math.floor(((event.clientY - rect.top) / rect.height) * n)));
    const t = spec.tip;
    box.innerHTML =
      `${esc(t.row)}: ${i}<br>${esc(t.col)}: ${j}<br>` +
      `${esc(t.value)}: ${esc(fixedText(values[i * d + j], 4, spec.decimal))}`;
    box.dataset.row = String(i);
    box.dataset.col = String(j);
    box.hidden = false;
    placeTip(fig, box, event);
  }

  // -- Before and after ---------------------------------------------------------------------
  //
  // A student's toggle or choice that changes the result (the controls marked c04-compare:
  // the causal mask, √d_k, a preset, a country, the temperature, the position, …) leaves the
  // previous numbers beside the new ones, faded, until the next change: "antes → ahora". The
  // components that redraw within COMPARE_MS of such a control being used compare their
  // numbers (the same in the live app, whose answer comes from the server, and offline).
  const COMPARE_MS = 3000;
  // A drawing with more numbers than this (the explorer's map of a long sentence, a head's
  // 9 × 9 table) is not compared: too many to read beside each other, and each marked cell
  // is laid out again.
  const COMPARE_MAX = 40;
  const NUMBERS = "td:not(.c04-sum):not(.c04-masked), .c04-value, .c04-bars .p";
  let armedAt = -Infinity;

  function arm(event) {
    const path = event.composedPath ? event.composedPath() : [];
    if (path.some((el) => el && el.classList && el.classList.contains("c04-compare"))) {
      armedAt = Date.now();
    }
  }

  if (typeof document !== "undefined") {
    for (const type of ["change", "click", "keydown", "pointerdown"]) {
      document.addEventListener(type, arm, true);
    }
  }

  /** The texts of the numbers drawn in ``el`` (before it is redrawn), only just after a
   * comparing control was used: reading a long sentence's map on every redraw cost the
   * export's temperature slider ~14 ms (make bench, browser: p95 41 → 55 ms). */
  function numbers(el) {
    if (Date.now() - armedAt > COMPARE_MS) return [];
    const found = el.querySelectorAll(NUMBERS);
    return found.length > COMPARE_MAX ? [] : Array.from(found, (n) => n.textContent);
  }

  /** After a redraw: each number that changed shows the one before, faded ("antes → ahora"),
   * when a comparing control was just used and the drawing has the same shape. The old number
   * is the cell's data-before, drawn by the stylesheet (.c04-before::before): the element's
   * text stays the number the model gives now. */
  function compare(el, before) {
    if (Date.now() - armedAt > COMPARE_MS || !before.length) return;
    const now = el.querySelectorAll(NUMBERS);
    if (now.length !== before.length) return;
    now.forEach((node, i) => {
      if (node.textContent === before[i]) return;
      node.dataset.before = before[i];
      node.classList.add("c04-before");
    });
  }

  /** Draw ``kind``'s ``spec`` into ``el`` (an empty spec clears it): by the kind itself where
   * it draws into an element (its ``into``: lines), in place where the kind can redraw what
   * ``el`` holds (its ``update``), as new HTML otherwise. */
  function draw(el, kind, spec) {
    const render = C04.markup[kind];
    if (!spec || !Object.keys(spec).length) {
      el.innerHTML = "";
      el.c04Lines = null;
    } else if (render.into) {
      render.into(el, spec);
    } else if (!(render.update && el.firstChild && render.update(el, spec))) {
      el.innerHTML = render(spec);
    }
  }

  /** Redraw ``el`` (a Markup's body, a Board's slot) with ``kind``'s ``spec``: a folded table
   * the student opened stays open when its numbers change, and after a toggle or a choice the
   * numbers that changed show the ones before ("antes → ahora", compare). */
  function redraw(el, kind, spec) {
    const open = new Set(Array.from(el.querySelectorAll("details[open]"), (d) => d.dataset.key));
    const before = numbers(el);
    draw(el, kind, spec);
    for (const d of el.querySelectorAll("details[data-key]")) {
      if (open.has(d.dataset.key)) d.open = true;
    }
    compare(el, before);
  }

  /** Server-made HTML (a Board's "html" slot: a title whose formula follows the state), as is:
   * the catalogue's text and MathML, never what a student typed. */
  function html(spec) {
    return typeof spec === "string" ? spec : spec.html;
  }

  /** A Markup component (dashboards/components/markup.py): its spec drawn, again on each new
   * one, with its caption and footnote around it. */
  function component({ model, el }) {
    let body = el;
    if (model.caption || model.footnote) {
      const caption = document.createElement("div");
      caption.className = "c04-caption";
      caption.innerHTML = model.caption;
      body = document.createElement("div");
      const footnote = document.createElement("div");
      footnote.className = "c04-footnote";
      footnote.innerHTML = model.footnote;
      el.append(caption, body, footnote);
      model.on("caption", () => { caption.innerHTML = model.caption; });
      model.on("footnote", () => { footnote.innerHTML = model.footnote; });
    }
    const spec = () => (model.spec_json ? JSON.parse(model.spec_json) : null);
    model.on("spec_json", () => {
      const next = spec();
      redraw(body, model.kind, next);
      // A change, not the first drawing: the page's live region says it (a11y.js).
      if (model.kind === "announce" && next && C04.a11y) C04.a11y.announce(said(next));
    });
    redraw(body, model.kind, spec());
  }

  /** A Raster component: its matrix (a typed array) drawn on its canvas, again on each change. */
  function rasterComponent({ model, el }) {
    const draw = () => raster(el, model.spec_json ? JSON.parse(model.spec_json) : null, model.values);
    model.on("spec_json", draw);
    model.on("values", draw);
    draw();
  }

  C04.markup = {
    esc, ink, label, matrix, bars, readout, readouts, note, heatmap, focus_row, tokens,
    head_plot, HEAD, lines, raster, colorIndex, tickText, announce, said, numbers, compare, draw,
    redraw, html, component, rasterComponent,
  };
})();
