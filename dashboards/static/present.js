/* The lecture in front of a class (dashboards/app/present.py): projector mode, keyboard shortcuts
 * with their help (?), and the capital walkthrough step by step.
 *
 * Projector mode is a class on <html> (c04-projector) that sets CSS custom properties; they
 * cross Panel's shadow roots, where the lecture's stylesheet (dashboards.components.style.CSS) reads them:
 * the numbers that matter at 28 px or more, prose paragraphs folded, darker greys. The address
 * keeps it (?modo=proyector live, #…&modo=proyector offline), so a link opens it too.
 *
 * Shortcuts (none while typing in a box, none with Ctrl/Alt/Meta): ← → previous/next section,
 * R the section's demos back to their defaults, 1–9 the section's n-th exercise, space the
 * next step of the walkthrough, P projector mode, ? this help. Live, the section and the reset
 * are the server's (a message to dashboards.app.present.Presenter); offline, links.js and the
 * page's anchors do them.
 */
(function (root) {
  "use strict";

  const C04 = (root.C04 = root.C04 || {});
  const CLASS = "c04-projector";
  const MODE_KEY = "modo";
  const MODE = "proyector";
  const SHOWN_EVENT = "c04-step-shown";
  const STEP_EVENT = "c04-next-step";
  // markup.js's (Python's html.escape), looked up when called.
  const esc = (s) => root.C04.markup.esc(s);

  // Read by the lecture's stylesheet in every shadow root (custom properties are inherited;
  // --c04-projector turns on its @container style(…) rules). The page's own column (a root,
  // in the document) drops its 1400 px: on a projector the whole width is the class's.
  const SHEET = `
html.${CLASS} { --c04-value-size: 44px; --c04-cell-size: 28px; --c04-prose-p: none;
  --c04-muted: #111; --c04-note-color: #222; --c04-label-size: 20px; --c04-projector: 1; }
html.${CLASS} body > div > .bk-panel-models-layout-Column { max-width: none; }
`;

  function installSheet() {
    if (document.getElementById("c04-present-css")) return;
    const style = document.createElement("style");
    style.id = "c04-present-css";
    style.textContent = SHEET;
    document.head.appendChild(style);
  }

  const params = () =>
    new URLSearchParams(
      root.location.hash.includes("=") ? root.location.hash.slice(1) : root.location.search.slice(1),
    );

  function isOn() {
    return document.documentElement.classList.contains(CLASS);
  }

  /** Projector mode on or off, and the address says so (replacing the entry: not a step). */
  function setProjector(on) {
    installSheet();
    document.documentElement.classList.toggle(CLASS, on);
    root.dispatchEvent(new Event("c04-projector"));
    const url = new URL(root.location.href);
    if (C04.links && C04.links.exported && C04.links.exported()) {
      const p = new URLSearchParams(url.hash.includes("=") ? url.hash.slice(1) : "");
      if (on) p.set(MODE_KEY, MODE);
      else p.delete(MODE_KEY);
      url.hash = p.toString();
    } else if (on) url.searchParams.set(MODE_KEY, MODE);
    else url.searchParams.delete(MODE_KEY);
    try {
      root.history.replaceState(root.history.state, "", url.href);
    } catch (e) {
      /* file:// may refuse */
    }
  }

  // Read as the page loads: offline, links.js rewrites the #fragment with the demos' state
  // before the presenter draws, and that rewrite dropped the mode the link asked for.
  const OPENED_IN_PROJECTOR = params().get(MODE_KEY) === MODE;

  function fromAddress() {
    if (OPENED_IN_PROJECTOR || params().get(MODE_KEY) === MODE) setProjector(true);
  }

  // -- the help overlay -----------------------------------------------------------------------

  let LABELS = null;

  function help(show) {
    let box = document.getElementById("c04-help");
    if (!show) {
      if (box) {
        box.remove();
        if (help.returnTo) help.returnTo.focus();
      }
      return;
    }
    if (box || !LABELS) return;
    help.returnTo = document.activeElement;
    box = document.createElement("div");
    box.id = "c04-help";
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-modal", "true");
    box.setAttribute("aria-labelledby", "c04-help-title");
    box.setAttribute("data-testid", "shortcuts-help");
    const rows = LABELS.keys.map(([k, what]) => `<tr><th><kbd>${esc(k)}</kbd></th><td>${esc(what)}</td></tr>`);
    box.innerHTML =
      `<div class="c04-help-box"><h2 id="c04-help-title">${esc(LABELS.title)}</h2>` +
      `<table>${rows.join("")}</table>` +
      `<button type="button">${esc(LABELS.close)}</button></div>`;
    const style = document.createElement("style");
    style.textContent = `
#c04-help { position: fixed; inset: 0; background: rgba(0,0,0,0.45); display: flex;
  align-items: center; justify-content: center; z-index: 10000; font-family: sans-serif; }
#c04-help .c04-help-box { background: #fff; color: #000; padding: 20px 28px; border-radius: 6px;
  max-width: 560px; font-size: 18px; }
#c04-help th { text-align: right; padding: 4px 14px 4px 0; white-space: nowrap; }
#c04-help kbd { border: 1px solid #555; border-radius: 3px; padding: 1px 6px; background: #f3f3f3; }
#c04-help button { margin-top: 14px; font: inherit; padding: 6px 16px; min-height: 44px; }`;
    box.appendChild(style);
    document.body.appendChild(box);
    const close = box.querySelector("button");
    close.addEventListener("click", () => help(false));
    box.addEventListener("click", (e) => e.target === box && help(false));
    close.focus();
  }

  // -- which section is on screen (offline, every section is on the page) ----------------------

  function markers() {
    const found = [];
    for (const id of LABELS ? LABELS.sections : []) {
      const el = C04.a11y && C04.a11y.deepFind(document, `[data-testid="section-${id}"]`);
      if (el) found.push([id, el]);
    }
    return found;
  }

  function currentSection() {
    const wanted = params().get("seccion");
    const all = markers();
    if (wanted && all.some(([id]) => id === wanted)) return wanted;
    let current = all.length ? all[0][0] : null;
    for (const [id, el] of all) if (el.getBoundingClientRect().top <= 120) current = id;
    return current;
  }

  function cardsOf(section) {
    // The section's exercise forms: below its marker and above the next section's.
    const all = markers();
    const i = all.findIndex(([id]) => id === section);
    const top = i >= 0 ? all[i][1].getBoundingClientRect().top : -Infinity;
    const bottom = i >= 0 && i + 1 < all.length ? all[i + 1][1].getBoundingClientRect().top : Infinity;
    const forms = [];
    const walk = (node) => {
      for (const el of node.querySelectorAll("form.c04-exercise")) {
        const y = el.getBoundingClientRect().top;
        if (y >= top && y < bottom) forms.push(el);
      }
      for (const el of node.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(document);
    return forms;
  }

  // -- the keys --------------------------------------------------------------------------------

  let SEND = null; // live: the Presenter's send_msg

  const path = (event) => (event.composedPath ? event.composedPath() : [event.target]);

  /** Focus in a box that takes text: no shortcut at all. */
  function typing(event) {
    return path(event).some(
      (el) =>
        el &&
        el.tagName &&
        ((el.tagName === "INPUT" && !/^(checkbox|radio|button|submit|range)$/.test(el.type)) ||
          /^(TEXTAREA|SELECT)$/.test(el.tagName) ||
          el.isContentEditable),
    );
  }

  /** Focus on a control that uses the arrows or the space bar itself (a slider, a button, a
   * checkbox, a link): those keys are its own. */
  function operating(event) {
    return path(event).some(
      (el) =>
        el &&
        el.tagName &&
        (/^(INPUT|BUTTON|A|SUMMARY)$/.test(el.tagName) ||
          /^(slider|button|radio|checkbox|tab|link)$/.test(el.getAttribute("role") || "")),
    );
  }

  function go(delta) {
    if (SEND) return SEND({ action: delta > 0 ? "next" : "prev" });
    const ids = LABELS.sections;
    const i = ids.indexOf(currentSection());
    const next = ids[Math.min(ids.length - 1, Math.max(0, i + delta))];
    if (next && root.c04Goto) root.c04Goto(next);
  }

  async function reset() {
    if (SEND) return SEND({ action: "reset" });
    const demos = (LABELS.demos || {})[currentSection()] || LABELS.all_demos || [];
    for (const demo of demos) await C04.links.apply("", demo);
  }

  function onKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey || typing(event)) return;
    const k = event.key;
    if (/^(ArrowLeft|ArrowRight| )$/.test(k) && operating(event)) return;
    if (k === "?") {
      help(!document.getElementById("c04-help"));
    } else if (k === "Escape") {
      help(false);
    } else if (document.getElementById("c04-help")) {
      return; // the dialog is open: only ? and Escape
    } else if (k === "ArrowRight" || k === "ArrowLeft") {
      go(k === "ArrowRight" ? 1 : -1);
    } else if (k === "r" || k === "R") {
      reset();
    } else if (k === "p" || k === "P") {
      setProjector(!isOn());
    } else if (/^[1-9]$/.test(k)) {
      // Live, the page holds the section on screen only; offline, every section.
      const form = (SEND ? liveCards() : cardsOf(currentSection()))[Number(k) - 1];
      if (!form) return;
      form.scrollIntoView({ block: "center" });
      const input = form.querySelector("input");
      if (input) input.focus();
    } else if (k === " ") {
      const group = currentStepper();
      if (group === null) return;
      root.dispatchEvent(new CustomEvent(STEP_EVENT, { detail: { group } }));
    } else {
      return;
    }
    event.preventDefault();
  }

  function liveCards() {
    const forms = [];
    const walk = (node) => {
      for (const el of node.querySelectorAll("form.c04-exercise")) forms.push(el);
      for (const el of node.querySelectorAll("*")) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(document);
    return forms;
  }

  let installed = false;

  /** The Presenter's drawing: the projector switch and the help button; the keys, once. */
  function renderPresenter(model, el) {
    LABELS = model.labels;
    SEND = model.mode === "live" ? (msg) => model.send_msg(msg) : null;
    installSheet();
    if (!installed) {
      installed = true;
      document.addEventListener("keydown", onKey);
      fromAddress();
    }
    el.innerHTML =
      `<button type="button" class="c04-projector-switch" data-testid="projector-switch" aria-pressed="false">${esc(LABELS.projector)}</button> ` +
      `<button type="button" data-testid="shortcuts-button" aria-keyshortcuts="?">${esc(LABELS.shortcuts)}</button>`;
    const button = el.querySelector(".c04-projector-switch");
    const sync = () => button.setAttribute("aria-pressed", String(isOn()));
    button.addEventListener("click", () => setProjector(!isOn()));
    el.querySelector('[data-testid="shortcuts-button"]').addEventListener("click", () => help(true));
    root.addEventListener("c04-projector", sync);
    sync();
    return () => root.removeEventListener("c04-projector", sync);
  }

  // -- the walkthrough, step by step -------------------------------------------------------------

  // The page's steppers by group (components/stepper.py): «La capital»'s is group "" (also
  // C04.stepper), «El bloque»'s "block". Each has its element and its step.
  const STEPPERS = new Map();

  /** The group of the stepper space moves: of the steppers on screen (a served page shows one
   * section; the whole lecture offline stacks them), the last whose top is above the middle of
   * the window, else the first shown; null when none is. */
  function currentStepper() {
    const shown = [...STEPPERS].filter(([, s]) => s.el.getClientRects().length > 0);
    if (!shown.length) return null;
    let group = shown[0][0];
    for (const [g, s] of shown) if (s.el.getBoundingClientRect().top <= root.innerHeight / 2) group = g;
    return group;
  }

  /** The stepper of a walkthrough: steps are the layouts with css class c04-step-<n> (and, for
   * a stepper of group g, c04-steps-<g>). */
  function renderStepper(model, el) {
    const labels = model.labels;
    const n = model.steps;
    const group = model.group || "";
    let step = 0; // 0: every step
    el.innerHTML =
      `<span class="c04-step-label">${esc(labels.title)}</span> ` +
      `<button type="button" data-testid="step-prev">${esc(labels.prev)}</button> ` +
      `<span class="c04-step-now" data-testid="step-now" aria-live="polite"></span> ` +
      `<button type="button" data-testid="step-next">${esc(labels.next)}</button> ` +
      `<button type="button" data-testid="step-all">${esc(labels.all)}</button>`;
    const now = el.querySelector(".c04-step-now");
    const show = () => {
      for (const m of model.document.all_models) {
        const classes = m.css_classes || [];
        if ((classes.find((c) => c.startsWith("c04-steps-")) || "c04-steps-").slice(10) !== group) continue;
        for (const c of classes) {
          const match = /^c04-step-(\d+)$/.exec(c);
          if (match) {
            const visible = step === 0 || Number(match[1]) <= step;
            if (m.visible !== visible) m.visible = visible;
          }
        }
      }
      now.textContent = step === 0 ? labels.showing_all : labels.now.replace("{n}", step).replace("{total}", n);
      root.dispatchEvent(new CustomEvent(SHOWN_EVENT, { detail: { group } })); // a Board's own steps follow (followSteps)
    };
    const move = (to) => {
      step = Math.max(1, Math.min(n, to));
      show();
    };
    el.querySelector('[data-testid="step-prev"]').addEventListener("click", () => move(step === 0 ? 1 : step - 1));
    el.querySelector('[data-testid="step-next"]').addEventListener("click", () => move(step === 0 ? 1 : step + 1));
    el.querySelector('[data-testid="step-all"]').addEventListener("click", () => {
      step = 0;
      show();
    });
    const next = (event) => {
      if (event.detail && event.detail.group !== group) return;
      move(step === 0 ? 1 : step === n ? n : step + 1);
    };
    root.addEventListener(STEP_EVENT, next);
    const api = { step: () => step, el };
    STEPPERS.set(group, api);
    if (group === "") C04.stepper = api;
    show();
    return () => {
      root.removeEventListener(STEP_EVENT, next);
      if (STEPPERS.get(group) === api) STEPPERS.delete(group);
    };
  }

  /**
   * A Board's steps (components/board.py): the nodes of `el` with css class c04-step-<n> are not
   * Bokeh models the stepper can hide, so they follow it here: shown up to its step. Returns
   * the function that stops following.
   */
  function followSteps(el) {
    const nodes = [...el.querySelectorAll('[class*="c04-step-"]')].map((node) => {
      const match = /(?:^| )c04-step-(\d+)(?: |$)/.exec(node.className);
      const group = /(?:^| )c04-steps-(\w+)(?: |$)/.exec(node.className);
      return match && [node, Number(match[1]), group ? group[1] : ""];
    }).filter(Boolean);
    if (!nodes.length) return () => {};
    const follow = () => {
      for (const [node, n, group] of nodes) {
        const stepper = STEPPERS.get(group);
        const step = stepper ? stepper.step() : 0;
        node.style.display = step === 0 || n <= step ? "" : "none";
      }
    };
    root.addEventListener(SHOWN_EVENT, follow);
    follow();
    return () => root.removeEventListener(SHOWN_EVENT, follow);
  }

  C04.present = { setProjector, isOn, renderPresenter, renderStepper, help, currentSection, followSteps };
})(typeof window !== "undefined" ? window : globalThis);
