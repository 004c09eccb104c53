"""The exported "Un modelo de verdad" (modelo.html, opened from disk with the network cut off).

The export has no server and no weights: it embeds, under "minilm" in #c04-states, Python's
``render_sentence`` of every lecture sentence (``LECTURE_SENTENCES``) and ``render_toy`` of the
four sentences of "Varias cabezas"; static/demos/minilm.js only looks them up, and the grid
(dashboards/demos/head_grid.mjs) draws the chosen head from the numbers in its spec, so a click
or an arrow key needs nothing else. Checked here in the real exported file: the default
sentence, every lecture sentence from «Frases de la clase», a tile by click and by keyboard,
«Ejemplo en inglés», the disabled free-text box and its note, the toy comparison; then the
English file. Every text comes from the catalogue or from the section's renders.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel.i18n import text
from attnmodel.minilm import (
    DEFAULT_SENTENCE,
    ENGLISH_SENTENCE,
    LECTURE_SENTENCES,
    N_HEADS,
    N_LAYERS,
)
from attnmodel.multihead import SENTENCES
from dashboards.demos.minilm import grid_spec, render_toy
from dashboards.export import lang_dir

from c04_testing import (
    expect_minilm_detail,
    expect_minilm_sentence,
    label_text,
    labelled_select,
    minilm_tile,
)

pytestmark = pytest.mark.ui

SECTION = "modelo"
FILE = f"{SECTION}.html"


def test_exported_section_offline(page, offline, open_export):
    open_export(FILE, SECTION)
    # Free text needs the live server: the box is disabled and the note says why.
    note = page.locator('[data-testid="minilm-export-note"]')
    expect(note).to_be_visible()
    expect(note).to_have_text(text("minilm.export_note"))
    box = page.get_by_label(text("minilm.sentence"), exact=True)
    expect(box).to_be_disabled()
    expect(box).to_have_value(DEFAULT_SENTENCE)
    examples = labelled_select(page, text("minilm.examples"))
    expect(examples).to_be_enabled()
    expect(examples).to_have_value(DEFAULT_SENTENCE)
    expect(page.locator('[data-testid^="minilm-tile-"]')).to_have_count(N_LAYERS * N_HEADS)
    expect_minilm_sentence(page, DEFAULT_SENTENCE)
    expect_minilm_detail(page, DEFAULT_SENTENCE, 0, 2)

    # Every sentence of the lecture, from the select (and back to the first).
    assert LECTURE_SENTENCES[0] == DEFAULT_SENTENCE
    for sentence in (*LECTURE_SENTENCES[1:], DEFAULT_SENTENCE):
        examples.select_option(label=sentence)
        expect_minilm_sentence(page, sentence)
        expect(box).to_have_value(sentence)
        # The chosen head stays chosen, drawn from the new sentence's numbers.
        expect_minilm_detail(page, sentence, 0, 2)
    assert len({tuple(grid_spec(s)["pieces"]) for s in LECTURE_SENTENCES}) == len(LECTURE_SENTENCES)

    # A click and the keyboard choose a head: no server needed.
    minilm_tile(page, 3, 5).click()
    expect_minilm_detail(page, DEFAULT_SENTENCE, 2, 4)
    minilm_tile(page, 3, 5).focus()
    for key, (layer, head) in (("ArrowDown", (3, 4)), ("End", (3, N_HEADS - 1))):
        page.keyboard.press(key)
        expect(minilm_tile(page, layer + 1, head + 1)).to_be_focused()
        expect_minilm_detail(page, DEFAULT_SENTENCE, layer, head)

    # «Ejemplo en inglés»: one click picks the embedded English sentence.
    english = page.get_by_role("button", name=text("minilm.english"))
    expect(english).to_be_enabled()
    english.click()
    expect(examples).to_have_value(ENGLISH_SENTENCE)
    expect_minilm_sentence(page, ENGLISH_SENTENCE)
    expect(box).to_have_value(ENGLISH_SENTENCE)
    expect_minilm_detail(page, ENGLISH_SENTENCE, 3, N_HEADS - 1)
    expect(box).to_be_disabled()
    assert offline.external == []
    assert offline.console_errors == []


def test_exported_toy_comparison_offline(page, offline, open_export):
    open_export(FILE, SECTION)
    toy_select = labelled_select(page, text("minilm.toy.sentence"))
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
    expect_minilm_sentence(page, DEFAULT_SENTENCE)
    assert offline.external == []
    assert offline.console_errors == []


def test_exported_english_file_offline(page, offline, open_export):
    open_export(f"{lang_dir('en')}{FILE}", SECTION)
    note = page.locator('[data-testid="minilm-export-note"]')
    expect(note).to_have_text(text("minilm.export_note", "en"))
    expect(page.get_by_label(text("minilm.sentence", "en"), exact=True)).to_be_disabled()
    # The lecture's sentences stay Spanish: each select says so, its label (English) not.
    for label in ("minilm.examples", "minilm.toy.sentence"):
        select = labelled_select(page, text(label, "en"))
        expect(select).to_have_attribute("lang", "es")
        expect(page.locator(f'label:has-text("{text(label, "en")}")')).not_to_have_attribute(
            "lang", "es"
        )
    expect_minilm_sentence(page, DEFAULT_SENTENCE, "en")
    expect_minilm_detail(page, DEFAULT_SENTENCE, 0, 2, "en")
    page.get_by_role("button", name=text("minilm.english", "en")).click()
    expect_minilm_sentence(page, ENGLISH_SENTENCE, "en")
    minilm_tile(page, 2, 2).click()
    expect_minilm_detail(page, ENGLISH_SENTENCE, 1, 1, "en")
    assert offline.external == []
    assert offline.console_errors == []
