"""«La siguiente palabra» (section ``siguiente``) in the served lecture, in a real Chromium.

One page load, the student's way through the section: the next token's bars, readouts and
the model's own probabilities after "The capital of France is" at the defaults; the
temperature moved with the keyboard; "Generar un token" pressed with the keyboard and the
step chosen back; the induction head's button; refused texts. Every expected text is computed
here (tests/next_word_testing.py) from the model's raw logits and attention, its own sampler
(``SmolLM2.sample``, over the whole vocabulary) and the catalogue.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel import smollm
from attnmodel.formatting import number
from attnmodel.i18n import text

from next_word_testing import (
    PROMPT,
    SECTION,
    button,
    expect_shows,
    expected_bars,
    heads_text,
    ids_of,
    map_texts,
    pct,
    press_range,
    probability_of,
    repeated_heads,
    sampled,
    snapshot,
    t,
    text_line,
    visible,
)

pytestmark = pytest.mark.ui


@pytest.fixture
def section(page, watch, open_lecture_section):
    open_lecture_section(SECTION)
    page.locator('[data-testid="next-word-bars"]').wait_for(timeout=60_000)
    return page


def test_the_next_word_section_live(section, watch):
    page = section
    ids = ids_of()
    expect(page.get_by_text(text("demo.siguiente")).first).to_be_visible()

    # The defaults: T 1, top-k 50, top-p 1; nothing generated yet.
    defaults = expected_bars(ids)
    # A known row, to see the computation here is the one meant (the numbers).
    assert defaults["bars"][0] == ["\u2423Paris", "81,1 %", "77,3 %"]
    expect_shows(
        page,
        {
            **defaults,
            "text": text_line(PROMPT, [], t("nothing")),
            "step": t("step_note_prompt"),
            "steps": [[t("after_text"), True]],
            "temperature": "1",
            "top_k": "50",
            "top_p": "1",
        },
        "valores por defecto",
    )

    # The temperature, by keyboard on the native range: one step (0.05), then its end (3).
    press_range(page, text("next_word.temperature"), "ArrowRight")
    warmer = expected_bars(ids, 1.05)
    assert warmer["bars"] != defaults["bars"]
    expect_shows(page, {**warmer, "temperature": "1.05"}, "T = 1,05")
    press_range(page, text("next_word.temperature"), "End")
    hot = expected_bars(ids, 3.0)
    expect_shows(page, {**hot, "temperature": "3"}, "T = 3")

    # "Generar un token" by keyboard: Tab from the seed's box, Enter.
    seed_box = page.get_by_role("spinbutton", name=text("next_word.seed"))
    seed_box.focus()
    page.keyboard.press("Tab")
    one = button(page, "one")
    expect(one).to_be_focused()
    page.keyboard.press("Enter")
    (step,) = sampled(ids, 1, 3.0, 50, 1.0, 0)
    token, piece = int(step.token), step.piece
    after = expected_bars((*ids, token), 3.0)
    expect_shows(
        page,
        {
            **after,
            "text": text_line(PROMPT, [piece], ""),
            "step": t("step_note_next", n=1),
            "steps": [[f"1 \u00b7 {visible(piece)}", False], [t("next_option"), True]],
        },
        "un token generado",
    )
    assert page.locator('[data-testid="next-word-token-1"]').text_content() == piece

    # Back to the distribution the token was drawn from: it is marked there.
    page.get_by_role("button", name=f"1 \u00b7 {visible(piece)}", exact=True).click()
    p = probability_of(ids, token, 3.0)
    assert p == pytest.approx(
        float(step.probabilities[token]), abs=1e-9
    )  # the sampler's own number
    expect_shows(
        page,
        {
            **expected_bars(ids, 3.0, chosen=token),
            "step": t("step_note", n=1, token=visible(piece), p=pct(p), u=number(step.u, 3)),
            "steps": [[f"1 \u00b7 {visible(piece)}", True], [t("next_option"), False]],
        },
        "paso 1",
    )

    # The induction head, measured here on the repeated sequence.
    heads = repeated_heads()
    layer, head, _ = heads["best_induction"]
    button(page, "induction_head").click()
    shown = expect_shows(
        page,
        {
            "heads": heads_text(layer, head),
            "map": map_texts(heads["maps"][layer - 1, head - 1]),
            "layer": str(layer),
            "head": str(head),
        },
        "cabeza de inducción",
    )
    assert len(shown["map"]) == 24
    assert shown["map_tokens"] == [visible(smollm.model().piece(i)) for i in heads["ids"]]
    # An induction head indeed: on the repeat, most of its attention on the induction target.
    assert heads["best_induction"][2] > 0.5

    # Refused texts: the catalogue's message beside the box; the bars stay.
    bars = snapshot(page)["bars"]
    box = page.get_by_placeholder(text("next_word.placeholder"))
    box.fill("x" * 301)
    assert len(box.input_value()) == 300  # the box itself holds at most 300 characters
    # A forged longer text (what a page without the box's cap would send): refused by the server.
    box.evaluate(
        "(el, v) => { el.value = v; el.dispatchEvent(new Event('change', {bubbles: true})); }",
        "x" * 301,
    )
    kept = text("next_word.kept")
    expect_shows(
        page,
        {
            "prompt_error": f"{t('too_many_chars', n=301, max_chars=300)} {kept}",
            "bars": bars,
        },
        "301 caracteres",
    )
    box.fill("The capital\u0007 of France")
    box.press("Enter")
    expect_shows(
        page,
        {
            "prompt_error": f"{t('control_character', code='U+0007')} {kept}",
            "bars": bars,
            "text": text_line(PROMPT, [piece], ""),
        },
        "carácter de control",
    )
    assert watch.console_errors == []
    assert watch.external == []
