"""Browser: "¿De dónde salen W_Q y W_K?" (section "entrenamiento") of the served lecture.

Every data-testid element of the section (readouts, attention tables, roles, next words, the
held-out note, the comparison, the next-word bars) must show, after each move, the text that the
page's own markup.js draws from training.js's drawing of ``TrainingDemo``'s numbers at that
state (itself checked against the model and the catalogue: ``assert_training_shows``), the
next-word bars their widths and colours; the loss curve and its marker are drawn where the
model's numbers say. Moves: the step slider by
keyboard and the country select; "Entrenar de nuevo" trains a new seed in the server's thread
(progress bar, status) and then shows its numbers; the English page; a link with a state and
a hostile one.
"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from playwright.sync_api import expect

from attnmodel.formatting import number
from attnmodel.i18n import text
from attnmodel.training import DEFAULT_STEPS, HELD_OUT, N_HEADS, TrainingDemo
from dashboards.demos.training import numbers
from dashboards.sharing import links

from c04_testing import (
    assert_lines_drawn,
    assert_training_shows,
    chart,
    expect_training,
    label_text,
    press_slider,
    readout,
)
from c04_views import js_views

pytestmark = pytest.mark.ui

SECTION = "entrenamiento"
FIRST_RUN_MS = 60_000  # the server trains the default run at its start (~3 s, more if loaded)
NEW_SEED = 3141  # test_retrain's: trained by no other test, nor is 3142
TRAINING_MS = 30_000  # a new seed (~3 s of CPU; the server may be busy with other tests)


def render(model: TrainingDemo, lang: str = "es") -> dict:
    """What the section shows for ``model``: training.js's drawing (run in Node) of the model's
    numbers, checked first against the model and the catalogue."""
    specs = js_views(lang).render("training", json.loads(json.dumps(numbers(model))))
    assert_training_shows(specs, model, lang)
    return specs


def expect_model(page, model: TrainingDemo, lang: str = "es", timeout: float = 15.0) -> None:
    """Wait until every data-testid element, the next-word bars and the loss curve with its
    marker show Python's ``model``."""
    expect_training(page, render(model, lang), model.param.values(), timeout)
    # The curve drawn is the run's (4 decimals, as numbers rounds the model's curve).
    assert_lines_drawn(chart(page, "training-loss-chart"), [numbers(model)["loss_curve"]], SECTION)


def status(page):
    return page.locator('[data-testid="training-status"]')


def expect_shown(page, seed: int, lang: str = "es", timeout: float = 15_000) -> None:
    """The status says the run of ``seed`` is on screen."""
    shown = text("training.shown", lang, seed=seed, steps=DEFAULT_STEPS)
    expect(status(page)).to_have_text(shown, timeout=timeout)


def choose_country(page, country: str, lang: str = "es") -> None:
    """Pick ``country`` by the label the select shows ("Suecia (reservado)" when held out)."""
    label = text("training.country_held_out", lang, country=country)
    page.get_by_role("combobox", name=text("training.country", lang)).select_option(
        label=label if country in HELD_OUT else country
    )


def open_training(page, url: str) -> None:
    page.goto(url)
    page.locator(f'[data-testid="section-{SECTION}"]').first.wait_for(state="attached")


def test_defaults_step_slider_and_held_out_country(page, watch, open_lecture_section):
    open_lecture_section(SECTION)
    model = TrainingDemo()
    expect_shown(page, model.seed, timeout=FIRST_RUN_MS)
    assert (model.step, model.country) == (DEFAULT_STEPS, "Francia")
    expect_model(page, model)
    expect(page.locator("progress")).to_be_hidden()
    # The status line and the (hidden) progress bar are beside the button, in the Board.
    expect(page.locator('[data-slot="status"] [data-testid="training-status"]')).to_be_visible()

    step_label = text("training.step")
    for keys, step in ((("Home",), 0), (("ArrowRight",) * 3, 15)):
        press_slider(page, step_label, *keys)
        model.step = step
        expect(readout(page, "training-step")).to_have_text(str(step))
        expect_model(page, model)
    at_start = TrainingDemo(step=0)
    assert at_start.loss > model.loss  # the numbers did change with the step

    # A held-out country: the model never saw its capital with it.
    country = HELD_OUT[0]
    choose_country(page, country)
    model.country = country
    expect_model(page, model)
    press_slider(page, step_label, "End")
    model.step = DEFAULT_STEPS
    expect_model(page, model)
    held = page.locator('[data-testid="training-held-out"]')
    expect(held).to_contain_text(model.prediction)
    expect(held).to_contain_text(f"p({model.capital}) = {number(model.capital_probability, 4)}")
    assert model.prediction != model.capital

    assert watch.console_errors == []
    assert watch.external == []


def retrain(page, seed: int, button) -> None:
    """Click "Entrenar de nuevo" with ``seed`` about to be trained: the progress bar and the
    status show the training under way, the button waits, then the run of ``seed`` is shown
    with the numbers of Python's ``TrainingDemo(seed=seed)``."""
    button.click()
    under_way = text("training.training", seed=seed, done="\0", steps=DEFAULT_STEPS)
    expect(status(page)).to_contain_text(under_way.split("\0")[0])
    expect(page.locator("progress")).to_be_visible()
    expect(page.get_by_role("progressbar", name=under_way.split("\0")[0])).to_be_visible()
    expect(button).to_be_disabled()
    model = TrainingDemo(seed=seed)
    # Trained here too (~2 s), while the server trains it.
    assert len(model.loss_curve) == DEFAULT_STEPS + 1
    expect_shown(page, seed, timeout=TRAINING_MS)
    expect(page.locator("progress")).to_be_hidden()
    expect(button).to_be_enabled()
    expect_model(page, model)


def test_retrain_shows_progress_then_the_new_seed(page, watch, open_lecture_section):
    open_lecture_section(SECTION)
    default = TrainingDemo()
    expect_shown(page, default.seed, timeout=FIRST_RUN_MS)
    expect_model(page, default)
    button = page.get_by_role("button", name=text("training.retrain"))
    seed_input = page.get_by_role("spinbutton", name=text("training.seed"))
    expect(seed_input).to_have_value(str(default.seed))

    # A seed typed in "Semilla": one this server has not trained (the server is shared by a
    # process's tests; no other test trains this seed or the next, test_server_log's is 7).
    seed = NEW_SEED
    seed_input.fill(str(seed))
    seed_input.press("Enter")
    retrain(page, seed, button)
    assert render(TrainingDemo(seed=seed))["readouts"] != render(default)["readouts"]

    # The input holds the seed shown: "Entrenar de nuevo" trains the next one.
    expect(seed_input).to_have_value(str(seed))
    retrain(page, seed + 1, button)
    expect(seed_input).to_have_value(str(seed + 1))

    assert watch.console_errors == []
    assert watch.external == []


def test_english_page(page, watch, lecture_url):
    open_training(page, f"{lecture_url}?lang=en&seccion={SECTION}")
    model = TrainingDemo()
    expect_shown(page, model.seed, "en", timeout=FIRST_RUN_MS)
    expect_model(page, model, "en")
    rendered = render(model, "en")
    for h in range(N_HEADS):
        title = label_text(rendered[f"head_{h}"]["title"])
        assert title.startswith(text("training.head_title", "en", n=h + 1, role=""))
        caption = page.locator(f'[data-testid="training-head-{h + 1}"] caption')
        expect(caption).to_have_text(title)
    for key, tid in (("step", "training-step"), ("loss", "training-loss")):
        label = page.locator(f'[data-testid="{tid}"] .c04-label')
        expect(label).to_have_text(text(f"training.readout.{key}", "en"))
    label = page.locator('[data-testid="training-prediction"] .c04-label')
    expect(label).to_have_text(text("training.readout.prediction", "en"))
    expect(page.locator('[data-testid="training-roles"] caption')).to_have_text(
        text("training.roles_title", "en")
    )
    expect(page.get_by_role("slider", name=text("training.step", "en"))).to_be_visible()
    expect(page.get_by_role("spinbutton", name=text("training.seed", "en"))).to_be_visible()
    country = page.get_by_role("combobox", name=text("training.country", "en"))
    expect(country.locator("option").first).to_have_text(
        text("training.country_name.Francia", "en")
    )
    expect(page.get_by_role("button", name=text("training.retrain", "en"))).to_be_visible()
    # The model's words stay Spanish, marked as such.
    prediction = page.locator('[data-testid="training-prediction"] .c04-value [lang="es"]')
    expect(prediction).to_have_text(model.prediction)
    assert watch.console_errors == []


def test_a_link_opens_its_step_and_country(page, watch, lecture_url):
    model = TrainingDemo(step=50, country="Italia")
    link = links.encode({SECTION: model}, SECTION)
    assert f"{SECTION}.step=50" in link
    assert f"{SECTION}.country=Italia" in link
    # Opened without the seed (the default one): the address then says it, as Python does.
    short = "&".join(p for p in link.split("&") if not p.startswith(f"{SECTION}.seed="))
    assert short != link
    open_training(page, f"{lecture_url}?{short}")
    expect_shown(page, model.seed, timeout=FIRST_RUN_MS)
    expect_model(page, model)
    page.wait_for_function("(link) => location.search === '?' + link", arg=link)
    expect(page.get_by_role("slider", name=text("training.step"))).to_have_value("50")
    expect(page.locator('[data-control="step"] output')).to_have_text("50")
    country = page.get_by_role("combobox", name=text("training.country"))
    expect(country).to_have_value("Italia")
    assert page.locator('[data-testid="link-notice"]').count() == 0
    assert watch.console_errors == []


def test_a_hostile_link_keeps_the_defaults_and_says_what_it_ignored(page, watch, lecture_url):
    bad = {
        "step": "7",  # not a checkpoint
        "country": "<script>alert(1)</script>",
        "seed": str(TrainingDemo.param.seed.bounds[1] + 1),
    }
    hostile = "&".join(f"{SECTION}.{k}={quote(v)}" for k, v in bad.items())
    open_training(page, f"{lecture_url}?seccion={SECTION}&{hostile}")
    notice = page.locator('[data-testid="link-notice"]')
    notice.wait_for(timeout=15_000)
    said = notice.inner_text()
    assert said.startswith(text("links.notice", items="|").split("|")[0])
    for key in bad:
        assert f"«{SECTION}.{key}»" in said
    model = TrainingDemo()
    expect_shown(page, model.seed, timeout=FIRST_RUN_MS)
    expect_model(page, model)
    # The address is the state shown: the link's values are gone.
    page.wait_for_function(f"() => !location.search.includes('{SECTION}.')")
    scripts = "() => [...document.scripts].some((s) => s.textContent.includes('alert(1)'))"
    assert page.evaluate(scripts) is False
    assert watch.dialogs == []
    assert watch.console_errors == []
