/* «Autoatención» (demo 1 of the "autoatencion" section): what dashboards/demos/self_attention.py's
 * numbers look like, live and in the export.
 *
 * render(state) draws dashboards.demos.self_attention.numbers ({Q, K, V, scores (null where
 * masked), A, Z, gradient, d_k, causal, scaled}) as the board's slots: the tables of Q, K, V,
 * the scores, A and Z (C04.spec.matrix), the scores' caption, the gradient's bars, the heat map
 * of A and the announcement. Every text comes from the page's catalogue (C04.t:
 * self_attention.*, a11y.*) and every number from C04.fmt in the page's language: 4 decimals
 * (2 for Q, K, V when they are exact), a magnitude of 10^6 or more with 5 significant digits
 * (C04.fmt.large, "8,1235×10²⁴").
 *
 * readState(args), the export only: the matrices are free input, so the page computes the
 * model's numbers itself (compute: the paper's formulas with C04.math, plain float64), and
 * does what the live app's MatrixEditor and model do around a change (args.trigger is the
 * Board control used, board.js; a matrix's carries its commit {row, col, text};
 * args.w_<name>.value is each control's value, a matrix's texts):
 *   - a committed cell is read as a number, "1,5" or "1.5" (C04.fmt.parseNumber); a bad one (or one
 *     outside ±max_abs) shows the live app's message, in the page's language (C04.t), under
 *     that matrix's cells, puts the last valid value back in the cell and keeps the last valid
 *     matrices;
 *   - a valid cell clears the message and switches the preset select to the preset the four
 *     matrices now match ("personalizado" if none), as SelfAttention._detect_preset does;
 *   - a preset loads its matrices into the cells (only the cells whose number differs).
 * The cells, their message and the select are specs of the Board (args.board), set here as
 * the live MatrixEditor sets them; setting a spec fires no control (only a student's use does).
 * The last valid matrices live here, per view (keyed by the Bokeh id of its Board), starting
 * from what the export embeds in <script id="c04-states"> under "self_attention"
 * (dashboards.demos.self_attention.client_init: the model's matrices, the presets, the cell bound).
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const TOKENS = ["token 1", "token 2", "token 3"];
  const DIMS = ["dim 1", "dim 2"];
  const MATRICES = ["X", "W_Q", "W_K", "W_V"];
  const CUSTOM = "personalizado";
  // ||J||_F of the uniform distribution over 3 keys (the largest a row can have), and below
  // FADED a row is practically one-hot.
  const UNIFORM_GRADIENT = Math.sqrt(2.0 / 9.0);
  const FADED = 0.05;
  // Below this the model's gradient is rounding noise: ||J||_F^2 = s2 - 2 s3 + s2^2 cancels to
  // ~1e-16 for a row within ~1e-7 of one-hot, so its root is noise up to ~2e-8, and 0 or not
  // depends on the last bit of a power (numpy's SIMD pow vs the browser's). Five decimals show
  // it as 0 anyway: the row is shown as one-hot, the same from Python's numbers and the page's.
  const GRADIENT_FLOOR = 5e-6;

  const esc = (text) => C04.html.esc(text);

  // ---------------------------------------------------------------------------------------------
  // compute: dashboards.demos.self_attention.numbers, from the matrices (the export only)

  function compute(matrices, causal, scaled) {
    const mm = C04.math;
    const Q = mm.matmul(matrices.X, matrices.W_Q);
    const K = mm.matmul(matrices.X, matrices.W_K);
    const V = mm.matmul(matrices.X, matrices.W_V);
    const { scores, weights, output } = mm.sdpa(Q, K, V, { causal, scale: scaled });
    return {
      Q,
      K,
      V,
      scores: scores.map((row) => row.map((s) => (s === -Infinity ? null : s))),
      A: weights,
      Z: output,
      gradient: mm.softmaxJacobianNorm(weights),
      d_k: K[0].length,
      causal,
      scaled,
    };
  }

  // ---------------------------------------------------------------------------------------------
  // render(state): the board's slots

  // np.round(x, 2) = rint(x · 100) / 100, rint rounding half to even.
  function round2(x) {
    const y = x * 100;
    let r = Math.round(y);
    if (Math.abs(y % 1) === 0.5 && r % 2 !== 0) r -= 1;
    return r / 100;
  }

  // 2 decimals when they are exact (the integers of 4.2.6: every number within 1e-12 of its
  // two-decimal rounding), else 4.
  function decimals(m) {
    return m.every((row) => row.every((v) => Math.abs(v - round2(v)) <= 1e-12)) ? 2 : 4;
  }

  // Four decimals hide the 0,00025 of "puntajes grandes"; five show it.
  function gradientValue(g) {
    return C04.fmt.number(g, g >= 1e-3 || g === 0 ? 4 : 5);
  }

  // Per row the gradient's size, a bar relative to the uniform row (%), a note when it fades.
  function gradientSpec(gradient) {
    const rows = gradient.map((value, i) => {
      const g = value < GRADIENT_FLOOR ? 0 : value;
      let note = "";
      if (g === 0) note = C04.t("self_attention.one_hot");
      else if (g < FADED) note = C04.t("self_attention.almost_one_hot");
      return { label: TOKENS[i], value: gradientValue(g), width: (100 * g) / UNIFORM_GRADIENT, note };
    });
    return { testid: "sa-gradient", head: "‖J‖", rows };
  }

  // A as a heat map (C04.markup.head_plot without arcs): each cell shaded by its weight, its
  // tooltip the weight (4 decimals, as in the table); no number in the cells, the table has them.
  // The frame: its viewBox and the room for the token labels left of the rows and under the
  // columns.
  const HEATMAP_FRAME = { width: 250, height: 210, left: 62, bottom: 58 };

  function heatmapSpec(weights) {
    const keyAxis = C04.t("self_attention.key_axis");
    const queryAxis = C04.t("self_attention.query_axis");
    return {
      testid: "sa-heatmap",
      title: C04.t("self_attention.heatmap_title"),
      tokens: TOKENS.slice(),
      weights: weights.map((row) => row.slice()),
      cells: weights.map((row) => row.map(() => "")),
      tips: weights.map((row) => row.map((w) => C04.fmt.number(w, 4))),
      frame: Object.assign({}, HEATMAP_FRAME),
      texts: {
        matrix: C04.t("a11y.plot.sa_heatmap"),
        key_axis: keyAxis,
        query_axis: queryAxis,
        query: queryAxis,
        key: keyAxis,
        weight: C04.t("self_attention.weight"),
      },
    };
  }

  // What the live region says after a change: each row's largest weight ("token 1 mira a
  // token 3, 57,6 %"), the first of a tie (within 1e-9).
  function announce(weights) {
    const rows = [];
    weights.forEach((row, i) => {
      const j = C04.math.firstMax(row);
      if (rows.length) rows.push(C04.t("a11y.announce.join"));
      rows.push(
        C04.rich("a11y.announce.row", {
          query: TOKENS[i],
          key: TOKENS[j],
          weight: C04.fmt.percent(row[j], 1),
        })
      );
    });
    return C04.spec.announce("self_attention", { rows });
  }

  function table(m, cols, decimalsValue, testid, extra = {}) {
    return C04.spec.matrix(m, {
      rowLabels: TOKENS,
      colLabels: cols,
      decimals: decimalsValue,
      testid,
      format: C04.fmt.large,
      ...extra,
    });
  }

  function render(state) {
    const scores = state.scores.map((row) => row.map((s) => (s === null ? -Infinity : s)));
    return {
      q: table(state.Q, DIMS, decimals(state.Q), "sa-Q"),
      k: table(state.K, DIMS, decimals(state.K), "sa-K"),
      v: table(state.V, DIMS, decimals(state.V), "sa-V"),
      scores_title: state.scaled
        ? C04.t("self_attention.scores_scaled", { d_k: state.d_k })
        : C04.t("self_attention.scores_unscaled"),
      scores: table(scores, TOKENS, 4, "sa-scores"),
      weights: table(state.A, TOKENS, 4, "sa-weights", { rowSums: true, shade: true }),
      z: table(state.Z, DIMS, 4, "sa-Z"),
      gradient: gradientSpec(state.gradient),
      heatmap: heatmapSpec(state.A),
      announce: announce(state.A),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // readState(args): the controls, and what MatrixEditor / SelfAttention do around a change.

  const VIEWS = new Map();

  const embedded = () => C04.embedded("self_attention", ["matrices"]);

  function viewState(args) {
    const key = args.board.id;
    let st = VIEWS.get(key);
    if (!st) {
      const init = embedded();
      st = { init, matrices: clone(init.matrices) };
      VIEWS.set(key, st);
    }
    return st;
  }

  function clone(matrices) {
    const out = {};
    for (const name of MATRICES) out[name] = matrices[name].map((row) => row.slice());
    return out;
  }

  // MatrixEditor._text: number(v, 4) without trailing zeros ("1,5" / "1.5", "3", "−2").
  function cellText(v) {
    const text = C04.fmt.number(v, 4);
    const separator = C04.t("format.decimal");
    if (!text.includes(separator)) return text;
    let end = text.length;
    while (end > 0 && text[end - 1] === "0") end--;
    while (end > 0 && text.slice(end - separator.length, end) === separator) {
      end -= separator.length;
    }
    return text.slice(0, end);
  }

  function parseOrNull(text) {
    try {
      return C04.fmt.parseNumber(text);
    } catch (err) {
      return null;
    }
  }

  // A control's spec on the board (dashboards.components.board.Board), changed: a matrix's
  // {texts, n, error} (``again``: the texts sent again, MatrixEditor.show), the preset's value.
  function setSpec(args, name, changes, again = false) {
    const specs = JSON.parse(args.board.data.specs_json || "{}");
    const spec = Object.assign({}, specs[name], changes);
    if (again) spec.n = (spec.n || 0) + 1;
    C04.apply({ [name]: args.board }, { [name]: spec }, { [name]: `board:${name}` });
  }

  // MatrixEditor._from_model: rewrite the cells whose number is not the model's. `shown`: a
  // matrix's texts already read (with a commit's text in), else what its boxes hold.
  function syncCells(args, st, names, shown = {}) {
    for (const name of names) {
      const texts = shown[name] || args[`w_${name}`].value.map((row) => row.slice());
      let changed = Boolean(shown[name]);
      st.matrices[name].forEach((row, i) =>
        row.forEach((v, j) => {
          if (parseOrNull(texts[i][j]) !== v) {
            texts[i][j] = cellText(v);
            changed = true;
          }
        })
      );
      if (changed) setSpec(args, name, { texts }, true);
    }
  }

  function sameMatrix(a, b) {
    return a.length === b.length && a.every((row, i) => row.every((v, j) => v === b[i][j]));
  }

  // SelfAttention._detect_preset: the first preset whose four matrices are the current ones.
  function detectPreset(st) {
    for (const [name, mats] of Object.entries(st.init.presets)) {
      if (MATRICES.every((m) => sameMatrix(st.matrices[m], mats[m]))) return name;
    }
    return CUSTOM;
  }

  // MatrixEditor.edit: the commit's text is what the box shows, then the model takes the
  // number, or the message says why not and the box shows the last valid value again.
  function editCell(args, st, name, i, j, text) {
    const texts = args[`w_${name}`].value.map((row) => row.slice());
    texts[i][j] = text;
    const current = st.matrices[name][i][j];
    let value;
    try {
      value = C04.fmt.parseNumber(text);
      if (value === current) {
        setSpec(args, name, { texts, error: "" });
        return;
      }
      if (Math.abs(value) > st.init.max_abs) {
        // attnmodel._params.Matrix refuses the whole matrix: only this cell can be out.
        throw new Error(C04.t("core.matrix_cell_bounds", { name, bound: st.init.bound }));
      }
    } catch (err) {
      const message = C04.t("input.cell_refused", {
        name,
        row: i + 1,
        col: j + 1,
        message: err.message,
      });
      texts[i][j] = cellText(current);
      setSpec(args, name, { texts, error: esc(message) }, true);
      return;
    }
    st.matrices[name] = st.matrices[name].map((row) => row.slice());
    st.matrices[name][i][j] = value;
    setSpec(args, name, { error: "" });
    syncCells(args, st, [name], { [name]: texts });
    const preset = detectPreset(st);
    if (args.w_preset.value !== preset) setSpec(args, "preset", { value: preset });
  }

  // SelfAttention._apply_preset
  function applyPreset(args, st, preset) {
    const mats = st.init.presets[preset];
    if (!mats) return; // "personalizado" keeps the matrices
    st.matrices = clone(mats);
    syncCells(args, st, MATRICES);
  }

  function readState(args) {
    const st = viewState(args);
    const trigger = args.trigger;
    if (trigger && trigger.commit) {
      // A matrix's cell (board.js: the control's commit {row, col, text}).
      const { row, col, text } = trigger.commit;
      editCell(args, st, trigger.name, row, col, text);
    } else if (trigger && trigger === args.w_preset) {
      applyPreset(args, st, trigger.value);
    }
    return compute(st.matrices, Boolean(args.w_causal.value), Boolean(args.w_scaled.value));
  }

  C04.views.self_attention = { readState, render, compute };
})();
