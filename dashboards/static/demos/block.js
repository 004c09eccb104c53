/* «El bloque, paso a paso» (dashboards/demos/block.py): what BlockDemo's numbers look like, live
 * and in the export.
 *
 * render(state) draws dashboards.demos.block.numbers ({which, layer, step, n_layers, missing,
 * walk}: the walk holds the prompt's tokens, the model's shapes and, per layer, the norms of
 * each part's output and the logit lens's top tokens) as the specs of the board's slots: every
 * word from the page's catalogue (C04.t, table [block]), every number written by C04.fmt in the
 * page's language. Both boards of the view get the same state; each draws its own slots.
 *
 * readState(args), the export only: the embedded walk of the model chosen (args.w_which), on
 * the lecture's prompt of that model (args.prompts), with the layer and step of the controls.
 * The export embeds in <script id="c04-states"> under "block" the walk of each model's
 * lecture prompt ("smollm", "tiny"). A typed other prompt keeps the last state and says that
 * free prompts need the server (slot "offline").
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const fmt = (x) => C04.fmt.number(x, 2);
  const pct = (p) => C04.fmt.percent(p, 1);
  const LENS_STEPS = [1, 5, 8, 10];
  const N_STEPS = 10;
  // What the export's readState sets besides the state: the prompt box and the layer slider.
  const KINDS = { prompt: "board:prompt", layer: "board:layer" };

  // A token as the class reads it: a space as "␣", a line break as "↵", a tab as "⇥".
  const visible = (piece) => String(piece).replace(/ /g, "␣").replace(/\n/g, "↵").replace(/\t/g, "⇥");

  // An integer of 5 digits or more with its thousands apart (a narrow no-break space, both
  // languages, as SI writes them): 49 152; 1536 stays whole.
  const grouped = (n) => (String(n).length < 5 ? String(n) : String(n).replace(/\B(?=(\d{3})+(?!\d))/g, "\u202f"));

  const vector = (n) => `[${grouped(n)}]`;

  function shapes(state) {
    const s = state.walk.shapes;
    return {
      vector: vector(s.d_model),
      q: C04.t("block.shape_heads", { heads: s.heads, d_head: s.d_head }),
      kv: C04.t("block.shape_heads", { heads: s.kv_heads, d_head: s.d_head }),
      hidden: s.d_ff === null ? "" : vector(s.d_ff),
      vocab: vector(s.vocab),
    };
  }

  // Step n of the layer shown: its readouts ([label key, value, unit, testid suffix]), the
  // state of the stream whose lens it shows (or null) and its note.
  function step(state, n) {
    const d = state.walk.layers[state.layer - 1];
    const sh = shapes(state);
    const tiny = state.which === "tiny";
    const inputOfAttention = tiny ? d.input : d.norm1; // the tiny one has no norm before Q, K, V
    const io = (shape, before, after) => [
      ["shape", shape, "", "shape"],
      ["norm_in", fmt(before), "", "before"],
      ["norm_out", fmt(after), "", "after"],
    ];
    const last = state.layer === state.n_layers;
    switch (n) {
      case 1:
        return {
          items: [["shape", sh.vector, "", "shape"], ["norm_out", fmt(d.input), "", "after"]],
          lens: d.lens.input,
          note: state.layer === 1 ? C04.t(`block.note.embedding.${state.which}`) : C04.t("block.note.entering", { layer: state.layer }),
        };
      case 2:
        return { items: io(sh.vector, d.input, d.norm1), lens: null, note: C04.t("block.note.norm") };
      case 3:
        return {
          items: [
            ["norm_in", fmt(inputOfAttention), "", "before"],
            ["norm_q", fmt(d.q), sh.q, "q"],
            ["norm_k", fmt(d.k), sh.kv, "k"],
            ["norm_v", fmt(d.v), sh.kv, "v"],
          ],
          lens: null,
          note: C04.t(`block.note.qkv.${state.which}`),
        };
      case 4:
        return { items: io(sh.vector, inputOfAttention, d.attention), lens: null, note: C04.t("block.note.attention") };
      case 5:
        return { items: io(sh.vector, d.input, d.mid), lens: d.lens.mid, note: C04.t("block.note.residual_attention") };
      case 6:
        return { items: io(sh.vector, d.mid, d.norm2), lens: null, note: C04.t("block.note.norm") };
      case 7:
        return {
          items: [
            ["norm_in", fmt(d.norm2), "", "before"],
            ["norm_hidden", fmt(d.hidden), sh.hidden, "hidden"],
            ["norm_out", fmt(d.mlp), sh.vector, "after"],
          ],
          lens: null,
          note: C04.t("block.note.mlp"),
        };
      case 8:
        return { items: io(sh.vector, d.mid, d.out), lens: d.lens.out, note: C04.t("block.note.residual_mlp") };
      case 9:
        return {
          items: [...io(sh.vocab, d.out, d.logits), ["top_logit", fmt(d.top_logit), "", "top-logit"]],
          lens: null,
          note: last ? C04.t(`block.note.head_last.${state.which}`) : C04.t("block.note.head_lens", { layer: state.layer }),
        };
      default:
        return {
          items: [["shape", sh.vocab, "", "shape"], ["norm_p", fmt(d.probabilities), "", "after"]],
          lens: d.lens.out,
          note: last ? C04.t("block.note.softmax_last") : C04.t("block.note.softmax_lens", { layer: state.layer }),
        };
    }
  }

  function readouts(items, prefix) {
    return {
      items: items.map(([key, value, unit, id]) => C04.spec.readout(C04.t(`block.${key}`), value, unit, `${prefix}-${id}`)),
    };
  }

  function lensBars(lens, testid, caption) {
    return {
      testid,
      caption,
      corner: C04.t("block.token"),
      head: C04.t("block.probability"),
      bar_em: 10,
      rows: lens.tokens.map((token, i) => ({
        label: visible(token),
        value: pct(lens.p[i]),
        width: 100 * lens.p[i],
        note: "",
      })),
    };
  }

  function overview(state) {
    const cols = [C04.t("block.overview.out"), C04.t("block.overview.attention"), C04.t("block.overview.mlp"), C04.t("block.overview.top"), C04.t("block.overview.p")];
    return {
      testid: "block-overview",
      title: C04.t("block.overview.title", { n: state.n_layers }),
      cols,
      rows: state.walk.layers.map((d, i) => ({
        label: i + 1 === state.layer ? { text: C04.t("block.overview.shown", { layer: i + 1 }), tag: "b" } : String(i + 1),
        cells: [
          fmt(d.out),
          fmt(d.attention),
          d.mlp === null ? C04.t("block.overview.none") : fmt(d.mlp),
          visible(d.lens.out.tokens[0]),
          pct(d.lens.out.p[0]),
        ],
      })),
    };
  }

  function render(state) {
    if (!state || !state.walk) return {};
    const specs = {};
    const tokens = state.walk.tokens.map(visible);
    specs.tokens = {
      testid: "block-tokens",
      text: [
        C04.t("block.tokens", { n: tokens.length }),
        " ",
        { text: tokens.slice(0, -1).concat([`[${tokens[tokens.length - 1]}]`]).join(" · "), tag: "b" },
      ],
    };
    const title = (n) => C04.t(`block.step.${n}`);
    for (let n = 1; n <= N_STEPS; n++) {
      if (state.missing.includes(n)) {
        specs[`step_${n}`] = { items: [] };
        specs[`note_${n}`] = { testid: `block-step-${n}-note`, cls: "c04-note", text: C04.t(`block.missing.${n}`) };
        continue;
      }
      const s = step(state, n);
      specs[`step_${n}`] = readouts(s.items, `block-step-${n}`);
      specs[`note_${n}`] = { testid: `block-step-${n}-note`, cls: "c04-note", text: s.note };
      if (LENS_STEPS.includes(n)) {
        specs[`lens_${n}`] = lensBars(s.lens, `block-lens-${n}`, C04.t("block.lens_caption", { layer: state.layer }));
      }
    }
    const n = state.step;
    specs.detail_title = {
      testid: "block-detail-title",
      cls: "c04-note",
      text: { text: C04.t("block.detail_title", { layer: state.layer, n_layers: state.n_layers, title: title(n) }), tag: "b" },
    };
    if (state.missing.includes(n)) {
      specs.detail = { items: [] };
      specs.detail_note = { testid: "block-detail-note", cls: "c04-note", text: C04.t(`block.missing.${n}`) };
    } else {
      const s = step(state, n);
      specs.detail = readouts(s.items, "block-detail");
      specs.detail_note = { testid: "block-detail-note", cls: "c04-note", text: s.note };
      if (s.lens) specs.detail_lens = lensBars(s.lens, "block-detail-lens", C04.t("block.lens_caption", { layer: state.layer }));
    }
    specs.overview = overview(state);
    if (state.refused) {
      specs.offline = { testid: "block-offline", cls: "c04-error", text: C04.t("block.free_prompt_offline") };
    }
    return specs;
  }

  function readState(args) {
    const walks = C04.embedded("block", ["smollm", "tiny"]);
    const current = args.board.data.state_json ? JSON.parse(args.board.data.state_json) : null;
    const trigger = args.trigger ? args.trigger.name : null;
    const which = args.w_which.value;
    if (!walks[which]) throw new Error(`block: no hay estado exportado para ${which}`);
    const specs = JSON.parse(args.board.data.specs_json || "{}");
    if (trigger === "prompt" && args.w_prompt.value !== args.prompts[which] && current) {
      const kept = Object.assign({}, current);
      kept.refused = true;
      return kept;
    }
    const nLayers = args.n_layers[which];
    const layer = Math.min(Math.max(1, Math.round(Number(args.w_layer.value))), nLayers);
    if (trigger === "which") {
      C04.apply(
        { prompt: args.board, layer: args.board },
        {
          prompt: Object.assign({}, specs.prompt, { value: args.prompts[which], placeholder: C04.t(`block.placeholder.${which}`) }),
          layer: Object.assign({}, specs.layer, { value: layer, end: nLayers, disabled: nLayers === 1 }),
        },
        KINDS,
      );
    }
    return {
      which,
      layer,
      step: Math.min(Math.max(1, Math.round(Number(args.w_step.value))), N_STEPS),
      n_layers: nLayers,
      missing: args.missing[which],
      walk: walks[which],
    };
  }

  C04.views.block = { readState, render, visible, grouped };
})();
