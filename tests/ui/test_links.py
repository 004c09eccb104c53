"""Every state in the link, in Chromium: live (the query, dashboards/sharing/live_link.py) and in
the offline export (the fragment, dashboards/static/links.js).

- A control changed by hand writes the address; that address opened in a new page of another
  browser context shows the same text in every data-testid element (every demo, live and
  exported).
- A link built by Python opens, live and exported, to the state Python's models have, and the
  page's own link is Python's (the two codecs agree).
- A hostile link per demo opens a valid state, says what it ignored, injects nothing.
- Back/forward step through the changes; "Copiar enlace" copies the page's link.
"""

from __future__ import annotations

import contextlib
import re
import time
from urllib.parse import unquote_plus

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from attnmodel.i18n import text
from dashboards.app.lecture import SECTIONS
from dashboards.demos import registry
from dashboards.sharing import links

from c04_testing import OFFLINE_PREFIXES, PageWatch, country_select, press_slider

pytestmark = pytest.mark.ui

SECTION_OF = {d: s.id for s in SECTIONS for d in s.demos}
LABELS = {s.id: s.label() for s in SECTIONS}

# Every data-testid element's text, through the shadow roots (the link's own elements aside).
TEXTS_JS = """() => {
  const out = {};
  const walk = (node) => {
    if (node.nodeType === Node.ELEMENT_NODE) {
      const id = node.getAttribute("data-testid");
      // The exercises' marks are the student's browser's progress, not the link's state.
      const mine = ["link-", "copy-link", "section-", "exercise-"];
      const own = mine.some((p) => id && id.startsWith(p));
      if (id && !own) {
        out[id] = (out[id] ? out[id] + " | " : "") + node.innerText;
      }
      if (node.shadowRoot) walk(node.shadowRoot);
    }
    for (const child of node.childNodes) walk(child);
  };
  walk(document);
  return out;
}"""


def settled(page, timeout: float = 15.0) -> dict[str, str]:
    """The texts once three reads 150 ms apart agree."""
    deadline = time.monotonic() + timeout
    reads: list[dict] = []
    while True:
        reads = [*reads[-2:], page.evaluate(TEXTS_JS)]
        if len(reads) == 3 and reads[0] == reads[1] == reads[2] and reads[-1]:
            return reads[-1]
        if time.monotonic() > deadline:
            return reads[-1]
        page.wait_for_timeout(150)


def shows(page, expected: dict[str, str], where: str = "", timeout: float = 15_000) -> None:
    """The page comes to show ``expected`` (a read of ``settled``'s): waited for, then asserted
    (the assertion shows the difference when it never does)."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(
            f"(expected) => {{ const now = ({TEXTS_JS})(), keys = Object.keys(now);"
            " return keys.length === Object.keys(expected).length"
            " && keys.every((k) => now[k] === expected[k]); }",
            arg=expected,
            timeout=timeout,
        )
    assert page.evaluate(TEXTS_JS) == expected, where


def _click_causal(page, lang):
    page.locator(".sa-causal input").click()


def _d_k_down(page, lang):
    press_slider(page, text("scaling.d_k_slider", lang), "ArrowLeft")


def _two_heads(page, lang):
    page.locator(".mh-heads-control button", has_text="2").click()


def _d_model_down(page, lang):
    press_slider(page, text("positional.d_slider", lang), "ArrowLeft")


def _italy(page, lang):
    country_select(page, lang).select_option(label=text("capital.country_name.Italia", lang))


def _first_token(page, lang):
    tokens = page.get_by_role("group", name=text("explorer.focus_label", lang))
    tokens.get_by_role("button").first.click()


# One change by hand per demo.
ACTIONS = {
    "autoatencion": _click_causal,
    "escalado": _d_k_down,
    "cabezas": _two_heads,
    "posicion": _d_model_down,
    "capital": _italy,
    "explorador": _first_token,
}


@pytest.fixture(scope="module")
def _second_context(browser, browser_context_args):
    """A second browser context, shared by this module's tests (see ``elsewhere``). Its clock
    is Playwright's, flowing as the real one until a test moves it."""
    context = browser.new_context(**browser_context_args)
    context.clock.install()
    yield context
    context.close()


@pytest.fixture
def elsewhere(_second_context):
    """``fresh, fresh_watch = elsewhere(prefixes)``: a new page in the second browser context,
    where an address is opened as another browser would open it, closed after the test. Nothing
    of a state is kept in the browser: the exercises' marks in localStorage (which TEXTS_JS
    leaves out) and class mode's voter id in sessionStorage (one per tab) are all the lecture
    stores, so a new page there reads only its address, as a new context would; the context's
    HTTP cache keeps the bundles from test to test."""
    pages = []

    def _open(prefixes=None):
        fresh = _second_context.new_page()
        pages.append(fresh)
        return fresh, PageWatch(fresh, prefixes) if prefixes else PageWatch(fresh)

    yield _open
    for fresh in pages:
        if not fresh.is_closed():
            fresh.close()


def _live_ready(page, section: str = ""):
    """The live page's link code has run and the address names ``section`` (any, by default)."""
    page.wait_for_function(
        "(s) => window.C04 && C04.links && location.search.includes('seccion=' + s)", arg=section
    )


def _export_ready(page):
    # A wait, not a measure (the bench times the export): clase04.html, every section drawn and
    # a link applied, took 11-17 s on an idle 2-core box and went past 30 s under `make test`.
    page.wait_for_function("() => window.C04 && C04.links && C04.links.ready", timeout=90_000)


def test_a_change_by_hand_is_in_the_address_and_opens_the_same_numbers_live(
    page, watch, lecture_url, elsewhere
):
    """Every demo in turn in one session, reached by the lecture's own navigation: a change by
    hand writes the address, and that address opened in a new page (of the second context)
    shows the same text. The address keeps the earlier demos' changes, so each new page also
    opens those."""
    page.goto(f"{lecture_url}?seccion={SECTION_OF[next(iter(ACTIONS))]}")
    for demo_id, act in ACTIONS.items():
        section = SECTION_OF[demo_id]
        if f"seccion={section}" not in page.url:
            page.get_by_role("button", name=LABELS[section], exact=True).click()
        page.locator(f'[data-testid="section-{demo_id}"]').first.wait_for(state="attached")
        _live_ready(page, section)
        before = settled(page)
        act(page, "es")
        page.wait_for_function(f"() => location.search.includes('{demo_id}.')")
        after = settled(page)
        assert after != before, demo_id
        address = page.url
        assert f"seccion={section}" in address

        fresh, fresh_watch = elsewhere()
        fresh.goto(address)
        fresh.locator(f'[data-testid="section-{demo_id}"]').first.wait_for(state="attached")
        _live_ready(fresh, section)
        shows(fresh, after, demo_id)
        assert fresh.url == address
        assert fresh.locator('[data-testid="link-notice"]').count() == 0, demo_id
        assert fresh_watch.console_errors == [], demo_id
        fresh.close()
    assert watch.console_errors == []


@pytest.mark.parametrize("demo_id", ACTIONS)
def test_a_change_by_hand_is_in_the_fragment_and_opens_the_same_numbers_offline(
    demo_id, page, offline, open_export, elsewhere
):
    """In English (the live test is in Spanish): the export's pages of each language."""
    open_export(f"en/{SECTION_OF[demo_id]}.html", demo_id)
    _export_ready(page)
    before = settled(page)
    ACTIONS[demo_id](page, "en")
    page.wait_for_function(f"() => location.hash.includes('{demo_id}.')")
    after = settled(page)
    assert after != before
    address = page.url

    fresh, fresh_watch = elsewhere(OFFLINE_PREFIXES)
    fresh.goto(address)
    _export_ready(fresh)
    shows(fresh, after)
    assert fresh.url == address
    assert fresh_watch.console_errors == []
    assert fresh_watch.external == []
    assert offline.console_errors == []
    assert offline.external == []


# Every demo off its defaults, every value one the export offers too.
EVERYTHING = {
    "autoatencion": {"X": [[1, 2], [3, 4], [5, 6]], "causal": True},
    "escalado": {"d_k": 16, "seed": 3},
    "cabezas": {"n_heads": 2},
    "posicion": {"d_model": 32},
    "capital": {"country": "Italia", "identity": 0.25},
    "explorador": {"sentence": "Hola mundo hola", "focus": 2, "temperature": 0.5},
}


def python_link(section: str | None) -> str:
    models = {d.id: d.model_class()() for d in registry.DEMOS}
    for demo_id, values in EVERYTHING.items():
        models[demo_id].param.update(**values)
    return links.encode(models, section)


def _same_link(a: str, b: str) -> None:
    assert sorted(map(unquote_plus, a.split("&"))) == sorted(map(unquote_plus, b.split("&")))


def test_python_s_link_opens_the_same_state_live_and_offline(
    page, watch, lecture_url, exported, elsewhere
):
    """Every demo changed at once: the live lecture and the exported one read Python's link
    and write it back (the JS codec agrees with Python's), and both show the same text."""
    link = python_link("explorador")
    page.goto(f"{lecture_url}?{link}")
    page.locator('[data-testid="section-explorador"]').first.wait_for(state="attached")
    _live_ready(page)
    live = settled(page)
    _same_link(page.url.split("?", 1)[1], link)

    offline_page, offline_watch = elsewhere(OFFLINE_PREFIXES)
    offline_page.goto((exported / "clase04.html").as_uri() + "#" + link)
    _export_ready(offline_page)
    _same_link(offline_page.url.split("#", 1)[1], link)
    exported_texts = settled(offline_page)
    # The explorer's section, in both: the same text.
    explorer = {k: v for k, v in live.items() if k.startswith("explorer")}
    assert explorer
    assert {k: exported_texts[k] for k in explorer} == explorer
    assert offline_watch.console_errors == []
    assert offline_watch.external == []
    assert watch.console_errors == []


# A hostile link per demo: refused values, an unknown key with markup, a 10 000-character value.
HOSTILE = {
    "autoatencion": "autoatencion.causal=2&autoatencion.preset=%3Cscript%3Ealert(1)%3C/script%3E",
    "escalado": "escalado.d_k=5000&escalado.seed=-1",
    "cabezas": "cabezas.n_heads=7&cabezas.sentence=%3Cimg%20src=x%20onerror=alert(1)%3E",
    "posicion": "posicion.d_model=33&posicion.n_positions=NaN",
    "capital": "capital.country=Atl%C3%A1ntida&capital.identity=Infinity",
    "explorador": "explorador.sentence=" + "a" * 10_000 + "&explorador.temperature=99",
    "siguiente": "siguiente.prompt=%3C%2Fscript%3E" + "x" * 400 + "&siguiente.top_k=500"
    "&siguiente.length=99",
}
JUNK = "&%3Cimg%20src%3Dx%20onerror%3Dalert(2)%3E=1"


# The text of every script the browser would run (no type, or a JavaScript or module type),
# in the document and in every shadow root.
SCRIPTS_JS = """() => {
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (el.tagName === "SCRIPT" && (!type || type.includes("javascript") || type === "module"))
        out.push(el.textContent);
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return out;
}"""


def _hostile_checks(page, demo_id: str, lang: str, watch) -> None:
    notice = page.locator('[data-testid="link-notice"]')
    notice.wait_for(timeout=15_000)
    said = notice.inner_text()
    assert said.startswith(text("links.notice", lang, items="|").split("|")[0])
    for key in HOSTILE[demo_id].split("&"):
        assert f"«{key.split('=')[0]}»" in said
    assert "<img src=x onerror=alert(2)>" in said  # as text
    assert page.locator("img[src=x]").count() == 0
    # No script holds the link's payloads (the bundles hold other alert( calls).
    assert [t for t in page.evaluate(SCRIPTS_JS) if "alert(1)" in t or "alert(2)" in t] == []
    assert watch.dialogs == []
    assert watch.console_errors == []


@pytest.mark.parametrize("demo_id", HOSTILE)
def test_a_hostile_link_opens_a_valid_state_and_says_what_it_ignored_live(
    demo_id, page, watch, server
):
    module = registry.demo(demo_id).module
    page.goto(f"{server['base']}/{module}?{HOSTILE[demo_id]}{JUNK}")
    _hostile_checks(page, demo_id, "es", watch)
    # The address is the state shown: the defaults (nothing of the link was valid).
    page.wait_for_function("() => location.search === ''")


@pytest.mark.parametrize("demo_id", HOSTILE)
def test_a_hostile_link_opens_a_valid_state_and_says_what_it_ignored_offline(
    demo_id, page, offline, exported
):
    filename = f"en/{SECTION_OF[demo_id]}.html"
    page.goto((exported / filename).as_uri() + "#" + HOSTILE[demo_id] + JUNK)
    _export_ready(page)
    _hostile_checks(page, demo_id, "en", offline)
    assert page.evaluate("location.hash") == ""
    assert offline.external == []


def test_back_and_forward_step_through_the_changes_live(elsewhere, lecture_url):
    """In the module's second context, whose clock is Playwright's: the second change comes
    more than links.js's BURST_MS after the first by moving the clock, not by waiting."""
    page, watch = elsewhere()
    page.goto(f"{lecture_url}?seccion=autoatencion")
    page.locator('[data-testid="section-autoatencion"]').first.wait_for(state="attached")
    _live_ready(page)
    start = settled(page)
    page.locator(".sa-causal input").click()
    page.wait_for_function("() => location.search.includes('causal=1')")
    causal = settled(page)
    # A slider dragged through several values is one step back, not several; a change more
    # than BURST_MS (1 s) after the last one is a step of its own.
    page.clock.fast_forward(1200)
    press_slider(page, text("scaling.d_k_slider"), "ArrowLeft", "ArrowLeft", "ArrowLeft")
    page.wait_for_function("() => location.search.includes('d_k=8')")
    both = settled(page)
    page.go_back()
    page.wait_for_function("() => !location.search.includes('d_k=')")
    shows(page, causal)
    page.go_back()
    page.wait_for_function("() => !location.search.includes('causal=1')")
    shows(page, start)
    page.go_forward()
    page.go_forward()
    page.wait_for_function("() => location.search.includes('d_k=8')")
    shows(page, both)
    assert watch.console_errors == []


def test_back_and_forward_step_through_the_changes_offline(page, offline, open_export):
    open_export("capital.html", "capital")
    _export_ready(page)
    start = settled(page)
    country_select(page).select_option("Italia")
    page.wait_for_function("() => location.hash.includes('Italia')")
    italy = settled(page)
    page.go_back()
    page.wait_for_function("() => !location.hash.includes('Italia')")
    shows(page, start)
    page.go_forward()
    page.wait_for_function("() => location.hash.includes('Italia')")
    shows(page, italy)
    assert offline.console_errors == []


def test_copy_link_copies_the_address_of_its_demo_s_section(page, watch, lecture_url):
    page.goto(f"{lecture_url}?seccion=capital&capital.identity=0")
    page.locator('[data-testid="section-capital"]').first.wait_for(state="attached")
    _live_ready(page)
    page.locator('[data-testid="copy-link"]').first.click()
    page.wait_for_function("() => C04.links.lastCopied !== null")
    copied = page.evaluate("C04.links.lastCopied")
    assert copied == page.url
    # The clipboard, or (where the browser refuses it) the link shown selected to copy: the
    # status says which once the clipboard has answered (lastCopied is set before it does).
    status = page.locator(".c04-link-status").first
    outcomes = (text("links.copied"), text("links.copy_manual"))
    expect(status).to_have_text(re.compile("|".join(re.escape(o) for o in outcomes)))
    if status.inner_text() == text("links.copy_manual"):
        assert page.locator('[data-testid="copy-link-text"]').input_value() == copied
    assert watch.console_errors == []


def test_copy_link_in_the_whole_exported_lecture_names_its_section(page, offline, open_export):
    open_export("clase04.html", "capital")
    _export_ready(page)
    page.locator('[data-testid="copy-link"]').nth(3).click()  # the fourth demo: posición
    page.wait_for_function("() => C04.links.lastCopied !== null")
    copied = page.evaluate("C04.links.lastCopied")
    assert copied.endswith("clase04.html#seccion=posicion")
    assert offline.console_errors == []
