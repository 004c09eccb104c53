/* Browser twin of dashboards/demos/capital.py (the "capital" section of the export).
 *
 * C04.views.capital.render({country, identity}) returns the same dict as the Python
 * render(model, lang) in the page's language: the specs of every step and of the two bar
 * charts (drawn by markup.js). Every word comes from the page's catalogue (C04.t, table
 * [capital]); the model's Spanish words are marked {text, lang: "es"} on a page in another
 * language, as in Python.
 *
 * The eight steps of attnmodel.capital.CapitalWalkthrough are ported here; the model's
 * constants (embeddings, W_Q, W_K, W_V, U, vocabulary, countries…) are NOT written in
 * this file: the export embeds them from Python (dashboards.demos.capital.client_constants) in
 * <script id="c04-states"> under "capital" → "constants".
 *
 * readState(args): a new country sets its identity (as the model does) and moves the identity
 * control; otherwise the identity is the control's value. args.trigger is the control used.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const constants = () => C04.embedded("capital", ["constants"]).constants;

  const fmt = (x, decimals = 2) => C04.fmt.number(x, decimals);
  const t = (key, values) => C04.t(key, values);


  // Whether this page marks the model's Spanish words (any page but the Spanish one).
  const marksSpanish = () => t("capital.kept", { word: "" }) !== "";

  // dashboards.demos.capital.kept_label: a model word, marked as Spanish on another language's page.
  const keptLabel = (word) => (marksSpanish() ? { text: word, lang: "es" } : word);

  // kept_labels(): a matrix spec whose labels that are model words are written as keptLabel.
  function keptLabels(spec, words) {
    const set = new Set(words);
    const mark = (label) => (set.has(label) ? keptLabel(label) : label);
    spec.cols = spec.cols.map(mark);
    for (const row of spec.rows) row.label = mark(row.label);
    return spec;
  }

  // matrix(): matrix_spec in the page's language, its labels that are model words kept.
  function matrix(values, spanish, options) {
    return keptLabels(C04.spec.matrix(values, options), spanish);
  }

  // CapitalWalkthrough(country, identity): every step, as the model's properties.
  function walkthrough(K, country, identity) {
    const tokens = K.sentence.map((t) => (t === null ? country : t));
    // 2) embeddings: the identity enters only at [country slot, "identidad"]
    const embeddings = K.embeddings_at_zero.map((row) => row.slice());
    embeddings[K.country_slot][K.identity_dim] = identity;
    // 3) + position: the highest-frequency sine/cosine pair in dims 0–1, none in dim 2
    const pe2 = C04.math.sinusoidalEncoding(tokens.length, 2);
    const positional = tokens.map((_, i) =>
      K.dimensions.map((_, j) => (j < 2 ? pe2[i][j] : 0))
    );
    const withPosition = embeddings.map((row, i) => row.map((v, j) => v + positional[i][j]));
    // 4) Q, K, V
    const Q = C04.math.matmul(withPosition, K.W_Q);
    const Kmat = C04.math.matmul(withPosition, K.W_K);
    const V = C04.math.matmul(withPosition, K.W_V);
    // 5–7) attention of "es" over the five tokens
    const query = C04.math.matmul([withPosition[K.query]], K.W_Q);
    const attention = C04.math.sdpa(query, Kmat, V, { causal: false, scale: true, temperature: 1 });
    const scores = Array.from(attention.scores[0]);
    const attentionRow = Array.from(attention.weights[0]);
    const mixed = Array.from(attention.output[0]);
    // 8) logits -> probabilities
    const logits = K.U.map((u) => {
      let s = 0;
      for (let j = 0; j < u.length; j++) s += u[j] * mixed[j];
      return s;
    });
    const probabilityVector = Array.from(C04.math.softmax([logits])[0]);
    const max = Math.max(...probabilityVector);
    const top = K.vocabulary.filter((_, i) => probabilityVector[i] === max);
    const a = attentionRow[K.country_slot];
    const paris = K.vocabulary.indexOf("París");
    const roma = K.vocabulary.indexOf("Roma");
    return {
      tokens,
      embeddings,
      positional,
      withPosition,
      Q,
      K: Kmat,
      V,
      scores,
      attentionRow,
      mixed,
      logits,
      probabilityVector,
      top,
      probability: max,
      loss: -Math.log(max),
      slopes: { París: a * K.U[paris][2], Roma: a * K.U[roma][2] },
      uParis: K.U[paris][2],
      uRoma: K.U[roma][2],
      probabilities: Object.fromEntries(K.vocabulary.map((w, i) => [w, probabilityVector[i]])),
    };
  }

  function vectorText(values, decimals = 4) {
    const separator = t("capital.table.vector_separator");
    return `(${values.map((v) => fmt(v, decimals)).join(separator)})`;
  }

  // dashboards.demos.capital.attention_labels: "3 · Francia"-style, the token kept.
  function attentionLabels(tokens) {
    return tokens.map((token, pos) => [`${pos} · `, keptLabel(token)]);
  }

  // dashboards.demos.capital.attention_bars_spec (its colour, scale and widths: the constants)
  function attentionBarsSpec(K, w) {
    const labels = attentionLabels(w.tokens);
    return {
      testid: "capital-attention-bars",
      corner: "token",
      head: t("capital.chart.weight_axis"),
      color: K.attention_color,
      bar_em: K.attention_bar_em,
      rows: w.attentionRow.map((a, i) => ({
        label: labels[i],
        value: fmt(a, 4),
        width: 100 * a,
        note: "",
      })),
    };
  }

  // dashboards.demos.capital.probability_bars_spec
  function probabilityBarsSpec(K, w) {
    return {
      testid: "capital-probability-bars",
      corner: t("capital.chart.word_axis"),
      head: t("capital.chart.probability_axis"),
      bar_em: K.probability_bar_em,
      rows: K.vocabulary.map((word, i) => ({
        label: keptLabel(word),
        value: fmt(w.probabilityVector[i], 4),
        width: Math.min(100, (100 * w.probabilityVector[i]) / K.probability_scale),
        color: K.word_colors[word] ?? K.other_color,
        note: "",
      })),
    };
  }

  // dashboards.demos.capital.tokens_spec
  function tokensSpec(K, tokens) {
    return {
      testid: "capital-tokens",
      tokens: tokens.map(keptLabel),
      country: K.country_slot,
      query: K.query,
      note: C04.rich("capital.step.tokens_note", { es: keptLabel(tokens[K.query]) }),
    };
  }

  // dashboards.demos.capital.prediction_label: the most probable word, or the tied words, kept.
  function predictionLabel(words) {
    if (words.length === 1) return keptLabel(words[0]);
    const joined = [];
    words.forEach((word, k) => {
      if (k) joined.push(C04.rich("capital.readout.or"));
      joined.push(keptLabel(word));
    });
    return C04.rich("capital.readout.tie", { words: joined });
  }

  // dashboards.demos.capital.readouts_spec
  function readoutsSpec(w) {
    const readout = C04.spec.readout;
    const unit = [];
    w.top.forEach((word, k) => {
      if (k) unit.push(" = ");
      unit.push("p(", keptLabel(word), ")");
    });
    return {
      items: [
        readout(
          C04.rich("capital.readout.prediction"),
          predictionLabel(w.top),
          "",
          "capital-prediction"
        ),
        readout(
          C04.rich("capital.readout.probability"),
          fmt(w.probability, 4),
          unit,
          "capital-probability"
        ),
        readout(C04.rich("capital.readout.loss"), fmt(w.loss, 4), "−ln p", "capital-loss"),
      ],
    };
  }

  // dashboards.demos.capital.asymmetry_spec
  function asymmetrySpec(K, w, identity) {
    const rich = C04.rich;
    const a = w.attentionRow[K.country_slot];
    const magnitude = Math.abs(identity);
    // What the same |identity| gives each side, from two scratch walkthroughs.
    const plus = walkthrough(K, country0(K), magnitude).probabilities["París"];
    const minus = walkthrough(K, country0(K), -magnitude).probabilities["Roma"];
    const words = { paris: keptLabel("París"), roma: keptLabel("Roma") };
    const compare =
      magnitude > 0
        ? rich("capital.asymmetry.compare", {
            m: fmt(magnitude),
            plus: fmt(plus, 4),
            minus: fmt(minus, 4),
            ...words,
          })
        : rich("capital.asymmetry.compare_tie", { p: fmt(plus, 4), ...words });
    const slope = (name, word) => ({
      text: fmt(w.slopes[word], 4),
      testid: `capital-slope-${name}`,
      tag: "b",
    });
    return {
      testid: "capital-asymmetry",
      cls: "c04-aside",
      text: [
        rich("capital.asymmetry.why", { es: keptLabel(w.tokens[K.query]), a: fmt(a, 4), ...words }),
        rich("capital.asymmetry.slopes", {
          u_paris: fmt(w.uParis),
          u_roma: fmt(w.uRoma),
          slope_paris: slope("paris", "París"),
          slope_roma: slope("roma", "Roma"),
          ...words,
        }),
        rich("capital.asymmetry.because", { compare, ...words }),
      ],
    };
  }

  // The scratch models of the asymmetry box use the model's default country (the numbers do
  // not depend on it: only the token's name does).
  function country0(K) {
    return Object.keys(K.countries)[0];
  }

  function render(state) {
    const K = constants();
    const w = walkthrough(K, state.country, state.identity);
    const tokens = w.tokens;
    const query = tokens[K.query];

    const dims = K.dimension_keys.map((key) => t(key));
    const vocab = K.vocabulary;
    const column = (values) => values.map((v) => [v]);
    const rowSum = t("capital.table.row_sum", { total: fmt(C04.math.sum(w.attentionRow), 4) });
    const readouts = readoutsSpec(w);
    return {
      tokens: tokensSpec(K, tokens),
      embeddings: matrix(w.embeddings, tokens, {
        title: "x (5×3)",
        rowLabels: tokens,
        colLabels: dims,
        testid: "capital-embeddings",
      }),
      pe: matrix(w.positional, tokens, {
        title: "PE",
        rowLabels: tokens,
        colLabels: dims,
        decimals: 4,
        testid: "capital-pe",
      }),
      with_position: matrix(w.withPosition, tokens, {
        title: "x + PE",
        rowLabels: tokens,
        colLabels: dims,
        decimals: 4,
        testid: "capital-with-position",
      }),
      query: matrix([w.Q[K.query]], [query], {
        title: C04.rich("capital.table.query", { es: keptLabel(query) }),
        rowLabels: [query],
        colLabels: dims,
        testid: "capital-query",
      }),
      keys: matrix(w.K, tokens, {
        title: t("capital.table.keys"),
        rowLabels: tokens,
        colLabels: dims,
        decimals: 4,
        testid: "capital-keys",
      }),
      values: matrix(w.V, tokens, {
        title: t("capital.table.values"),
        rowLabels: tokens,
        colLabels: dims,
        decimals: 4,
        testid: "capital-values",
      }),
      scores: matrix([w.scores], tokens, {
        rowLabels: [query],
        colLabels: tokens,
        decimals: 4,
        testid: "capital-scores",
      }),
      attention_row:
        matrix([w.attentionRow], tokens, {
          rowLabels: [query],
          colLabels: tokens,
          decimals: 4,
          shade: true,
          testid: "capital-attention-row",
          note: rowSum,
        }),
      mixed: { testid: "capital-mixed", cls: "c04-vector", text: `z = ${vectorText(w.mixed)}` },
      logits: matrix(column(w.logits), vocab, {
        title: "Logits",
        rowLabels: vocab,
        colLabels: ["logit"],
        decimals: 4,
        testid: "capital-logits",
      }),
      probabilities: matrix(column(w.probabilityVector), vocab, {
        title: t("capital.table.probabilities"),
        rowLabels: vocab,
        colLabels: ["p"],
        decimals: 4,
        testid: "capital-probabilities",
      }),
      readouts,
      announce: C04.spec.announce("capital", {
        word: readouts.items[0].value,
        p: readouts.items[1].value,
      }),
      asymmetry: asymmetrySpec(K, w, state.identity),
      attention_bars: attentionBarsSpec(K, w),
      probability_bars: probabilityBarsSpec(K, w),
    };
  }

  // The Board's controls (board.js): args.w_country.value, args.w_identity.value; args.identity
  // is the first Board itself (its identity control's slot).
  function readState(args) {
    const K = constants();
    const country = args.w_country.value;
    let identity = Number(args.w_identity.value);
    if (args.trigger != null && args.trigger === args.w_country) {
      // CapitalWalkthrough._country_sets_identity: the identity control follows the model, as
      // the live view sets its spec.
      identity = K.countries[country];
      const specs = JSON.parse(args.identity.data.specs_json || "{}");
      if (specs.identity && specs.identity.value !== identity) {
        const spec = Object.assign({}, specs.identity, { value: identity });
        C04.apply(args, { identity: spec }, { identity: "board:identity" });
      }
    }
    return { country, identity };
  }

  C04.views.capital = { readState, render };
})();
