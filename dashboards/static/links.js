/* Every state in the link, in the browser (dashboards/sharing/links.py has the format).
 *
 * Served and exported:
 * - C04.links.write(url, replace): the address follows the state with one history entry per
 *   burst of changes (a slider dragged through twenty values is one step of "back").
 * - C04.links.copyButton / copy: "Copiar enlace" (dashboards.sharing.live_link.CopyLink).
 *
 * Exported only (the page's #c04-states has "links", dashboards.sharing.live_link.export_spec): the
 * fragment is the link (#seccion=capital&capital.identity=0). On load and on back/forward it is
 * read and applied to the Boards' controls (C04.boards), each running its demo's twin as for a
 * click; a use of a control writes the fragment. What a link had that cannot be shown is said in the
 * notice (.c04-link-notice). The same keys, texts and checks as dashboards/sharing/links.py, which
 * does this on the server: the export has none (tests/ui/test_links.py holds them equal).
 */
(function (root) {
  "use strict";

  const C04 = (root.C04 = root.C04 || {});
  const t = (key, fields) => C04.t(key, fields);

  // A burst: changes less than this apart (ms) share one history entry.
  const BURST_MS = 1000;
  let lastWrite = 0;

  function write(url, replace) {
    const now = Date.now();
    const push = !replace && now - lastWrite > BURST_MS;
    lastWrite = now;
    try {
      if (push) root.history.pushState(null, "", url);
      else root.history.replaceState(null, "", url);
    } catch (e) {
      /* a file:// page may refuse: the address stays, the page works */
    }
  }

  // markup.js's (Python's html.escape), looked up when called.
  const esc = (s) => root.C04.markup.esc(s);

  // ---------------------------------------------------------------------------------------------
  // "Copiar enlace"

  function copyButton(labels) {
    return (
      `<button type="button" data-testid="copy-link">${esc(labels.copy)}</button>` +
      '<span class="c04-link-status" role="status" aria-live="polite"></span>'
    );
  }

  /** The page's address opening ``section`` (when the page has sections). */
  function linkFor(section) {
    const url = new URL(root.location.href);
    const spec = exportSpec();
    if (spec) {
      if (section && spec.sections) {
        const params = new URLSearchParams(url.hash.slice(1));
        params.set("seccion", section);
        url.hash = params.toString();
      }
    } else if (section) {
      url.searchParams.set("seccion", section);
    }
    return url.href;
  }

  /** A live page's address (dashboards.sharing.live_link.Address, or the lecture's navigation,
   * which is one): the browser's address follows model.query (the first replaces the address
   * the page was opened with, each later one is written by write: one history entry per burst
   * of changes), back/forward send {popstate: "?…"}, and what a link ignored (model.notice, a
   * note's spec) is said in `el`. Returns what stops it. */
  function follow(model, el) {
    const say = () => C04.markup.redraw(el, "note", model.notice);
    model.on("notice", say);
    say();
    let popped = false;
    const writeQuery = (first) => {
      // Projector mode is the browser's (present.js): kept in the address while it is on.
      const mode = new URLSearchParams(root.location.search).get("modo");
      const parts = [model.query, mode ? "modo=" + encodeURIComponent(mode) : ""];
      const query = parts.filter(Boolean).join("&");
      const search = query ? "?" + query : "";
      if (search === root.location.search) {
        popped = false;
        return;
      }
      const url = (search || root.location.pathname) + root.location.hash;
      write(url, first || popped);
      popped = false;
    };
    const onPop = () => {
      popped = true;
      model.send_msg({ popstate: root.location.search });
    };
    root.addEventListener("popstate", onPop);
    model.on("query", () => writeQuery(false));
    writeQuery(true);
    return () => root.removeEventListener("popstate", onPop);
  }

  async function copy(el, section, labels) {
    const link = linkFor(section);
    C04.links.lastCopied = link;
    const status = el.querySelector(".c04-link-status");
    const old = el.querySelector("input");
    if (old) old.remove();
    try {
      await root.navigator.clipboard.writeText(link);
      status.textContent = labels.copied;
    } catch (e) {
      // No clipboard here: the link, selected, for the student to copy.
      status.textContent = labels.copy_manual;
      const input = document.createElement("input");
      input.readOnly = true;
      input.value = link;
      input.setAttribute("aria-label", labels.copy_label);
      input.setAttribute("data-testid", "copy-link-text");
      el.appendChild(input);
      input.focus();
      input.select();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The export: the fragment is the link

  // Served pages load this file without c04.js (no C04.embedded) and embed nothing: null.
  const exportSpec = () => (C04.embedded ? C04.embedded("links", [], true) : null);

  // The format's constants, embedded by the export from links.py's grammar(): no copy here.
  let GRAMMAR = null;
  function grammar() {
    if (!GRAMMAR) {
      const g = exportSpec().grammar;
      GRAMMAR = { ...g, number: new RegExp(g.number), integer: new RegExp(g.integer) };
    }
    return GRAMMAR;
  }

  class Ignored extends Error {
    constructor(key, fields) {
      super(key);
      this.reasonKey = key;
      this.fields = fields || {};
    }
  }

  function pyStrip(s) {
    return s.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g, "");
  }

  function real(s) {
    if (!grammar().number.test(pyStrip(s))) throw new Ignored("links.not_a_number");
    const x = Number(pyStrip(s));
    if (!Number.isFinite(x)) throw new Ignored("links.not_a_number");
    return x;
  }

  // links.py's _real_text: 15 significant digits, shortest ("0.9", "2"; "1e-07" there and
  // "1e-7" here: both read the same).
  function realText(x) {
    return String(Number(Number(x).toPrecision(15)));
  }

  /** The value a link's text stands for (links.from_text), then the widget's checks. */
  function fromText(field, s, model) {
    let v;
    switch (field.kind) {
      case "bool":
        if (s !== "0" && s !== "1") throw new Ignored("links.not_a_bool");
        return s === "1";
      case "int":
        if (!grammar().integer.test(pyStrip(s))) throw new Ignored("links.not_an_integer");
        v = Number(pyStrip(s));
        break;
      case "real":
        v = real(s);
        break;
      case "choice":
        if (!Object.prototype.hasOwnProperty.call(field.map, s)) {
          throw new Ignored("links.not_an_option");
        }
        return field.map[s];
      case "matrix": {
        const rows = s.split(";").map((row) => row.split(","));
        const shape = { rows: field.rows, cols: field.cols };
        if (rows.length !== field.rows || rows.some((row) => row.length !== field.cols)) {
          throw new Ignored("links.not_a_matrix", shape);
        }
        let cells;
        try {
          cells = rows.map((row) => row.map(real));
        } catch (e) {
          throw new Ignored("links.not_a_matrix", shape);
        }
        if (cells.some((row) => row.some((x) => Math.abs(x) > field.max_abs))) {
          throw new Ignored("core.matrix_cell_bounds", { name: field.label, bound: field.bound });
        }
        return cells;
      }
      default: {
        const error = field.max_tokens && C04.views.explorer ? C04.views.explorer.sentenceError(s) : "";
        if (error) throw new Ignored("", { said: error });
        // A text the file can only show from a list (next_word's prompt: the lecture's).
        if (field.texts && !field.texts.includes(s)) throw new Ignored("links.not_offered");
        return s;
      }
    }
    if (field.map) {
      if (!Object.prototype.hasOwnProperty.call(field.map, String(v))) {
        throw new Ignored("links.not_offered");
      }
      return field.map[String(v)];
    }
    let range = field.range;
    if (field.key.endsWith(".focus") && model) {
      // The explorer's focus: an index of the tokens on screen (a Board's choice).
      range = [0, C04.boards.get(model.id).spec(field.control).options.length - 1, 1];
    }
    if (range) {
      const [lo, hi, step] = range;
      const decimals = field.kind === "int" ? 0 : 2;
      if (v < lo || v > hi) {
        throw new Ignored("links.out_of_range", {
          low: C04.fmt.number(lo, decimals),
          high: C04.fmt.number(hi, decimals),
        });
      }
      const k = (v - lo) / step;
      if (field.kind === "int" && Math.abs(k - Math.round(k)) > 1e-9) {
        throw new Ignored("links.not_offered");
      }
    }
    return v;
  }

  function reason(e) {
    if (!(e instanceof Ignored)) return t("links.refused");
    if (e.fields.said !== undefined) return e.fields.said;
    return t(e.reasonKey, e.fields);
  }

  function said(key, why) {
    const k = Array.from(key);
    const chars = grammar().key_chars;
    const shown = k.length <= chars ? key : k.slice(0, chars - 1).join("") + "…";
    return why ? `«${shown}» (${why})` : `«${shown}»`;
  }

  function notice(items) {
    if (!items.length) return "";
    const most = grammar().notice_items;
    let text = items.slice(0, most).join("; ");
    if (items.length > most) text += t("links.more", { n: items.length - most });
    return t("links.notice", { items: text });
  }

  let MODELS = null;
  function models() {
    if (MODELS) return MODELS;
    const doc = root.Bokeh && root.Bokeh.documents && root.Bokeh.documents[0];
    if (!doc) return null;
    const found = {};
    for (const m of doc.all_models) {
      for (const c of m.css_classes || []) {
        if (c.startsWith("c04-link")) found[c] = m;
      }
    }
    const spec = exportSpec();
    for (const f of spec.fields) {
      if (f.hook) continue;
      if (!found[f.css]) return null; // not all drawn yet
      // A Board's control (dashboards/static/board.js): reached once its board has drawn.
      if (!(C04.boards && C04.boards.has(found[f.css].id))) return null;
    }
    MODELS = found;
    return found;
  }

  const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

  // A cell's text as the live MatrixEditor writes it (4 decimals at most, no trailing zeros,
  // "−1"), or every digit when 4 decimals would change the number the twin reads back.
  function cellText(x) {
    const decimal = t("format.decimal");
    let s = C04.fmt.number(x, 4);
    if (s.includes(decimal)) {
      s = s.replace(/0+$/, "");
      if (s.endsWith(decimal)) s = s.slice(0, -decimal.length);
    }
    try {
      if (C04.fmt.parseNumber(s) === x) return s;
    } catch (e) {
      /* fall through */
    }
    const full = realText(x);
    return full.includes("e") ? full : full.replace(".", decimal);
  }

  async function setField(field, v, found) {
    if (field.hook) {
      // A value no control shows (scaling's seed, next_word's generated length): the view
      // keeps it (linked, setLinked) and draws it on its next update.
      const name = field.key.slice(field.demo.length + 1);
      const now = C04.views[field.hook].linked(name);
      if ((now === null ? Number(field.default) : now) === v) return;
      C04.views[field.hook].setLinked(name, v);
      // Run the demo's first control (the same value again) to draw it.
      const other = exportSpec().fields.find((f) => f.demo === field.demo && f.control);
      C04.boards.get(found[other.css].id).run(other.control);
      await tick();
      return;
    }
    if (field.kind === "matrix") {
      // Each cell that differs committed as a student would (the view's twin takes it).
      const board = C04.boards.get(found[field.css].id);
      for (let i = 0; i < field.rows; i++) {
        for (let j = 0; j < field.cols; j++) {
          const text = cellText(v[i][j]);
          if (board.get(field.control)[i][j] !== text) {
            board.set(field.control, { row: i, col: j, text });
            await tick();
          }
        }
      }
      return;
    }
    const board = C04.boards.get(found[field.css].id);
    if (board.get(field.control) !== v) {
      board.set(field.control, v);
      await tick();
    }
  }

  /** The link's text of a field as its widget shows it (links.to_text); throws when the widget
   * holds a value the model would refuse (a cell's text, a sentence being typed). */
  function current(field, found) {
    if (field.hook) {
      const now = C04.views[field.hook].linked(field.key.slice(field.demo.length + 1));
      return now === null ? field.default : String(now);
    }
    if (field.kind === "matrix") {
      const texts = C04.boards.get(found[field.css].id).get(field.control);
      const row = (cells) => cells.map((x) => realText(C04.fmt.parseNumber(x))).join(",");
      return texts.map(row).join(";");
    }
    const value = C04.boards.get(found[field.css].id).get(field.control);
    if (field.map) {
      for (const [text, shown] of Object.entries(field.map)) if (shown === value) return text;
      throw new Error("no option");
    }
    if (field.kind === "bool") return value ? "1" : "0";
    if (field.kind === "int") return String(Math.round(Number(value)));
    if (field.kind === "real") return realText(Number(value));
    if (field.max_tokens && C04.views.explorer && C04.views.explorer.sentenceError(String(value))) {
      throw new Error("sentence refused");
    }
    return String(value);
  }

  /** The fragment of the state on screen (links.encode): every field of a demo off its
   * defaults, the section the fragment had. */
  function encode(found, section) {
    const params = new URLSearchParams();
    if (section) params.set("seccion", section);
    const spec = exportSpec();
    const demos = [...new Set(spec.fields.map((f) => f.demo))];
    for (const demo of demos) {
      const fields = spec.fields.filter((f) => f.demo === demo);
      const texts = new Map(fields.map((f) => [f.key, current(f, found)]));
      if (fields.every((f) => texts.get(f.key) === f.default)) continue;
      for (const f of fields) {
        if (f.when && texts.get(f.when[0]) !== f.when[1]) continue;
        params.append(f.key, texts.get(f.key));
      }
    }
    // Projector mode (present.js) is the page's, not a demo's: kept while it is on.
    if (document.documentElement.classList.contains("c04-projector")) params.set("modo", "proyector");
    return params.toString().replace(/%2C/g, ",").replace(/%3B/g, ";");
  }

  let applying = false;
  let lastHash = null;

  function writeHash(replace) {
    const found = models();
    if (!found || applying) return;
    let hash;
    try {
      const section = new URLSearchParams(root.location.hash.slice(1)).get("seccion");
      hash = encode(found, exportSpec().sections ? section : null);
    } catch (e) {
      return; // a widget holds a value being typed or refused: the last link stays
    }
    lastHash = hash;
    const url = root.location.pathname + root.location.search + (hash ? "#" + hash : "");
    if (url !== root.location.pathname + root.location.search + root.location.hash) {
      write(url, replace);
    }
  }

  function setNotice(found, text) {
    const spec = text ? { testid: "link-notice", cls: "c04-note c04-link-notice", text } : {};
    const json = text ? JSON.stringify(spec) : "";
    const pane = found["c04-link-notice"];
    if (pane && pane.data.spec_json !== json) pane.data.spec_json = json;
  }

  /** Apply a fragment to the page's widgets, field by field in the link's order; say what was
   * ignored. An old section anchor (#capital) is only a section. With ``only`` (a demo id),
   * only that demo's fields (an exercise moving its demo): the rest of the page stays. */
  async function apply(hash, only) {
    const found = models();
    let raw = hash.startsWith("#") ? hash.slice(1) : hash;
    if (!raw.includes("=")) raw = ""; // no link (an old section anchor): the defaults
    const spec = exportSpec();
    const fields = only ? spec.fields.filter((f) => f.demo === only) : spec.fields;
    const items = [];
    const { max_chars, page_keys } = grammar();
    // links.decode's bound: the characters of the keys and values read so far.
    const given = new Map();
    let total = 0;
    for (const [key, value] of new URLSearchParams(raw)) {
      total += [...key].length + [...value].length;
      if (total > max_chars) break;
      if (!given.has(key)) given.set(key, value);
    }
    if (total > max_chars) {
      items.push(said("…", t("links.too_long", { max: max_chars })));
    } else {
      const known = new Set(spec.fields.map((f) => f.key));
      for (const key of given.keys()) {
        if (!only && !known.has(key) && !page_keys.includes(key)) {
          items.push(said(key, t("links.unknown")));
        }
      }
      // A demo the link does not name goes to its defaults (links.decode).
      for (const demo of new Set(fields.map((f) => f.demo))) {
        const own = fields.filter((f) => f.demo === demo);
        if (!own.some((f) => given.has(f.key))) for (const f of own) given.set(f.key, f.default);
      }
      applying = true;
      try {
        for (const field of fields) {
          if (!given.has(field.key)) continue;
          try {
            const v = fromText(field, given.get(field.key), field.css && found[field.css]);
            await setField(field, v, found);
          } catch (e) {
            items.push(said(field.key, reason(e)));
          }
        }
      } finally {
        applying = false;
      }
    }
    if (!only) setNotice(found, notice(items));
    writeHash(!only);
  }

  let started = false;

  async function start() {
    // Once: Panel's es-module-shims dispatches DOMContentLoaded a second time.
    if (started) return;
    started = true;
    let found = models();
    for (let tries = 0; !found && tries < 300; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      found = models();
    }
    if (!found) return;
    // Once every view is drawn: a component drawn later would start from its first state and
    // lose what the link set (seen with the notice on a page that drew slowly).
    const doc = root.Bokeh.documents[0];
    if (!doc.is_idle) await new Promise((resolve) => doc.idle.connect(() => resolve()));
    const spec = exportSpec();
    // A Board's control says its use with a composed event (board.js), after its twin ran.
    document.addEventListener("c04-control", () => setTimeout(() => writeHash(false), 0));
    // "Nueva muestra" changes the seed and no widget's value: a click anywhere may change the
    // state, and writeHash writes only a change.
    document.addEventListener("click", () => setTimeout(() => writeHash(false), 50), true);
    root.addEventListener("popstate", () => {
      if (root.location.hash.slice(1) !== lastHash) apply(root.location.hash);
    });
    // A page opened without a link is at its defaults already: nothing to apply.
    if (root.location.hash.includes("=")) await apply(root.location.hash);
    C04.links.ready = true;
  }

  /** A CopyLink component (dashboards/sharing/live_link.py): the button, and the marker of its
   * demo's section when it carries one. */
  function component({ model, el }) {
    const esc = C04.markup.esc;
    const marker = model.marker ? `<span data-testid="section-${esc(model.marker)}"></span>` : "";
    el.innerHTML = marker + copyButton(model.labels);
    el.querySelector("button").addEventListener("click", () => copy(el, model.section, model.labels));
  }

  C04.links = {
    write,
    follow,
    copyButton,
    copy,
    component,
    linkFor,
    start,
    apply,
    encode: () => encode(models(), null),
    ready: false,
    lastCopied: null,
    exported: () => Boolean(exportSpec()),
  };

  if (typeof document !== "undefined" && exportSpec()) {
    if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", start);
    } else {
      start();
    }
  }
})(typeof window !== "undefined" ? window : globalThis);
