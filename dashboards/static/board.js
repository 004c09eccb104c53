/* The browser side of dashboards/components/board.py: the layout's rows, columns, boxes and
 * slots built once, each slot redrawn by C04.markup when its spec changes, and the controls
 * (native <input>, <select>, <button>) drawn here.
 *
 * A control's use goes to the server as a message ({control, value}: Board.receive checks it)
 * on a live page; in the export (model.offline set) it runs the demo's browser twin
 * (C04.update) with the control's value, as a Bokeh widget's jscallback did. links.js reads
 * and sets the controls through C04.boards (the export's links).
 *
 * A classic script loaded once per page (as markup.js: by URL on a live page, inlined by the
 * export), not the Board's ESM: Panel sends a component's ESM source with every instance, and
 * this code was ~19 KB in each of the lecture's 11 Boards (0,21 MB of clase04.html). Every
 * component's module (dashboards/components/bundle.mjs) calls C04.components.Board, this render.
 */
(function () {
  "use strict";

  const root = typeof window !== "undefined" ? window : globalThis;
  const C04 = (root.C04 = root.C04 || {});

  const TOUCH_MS = 400 // a value from the server waits this long after the student's last input
  // The server answers a control's uses in order: a value other than the one the student sent
  // last, soon after sending it, is the answer to an earlier use (three arrow presses on a busy
  // server: the answer to the first must not take the handle back before the third's arrives).
  // It waits for the answer to the last; one that never comes (a refusal keeps the old value)
  // is shown after this long.
  const ANSWER_MS = 3000

  function controlId(model, name) {
    return `c04-${model.id}-${name}`.replace(/[^A-Za-z0-9_-]/g, "-")
  }

  function escape(text) {
    return C04.markup.esc(text)
  }

  // A range's number as the page writes it (spec.decimal: "," in Spanish).
  function rangeText(spec, value) {
    if (spec.texts) return String(spec.texts[value] ?? "")
    const fixed = Number(value).toFixed(spec.decimals ?? 0)
    return (Number(value) < 0 ? fixed.replace("-", "−") : fixed).replace(".", spec.decimal || ".")
  }

  function buildControl(model, node, box) {
    const id = controlId(model, node.slot)
    const label = escape(node.label || "")
    const help = node.help ? `<div class="c04-help">${escape(node.help)}</div>` : ""
    box.classList.add("c04-control", `c04-control-${node.kind}`)
    box.dataset.control = node.slot
    if (node.kind === "range") {
      box.innerHTML = `<label for="${id}">${label}: <output></output></label>` +
        `<input type="range" id="${id}">${help}`
    } else if (node.kind === "select") {
      box.innerHTML = `<label for="${id}">${label}</label><select id="${id}"></select>${help}`
    } else if (node.kind === "checkbox") {
      box.innerHTML = `<label><input type="checkbox" id="${id}"> ${label}</label>${help}`
    } else if (node.kind === "text") {
      box.innerHTML = `<label for="${id}">${label}</label><input type="text" id="${id}"` +
        ` autocomplete="off" spellcheck="false">${help}`
    } else if (node.kind === "number") {
      box.innerHTML = `<label for="${id}">${label}</label><input type="number" id="${id}">${help}`
    } else if (node.kind === "matrix") {
      // A matrix's cells: a text box each, named by node.labels (row by row); the title (HTML
      // made by the server) above, the refusal (the spec's error) under them.
      const cols = node.labels.length ? node.labels[0].length : 0
      const cells = node.labels.map((row, i) => row.map((name, j) =>
        `<div class="c04-cell"><input type="text" inputmode="decimal" autocomplete="off"` +
        ` spellcheck="false" maxlength="${node.max_chars}" aria-label="${escape(name)}"` +
        ` data-row="${i}" data-col="${j}"></div>`).join("")).join("")
      box.innerHTML = `<div class="c04-grid-title">${node.title || ""}</div>` +
        `<div class="c04-grid" style="grid-template-columns: repeat(${cols}, ${node.cell_width}px)">` +
        `${cells}</div><div class="c04-error c04-grid-error"></div>`
    } else if (node.kind === "choice") {
      box.innerHTML = `<div class="c04-choice-label" id="${id}-label">${label}</div>` +
        `<div class="c04-choice" role="group" aria-labelledby="${id}-label"></div>${help}`
    } else {  // button
      box.innerHTML = `<button type="button" id="${id}">${label}</button>${help}`
    }
    // The control's own element in another language than the page's (its label and help not).
    if (node.lang) box.querySelector("select, input, .c04-choice, button").lang = node.lang
  }

  // The value a control holds now: what links.js reads and the export's twin gets.
  function readControl(box, kind, spec) {
    if (kind === "range") return Number(box.querySelector("input").value)
    if (kind === "checkbox") return box.querySelector("input").checked
    if (kind === "text") return box.querySelector("input").value
    if (kind === "matrix") {  // the texts the boxes show, row by row
      const rows = []
      for (const input of box.querySelectorAll(".c04-cell input")) {
        const i = Number(input.dataset.row)
        if (!rows[i]) rows[i] = []
        rows[i].push(input.value)
      }
      return rows
    }
    if (kind === "number") {  // what is typed: not a number is null (the server refuses it)
      const text = box.querySelector("input").value.trim()
      return text === "" || !Number.isFinite(Number(text)) ? null : Number(text)
    }
    if (kind === "select") {
      const i = box.querySelector("select").selectedIndex
      return i >= 0 && spec.options[i] ? spec.options[i][0] : null
    }
    if (kind === "choice") {
      const pressed = box.querySelector('button[aria-pressed="true"]')
      return pressed ? spec.options[Number(pressed.dataset.index)][0] : null
    }
    return null
  }

  // Show `value` in the control (a value from the server, a link's).
  function writeControl(box, kind, spec, value) {
    if (kind === "range") {
      const input = box.querySelector("input")
      input.value = String(value)
      const text = rangeText(spec, value)
      box.querySelector("output").textContent = text
      input.setAttribute("aria-valuetext", text)
    } else if (kind === "checkbox") {
      box.querySelector("input").checked = Boolean(value)
    } else if (kind === "text" || kind === "number") {
      box.querySelector("input").value = value ?? ""
    } else if (kind === "matrix") {
      // A box being typed in (focused, its text not committed) keeps what the student types.
      const active = box.getRootNode().activeElement
      for (const input of box.querySelectorAll(".c04-cell input")) {
        const text = value[Number(input.dataset.row)][Number(input.dataset.col)]
        if (input === active && input.value !== input.dataset.sent) continue
        if (input.value !== text) input.value = text
        if (input.dataset.sent !== text) input.dataset.sent = text
      }
    } else if (kind === "select") {
      const i = spec.options.findIndex((option) => option[0] === value)
      box.querySelector("select").selectedIndex = i
    } else if (kind === "choice") {
      for (const button of box.querySelectorAll("button")) {
        const option = spec.options[Number(button.dataset.index)]
        button.setAttribute("aria-pressed", String(option[0] === value))
      }
    }
  }

  // A control's spec from the server: its options and bounds, then its value. Returns whether
  // its options were drawn anew (their shown choice with them: the value is to be shown again).
  function drawControl(box, kind, spec) {
    let rebuilt = false
    if (kind === "range" || kind === "number") {
      const input = box.querySelector("input")
      input.min = String(spec.start)
      input.max = String(spec.end)
      input.step = String(spec.step)
    } else if (kind === "text") {
      const input = box.querySelector("input")
      if (spec.placeholder !== undefined) input.placeholder = spec.placeholder
      if (spec.max_length) input.maxLength = spec.max_length
    } else if (kind === "select") {
      const select = box.querySelector("select")
      const labels = JSON.stringify(spec.options.map((option) => option[1]))
      if (select.dataset.labels !== labels) {
        select.dataset.labels = labels
        select.innerHTML = spec.options
          .map((option) => `<option>${escape(option[1])}</option>`).join("")
        rebuilt = true
      }
    } else if (kind === "choice") {
      const group = box.querySelector(".c04-choice")
      const labels = JSON.stringify(spec.options.map((option) => option[1]))
      if (group.dataset.labels !== labels) {
        group.dataset.labels = labels
        group.innerHTML = spec.options.map((option, i) =>
          `<button type="button" data-index="${i}">${escape(option[1])}</button>`).join("")
        rebuilt = true
      }
    }
    if (kind === "matrix") box.querySelector(".c04-grid-error").innerHTML = spec.error || ""
    const disabled = Boolean(spec.disabled)
    for (const input of box.querySelectorAll("input, select, button")) input.disabled = disabled
    return rebuilt
  }

  function render({ model, el, view }) {
    const markup = C04.markup
    const slots = new Map()
    const controls = new Map()
    const build = (node) => {
      if (node.kind === "styles") {  // a group(): its box's styles are its slot's spec
        const group = build({ col: node.col, css: node.css })
        slots.set(node.slot, { body: group, kind: node.kind, json: "" })
        return group
      }
      const box = document.createElement("div")
      if (node.slot !== undefined) {
        box.className = "c04-slot" + (node.css ? " " + node.css : "")
        box.dataset.slot = node.slot
        if (node.width) box.style.width = `${node.width}px`
        if (node.control) {
          buildControl(model, node, box)
          const control = { box, kind: node.kind, spec: {}, json: "", value: undefined, touched: -1e9 }
          controls.set(node.slot, control)
          slots.set(node.slot, { control, json: "" })
          return box
        }
        let body = box
        if (node.caption || node.footnote) {
          const caption = document.createElement("div")
          caption.className = "c04-caption"
          caption.innerHTML = node.caption || ""
          body = document.createElement("div")
          const footnote = document.createElement("div")
          footnote.className = "c04-footnote"
          footnote.innerHTML = node.footnote || ""
          box.append(caption, body, footnote)
        }
        slots.set(node.slot, { body, kind: node.kind, json: "" })
        return box
      }
      if (node.html !== undefined) {
        box.className = "c04-prose-html" + (node.css ? " " + node.css : "")
        box.innerHTML = node.html
        return box
      }
      if (node.box !== undefined) {
        box.className = "c04-box" + (node.css ? " " + node.css : "")
        if (node.width) box.style.width = `${node.width}px`
        const title = document.createElement("div")
        title.className = "c04-box-title"
        title.innerHTML = node.title
        const body = document.createElement("div")
        body.className = "c04-col c04-box-body"
        for (const child of node.box) body.append(build(child))
        box.append(title, body)
        return box
      }
      box.className = (node.row ? "c04-row" : "c04-col") + (node.css ? " " + node.css : "")
      for (const child of node.row || node.col) box.append(build(child))
      return box
    }
    // The demo's marker and its «Copiar enlace» (dashboards/sharing/live_link.py, links.js), on
    // top: a component of their own before.
    if (model.marker) {
      const marker = document.createElement("span")
      marker.dataset.testid = `section-${model.marker}`
      el.append(marker)
    }
    if (model.copy_link && model.copy_link.labels) {
      const { section, labels } = model.copy_link
      const link = document.createElement("div")
      link.className = "c04-copy-link"
      link.innerHTML = C04.links.copyButton(labels)
      link.querySelector("button").addEventListener("click", () => C04.links.copy(link, section, labels))
      el.append(link)
    }
    el.append(build({ col: model.layout }))

    // A value from the server: shown unless the student moved the control just now (a drag's
    // own echoes would pull the handle back); then the latest one, once the hand is off.
    const settle = (control) => {
      const now = performance.now()
      let until = control.touched + TOUCH_MS
      const sent = control.sent
      if (sent && control.value === sent.value) control.sent = null  // the answer to the last
      else if (sent && now < sent.at + ANSWER_MS) until = Math.max(until, sent.at + ANSWER_MS)
      const wait = until - now
      clearTimeout(control.timer)
      if (wait > 0) {
        control.timer = setTimeout(() => settle(control), wait)
      } else if (control.value !== undefined) {
        writeControl(control.box, control.kind, control.spec, control.value)
      }
    }
    const drawSpec = (control, spec) => {
      control.spec = spec
      const rebuilt = drawControl(control.box, control.kind, spec)
      if (control.kind === "matrix") {  // new texts (or the same again, after a refusal): now
        if (spec.texts) writeControl(control.box, "matrix", spec, spec.texts)
        return
      }
      if (rebuilt || spec.value !== control.value || control.value === undefined) {
        control.value = spec.value
        settle(control)
      }
    }

    // A board with a view (board.py): its slots are the view's drawing of the model's numbers,
    // C04.views[view].render(state), made again only for a new state; specs_json adds the
    // controls' specs (and is a view-less board's whole content).
    let drawn = {}
    let drawnFrom = ""
    const draw = (first) => {
      if (model.view && model.state_json !== drawnFrom) {
        drawnFrom = model.state_json
        const state = drawnFrom ? JSON.parse(drawnFrom) : null
        drawn = state ? C04.inLanguage(model.lang, () => C04.views[model.view].render(state)) : {}
      }
      const specs = Object.assign({}, drawn, model.specs_json ? JSON.parse(model.specs_json) : {})
      for (const [name, slot] of slots) {
        const spec = specs[name]
        const json = spec === undefined ? "" : JSON.stringify(spec)
        if (json === slot.json) continue
        slot.json = json
        if (slot.control) {
          drawSpec(slot.control, spec || {})
          continue
        }
        if (slot.kind === "styles") {
          const styles = Object.entries(spec || {})
          for (const [key, value] of styles) slot.body.style.setProperty(key, value)
          continue
        }
        markup.redraw(slot.body, slot.kind, spec)
        // A change, not the first drawing: the page's live region says it (a11y.js).
        if (!first && slot.kind === "announce" && spec && C04.a11y) {
          C04.a11y.announce(markup.said(spec))
        }
      }
    }

    // The export: another component of ours a twin also updates (a Raster, another Board of the
    // section), found once by its Panel name (its data model's: board.py, run_offline).
    const found = new Map()
    const peer = (name) => {
      if (!found.has(name)) {
        const hits = [...view.model.document.all_models].filter(
          (m) => m.data && m.data.name === name)
        if (hits.length !== 1) throw new Error(`Board: ${hits.length} componentes «${name}»`)
        found.set(name, hits[0])
      }
      return found.get(name)
    }

    // What a control's use sends (live) or runs (offline): the export's twin gets each control
    // as args["w_<name>"] = {value} (a range: its position; a button: the trigger).
    const act = (name, commit) => {
      const control = controls.get(name)
      const value = commit || readControl(control.box, control.kind, control.spec)
      if (control.kind === "range") {
        control.box.querySelector("output").textContent = rangeText(control.spec, value)
        control.box.querySelector("input").setAttribute("aria-valuetext", rangeText(control.spec, value))
      }
      const offline = model.offline
      if (!offline || !offline.demo) {
        if (control.kind !== "button" && control.kind !== "matrix") {
          control.sent = { value, at: performance.now() }
        }
        const sent = control.spec.texts && control.spec.values ? control.spec.values[value] : value
        model.send_msg(control.kind === "button" ? { control: name } : { control: name, value: sent })
      } else {
        // The page is its own server: the control's spec takes what the student chose, as the
        // live server's answer would (a twin that sets it later sets a change, not the same).
        if (control.kind !== "button") {
          const specs = JSON.parse(model.specs_json || "{}")
          const shown = readControl(control.box, control.kind, control.spec)
          const key = control.kind === "matrix" ? "texts" : "value"
          specs[name] = Object.assign({}, specs[name], { [key]: shown })
          model.specs_json = JSON.stringify(specs)
        }
        const args = Object.assign({}, offline.extra)
        const peers = offline.peers || {}
        for (const target of Object.keys(offline.kinds)) {
          args[target] = peers[target] === undefined ? view.model : peer(peers[target])
        }
        for (const [other, c] of controls) {
          args[`w_${other}`] = { name: other, value: readControl(c.box, c.kind, c.spec) }
        }
        if (commit) args[`w_${name}`].commit = commit  // a matrix's cell: {row, col, text}
        args.trigger = args[`w_${name}`]
        args.board = view.model  // the twin may set any slot of its board (C04.apply)
        if (model.view) {
          // The page is the server: the view's numbers for these controls (an embedded table's
          // or the browser's own maths) go to every board of the view, as a live state does.
          args.draw = (state) => {
            for (const other of boards.values()) if (other.view === model.view) other.setState(state)
          }
        }
        // The export's tables unpack as the page loads: a control used before waits for them.
        C04.whenEmbedded(() => C04.update(offline.demo, args, offline.kinds))
      }
      // links.js writes the export's address after a control's use (a composed event: it
      // leaves this shadow root).
      el.dispatchEvent(new CustomEvent("c04-control", { bubbles: true, composed: true }))
    }
    for (const [name, control] of controls) {
      const touch = () => { control.touched = performance.now() }
      const box = control.box
      if (control.kind === "range") {
        box.querySelector("input").addEventListener("input", () => { touch(); act(name) })
      } else if (control.kind === "text" || control.kind === "number") {
        // Applied on Enter or when the box is left, as Panel's TextInput did.
        const input = box.querySelector("input")
        input.addEventListener("change", () => { touch(); act(name) })
        input.addEventListener("input", touch)
      } else if (control.kind === "choice") {
        box.addEventListener("click", (event) => {
          const button = event.target.closest("button[data-index]")
          if (!button || button.getAttribute("aria-pressed") === "true") return
          touch()
          writeControl(box, "choice", control.spec, control.spec.options[Number(button.dataset.index)][0])
          act(name)
        })
      } else if (control.kind === "matrix") {
        // Enter, or leaving a box whose text changed: one commit (both may come for one edit).
        for (const input of box.querySelectorAll(".c04-cell input")) {
          input.dataset.sent = ""
          const commit = () => {
            if (input.value === input.dataset.sent) return
            input.dataset.sent = input.value
            const cell = { row: Number(input.dataset.row), col: Number(input.dataset.col) }
            act(name, { ...cell, text: input.value })
          }
          input.addEventListener("change", commit)
          input.addEventListener("keydown", (event) => { if (event.key === "Enter") commit() })
        }
      } else if (control.kind === "button") {
        box.querySelector("button").addEventListener("click", () => act(name))
      } else {
        box.querySelector(control.kind === "select" ? "select" : "input")
          .addEventListener("change", () => { touch(); act(name) })
      }
    }
    const mark = () => {
      for (const [name, control] of controls) {
        control.box.classList.toggle("c04-compare", model.compare.includes(name))
      }
    }

    // The export's links (links.js): read a control, set one as a student would, its spec.
    const boards = (C04.boards = C04.boards || new Map())
    boards.set(view.model.id, {
      get: (name) => {
        const control = controls.get(name)
        return readControl(control.box, control.kind, control.spec)
      },
      set: (name, value) => {
        const control = controls.get(name)
        if (control.kind === "matrix") {  // a cell committed as a student would: {row, col, text}
          const input = control.box.querySelector(`input[data-row="${value.row}"][data-col="${value.col}"]`)
          input.value = value.text
          input.dataset.sent = value.text
          act(name, value)
          return
        }
        writeControl(control.box, control.kind, control.spec, value)
        act(name)
      },
      run: (name) => act(name),
      spec: (name) => controls.get(name).spec,
      view: model.view,
      setState: (state) => { model.state_json = JSON.stringify(state) },
    })
    model.on("remove", () => boards.delete(view.model.id))

    model.on(["specs_json", "state_json"], () => draw(false))
    model.on("compare", mark)
    draw(true)
    mark()
    // Nodes with css class c04-step-<n> follow the walkthrough's stepper (present.js).
    const unfollow = C04.present?.followSteps(el)
    if (unfollow) model.on("remove", unfollow)
  }

  C04.board = { render, ANSWER_MS };
})();
