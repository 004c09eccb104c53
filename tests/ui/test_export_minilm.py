"""The exported "Un modelo de verdad" (modelo.html, opened from disk with the network cut off).

The export has no server and no weights: it embeds, under "minilm" in #c04-states, the model's
numbers (dashboards.demos.minilm.numbers) of every lecture sentence (``LECTURE_SENTENCES``: the
first Board's and the grid's) and of the four sentences of "Varias cabezas" (the toy Board's),
one table for every language; static/demos/minilm.js draws them as it draws the live page's, and
the grid (C04.views.minilm_grid.draw) draws the chosen head from its numbers, so a click or
an arrow key needs nothing else. Checked here: the shipped tables (es and en) equal the model;
the drawing of some states, es and en, shows the texts the model and the catalogue give
(computed here); and in the real exported file the default sentence, every lecture sentence
from «Frases de la clase», a tile by click and by keyboard, «Ejemplo en inglés», the disabled
free-text box and its note, the toy comparison; then the English file.
"""

from __future__ import annotations

import base64
import html
import json
import re

import numpy as np
import pytest
from playwright.sync_api import expect

from attnmodel.formatting import number
from attnmodel.i18n import text
from attnmodel.minilm import (
    DEFAULT_SENTENCE,
    ENGLISH_SENTENCE,
    HEAD_ROLES,
    LECTURE_SENTENCES,
    MAX_PIECES,
    N_HEADS,
    N_LAYERS,
    MiniLMDemo,
)
from attnmodel.multihead import SENTENCES
from dashboards.demos.minilm import numbers
from dashboards.export import lang_dir, unpacked_states

from c04_testing import (
    by_testid,
    drawn,
    expect_minilm_detail,
    expect_minilm_sentence,
    labelled_select,
    minilm_grid_texts,
    minilm_sentence_texts,
    minilm_tile,
    minilm_toy_titles,
    twin_html,
)

pytestmark = pytest.mark.ui

SECTION = "modelo"
FILE = f"{SECTION}.html"


def embedded_table(exported, lang: str) -> dict:
    """The "minilm" part of the states the exported file of ``lang`` embeds, as the page reads
    it."""
    page = (exported / lang_dir(lang) / FILE).read_text(encoding="utf-8")
    match = re.search(r'<script type="application/json" id="c04-states">(.*?)</script>', page, re.S)
    assert match is not None
    return unpacked_states(html.unescape(match.group(1)))["minilm"]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_shipped_tables_are_the_models(exported, lang):
    """Every embedded sentence and toy sentence: each number the model's, read here from its
    public outputs (the grid's weights to the four decimals it ships, the rest the same doubles)."""
    table = embedded_table(exported, lang)
    assert set(table["sentences"]) == set(LECTURE_SENTENCES)
    assert set(table["toys"]) == set(SENTENCES)
    for sentence, entry in table["sentences"].items():
        demo = MiniLMDemo(sentence=sentence)
        pieces = list(demo.pieces)
        assert entry["sentence"] == {
            "pieces": pieces,
            "words": len(sentence.split()),
            "max_pieces": MAX_PIECES,
        }, sentence
        grid = entry["grid"]
        assert set(grid) == {"pieces", "weights", "scores", "roles", "role"}
        assert grid["pieces"] == pieces
        n = len(pieces)
        raw = np.frombuffer(base64.b64decode(grid["weights"], validate=True), dtype="<u2")
        np.testing.assert_allclose(
            raw.reshape(N_LAYERS, N_HEADS, n, n) / 1e4, demo.attention, rtol=0, atol=0.5e-4 + 1e-9
        )
        assert grid["scores"] == np.asarray(demo.scores, dtype=float).tolist()
        assert grid["roles"] == list(HEAD_ROLES)
        assert [[grid["roles"][i] for i in layer] for layer in grid["role"]] == [
            [r.role for r in layer] for layer in demo.roles
        ]
    for toy_sentence, toy in table["toys"].items():
        matches = MiniLMDemo(toy_sentence=toy_sentence).toy_matches
        assert toy["words"] == toy_sentence.split()
        assert len(toy["matches"]) == len(matches) == 4
        for got, match in zip(toy["matches"], matches, strict=True):
            assert (got["relation"], got["layer"], got["head"]) == (
                match.relation,
                match.layer,
                match.head,
            )
            assert got["similarity"] == match.similarity
            assert got["toy"] == np.asarray(match.toy, dtype=float).tolist()
            assert got["real"] == np.asarray(match.real, dtype=float).tolist()
    # One table for every language: the numbers do not depend on it.
    assert table == embedded_table(exported, "es")


# A few states per language, drawn by minilm.js in a blank page with that language's catalogue.
CASES = [(DEFAULT_SENTENCE, SENTENCES[0]), (ENGLISH_SENTENCE, SENTENCES[2])]


def expected_tables(toy_sentence: str, lang: str) -> dict[str, str]:
    """Each toy and real table's text on screen: its caption, the words, each row's word and
    numbers, from the model and the catalogue."""
    titles = minilm_toy_titles(toy_sentence, lang)
    words = toy_sentence.split()
    texts = {}
    for k, match in enumerate(MiniLMDemo(toy_sentence=toy_sentence).toy_matches):
        for kind, weights in (("toy", match.toy), ("real", match.real)):
            rows = "".join(
                w + "".join(number(a, 2, lang=lang) for a in row)
                for w, row in zip(words, np.asarray(weights), strict=True)
            )
            texts[f"minilm-{kind}-{k + 1}"] = titles[f"{kind}_{k}"] + "".join(words) + rows
    return texts


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_drawing_shows_the_models_numbers(page, lang):
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_content(twin_html("minilm.js", lang=lang))
    states = [numbers(MiniLMDemo(sentence=s, toy_sentence=toy)) for s, toy in CASES]
    rendered = page.evaluate(
        """(states) => states.map((s) => ({
          sentence: C04.views.minilm.render(s.sentence),
          toy: C04.views.minilm_toy.render(s.toy),
          grid: C04.views.minilm_grid.render(s.grid).grid,
        }))""",
        json.loads(json.dumps(states)),
    )
    for (sentence, toy_sentence), js in zip(CASES, rendered, strict=True):
        first = js["sentence"]
        shown = by_testid(*drawn(page, ("readouts", first["readouts"]), ("note", first["pieces"])))
        want = minilm_sentence_texts(sentence, lang)
        pieces_unit = text("minilm.readout.pieces_unit", lang, max_pieces=MAX_PIECES)
        assert shown.texts == {
            "minilm-words": text("minilm.readout.words", lang) + want["minilm-words"],
            "minilm-pieces-count": text("minilm.readout.pieces", lang)
            + want["minilm-pieces-count"]
            + pieces_unit,
            "minilm-pieces": want["minilm-pieces"],
        }
        said = text(
            "a11y.announce.minilm",
            lang,
            pieces=want["minilm-pieces-count"],
            words=want["minilm-words"],
        )
        assert page.evaluate("(spec) => C04.markup.said(spec)", first["announce"]) == said
        grid = minilm_grid_texts(sentence, lang)
        for key in grid:
            assert js["grid"][key] == grid[key], (sentence, key)
        toy = js["toy"]
        shown = by_testid(*drawn(page, *(("matrix", toy[name]) for name in sorted(toy))))
        assert shown.texts == expected_tables(toy_sentence, lang), toy_sentence
        # The sentences of «Varias cabezas» stay Spanish: marked on a page in another language.
        word = toy_sentence.split()[0]
        assert toy["toy_0"]["cols"][0] == (word if lang == "es" else {"text": word, "lang": "es"})
    if lang == "en":  # a known value, with a decimal point: the English page's percentages
        assert rendered[0]["grid"]["tiles"][0][2]["short"] == "← 100%"
    assert errors == []


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
    pieces = {MiniLMDemo(sentence=s).pieces for s in LECTURE_SENTENCES}
    assert len(pieces) == len(LECTURE_SENTENCES)

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
        titles = minilm_toy_titles(sentence)
        for k in range(len(titles) // 2):
            for kind in ("toy", "real"):
                caption = page.locator(f'[data-testid="minilm-{kind}-{k + 1}"] caption')
                expect(caption).to_have_text(titles[f"{kind}_{k}"])
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
