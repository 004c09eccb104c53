/* Browser twin of "Varias cabezas" (dashboards/demos/multihead.py): a lookup, no maths.
 *
 * Both controls are discrete (4 sentences × h = 1 … 4), so the export precomputes the Python
 * dashboards.demos.multihead.render(model, lang) of all 16 states in the page's language and embeds
 * them (states["multihead"], packed by dashboards.demos.multihead.client_table).
 * C04.views.multihead.render(state) unpacks the state's entry into exactly the dict Python's
 * render returns: every number is an embedded one, every string an embedded one or a piece of
 * one, every choice the comparison Python makes on the same doubles (α ≥ threshold). Nothing is
 * formatted here, so the export shows byte for byte what the live app shows
 * (tests/ui/test_twin_multihead.py: all 16 states compared for equality, in each language).
 * The drawings themselves are C04.markup.head_plot's (markup.js), as in the live app.
 *
 * state = {sentence, n_heads}.
 */
(function () {
  "use strict";

  const C04 = window.C04;
  const DEMO = "multihead";

  const states = () => C04.embedded(DEMO);

  // === dashboards.demos.multihead.state_key
  function key(state) {
    return "sentence=" + state.sentence + "|n_heads=" + String(state.n_heads);
  }

  // === dashboards.demos.multihead.plot_spec, from [testid, color, weights, tips]: a cell draws the
  // number of its tooltip ("0,97" of "0,97 (97 %)") when α ≥ threshold, and the arcs are those
  // cells, row by row (arcs_from).
  function plotSpec(packed, tokens, shared) {
    if (packed === null) return {};
    const [testid, color, weights, tips] = packed;
    const threshold = shared.threshold;
    const arcs = [];
    weights.forEach((row, i) => row.forEach((a, j) => {
      if (a >= threshold) arcs.push([i, j]);
    }));
    return {
      testid: testid,
      color: color,
      tokens: copy(tokens),
      weights: weights.map((row) => row.slice()),
      arcs: arcs,
      cells: weights.map((row, i) =>
        row.map((a, j) => (a >= threshold ? tips[i][j].slice(0, tips[i][j].indexOf(" (")) : ""))
      ),
      tips: tips.map((row) => row.slice()),
      texts: Object.assign({}, shared.texts),
    };
  }

  function copy(value) {
    return value !== null && typeof value === "object" ? JSON.parse(JSON.stringify(value)) : value;
  }

  function unpack(packed, shared) {
    const out = {};
    for (const [name, value] of Object.entries(packed)) {
      if (name === "tokens") continue;
      out[name] = name.startsWith("plot_") ? plotSpec(value, packed.tokens, shared) : copy(value);
    }
    return out;
  }

  C04.views[DEMO] = {
    key: key,

    // The Board's controls (board.js): the sentence's list holds the sentence, the heads'
    // buttons h.
    readState(args) {
      return { sentence: String(args.w_sentence.value), n_heads: Number(args.w_n_heads.value) };
    },

    // What dashboards.demos.multihead.render(model, lang) returns for this sentence and h.
    render(state) {
      const all = states();
      const packed = all[key(state)];
      if (packed === undefined) {
        throw new Error(C04.t("multihead.no_state", { key: key(state) }));
      }
      return unpack(packed, all["_shared"]);
    },
  };
})();
