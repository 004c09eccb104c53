/* Browser twin of dashboards/demos/self_attention.py (demo 1 of the "autoatencion" section).
 *
 * C04.views.self_attention.render({X, W_Q, W_K, W_V, causal, scaled}) returns the same dict as
 * the Python render(model): the specs (drawn by markup.js) of Q, K, V, the scores, A, Z and
 * the softmax gradient, the HTML of the scores' caption, and the heat map's data
 * (weights_source).
 *
 * readState(args) also does, in the page, what the live app's MatrixEditor and model do around
 * a change (args.trigger is the Board control used, board.js; a matrix's carries its commit
 * {row, col, text}; args.w_<name>.value is each control's value, a matrix's texts):
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
 *
 * Every text comes from the page's catalogue (C04.t: self_attention.*, core.*, input.*) and
 * every number from C04.fmt, so the same file serves the Spanish and the English export.
 *
 * Matrix products follow numpy's BLAS exactly: on this project's machines (OpenBLAS, x86-64
 * with FMA) X @ W, Q @ K^T and A @ V accumulate k = 0, 1, … with fused multiply-adds, which
 * shows in every printed digit of huge scores (|QK^T| up to 8·10^24 with cells of ±10^6). JS has
 * no Math.fma: fma() below is exact (BigInt) where the product is not.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const TOKENS = ["token 1", "token 2", "token 3"];
  const DIMS = ["dim 1", "dim 2"];
  const MATRICES = ["X", "W_Q", "W_K", "W_V"];
  const CUSTOM = "personalizado";
  // ||J||_F of the uniform distribution over 3 keys (np.sqrt(2.0 / 9.0)).
  const UNIFORM_GRADIENT = Math.sqrt(2.0 / 9.0);
  const FADED = 0.05;
  // Below this the model's gradient is rounding noise (see GRADIENT_FLOOR in the Python view).
  const GRADIENT_FLOOR = 5e-6;

  const esc = (text) => C04.html.esc(text);

  // ---------------------------------------------------------------------------------------------
  // fma(a, b, c) = a·b + c rounded once (round half to even), for finite doubles.

  const F64 = new DataView(new ArrayBuffer(8));

  // x = m · 2^e exactly (m a signed BigInt), for a finite nonzero double.
  function decompose(x) {
    F64.setFloat64(0, x);
    const hi = F64.getUint32(0);
    const lo = F64.getUint32(4);
    const expField = (hi >>> 20) & 0x7ff;
    let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
    let e = -1074;
    if (expField !== 0) {
      m |= 1n << 52n;
      e = expField - 1075;
    }
    return [hi >>> 31 ? -m : m, e];
  }

  // The double nearest to s · 2^e (s a nonzero BigInt), ties to even, subnormals included.
  function toDouble(s, e) {
    const negative = s < 0n;
    let a = negative ? -s : s;
    const bits = a.toString(2).length;
    let lsb = e;
    const target = Math.max(e + bits - 53, -1074);
    if (target > e) {
      const shift = BigInt(target - e);
      let q = a >> shift;
      const r = a - (q << shift);
      const half = 1n << (shift - 1n);
      if (r > half || (r === half && (q & 1n) === 1n)) q += 1n;
      a = q;
      lsb = target;
    }
    let v = Number(a); // at most 2^53: exact
    while (lsb > 1000) {
      v *= 2 ** 1000;
      lsb -= 1000;
    }
    while (lsb < -1000) {
      v *= 2 ** -1000;
      lsb += 1000;
    }
    v *= 2 ** lsb;
    return negative ? -v : v;
  }

  // Dekker's split: the exact error of a·b, valid far from overflow and underflow.
  const SPLITTER = 134217729; // 2^27 + 1
  function productError(a, b, p) {
    let t = SPLITTER * a;
    const aHi = t - (t - a);
    const aLo = a - aHi;
    t = SPLITTER * b;
    const bHi = t - (t - b);
    const bLo = b - bHi;
    return aLo * bLo - (((p - aHi * bHi) - aLo * bHi) - aHi * bLo);
  }

  function fma(a, b, c) {
    const p = a * b;
    if (a === 0 || b === 0 || c === 0 || !Number.isFinite(p) || !Number.isFinite(c)) {
      return p + c;
    }
    const absA = Math.abs(a);
    const absB = Math.abs(b);
    const absP = Math.abs(p);
    if (absA < 1e150 && absB < 1e150 && absP > 1e-250 && absA > 1e-140 && absB > 1e-140) {
      // An exact product needs no second rounding: the single sum is the fused result.
      if (productError(a, b, p) === 0) return p + c;
    }
    const [ma, ea] = decompose(a);
    const [mb, eb] = decompose(b);
    const [mc, ec] = decompose(c);
    const ep = ea + eb;
    const e = Math.min(ep, ec);
    const s = ((ma * mb) << BigInt(ep - e)) + (mc << BigInt(ec - e));
    if (s === 0n) return 0;
    return toDouble(s, e);
  }

  // a @ b as numpy's BLAS: s = a[i][0]·b[0][j], then s = fma(a[i][k], b[k][j], s).
  function matmul(a, b) {
    return a.map((row) =>
      b[0].map((_, j) => {
        let s = row[0] * b[0][j];
        for (let k = 1; k < row.length; k++) s = fma(row[k], b[k][j], s);
        return s;
      })
    );
  }

  // attnmodel.core.scaled_dot_product_attention for finite inputs, with the products above.
  function attention(query, key, value, causal, scale) {
    const dk = query[0].length;
    let scores = matmul(query, C04.math.transpose(key));
    if (scale) {
      const root = Math.sqrt(dk);
      scores = scores.map((row) => row.map((s) => s / root));
    }
    scores = scores.map((row) =>
      row.map((s) => {
        if (Number.isNaN(s)) return 0;
        if (s === Infinity) return Number.MAX_VALUE;
        if (s === -Infinity) return -Number.MAX_VALUE;
        return s;
      })
    );
    if (causal) scores = scores.map((row, i) => row.map((s, j) => (j <= i ? s : -Infinity)));
    const weights = C04.math.softmax(scores);
    return { scores, weights, output: matmul(weights, value) };
  }

  // ---------------------------------------------------------------------------------------------
  // render(state): dashboards.demos.self_attention.render

  // np.round(x, 2) = rint(x · 100) / 100, rint rounding half to even.
  function round2(x) {
    const y = x * 100;
    let r = Math.round(y);
    if (Math.abs(y % 1) === 0.5 && r % 2 !== 0) r -= 1;
    return r / 100;
  }

  // _decimals: 2 when np.allclose(m, np.round(m, 2), rtol=0, atol=1e-12), else 4.
  function decimals(m) {
    return m.every((row) => row.every((v) => Math.abs(v - round2(v)) <= 1e-12)) ? 2 : 4;
  }

  function gradientValue(g) {
    return C04.fmt.number(g, g >= 1e-3 || g === 0 ? 4 : 5);
  }

  // dashboards.demos.self_attention.gradient_spec
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

  // === dashboards.demos.self_attention.heatmap_spec (HEATMAP_FRAME repeated: the twin builds the
  // spec with no Python)
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

  // dashboards.demos.self_attention.announce
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
      ...extra,
    });
  }

  function render(state) {
    const Q = matmul(state.X, state.W_Q);
    const K = matmul(state.X, state.W_K);
    const V = matmul(state.X, state.W_V);
    const dk = state.W_K[0].length;
    const { scores, weights, output } = attention(Q, K, V, state.causal, state.scaled);
    const gradient = C04.math.softmaxJacobianNorm(weights);
    return {
      q: table(Q, DIMS, decimals(Q), "sa-Q"),
      k: table(K, DIMS, decimals(K), "sa-K"),
      v: table(V, DIMS, decimals(V), "sa-V"),
      scores_title: state.scaled
        ? C04.t("self_attention.scores_scaled", { d_k: dk })
        : C04.t("self_attention.scores_unscaled"),
      scores: table(scores, TOKENS, 4, "sa-scores"),
      weights: table(weights, TOKENS, 4, "sa-weights", { rowSums: true, shade: true }),
      z: table(output, DIMS, 4, "sa-Z"),
      gradient: gradientSpec(gradient),
      heatmap: heatmapSpec(weights),
      announce: announce(weights),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // readState(args): the controls, and what MatrixEditor / SelfAttention do around a change.

  const VIEWS = new Map();

  const embedded = () => C04.embedded("self_attention", ["matrices"]);

  function viewState(args) {
    const key = args.q.id;
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
    return {
      ...clone(st.matrices),
      causal: Boolean(args.w_causal.value),
      scaled: Boolean(args.w_scaled.value),
    };
  }

  C04.views.self_attention = { readState, render, fma, matmul };
})();
