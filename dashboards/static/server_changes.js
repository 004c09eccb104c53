/* The server's changes, each on its own: one change the page cannot show yet does not lose the
 * others sent with it.
 *
 * BokehJS applies a PATCH-DOC's events in one loop, and a view's change handler that throws
 * stops the loop: every later event of the message is lost for good (the server believes the
 * page has it). It happens when a change arrives while a section is still being drawn: a new
 * section's widget views are connected before they are rendered (their parents wait for the
 * lecture's components to load), and bokeh 3.9.2's slider view then reads its title element
 * before it exists ("Cannot read properties of undefined (reading 'firstChild')", in
 * AbstractSliderView._update_title). Seen in class mode: a student following the lecturer into
 * "La capital" and the lecturer's next choice (Italia) arriving 16 ms after the section; the
 * slider's event threw, and the country, the numbers and the bars after it never changed.
 *
 * Here each event of a message is applied as a message of its own (same order, same buffers), so
 * an event whose handler throws is still set on its model (Bokeh sets the value before it tells
 * the views, and a view not yet rendered draws the model's value when it renders) and the
 * events after it are applied. Private BokehJS API (Document#_apply_json_patch), as the one way
 * into that loop; tests/ui/test_server_changes.py holds it to this.
 *
 * A classic script, loaded by the served pages (dashboards.app.session.SERVER_CHANGES_URL); not in the
 * export (dashboards/export.py, LIVE_ONLY: a handout has no server).
 */
(function () {
  "use strict";

  const root = typeof window !== "undefined" ? window : globalThis;

  function isolate(doc) {
    const proto = Object.getPrototypeOf(doc);
    if (proto.c04Isolated || typeof proto._apply_json_patch !== "function") return;
    const apply = proto._apply_json_patch;
    proto._apply_json_patch = function (patch, buffers) {
      const events = patch && patch.events;
      if (!Array.isArray(events) || events.length < 2) return apply.call(this, patch, buffers);
      for (const event of events) {
        try {
          apply.call(this, { ...patch, events: [event] }, buffers);
        } catch (error) {
          console.warn("[c04] a change from the server could not be drawn yet:", error);
        }
      }
    };
    proto.c04Isolated = true;
  }

  // Bokeh.documents is the array every Document adds itself to in its constructor: the first
  // one (before any message reaches it) gets its class patched.
  function watch() {
    const documents = root.Bokeh && root.Bokeh.documents;
    if (!Array.isArray(documents)) return false;
    documents.forEach(isolate);
    const push = documents.push;
    documents.push = function (...docs) {
      docs.forEach(isolate);
      return push.apply(this, docs);
    };
    return true;
  }

  if (!watch() && typeof document !== "undefined") {
    document.addEventListener("DOMContentLoaded", watch, { once: true });
  }
})();
