/* Browser twin of dashboards/demos/scaling.py (demo 2 of the "autoatencion" section).
 *
 * Discrete only: the export embeds every (d_k, seed) it offers in <script id="c04-states">
 * under "scaling", keyed "d_k=<d_k>|seed=<seed>" (dashboards.demos.scaling.state_key), each as
 * dashboards.demos.scaling.client_state: the seven readout numbers Python wrote in the page's language
 * and the number of queries the means are over ("t"), and the bars of the unscaled and scaled
 * softmax ("wu", "ws"). render(state) looks the state up and rebuilds the dict of the Python
 * render(model, lang) from it (specs for markup.js), as dashboards.demos.scaling.render_state does: every
 * word from the page's catalogue (C04.t, table [scaling] of attnmodel/locales/<lang>), √d_k and
 * the bars' percentages with C04.fmt (the page language's decimal separator and percent).
 *
 * readState(args): d_k is the stop of the slider (args.w_d_k is the Bokeh Slider inside Panel's
 * DiscreteSlider: its value is the index into args.options). "New sample" (args.trigger is
 * its click event, or the button) goes to the next seed, back to 0 after args.n_seeds − 1: the
 * live app draws a new sample every time, the export can only cycle the embedded ones (the page
 * says so). The current seed lives here, per view, starting from args.init.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const states = () => C04.embedded("scaling");

  const key = (state) => `d_k=${state.d_k}|seed=${state.seed}`;

  const VIEWS = new Map();

  function isSampleClick(args) {
    const t = args.trigger;
    if (!t) return false;
    return t === args.w_sample || t.origin === args.w_sample || t.event_name === "button_click";
  }

  // A link's seed (dashboards/static/links.js): for the views already drawn and those to come.
  let linkedSeed = null;

  function setSeed(seed) {
    linkedSeed = seed;
    for (const st of VIEWS.values()) st.seed = seed;
  }

  /** The seed on screen (the page has one scaling view), or null before its first change. */
  function seed() {
    for (const st of VIEWS.values()) return st.seed;
    return linkedSeed;
  }

  function readState(args) {
    const id = args.status.id;
    let st = VIEWS.get(id);
    if (!st) {
      st = { seed: linkedSeed === null ? JSON.parse(args.init).seed : linkedSeed };
      VIEWS.set(id, st);
    }
    if (isSampleClick(args)) st.seed = (st.seed + 1) % args.n_seeds;
    const options = JSON.parse(args.options);
    return { d_k: options[args.w_d_k.value], seed: st.seed };
  }

  // dashboards.demos.scaling.sqrt_text: "√64 = 8", "√128 ≈ 11,31" (es) / "√128 ≈ 11.31" (en).
  function sqrtText(dk) {
    const root = Math.sqrt(dk);
    if (root === Math.trunc(root)) return `√${dk} = ${root}`;
    return `√${dk} ≈ ${C04.fmt.number(root)}`;
  }

  // dashboards.demos.scaling.UNSCALED_COLOR, SCALED_COLOR: the spec is rebuilt here, with no Python.
  const COLORS = { unscaled: "#a40000", scaled: "#1f5fa8" };

  // dashboards.demos.scaling.bars_spec
  function barsSpec(weights, which, dk) {
    return {
      testid: `scaling-${which}-bars`,
      caption: t(`${which}_title`, { d_k: dk }),
      corner: t("key_axis"),
      head: t("weight_axis"),
      color: COLORS[which],
      bar_em: 14, // dashboards.demos.scaling.BAR_EM
      rows: weights.map((w, j) => ({
        label: String(j + 1),
        value: C04.fmt.percent(w, 1),
        width: 100 * w,
        note: "",
      })),
    };
  }

  // The catalogue's table [scaling] (dashboards.demos.scaling.render_state's t).
  const t = (key, values) => C04.t(`scaling.${key}`, values);

  // dashboards.demos.scaling.render_state
  function render(state) {
    const found = states()[key(state)];
    if (!found) throw new Error(`scaling: no hay estado exportado para ${key(state)}.`);
    const [score, entropyU, entropyS, gradU, gradS, sampleU, sampleS, n] = found.t;
    const dk = state.d_k;
    const readout = C04.spec.readout;
    const r = (k, fields) => C04.rich(`scaling.${k}`, fields);
    const sqrt = { text: sqrtText(dk), testid: "scaling-sqrt-dk" };
    const status = r("status", {
      d_k: { text: `d_k = ${dk}`, testid: "scaling-dk" },
      seed: { text: String(state.seed), testid: "scaling-seed" },
    });
    return {
      readouts: {
        items: [
          readout(r("score_label"), score, r("score_unit", { sqrt }), "scaling-score-std"),
          readout(
            r("entropy_unscaled_label"),
            entropyU,
            r("entropy_unscaled_unit", { n: String(n) }),
            "scaling-entropy-unscaled"
          ),
          readout(
            r("entropy_scaled_label"),
            entropyS,
            r("entropy_scaled_unit", { n: String(n) }),
            "scaling-entropy-scaled"
          ),
        ],
      },
      gradient_readouts: {
        items: [
          readout(
            r("gradient_unscaled_label"),
            gradU,
            r("gradient_unscaled_unit"),
            "scaling-gradient-unscaled"
          ),
          readout(
            r("gradient_scaled_label"),
            gradS,
            r("gradient_scaled_unit"),
            "scaling-gradient-scaled"
          ),
        ],
      },
      status: { testid: null, cls: "c04-note", text: status },
      unscaled_bars: barsSpec(found.wu, "unscaled", dk),
      scaled_bars: barsSpec(found.ws, "scaled", dk),
      announce: C04.spec.announce("scaling", {
        d_k: String(dk),
        n: String(n),
        unscaled: entropyU,
        scaled: entropyS,
      }),
      unscaled_entropy: readout(
        r("sample_entropy_unscaled_label"),
        sampleU,
        r("sample_entropy_unit"),
        "scaling-sample-entropy-unscaled"
      ),
      scaled_entropy: readout(
        r("sample_entropy_scaled_label"),
        sampleS,
        r("sample_entropy_unit"),
        "scaling-sample-entropy-scaled"
      ),
    };
  }

  C04.views.scaling = { readState, render, key, sqrtText, setSeed, seed };
})();
