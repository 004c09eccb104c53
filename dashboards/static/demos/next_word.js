/* «La siguiente palabra»: what dashboards/demos/next_word.py's numbers look like, live and in
 * the export.
 *
 * render(state) draws dashboards.demos.next_word.numbers (prompt, generated, ended, step, dist,
 * chosen, attention, heads) as the board's slots: the readouts and bars of the distribution
 * shown, the text with its generated tokens, the step's note, the measured heads and one
 * head's map; every word from the catalogue (C04.t, table [next_word]), every number by C04.fmt.
 *
 * readState(args), the export only. The model cannot run in the page, but the temperature and
 * top-p are free input, so the page does what attnmodel/next_word.py does after the model: from
 * the embedded top 200 tokens of each distribution (states["next_word"].tops, their logits and
 * the whole vocabulary's log-sum-exp) it shapes the distribution (smollm.shaped_top), draws the
 * seed's tokens (smollm.splitmix64, smollm.draw_top) and writes the same numbers. Exact: with
 * top-k ≤ 200 no other token can be drawn. The tree holds the lecture's texts and the
 * generations dashboards.demos.next_word.EXPORT_RUNS reach: a drawn token off it stops the
 * generation there ("cut", and the page says so); a typed text is refused with a message.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const t = (k, values) => C04.t(`next_word.${k}`, values);
  const BARS = 10; // the bars drawn; the kept tokens after them share one row
  const CHOSEN = "#d9480f";
  const BAR_EM = 6; // a probability of 1 is a 6 em bar: the table fits a phone's 360 px
  const CONTEXT_CHARS = 40; // the bars' title quotes the end of the text

  const visible = (piece) => piece.replace(/ /g, "\u2423").replace(/\n/g, "\u21b5");

  function context(state) {
    const text = state.prompt.join("") + state.generated.slice(0, state.step).map((g) => g.piece).join("");
    const chars = Array.from(text);
    return chars.length > CONTEXT_CHARS ? `…${chars.slice(-CONTEXT_CHARS).join("")}` : text;
  }

  const pct = (p) => C04.fmt.percent(p, 1);

  function bars(state) {
    const { dist, chosen } = state;
    // The drawn token's row says so in its label (the notes column is the model's own p).
    const rows = dist.p.slice(0, BARS).map((p, i) => ({
      label: i === chosen ? t("chosen_label", { token: visible(dist.pieces[i]) }) : visible(dist.pieces[i]),
      value: pct(p),
      width: 100 * p,
      color: i === chosen ? CHOSEN : undefined,
      note: pct(dist.model[i]),
    }));
    const kept = dist.p.length;
    if (kept > BARS) {
      const rest = dist.p.slice(BARS).reduce((a, b) => a + b, 0);
      const inRest = chosen >= BARS;
      const n = String(kept - BARS);
      rows.push({
        label: inRest ? t("rest_chosen", { n, token: visible(dist.pieces[chosen]) }) : t("rest", { n }),
        value: pct(rest),
        width: 100 * rest,
        color: inRest ? CHOSEN : "#8a96a8",
        note: "",
      });
    }
    return {
      testid: "next-word-bars",
      caption: t("bars_title", { context: context(state) }),
      corner: t("bars_corner"),
      head: t("bars_head"),
      note_head: t("bars_model_head"),
      bar_em: BAR_EM,
      rows,
    };
  }

  function readouts(dist) {
    const item = (key, value, unit, testid) => C04.spec.readout(t(`${key}_label`), value, unit, testid);
    return {
      items: [
        item("kept", String(dist.p.length), t("kept_unit"), "next-word-kept"),
        item("mass", pct(dist.model_mass), t("mass_unit"), "next-word-mass"),
        item("entropy", C04.fmt.number(dist.entropy, 2), t("entropy_unit"), "next-word-entropy"),
      ],
    };
  }

  function textSpec(state) {
    const parts = [{ text: state.prompt.join("") }];
    state.generated.forEach((g, i) => parts.push({ text: g.piece, tag: "b", testid: `next-word-token-${i + 1}` }));
    let note = "";
    if (state.cut !== undefined) note = t("offline_cut", { n: String(state.cut) });
    else if (state.ended) note = t("ended");
    else if (!state.generated.length) note = t("nothing");
    return {
      testid: "next-word-text",
      cls: "c04-nw-text",
      text: [{ text: `${t("text_label")}: ` }, ...parts, note ? { text: ` — ${note}` } : ""],
    };
  }

  function stepNote(state) {
    const { step, generated, dist, chosen } = state;
    let text;
    if (step === 0 && !generated.length) text = t("step_note_prompt");
    else if (step < generated.length) {
      text = t("step_note", {
        n: String(step + 1),
        token: visible(generated[step].piece),
        p: pct(dist.p[chosen]),
        u: C04.fmt.number(generated[step].u, 3),
      });
    } else if (dist) text = t("step_note_next", { n: String(step) });
    else text = t("ended");
    return { testid: "next-word-step", cls: "c04-note", text };
  }

  function headsNote(state) {
    const { heads, attention: a } = state;
    const [previous, induction] = heads.scores;
    const score = (x) => pct(x);
    return {
      testid: "next-word-heads",
      cls: "c04-note",
      text: t("heads", {
        p_layer: String(heads.previous[0]),
        p_head: String(heads.previous[1]),
        p_score: score(heads.previous[2]),
        i_layer: String(heads.induction[0]),
        i_head: String(heads.induction[1]),
        i_score: score(heads.induction[2]),
        layer: String(a.layer),
        head: String(a.head),
        previous: score(previous[a.layer - 1][a.head - 1]),
        induction: score(induction[a.layer - 1][a.head - 1]),
      }),
    };
  }

  function map(a) {
    const [before, after] = C04.t("format.percent", { value: "\u0000" }).split("\u0000");
    const tokens = a.tokens.map(visible);
    return {
      testid: "next-word-map",
      cell: "next-word-cell",
      corner: t("map_corner"),
      tokens,
      focus: tokens.length - 1,
      causal: true,
      cells: a.percent.map((row) => row.map((v) => `${before}${v}${after}`)),
      weights: a.percent.map((row) => row.map((v) => v / 100)),
    };
  }

  function render(state) {
    const { dist } = state;
    return {
      readouts: dist ? readouts(dist) : { items: [] },
      bars: dist ? bars(state) : {},
      text: textSpec(state),
      step_note: stepNote(state),
      heads: headsNote(state),
      map: state.attention.percent ? map(state.attention) : {},
      // Offline, on the repeated sequence, only the measured heads' maps are in the file.
      map_note: state.attention.percent
        ? {}
        : { testid: "next-word-map-missing", cls: "c04-note", text: t("offline_head") },
      announce: dist
        // The kept tokens come most likely first.
        ? C04.spec.announce("next_word", { context: context(state), token: visible(dist.pieces[0]), p: pct(dist.p[0]) })
        : {},
    };
  }

  // ---------------------------------------------------------------------------------------------
  // The export: the sampling's maths on the embedded tops.

  let unpacked = null;
  // states["next_word"], its token texts as a Map id -> piece.
  function tables() {
    if (unpacked) return unpacked;
    const k = C04.embedded("next_word");
    const [ids, texts] = k.pieces;
    const pieces = new Map();
    decode(ids, Uint16Array).forEach((id, i) => pieces.set(id, texts[i]));
    unpacked = Object.assign({}, k, { pieces });
    return unpacked;
  }

  const decode = (b64, Type) => new Type(C04.bytes(b64).buffer); // little-endian, as written

  const decoded = new Map();
  function topOf(ids) {
    const key = ids.join(",");
    if (decoded.has(key)) return decoded.get(key);
    const row = tables().tops[key];
    const top = row ? { ids: decode(row[0], Uint16Array), logits: decode(row[1], Float32Array), lse: row[2] } : null;
    decoded.set(key, top);
    return top;
  }

  // attnmodel.smollm.shaped_top: softmax(z / T) over the top k, then the smallest prefix whose
  // probability reaches top_p, renormalised. [k'] probabilities, most likely first.
  function shapedTop(top, temperature, topK, topP) {
    const k = Math.min(topK, top.logits.length);
    const z0 = top.logits[0];
    let p = [];
    let sum = 0;
    for (let i = 0; i < k; i++) {
      const e = Math.exp((top.logits[i] - z0) / temperature);
      p.push(e);
      sum += e;
    }
    p = p.map((e) => e / sum);
    if (topP < 1) {
      let cumulative = 0;
      let last = k - 1;
      for (let i = 0; i < k; i++) {
        cumulative += p[i];
        if (cumulative >= topP) {
          last = i;
          break;
        }
      }
      p = p.slice(0, last + 1);
      const kept = p.reduce((a, b) => a + b, 0);
      p = p.map((x) => x / kept);
    }
    return p;
  }

  // attnmodel.smollm.splitmix64: the seed's uniform numbers (the top 53 bits of each output).
  function splitmix64(seed, count) {
    const MASK = (1n << 64n) - 1n;
    let state = BigInt(seed) & MASK;
    const out = [];
    for (let i = 0; i < count; i++) {
      state = (state + 0x9e3779b97f4a7c15n) & MASK;
      let z = state;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
      z ^= z >> 31n;
      out.push(Number(z >> 11n) / 2 ** 53);
    }
    return out;
  }

  // attnmodel.smollm.draw_top: the first index whose cumulative probability exceeds u · total.
  function drawTop(p, u) {
    let cumulative = 0;
    const total = p.reduce((a, b) => a + b, 0);
    for (let i = 0; i < p.length; i++) {
      cumulative += p[i];
      if (cumulative > u * total) return i;
    }
    return p.length - 1;
  }

  // dashboards.demos.next_word.distribution
  function distribution(top, temperature, topK, topP) {
    const p = shapedTop(top, temperature, topK, topP);
    const pieces = tables().pieces;
    const ids = Array.from(top.ids.slice(0, p.length));
    const model = ids.map((_, i) => Math.exp(top.logits[i] - top.lse));
    return {
      ids,
      pieces: ids.map((id) => pieces.get(id)),
      p,
      model,
      entropy: -p.reduce((s, x) => s + x * Math.log2(x), 0),
      model_mass: model.reduce((a, b) => a + b, 0),
    };
  }

  const percents = (b64, n, layer, head) => {
    const all = decode(b64, Uint8Array);
    const base = ((layer - 1) * 9 + (head - 1)) * n * n;
    return Array.from({ length: n }, (_, i) => Array.from(all.slice(base + i * n, base + (i + 1) * n)));
  };

  // The state of the controls (settings as the view keeps them) -> the numbers.
  function compute(s) {
    const k = tables();
    const ids = k.prompts[s.prompt].ids;
    const generated = [];
    let cut;
    let ended = false;
    const sequence = [...ids];
    const us = splitmix64(s.seed, s.length);
    for (const u of us) {
      const top = topOf(sequence);
      if (!top) {
        cut = generated.length;
        break;
      }
      const i = drawTop(shapedTop(top, s.temperature, s.top_k, s.top_p), u);
      const id = top.ids[i];
      generated.push({ id, piece: k.pieces.get(id), u });
      sequence.push(id);
      if (k.end_ids.includes(id)) {
        ended = true;
        break;
      }
    }
    // The distribution after the last token: missing off the tree (then the last draw is
    // the last step the page can show).
    const n = generated.length;
    if (cut === undefined && !ended && n > 0 && !topOf([...ids, ...generated.map((g) => g.id)])) cut = n;
    const step = Math.min(s.step, cut === undefined || n === 0 ? n : n - 1);
    const before = [...ids, ...generated.slice(0, step).map((g) => g.id)];
    const top = ended && step === n ? null : topOf(before);
    const dist = top ? distribution(top, s.temperature, s.top_k, s.top_p) : null;
    const chosen = dist && step < generated.length ? dist.ids.indexOf(generated[step].id) : -1;
    let attention;
    if (s.sequence === "repeated") {
      const r = k.repeated;
      const percent = r.maps[`${s.layer},${s.head}`] || null;
      attention = { sequence: "repeated", tokens: r.ids.map((id) => k.pieces.get(id)), layer: s.layer, head: s.head, percent };
    } else {
      const percent = percents(k.prompts[s.prompt].attention, ids.length, s.layer, s.head);
      attention = { sequence: "prompt", tokens: ids.map((id) => k.pieces.get(id)), layer: s.layer, head: s.head, percent };
    }
    const state = {
      prompt: ids.map((id) => k.pieces.get(id)),
      generated,
      ended,
      step,
      dist,
      chosen,
      attention,
      heads: k.heads,
    };
    if (cut !== undefined) state.cut = cut;
    return state;
  }

  // The settings the page shows, per board (the prompt and the generated length have no
  // control whose value says them: a refused text stays in the box).
  const settings = new WeakMap();
  // links.js's hook for the generated length (no control shows it): the last settings drawn,
  // or the link's length before the first draw.
  let lastSettings = null;
  let linkedLength = null;
  const linked = () => (lastSettings ? lastSettings.length : linkedLength);
  function setLinked(_name, value) {
    if (lastSettings) lastSettings.length = value;
    else linkedLength = value;
  }

  function readState(args) {
    const k = tables();
    const board = args.board;
    const specs = JSON.parse(board.data.specs_json || "{}");
    const prompts = specs.examples.options.map((o) => o[1]);
    const s = settings.get(board) || {
      prompt: prompts[specs.examples.value ?? 0],
      length: linkedLength ?? 0,
    };
    const number = (w, fallback) => (Number.isFinite(Number(w.value)) && w.value !== null ? Number(w.value) : fallback);
    Object.assign(s, {
      temperature: number(args.w_temperature, 1),
      top_k: Math.round(number(args.w_top_k, 50)),
      top_p: number(args.w_top_p, 1),
      seed: s.seed ?? Math.round(number(args.w_seed, 0)),
      layer: Math.round(number(args.w_layer, 1)),
      head: Math.round(number(args.w_head, 1)),
      sequence: args.w_sequence.value || "prompt",
      step: s.step ?? 0,
    });
    const values = {};
    const trigger = args.trigger ? args.trigger.name : null;
    switch (trigger) {
      case "prompt": {
        const typed = args.w_prompt.value == null ? "" : String(args.w_prompt.value);
        if (k.prompts[typed]) {
          // A new text starts without generated tokens (the same text again keeps them).
          if (typed !== s.prompt) Object.assign(s, { prompt: typed, length: 0, step: 0 });
          values.prompt_error = {};
        } else {
          values.prompt_error = { testid: "next-word-prompt-error", cls: "c04-error", text: t("offline_prompt") };
        }
        break;
      }
      case "examples":
        if (prompts[args.w_examples.value] !== s.prompt) {
          Object.assign(s, { prompt: prompts[args.w_examples.value], length: 0, step: 0 });
        }
        values.prompt = Object.assign({}, specs.prompt, { value: s.prompt });
        values.prompt_error = {};
        break;
      case "seed": {
        const seed = Number(args.w_seed.value);
        if (Number.isInteger(seed) && seed >= 0 && seed <= 2 ** 31 - 1) s.seed = seed;
        break;
      }
      case "one":
      case "burst":
        s.length = Math.min(args.max_new, s.length + (trigger === "one" ? 1 : args.burst));
        s.step = s.length;
        break;
      case "clear":
        s.length = 0;
        s.step = 0;
        break;
      case "step":
        s.step = Math.min(Number(args.w_step.value) || 0, s.length);
        break;
      case "previous_head":
      case "induction_head": {
        const best = k.heads[trigger === "previous_head" ? "previous" : "induction"];
        Object.assign(s, { sequence: "repeated", layer: best[0], head: best[1] });
        break;
      }
      default: // temperature, top_k, top_p, layer, head, sequence: read above
    }
    settings.set(board, s);
    lastSettings = s;
    const state = compute(s);
    // The controls on the state's values, as NextWordView.control_specs sets them.
    values.examples = Object.assign({}, specs.examples, { value: prompts.indexOf(s.prompt) });
    for (const name of ["temperature", "top_k", "top_p", "seed", "layer", "head"]) {
      values[name] = Object.assign({}, specs[name], { value: s[name] });
    }
    values.sequence = Object.assign({}, specs.sequence, { value: s.sequence });
    // NextWordView._step_spec
    const n = state.generated.length;
    const last = n === 0 ? "after_text" : state.ended ? "end_option" : "next_option";
    const options = state.generated.map((g, i) => [i, `${i + 1} \u00b7 ${visible(g.piece)}`]);
    if (state.cut === undefined) options.push([n, t(last)]); // off the tree: nothing after
    values.step = { value: state.step, options };
    C04.setSlots(board, values);
    return state;
  }

  C04.views.next_word = { readState, render, compute, linked, setLinked, splitmix64, shapedTop, drawTop };
})();
