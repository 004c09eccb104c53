/* Browser twin of dashboards/scaling.py (demo 2 of the "autoatencion" section).
 *
 * Discrete only: the export embeds every (d_k, seed) it offers in <script id="c04-states">
 * under "scaling", keyed "d_k=<d_k>|seed=<seed>" (dashboards.scaling.state_key), each as
 * dashboards.scaling.client_state: the seven readout texts Python formatted and the number of
 * queries the means are over ("t") and the bars of the unscaled and scaled softmax ("wu", "ws").
 * render(state) looks the state up and rebuilds the dict of the Python render(model) from it,
 * byte for byte: the readouts' templates, √d_k, the status line, the titles, the bars' labels
 * and label heights. The readouts' labels and units are dashboards.scaling's ENTROPY_* and
 * SAMPLE_ENTROPY_* constants ("{n}" is the count in "t").
 *
 * readState(args): d_k is the stop of the slider (args.w_d_k is the Bokeh Slider inside Panel's
 * DiscreteSlider: its value is the index into args.options). "Nueva muestra" (args.trigger is
 * its click event, or the button) goes to the next seed, back to 0 after args.n_seeds − 1: the
 * live app draws a new sample every time, the export can only cycle the embedded ones (the page
 * says so). The current seed lives here, per view, starting from args.init.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  let STATES = null;

  function states() {
    if (STATES === null) {
      const el = document.getElementById("c04-states");
      const all = el ? JSON.parse(el.textContent) : {};
      if (!all.scaling) throw new Error("scaling: faltan los estados en #c04-states.");
      STATES = all.scaling;
    }
    return STATES;
  }

  const key = (state) => `d_k=${state.d_k}|seed=${state.seed}`;

  const VIEWS = new Map();

  function isSampleClick(args) {
    const t = args.trigger;
    if (!t) return false;
    return t === args.w_sample || t.origin === args.w_sample || t.event_name === "button_click";
  }

  function readState(args) {
    const id = args.status.id;
    let st = VIEWS.get(id);
    if (!st) {
      st = { seed: JSON.parse(args.init).seed };
      VIEWS.set(id, st);
    }
    if (isSampleClick(args)) st.seed = (st.seed + 1) % args.n_seeds;
    const options = JSON.parse(args.options);
    return { d_k: options[args.w_d_k.value], seed: st.seed };
  }

  // dashboards.scaling.sqrt_text: "√64 = 8", "√128 ≈ 11,31".
  function sqrtText(dk) {
    const root = Math.sqrt(dk);
    if (root === Math.trunc(root)) return `√${dk} = ${root}`;
    return `√${dk} ≈ ${C04.fmt.number(root)}`;
  }

  // dashboards.scaling.bars_data
  function barsData(weights) {
    return {
      llave: weights.map((_, j) => String(j + 1)),
      peso: weights.slice(),
      label_y: weights.map((w) => Math.min(w, 0.86) + 0.07),
      label: weights.map((w) => C04.fmt.percent(w, 1)),
    };
  }

  // dashboards.scaling: ENTROPY_*_LABEL / _UNIT ("{n}" filled in), SAMPLE_ENTROPY_*.
  const ENTROPY_UNSCALED_LABEL = "Entropía media sin escalar";
  const entropyUnscaledUnit = (n) => `bits, media de ${n} consultas al azar`;
  const ENTROPY_SCALED_LABEL = "Entropía media con escalado";
  const entropyScaledUnit = (n) => `bits, media de ${n} consultas, tras dividir por √d_k`;
  const SAMPLE_ENTROPY_UNSCALED_LABEL = "Entropía de esta consulta, sin escalar";
  const SAMPLE_ENTROPY_SCALED_LABEL = "Entropía de esta consulta, con escalado";
  const SAMPLE_ENTROPY_UNIT = "bits, solo la consulta dibujada arriba";

  function render(state) {
    const found = states()[key(state)];
    if (!found) throw new Error(`scaling: no hay estado exportado para ${key(state)}.`);
    const [score, entropyU, entropyS, gradU, gradS, sampleU, sampleS, n] = found.t;
    const dk = state.d_k;
    const readout = C04.html.readoutHtml;
    return {
      readouts:
        readout(
          "Puntaje típico",
          score,
          "desviación ≈ √d_k sin escalar " +
            `(<span data-testid="scaling-sqrt-dk">${sqrtText(dk)}</span>)`,
          "scaling-score-std"
        ) +
        readout(
          ENTROPY_UNSCALED_LABEL,
          entropyU,
          entropyUnscaledUnit(n),
          "scaling-entropy-unscaled"
        ) +
        readout(ENTROPY_SCALED_LABEL, entropyS, entropyScaledUnit(n), "scaling-entropy-scaled"),
      gradient_readouts:
        readout(
          "Gradiente sin escalar",
          gradU,
          "tamaño medio del gradiente del softmax",
          "scaling-gradient-unscaled"
        ) +
        readout("Gradiente con escalado", gradS, "tras dividir por √d_k", "scaling-gradient-scaled"),
      status:
        `<span class="c04-note"><span data-testid="scaling-dk">d_k = ${dk}</span> · ` +
        `muestra n.º <span data-testid="scaling-seed">${state.seed}</span> · ` +
        "máximo con 8 llaves: 3 bits</span>",
      unscaled_source: barsData(found.wu),
      scaled_source: barsData(found.ws),
      unscaled_title: `Sin escalar (d_k = ${dk})`,
      scaled_title: `Con escalado (÷ √${dk})`,
      unscaled_entropy: readout(
        SAMPLE_ENTROPY_UNSCALED_LABEL,
        sampleU,
        SAMPLE_ENTROPY_UNIT,
        "scaling-sample-entropy-unscaled"
      ),
      scaled_entropy: readout(
        SAMPLE_ENTROPY_SCALED_LABEL,
        sampleS,
        SAMPLE_ENTROPY_UNIT,
        "scaling-sample-entropy-scaled"
      ),
    };
  }

  C04.views.scaling = { readState, render, key, sqrtText };
})();
