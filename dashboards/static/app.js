/* The served lecture's own components (dashboards/app/): the navigation (navigation.py) and
 * «Para seguir jugando» (try_list.py). Served pages only: the export and a notebook have
 * neither (dashboards/components/scripts.py, LIVE_ONLY).
 */
(function (root) {
  "use strict";

  const C04 = (root.C04 = root.C04 || {});

  /** The sections' menu, its language links and the presenter's switches. */
  function navigation({ model, el }) {
    const nav = document.createElement("nav")
    nav.setAttribute("aria-label", model.label)
    // On a narrow screen (NAV_CSS) the menu folds behind one button, so that the section, not
    // the list of sections, fills a phone's first screen.
    const toggle = document.createElement("button")
    toggle.type = "button"
    toggle.className = "c04-nav-toggle"
    toggle.dataset.testid = "nav-toggle"
    toggle.setAttribute("aria-expanded", "false")
    toggle.setAttribute("aria-controls", "c04-nav-menu")
    const menu = document.createElement("div")
    menu.className = "c04-nav-menu"
    menu.id = "c04-nav-menu"
    const title = document.createElement("div")
    title.className = "c04-nav-title"
    const list = document.createElement("div")
    list.className = "c04-nav-list"
    const languages = document.createElement("div")
    const presenter = document.createElement("div")
    presenter.className = "c04-presenter"
    const notice = document.createElement("div")
    menu.append(title, list, languages, presenter)
    nav.append(toggle, menu, notice)
    el.append(nav)
    const folded = () => getComputedStyle(toggle).display !== "none"
    const open = (yes) => {
      toggle.setAttribute("aria-expanded", String(yes))
      menu.classList.toggle("c04-open", yes)
    }
    toggle.addEventListener("click", () => open(toggle.getAttribute("aria-expanded") !== "true"))
    menu.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && folded()) {
        open(false)
        toggle.focus()
      }
    })
    model.on("remove", C04.links.follow(model, notice))  // the page's address
    const caption = () => {
      const current = Object.entries(model.options).find(([, id]) => id === model.value)
      toggle.textContent = current ? `${model.heading}: ${current[0]}` : model.heading
    }
    const draw = () => {
      title.textContent = model.heading
      const focused = list.contains(el.getRootNode().activeElement)
        ? el.getRootNode().activeElement.dataset.section : null
      list.replaceChildren()
      for (const [label, id] of Object.entries(model.options)) {
        const button = document.createElement("button")
        button.type = "button"
        button.textContent = label
        button.dataset.section = id
        button.setAttribute("aria-current", String(id === model.value))
        button.addEventListener("click", () => {
          if (folded()) {  // the chosen section replaces the menu: focus stays on its button
            open(false)
            toggle.focus()
          }
          model.send_msg({ section: id })
        })
        list.append(button)
        if (id === focused) button.focus()
      }
      languages.innerHTML = model.languages
      caption()
    }
    const mark = () => {
      for (const button of list.children) {
        button.setAttribute("aria-current", String(button.dataset.section === model.value))
      }
      languages.innerHTML = model.languages
      caption()
    }
    model.on(["options", "heading"], draw)
    model.on(["value", "languages"], mark)
    draw()
    // present.js draws and runs the switches as for a presenter of its own; its keys come back
    // here as messages.
    const live = { labels: model.presenter, mode: "live", send_msg: (msg) => model.send_msg(msg) }
    const stop = C04.present.renderPresenter(live, presenter)
    model.on("remove", stop)
  }

  /** One button per exercise beside its text; a click is a message to the server. */
  function tryList({ model, el }) {
    const heading = document.createElement("div")
    heading.innerHTML = model.heading
    const rows = model.items.map((item, k) => {
      const row = document.createElement("div")
      row.className = `c04-try-row c04-exercise-${k + 1}`
      const button = document.createElement("button")
      button.type = "button"
      button.textContent = model.button_label
      button.addEventListener("click", () => model.send_msg({ exercise: k + 1 }))
      const bullet = document.createElement("div")
      bullet.innerHTML = item.html
      row.append(button, bullet)
      return row
    })
    const note = document.createElement("div")
    note.innerHTML = model.note
    el.append(heading, ...rows, note)
  }

  C04.app = { navigation, tryList };
})(typeof window !== "undefined" ? window : globalThis);
