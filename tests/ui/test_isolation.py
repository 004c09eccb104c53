"""Sessions do not share state (issue #6): 2, then 10 browser contexts on the live lecture at once.

Context k opens the lecture on the section of action k % 6 and changes something there — the
causal mask and a cell of X, d_k, the number of heads, d_model, the country's identity, the
explorer's sentence and temperature — with a value that depends on k where the control allows
it (contexts k and k + 6 edit the same section differently). All the edits are sent before any
result is checked, so the server handles them together. Then each context must see

1. its own numbers (what the Python model computes for its edit),
2. the defaults in the part of the lecture that action (k + 1) % 6 edits in other contexts —
   reached through the lecture's own navigation, so still in the same session —, and
3. its own numbers again when it goes back, after every other context has edited.

No console error, no request outside localhost, no dialog in any context.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from playwright.sync_api import expect

from attnmodel import CapitalWalkthrough, ScalingDemo, SelfAttention
from attnmodel.explorer import AttentionExplorer
from attnmodel.formatting import es_number
from dashboards.lecture import SECTIONS
from dashboards.scaling import D_K_OPTIONS

pytestmark = pytest.mark.ui

LABELS = {s.id: s.label for s in SECTIONS}
TIMEOUT = 20_000  # ms: ten sessions share one server process
LOCAL = ("http://127.0.0.1", "http://localhost", "ws://127.0.0.1", "ws://localhost", "data:")
SEED_ROW = ["0 %", "39 %", "3 %", "0 %", "0 %", "44 %", "2 %", "11 %"]


class Watch:
    """Console errors, page errors, dialogs and non-local requests of one page."""

    def __init__(self, page):
        self.errors: list[str] = []
        self.external: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

        def on_dialog(dialog):
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)

        def route(r):
            if r.request.url.startswith(LOCAL):
                r.continue_()
            else:
                self.external.append(r.request.url)
                r.abort()

        page.route("**/*", route)


def rows(page, testid: str, n: int):
    return [
        page.locator(f'[data-testid="{testid}"] tr').nth(i).locator("td:not(.c04-sum)")
        for i in range(1, n + 1)
    ]


def readout(page, testid: str):
    return page.locator(f'[data-testid="{testid}"] .c04-value')


def handle(page, label: str):
    return page.locator(".bk-input-group", has_text=label).locator(".noUi-handle")


# --- the six actions: act, what the acting context must see, the defaults everybody else sees


def _x(k: int) -> list[list[float]]:
    return [[k + 2.0, 0.0], [0.0, 1.0], [1.0, 1.0]]


def causal_act(page, k):
    page.locator(".sa-causal input").check()
    cell = page.locator(".sa-editor-X .c04-cell input").first
    cell.fill(str(k + 2))
    cell.press("Enter")


def causal_mine(page, k):
    model = SelfAttention(X=_x(k), causal=True)
    for row, weights in zip(rows(page, "sa-weights", 3), model.weights, strict=True):
        expect(row).to_have_text([es_number(w, 4) for w in weights], timeout=TIMEOUT)
    expect(page.locator(".sa-causal input")).to_be_checked()
    expect(page.locator(".sa-editor-X .c04-cell input").first).to_have_value(str(k + 2))


def causal_default(page):
    model = SelfAttention()
    for row, weights in zip(rows(page, "sa-weights", 3), model.weights, strict=True):
        expect(row).to_have_text([es_number(w, 4) for w in weights], timeout=TIMEOUT)
    expect(page.locator(".sa-causal input")).not_to_be_checked()
    expect(page.locator(".sa-editor-X .c04-cell input").first).to_have_value("1")


def _d_k(k: int) -> int:
    return D_K_OPTIONS[D_K_OPTIONS.index(64) + 1 + k // 6]


def d_k_act(page, k):
    # The only slider of the section (a DiscreteSlider: its title is not in an input group).
    slider = page.locator(".noUi-handle").first
    slider.focus()
    for _ in range(1 + k // 6):
        slider.press("ArrowRight")


def _scaling(page, model: ScalingDemo):
    expect(page.locator('[data-testid="scaling-dk"]')).to_have_text(
        f"d_k = {model.d_k}", timeout=TIMEOUT
    )
    expect(readout(page, "scaling-score-std")).to_have_text(es_number(model.score_std))
    expect(readout(page, "scaling-entropy-unscaled")).to_have_text(
        es_number(model.entropy_unscaled)
    )


def d_k_mine(page, k):
    _scaling(page, ScalingDemo(d_k=_d_k(k)))


def d_k_default(page):
    _scaling(page, ScalingDemo())


def _heads(k: int) -> int:
    return 2 if k // 6 == 0 else 1


def heads_act(page, k):
    page.locator(".mh-heads-control").get_by_role("button", name=str(_heads(k)), exact=True).click()


def _head_dims(page, h: int):
    expect(page.locator('[data-testid="head-dims"]')).to_have_text(
        f"d_model = 24, h = {h} → cada cabeza de dimensión {24 // h}", timeout=TIMEOUT
    )


def heads_mine(page, k):
    _head_dims(page, _heads(k))


def heads_default(page):
    _head_dims(page, 4)


def _d_model(k: int) -> int:
    return 64 - 2 * (1 + k // 6)


def d_model_act(page, k):
    slider = handle(page, "d_model")
    slider.focus()
    for _ in range(1 + k // 6):
        slider.press("ArrowLeft")


def _shape(page, d: int):
    expect(page.locator('[data-testid="pe-shape"]')).to_have_text(
        f"50 posiciones × {d} dimensiones", timeout=TIMEOUT
    )


def d_model_mine(page, k):
    _shape(page, _d_model(k))


def d_model_default(page):
    _shape(page, 64)


def _identity(k: int) -> float:
    return 1.0 if k // 6 == 0 else -1.0


def identity_act(page, k):
    slider = handle(page, "Identidad del país")
    slider.focus()
    slider.press("End" if _identity(k) > 0 else "Home")


def _capital(page, model: CapitalWalkthrough):
    expect(readout(page, "capital-probability")).to_have_text(
        es_number(model.probability, 4), timeout=TIMEOUT
    )
    expect(readout(page, "capital-prediction")).to_have_text(model.prediction)


def identity_mine(page, k):
    _capital(page, CapitalWalkthrough(identity=_identity(k)))


def identity_default(page):
    _capital(page, CapitalWalkthrough())


def _sentence(k: int) -> str:
    return f"el gato {k} duerme"


def explorer_act(page, k):
    box = page.get_by_placeholder("Escribe una frase y pulsa Enter")
    box.fill(_sentence(k))
    box.press("Enter")
    page.get_by_role("button", name="T = 0,1", exact=True).click()


def _explorer(page, model: AttentionExplorer):
    title = page.locator('[data-testid="explorer-row-title"]')
    expect(title).to_have_text(f"Adónde mira {model.tokens[model.focus]}", timeout=TIMEOUT)
    header = page.locator('[data-testid="explorer-table"] thead th')
    expect(header).to_have_text(["Consulta", *model.tokens])
    for j, p in enumerate(model.row_percentages):
        expect(page.locator(f'[data-testid="row-{j}"]')).to_have_text(f"{p} %")


def explorer_mine(page, k):
    model = AttentionExplorer(sentence=_sentence(k), temperature=0.1)
    assert model.focus == 3  # the default focus 5, clamped to the last of four tokens
    _explorer(page, model)


def explorer_default(page):
    model = AttentionExplorer()
    assert model.row_percentages == [int(p.split()[0]) for p in SEED_ROW]
    _explorer(page, model)


@dataclass(frozen=True)
class Action:
    name: str
    section: str
    act: Callable
    mine: Callable
    default: Callable


ACTIONS = (
    Action("máscara causal + X[1,1]", "autoatencion", causal_act, causal_mine, causal_default),
    Action("d_k", "autoatencion", d_k_act, d_k_mine, d_k_default),
    Action("n_heads", "cabezas", heads_act, heads_mine, heads_default),
    Action("d_model", "posicion", d_model_act, d_model_mine, d_model_default),
    Action("identidad", "capital", identity_act, identity_mine, identity_default),
    Action("frase + T = 0,1", "explorador", explorer_act, explorer_mine, explorer_default),
)


def go(page, section: str) -> None:
    """Navigate inside the same session (the lecture's own buttons, not a new URL)."""
    page.get_by_role("button", name=LABELS[section], exact=True).click()
    page.locator(f'[data-testid="section-{section}"]').first.wait_for(
        state="attached", timeout=TIMEOUT
    )


def run_contexts(browser, lecture_url: str, n: int) -> dict[str, float]:
    times: dict[str, float] = {}
    t0 = time.monotonic()
    contexts, pages, watches = [], [], []
    try:
        for _ in range(n):
            context = browser.new_context()
            contexts.append(context)
            page = context.new_page()
            page.set_default_timeout(TIMEOUT)
            watches.append(Watch(page))
            pages.append(page)
        # Load every session at once, then wait for each.
        for k, page in enumerate(pages):
            page.goto(f"{lecture_url}?seccion={ACTIONS[k % 6].section}", wait_until="commit")
        for k, page in enumerate(pages):
            page.locator(f'[data-testid="section-{ACTIONS[k % 6].section}"]').first.wait_for(
                state="attached", timeout=60_000
            )
        times["abrir"] = time.monotonic() - t0

        t = time.monotonic()
        for k, page in enumerate(pages):  # every edit sent before any result is read
            ACTIONS[k % 6].act(page, k)
        for k, page in enumerate(pages):
            ACTIONS[k % 6].mine(page, k)
        times["editar y comprobar"] = time.monotonic() - t

        t = time.monotonic()
        for k, page in enumerate(pages):
            other = ACTIONS[(k + 1) % 6]
            if other.section != ACTIONS[k % 6].section:
                go(page, other.section)
            other.default(page)
        times["valores de fábrica en otra sección"] = time.monotonic() - t

        t = time.monotonic()
        for k, page in enumerate(pages):
            own = ACTIONS[k % 6]
            if ACTIONS[(k + 1) % 6].section != own.section:
                go(page, own.section)
            own.mine(page, k)
        times["volver y comprobar de nuevo"] = time.monotonic() - t

        for k, watch in enumerate(watches):
            assert watch.errors == [], f"contexto {k}: {watch.errors}"
            assert watch.external == [], f"contexto {k}: {watch.external}"
            assert watch.dialogs == [], f"contexto {k}: {watch.dialogs}"
    finally:
        for context in contexts:
            context.close()
    times["total"] = time.monotonic() - t0
    return times


def _report(n: int, times: dict[str, float]) -> None:
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in times.items())
    print(f"\n{n} contextos: {parts}")


def test_two_contexts_do_not_share_state(browser, lecture_url):
    times = run_contexts(browser, lecture_url, 2)
    _report(2, times)
    assert times["total"] < 60


def test_ten_contexts_do_not_share_state(browser, lecture_url):
    times = run_contexts(browser, lecture_url, 10)
    _report(10, times)
    assert times["total"] < 60
