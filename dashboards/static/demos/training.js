/* «¿De dónde salen W_Q y W_K?» (section 5, "entrenamiento"): what dashboards/demos/training.py's
 * numbers look like, live and in the export.
 *
 * render(state) draws dashboards.demos.training.numbers (the run's: seed, steps, loss_curve,
 * hand, cells and the model's words facts, held_out, roles, probe; the checkpoint's: step,
 * country, loss, attention, capitals, top, heads, comparison) as the specs of the board's slots:
 * every word from the page's catalogue (C04.t / C04.rich, table [training]), every number
 * written by C04.fmt in the page's language. The model's words (its corpus is Spanish: the
 * probe's tokens, countries, capitals, the predicted words) stay Spanish on every page: on a
 * page in another language they are marked {text, lang: "es"}, as capital.js does.
 *
 * readState(args), the export only: the embedded numbers of the step range's value
 * (args.w_step.value) and the country list's option value (args.w_country.value: the model's
 * name of the country, "Francia", whatever the page's language). The export embeds in
 * <script id="c04-states"> under "training" the run's numbers once ("run") and each
 * checkpoint's ("states", keyed "<step>|<country>": dashboards.demos.training.state_key).
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const key = (step, country) => `${step}|${country}`;

  function readState(args) {
    const { run, states } = C04.embedded("training", ["run", "states"]);
    const step = Number(args.w_step.value);
    const country = String(args.w_country.value);
    const found = states[key(step, country)];
    if (!found) throw new Error(`training: no hay estado exportado para ${key(step, country)}.`);
    return Object.assign({}, run, found);
  }

  // The drawing's constants: the next-word bars' colours (the country's capital, the rest) and
  // column width (em), the loss chart's size (px), fixed loss axis (nats), line and marker.
  const RIGHT_COLOR = "#0072b2";
  const WRONG_COLOR = "#b8c2cf";
  const BAR_EM = 20;
  const OTHER = "…"; // the bar of every other word of the vocabulary
  const CHART = { width: 420, height: 260, loss_max: 5.6 };
  const LOSS_COLOR = "#1f5fa8";
  const MARKER = { color: "#d55e00", size: 11 };

  // Every key in full (table [training]), so tests/dashboards/test_export.py finds it.
  const t = (k, values) => C04.t(k, values);
  const rich = (k, fields) => C04.rich(k, fields);
  const num = (x, decimals = 4) => C04.fmt.number(x, decimals);
  const pct = (x) => C04.fmt.percent(x, 0);

  // Whether this page marks the model's Spanish words: the page's catalogue says it, as in
  // capital.js (capital.kept is "{word}" on the Spanish page, a <span lang="es"> elsewhere).
  const word = (w) => (C04.t("capital.kept", { word: "" }) !== "" ? { text: w, lang: "es" } : w);
  // A matrix spec whose labels among ``kept`` are the model's words.
  function keptLabels(spec, kept) {
    const mark = (label) => (kept.includes(label) ? word(label) : label);
    spec.cols = spec.cols.map(mark);
    for (const row of spec.rows) row.label = mark(row.label);
    return spec;
  }

  // The next word: a row per capital (the facts' order) and one for every other word (1 − the
  // capitals' sum, at least 0), its probability, a bar on the 0–1 scale (width in %).
  function probabilityBars(state, capital) {
    const capitals = Object.values(state.facts);
    const other = Math.max(0, 1 - state.capitals.reduce((a, p) => a + p, 0));
    const row = (label, p, color) => ({ label, value: num(p), width: 100 * p, color, note: "" });
    return {
      testid: "training-probability-bars",
      corner: t("training.chart.word_axis"),
      head: t("training.chart.probability_axis"),
      bar_em: BAR_EM,
      rows: [
        ...capitals.map((w, i) =>
          row(word(w), state.capitals[i], w === capital ? RIGHT_COLOR : WRONG_COLOR)
        ),
        row(OTHER, other, WRONG_COLOR),
      ],
    };
  }

  // The run's loss at every step and a marker at the step's, its tooltip the step and the loss.
  function lossChart(state) {
    const curve = state.loss_curve;
    return {
      testid: "training-loss-chart",
      aria: t("a11y.plot.training_loss"),
      width: CHART.width,
      height: CHART.height,
      decimal: t("format.decimal"),
      x: { label: t("training.chart.step_axis"), min: 0, max: curve.length - 1, integer: true },
      y: { label: t("training.chart.loss_axis"), min: 0, max: CHART.loss_max, integer: false },
      series: [{ name: "", color: LOSS_COLOR, width: 2, dash: false, y: curve }],
      points: [
        {
          x: state.step,
          y: state.loss,
          color: MARKER.color,
          size: MARKER.size,
          tip: [
            [t("training.chart.step"), String(state.step)],
            ["nats", num(state.loss)],
          ],
        },
      ],
    };
  }

  function render(state) {
    const { country, step, heads, roles } = state;
    const tokens = state.probe.split("{country}").join(country).split(/\s+/).filter(Boolean);
    const capital = state.facts[country];
    const probability = state.capitals[Object.keys(state.facts).indexOf(country)];
    const [prediction, predictedP] = state.top[0];
    // Each head's role: its largest share (the first of the largest).
    const best = heads.map((h) => h.indexOf(Math.max(...h)));

    const readout = C04.spec.readout;
    const out = {
      readouts: {
        items: [
          readout(
            t("training.readout.step"),
            String(step),
            t("training.readout.of_steps", { steps: state.steps }),
            "training-step"
          ),
          readout(t("training.readout.loss"), num(state.loss), "nats", "training-loss"),
          readout(
            rich("training.readout.probability", { capital: word(capital) }),
            num(probability),
            "",
            "training-probability"
          ),
          readout(
            t("training.readout.prediction"),
            word(prediction),
            `p = ${num(predictedP)}`,
            "training-prediction"
          ),
        ],
      },
    };
    const n = tokens.length;
    state.attention.forEach((rows, h) => {
      // Causal: row i holds its i + 1 weights; the rest is 0.
      const weights = rows.map((r) => [...r, ...new Array(n - r.length).fill(0)]);
      const role = t(`training.role.${roles[best[h]]}`, { share: pct(heads[h][best[h]]) });
      out[`head_${h}`] = keptLabels(
        C04.spec.matrix(weights, {
          rowLabels: tokens,
          colLabels: tokens,
          decimals: 2,
          shade: true,
          title: t("training.head_title", { n: h + 1, role }),
          testid: `training-head-${h + 1}`,
        }),
        tokens
      );
    });
    out.roles = C04.spec.matrix(heads, {
      rowLabels: heads.map((_, h) => t("training.head_name", { n: h + 1 })),
      colLabels: roles.map((r) => t(`training.role_name.${r}`)),
      decimals: 2,
      shade: true,
      title: t("training.roles_title"),
      testid: "training-roles",
    });
    const topWords = state.top.map(([w]) => w);
    out.top = keptLabels(
      C04.spec.matrix(
        state.top.map(([, p]) => [p]),
        {
          rowLabels: topWords,
          colLabels: ["p"],
          decimals: 4,
          shade: true,
          title: t("training.top_title"),
          testid: "training-top",
        }
      ),
      topWords
    );
    const heldOut = state.held_out;
    out.held_out = {
      testid: "training-held-out",
      text: heldOut.includes(country)
        ? rich("training.held_out", {
            country: word(country),
            capital: word(capital),
            p: num(probability),
            prediction: word(prediction),
            p_prediction: num(predictedP),
          })
        : rich("training.trained_fact", {
            country: word(country),
            held: [word(heldOut[0]), " · ", word(heldOut[1])],
          }),
    };
    const [head, cosine, share, concentration] = state.comparison;
    const [cosHand, shareHand, concentrationHand] = state.hand;
    // Alike once the head puts most of the attention of "es" on the country, as the hand-built
    // one does.
    out.comparison = {
      testid: "training-comparison",
      cls: "c04-box",
      text: [
        rich(share > 0.5 ? "training.compare.alike" : "training.compare.unalike", {
          n: String(head + 1),
          country: word(country),
          cos_learned: num(cosine, 2),
          cos_hand: num(cosHand, 2),
          share_learned: pct(share),
          share_hand: pct(shareHand),
        }),
        " ",
        rich("training.compare.spread", {
          share_learned: pct(concentration),
          share_hand: pct(concentrationHand),
          cells: String(state.cells),
        }),
      ],
    };
    out.announce = C04.spec.announce("training", {
      step: String(step),
      capital: word(capital),
      p: num(probability),
    });
    out.probability_bars = probabilityBars(state, capital);
    out.loss_chart = lossChart(state);
    return out;
  }

  C04.views.training = { render, readState };
})();
