/* Each of our components' browser code, by its class name: the one ES module every component
 * has (dashboards/components/bundle.mjs, Panel's _bundle) calls the entry of its class here.
 * Each entry draws with the page's other scripts and stops what it started when the component
 * is removed.
 */
(function (root) {
  "use strict";

  const C04 = (root.C04 = root.C04 || {});
  const until = (start) => ({ model, el }) => { model.on("remove", start(model, el)); };

  C04.components = {
    Board: (props) => C04.board.render(props),
    HeadGrid: (props) => C04.views.minilm_grid.draw(props),
    Markup: (props) => C04.markup.component(props),
    Raster: (props) => C04.markup.rasterComponent(props),
    Stepper: until((model, el) => C04.present.renderStepper(model, el)),
    Presenter: until((model, el) => C04.present.renderPresenter(model, el)),
    ClassPanel: until((model, el) => C04.classroom.render(model, el)),
    ExerciseBlock: (props) => C04.exercises.component(props),
    Progress: until((model, el) => C04.exercises.renderProgress(model, el)),
    Address: until((model, el) => C04.links.follow(model, el)),
    CopyLink: (props) => C04.links.component(props),
    Navigation: (props) => C04.app.navigation(props),
    TryList: (props) => C04.app.tryList(props),
  };
})(typeof window !== "undefined" ? window : globalThis);
