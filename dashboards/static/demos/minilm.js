/* «Un modelo de verdad» (dashboards/demos/minilm.py): what MiniLM's numbers look like, live and
 * in the export.
 *
 * Three drawings of dashboards.demos.minilm.numbers, every word from the page's catalogue (C04.t,
 * tables [minilm], [multihead] and [a11y]), every number written by C04.fmt in the page's
 * language:
 * - C04.views.minilm.render(state): the first Board's readouts, pieces and announcer, from
 *   numbers.sentence ({pieces, words, max_pieces});
 * - C04.views.minilm_toy.render(state): the second Board's toy heads of «Varias cabezas» beside
 *   the real heads most like them, from numbers.toy ({words, matches});
 * - C04.views.minilm_grid.render(state): the grid's texts (each tile's name and role, each
 *   head's measured shares, the grid's own words), from numbers.grid, which the HeadGrid
 *   (dashboards/demos/head_grid.mjs) draws with the weights.
 * The lecture's sentences are Spanish data: a page in another language marks their words
 * (multihead.sentence_lang says with which tag).
 *
 * readState(args), the export only (no server, no weights): the embedded state of the control
 * used. The export embeds, in <script id="c04-states"> under "minilm", the numbers of every
 * lecture sentence ("sentences": {sentence, grid}, keyed by the sentence) and of the four
 * sentences of «Varias cabezas» ("toys"). The first Board's controls are «Frases de la clase»
 * (w_sentence_list) and «Ejemplo en inglés» (w_english: args.english, the English sentence); its
 * readState also gives the grid (args.grid, another component: C04.apply, kind esm) its numbers
 * and the sentence's two controls their value, as the server's specs would.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const DECIMALS = 2; // the toy and real tables' numbers
  // What the first board's readState sets besides its state: the grid's numbers, the controls.
  const KINDS = {
    grid: "esm:state_json",
    sentence: "board:sentence",
    sentence_list: "board:sentence_list",
  };

  const pct = (p) => C04.fmt.percent(p, 0);
  const embedded = () => C04.embedded("minilm", ["sentences", "toys"]);

  // A word of the lecture's sentences as a label of C04.markup: as is, or {text, lang}.
  function keptLabel(word) {
    const lang = C04.t("multihead.sentence_lang");
    return lang ? { text: word, lang } : word;
  }

  // The first Board: how many words and pieces, the pieces, the announcer.
  function render(state) {
    const pieces = String(state.pieces.length - 2); // [CLS] and [SEP] are no piece of a word
    const words = String(state.words);
    return {
      readouts: {
        items: [
          C04.spec.readout(C04.t("minilm.readout.words"), words, "", "minilm-words"),
          C04.spec.readout(
            C04.t("minilm.readout.pieces"),
            pieces,
            C04.t("minilm.readout.pieces_unit", { max_pieces: state.max_pieces }),
            "minilm-pieces-count",
          ),
        ],
      },
      pieces: {
        testid: "minilm-pieces",
        text: [C04.t("minilm.pieces_said"), " ", { text: state.pieces.join(" · "), tag: "code" }],
      },
      announce: C04.spec.announce("minilm", { pieces, words }),
    };
  }

  function readState(args) {
    const trigger = args.trigger ? args.trigger.name : null;
    const sentence = trigger === "english" ? args.english : args.w_sentence_list.value;
    const entry = embedded().sentences[sentence];
    if (!entry) throw new Error(`minilm: no hay estado exportado para ${sentence}`);
    const specs = JSON.parse(args.board.data.specs_json || "{}");
    const showing = (name) => Object.assign({}, specs[name], { value: sentence });
    C04.apply(
      { grid: args.grid, sentence: args.board, sentence_list: args.board },
      {
        grid: JSON.stringify(entry.grid),
        sentence: showing("sentence"),
        sentence_list: showing("sentence_list"),
      },
      KINDS,
    );
    return entry.sentence;
  }

  // The second Board: for each hand-built head, its table and the real head's, the words marked.
  function renderToy(state) {
    const labels = state.words.map(keptLabel);
    const table = (weights, title, testid) => {
      const spec = C04.spec.matrix(weights, {
        rowLabels: state.words,
        colLabels: state.words,
        decimals: DECIMALS,
        shade: true,
        title,
        testid,
      });
      spec.cols = labels;
      spec.rows.forEach((row, i) => { row.label = labels[i]; });
      return spec;
    };
    const out = {};
    state.matches.forEach((match, k) => {
      const relation = C04.t(`multihead.relation.${match.relation}`);
      const toyTitle = C04.t("minilm.toy.toy_title", { relation });
      out[`toy_${k}`] = table(match.toy, toyTitle, `minilm-toy-${k + 1}`);
      const title = C04.t("minilm.toy.real_title", {
        layer: match.layer + 1,
        head: match.head + 1,
        similarity: pct(match.similarity),
      });
      out[`real_${k}`] = table(match.real, title, `minilm-real-${k + 1}`);
    });
    return out;
  }

  function readToyState(args) {
    const state = embedded().toys[args.w_toy.value];
    if (!state) throw new Error(`minilm: no hay estado exportado para ${args.w_toy.value}`);
    return state;
  }

  // The grid's texts: each tile's title, name (aria) and short label, each head's shares, the
  // roles' names, the rows' and columns' labels and the grid's own words.
  function renderGrid(state) {
    const layers = state.scores.length;
    const heads = state.scores[0].length;
    const tiles = state.scores.map((layer, la) => layer.map((shares, h) => {
      const role = state.roles[state.role[la][h]];
      const share = pct(shares[state.role[la][h]]);
      const name = C04.t("minilm.head_name", { layer: la + 1, head: h + 1 });
      const said = C04.t(`minilm.role.${role}`, { share });
      const short = C04.t(`minilm.short.${role}`, { share });
      return { title: `${name} · ${said}`, aria: `${name}: ${said}`, short };
    }));
    const numbered = (n, label) => Array.from({ length: n }, (_, i) => label(i + 1));
    return {
      grid: {
        tiles,
        scores: state.scores.map((layer) => layer.map((shares) => shares.map(pct))),
        role_names: state.roles.map((role) => C04.t(`minilm.role_name.${role}`)),
        layer_labels: numbered(layers, (n) => C04.t("minilm.grid.layer_short", { n })),
        // "C{n}": a brace right after a letter is no field of the catalogue (i18n.FIELD), so
        // C04.t gives the template as it is and the number goes in here.
        head_labels: numbered(heads, (n) => C04.t("minilm.grid.head_short").replace("{n}", n)),
        label: C04.t("minilm.grid.grid_label"),
        arcs_alt: C04.t("minilm.grid.arcs_alt"),
        top_title: C04.t("minilm.grid.top_title"),
        scores_title: C04.t("minilm.grid.scores_title"),
        numbers_title: C04.t("minilm.grid.numbers_title"),
        query_key: C04.t("minilm.grid.query_key"),
      },
    };
  }

  C04.views.minilm = { readState, render };
  C04.views.minilm_toy = { readState: readToyState, render: renderToy };
  C04.views.minilm_grid = { render: renderGrid };
})();
