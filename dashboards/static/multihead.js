/* Browser twin of "Varias cabezas" (dashboards/multihead.py): a lookup, no maths.
 *
 * Both controls are discrete (4 sentences × h = 1 … 4), so the export precomputes the Python
 * dashboards.multihead.render(model, lang) of all 16 states in the page's language and embeds
 * them (states["multihead"], packed by dashboards.multihead.client_table).
 * C04.views.multihead.render(state) unpacks the state's entry into exactly the dict Python's
 * render returns: every number is an embedded one (copied or looked up by cell) or the result
 * of the same few IEEE operations Python does on embedded numbers (ARC_WIDTH · α in arc_data,
 * the sums and products of arc_geometry on the embedded cos/sin tables), every string is an
 * embedded one or a concatenation of embedded pieces in Python's order. Nothing is formatted
 * and no cos/sin is taken here, so the export shows byte for byte what the live app shows
 * (tests/ui/test_twin_multihead.py: all 16 states compared for equality, in each language).
 *
 * state = {sentence, n_heads}. The hover on the matrices (fading the arcs of the other rows) is
 * a Bokeh CustomJS of the figures themselves and needs nothing from here.
 */
(function () {
  "use strict";

  const C04 = window.C04;
  const DEMO = "multihead";

  const states = () => C04.embedded(DEMO);

  // === dashboards.multihead.state_key
  function key(state) {
    return "sentence=" + state.sentence + "|n_heads=" + String(state.n_heads);
  }

  function range(n, f) {
    const out = new Array(n);
    for (let k = 0; k < n; k++) out[k] = f(k);
    return out;
  }

  function emptyColumns(columns) {
    const out = {};
    for (const c of columns) out[c] = [];
    return out;
  }

  // === dashboards.multihead.heat_data(labels, weights, threshold), from [peso, texto]; the
  // cell centres are the label positions (heat_labels: n row labels, then n column labels).
  function heatData(packed, labels, grid, side, shared) {
    if (packed === null) return emptyColumns(shared.heat_columns);
    const [peso, texto] = packed;
    const n = labels.length;
    const palette = shared.palette;
    const last = palette.length - 1;
    const shade = (a) => Math.min(Math.max(Math.trunc(a * palette.length), 0), last);
    return {
      x: range(peso.length, (k) => grid.x[n + (k % n)]),
      y: range(peso.length, (k) => grid.y[Math.floor(k / n)]),
      lado: range(peso.length, () => side),
      atendido: range(peso.length, (k) => labels[k % n]),
      consulta: range(peso.length, (k) => labels[Math.floor(k / n)]),
      peso: peso.slice(),
      fila: range(peso.length, (k) => Math.floor(k / n)),
      // np.clip((a * len(palette)).astype(int), 0, len - 1): truncation, then clip.
      color: peso.map((a) => palette[shade(a)]),
      texto: texto.slice(),
      // number(a) is the part of texto before " (": "0,97 (97 %)", "0.97 (97%)".
      valor: peso.map((a, k) => (a >= shared.threshold ? texto[k].slice(0, texto[k].indexOf(" (")) : "")),
      // The text on that shade: Python's HEAT_INK, embedded (common.ink of each colour).
      valor_color: peso.map((a) => shared.palette_ink[shade(a)]),
    };
  }

  // === dashboards.multihead.arc_geometry(i, j): the same operations, in the same order, on
  // the same embedded cos/sin tables, so every double is the one Python computes.
  function arcGeometry(i, j, shared) {
    if (i === j) {
      const r = shared.loop_radius;
      return [
        shared.loop_cos.map((c) => i + r * c),
        shared.loop_sin.map((s) => (shared.base_y + r) + r * s),
      ];
    }
    const [h0, h1] = shared.arc_height;
    const height = (h0 + h1 * Math.abs(i - j)) * (j < i ? 1.0 : shared.arc_rightward);
    const xs = shared.arc_cos.map((c) => (i + j) / 2 + ((i - j) / 2) * c);
    const ys = shared.arc_sin.map((s) => shared.base_y + height * s);
    // The arrowhead: a "V" pointing down at j.
    const wingX = shared.arrow[0];
    const wingY = shared.base_y + shared.arrow[1];
    xs.push(j - wingX, j, j + wingX);
    ys.push(wingY, shared.base_y, wingY);
    return [xs, ys];
  }

  // === dashboards.multihead.arc_data(tokens, arcs), from [fila, col] and the head's matrix.
  function arcData(packed, heat, tokens, shared) {
    if (packed === null) return emptyColumns(shared.arc_columns);
    const [fila, col] = packed;
    const n = tokens.length;
    const cells = fila.map((i, k) => i * n + col[k]);
    const peso = cells.map((c) => heat.peso[c]);
    const geometry = fila.map((i, k) => arcGeometry(i, col[k], shared));
    return {
      xs: geometry.map((g) => g[0]),
      ys: geometry.map((g) => g[1]),
      peso: peso,
      fila: fila.slice(),
      col: col.slice(),
      // A separate array: the hover rewrites line_alpha in place, peso stays.
      line_alpha: peso.slice(),
      line_width: peso.map((a) => shared.arc_width * a),
      relacion: cells.map((c, k) => tokens[fila[k]] + " → " + tokens[col[k]] + ": α = " + heat.valor[c]),
    };
  }

  // === dashboards.multihead.unique_labels: a repeated word gets zero-width spaces.
  function uniqueLabels(tokens) {
    const seen = new Map();
    return tokens.map((tok) => {
      const n = seen.get(tok) || 0;
      seen.set(tok, n + 1);
      return tok + "\u200b".repeat(n);
    });
  }

  function unpack(packed, shared) {
    const tokens = packed.tokens;
    const labels = uniqueLabels(tokens);
    const grid = packed.heat_labels;
    const n = tokens.length;
    const out = {};
    for (const [name, value] of Object.entries(packed)) {
      if (name === "heat_side") {
        continue;
      } else if (name === "heat_labels") {
        out.heat_labels = {};
        for (const [column, values] of Object.entries(value)) out.heat_labels[column] = values.slice();
      } else if (name === "tokens") {
        out.tokens = {
          x: range(n, (i) => i),
          y: range(n, () => 0),
          anchor_y: range(n, () => shared.base_y),
          token: tokens.slice(),
        };
      } else if (name.startsWith("heat_")) {
        out[name] = heatData(value, labels, grid, packed.heat_side, shared);
      } else if (name.startsWith("arcs_")) {
        continue; // below, once the matrices are known
      } else if (Array.isArray(value)) {
        out[name] = value.slice();
      } else if (value !== null && typeof value === "object") {
        out[name] = Object.assign({}, value); // panel_<k>: the panel's styles
      } else {
        out[name] = value;
      }
    }
    for (const name of Object.keys(packed)) {
      if (name.startsWith("arcs_")) {
        out[name] = arcData(packed[name], out["heat_" + name.slice(5)], tokens, shared);
      }
    }
    return out;
  }

  C04.views[DEMO] = {
    key: key,

    // The Select holds the sentence; the RadioButtonGroup the index of h in its labels.
    readState(args) {
      const heads = args.w_heads;
      return { sentence: String(args.w_sentence.value), n_heads: Number(heads.labels[heads.active]) };
    },

    // What dashboards.multihead.render(model, lang) returns for this sentence and h.
    render(state) {
      const all = states();
      const packed = all[key(state)];
      if (packed === undefined) {
        throw new Error(C04.t("multihead.no_state", { key: key(state) }));
      }
      return unpack(packed, all._shared);
    },
  };
})();
