/*
 * What a screen reader needs and Bokeh's widgets do not say, added in the browser, live and in
 * the export alike (the served page loads this file from /c04/, the export inlines it):
 *
 * - a slider's handle (noUiSlider, role="slider") gets the slider's title as its name and the
 *   value shown on screen as its value text (noUiSlider's own says "6.00" for d_k = 64, the
 *   index of a discrete slider);
 * - a checkbox gets the text of the label drawn beside it (Bokeh draws it as a sibling <div>,
 *   which names nothing and which a click or a tap did not toggle: now it does);
 * - a button of a button group says whether it is pressed (the number of heads, the token
 *   that asks; the lecture's navigation says its section itself, dashboards/app/navigation.py);
 * - the skip link ("Saltar al contenido") moves the focus to the element marked
 *   data-c04-content (a #fragment cannot reach into a shadow root);
 * - announce(text): the page's one polite live region says the key figure of a change, once
 *   the controls have been still for a moment (a slider dragged through ten values is one
 *   announcement). A Board's "announce" slot (markup.js) calls it whenever its spec changes,
 *   never when the page first draws it.
 *
 * Bokeh draws every widget in its own open shadow root, which a MutationObserver on the document
 * does not see into: one observer watches the document and every shadow root it finds, at start
 * and in the subtree of every node added since (a root holds the hosts of further roots).
 */
(function () {
  "use strict";
  const C04 = window.C04 || (window.C04 = {});

  let words = null;
  function word(key) {
    if (words === null) {
      const node = document.getElementById("c04-text");
      try {
        words = node ? JSON.parse(node.textContent) : {};
      } catch (err) {
        words = {};
      }
    }
    return words[`a11y.${key}`] || key;
  }

  function name(el, text) {
    if (text && el.getAttribute("aria-label") !== text) el.setAttribute("aria-label", text);
  }

  /** Every element matching ``selector`` under ``root``, through every shadow root. */
  function deepFind(root, selector) {
    const hit = root.querySelector(selector);
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) {
        const found = deepFind(el.shadowRoot, selector);
        if (found) return found;
      }
    }
    return null;
  }

  function skip(event) {
    const target = deepFind(document, "[data-c04-content]");
    if (!target) return;
    event.preventDefault();
    // Focusable only while the focus is on it or in it: a host with tabindex="-1" would keep
    // its controls out of the Tab order for good.
    target.setAttribute("tabindex", "-1");
    if (!target.hasAttribute("data-c04-wired")) {
      target.setAttribute("data-c04-wired", "");
      target.addEventListener("focusout", (e) => {
        if (!e.relatedTarget || !target.contains(e.relatedTarget)) {
          target.removeAttribute("tabindex");
        }
      });
    }
    target.focus();
    target.scrollIntoView({ block: "start" });
  }

  /** The number a slider shows ("−0,93", "0.5"), for its aria-valuenow: noUiSlider writes its
   * value with one decimal ("-0.9"), which is not what the page says. Null when the text is not
   * a number, or not that value (a discrete slider's value is an index: d_k = 64 is index 6,
   * and aria-valuetext already says 64). The lecture writes no thousands separator. */
  function shownNumber(shown, noUiNow) {
    const m = /^\s*([\u2212+-]?)(\d+)(?:[.,](\d+))?\s*$/.exec(shown || "");
    const raw = parseFloat(noUiNow);
    if (!m || !Number.isFinite(raw)) return null;
    const value = Number(`${m[1] === "+" ? "" : m[1] ? "-" : ""}${m[2]}.${m[3] || "0"}`);
    return Math.abs(value - raw) <= 0.05 + 1e-9 ? String(value) : null;
  }

  function mend(root) {
    for (const link of root.querySelectorAll("a.c04-skip:not([data-c04-wired])")) {
      link.setAttribute("data-c04-wired", "");
      link.addEventListener("click", skip);
    }
    // A button group (the lecture's sections, the explorer's tokens, the number of heads) is a
    // set of toggles: the one on screen says it is pressed.
    for (const button of root.querySelectorAll(".bk-btn-group > .bk-btn")) {
      const pressed = button.classList.contains("bk-active") ? "true" : "false";
      if (button.getAttribute("aria-pressed") !== pressed) {
        button.setAttribute("aria-pressed", pressed);
      }
    }
    for (const handle of root.querySelectorAll(".noUi-handle")) {
      const title = root.querySelector(".bk-slider-title");
      if (!title) continue;
      const value = title.querySelector(".bk-slider-value");
      const shown = value ? value.textContent.trim() : "";
      name(handle, title.textContent.replace(shown, "").replace(/[:\s]+$/, "").trim());
      if (shown && handle.getAttribute("aria-valuetext") !== shown) {
        handle.setAttribute("aria-valuetext", shown);
      }
      const now = shownNumber(shown, handle.getAttribute("aria-valuenow"));
      if (now !== null && handle.getAttribute("aria-valuenow") !== now) {
        handle.setAttribute("aria-valuenow", now);
      }
    }
    // A number input's arrows (Bokeh's Spinner: the training's seed) are bare buttons.
    for (const [selector, key] of [[".bk-spin-btn-up", "spin_up"], [".bk-spin-btn-down", "spin_down"]]) {
      for (const button of root.querySelectorAll(selector)) name(button, word(key));
    }
    for (const box of root.querySelectorAll('input[type="checkbox"]')) {
      const label = box.nextElementSibling;
      if (!label || !label.classList.contains("bk-label")) continue;
      name(box, label.textContent.trim());
      // Bokeh draws the text as a <div>, not a <label>: a tap on it did nothing.
      if (!label.hasAttribute("data-c04-wired")) {
        label.setAttribute("data-c04-wired", "");
        label.addEventListener("click", () => box.click());
      }
    }
  }

  const pending = new Set();
  let scheduled = false;
  function later(root) {
    pending.add(root);
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      const roots = Array.from(pending);
      pending.clear();
      for (const r of roots) mend(r);
    });
  }

  const observer = new MutationObserver((records) => {
    for (const record of records) {
      later(record.target.getRootNode());
      for (const node of record.addedNodes) {
        if (node.nodeType === Node.ELEMENT_NODE) discover(node);
      }
    }
  });
  const OPTIONS = {
    childList: true, subtree: true, characterData: true,
    attributes: true, attributeFilter: ["aria-valuetext", "aria-valuenow", "class"],
  };
  // A watched root's own observer reports what is added to it later, so a host moved or
  // re-added does not send us through its root again.
  const watched = new WeakSet();
  function watch(root) {
    if (watched.has(root)) return;
    watched.add(root);
    observer.observe(root, OPTIONS);
    later(root);
    discover(root);
  }
  /** Watch every shadow root at or under ``node`` (only its subtree: Bokeh builds a view's
   * root before it inserts the host, so a new root always comes with an added node). */
  function discover(node) {
    if (node.shadowRoot) watch(node.shadowRoot);
    for (const el of node.querySelectorAll("*")) {
      if (el.shadowRoot) watch(el.shadowRoot);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => watch(document));
  } else {
    watch(document);
  }

  // One region for the page, in the document (not in a shadow root, where screen readers are
  // least reliable about live regions), created before its first text so that text is news.
  const QUIET_MS = 500;
  let region = null;
  let said = "";
  let timer = 0;
  function announce(text) {
    said = String(text == null ? "" : text).trim();
    if (!said) return;
    if (region === null) {
      region = document.createElement("div");
      region.id = "c04-live";
      region.setAttribute("role", "status");
      region.setAttribute("aria-live", "polite");
      region.setAttribute("aria-atomic", "true");
      region.style.cssText =
        "position:absolute;width:1px;height:1px;margin:-1px;padding:0;border:0;" +
        "overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap";
      document.body.appendChild(region);
    }
    clearTimeout(timer);
    timer = setTimeout(() => {
      region.textContent = said;
    }, QUIET_MS);
  }

  C04.a11y = { mend, deepFind, announce };
})();
