/* The lecture's markup: the one place where a shown number becomes HTML.
 *
 * C04.markup[kind](spec) returns the HTML of one fragment from its spec: plain JSON made of
 * text already written in the page's language (numbers formatted, catalogue text filled) and of
 * the numbers the markup itself needs (a cell's shade, a bar's width). The live app's views
 * build the specs in Python (dashboards/<demo>.py, render) and send them to a Markup component
 * (dashboards.common.Markup), whose browser side calls this file; the offline export's twins
 * (dashboards/static/<demo>.js) build the same specs from their own numbers and hand them to
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
   * text and markup (dashboards.common.rich: never what a student typed); {text, lang, testid,
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
   * across redraws (dashboards.common.Markup).
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
   * of one query in "¿Por qué dividir por √d_k?"). spec: {testid, head, rows: [{label, value,
   * width: 0–100 (% of the bar), note}]} and, optional, caption (the table's title), corner
   * (the label column's header), color (the bars') and bar_em (the bar column's width, in em);
   * the value cells are <testid>-1, …
   */
  function bars(spec) {
    const color = spec.color || "#1f5fa8";
    const barEm = Number(spec.bar_em) || 8;
    const rows = spec.rows.map(
      (row, i) =>
        `<tr><th>${esc(row.label)}</th><td${testid(`${spec.testid}-${i + 1}`)}>${esc(row.value)}</td>` +
        `<td style="border:none; min-width:${barEm}em"><div style="background:${esc(color)}; height:10px; ` +
        `width:${(clip01(row.width / 100) * 100).toFixed(1)}%"></div></td>` +
        `<td class="c04-sum" style="color:#a40000">${esc(row.note)}</td></tr>`
    );
    const caption = spec.caption ? `<caption>${esc(spec.caption)}</caption>` : "";
    return (
      `<table class="c04-matrix"${testid(spec.testid)}>${caption}` +
      `<tr><th>${esc(spec.corner || "")}</th><th>${esc(spec.head)}</th><th></th><th></th></tr>` +
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
   * tokens, focus, causal, cells: [[text]], weights: [[w]]}. Cell (i, j) is cell-i-j; the
   * focus row has class "f"; with causal, cells j > i are masked ("m"); "d" (white text)
   * where ink() says white.
   * Built as one list of strings: a 40-token sentence is 1600 cells.
   */
  function heatmap(spec) {
    const names = spec.tokens.map(esc);
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
      const weights = spec.weights[i];
      for (let j = 0; j < names.length; j++) {
        const cell = esc(cells[j]);
        if (spec.causal && j > i) {
          parts.push(`<td class="m" data-testid="cell-${i}-${j}">${cell}</td>`);
        } else {
          const w = clip01(weights[j]);
          const dark = ink(w) === "#fff" ? ' class="d"' : "";
          parts.push(
            `<td${dark} style="background:rgba(31,95,168,${w.toFixed(3)})" ` +
              `data-testid="cell-${i}-${j}">${cell}</td>`
          );
        }
      }
      parts.push("</tr>");
    }
    parts.push("</tbody></table></div>");
    return parts.join("");
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

  C04.markup = {
    esc, ink, label, matrix, bars, readout, readouts, note, heatmap, focus_row, tokens,
    announce, said, numbers, compare,
  };
})();
