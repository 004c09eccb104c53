"""Browser: «Frase» of «Un modelo de verdad» applies a typed sentence on leaving the box as well
as on Enter, and the page says so (issue 35, item 5).

The box's ``value`` is what the browser's ``change`` event sends (Enter or leaving the box);
the box always holds a sentence, so its placeholder is rarely seen: a note under it says when a
sentence applies.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel.i18n import text
from attnmodel.minilm import DEFAULT_SENTENCE, MiniLMDemo

from c04_testing import expect_minilm_detail, expect_minilm_sentence, minilm_tile

pytestmark = pytest.mark.ui

SECTION = "modelo"
FIRST_LOAD_MS = 60_000  # the server reads the weights (~90 MB) the first time the section opens
# Typed by the "student": test data, not a text of the page.
TYPED = "Attention lets every word look at the others"


@pytest.mark.parametrize("lang", ["es", "en"])
def test_a_sentence_typed_then_left_with_tab_applies_and_the_page_says_when(
    page, watch, lecture_url, lang
):
    page.goto(f"{lecture_url}?seccion={SECTION}&lang={lang}")
    expect(minilm_tile(page, 1, 1)).to_be_attached(timeout=FIRST_LOAD_MS)
    expect_minilm_sentence(page, DEFAULT_SENTENCE, lang)
    box = page.get_by_label(text("minilm.sentence", lang), exact=True)
    expect(page.locator('[data-testid="minilm-sentence-hint"]')).to_have_text(
        text("minilm.sentence_hint", lang)
    )
    expect(box).to_have_attribute("placeholder", text("minilm.placeholder", lang))

    # Typed key by key as a student does, then Tab: no Enter.
    assert MiniLMDemo(sentence=TYPED).pieces != MiniLMDemo().pieces
    box.click()
    box.press("ControlOrMeta+a")
    page.keyboard.type(TYPED)
    page.keyboard.press("Tab")
    expect(box).not_to_be_focused()
    expect_minilm_sentence(page, TYPED, lang)
    expect_minilm_detail(page, TYPED, 0, 2, lang)
    assert watch.console_errors == []
