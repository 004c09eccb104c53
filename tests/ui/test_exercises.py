"""Predict, then check, in Chromium: answering right and wrong live (Spanish) and in the offline
export (English); the demo moves to the question's state; progress kept in the browser only,
shown again, and cleared by its button."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from attnmodel import CapitalWalkthrough
from attnmodel.formatting import number
from attnmodel.i18n import catalogue, text
from dashboards import exercises
from dashboards.self_attention import preset_label

from c04_testing import readout

pytestmark = pytest.mark.ui

KEY = "c04-ejercicios"


def _said(exercise_id: str, lang: str, right: bool) -> str:
    e = next(e for e in exercises.exercises() if e.id == exercise_id)
    value = exercises.solve(e, exercises.model_class(e.demo)())
    key = "exercises.right" if right else "exercises.wrong"
    mark = "✓ " if right else "✗ "
    return mark + text(key, lang, answer=exercises.shown(e, value, lang))


def _answer_number(page, exercise_id: str, answer: str) -> None:
    page.locator(f'[data-testid="exercise-input-{exercise_id}"]').fill(answer)
    page.locator(f'[data-testid="exercise-check-{exercise_id}"]').click()


def _answer_choice(page, exercise_id: str, option: int) -> None:
    card = page.locator(f'[data-testid="exercise-{exercise_id}"]')
    card.locator(f'input[type=radio][value="{option}"]').check()
    page.locator(f'[data-testid="exercise-check-{exercise_id}"]').click()


def _verdict(page, exercise_id: str):
    return page.locator(f'[data-testid="exercise-verdict-{exercise_id}"] b')


def test_an_exercise_answered_wrong_then_right_live_moves_the_demo(
    page, watch, open_lecture_section
):
    open_lecture_section("capital")
    page.evaluate(f"localStorage.removeItem('{KEY}')")
    _answer_number(page, "identity_minus", "0,5")
    expect(_verdict(page, "identity_minus")).to_have_text(_said("identity_minus", "es", False))
    # The demo went to the question's state: the model's p(Roma) at identity −0.90.
    p_roma = CapitalWalkthrough(identity=-0.9).probability
    expect(readout(page, "capital-probability")).to_have_text(number(p_roma, 4))
    page.wait_for_function("() => location.search.includes('capital.identity=-0.9')")
    _answer_number(page, "identity_minus", "0,34")
    expect(_verdict(page, "identity_minus")).to_have_text(_said("identity_minus", "es", True))
    stored = json.loads(page.evaluate(f"localStorage.getItem('{KEY}')"))
    assert stored == {"identity_minus": {"right": True}}
    # A choice, answered wrong: the tie at identity 0 is not París.
    _answer_choice(page, "identity_zero", 0)
    expect(_verdict(page, "identity_zero")).to_have_text(_said("identity_zero", "es", False))
    expect(page.locator('[data-testid="capital-prediction"]')).to_contain_text("empate")
    # Unreadable: said, the demo not moved.
    _answer_number(page, "identity_minus", "mucho")
    expect(_verdict(page, "identity_minus")).to_have_text(text("exercises.unreadable"))
    assert watch.console_errors == []
    assert watch.external == []


def test_an_exercise_offline_checks_in_the_browser_and_progress_stays_only_there(
    page, offline, open_export
):
    open_export("en/capital.html", "capital")
    page.wait_for_function("() => window.C04 && C04.links && C04.links.ready")
    page.evaluate(f"localStorage.removeItem('{KEY}')")
    progress = page.locator('[data-testid="exercise-progress"]')
    expect(progress).to_have_text(catalogue("en")["exercises.progress_none"].format(total=2))
    _answer_choice(page, "identity_zero", 2)
    expect(_verdict(page, "identity_zero")).to_have_text(_said("identity_zero", "en", True))
    expect(page.locator('[data-testid="capital-prediction"]')).to_contain_text("tie")
    assert "capital.identity=0" in page.url
    _answer_number(page, "identity_minus", "0.5")
    expect(_verdict(page, "identity_minus")).to_have_text(_said("identity_minus", "en", False))
    p_roma = CapitalWalkthrough(identity=-0.9).probability
    expect(readout(page, "capital-probability")).to_have_text(number(p_roma, 4, lang="en"))
    expect(progress).to_have_text(
        catalogue("en")["exercises.progress"].format(n=2, total=2, right=1)
    )
    # Shown again on the next visit, then cleared by the button.
    page.reload()
    page.wait_for_function("() => window.C04 && C04.links && C04.links.ready")
    expect(page.locator('[data-testid="exercise-past-identity_zero"]')).to_have_text(
        text("exercises.done_right", "en")
    )
    expect(page.locator('[data-testid="exercise-past-identity_minus"]')).to_have_text(
        text("exercises.done_wrong", "en")
    )
    page.locator('[data-testid="exercise-reset"]').click()
    expect(page.locator('[data-testid="exercise-past-identity_zero"]')).to_have_text("")
    assert page.evaluate(f"localStorage.getItem('{KEY}')") is None
    assert offline.external == []  # nothing sent anywhere
    assert offline.console_errors == []


def test_a_choice_answered_right_live_in_english_moves_the_demo(page, watch, lecture_url):
    page.goto(f"{lecture_url}?lang=en&seccion=autoatencion")
    page.locator('[data-testid="section-autoatencion"]').first.wait_for(state="attached")
    _answer_choice(page, "wk_equals_wq", 1)
    expect(_verdict(page, "wk_equals_wq")).to_have_text(_said("wk_equals_wq", "en", True))
    page.wait_for_function("() => location.search.includes('autoatencion.preset=W_K')")
    # The select shows the preset's label in the page's language.
    expect(page.locator(".sa-preset select")).to_have_value(preset_label("W_K = W_Q", 2, "en"))
    assert watch.console_errors == []
