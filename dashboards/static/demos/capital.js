/* «La capital de ___ es …» (demo 4): what dashboards/demos/capital.py's numbers look like, live
 * and in the export.
 *
 * render(state) draws dashboards.demos.capital.numbers (the eight steps' numbers, the model's
 * words and weights, the prediction, the identity slopes and the asymmetry box's two
 * probabilities) as the specs of the slots of the section's two boards: every word from the
 * page's catalogue (C04.t, C04.rich, table [capital]), every number written by C04.fmt in the
 * page's language, the model's Spanish words marked {text, lang: "es"} on a page in another
 * language. Each board keeps the slots it has.
 *
 * readState(args), the export only: the controls' country and identity (a new country sets its
 * identity and moves the identity control, as the model does) and walkthrough()'s state for
 * them. This is the one copy of attnmodel.capital's maths in JS, and why it exists: the identity
 * is a continuous control (step 0.01, ~400 states with the two countries) and the walkthrough is
 * a few 5×3 products, so the export computes it here, from the model's constants
 * (dashboards.demos.capital.constants, embedded under "capital" → "constants"), instead of
 * embedding every state. tests/ui/test_twin_capital.py holds its printed digits and its argmax
 * to Python's.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  // ---------------------------------------------------------------------------------------------
  // The export's walkthrough: attnmodel.capital.CapitalWalkthrough, the state numbers() gives.

  const constants = () => C04.embedded("capital", ["constants"]).constants;

  // The eight steps for one country and identity.
  function forward(K, country, identity) {
    const math = C04.math;
    const tokens = K.sentence.map((word) => (word === null ? country : word));
    // 2) embeddings: the identity enters only at [country slot, identity dimension]
    const embeddings = K.embeddings_at_zero.map((row) => row.slice());
    embeddings[K.country_slot][K.identity_dim] = identity;
    // 3) + position: the highest-frequency sine/cosine pair in dims 0–1, none in the identity's
    const pe2 = math.sinusoidalEncoding(tokens.length, 2);
    const positional = embeddings.map((row, i) => row.map((_, j) => (j < 2 ? pe2[i][j] : 0)));
    const withPosition = embeddings.map((row, i) => row.map((v, j) => v + positional[i][j]));
    // 4) Q, K, V; 5–7) the attention of the query ("es") over the five tokens
    const [Q, keys, values] = [K.W_Q, K.W_K, K.W_V].map((W) => math.matmul(withPosition, W));
    const attention = math.sdpa([Q[K.query]], keys, values);
    const mixed = Array.from(attention.output[0]);
    // 8) logits (u_word · mixed) -> probabilities
    const logits = K.U.map((u) => {
      let s = 0;
      for (let j = 0; j < u.length; j++) s += u[j] * mixed[j];
      return s;
    });
    const probabilities = Array.from(math.softmax([logits])[0]);
    return {
      tokens,
      embeddings,
      positional,
      withPosition,
      q: Q[K.query],
      keys,
      values,
      scores: Array.from(attention.scores[0]),
      attention: Array.from(attention.weights[0]),
      mixed,
      logits,
      probabilities,
    };
  }

  function walkthrough(K, country, identity) {
    const w = forward(K, country, identity);
    const max = Math.max(...w.probabilities);
    // identity_slopes: attention on the country × the identity component of París's and
    // Roma's output vectors (U's first two rows).
    const [paris, roma] = K.vocabulary;
    const a = w.attention[K.country_slot];
    const magnitude = Math.abs(identity);
    const p = (sign, word) =>
      forward(K, country, sign * magnitude).probabilities[K.vocabulary.indexOf(word)];
    return {
      country,
      identity,
      tokens: w.tokens,
      vocabulary: K.vocabulary,
      country_slot: K.country_slot,
      query: K.query,
      identity_dim: K.identity_dim,
      embeddings: w.embeddings,
      positional: w.positional,
      with_position: w.withPosition,
      W_Q: K.W_Q,
      W_K: K.W_K,
      W_V: K.W_V,
      U: K.U,
      q: w.q,
      keys: w.keys,
      values: w.values,
      scores: w.scores,
      attention: w.attention,
      mixed: w.mixed,
      logits: w.logits,
      probabilities: w.probabilities,
      top: K.vocabulary.filter((_, i) => w.probabilities[i] === max),
      probability: max,
      loss: -Math.log(max),
      slopes: { [paris]: a * K.U[0][K.identity_dim], [roma]: a * K.U[1][K.identity_dim] },
      // What the same |identity| gives each side (the asymmetry box).
      mirror: { [paris]: p(1, paris), [roma]: p(-1, roma) },
    };
  }

  // The Board's controls (board.js): args.w_country.value, args.w_identity.value; args.board is
  // the controls' Board.
  function readState(args) {
    const K = constants();
    const country = args.w_country.value;
    let identity = Number(args.w_identity.value);
    if (args.trigger != null && args.trigger === args.w_country) {
      // CapitalWalkthrough._country_sets_identity: the identity control follows the model, as
      // the live view sets its spec.
      identity = K.countries[country];
      const specs = JSON.parse(args.board.data.specs_json || "{}");
      if (specs.identity && specs.identity.value !== identity) {
        const spec = Object.assign({}, specs.identity, { value: identity });
        C04.apply({ identity: args.board }, { identity: spec }, { identity: "board:identity" });
      }
    }
    return walkthrough(K, country, identity);
  }

  // ---------------------------------------------------------------------------------------------
  // The drawing, live and offline.

  const t = (key, values) => C04.t(key, values);
  const r = (key, fields) => C04.rich(key, fields);
  const fmt = (x, decimals = 2) => C04.fmt.number(x, decimals);

  // The labels of the model's dimensions (attnmodel.capital.DIMENSIONS), in order.
  const DIMENSION_KEYS = [
    "capital.dimension.place",
    "capital.dimension.function",
    "capital.dimension.identity",
  ];
  // Bar colours: París and Roma stand out (style.CATEGORY_COLORS' first two), the six other
  // words share a grey; the attention's blue.
  const WORD_COLORS = ["#0072b2", "#d55e00"];
  const OTHER_COLOR = "#b8c2cf";
  const ATTENTION_COLOR = "#1f5fa8";
  // The probability bars' full width: a fixed scale, so that the bars of two states compare.
  const PROBABILITY_SCALE = 0.6;
  // The bar column's width (em) of each chart: the attention card narrow, the distribution wide.
  const ATTENTION_BAR_EM = 12;
  const PROBABILITY_BAR_EM = 20;

  // A model word, marked as Spanish on a page in another language (capital.kept is "{word}" on
  // the Spanish page, a lang="es" span on the others).
  const kept = (word) =>
    (t("capital.kept", { word: "" }) !== "" ? { text: word, lang: "es" } : word);

  function readouts(state) {
    const readout = C04.spec.readout;
    const top = state.top;
    let prediction = kept(top[0]);
    if (top.length > 1) {
      const joined = [];
      top.forEach((word, k) => joined.push(...(k ? [r("capital.readout.or")] : []), kept(word)));
      prediction = r("capital.readout.tie", { words: joined });
    }
    const unit = [];
    top.forEach((word, k) => unit.push(...(k ? [" = "] : []), "p(", kept(word), ")"));
    const probability = fmt(state.probability, 4);
    return {
      items: [
        readout(r("capital.readout.prediction"), prediction, "", "capital-prediction"),
        readout(r("capital.readout.probability"), probability, unit, "capital-probability"),
        readout(r("capital.readout.loss"), fmt(state.loss, 4), "−ln p", "capital-loss"),
      ],
    };
  }

  // Why +identity and −identity are not mirror images.
  function asymmetry(state) {
    const [paris, roma] = Object.keys(state.slopes);
    const words = { paris: kept(paris), roma: kept(roma) };
    const magnitude = Math.abs(state.identity);
    const plus = fmt(state.mirror[paris], 4);
    const minus = fmt(state.mirror[roma], 4);
    const compare =
      magnitude > 0
        ? r("capital.asymmetry.compare", { m: fmt(magnitude), plus, minus, ...words })
        : r("capital.asymmetry.compare_tie", { p: plus, ...words });
    const u = (word) => fmt(state.U[state.vocabulary.indexOf(word)][state.identity_dim]);
    const slope = (name, word) =>
      ({ text: fmt(state.slopes[word], 4), testid: `capital-slope-${name}`, tag: "b" });
    const es = kept(state.tokens[state.query]);
    const a = fmt(state.attention[state.country_slot], 4);
    return {
      testid: "capital-asymmetry",
      cls: "c04-aside", // not "c04-box": that is a Board's titled frame (style.py)
      text: [
        r("capital.asymmetry.why", { es, a, ...words }),
        r("capital.asymmetry.slopes", {
          u_paris: u(paris),
          u_roma: u(roma),
          slope_paris: slope("paris", paris),
          slope_roma: slope("roma", roma),
          ...words,
        }),
        r("capital.asymmetry.because", { compare, ...words }),
      ],
    };
  }

  function render(state) {
    const { tokens, vocabulary, query } = state;
    const model = new Set([...tokens, ...vocabulary]);
    const dims = DIMENSION_KEYS.map((key) => t(key));
    const es = tokens[query];
    // A table (C04.markup.matrix), its labels that are model words kept.
    const matrix = (values, rowLabels, colLabels, options) => {
      const spec = C04.spec.matrix(values, { rowLabels, colLabels, ...options });
      const mark = (label) => (model.has(label) ? kept(label) : label);
      spec.cols = spec.cols.map(mark);
      for (const row of spec.rows) row.label = mark(row.label);
      return spec;
    };
    const column = (values) => values.map((v) => [v]);
    const separator = t("capital.table.vector_separator");
    const specs = {
      tokens: {
        testid: "capital-tokens",
        tokens: tokens.map(kept),
        country: state.country_slot,
        query,
        note: r("capital.step.tokens_note", { es: kept(es) }),
      },
      embeddings: matrix(state.embeddings, tokens, dims, {
        title: "x (5×3)",
        testid: "capital-embeddings",
      }),
      pe: matrix(state.positional, tokens, dims, {
        title: "PE",
        decimals: 4,
        testid: "capital-pe",
      }),
      with_position: matrix(state.with_position, tokens, dims, {
        title: "x + PE",
        decimals: 4,
        testid: "capital-with-position",
      }),
      query: matrix([state.q], [es], dims, {
        title: r("capital.table.query", { es: kept(es) }),
        testid: "capital-query",
      }),
      keys: matrix(state.keys, tokens, dims, {
        title: t("capital.table.keys"),
        decimals: 4,
        testid: "capital-keys",
      }),
      values: matrix(state.values, tokens, dims, {
        title: t("capital.table.values"),
        decimals: 4,
        testid: "capital-values",
      }),
      scores: matrix([state.scores], [es], tokens, { decimals: 4, testid: "capital-scores" }),
      attention_row: matrix([state.attention], [es], tokens, {
        decimals: 4,
        shade: true,
        testid: "capital-attention-row",
        note: t("capital.table.row_sum", { total: fmt(C04.math.sum(state.attention), 4) }),
      }),
      attention_bars: {
        testid: "capital-attention-bars",
        corner: "token",
        head: t("capital.chart.weight_axis"),
        color: ATTENTION_COLOR,
        bar_em: ATTENTION_BAR_EM,
        // "3 · Francia"-style: the country's row is renamed with the country.
        rows: state.attention.map((a, i) => ({
          label: [`${i} · `, kept(tokens[i])],
          value: fmt(a, 4),
          width: 100 * a,
          note: "",
        })),
      },
      mixed: {
        testid: "capital-mixed",
        cls: "c04-vector",
        text: `z = (${state.mixed.map((v) => fmt(v, 4)).join(separator)})`,
      },
      unembedding: matrix(state.U, vocabulary, dims, {
        title: t("capital.table.unembedding"),
        testid: "capital-unembedding",
      }),
      logits: matrix(column(state.logits), vocabulary, ["logit"], {
        title: "Logits",
        decimals: 4,
        testid: "capital-logits",
      }),
      probabilities: matrix(column(state.probabilities), vocabulary, ["p"], {
        title: t("capital.table.probabilities"),
        decimals: 4,
        testid: "capital-probabilities",
      }),
      probability_bars: {
        testid: "capital-probability-bars",
        corner: t("capital.chart.word_axis"),
        head: t("capital.chart.probability_axis"),
        bar_em: PROBABILITY_BAR_EM,
        rows: vocabulary.map((word, i) => ({
          label: kept(word),
          value: fmt(state.probabilities[i], 4),
          width: Math.min(100, (100 * state.probabilities[i]) / PROBABILITY_SCALE),
          color: WORD_COLORS[i] || OTHER_COLOR,
          note: "",
        })),
      },
      readouts: readouts(state),
      asymmetry: asymmetry(state),
    };
    // The fixed weights of step 4, without a data-testid.
    for (const name of ["W_Q", "W_K", "W_V"]) {
      specs[name.toLowerCase()] = C04.spec.matrix(state[name], {
        rowLabels: dims,
        colLabels: dims,
        decimals: 0,
        title: name,
      });
    }
    // The live region: the prediction and its probability, as the readouts write them.
    const [prediction, probability] = specs.readouts.items;
    specs.announce = C04.spec.announce("capital", { word: prediction.value, p: probability.value });
    return specs;
  }

  C04.views.capital = { readState, render, walkthrough };
})();
