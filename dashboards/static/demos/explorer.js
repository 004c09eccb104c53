/* Browser twin of the explorer (dashboards/demos/explorer.py, attnmodel/explorer.py).
 *
 * C04.views.explorer.readState(args) reads the controls of the exported page (its Board's:
 * args.w_<name> = {name, value}, args.trigger the one used, dashboards/components/board.js) and
 * render(state) returns what dashboards.demos.explorer.render(model) returns for the same
 * setting: the specs of the map and the focus row (drawn by markup.js) and of the controls that
 * follow the model (the token buttons and list, the temperature, the two switches). The
 * explorer's constants (d, salt, position weight, score scale, 40 tokens, the temperature's
 * bounds, the reset values, the refused-sentence messages in the page's language) come from
 * Python through the embedded states (states["explorer"],
 * dashboards.demos.explorer.client_constants): none is typed here. Its words ("Consulta", "Adónde
 * mira …") and the percent sign come from the page's catalogue (C04.t, explorer.* and
 * format.percent).
 *
 * state = {tokens, focus, temperature, positional, causal, error, shown}; error is undefined (the
 * message beside the sentence box stays as it is), "" (cleared) or the page's message; shown is
 * undefined (the box keeps what it shows) or the text the box shows now (its spec's value).
 */
(function () {
  "use strict";

  // C04 (c04.js) is looked up when called, so this file may load before or after the core.
  const root = typeof window !== "undefined" ? window : globalThis;
  root.C04 = root.C04 || { views: {} };

  // Python's str.split() breaks on str.isspace() characters: JS's \s adds U+FEFF and lacks
  // U+001C–U+001F and U+0085, so the class is spelled out (tests/ui/test_twin_explorer.py
  // checks it against Python for every code point).
  const WHITESPACE =
    /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

  const consts = () => C04.embedded("explorer");

  function splitWords(text) {
    return String(text).split(WHITESPACE).filter((word) => word.length > 0);
  }

  // --- the model: attnmodel.explorer._compute ------------------------------------------------

  // Scores depend on the tokens and the position switch only; the temperature, the focus and
  // the mask are applied on every change. A few recent sentences are kept.
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
    if (positional) {
      const code = C04.math.sinusoidalEncoding(n, d);
      const factor = k.position_weight / Math.sqrt(d / 2);
      for (let i = 0; i < n; i++) {
        const row = new Float64Array(d);
        for (let c = 0; c < d; c++) row[c] = words[i][c] + code[i][c] * factor;
        vectors.push(row);
      }
    } else {
      for (let i = 0; i < n; i++) vectors.push(Float64Array.from(words[i]));
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
    return C04.math.softmax(masked, temperature);
  }

  // attnmodel.explorer.percentages: whole percentages, halves rounded up
  function percent(w) {
    return Math.floor(100 * w + 0.5);
  }

  // --- the specs markup.js draws: dashboards.demos.explorer.heatmap_spec, row_spec, error_spec -----

  // dashboards.demos.explorer._percent_texts: whole percentages as the page's language writes them
  // (the catalogue's pattern once per row, not once per cell).
  function percentTexts(row) {
    const [before, after] = C04.t("format.percent", { value: "\u0000" }).split("\u0000");
    return Array.from(row, (w) => `${before}${percent(w)}${after}`);
  }

  function heatmapSpec(tokens, weights, focus, causal) {
    return {
      testid: "explorer-table",
      corner: C04.t("explorer.query"),
      tokens: tokens.slice(),
      focus,
      causal,
      cells: weights.map(percentTexts),
      weights: weights.map((row) => Array.from(row)),
    };
  }

  function rowSpec(tokens, row, focus, causal) {
    return {
      testid: "explorer-row",
      title: C04.t("explorer.row_title", { token: tokens[focus] }),
      tokens: tokens.slice(),
      focus,
      causal,
      cells: percentTexts(row),
      widths: Array.from(row, (w) => 100 * w),
    };
  }

  function errorSpec(text) {
    return { testid: "explorer-sentence-error", cls: "c04-error", text };
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

  // dashboards.demos.explorer.select_options: [index, "5 · gato"]
  function selectOptions(tokens) {
    return tokens.map((token, i) => [i, `${i} \u00b7 ${token}`]);
  }

  // dashboards.demos.explorer.temperature_spec
  function temperatureSpec(temperature) {
    const k = consts();
    return {
      value: temperature,
      start: k.temperature_bounds[0],
      end: k.temperature_bounds[1],
      step: k.temperature_step,
      decimals: 2,
      decimal: C04.t("format.decimal"),
    };
  }

  // dashboards.demos.explorer.sentence_spec
  function sentenceSpec(shown) {
    return { value: shown, placeholder: C04.t("explorer.placeholder"), max_length: consts().max_chars };
  }

  // A slot's spec as the Board holds it now (every target is the Board's model).
  function boardSpec(args, name) {
    const specs = args[name].data.specs_json ? JSON.parse(args[name].data.specs_json) : {};
    return specs[name] || {};
  }

  // --- the view ------------------------------------------------------------------------------

  let lastKey = null;
  let lastValues = null;

  function render(state) {
    const tokens = state.tokens;
    const focus = state.focus;
    const causal = Boolean(state.causal);
    const key = JSON.stringify([tokens, focus, state.temperature, state.positional, causal]);
    if (key !== lastKey) {
      const positional = Boolean(state.positional);
      const weights = attentionWeights(tokens, positional, causal, state.temperature);
      const row = rowSpec(tokens, weights[focus], focus, causal);
      // dashboards.demos.explorer.announce
      const top = C04.math.firstMax(weights[focus]);
      // In dashboards.demos.explorer.render's order.
      lastValues = {
        focus: { value: focus, options: tokenLabels(tokens).map((label, i) => [i, label]) },
        focus_list: { value: focus, options: selectOptions(tokens) },
        temperature: temperatureSpec(state.temperature),
        positional: { value: positional },
        causal: { value: causal },
        table: heatmapSpec(tokens, weights, focus, causal),
        row,
        announce: C04.spec.announce("explorer", {
          token: String(tokens[focus]),
          key: String(tokens[top]),
          weight: row.cells[top],
        }),
      };
      lastKey = key;
    }
    const values = Object.assign({}, lastValues);
    if (state.error !== undefined) values.sentence_error = errorSpec(state.error);
    if (state.shown !== undefined) values.sentence = sentenceSpec(state.shown);
    return values;
  }

  // The model's sentence as typed (spacing included), per page's Board: the live view puts
  // it back in the box when the focus changes after a refused text. Until a sentence is
  // applied here it is the page's own, whose words are those on screen joined by single spaces.
  const lastSentence = new WeakMap();

  function modelSentence(board, tokens) {
    const sentence = lastSentence.get(board);
    return sentence === undefined ? tokens.join(" ") : sentence;
  }

  /** attnmodel._params.Sentence's refusal of ``typed`` ("" when the model takes it), in its
   * order: at most max_chars characters, 1 to max_tokens words of at most max_word_chars each.
   * Lengths in code points, as Python's len (an emoji is one, not two UTF-16 units). */
  function sentenceError(typed) {
    const k = consts();
    const length = Array.from(typed).length;
    const words = length > k.max_chars ? [] : splitWords(typed);
    const longest = Math.max(0, ...words.map((w) => Array.from(w).length));
    if (length > k.max_chars) return k.too_long_message.replace("{n}", String(length));
    if (words.length === 0) return k.empty_message;
    if (words.length > k.max_tokens) {
      return k.too_many_message.replace("{n}", String(words.length));
    }
    if (longest > k.max_word_chars) {
      return k.word_too_long_message.replace("{n}", String(longest));
    }
    return "";
  }

  // args: the targets (the Board's model), the controls as w_<name> = {name, value}
  // (w_sentence, w_focus, w_focus_list, w_temperature, w_positional, w_causal and the buttons
  // w_reset, w_cold, w_hot, w_causal_button) and trigger: the control used.
  function readState(args) {
    const k = consts();
    const board = args.table;
    // The tokens on screen (the map's): the last valid sentence, kept when a typed one is
    // refused.
    let tokens = boardSpec(args, "table").tokens;
    let focus = Number(args.w_focus.value);
    let temperature = Number(args.w_temperature.value);
    let positional = Boolean(args.w_positional.value);
    let causal = Boolean(args.w_causal.value);
    let error; // undefined: the message beside the box stays
    let shown; // undefined: the box keeps its text
    const trigger = args.trigger ? args.trigger.name : null;
    switch (trigger) {
      case "sentence": {
        // attnmodel._params.Sentence, in its order, or the model keeps its sentence; the box
        // keeps a refused text (ExplorerView._on_sentence).
        const typed = args.w_sentence.value == null ? "" : String(args.w_sentence.value);
        shown = typed;
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
        const sentence = modelSentence(board, tokens);
        if (args.w_sentence.value !== sentence) {
          shown = sentence;
          error = "";
        }
        break;
      }
      case "reset": {
        // The "Fíjate" buttons move the controls too (render's specs), as the live app's.
        const r = k.reset;
        tokens = splitWords(r.sentence);
        focus = r.focus;
        temperature = r.temperature;
        positional = r.positional;
        causal = r.causal;
        error = "";
        shown = r.sentence;
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
    return { tokens, focus, temperature, positional, causal, error, shown };
  }

  root.C04.views.explorer = {
    readState,
    sentenceError,
    render,
    // for tests/ui/test_twin_explorer.py
    splitWords,
    tokenLabels,
    heatmapSpec,
    rowSpec,
    errorSpec,
    sentenceSpec,
    temperatureSpec,
    attentionWeights,
  };
})();
