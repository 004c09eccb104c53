"""The exported "Un modelo de verdad" (modelo.html, opened from disk with the network cut off).

The export has no server and no weights: it embeds, under "minilm" in #c04-states, Python's
``render_sentence`` of every lecture sentence (``LECTURE_SENTENCES``) and ``render_toy`` of the
four sentences of "Varias cabezas"; dashboards/static/minilm.js only looks them up, and the grid
(dashboards/static/head_grid.mjs) draws the chosen head from the numbers in its spec, so a click
or an arrow key needs nothing else. Checked here in the real exported file: the default
sentence, every lecture sentence from «Frases de la clase», a tile by click and by keyboard,
«Ejemplo en inglés», the disabled free-text box and its note, the toy comparison; then the
English file. Every text comes from the catalogue or from the section's renders.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel.i18n import text
from attnmodel.minilm import (
    DEFAULT_SENTENCE,
    ENGLISH_SENTENCE,
    LECTURE_SENTENCES,
    N_HEADS,
    N_LAYERS,
    MiniLMDemo,
)
from attnmodel.multihead import SENTENCES
from dashboards.export import lang_dir
from dashboards.minilm import grid_spec, render_sentence, render_toy

from c04_testing import label_text, readout, spec_find

pytestmark = pytest.mark.ui

SECTION = "modelo"
FILE = f"{SECTION}.html"

# Every tile of the grid, through the shadow roots: data-testid → aria-label.
TILES_JS = """() => {
  const out = {};
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const tid = el.getAttribute('data-testid');
      if (tid && tid.startsWith('minilm-tile-')) out[tid] = el.getAttribute('aria-label');
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return out;
}"""
TILES_ARE_JS = f"""(want) => {{
  const got = ({TILES_JS})();
  const keys = Object.keys(want);
  return Object.keys(got).length === keys.length && keys.every((k) => got[k] === want[k]);
}}"""


def tile(page, layer: int, head: int):
    """The tile of ``layer``, ``head`` (1-based, as its data-testid)."""
    return page.locator(f'[data-testid="minilm-tile-{layer}-{head}"]')


def select(page, label: str):
    return page.locator(".bk-input-group", has_text=label).locator("select")


def expect_tiles(page, sentence: str, lang: str = "es", timeout: float = 15_000) -> None:
    """Wait until the 72 tiles carry the names grid_spec gives ``sentence`` (one evaluation of
    all of them per try); on failure, say which differ."""
    tiles = grid_spec(sentence, lang)["tiles"]
    want = {
        f"minilm-tile-{la + 1}-{h + 1}": tiles[la][h]["aria"]
        for la in range(N_LAYERS)
        for h in range(N_HEADS)
    }
    try:
        page.wait_for_function(TILES_ARE_JS, arg=want, timeout=timeout)
    except Exception:
        got = page.evaluate(TILES_JS)
        differ = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
        extra = sorted(set(got) - set(want))
        pytest.fail(f"{sentence!r} ({lang}): {len(differ)} tiles differ {differ}, extra {extra}")


def expect_sentence(page, sentence: str, lang: str = "es") -> None:
    """The pieces line, both readouts and every tile show Python's render of ``sentence``."""
    rendered = render_sentence(sentence, lang)
    pieces = page.locator('[data-testid="minilm-pieces"]')
    expect(pieces).to_have_text(label_text(rendered["pieces"]["text"]))
    for tid in ("minilm-words", "minilm-pieces-count"):
        value = label_text(spec_find(rendered["readouts"], tid)["value"])
        expect(readout(page, tid)).to_have_text(value)
    expect_tiles(page, sentence, lang)


def expected_top(sentence: str, layer: int, head: int, lang: str = "es") -> list[str]:
    """What each piece looks at most, as head_grid.mjs lists it: on the 4-decimal weights the
    page decodes, the first largest key and Math.round (halves up) of its percentage."""
    state = MiniLMDemo(sentence=sentence).state
    weights = np.round(np.asarray(state.attention[layer, head], dtype=np.float64) * 1e4) / 1e4
    items = []
    for i, row in enumerate(weights):
        best = int(np.argmax(row))  # the first of equal largest, as the page's strict >
        share = text("format.percent", lang, value=math.floor(100 * row[best] + 0.5))
        pieces = state.pieces
        items.append(
            text("minilm.grid.top_item", lang, query=pieces[i], key=pieces[best], share=share)
        )
    return items


def expect_detail(page, sentence: str, layer: int, head: int, lang: str = "es") -> None:
    """The head ``layer``, ``head`` (0-based) of ``sentence`` is the chosen one, in large."""
    spec = grid_spec(sentence, lang)
    expect(tile(page, layer + 1, head + 1)).to_have_attribute("aria-pressed", "true")
    expect(page.locator('[data-testid^="minilm-tile-"][aria-pressed="true"]')).to_have_count(1)
    expect(page.locator('[data-testid="minilm-detail-title"]')).to_have_text(
        spec["tiles"][layer][head]["title"]
    )
    scores = page.locator('[data-testid="minilm-scores"]')
    expect(scores.locator("th")).to_have_text(spec["role_names"])
    expect(scores.locator("td")).to_have_text(spec["scores"][layer][head])
    top = page.locator('[data-testid="minilm-top"] li')
    expect(top).to_have_text(expected_top(sentence, layer, head, lang))


def test_exported_section_offline(page, offline, open_export):
    open_export(FILE, SECTION)
    # Free text needs the live server: the box is disabled and the note says why.
    note = page.locator('[data-testid="minilm-export-note"]')
    expect(note).to_be_visible()
    expect(note).to_have_text(text("minilm.export_note"))
    box = page.get_by_label(text("minilm.sentence"), exact=True)
    expect(box).to_be_disabled()
    expect(box).to_have_value(DEFAULT_SENTENCE)
    examples = select(page, text("minilm.examples"))
    expect(examples).to_be_enabled()
    expect(examples).to_have_value(DEFAULT_SENTENCE)
    expect(page.locator('[data-testid^="minilm-tile-"]')).to_have_count(N_LAYERS * N_HEADS)
    expect_sentence(page, DEFAULT_SENTENCE)
    expect_detail(page, DEFAULT_SENTENCE, 0, 2)

    # Every sentence of the lecture, from the select (and back to the first).
    assert LECTURE_SENTENCES[0] == DEFAULT_SENTENCE
    for sentence in (*LECTURE_SENTENCES[1:], DEFAULT_SENTENCE):
        examples.select_option(label=sentence)
        expect_sentence(page, sentence)
        expect(box).to_have_value(sentence)
        # The chosen head stays chosen, drawn from the new sentence's numbers.
        expect_detail(page, sentence, 0, 2)
    assert len({tuple(grid_spec(s)["pieces"]) for s in LECTURE_SENTENCES}) == len(LECTURE_SENTENCES)

    # A click and the keyboard choose a head: no server needed.
    tile(page, 3, 5).click()
    expect_detail(page, DEFAULT_SENTENCE, 2, 4)
    tile(page, 3, 5).focus()
    for key, (layer, head) in (("ArrowDown", (3, 4)), ("End", (3, N_HEADS - 1))):
        page.keyboard.press(key)
        expect(tile(page, layer + 1, head + 1)).to_be_focused()
        expect_detail(page, DEFAULT_SENTENCE, layer, head)

    # «Ejemplo en inglés»: one click picks the embedded English sentence.
    english = page.get_by_role("button", name=text("minilm.english"))
    expect(english).to_be_enabled()
    english.click()
    expect(examples).to_have_value(ENGLISH_SENTENCE)
    expect_sentence(page, ENGLISH_SENTENCE)
    expect(box).to_have_value(ENGLISH_SENTENCE)
    expect_detail(page, ENGLISH_SENTENCE, 3, N_HEADS - 1)
    expect(box).to_be_disabled()
    assert offline.external == []
    assert offline.console_errors == []


def test_exported_toy_comparison_offline(page, offline, open_export):
    open_export(FILE, SECTION)
    toy_select = select(page, text("minilm.toy.sentence"))
    expect(toy_select).to_have_value(SENTENCES[0])
    for sentence in (SENTENCES[0], *SENTENCES[1:], SENTENCES[0]):
        if sentence != toy_select.input_value():
            toy_select.select_option(label=sentence)
        rendered = render_toy(sentence)
        for k in range(len(rendered) // 2):
            for kind in ("toy", "real"):
                caption = page.locator(f'[data-testid="minilm-{kind}-{k + 1}"] caption')
                expect(caption).to_have_text(label_text(rendered[f"{kind}_{k}"]["title"]))
    # The sentence's grid does not move with the toy sentence.
    expect_sentence(page, DEFAULT_SENTENCE)
    assert offline.external == []
    assert offline.console_errors == []


def test_exported_english_file_offline(page, offline, open_export):
    open_export(f"{lang_dir('en')}{FILE}", SECTION)
    note = page.locator('[data-testid="minilm-export-note"]')
    expect(note).to_have_text(text("minilm.export_note", "en"))
    expect(page.get_by_label(text("minilm.sentence", "en"), exact=True)).to_be_disabled()
    expect_sentence(page, DEFAULT_SENTENCE, "en")
    expect_detail(page, DEFAULT_SENTENCE, 0, 2, "en")
    page.get_by_role("button", name=text("minilm.english", "en")).click()
    expect_sentence(page, ENGLISH_SENTENCE, "en")
    tile(page, 2, 2).click()
    expect_detail(page, ENGLISH_SENTENCE, 1, 1, "en")
    assert offline.external == []
    assert offline.console_errors == []
