/* «Un modelo de verdad» (dashboards/demos/minilm.py): what MiniLM's numbers look like, live and
 * in the export.
 *
 * Three drawings of dashboards.demos.minilm.numbers, every word from the page's catalogue (C04.t,
 * tables [minilm], [multihead] and [a11y]), every number written by C04.fmt in the page's
 * language:
 * - C04.views.minilm.render(state): the first Board's readouts, pieces and announcer, from
 *   numbers.sentence ({pieces, words, max_pieces});
 * - C04.views.minilm_toy.render(state): the second Board's toy heads of «Varias cabezas» beside
 *   the real heads most like them, from numbers.toy ({words, matches});
 * - C04.views.minilm_grid.render(state): the grid's texts (each tile's name and role, each
 *   head's measured shares, the grid's own words), from numbers.grid;
 *   C04.views.minilm_grid.draw({model, el}): the HeadGrid's drawing (C04.components), the
 *   72 tiles and the chosen head from the weights (uint16 ten-thousandths in base64).
 * The lecture's sentences are Spanish data: a page in another language marks their words
 * (multihead.sentence_lang says with which tag).
 *
 * readState(args), the export only (no server, no weights): the embedded state of the control
 * used. The export embeds, in <script id="c04-states"> under "minilm", the numbers of every
 * lecture sentence ("sentences": {sentence, grid}, keyed by the sentence) and of the four
 * sentences of «Varias cabezas» ("toys"). The first Board's controls are «Frases de la clase»
 * (w_sentence_list) and «Ejemplo en inglés» (w_english: args.english, the English sentence); its
 * readState also gives the grid (args.grid, another component: C04.apply, kind esm) its numbers
 * and the sentence's two controls their value, as the server's specs would.
 */
(function () {
  "use strict";

  const C04 = (window.C04 = window.C04 || {});
  C04.views = C04.views || {};

  const DECIMALS = 2; // the toy and real tables' numbers
  // What the first board's readState sets besides its state: the grid's numbers, the controls.
  const KINDS = {
    grid: "esm:state_json",
    sentence: "board:sentence",
    sentence_list: "board:sentence_list",
  };

  const pct = (p) => C04.fmt.percent(p, 0);
  const embedded = () => C04.embedded("minilm", ["sentences", "toys"]);

  // A word of the lecture's sentences as a label of C04.markup: as is, or {text, lang}.
  function keptLabel(word) {
    const lang = C04.t("multihead.sentence_lang");
    return lang ? { text: word, lang } : word;
  }

  // The first Board: how many words and pieces, the pieces, the announcer.
  function render(state) {
    const pieces = String(state.pieces.length - 2); // [CLS] and [SEP] are no piece of a word
    const words = String(state.words);
    return {
      readouts: {
        items: [
          C04.spec.readout(C04.t("minilm.readout.words"), words, "", "minilm-words"),
          C04.spec.readout(
            C04.t("minilm.readout.pieces"),
            pieces,
            C04.t("minilm.readout.pieces_unit", { max_pieces: state.max_pieces }),
            "minilm-pieces-count",
          ),
        ],
      },
      pieces: {
        testid: "minilm-pieces",
        text: [C04.t("minilm.pieces_said"), " ", { text: state.pieces.join(" · "), tag: "code" }],
      },
      announce: C04.spec.announce("minilm", { pieces, words }),
    };
  }

  function readState(args) {
    const trigger = args.trigger ? args.trigger.name : null;
    const sentence = trigger === "english" ? args.english : args.w_sentence_list.value;
    const entry = embedded().sentences[sentence];
    if (!entry) throw new Error(`minilm: no hay estado exportado para ${sentence}`);
    const specs = JSON.parse(args.board.data.specs_json || "{}");
    const showing = (name) => Object.assign({}, specs[name], { value: sentence });
    C04.apply(
      { grid: args.grid, sentence: args.board, sentence_list: args.board },
      {
        grid: JSON.stringify(entry.grid),
        sentence: showing("sentence"),
        sentence_list: showing("sentence_list"),
      },
      KINDS,
    );
    return entry.sentence;
  }

  // The second Board: for each hand-built head, its table and the real head's, the words marked.
  function renderToy(state) {
    const labels = state.words.map(keptLabel);
    const table = (weights, title, testid) => {
      const spec = C04.spec.matrix(weights, {
        rowLabels: state.words,
        colLabels: state.words,
        decimals: DECIMALS,
        shade: true,
        title,
        testid,
      });
      spec.cols = labels;
      spec.rows.forEach((row, i) => { row.label = labels[i]; });
      return spec;
    };
    const out = {};
    state.matches.forEach((match, k) => {
      const relation = C04.t(`multihead.relation.${match.relation}`);
      const toyTitle = C04.t("minilm.toy.toy_title", { relation });
      out[`toy_${k}`] = table(match.toy, toyTitle, `minilm-toy-${k + 1}`);
      const title = C04.t("minilm.toy.real_title", {
        layer: match.layer + 1,
        head: match.head + 1,
        similarity: pct(match.similarity),
      });
      out[`real_${k}`] = table(match.real, title, `minilm-real-${k + 1}`);
    });
    return out;
  }

  function readToyState(args) {
    const state = embedded().toys[args.w_toy.value];
    if (!state) throw new Error(`minilm: no hay estado exportado para ${args.w_toy.value}`);
    return state;
  }

  // The grid's texts: each tile's title, name (aria) and short label, each head's shares, the
  // roles' names, the rows' and columns' labels and the grid's own words.
  function renderGrid(state) {
    const layers = state.scores.length;
    const heads = state.scores[0].length;
    const tiles = state.scores.map((layer, la) => layer.map((shares, h) => {
      const role = state.roles[state.role[la][h]];
      const share = pct(shares[state.role[la][h]]);
      const name = C04.t("minilm.head_name", { layer: la + 1, head: h + 1 });
      const said = C04.t(`minilm.role.${role}`, { share });
      const short = C04.t(`minilm.short.${role}`, { share });
      return { title: `${name} · ${said}`, aria: `${name}: ${said}`, short };
    }));
    const numbered = (n, label) => Array.from({ length: n }, (_, i) => label(i + 1));
    return {
      grid: {
        tiles,
        scores: state.scores.map((layer) => layer.map((shares) => shares.map(pct))),
        role_names: state.roles.map((role) => C04.t(`minilm.role_name.${role}`)),
        layer_labels: numbered(layers, (n) => C04.t("minilm.grid.layer_short", { n })),
        // "C{n}": a brace right after a letter is no field of the catalogue (i18n.FIELD), so
        // C04.t gives the template as it is and the number goes in here.
        head_labels: numbered(heads, (n) => C04.t("minilm.grid.head_short").replace("{n}", n)),
        label: C04.t("minilm.grid.grid_label"),
        arcs_alt: C04.t("minilm.grid.arcs_alt"),
        top_title: C04.t("minilm.grid.top_title"),
        scores_title: C04.t("minilm.grid.scores_title"),
        numbers_title: C04.t("minilm.grid.numbers_title"),
        query_key: C04.t("minilm.grid.query_key"),
      },
    };
  }

  // The grid itself (HeadGrid's drawing: C04.components.HeadGrid calls it): a classic script
  // loaded once per page, as board.js, so that Panel neither sends ~13 KB of ESM with the
  // component nor transforms it in the page (sucrase, then es-module-shims) before drawing.
  // A click or an arrow key draws the head at once and, live, tells the server with a message
  // (model.send_msg({selected: [layer, head]}), HeadGrid.receive): the page never writes
  // model.selected there, the server sets it from the model. In the export (model.offline: no
  // server) the page sets model.selected itself.
  const SVG = "http://www.w3.org/2000/svg"
  const ARC_THRESHOLD = 0.1 // "Varias cabezas" draws an arc from 10 % (its view's fixed threshold)

  function decode(b64, count) {
    const bytes = C04.bytes(b64)
    const view = new DataView(bytes.buffer)
    const out = new Float64Array(count)
    for (let i = 0; i < count; i++) out[i] = view.getUint16(2 * i, true) / 10000
    return out
  }

  const esc = (s) => C04.markup.esc(s)

  // "perro → gato: 93 %", a piece's largest weight rounded as the table of numbers shows it.
  function topItem(query, key, weight) {
    const share = C04.t("format.percent", { value: Math.round(100 * weight) })
    return C04.t("minilm.grid.top_item", { query, key, share })
  }

  // A weight's colour, white -> the lecture's accent blue (dashboards.components.style.ACCENT,
  // #1f5fa8): channel c is 255 - FADE[c] * weight, rounded (the tiles' pixels and the table).
  const FADE = [255 - 31, 255 - 95, 255 - 168]
  const channel = (c, t) => Math.round(255 - FADE[c] * t)
  function shade(p) {
    const t = Math.max(0, Math.min(1, p))
    return `rgb(${channel(0, t)},${channel(1, t)},${channel(2, t)})`
  }

  // Every tile in one image, n pixels wide, the tiles one under the other in the weights'
  // order (layer, then head): a tile's pixel (i, j) is data[(k * n + i) * n + j]. Each tile
  // button shows its part of it as a background (tileStyle). One canvas per tile made each of
  // the 72 a layer of its own: on the phone (4× slowdown) the section's first frame spent
  // ~90 ms more painting and committing them than with none (traced).
  function sprite(data, tiles, n) {
    const canvas = document.createElement("canvas")
    canvas.width = n
    canvas.height = n * tiles
    const ctx = canvas.getContext("2d")
    const image = ctx.createImageData(n, n * tiles)
    for (let i = 0; i < tiles * n * n; i++) {
      const t = Math.max(0, Math.min(1, data[i]))
      image.data[4 * i] = channel(0, t)
      image.data[4 * i + 1] = channel(1, t)
      image.data[4 * i + 2] = channel(2, t)
      image.data[4 * i + 3] = 255
    }
    ctx.putImageData(image, 0, 0)
    return canvas.toDataURL()
  }

  // Tile k of the sprite, scaled to the tile's box (GRID_CSS: .c04-headgrid-tile).
  function tileStyle(el, k, tiles) {
    el.style.backgroundSize = `100% ${100 * tiles}%`
    el.style.backgroundPosition = `0 ${tiles > 1 ? (100 * k) / (tiles - 1) : 0}%`
  }

  function arcs(spec, pieces, weights, n) {
    // Pieces along a line; an arc above from each query piece to each piece it gives ≥ 10 %,
    // ending in an arrowhead at the piece looked at (as "Varias cabezas" draws them).
    const step = 46
    const width = Math.max(320, step * n + 20)
    const x = (i) => 10 + step * i + step / 2
    const shown = []
    let tallest = 20
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const w = weights[i * n + j]
        if (w < ARC_THRESHOLD || i === j) continue
        const h = Math.min(140, 14 + Math.abs(x(j) - x(i)) * 0.4)
        tallest = Math.max(tallest, h)
        shown.push([i, j, w, h])
      }
    }
    const base = tallest + 12
    const svg = document.createElementNS(SVG, "svg")
    svg.setAttribute("viewBox", `0 0 ${width} ${base + 70}`)
    svg.setAttribute("width", String(width))
    svg.setAttribute("height", String(base + 70))
    svg.setAttribute("role", "img")
    svg.setAttribute("aria-label", spec.arcs_alt)
    const defs = document.createElementNS(SVG, "defs")
    defs.innerHTML =
      // In the drawing's units: an arrowhead scaled by each arc's stroke would hide short arcs.
      '<marker id="c04-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" ' +
      'markerWidth="8" markerHeight="8" orient="auto-start-reverse">' +
      '<path d="M0 0 L10 5 L0 10 z" fill="#1f5fa8"/></marker>'
    svg.appendChild(defs)
    for (const [i, j, w, h] of shown) {
      const path = document.createElementNS(SVG, "path")
      const x0 = x(i)
      const x1 = x(j)
      path.setAttribute("d", `M ${x0} ${base} Q ${(x0 + x1) / 2} ${base - 2 * h} ${x1} ${base}`)
      path.setAttribute("fill", "none")
      path.setAttribute("stroke", "#1f5fa8")
      path.setAttribute("stroke-opacity", String(0.25 + 0.75 * w))
      path.setAttribute("stroke-width", String(1 + 5 * w))
      path.setAttribute("marker-end", "url(#c04-arrow)")
      svg.appendChild(path)
    }
    for (let i = 0; i < n; i++) {
      const label = document.createElementNS(SVG, "text")
      label.setAttribute("x", String(x(i)))
      label.setAttribute("y", String(base + 14))
      label.setAttribute("transform", `rotate(45 ${x(i)} ${base + 14})`)
      label.setAttribute("font-size", "13")
      label.setAttribute("fill", "#1b1b1b")
      label.textContent = pieces[i]
      svg.appendChild(label)
    }
    return svg
  }

  function drawGrid({ model, el }) {
    const root = document.createElement("div")
    root.className = "c04-headgrid"
    el.appendChild(root)
    let state = null // the model's numbers (the server's, or the export's embedded ones)
    let spec = null // their texts in the page's language (C04.views.minilm_grid)
    let data = null
    let layers = 0
    let heads = 0

    // What the page shows: the server's selection, or the head just chosen here (live, until
    // the server's answer sets model.selected).
    const fromModel = () => {
      const s = model.selected || [0, 0]
      return [s[0] | 0, s[1] | 0]
    }
    let current = fromModel()
    const selected = () => current
    // The server answers the page's choices in order, as a Board's control uses (board.js,
    // ANSWER_MS): a selection other than the last one sent, soon after sending it, is the
    // answer to an earlier choice (arrow keys pressed faster than the server answers) and must
    // not take the grid back; the model's is shown once the last is answered, or after that long.
    let sent = null
    let waiting = null
    const follow = () => {
      clearTimeout(waiting)
      const now = performance.now()
      const answer = fromModel()
      if (sent && answer[0] === sent.value[0] && answer[1] === sent.value[1]) sent = null
      if (sent && now < sent.at + C04.board.ANSWER_MS) {
        waiting = setTimeout(follow, sent.at + C04.board.ANSWER_MS - now)
        return
      }
      sent = null
      current = answer
      mark()
    }

    function detail() {
      const box = root.querySelector(".c04-headgrid-detail")
      if (!box || !spec) return
      const [layer, head] = selected()
      const pieces = state.pieces
      const n = pieces.length
      const offset = (layer * heads + head) * n * n
      const weights = data.subarray(offset, offset + n * n)
      const tile = spec.tiles[layer][head]
      // The folded numbers stay open when another head is chosen.
      const open = box.querySelector("details[open]") !== null
      box.innerHTML = ""
      const title = document.createElement("h4")
      title.dataset.testid = "minilm-detail-title"
      title.textContent = tile.title
      box.appendChild(title)
      const scroll = document.createElement("div")
      scroll.className = "c04-headgrid-arcs"
      scroll.appendChild(arcs(spec, pieces, weights, n))
      box.appendChild(scroll)

      // What each piece looks at most (as "Varias cabezas" lists it).
      const top = document.createElement("div")
      top.innerHTML = `<p><b>${esc(spec.top_title)}</b></p>`
      const list = document.createElement("ul")
      list.dataset.testid = "minilm-top"
      list.className = "c04-headgrid-top"
      C04.inLanguage(model.lang, () => {
        for (let i = 0; i < n; i++) {
          let best = 0
          for (let j = 1; j < n; j++) if (weights[i * n + j] > weights[i * n + best]) best = j
          const li = document.createElement("li")
          li.textContent = topItem(pieces[i], pieces[best], weights[i * n + best])
          list.appendChild(li)
        }
      })
      top.appendChild(list)
      box.appendChild(top)

      // The head's measured shares (Python measured them: attnmodel.minilm.head_scores).
      const table = document.createElement("table")
      table.dataset.testid = "minilm-scores"
      table.className = "c04-headgrid-scores"
      const caption = document.createElement("caption")
      caption.textContent = spec.scores_title
      table.appendChild(caption)
      spec.role_names.forEach((name, r) => {
        const tr = document.createElement("tr")
        const th = document.createElement("th")
        th.scope = "row"
        th.textContent = name
        const td = document.createElement("td")
        td.textContent = spec.scores[layer][head][r]
        tr.append(th, td)
        table.appendChild(tr)
      })
      box.appendChild(table)

      // Every number of the map, folded: the table is built when it is opened (n × n cells that
      // nobody reads otherwise, and every one is work for each layout of the page).
      const details = document.createElement("details")
      details.dataset.key = "minilm-numbers"
      const summary = document.createElement("summary")
      summary.textContent = spec.numbers_title
      details.appendChild(summary)
      const wrap = document.createElement("div")
      wrap.className = "c04-headgrid-numbers"
      const fillNumbers = () => {
        if (wrap.firstChild) return
        let html = `<table data-testid="minilm-numbers"><tr><th scope="col"><span class="c04-sr">${esc(spec.query_key)}</span></th>`
        for (let j = 0; j < n; j++) html += `<th scope="col">${esc(pieces[j])}</th>`
        html += "</tr>"
        for (let i = 0; i < n; i++) {
          html += `<tr><th scope="row">${esc(pieces[i])}</th>`
          for (let j = 0; j < n; j++) {
            const w = weights[i * n + j]
            const ink = w > 0.55 ? "#fff" : "#1b1b1b"
            html += `<td style="background:${shade(w)};color:${ink}">${Math.round(100 * w)}</td>`
          }
          html += "</tr>"
        }
        wrap.innerHTML = html + "</table>"
      }
      details.addEventListener("toggle", () => {
        if (details.open) fillNumbers()
      })
      details.appendChild(wrap)
      if (open) {
        fillNumbers()
        details.open = true
      }
      box.appendChild(details)
    }

    function mark() {
      const [layer, head] = selected()
      for (const b of root.querySelectorAll("button[data-layer]")) {
        const on = Number(b.dataset.layer) === layer && Number(b.dataset.head) === head
        b.setAttribute("aria-pressed", on ? "true" : "false")
        b.tabIndex = on ? 0 : -1
      }
      detail()
    }

    function choose(layer, head, focus) {
      layer = Math.max(0, Math.min(layers - 1, layer))
      head = Math.max(0, Math.min(heads - 1, head))
      current = [layer, head]
      if (model.offline) {
        model.selected = [layer, head]
      } else {
        sent = { value: [layer, head], at: performance.now() }
        model.send_msg({ selected: [layer, head] })
      }
      mark()
      if (focus) {
        const b = root.querySelector(`button[data-layer="${layer}"][data-head="${head}"]`)
        if (b) b.focus()
      }
    }

    function draw() {
      const text = model.state_json
      root.innerHTML = ""
      if (!text) return
      state = JSON.parse(text)
      // Its texts in the view's language (a notebook shows views in several: C04.inLanguage).
      spec = C04.inLanguage(model.lang, () => renderGrid(state).grid)
      layers = state.scores.length
      heads = state.scores[0].length
      const n = state.pieces.length
      data = decode(state.weights, layers * heads * n * n)
      root.dataset.testid = "minilm-grid"
      // The image in one rule, parsed once: as a custom property each of the 72 tiles parsed
      // the data URL again (the export's first frame spent ~150 ms more on style at 4×).
      const sheet = document.createElement("style")
      sheet.textContent = `.c04-headgrid-tile { background-image: url(${sprite(data, layers * heads, n)}); }`
      root.appendChild(sheet)
      const scroll = document.createElement("div")
      scroll.className = "c04-headgrid-scroll"
      const table = document.createElement("table")
      table.className = "c04-headgrid-table"
      table.setAttribute("role", "grid")
      table.setAttribute("aria-label", spec.label)
      const head = document.createElement("tr")
      head.appendChild(document.createElement("td"))
      for (let h = 0; h < heads; h++) {
        const th = document.createElement("th")
        th.scope = "col"
        th.textContent = spec.head_labels[h]
        head.appendChild(th)
      }
      table.appendChild(head)
      for (let l = 0; l < layers; l++) {
        const tr = document.createElement("tr")
        const th = document.createElement("th")
        th.scope = "row"
        th.textContent = spec.layer_labels[l]
        tr.appendChild(th)
        for (let h = 0; h < heads; h++) {
          const td = document.createElement("td")
          const tile = spec.tiles[l][h]
          const b = document.createElement("button")
          b.type = "button"
          b.dataset.layer = String(l)
          b.dataset.head = String(h)
          b.dataset.testid = `minilm-tile-${l + 1}-${h + 1}`
          b.setAttribute("aria-label", tile.aria)
          b.title = tile.aria
          const picture = document.createElement("span")
          picture.className = "c04-headgrid-tile"
          picture.setAttribute("aria-hidden", "true")
          tileStyle(picture, l * heads + h, layers * heads)
          const small = document.createElement("span")
          small.setAttribute("aria-hidden", "true")
          small.textContent = tile.short
          b.append(picture, small)
          b.addEventListener("click", () => choose(l, h, false))
          td.appendChild(b)
          tr.appendChild(td)
        }
        table.appendChild(tr)
      }
      // Arrow keys move through the grid (one Tab stop for the 72 tiles), Home/End along a row.
      table.addEventListener("keydown", (event) => {
        const [l, h] = selected()
        const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] }
        if (event.key in moves) {
          choose(l + moves[event.key][0], h + moves[event.key][1], true)
        } else if (event.key === "Home") {
          choose(l, 0, true)
        } else if (event.key === "End") {
          choose(l, heads - 1, true)
        } else {
          return
        }
        event.preventDefault()
      })
      scroll.appendChild(table)
      root.appendChild(scroll)
      const box = document.createElement("div")
      box.className = "c04-headgrid-detail"
      box.dataset.testid = "minilm-detail"
      root.appendChild(box)
      mark()
    }

    model.on("state_json", draw)
    model.on("selected", follow)
    draw()
  }

  C04.views.minilm = { readState, render };
  C04.views.minilm_toy = { readState: readToyState, render: renderToy };
  C04.views.minilm_grid = { render: renderGrid, draw: drawGrid };
})();
