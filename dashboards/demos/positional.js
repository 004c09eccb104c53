/* Browser twin of dashboards/demos/positional.py (the "posicion" section of the export).
 *
 * C04.views.positional.render({n_positions, d_model}) returns the same dict as the Python
 * render(model): "shape" (a C04.markup note spec), "heatmap_source" and "similarity_<start>" (source data),
 * "<range>_<prop>" (the three ranges that follow the shape) and "heatmap_title". Numbers follow
 * the Python order of operations: PE from C04.math.sinusoidalEncoding, the image rounded to
 * float32 (what the live app sends), each curve PE_start · PE_(start+Δ) / (d / 2) in float64.
 *
 * readState(args) reads the sliders (args.w_n_positions, args.w_d_model). The state on screen
 * (the "model") is the one in the heatmap's source (dh = n_positions, dw = d_model). A value the
 * model would refuse (out of bounds, odd d_model; the sliders cannot produce one) shows the same
 * message as the live app in args.error, puts the slider back and keeps the state.
 *
 * Every text comes from the page's catalogue (C04.t, keys "positional.*"), every number from
 * C04.fmt: the page's language, as render(model, lang) in Python.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  // dashboards/demos/positional.py: CURVE_STARTS, RANGES/RANGE_PROPS, BOUNDS_KEYS.
  const CURVE_STARTS = [0, 10, 20];
  const RANGE_PROPS = ["start", "end", "reset_start", "reset_end"];
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

  function column(source, key) {
    const data = source.data;
    return data instanceof Map ? data.get(key) : data[key];
  }

  // The image as Bokeh holds it (an NDArray with a shape); a plain Float32Array with a
  // shape when Bokeh is not on the page (the parity test).
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

  // dashboards.demos.positional.error_spec: why a slider went back; no message, no element.
  function errorSpec(message) {
    return message ? { testid: "pe-error", cls: "c04-error", text: message } : {};
  }

  // dashboards.demos.positional.shape_spec
  function shapeSpec(n, d) {
    return { testid: "pe-shape", cls: "c04-note", text: C04.t("positional.shape", { n, d }) };
  }

  // dashboards.demos.positional.TABLE_DELTAS, similarity_table
  const TABLE_DELTAS = [1, 2, 5, 10, 20];
  function similarityTable(values) {
    const rows = [];
    for (const start of CURVE_STARTS) {
      const labels = values[`similarity_${start}`].label;
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

  function curveData(sim) {
    return {
      delta: sim.map((_, i) => i),
      similitud: sim,
      label: sim.map((v) => C04.fmt.number(v, 4)),
    };
  }

  function render(state) {
    const n = state.n_positions;
    const d = state.d_model;
    const pe = encodingRows(n, d);
    const flat = new Float32Array(n * d); // rounds to nearest, as numpy's astype(float32)
    for (let i = 0; i < n; i++) flat.set(pe[i], i * d);
    const half = d / 2; // the value at Δ = 0, so every curve starts at 1
    const values = {
      shape: shapeSpec(n, d),
      heatmap_source: { image: [image2d(flat, n, d)], x: [-0.5], y: [-0.5], dw: [d], dh: [n] },
    };
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
      values[`similarity_${start}`] = curveData(sim);
    }
    values.similarity_table = similarityTable(values);
    values.announce = C04.spec.announce("positional", {
      shape: C04.t("positional.shape", { n, d }),
      near: values.similarity_0.label[1],
    });
    // Position 0 at the top of the heatmap: its y range is flipped.
    const bounds = {
      heatmap_x: [-0.5, d - 0.5],
      heatmap_y: [n - 0.5, -0.5],
      similarity_x: [0, n - 1],
    };
    for (const [name, [start, end]] of Object.entries(bounds)) {
      [start, end, start, end].forEach((v, k) => {
        values[`${name}_${RANGE_PROPS[k]}`] = v;
      });
    }
    values.heatmap_title = C04.t("positional.heatmap_title", { n, d });
    return values;
  }

  // The live view's check (PositionalView._from_widget and the model's EvenInteger), with the
  // same catalogue messages; null when the model accepts the value.
  function refusal(name, value, lo, hi) {
    if (!(lo <= value && value <= hi)) {
      return C04.t(BOUNDS_KEYS[name], { lo, hi, value });
    }
    if (name === "d_model" && value % 2) {
      return C04.t("positional.odd_d_model", { value });
    }
    return null;
  }

  function readState(args) {
    const shown = {
      n_positions: Number(column(args.heatmap_source, "dh")[0]),
      d_model: Number(column(args.heatmap_source, "dw")[0]),
    };
    const next = {};
    for (const name of NAMES) {
      const widget = args[`w_${name}`];
      const value = widget.value;
      if (value === shown[name]) {
        next[name] = value; // unchanged (or the slider put back): the message stays
        continue;
      }
      const message = refusal(name, value, widget.start, widget.end);
      if (message !== null) {
        const spec = errorSpec(C04.t("input.refused", { message }));
        C04.apply(args, { error: spec }, { error: "markup" });
        widget.value = shown[name]; // back on the model's value
        return shown;
      }
      next[name] = value;
    }
    if (next.n_positions !== shown.n_positions || next.d_model !== shown.d_model) {
      C04.apply(args, { error: errorSpec("") }, { error: "markup" });
    }
    return next;
  }

  C04.views.positional = { readState, render };
})();
