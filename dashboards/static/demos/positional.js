/* «Codificación posicional»: what dashboards/demos/positional.py's numbers look like, live and in
 * the export.
 *
 * render(state) draws dashboards.demos.positional.numbers ({n, d, curves}: the shape and the
 * three similarity curves from pos = 0, 10, 20) as the boards' slots: "shape" (a note),
 * "similarity" (C04.markup.lines: the curves, legend and tooltips), "similarity_table" and
 * "announce"; every text from the page's catalogue (C04.t, "positional.*"), every number from
 * C04.fmt in the page's language. The heat map is a Raster of its own (binary float32).
 *
 * readState(args), the export only: the sliders are free input (511 × 256 shapes), so the page
 * computes what Python computes: PE (C04.math.sinusoidalEncoding, the model's formula), its
 * float32 matrix set on the heat map (args.heatmap_values: the Raster, as the live app sends
 * it), each curve PE_start · PE_(start+Δ) / (d / 2) in float64. A value the model would refuse
 * (out of bounds, odd d_model; the controls cannot hold one) keeps the state, as the live app
 * keeps it.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  // dashboards.demos.positional.CURVE_STARTS, BOUNDS_KEYS; the curves' colours (the
  // lecture's first three category colours, dashboards.components.style.CATEGORY_COLORS).
  const CURVE_STARTS = [0, 10, 20];
  const CURVE_COLORS = ["#0072b2", "#d55e00", "#009e73"];
  const SIMILARITY_RANGE = [-1.05, 1.05];
  const SIMILARITY_HEIGHT = 300;
  const BOUNDS_KEYS = {
    n_positions: "positional.bounds_n_positions",
    d_model: "positional.bounds_d_model",
  };
  const NAMES = ["n_positions", "d_model"];

  // Rows of the encoding by d_model: a row does not depend on n_positions, so moving only the
  // positions slider reuses the rows already computed (the values are the very same numbers).
  const PE_CACHE = new Map();
  const PE_CACHE_SIZE = 4;

  function encodingRows(n, d) {
    let rows = PE_CACHE.get(d);
    if (rows === undefined || rows.length < n) {
      rows = C04.math.sinusoidalEncoding(n, d); // n rows of d float64
      PE_CACHE.delete(d);
      if (PE_CACHE.size >= PE_CACHE_SIZE) PE_CACHE.delete(PE_CACHE.keys().next().value);
      PE_CACHE.set(d, rows);
    }
    return rows; // use rows 0 .. n - 1
  }

  // The matrix as Bokeh holds an array from Python (an NDArray with a shape); a plain
  // Float32Array with a shape when Bokeh is not on the page (the parity test).
  function image2d(flat, n, d) {
    const B = window.Bokeh;
    if (B && typeof B.require === "function") {
      try {
        return B.require("core/util/ndarray").ndarray(flat, { dtype: "float32", shape: [n, d] });
      } catch (err) {
        /* fall through: a plain typed array */
      }
    }
    flat.shape = [n, d];
    flat.dtype = "float32";
    return flat;
  }

  const TABLE_DELTAS = [1, 2, 5, 10, 20]; // the gaps of the similarity table

  // The curves at a few gaps Δ, a row per start drawn ("—" past the last position), for a
  // screen reader, folded under the curves.
  function similarityTable(labels) {
    const rows = [];
    CURVE_STARTS.forEach((start, k) => {
      if (!labels[k].length) return;
      rows.push({
        label: C04.t("positional.sim_row", { start }),
        cells: TABLE_DELTAS.map((dt) => (dt < labels[k].length ? labels[k][dt] : "—")),
        shade: null,
        sum: null,
      });
    });
    return {
      testid: "pe-similarity-table",
      title: C04.t("positional.sim_table"),
      cols: TABLE_DELTAS.map((dt) => `Δ = ${dt}`),
      rows,
      note: null,
      details: C04.t("positional.sim_summary"),
    };
  }

  // The three curves over Δ = 0 … n − 1 (the one from pos = 0 solid and wider, the others
  // dashed), y on −1.05 … 1.05, a legend, and per curve the tooltip's texts.
  function similarity(curves, labels, n) {
    return {
      testid: "pe-similarity",
      aria: C04.t("a11y.plot.pe_similarity"),
      height: SIMILARITY_HEIGHT,
      decimal: C04.t("format.decimal"),
      x: { label: C04.t("positional.axis_delta"), min: 0, max: n - 1, integer: true },
      y: {
        label: C04.t("positional.axis_similarity"),
        min: SIMILARITY_RANGE[0],
        max: SIMILARITY_RANGE[1],
        integer: false,
      },
      series: CURVE_STARTS.map((start, k) => ({
        name: C04.t("positional.curve_from", { start }),
        color: CURVE_COLORS[k],
        width: start === 0 ? 3 : 2,
        dash: start !== 0,
        y: curves[k],
        labels: labels[k],
      })),
      legend: true,
      tip: {
        series: C04.t("positional.hover_curve"),
        x: "Δ",
        y: C04.t("positional.hover_similarity"),
      },
    };
  }

  function render(state) {
    const { n, d, curves } = state;
    const labels = curves.map((curve) => curve.map((v) => C04.fmt.number(v, 4)));
    const shape = C04.t("positional.shape", { n, d });
    return {
      shape: { testid: "pe-shape", cls: "c04-note", text: shape },
      similarity: similarity(curves, labels, n),
      similarity_table: similarityTable(labels),
      announce: C04.spec.announce("positional", { shape, near: labels[0][1] }),
    };
  }

  // The model's numbers for a shape (dashboards.demos.positional.numbers), and its matrix on the
  // heat map.
  function compute(args, n, d) {
    const pe = encodingRows(n, d);
    const flat = new Float32Array(n * d); // rounds to nearest, as numpy's astype(float32)
    for (let i = 0; i < n; i++) flat.set(pe[i], i * d);
    C04.apply(args, { heatmap_values: image2d(flat, n, d) }, { heatmap_values: "esm:values" });
    const half = d / 2; // the value at Δ = 0, so every curve starts at 1
    const curves = CURVE_STARTS.map((start) => {
      const sim = [];
      for (let r = start; r < n; r++) {
        let dot = 0;
        for (let j = 0; j < d; j++) dot += pe[r][j] * pe[start][j];
        sim.push(dot / half);
      }
      return sim;
    });
    return { n, d, curves };
  }

  // The model's check (its bounds, PositionalView._on_control; its EvenInteger), with the same
  // catalogue messages; null when the model accepts the value.
  function refusal(name, value, lo, hi) {
    if (!(lo <= value && value <= hi)) {
      return C04.t(BOUNDS_KEYS[name], { lo, hi, value });
    }
    if (name === "d_model" && value % 2) {
      return C04.t("positional.odd_d_model", { value });
    }
    return null;
  }

  // The controls' values (args.w_<name>.value, board.js), each checked as the live view checks
  // a message: the native ranges only hold values the model takes, but a value it would refuse
  // leaves the state on screen (console.info says why, as the server's INFO line).
  function readState(args) {
    const [rows, cols] = args.heatmap_values.data.values.shape;
    const shown = { n_positions: Number(rows), d_model: Number(cols) };
    const next = {};
    for (const name of NAMES) {
      const value = args[`w_${name}`].value;
      const [lo, hi] = args.bounds[name]; // the model's (PositionalView.enable_client_side)
      const message = value === shown[name] ? null : refusal(name, value, lo, hi);
      if (message !== null) {
        console.info(C04.t("input.refused", { message }));
        return compute(args, shown.n_positions, shown.d_model);
      }
      next[name] = value;
    }
    return compute(args, next.n_positions, next.d_model);
  }

  C04.views.positional = { readState, render };
})();
