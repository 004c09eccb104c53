/* Browser twin of dashboards/demos/training.py (section 5: "¿De dónde salen W_Q y W_K?").
 *
 * Why this duplicates Python: the offline export has no server, so nothing can run
 * dashboards.demos.training.render_state when the student moves the step slider or picks a country.
 * The export embeds, in <script id="c04-states"> under "training", the default run's compact
 * state at every checkpoint × probe country ("states", keyed "<step>|<country>":
 * dashboards.demos.training.client_state, the same in every language), the hand-built side of the
 * comparison ("hand": dashboards.demos.training.HAND), the run's loss curve ("run":
 * dashboards.demos.training.run_state) and the module's constants ("constants": the facts, the
 * held-out countries, the roles, the probe, the colours, the bars' width, the loss chart's size,
 * the number of steps), and this file rebuilds render_state(state, run, lang) from them in the
 * browser: the Markup specs that markup.js draws (the next-word bars, the loss chart with the
 * step's marker). Only the steps of render_state are written twice (no number is
 * recomputed: the state holds them, rounded); every word comes from
 * the page's catalogue (C04.t / C04.rich, table [training] of attnmodel/locales/<lang>.toml),
 * every number is written by C04.fmt. tests/ui/test_export_training.py keeps the two equal for
 * every embedded state.
 *
 * The model's words (its corpus is Spanish: the probe's tokens, countries, capitals, the
 * predicted words) stay Spanish on every page: on a page in another language they are marked
 * {text, lang: "es"} (dashboards.components.markup.kept_label / kept_labels), as capital.js does.
 *
 * readState(args): the Board's controls (board.js, Board.run_offline): step = the step range's
 * value (args.w_step.value), country = the country list's option value (args.w_country.value:
 * the model's name of the country, "Francia", whatever the page's language).
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  // states.training: {run, hand, states, constants}.
  const embedded = () => C04.embedded("training", ["run", "states", "hand", "constants"]);

  // dashboards.demos.training.state_key
  const key = (state) => `${state.step}|${state.country}`;

  // Every key in full (table [training]), so tests/dashboards/test_export.py finds it.
  const t = (k, values) => C04.t(k, values);
  const rich = (k, fields) => C04.rich(k, fields);

  // Python's str.split(): the probe's tokens ("La capital de {country} es").
  const words = (text) => text.split(/\s+/).filter(Boolean);

  // Whether this page marks the model's Spanish words: the page's catalogue says it, as in
  // capital.js (capital.kept is "{word}" on the Spanish page, a <span lang="es"> elsewhere).
  const marksSpanish = () => C04.t("capital.kept", { word: "" }) !== "";

  // dashboards.demos.training.role_label: "mira al país: 92 %".
  function roleLabel(role, share) {
    return t(`training.role.${role}`, { share: C04.fmt.percent(share, 0) });
  }

  // dashboards.demos.training.probability_bars_spec: a row per capital and one for every other
  // word, its probability (4 decimals), a bar on the 0–1 scale (width in %) and its colour.
  function probabilityBarsSpec(found, K, word, num) {
    const capital = K.facts[found.country];
    const probabilities = found.capitals;
    // Python's sum(): left to right, from 0.
    let total = 0;
    for (const p of probabilities) total += p;
    const other = Math.max(0, 1 - total);
    const rows = K.capitals.map((w, i) => ({
      label: word(w),
      value: num(probabilities[i]),
      width: 100 * probabilities[i],
      color: w === capital ? K.right_color : K.wrong_color,
      note: "",
    }));
    rows.push({
      label: K.other,
      value: num(other),
      width: 100 * other,
      color: K.wrong_color,
      note: "",
    });
    return {
      testid: "training-probability-bars",
      corner: t("training.chart.word_axis"),
      head: t("training.chart.probability_axis"),
      bar_em: K.probability_bar_em,
      rows,
    };
  }

  // dashboards.demos.training.loss_chart_spec
  function lossChartSpec(curve, step, loss, K, num) {
    const size = K.loss_chart;
    return {
      testid: "training-loss-chart",
      aria: t("a11y.plot.training_loss"),
      width: size.width,
      height: size.height,
      decimal: t("format.decimal"),
      x: { label: t("training.chart.step_axis"), min: 0, max: curve.length - 1, integer: true },
      y: { label: t("training.chart.loss_axis"), min: 0, max: size.loss_max, integer: false },
      series: [{ name: "", color: K.loss_color, width: 2, dash: false, y: curve }],
      points: [
        {
          x: step,
          y: loss,
          color: K.marker_color,
          size: size.marker_size,
          tip: [
            [t("training.chart.step"), String(step)],
            ["nats", num(loss)],
          ],
        },
      ],
    };
  }

  // dashboards.demos.training.render_state (with the embedded run)
  function render(state) {
    const { hand, run, constants: K } = embedded();
    const found = embedded().states[key(state)];
    if (!found) throw new Error(`training: no hay estado exportado para ${key(state)}.`);
    const num = (x, decimals = 4) => C04.fmt.number(x, decimals);
    // dashboards.components.markup.kept_label(w, lang, EXAMPLE_LANG)
    const word = (w) => (marksSpanish() ? { text: w, lang: K.example_lang } : w);
    // dashboards.components.markup.kept_labels(spec, words, lang, EXAMPLE_LANG)
    const keptLabels = (spec, kept) => {
      const set = new Set(kept);
      const mark = (label) => (set.has(label) ? word(label) : label);
      spec.cols = spec.cols.map(mark);
      for (const row of spec.rows) row.label = mark(row.label);
      return spec;
    };

    const capitals = K.capitals;
    const roles = K.roles;
    const country = found.country;
    const tokens = words(K.probe.split("{country}").join(country));
    const capital = K.facts[country];
    const probability = found.capitals[capitals.indexOf(capital)];
    const [prediction, predictedP] = found.top[0];
    const loss = found.loss;
    const step = found.step;
    const heads = found.heads;
    // max(ROLES, key=share): the first of the largest.
    const best = heads.map((h) => {
      let r = 0;
      for (let i = 1; i < h.length; i++) if (h[i] > h[r]) r = i;
      return r;
    });

    const readout = C04.spec.readout;
    const out = {
      readouts: {
        items: [
          readout(
            t("training.readout.step"),
            `${step}`,
            t("training.readout.of_steps", { steps: K.steps }),
            "training-step"
          ),
          readout(t("training.readout.loss"), num(loss), "nats", "training-loss"),
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
    found.attention.forEach((rows, h) => {
      // Causal: row i holds its i + 1 weights; the rest is 0.
      const weights = rows.map((row) => [...row, ...new Array(n - row.length).fill(0)]);
      const title = t("training.head_title", {
        n: h + 1,
        role: roleLabel(roles[best[h]], heads[h][best[h]]),
      });
      out[`head_${h}`] = keptLabels(
        C04.spec.matrix(weights, {
          rowLabels: tokens,
          colLabels: tokens,
          decimals: 2,
          shade: true,
          title,
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
    const topWords = found.top.map(([w]) => w);
    out.top = keptLabels(
      C04.spec.matrix(
        found.top.map(([, p]) => [p]),
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
    const heldOut = K.held_out;
    const held = heldOut.includes(country)
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
        });
    out.held_out = { testid: "training-held-out", text: held };
    const [head, cosine, share, concentration] = found.comparison;
    // Alike once the head puts most of the attention of "es" on the country (as Python).
    out.comparison = {
      testid: "training-comparison",
      cls: "c04-box",
      text: [
        rich(share > 0.5 ? "training.compare.alike" : "training.compare.unalike", {
          n: String(head + 1),
          country: word(country),
          cos_learned: num(cosine, 2),
          cos_hand: num(hand.cosine_hand, 2),
          share_learned: C04.fmt.percent(share, 0),
          share_hand: C04.fmt.percent(hand.share_hand, 0),
        }),
        " ",
        rich("training.compare.spread", {
          share_learned: C04.fmt.percent(concentration, 0),
          share_hand: C04.fmt.percent(hand.concentration_hand, 0),
          cells: String(hand.cells),
        }),
      ],
    };
    out.announce = C04.spec.announce("training", {
      step: String(step),
      capital: word(capital),
      p: num(probability),
    });
    out.probability_bars = probabilityBarsSpec(found, K, word, num);
    out.loss_chart = lossChartSpec(run.loss, step, loss, K, num);
    return out;
  }

  function readState(args) {
    return { step: Number(args.w_step.value), country: String(args.w_country.value) };
  }

  C04.views.training = { render, readState, key };
})();
