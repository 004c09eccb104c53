/* «Varias cabezas» (dashboards/demos/multihead.py): what the model's numbers look like, live
 * and in the export.
 *
 * render(state) draws dashboards.demos.multihead.numbers (tokens, relations, weights [h][i][j],
 * combined, d_model, d_k, threshold) as the specs of the board's slots: for each of the
 * MAX_HEADS panels its styles (hidden past h), title, drawing (C04.markup.head_plot), "most
 * attended" list and folded table; the same for the sum; the dimensions line and the
 * announcer. Every word from the page's catalogue (C04.t, tables [multihead] and [a11y]), every
 * number written by C04.fmt in the page's language. The sentences are Spanish data: a page in
 * another language marks their words (multihead.sentence_lang says with which tag).
 *
 * readState(args), the export only: the embedded state of the controls' sentence and h. The
 * export embeds all 16 (sentence, h) in <script id="c04-states"> under "multihead", keyed
 * "sentence=<sentence>|n_heads=<h>" (dashboards.demos.multihead.state_key).
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const MAX_HEADS = 4;
  // The heads' colours (dashboards.components.style.CATEGORY_COLORS, told apart under every
  // colour-vision deficiency: tests/dashboards/test_colours.py), the single head's and the sum's.
  const HEAD_COLORS = ["#0072b2", "#d55e00", "#009e73", "#882255"];
  const SINGLE_HEAD_COLOR = "#444444";
  const COMBINED_COLOR = "#222222";
  const STRONG = 0.5; // a "most attended" weight from here on is in bold (.mh-strong)
  // A head's panel; hidden by CSS (display: none) rather than Bokeh's `visible`: a style change
  // does not relay out the whole page. "display" is always named: "" clears the "none".
  const PANEL_STYLES = { "border-top": "1px solid #d6dbe3", display: "" };
  const HIDDEN_PANEL_STYLES = { "border-top": "1px solid #d6dbe3", display: "none" };

  const key = (sentence, h) => `sentence=${sentence}|n_heads=${h}`;
  const t = (k, values) => C04.t(`multihead.${k}`, values);
  const esc = (text) => C04.html.esc(text);
  const num = (x) => C04.fmt.number(x, 2);
  const pct = (x, decimals = 0) => C04.fmt.percent(x, decimals);

  // The tag a word of the sentences is marked with on this page ("" on a Spanish page).
  const sentenceLang = () => C04.t("multihead.sentence_lang");
  // A word of the sentences as a label of C04.markup: as is, or {text, lang}.
  const keptLabel = (word) => (sentenceLang() ? { text: word, lang: sentenceLang() } : word);
  // The same word in HTML.
  const keptWord = (word) =>
    sentenceLang() ? `<span lang="${esc(sentenceLang())}">${esc(word)}</span>` : esc(word);

  function headColor(k, h) {
    if (k === null) return COMBINED_COLOR;
    return h === 1 ? SINGLE_HEAD_COLOR : HEAD_COLORS[k % HEAD_COLORS.length];
  }

  // The first largest weight of each row: [i, j, α_ij].
  function topEntries(weights) {
    return weights.map((row, i) => {
      let j = 0;
      for (let c = 1; c < row.length; c++) if (row[c] > row[j]) j = c;
      return [i, j, row[j]];
    });
  }

  // "mordió → perro 97 %" for every row, the strong ones in bold.
  function topHtml(tokens, weights, testid) {
    const items = topEntries(weights).map(([i, j, a]) => {
      const cls = a >= STRONG ? ' class="mh-strong"' : "";
      return `<li${cls} data-row="${i}">${keptWord(tokens[i])} → ${keptWord(tokens[j])} ` +
        `${esc(pct(a))}</li>`;
    });
    return `<div class="mh-top-label">${esc(t("top_label"))}</div>` +
      `<ul class="mh-top" data-testid="${esc(testid)}">${items.join("")}</ul>`;
  }

  function titleHtml(k, relation, color) {
    const title = t("head_title", { number: k + 1, name: t(`relation.${relation}`) });
    return `<div data-testid="head-${k + 1}-title">` +
      `<div class="mh-title"><span class="mh-swatch" style="background:${color}"></span>` +
      `${esc(title)}</div><p class="mh-desc">${esc(t(`description.${relation}`))}</p></div>`;
  }

  // One head's drawing (C04.markup.head_plot): its arcs (every α_ij ≥ threshold, row by row)
  // and its matrix, a cell's number drawn from the threshold on, its tooltip "0,97 (97 %)".
  function plotSpec(state, weights, color, testid) {
    const arcs = [];
    weights.forEach((row, i) => row.forEach((a, j) => {
      if (a >= state.threshold) arcs.push([i, j]);
    }));
    return {
      testid,
      color,
      tokens: state.tokens.map(keptLabel),
      weights,
      arcs,
      cells: weights.map((row) => row.map((a) => (a >= state.threshold ? num(a) : ""))),
      tips: weights.map((row) => row.map((a) => `${num(a)} (${pct(a)})`)),
      texts: {
        arcs: C04.t("a11y.plot.multihead_arcs"),
        matrix: C04.t("a11y.plot.multihead_heat"),
        key_axis: t("key_axis"),
        query_axis: t("query_axis"),
        query: t("hover_query"),
        key: t("hover_key"),
        weight: "α",
      },
    };
  }

  // Every weight of a matrix, folded under "Los números de esta matriz", the words marked.
  function tableSpec(tokens, weights, testid) {
    const spec = C04.spec.matrix(weights, {
      rowLabels: tokens,
      colLabels: tokens,
      decimals: 2,
      testid,
      title: t("table_title"),
    });
    spec.details = t("table_summary");
    spec.cols = tokens.map(keptLabel);
    spec.rows.forEach((row, i) => { row.label = keptLabel(tokens[i]); });
    return spec;
  }

  function render(state) {
    const { tokens, relations, weights, combined } = state;
    const h = weights.length;
    const out = {};
    for (let k = 0; k < MAX_HEADS; k++) {
      const n = k + 1;
      const shown = k < h;
      const color = headColor(k, h);
      out[`panel_${n}`] = shown ? PANEL_STYLES : HIDDEN_PANEL_STYLES;
      out[`title_${n}`] = shown ? titleHtml(k, relations[k], color) : "";
      out[`plot_${n}`] = shown ? plotSpec(state, weights[k], color, `head-${n}-plot`) : {};
      out[`top_${n}`] = shown ? topHtml(tokens, weights[k], `head-${n}-top`) : "";
      out[`table_${n}`] = shown ? tableSpec(tokens, weights[k], `head-${n}-table`) : {};
    }
    out.plot_suma = plotSpec(state, combined, headColor(null, h), "combined-plot");
    out.combined_top = topHtml(tokens, combined, "combined-top");
    out.table_suma = tableSpec(tokens, combined, "combined-table");
    const dims = t("dims", { d_model: state.d_model, h, d_k: state.d_k });
    out.dims = `<div class="mh-dims" data-testid="head-dims">${esc(dims)}</div>`;
    // The live region: h, d_k and the largest weight of the sum (the first within 1e-9).
    const flat = combined.flat();
    const at = C04.math.firstMax(flat);
    const i = Math.floor(at / tokens.length);
    out.announce = C04.spec.announce("multihead", {
      heads: String(h),
      d_k: String(state.d_k),
      query: keptLabel(tokens[i]),
      key: keptLabel(tokens[at - i * tokens.length]),
      weight: pct(flat[at], 1),
    });
    return out;
  }

  // The Board's controls (board.js): the sentence's list holds the sentence, the heads'
  // buttons h.
  function readState(args) {
    const k = key(String(args.w_sentence.value), Number(args.w_n_heads.value));
    const state = C04.embedded("multihead")[k];
    if (state === undefined) throw new Error(t("no_state", { key: k }));
    return state;
  }

  C04.views.multihead = { readState, render };
})();
