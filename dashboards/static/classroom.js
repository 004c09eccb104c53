/* Class mode's panel (dashboards/classroom/classmode.py): draws what the server says (view_json) and
 * sends what the user does. Live only (the export has no class).
 *
 * - a student: the class bar (following the lecturer or not, one button to change it), the
 *   question the lecturer asked (options or a number, "Responder"), then its result;
 * - the lecturer: the bar (end/resume the class), a question to ask, how many answered,
 *   "Mostrar el resultado" (the distribution beside the computed answer), "Borrar respuestas".
 *
 * Every decision is the server's: a message here is a wish, checked against the session's role.
 * The question's form is redrawn only when the question changes, so a count arriving never
 * wipes what a student is typing.
 */
(function (root) {
  "use strict";

  const C04 = (root.C04 = root.C04 || {});
  const VOTER_KEY = "c04-clase-votante";
  const esc = (s) => root.C04.markup.esc(s);
  const fill = (template, values) =>
    template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));

  /** This tab's anonymous id (sessionStorage): a reload answers as the same voter. */
  function voter() {
    try {
      let id = root.sessionStorage.getItem(VOTER_KEY);
      if (!/^[0-9a-f]{32}$/.test(id || "")) {
        const bytes = new Uint8Array(16);
        root.crypto.getRandomValues(bytes);
        id = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
        root.sessionStorage.setItem(VOTER_KEY, id);
      }
      return id;
    } catch (e) {
      return ""; // storage off: the server gives the session an id of its own
    }
  }

  function bar(view, L) {
    if (view.role === "lecturer") {
      const state = view.ended ? "ended" : "";
      const said = view.ended ? L.lecturer_ended : L.lecturer_live;
      const button = view.ended
        ? `<button type="button" data-action="resume" data-testid="class-resume">${esc(L.resume)}</button>`
        : `<button type="button" class="c04-secondary" data-action="end" data-testid="class-end">${esc(L.end)}</button>`;
      return (
        `<div class="c04-class-bar ${state ? "c04-class-ended" : ""}" data-testid="class-bar">` +
        `<span data-testid="class-status"><span class="c04-class-dot" aria-hidden="true">●</span> ${esc(said)}</span>${button}</div>`
      );
    }
    if (!view.live) return "";
    const said = view.following ? L.following : L.not_following;
    const button = view.following
      ? `<button type="button" class="c04-secondary" data-action="leave" data-testid="class-leave">${esc(L.leave)}</button>`
      : `<button type="button" data-action="follow" data-testid="class-follow">${esc(L.follow)}</button>`;
    return (
      `<div class="c04-class-bar ${view.following ? "" : "c04-class-off"}" data-testid="class-bar" data-following="${view.following}">` +
      `<span data-testid="class-status"><span class="c04-class-dot" aria-hidden="true">●</span> ${esc(said)}</span>${button}</div>`
    );
  }

  function form(q, L) {
    const card = q.card;
    const said = root.C04.exercises.said;
    let input;
    if (card.kind === "choice") {
      input = card.options
        .map(
          (label, i) =>
            `<label class="c04-option"><input type="radio" name="c04-class-${q.seq}" value="${i}"> ${root.C04.exercises.option(card, label)}</label>`,
        )
        .join("");
    } else {
      input =
        `<label>${esc(card.labels.answer_label)} <input type="text" inputmode="decimal" maxlength="64" autocomplete="off" data-testid="class-input">` +
        `${card.unit ? " " + esc(card.unit) : ""}</label>`;
    }
    return (
      `<form novalidate data-testid="class-form"><fieldset><legend>${said(card.question)}</legend>${input}</fieldset>` +
      `<button type="submit" data-testid="class-answer">${esc(L.answer)}</button></form>`
    );
  }

  function result(q, L) {
    const r = q.result;
    const said = root.C04.exercises.said;
    const most = Math.max(1, ...r.rows.map((row) => row.count));
    const rows = r.rows
      .map(
        (row) =>
          `<tr class="${row.right ? "c04-right" : ""}"><td>${row.right ? "✓ " : ""}${said(row.label)}</td>` +
          `<td class="c04-n">${row.count}</td>` +
          `<td aria-hidden="true"><span class="c04-bar" style="width:${Math.round((row.count / most) * 12)}em"></span></td></tr>`,
      )
      .join("");
    return (
      `<p data-testid="class-expected"><b>${said(fill(L.result, { answer: r.expected }))}</b></p>` +
      `<p data-testid="class-right">${esc(fill(L.right_count, { right: r.right, total: r.total }))}</p>` +
      `<table data-testid="class-distribution"><thead><tr><th>${esc(L.col_answer)}</th><th>${esc(L.col_count)}</th><th></th></tr></thead>` +
      `<tbody>${rows}</tbody></table>`
    );
  }

  function question(view, L) {
    const q = view.question;
    if (!q) return "";
    const said = root.C04.exercises.said;
    let body = `<h3>${esc(L.question_heading)}</h3>`;
    if (view.role === "lecturer") {
      body += `<p><b>${said(q.card.question)}</b></p>`;
      body += `<p class="c04-class-count" role="status" data-testid="class-count">${esc(fill(L.count, { n: q.count || 0 }))}</p>`;
      if (!q.revealed) {
        body += `<button type="button" data-action="reveal" data-testid="class-reveal">${esc(L.reveal)}</button> `;
      }
      body += `<button type="button" class="c04-secondary" data-action="clear" data-testid="class-clear">${esc(L.clear)}</button>`;
    } else if (!q.revealed) {
      body += form(q, L);
      if (q.mine) {
        body += `<p data-testid="class-mine">${said(fill(L.your_answer, { answer: q.mine }))}</p>`;
      }
      body += `<p class="c04-class-note">${esc(L.anonymous)}</p>`;
    } else {
      body += `<p><b>${said(q.card.question)}</b></p>`;
      if (q.mine) body += `<p data-testid="class-mine">${said(fill(L.yours_was, { answer: q.mine }))}</p>`;
    }
    if (q.revealed && q.result) body += result(q, L);
    return `<div class="c04-class-question" data-testid="class-question" data-seq="${q.seq}">${body}</div>`;
  }

  function asker(view, L) {
    if (view.role !== "lecturer" || view.ended) return "";
    const ex = view.exercises;
    const options = ex.options
      .map(
        (o) =>
          `<option value="${esc(o.id)}"${o.id === ex.current ? " selected" : ""}>${esc(o.label)}</option>`,
      )
      .join("");
    return (
      `<div class="c04-class-ask"><label>${esc(L.ask_label)} <select data-testid="class-exercise">${options}</select></label> ` +
      `<button type="button" data-action="ask" data-testid="class-ask">${esc(L.ask)}</button></div>`
    );
  }

  function render(model, el) {
    const L = JSON.parse(model.labels_json);
    el.innerHTML =
      `<div data-part="bar"></div><div data-part="question"></div>` +
      `<div data-part="message" class="c04-class-message" role="status" aria-live="polite" data-testid="class-message"></div>` +
      `<div data-part="ask"></div>`;
    const part = (name) => el.querySelector(`[data-part="${name}"]`);
    const drawn = {};
    const put = (name, html) => {
      if (drawn[name] === html) return; // unchanged: keep what the user is doing there
      drawn[name] = html;
      part(name).innerHTML = html;
    };
    const draw = () => {
      const view = JSON.parse(model.view_json || "{}");
      if (!view.role) return;
      put("bar", bar(view, L));
      put("question", question(view, L));
      const m = view.message;
      const message = m ? `<span class="${m.kind === "error" ? "c04-error" : ""}">${esc(m.text)}</span>` : "";
      put("message", message);
      part("message").className = `c04-class-message${m && m.kind === "error" ? " c04-error" : ""}`;
      // Redrawn (back to the section's first question) only when the lecturer changes section.
      put("ask", asker(view, L));
    };
    const onClick = (event) => {
      const button = event.target.closest("button[data-action]");
      if (!button) return;
      const action = button.dataset.action;
      const msg = { action };
      if (action === "ask") msg.id = part("ask").querySelector("select").value;
      model.send_msg(msg);
    };
    const onSubmit = (event) => {
      event.preventDefault();
      const formEl = event.target;
      const box = formEl.closest("[data-seq]");
      const checked = formEl.querySelector("input[type=radio]:checked");
      const text = formEl.querySelector("input[type=text]");
      const answer = checked ? checked.value : text ? text.value : "";
      model.send_msg({ action: "answer", seq: Number(box.dataset.seq), answer, voter: voter() });
    };
    el.addEventListener("click", onClick);
    el.addEventListener("submit", onSubmit);
    model.on("view_json", draw);
    draw();
    return () => {
      el.removeEventListener("click", onClick);
      el.removeEventListener("submit", onSubmit);
    };
  }

  C04.classroom = { render, voter };
})(typeof window !== "undefined" ? window : globalThis);
