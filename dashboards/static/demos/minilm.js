/* Browser twin of dashboards/demos/minilm.py ("Un modelo de verdad": MiniLM's 72 heads).
 *
 * The offline export has no server and no weights (90 MB), so nothing could compute a new
 * sentence here. The export embeds, in <script id="c04-states"> under "minilm", this page's
 * render of every lecture sentence ("sentences": dashboards.demos.minilm.render_sentence, keyed by
 * the sentence, with the box disabled) and of the four sentences of "Varias cabezas" ("toys":
 * render_toy), already in the page's language; this file only looks them up, so no step of the
 * render is written twice.
 *
 * Each of the view's two Boards runs it with its own controls (dashboards/static/board.js:
 * args.w_<name> = {name, value}, args.trigger the one used): the first's "Frases de la clase"
 * (w_sentence_list) and "Ejemplo en inglés" (w_english: args.english, the English sentence),
 * the second's select of "¿dónde está la cabeza de juguete?" (w_toy). The grid of heads is no
 * slot of a Board: render sets its spec itself, on the HeadGrid with class args.grid_class.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const embedded = () => C04.embedded("minilm", ["sentences", "toys"]);

  function readState(args) {
    const trigger = args.trigger ? args.trigger.name : null;
    if (trigger === "toy") return { toy: args.w_toy.value };
    const sentence = trigger === "english" ? args.english : args.w_sentence_list.value;
    return { sentence, gridClass: args.grid_class };
  }

  // The page's HeadGrid (its data model, whose spec_json head_grid.mjs draws).
  function headGrid(cls) {
    const doc = window.Bokeh && window.Bokeh.documents && window.Bokeh.documents[0];
    if (!doc) return null;
    for (const m of doc.all_models) if ((m.css_classes || []).includes(cls)) return m;
    return null;
  }

  function render(state) {
    const { sentences, toys } = embedded();
    if (state.toy !== undefined) {
      const toy = toys[state.toy];
      if (!toy) throw new Error(`minilm: no hay estado exportado para ${state.toy}`);
      return Object.assign({}, toy);
    }
    const sentence = sentences[state.sentence];
    if (!sentence) throw new Error(`minilm: no hay estado exportado para ${state.sentence}`);
    const values = Object.assign({}, sentence);
    const grid = headGrid(state.gridClass);
    const text = JSON.stringify(values.grid);
    if (grid && grid.data.spec_json !== text) grid.data.spec_json = text;
    delete values.grid;
    return values;
  }

  C04.views.minilm = { readState, render };
})();
