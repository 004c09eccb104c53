/* Browser twin of dashboards/demos/minilm.py ("Un modelo de verdad": MiniLM's 72 heads).
 *
 * The offline export has no server and no weights (90 MB), so nothing could compute a new
 * sentence here. The export embeds, in <script id="c04-states"> under "minilm", this page's
 * render of every lecture sentence ("sentences": dashboards.demos.minilm.render_sentence, keyed by
 * the sentence) and of the four sentences of "Varias cabezas" ("toys": render_toy), already in
 * the page's language; this file only looks them up, so no step of the render is written twice.
 *
 * readState(args): sentence = the select "Frases de la clase" (args.w_sentence), toy = the
 * select of "¿dónde está la cabeza de juguete?" (args.w_toy), both Bokeh Selects.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const embedded = () => C04.embedded("minilm", ["sentences", "toys"]);

  function readState(args) {
    return { sentence: args.w_sentence.value, toy: args.w_toy.value };
  }

  function render(state) {
    const { sentences, toys } = embedded();
    const sentence = sentences[state.sentence];
    const toy = toys[state.toy];
    if (!sentence || !toy) throw new Error(`minilm: no hay estado exportado para ${state.sentence}`);
    return Object.assign({}, sentence, toy);
  }

  C04.views.minilm = { readState, render };
})();
