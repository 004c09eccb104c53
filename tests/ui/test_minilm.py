"""Browser: "Un modelo de verdad" (section "modelo", dashboards/demos/minilm.py) of the served
lecture.

The grid (C04.views.minilm_grid.draw, static/demos/minilm.js) draws MiniLM's 72 heads from the
numbers Python sends (``dashboards.demos.minilm.grid_numbers``): every tile's name, and the chosen
head in large (its title, what each piece looks at most, its measured shares), recomputed here from
the model's attention as the page rounds it. Moves: a click, the arrow keys and Home/End in the
grid, a sentence typed in «Frase» (one the model reads, one it refuses), «Ejemplo en inglés», a
lecture sentence, the sentence of «Varias cabezas»; then the English page. The address bar follows
the server's model. Every text comes from the catalogue (``attnmodel.i18n.text``) and the model.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel.i18n import Refusal, say, text
from attnmodel.minilm import (
    DEFAULT_SENTENCE,
    ENGLISH_SENTENCE,
    LECTURE_SENTENCES,
    MAX_WORDS,
    N_HEADS,
    N_LAYERS,
    MiniLMDemo,
)
from attnmodel.multihead import SENTENCES
from dashboards.sharing import links

from c04_testing import (
    expect_minilm_detail,
    expect_minilm_sentence,
    js_round,
    labelled_select,
    minilm_grid_texts,
    minilm_page_weights,
    minilm_tile,
    minilm_tiles,
    minilm_toy_titles,
)

pytestmark = pytest.mark.ui

SECTION = "modelo"
FIRST_LOAD_MS = 60_000  # the server reads the weights (~90 MB) the first time the section opens
# A sentence typed in «Frase»: test data, not a text of the page (a few words of several pieces).
TYPED_SENTENCE = "The students compute attention weights by hand"

# The data-testid of the element that has the focus, through every shadow root.
FOCUSED_JS = """() => {
  let el = document.activeElement;
  while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
  return el ? el.getAttribute('data-testid') : null;
}"""


def detail_title(page):
    return page.locator('[data-testid="minilm-detail-title"]')


def sentence_box(page, lang: str = "es"):
    return page.get_by_label(text("minilm.sentence", lang), exact=True)


def open_model(page, url: str, lang: str = "es"):
    page.goto(url)
    page.locator(f'[data-testid="section-{SECTION}"]').first.wait_for(state="attached")
    expect(minilm_tile(page, 1, 1)).to_be_attached(timeout=FIRST_LOAD_MS)
    return page


def test_the_grid_and_the_chosen_head_by_click_and_keyboard(page, watch, lecture_url):
    open_model(page, f"{lecture_url}?seccion={SECTION}")
    model = MiniLMDemo()
    tiles = page.locator('[data-testid^="minilm-tile-"]')
    expect(tiles).to_have_count(N_LAYERS * N_HEADS)
    expect_minilm_sentence(page, model.sentence)
    expect(page.locator('[data-testid="minilm-grid"] [role="grid"]')).to_have_attribute(
        "aria-label", text("minilm.grid.grid_label")
    )
    # The model's head at first: layer 1, head 3, the one that looks at the previous piece.
    assert (model.layer, model.head) == (0, 2)
    assert model.roles[0][2].role == "previous"
    expect_minilm_detail(page, model.sentence, 0, 2)

    # A click elsewhere, then back on layer 1, head 3.
    minilm_tile(page, 4, 7).click()
    expect_minilm_detail(page, model.sentence, 3, 6)
    expect(minilm_tile(page, 1, 3)).to_have_attribute("aria-pressed", "false")
    minilm_tile(page, 1, 3).click()
    expect_minilm_detail(page, model.sentence, 0, 2)

    # The keyboard: one Tab stop (the chosen tile), arrows through the grid, End along the row.
    expect(tiles.and_(page.locator('[tabindex="0"]'))).to_have_count(1)
    expect(minilm_tile(page, 1, 3)).to_have_attribute("tabindex", "0")
    labelled_select(page, text("minilm.examples")).focus()
    for _ in range(10):
        page.keyboard.press("Tab")
        if (page.evaluate(FOCUSED_JS) or "").startswith("minilm-tile-"):
            break
    assert page.evaluate(FOCUSED_JS) == "minilm-tile-1-3"
    for key, (layer, head) in (
        ("ArrowRight", (0, 3)),
        ("ArrowDown", (1, 3)),
        ("End", (1, N_HEADS - 1)),
        ("ArrowRight", (1, N_HEADS - 1)),  # the last head: it stays
        ("Home", (1, 0)),
        ("ArrowUp", (0, 0)),
        ("ArrowLeft", (0, 0)),  # the first head of the first layer: it stays
        ("ArrowDown", (1, 0)),
    ):
        page.keyboard.press(key)
        expect(minilm_tile(page, layer + 1, head + 1)).to_be_focused()
        expect(minilm_tile(page, layer + 1, head + 1)).to_have_attribute("tabindex", "0")
        expect_minilm_detail(page, model.sentence, layer, head)
    # Tab leaves the grid at once; Shift+Tab comes back to the chosen tile.
    page.keyboard.press("Tab")
    assert not (page.evaluate(FOCUSED_JS) or "").startswith("minilm-tile-")
    page.keyboard.press("Shift+Tab")
    expect(minilm_tile(page, 2, 1)).to_be_focused()

    # The folded numbers open and stay open when another head is chosen.
    numbers = page.locator('[data-testid="minilm-numbers"]')
    expect(numbers).to_be_hidden()
    page.get_by_text(text("minilm.grid.numbers_title")).click()
    expect(numbers).to_be_visible()
    corner = minilm_grid_texts(model.sentence)["query_key"]
    rows = numbers.locator("tr")
    expect(rows.first.locator("th")).to_have_text([corner, *model.pieces])
    for layer, head in ((1, 0), (5, 11)):
        if (layer, head) != (1, 0):
            minilm_tile(page, layer + 1, head + 1).click()
            expect_minilm_detail(page, model.sentence, layer, head)
        expect(numbers).to_be_visible()
        weights = minilm_page_weights(model.sentence, layer, head)
        expect(rows).to_have_count(len(model.pieces) + 1)
        for i in (1, len(model.pieces) // 2, len(model.pieces)):
            cells = [str(js_round(100 * w)) for w in weights[i - 1]]
            expect(rows.nth(i).locator("td")).to_have_text(cells)
    assert watch.console_errors == []
    assert watch.external == []


def test_a_typed_sentence_a_refused_one_and_the_english_example(page, watch, lecture_url):
    open_model(page, f"{lecture_url}?seccion={SECTION}")
    expect_minilm_sentence(page, DEFAULT_SENTENCE)
    error = page.locator('[data-testid="minilm-sentence-error"]')
    expect(error).to_have_count(0)
    box = sentence_box(page)
    expect(box).to_have_value(DEFAULT_SENTENCE)

    # A sentence the model reads: its pieces and its 72 heads; the head in large stays chosen.
    assert TYPED_SENTENCE not in LECTURE_SENTENCES
    box.fill(TYPED_SENTENCE)
    box.press("Enter")
    expect_minilm_sentence(page, TYPED_SENTENCE)
    expect_minilm_detail(page, TYPED_SENTENCE, 0, 2)
    assert MiniLMDemo(sentence=TYPED_SENTENCE).pieces != MiniLMDemo().pieces
    # The server's model has the sentence: the address it writes says so.
    link = links.encode({SECTION: MiniLMDemo(sentence=TYPED_SENTENCE)}, SECTION)
    page.wait_for_function("(link) => location.search === '?' + link", arg=link)

    # Too many words: refused, said, and the grid keeps the sentence before.
    too_long = " ".join([TYPED_SENTENCE.split()[1]] * (MAX_WORDS + 1))
    with pytest.raises(Refusal) as refused:
        MiniLMDemo(sentence=too_long)
    box.fill(too_long)
    box.press("Enter")
    expect(error).to_have_text(f"{say(refused.value)} {text('minilm.kept')}")
    expect_minilm_sentence(page, TYPED_SENTENCE)
    expect(detail_title(page)).to_have_text(
        minilm_grid_texts(TYPED_SENTENCE)["tiles"][0][2]["title"]
    )

    # «Ejemplo en inglés»: one click; the box and «Frases de la clase» say it, the error goes.
    page.get_by_role("button", name=text("minilm.english")).click()
    expect_minilm_sentence(page, ENGLISH_SENTENCE)
    expect_minilm_detail(page, ENGLISH_SENTENCE, 0, 2)
    expect(error).to_have_count(0)
    expect(box).to_have_value(ENGLISH_SENTENCE)
    expect(labelled_select(page, text("minilm.examples"))).to_have_value(ENGLISH_SENTENCE)
    link = links.encode({SECTION: MiniLMDemo(sentence=ENGLISH_SENTENCE)}, SECTION)
    page.wait_for_function("(link) => location.search === '?' + link", arg=link)

    # A sentence of the lecture, from its select.
    capital = LECTURE_SENTENCES[-1]
    labelled_select(page, text("minilm.examples")).select_option(label=capital)
    expect_minilm_sentence(page, capital)
    expect(box).to_have_value(capital)
    assert watch.console_errors == []
    assert watch.external == []


def test_the_toy_heads_beside_the_real_ones(page, watch, lecture_url):
    open_model(page, f"{lecture_url}?seccion={SECTION}")
    toy_select = labelled_select(page, text("minilm.toy.sentence"))
    expect(toy_select).to_have_value(SENTENCES[0])
    for sentence in (SENTENCES[0], SENTENCES[2]):
        if sentence != SENTENCES[0]:
            toy_select.select_option(label=sentence)
        rendered = minilm_toy_titles(sentence)
        for k in range(len(rendered) // 2):
            for kind in ("toy", "real"):
                caption = page.locator(f'[data-testid="minilm-{kind}-{k + 1}"] caption')
                expect(caption).to_have_text(rendered[f"{kind}_{k}"])
    assert minilm_toy_titles(SENTENCES[2])["real_0"] != minilm_toy_titles(SENTENCES[0])["real_0"]
    assert watch.console_errors == []
    assert watch.external == []


def test_english_page(page, watch, lecture_url):
    open_model(page, f"{lecture_url}?lang=en&seccion={SECTION}", "en")
    expect_minilm_sentence(page, DEFAULT_SENTENCE, "en")
    assert minilm_tiles(DEFAULT_SENTENCE, "en") != minilm_tiles(DEFAULT_SENTENCE, "es")
    expect_minilm_detail(page, DEFAULT_SENTENCE, 0, 2, "en")
    minilm_tile(page, 2, 5).click()
    expect_minilm_detail(page, DEFAULT_SENTENCE, 1, 4, "en")
    expect(page.get_by_role("button", name=text("minilm.english", "en"))).to_be_visible()
    expect(sentence_box(page, "en")).to_have_value(DEFAULT_SENTENCE)
    for key, tid in (("words", "minilm-words"), ("pieces", "minilm-pieces-count")):
        label = page.locator(f'[data-testid="{tid}"] .c04-label')
        expect(label).to_have_text(text(f"minilm.readout.{key}", "en"))
    assert watch.console_errors == []
