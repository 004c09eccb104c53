/* Browser twin of dashboards/demos/positional.py (the "posicion" section of the export).
 *
 * C04.views.positional.render({n_positions, d_model}) returns the same dict as the Python
 * render(model): "shape" (a C04.markup note spec), "heatmap_values" (the encoding as float32,
 * what the heat map draws: C04.markup.raster), "similarity" (the curves' C04.markup.lines
 * spec), "similarity_table" and "announce". Numbers follow the Python order of operations: PE
 * from C04.math.sinusoidalEncoding, the matrix rounded to float32 (what the live app sends),
 * each curve PE_start · PE_(start+Δ) / (d / 2) in float64.
 *
 * readState(args) reads the Board's controls (args.w_n_positions.value, args.w_d_model.value).
 * The state on screen (the "model") is the shape of the heat map's matrix
 * (args.heatmap_values.data.values: n × d). A value the model would refuse (out of bounds, odd
 * d_model; the controls cannot hold one) keeps the state, as the live app keeps it.
 *
 * Every text comes from the page's catalogue (C04.t, keys "positional.*"), every number from
 * C04.fmt: the page's language, as render(model, lang) in Python.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  // dashboards/demos/positional.py: CURVE_STARTS, CURVE_COLORS, SIMILARITY_*, BOUNDS_KEYS.
  const CURVE_STARTS = [0, 10, 20];
  const CURVE_COLORS = { 0: "#0072b2", 10: "#d55e00", 20: "#009e73" };
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

  // dashboards.demos.positional.shape_spec
  function shapeSpec(n, d) {
    return { testid: "pe-shape", cls: "c04-note", text: C04.t("positional.shape", { n, d }) };
  }

  // dashboards.demos.positional.TABLE_DELTAS, similarity_table
  const TABLE_DELTAS = [1, 2, 5, 10, 20];
  function similarityTable(curves) {
    const rows = [];
    for (const start of CURVE_STARTS) {
      const labels = curves[start].label;
      if (!labels.length) continue;
      rows.push({
        label: C04.t("positional.sim_row", { start }),
        cells: TABLE_DELTAS.map((dt) => (dt < labels.length ? labels[dt] : "—")),
        shade: null,
        sum: null,
      });
    }
    return {
      testid: "pe-similarity-table",
      title: C04.t("positional.sim_table"),
      cols: TABLE_DELTAS.map((dt) => `Δ = ${dt}`),
      rows,
      note: null,
      details: C04.t("positional.sim_summary"),
    };
  }

  // dashboards.demos.positional.curve_data
  function curveData(sim) {
    return { similitud: sim, label: sim.map((v) => C04.fmt.number(v, 4)) };
  }

  // dashboards.demos.positional.similarity_spec
  function similaritySpec(curves, n) {
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
      series: CURVE_STARTS.map((start) => ({
        name: C04.t("positional.curve_from", { start }),
        color: CURVE_COLORS[start],
        width: start === 0 ? 3 : 2,
        dash: start !== 0,
        y: curves[start].similitud,
        labels: curves[start].label,
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
    const n = state.n_positions;
    const d = state.d_model;
    const pe = encodingRows(n, d);
    const flat = new Float32Array(n * d); // rounds to nearest, as numpy's astype(float32)
    for (let i = 0; i < n; i++) flat.set(pe[i], i * d);
    const half = d / 2; // the value at Δ = 0, so every curve starts at 1
    const curves = {};
    for (const start of CURVE_STARTS) {
      const sim = [];
      if (start < n) {
        const ref = pe[start];
        for (let r = start; r < n; r++) {
          const row = pe[r];
          let dot = 0;
          for (let j = 0; j < d; j++) dot += row[j] * ref[j];
          sim.push(dot / half);
        }
      }
      curves[start] = curveData(sim);
    }
    return {
      shape: shapeSpec(n, d),
      heatmap_values: image2d(flat, n, d),
      similarity: similaritySpec(curves, n),
      similarity_table: similarityTable(curves),
      announce: C04.spec.announce("positional", {
        shape: C04.t("positional.shape", { n, d }),
        near: curves[0].label[1],
      }),
    };
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
        return shown;
      }
      next[name] = value;
    }
    return next;
  }

  C04.views.positional = { readState, render };
})();
