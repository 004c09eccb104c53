/* «¿Por qué √d_k?» (demo 2 of the "autoatencion" section): what dashboards/demos/scaling.py's
 * numbers look like, live and in the export.
 *
 * render(state) draws dashboards.demos.scaling.numbers (d_k, seed, n, score_std and the
 * [unscaled, scaled] pairs entropy, gradient, sample_entropy, weights) as the specs of the
 * board's slots: every word from the page's catalogue (C04.t, table [scaling]), every number
 * written by C04.fmt in the page's language.
 *
 * readState(args), the export only: the embedded state of the slider's d_k (args.w_d_k.value is
 * the position of the stop in args.options) and the view's seed. The export embeds every
 * (d_k, seed) it offers in <script id="c04-states"> under "scaling", keyed
 * "d_k=<d_k>|seed=<seed>" (dashboards.demos.scaling.state_key). "Nueva muestra" goes to the next
 * seed, back to 0 after args.n_seeds − 1: the live app draws a new sample every time, the export
 * can only cycle the embedded ones (the page says so).
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const key = (dk, seed) => `d_k=${dk}|seed=${seed}`;

  // The seed the export shows (a link's, links.js: setLinked) before and after its first change.
  let linkedSeed = null;
  let shownSeed = null;

  function setSeed(seed) {
    linkedSeed = seed;
    shownSeed = seed;
  }

  /** The seed on screen in the export, or null before its first change. */
  function seed() {
    return shownSeed === null ? linkedSeed : shownSeed;
  }

  function readState(args) {
    if (shownSeed === null) shownSeed = linkedSeed === null ? JSON.parse(args.init).seed : linkedSeed;
    if (args.trigger === args.w_sample) shownSeed = (shownSeed + 1) % args.n_seeds;
    const dk = JSON.parse(args.options)[args.w_d_k.value];
    const state = C04.embedded("scaling")[key(dk, shownSeed)];
    if (!state) throw new Error(`scaling: no hay estado exportado para ${key(dk, shownSeed)}.`);
    return state;
  }

  const t = (k, values) => C04.t(`scaling.${k}`, values);
  const r = (k, fields) => C04.rich(`scaling.${k}`, fields);
  const fmt = (x, decimals = 2) => C04.fmt.number(x, decimals);

  // "√64 = 8" when the root is exact, "√128 ≈ 11,31" (es) / "√128 ≈ 11.31" (en) otherwise.
  function sqrtText(dk) {
    const root = Math.sqrt(dk);
    return root === Math.trunc(root) ? `√${dk} = ${root}` : `√${dk} ≈ ${fmt(root)}`;
  }

  const SIDES = ["unscaled", "scaled"];
  const COLORS = { unscaled: "#a40000", scaled: "#1f5fa8" };
  const BAR_EM = 14; // the bar column's width: a weight of 1 is a 14 em bar

  // One query's attention over its keys: a row per key with its percentage and a bar.
  function bars(weights, side, dk) {
    return {
      testid: `scaling-${side}-bars`,
      caption: t(`${side}_title`, { d_k: dk }),
      corner: t("key_axis"),
      head: t("weight_axis"),
      color: COLORS[side],
      bar_em: BAR_EM,
      rows: weights.map((w, j) => ({
        label: String(j + 1),
        value: C04.fmt.percent(w, 1),
        width: 100 * w,
        note: "",
      })),
    };
  }

  function render(state) {
    const { d_k: dk, n } = state;
    const readout = (k, value, unit, testid) => C04.spec.readout(r(k), value, unit, testid);
    const sqrt = { text: sqrtText(dk), testid: "scaling-sqrt-dk" };
    const specs = {
      readouts: {
        items: [
          readout("score_label", fmt(state.score_std), r("score_unit", { sqrt }), "scaling-score-std"),
        ],
      },
      gradient_readouts: { items: [] },
      status: {
        testid: null,
        cls: "c04-note",
        text: r("status", {
          d_k: { text: `d_k = ${dk}`, testid: "scaling-dk" },
          seed: { text: String(state.seed), testid: "scaling-seed" },
        }),
      },
      announce: C04.spec.announce("scaling", {
        d_k: String(dk),
        n: String(n),
        unscaled: fmt(state.entropy[0]),
        scaled: fmt(state.entropy[1]),
      }),
    };
    SIDES.forEach((side, i) => {
      specs.readouts.items.push(
        readout(`entropy_${side}_label`, fmt(state.entropy[i]),
          r(`entropy_${side}_unit`, { n: String(n) }), `scaling-entropy-${side}`)
      );
      specs.gradient_readouts.items.push(
        readout(`gradient_${side}_label`, fmt(state.gradient[i], 3), r(`gradient_${side}_unit`),
          `scaling-gradient-${side}`)
      );
      specs[`${side}_bars`] = bars(state.weights[i], side, dk);
      specs[`${side}_entropy`] = readout(`sample_entropy_${side}_label`,
        fmt(state.sample_entropy[i]), r("sample_entropy_unit"), `scaling-sample-entropy-${side}`);
    });
    return specs;
  }

    // links.js's hook for the seed (no control shows it).
  const linked = () => seed();
  const setLinked = (_name, value) => setSeed(value);

  C04.views.scaling = { readState, render, sqrtText, linked, setLinked };
})();
