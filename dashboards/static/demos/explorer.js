/* «Explorador»: what dashboards/demos/explorer.py's numbers look like, live and in the export.
 *
 * render(state) draws dashboards.demos.explorer.numbers ({tokens, focus, causal, weights}: the
 * model's tokens as typed, the focus index, the causal switch and the n × n attention weights)
 * as the Board's slots "table" (C04.markup.heatmap: the map as whole percentages), "row"
 * (C04.markup.focus_row: "Adónde mira <token>", a bar per key) and "announce"; every text from
 * the page's catalogue (C04.t, explorer.* and format.percent).
 *
 * readState(args), the export only: the sentence is free input, so the page computes what the
 * model computes (attnmodel.explorer._compute: trigram vectors, position, scores, mask,
 * softmax) from the model's constants that the export embeds (states["explorer"],
 * dashboards.demos.explorer.constants), and plays the server's part for the controls
 * (ExplorerView): a refused sentence stays in the box beside the catalogue's message and the
 * numbers on screen are kept; a new sentence or focus moves the token controls; the "Fíjate"
 * buttons move the other controls.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  // ---------------------------------------------------------------------------------------------
  // The drawing, live and offline.

  // attnmodel.explorer.percentages: whole percentages, halves rounded up, as the page's language
  // writes them (the catalogue's pattern once per row, not once per cell: 1 600 cells at most).
  function percentTexts(row) {
    const [before, after] = C04.t("format.percent", { value: "\u0000" }).split("\u0000");
    return Array.from(row, (w) => `${before}${Math.floor(100 * w + 0.5)}${after}`);
  }

  function render(state) {
    const { tokens, focus, causal, weights } = state;
    const row = weights[focus];
    const cells = percentTexts(row);
    const top = C04.math.firstMax(row); // where the focus token looks most
    return {
      table: {
        testid: "explorer-table",
        corner: C04.t("explorer.query"),
        tokens,
        focus,
        causal,
        cells: weights.map(percentTexts),
        weights,
      },
      row: {
        testid: "explorer-row",
        title: C04.t("explorer.row_title", { token: tokens[focus] }),
        tokens,
        focus,
        causal,
        cells,
        widths: row.map((w) => 100 * w),
      },
      announce: C04.spec.announce("explorer", {
        token: tokens[focus],
        key: tokens[top],
        weight: cells[top],
      }),
    };
  }

  // ---------------------------------------------------------------------------------------------
  // The export: the model's maths on the typed sentence, and the controls as the server sets them.

  const consts = () => C04.embedded("explorer");

  // Python's str.split() breaks on str.isspace() characters: JS's \s adds U+FEFF and lacks
  // U+001C–U+001F and U+0085, so the class is spelled out (tests/ui/test_twin_explorer.py
  // checks it against Python for every code point).
  const WHITESPACE =
    /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

  function splitWords(text) {
    return String(text).split(WHITESPACE).filter((word) => word.length > 0);
  }

  // Scores depend on the tokens and the position switch only; the temperature and the mask are
  // applied on every change. A few recent sentences are kept.
  const scoreCache = new Map();
  const SCORE_CACHE_SIZE = 8;

  function unmaskedScores(tokens, positional) {
    const key = (positional ? "1" : "0") + tokens.join(" "); // tokens hold no whitespace
    const hit = scoreCache.get(key);
    if (hit !== undefined) return hit;
    const k = consts();
    const n = tokens.length;
    const d = k.token_dim;
    // 1) one vector per token: its spelling (trigrams), plus where it stands (position)
    const words = C04.math.trigramVectors(tokens, d, k.trigram_salt);
    const vectors = [];
    const code = positional ? C04.math.sinusoidalEncoding(n, d) : null;
    const factor = k.position_weight / Math.sqrt(d / 2);
    for (let i = 0; i < n; i++) {
      const row = Float64Array.from(words[i]);
      if (code) for (let c = 0; c < d; c++) row[c] += code[i][c] * factor;
      vectors.push(row);
    }
    // 2) Q = K = V = vectors: score every token against every token (scale · v_i · v_j)
    const scores = [];
    for (let i = 0; i < n; i++) {
      const row = new Float64Array(n);
      for (let j = 0; j < n; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += vectors[i][c] * vectors[j][c];
        row[j] = k.score_scale * dot;
      }
      scores.push(row);
    }
    if (scoreCache.size >= SCORE_CACHE_SIZE) scoreCache.delete(scoreCache.keys().next().value);
    scoreCache.set(key, scores);
    return scores;
  }

  function attentionWeights(tokens, positional, causal, temperature) {
    const scores = unmaskedScores(tokens, positional);
    // 3) the causal mask hides the future; -inf becomes a weight of exactly 0
    const masked = scores.map((row, i) =>
      causal ? Array.from(row, (s, j) => (j > i ? -Infinity : s)) : Array.from(row),
    );
    // 4) each row becomes a 100 % budget
    return C04.math.softmax(masked, temperature).map((row) => Array.from(row));
  }

  /** attnmodel._params.Sentence's refusal of ``typed`` ("" when the model takes it), in its
   * order, then that the sentence on screen is kept (ExplorerView's message): at most max_chars
   * characters, 1 to max_tokens words of at most max_word_chars each. Lengths in code points,
   * as Python's len (an emoji is one, not two UTF-16 units). */
  function sentenceError(typed) {
    const k = consts();
    const said = (key, values) => `${C04.t(key, values)} ${C04.t("explorer.kept")}`;
    const length = Array.from(typed).length;
    if (length > k.max_chars) {
      return said("core.sentence_too_many_chars", { n: length, max_chars: k.max_chars });
    }
    const words = splitWords(typed);
    if (words.length === 0) return said("core.sentence_empty");
    if (words.length > k.max_tokens) {
      return said("core.sentence_too_long", { n: words.length, max_tokens: k.max_tokens });
    }
    const longest = Math.max(...words.map((w) => Array.from(w).length));
    if (longest > k.max_word_chars) {
      return said("core.word_too_long", { n: longest, max_chars: k.max_word_chars });
    }
    return "";
  }

  // dashboards.demos.explorer.token_labels: the second "gato" is "gato (2)"
  function tokenLabels(tokens) {
    const seen = new Map();
    return tokens.map((token) => {
      const count = (seen.get(token) || 0) + 1;
      seen.set(token, count);
      return count === 1 ? token : `${token} (${count})`;
    });
  }

  // The model's sentence as typed (spacing included), per page's Board: the live view puts
  // it back in the box when the focus changes after a refused text. Until a sentence is
  // applied here it is the page's own, whose words are those on screen joined by single spaces.
  const lastSentence = new WeakMap();

  // args: the controls as w_<name> = {name, value} (w_sentence, w_focus, w_focus_list,
  // w_temperature, w_positional, w_causal and the buttons w_reset, w_cold, w_hot,
  // w_causal_button), trigger (the control used) and board (the Board, board.js).
  function readState(args) {
    const k = consts();
    const board = args.board;
    // The numbers on screen: the last valid sentence, kept when a typed one is refused.
    const shown = JSON.parse(board.data.state_json);
    let tokens = shown.tokens;
    let focus = Number(args.w_focus.value);
    let temperature = Number(args.w_temperature.value);
    let positional = Boolean(args.w_positional.value);
    let causal = Boolean(args.w_causal.value);
    let error; // undefined: the message beside the box stays
    let box; // undefined: the box keeps its text
    const trigger = args.trigger ? args.trigger.name : null;
    switch (trigger) {
      case "sentence": {
        // attnmodel._params.Sentence, or the model keeps its sentence; the box keeps a refused
        // text (ExplorerView._on_sentence).
        const typed = args.w_sentence.value == null ? "" : String(args.w_sentence.value);
        box = typed;
        error = sentenceError(typed);
        if (!error) {
          tokens = splitWords(typed);
          lastSentence.set(board, typed);
        }
        break;
      }
      case "focus":
      case "focus_list": {
        if (trigger === "focus_list") focus = Number(args.w_focus_list.value);
        // ExplorerView._on_model: a focus change drops a refused text from the box
        const sentence = lastSentence.has(board) ? lastSentence.get(board) : tokens.join(" ");
        if (args.w_sentence.value !== sentence) {
          box = sentence;
          error = "";
        }
        break;
      }
      case "reset": {
        const r = k.reset;
        tokens = splitWords(r.sentence);
        ({ focus, temperature, positional, causal } = r);
        error = "";
        box = r.sentence;
        lastSentence.set(board, r.sentence);
        break;
      }
      case "cold":
        temperature = k.cold_temperature;
        break;
      case "hot":
        temperature = k.hot_temperature;
        break;
      case "causal_button":
        causal = true;
        break;
      default: // temperature, positional, causal: read above
    }
    // AttentionExplorer._clamp_focus: a shorter sentence moves the focus to its last token
    if (!Number.isInteger(focus) || focus < 0) focus = 0;
    focus = Math.min(focus, tokens.length - 1);

    // The controls on the model's values, as ExplorerView._show sets their specs.
    const specs = JSON.parse(board.data.specs_json || "{}");
    const labels = tokenLabels(tokens);
    const values = {
      focus: { value: focus, options: labels.map((label, i) => [i, label]) },
      focus_list: { value: focus, options: tokens.map((token, i) => [i, `${i} \u00b7 ${token}`]) },
      temperature: Object.assign({}, specs.temperature, { value: temperature }),
      positional: { value: positional },
      causal: { value: causal },
    };
    if (box !== undefined) values.sentence = Object.assign({}, specs.sentence, { value: box });
    if (error !== undefined) {
      values.sentence_error = Object.assign({}, specs.sentence_error, { text: error });
    }
    C04.setSlots(board, values);
    if (error) return shown; // refused: the numbers on screen stay
    const weights = attentionWeights(tokens, positional, causal, temperature);
    return { tokens, focus, causal, weights };
  }

  C04.views.explorer = {
    readState,
    render,
    sentenceError, // links.js checks a link's sentence with it
    splitWords, // for tests/ui/test_twin_explorer.py
  };
})();
