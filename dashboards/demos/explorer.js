/* Browser twin of the explorer (dashboards/demos/explorer.py, attnmodel/explorer.py).
 *
 * C04.views.explorer.readState(args) reads the controls of the exported page and
 * render(state) returns what dashboards.demos.explorer.render(model) returns for the same setting:
 * the specs of the map and the focus row (drawn by markup.js), the token buttons' labels/active
 * and the token
 * list's options/value as Bokeh holds them. The explorer's constants (d, salt, position weight,
 * score scale, 40 tokens, the reset values, the refused-sentence messages in the page's
 * language) come from Python through the embedded states (states["explorer"],
 * dashboards.demos.explorer.client_constants): none is typed here. Its words ("Consulta", "Adónde
 * mira …") and the percent sign come from the page's catalogue (C04.t, explorer.* and
 * format.percent).
 *
 * state = {tokens, focus, temperature, positional, causal, error}; error is undefined (the
 * message beside the sentence box stays as it is), "" (cleared) or the page's message.
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

  // dashboards.demos.explorer.select_options: [str(index), "5 · gato"]
  function selectOptions(tokens) {
    return tokens.map((token, i) => [String(i), `${i} \u00b7 ${token}`]);
  }

  // The tokens on screen, read back from the token list ("5 · gato" -> "gato"): the last valid
  // sentence, kept when a typed one is refused.
  function shownTokens(select) {
    return select.options.map((option) => {
      const label = Array.isArray(option) ? option[1] : String(option);
      return label.slice(label.indexOf(" \u00b7 ") + 3);
    });
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
      lastValues = {
        table: heatmapSpec(tokens, weights, focus, causal),
        row,
        announce: C04.spec.announce("explorer", {
          token: String(tokens[focus]),
          key: String(tokens[top]),
          weight: row.cells[top],
        }),
        buttons_labels: tokenLabels(tokens),
        buttons_active: focus,
        select_options: selectOptions(tokens),
        select_value: String(focus),
      };
      lastKey = key;
    }
    const values = Object.assign({}, lastValues);
    if (state.error !== undefined) values.error = errorSpec(state.error);
    return values;
  }

  function setIfChanged(model, prop, value) {
    if (model[prop] !== value) model[prop] = value;
  }

  // The model's sentence as typed (spacing included), per sentence box: the live view puts it
  // back in the box when the focus changes after a refused text. Until a sentence is applied
  // here it is the page's own, whose words are those on screen joined by single spaces.
  const lastSentence = new WeakMap();

  function modelSentence(box, tokens) {
    const sentence = lastSentence.get(box);
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

  // args: the targets and the controls (w_sentence, w_buttons, w_select, w_temperature,
  // w_positional, w_causal) as Bokeh models, and trigger: which control changed.
  function readState(args) {
    const k = consts();
    let tokens = shownTokens(args.w_select);
    let focus = Number(args.w_buttons.active);
    let temperature = Number(args.w_temperature.value);
    let positional = Boolean(args.w_positional.active);
    let causal = Boolean(args.w_causal.active);
    let error; // undefined: the message beside the box stays
    switch (args.trigger) {
      case "sentence": {
        // attnmodel._params.Sentence, in its order: at most max_chars characters, 1 to
        // max_tokens words of at most max_word_chars each, or the model keeps its sentence.
        // Lengths in code points, as Python's len (an emoji is one, not two UTF-16 units).
        const typed = args.w_sentence.value == null ? "" : String(args.w_sentence.value);
        error = sentenceError(typed);
        if (!error) {
          tokens = splitWords(typed);
          lastSentence.set(args.w_sentence, args.w_sentence.value);
        }
        break;
      }
      case "buttons":
      case "select": {
        if (args.trigger === "select") focus = Number(args.w_select.value);
        // ExplorerView._on_model: a focus change drops a refused text from the box
        const sentence = modelSentence(args.w_sentence, tokens);
        if (args.w_sentence.value !== sentence) {
          args.w_sentence.value = sentence;
          error = "";
        }
        break;
      }
      case "reset": {
        // The "Fíjate" buttons move the controls too, as the live app's widgets follow its model.
        const r = k.reset;
        tokens = splitWords(r.sentence);
        focus = r.focus;
        temperature = r.temperature;
        positional = r.positional;
        causal = r.causal;
        error = "";
        lastSentence.set(args.w_sentence, r.sentence);
        setIfChanged(args.w_sentence, "value", r.sentence);
        setIfChanged(args.w_temperature, "value", temperature);
        setIfChanged(args.w_positional, "active", positional);
        setIfChanged(args.w_causal, "active", causal);
        break;
      }
      case "cold":
        temperature = k.cold_temperature;
        setIfChanged(args.w_temperature, "value", temperature);
        break;
      case "hot":
        temperature = k.hot_temperature;
        setIfChanged(args.w_temperature, "value", temperature);
        break;
      case "causal_button":
        causal = true;
        setIfChanged(args.w_causal, "active", causal);
        break;
      default: // temperature, positional, causal: read above
    }
    // AttentionExplorer._clamp_focus: a shorter sentence moves the focus to its last token
    if (!Number.isInteger(focus) || focus < 0) focus = 0;
    focus = Math.min(focus, tokens.length - 1);
    return { tokens, focus, temperature, positional, causal, error };
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
    attentionWeights,
  };
})();
