/* Predict, then check: the exercise cards and the progress (dashboards/sharing/practice.py).
 *
 * A demo's block (ExerciseBlock) draws each card: its question and the student's input, then on "Comprobar":
 * - live, sends the answer to the server, which moves the demo to the question's state,
 *   computes the answer there and sends back the verdict (dashboards/sharing/exercises.py: check);
 * - in the offline export, moves the demo with the exercise's link (C04.links.apply, only that
 *   demo), and compares the answer with the one Python computed for that state when it wrote the
 *   page (the same model, the same state: the export cannot run the model's Python).
 * The verdict is kept in this browser only (localStorage "c04-ejercicios": id → right or not),
 * shown again on the next visit and cleared by the progress's "Borrar mi progreso". Nothing is
 * sent anywhere else.
 * Moving the demo must not lose the student's own work (an edited cell, their sentence, the
 * step): what the demo had before is kept (live by the server, offline as its link) and the
 * card says so, with "Volver a lo que tenía" to put it back.
 */
(function (root) {
  "use strict";

  const C04 = (root.C04 = root.C04 || {});
  const KEY = "c04-ejercicios";
  const CHANGED = "c04-progress";
  const RESET = "c04-progress-reset";
  // markup.js's (Python's html.escape), looked up when called.
  const esc = (s) => root.C04.markup.esc(s);

  function stored() {
    try {
      const all = JSON.parse(root.localStorage.getItem(KEY) || "{}");
      return all && typeof all === "object" && !Array.isArray(all) ? all : {};
    } catch (e) {
      return {}; // storage off or unreadable: nothing remembered
    }
  }

  function remember(id, right) {
    const all = stored();
    all[id] = { right: Boolean(right) };
    try {
      root.localStorage.setItem(KEY, JSON.stringify(all));
    } catch (e) {
      /* storage off: the verdict is still on screen */
    }
    root.dispatchEvent(new Event(CHANGED));
  }

  function forget() {
    try {
      root.localStorage.removeItem(KEY);
    } catch (e) {
      /* nothing kept */
    }
    root.dispatchEvent(new Event(RESET));
    root.dispatchEvent(new Event(CHANGED));
  }

  /** A text of the exercises' file: on a page in another language, the Spanish words it quotes
   * («gato») marked lang="es", as the rest of the lecture marks the example kept in Spanish. */
  function said(text) {
    const html = esc(text);
    if ((document.documentElement.lang || "es") === "es") return html;
    return html.replace(/«([^«»]*)»/g, '«<span lang="es">$1</span>»');
  }

  /** An option: marked lang="es" when the options are the Spanish example's words. */
  function option(spec, label) {
    const page = document.documentElement.lang || "es";
    return spec.options_lang && spec.options_lang !== page
      ? `<span lang="${esc(spec.options_lang)}">${esc(label)}</span>`
      : said(label);
  }

  /** The card's HTML: the question as a fieldset's legend, the options or a number box. */
  function card(spec) {
    const id = esc(spec.id);
    let input;
    if (spec.kind === "choice") {
      input = spec.options
        .map(
          (label, i) =>
            `<label class="c04-option"><input type="radio" name="c04-ex-${id}" value="${i}"> ${option(spec, label)}</label>`,
        )
        .join("");
    } else {
      input =
        `<label class="c04-number">${esc(spec.labels.answer_label)} ` +
        `<input type="text" inputmode="decimal" maxlength="64" autocomplete="off" data-testid="exercise-input-${id}">` +
        `${spec.unit ? " " + esc(spec.unit) : ""}</label>`;
    }
    return (
      `<form class="c04-exercise" data-testid="exercise-${id}" novalidate>` +
      `<fieldset><legend>${said(spec.question)}</legend>${input}</fieldset>` +
      `<button type="submit" data-testid="exercise-check-${id}">${esc(spec.labels.check)}</button>` +
      `<span class="c04-past" data-testid="exercise-past-${id}"></span>` +
      `<div class="c04-verdict" role="status" aria-live="polite" data-testid="exercise-verdict-${id}"></div>` +
      `<div class="c04-restore" role="status" aria-live="polite" data-testid="exercise-moved-${id}"></div>` +
      `</form>`
    );
  }

  function answerOf(form, spec) {
    if (spec.kind === "choice") {
      const checked = form.querySelector("input[type=radio]:checked");
      return checked ? checked.value : "";
    }
    return form.querySelector("input[type=text]").value;
  }

  function showVerdict(el, spec, verdict) {
    const box = el.querySelector(".c04-verdict");
    if (!verdict) {
      box.innerHTML = "";
      box.className = "c04-verdict";
      return;
    }
    const mark = verdict.right === true ? "✓ " : verdict.right === false ? "✗ " : "";
    const cls = verdict.right === true ? "c04-right" : verdict.right === false ? "c04-wrong" : "";
    box.className = `c04-verdict ${cls}`;
    box.innerHTML =
      `<p><b>${esc(mark)}${said(verdict.message)}</b></p>` +
      (verdict.right === null ? "" : `<p>${esc(spec.labels.why)} ${said(spec.explanation)}</p>`);
  }

  /** The attempt before the one on screen (an earlier visit's or check's), never the verdict
   * just given. */
  function showPast(el, spec, past) {
    el.querySelector(".c04-past").textContent = past
      ? past.right
        ? spec.labels.done_right
        : spec.labels.done_wrong
      : "";
  }

  /** The export's check: the answer Python computed for the exercise's state. */
  function checkOffline(spec, answer) {
    const e = spec.expected;
    let given = null;
    if (spec.kind === "choice") {
      given = /^\d+$/.test(answer) && Number(answer) < spec.options.length ? Number(answer) : null;
    } else if (answer.length <= 64) {
      try {
        given = C04.fmt.parseNumber(answer.split("%").join("").trim());
        if (spec.format === "percent") given /= 100;
      } catch (err) {
        given = null;
      }
    }
    if (given === null) return { right: null, message: spec.labels.unreadable };
    const right =
      spec.kind === "choice"
        ? given === e.value
        : Math.abs(given - e.value) * (spec.format === "percent" ? 100 : 1) <= spec.tolerance + 1e-9;
    return { right, message: right ? e.right : e.wrong };
  }

  /** The line under a verdict when checking moved the demo: said, with the button back to
   * what the student had (``offer``), or that it is back (``restored``). */
  function showRestore(el, spec, state) {
    const box = el.querySelector(".c04-restore");
    const L = spec.labels;
    let html = "";
    if (state && state.offer) {
      html =
        `<p class="c04-note">${esc(L.moved)} ` +
        `<button type="button" class="c04-secondary" data-testid="exercise-restore-${esc(spec.id)}">${esc(L.restore)}</button></p>`;
    } else if (state && state.restored) {
      html = `<p class="c04-note">${esc(L.restored)}</p>`;
    }
    if (box.innerHTML !== html) box.innerHTML = html;
  }

  /** The export's memory of a demo's state before an exercise moved it (its link; the
   * export's twin of the server's, dashboards/sharing/practice.py). */
  function encodeNow() {
    try {
      return C04.links && C04.links.encode ? C04.links.encode() : null;
    } catch (e) {
      return null; // a widget holds a value being typed: nothing to go back to
    }
  }

  /** One card in ``slot``: ``send(msg)`` asks the server (live); offline it checks here.
   * ``block`` is what the demo's cards share (offline: the state to go back to).
   * Returns {id, show(verdict)} for the server's verdicts. */
  function mountCard(spec, slot, send, block) {
    slot.innerHTML = card(spec);
    const form = slot.querySelector("form");
    let last = null;
    // The stored attempt before the verdict on screen (an earlier visit's or check's).
    let previous = stored()[spec.id];
    let checked = false;
    const verdictGiven = (right) => {
      previous = stored()[spec.id];
      checked = true;
      remember(spec.id, right);
      showPast(slot, spec, previous);
    };
    const show = (verdict) => {
      if (!verdict) return;
      if (verdict.n !== last) {
        last = verdict.n;
        showVerdict(slot, spec, verdict);
        if (verdict.right !== null && verdict.right !== undefined) verdictGiven(verdict.right);
      }
      showRestore(slot, spec, verdict);
    };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const answer = answerOf(form, spec);
      if (spec.expected) {
        const verdict = checkOffline(spec, answer);
        if (verdict.right !== null && C04.links && C04.links.apply) {
          const before = encodeNow();
          await C04.links.apply(spec.link, spec.demo);
          const after = encodeNow();
          // A second check without a change in between keeps the first "what I had".
          if (!block.saved || before !== block.saved.question) block.saved = { mine: before };
          block.saved.question = after;
          const offer = block.saved.mine !== null && after !== null && block.saved.mine !== after;
          block.offer(spec.id, offer);
        }
        showVerdict(slot, spec, verdict);
        if (verdict.right !== null) verdictGiven(verdict.right);
      } else {
        send({ id: spec.id, answer });
      }
    });
    slot.addEventListener("click", async (event) => {
      if (!event.target.closest(`[data-testid="exercise-restore-${spec.id}"]`)) return;
      if (!spec.expected) {
        send({ id: spec.id, action: "restore" });
        return;
      }
      const saved = block.saved;
      block.saved = null;
      if (saved && saved.mine !== null) await C04.links.apply(saved.mine, spec.demo);
      block.offer(null, false);
      showRestore(slot, spec, { restored: true });
    });
    // Another card's verdict stored: this card's line changes only if it was never checked
    // here (the same exercise elsewhere on the page).
    const past = () => {
      if (!checked) showPast(slot, spec, (previous = stored()[spec.id]));
    };
    const reset = () => {
      previous = undefined;
      checked = false;
      showPast(slot, spec, previous);
      showVerdict(slot, spec, null);
      showRestore(slot, spec, null);
    };
    showPast(slot, spec, previous);
    return { id: spec.id, show, past, reset, restore: (state) => showRestore(slot, spec, state) };
  }

  /** A demo's exercises (dashboards.sharing.practice.ExerciseBlock): its heading, then one card each. */
  function renderBlock(model, el) {
    const block = JSON.parse(model.block_json);
    el.innerHTML =
      `<h3>${esc(block.heading)}</h3><p class="c04-intro">${esc(block.intro)}</p>` +
      block.cards.map(() => '<div class="c04-card"></div>').join("");
    const slots = el.querySelectorAll(".c04-card");
    // Offline, the demo's state before its exercises moved it, and the one card offering it.
    const shared = {
      saved: null,
      offer: (id, on) => {
        for (const c of cards) c.restore(c.id === id && on ? { offer: true } : null);
      },
    };
    const cards = block.cards.map((spec, i) =>
      mountCard(spec, slots[i], (msg) => model.send_msg(msg), shared),
    );
    const verdicts = () => {
      const all = model.verdicts_json ? JSON.parse(model.verdicts_json) : {};
      for (const c of cards) c.show(all[c.id]);
    };
    const past = () => cards.forEach((c) => c.past());
    const reset = () => cards.forEach((c) => c.reset());
    root.addEventListener(CHANGED, past);
    root.addEventListener(RESET, reset);
    return {
      verdicts,
      remove: () => {
        root.removeEventListener(CHANGED, past);
        root.removeEventListener(RESET, reset);
      },
    };
  }

  /** The progress line and its reset button, for the ids of this page's cards. */
  function renderProgress(model, el) {
    const labels = JSON.parse(model.labels_json);
    const ids = JSON.parse(model.ids_json);
    el.innerHTML =
      `<p class="c04-progress" data-testid="exercise-progress" role="status"></p>` +
      `<button type="button" data-testid="exercise-reset">${esc(labels.reset)}</button> ` +
      `<span class="c04-note">${esc(labels.stored)}</span>`;
    const line = el.querySelector(".c04-progress");
    const draw = () => {
      const all = stored();
      const mine = ids.filter((id) => all[id]);
      const right = mine.filter((id) => all[id].right).length;
      line.textContent = mine.length
        ? labels.progress
            .replace("{n}", String(mine.length))
            .replace("{total}", String(ids.length))
            .replace("{right}", String(right))
        : labels.progress_none.replace("{total}", String(ids.length));
    };
    el.querySelector("button").addEventListener("click", () => {
      forget();
      line.textContent = labels.reset_done;
      setTimeout(draw, 1500);
    });
    root.addEventListener(CHANGED, draw);
    draw();
    return () => root.removeEventListener(CHANGED, draw);
  }

  /** An ExerciseBlock component (dashboards/sharing/practice.py): its cards, and the server's
   * verdicts as they come. */
  function component({ model, el }) {
    const block = renderBlock(model, el);
    model.on("verdicts_json", block.verdicts);
    model.on("remove", block.remove);
  }

  C04.exercises = {
    renderBlock, renderProgress, component, stored, forget, checkOffline, said, option, KEY,
  };
})(typeof window !== "undefined" ? window : globalThis);
