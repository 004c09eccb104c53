"""Sessions do not share state (issue #6): 10 browser contexts on the live lecture at once.

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
from attnmodel.i18n import text
from dashboards.app.lecture import SECTIONS
from dashboards.demos.scaling import D_K_OPTIONS

from c04_testing import PageWatch, press_slider, readout, slider_handle, table_row

pytestmark = pytest.mark.ui

LABELS = {s.id: s.label() for s in SECTIONS}
TIMEOUT = 20_000  # ms: ten sessions share one server process
LOCAL = ("http://127.0.0.1", "http://localhost", "ws://127.0.0.1", "ws://localhost", "data:")
SEED_ROW = ["0 %", "39 %", "3 %", "0 %", "0 %", "44 %", "2 %", "11 %"]


def rows(page, testid: str, n: int):
    return [table_row(page, testid, i) for i in range(1, n + 1)]


# --- the six actions: act; the state the acting context k must see (mine) and the defaults
# everybody else sees, both checked on the page by the action's check(page, state)


def _x(k: int) -> list[list[float]]:
    return [[k + 2.0, 0.0], [0.0, 1.0], [1.0, 1.0]]


def causal_act(page, k):
    page.locator(".sa-causal input").check()
    cell = page.locator(".sa-editor-X .c04-cell input").first
    cell.fill(str(k + 2))
    cell.press("Enter")


def causal_mine(k: int) -> SelfAttention:
    return SelfAttention(X=_x(k), causal=True)


def causal_check(page, model: SelfAttention):
    for row, weights in zip(rows(page, "sa-weights", 3), model.weights, strict=True):
        expect(row).to_have_text([es_number(w, 4) for w in weights], timeout=TIMEOUT)
    box = page.locator(".sa-causal input")
    if model.causal:
        expect(box).to_be_checked()
    else:
        expect(box).not_to_be_checked()
    # X[1,1] as typed: "2", "3", … for context k (k + 2), "1" by default.
    typed = f"{model.X[0, 0]:g}"
    expect(page.locator(".sa-editor-X .c04-cell input").first).to_have_value(typed)


def _d_k(k: int) -> int:
    return D_K_OPTIONS[D_K_OPTIONS.index(64) + 1 + k // 6]


def d_k_act(page, k):
    slider = slider_handle(page, text("scaling.d_k_slider"))
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


def _heads(k: int) -> int:
    return 2 if k // 6 == 0 else 1


def heads_act(page, k):
    page.locator(".mh-heads-control").get_by_role("button", name=str(_heads(k)), exact=True).click()


def _head_dims(page, h: int):
    expect(page.locator('[data-testid="head-dims"]')).to_have_text(
        text("multihead.dims", d_model=24, h=h, d_k=24 // h), timeout=TIMEOUT
    )


def _d_model(k: int) -> int:
    return 64 - 2 * (1 + k // 6)


def d_model_act(page, k):
    press_slider(page, "d_model", *["ArrowLeft"] * (1 + k // 6))


def _shape(page, d: int):
    expect(page.locator('[data-testid="pe-shape"]')).to_have_text(
        f"50 posiciones × {d} dimensiones", timeout=TIMEOUT
    )


def _identity(k: int) -> float:
    return 1.0 if k // 6 == 0 else -1.0


def identity_act(page, k):
    press_slider(page, "Identidad del país", "End" if _identity(k) > 0 else "Home")


def _capital(page, model: CapitalWalkthrough):
    expect(readout(page, "capital-probability")).to_have_text(
        es_number(model.probability, 4), timeout=TIMEOUT
    )
    expect(readout(page, "capital-prediction")).to_have_text(model.prediction)


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


def explorer_mine(k: int) -> AttentionExplorer:
    model = AttentionExplorer(sentence=_sentence(k), temperature=0.1)
    assert model.focus == 3  # the default focus 5, clamped to the last of four tokens
    return model


def explorer_default() -> AttentionExplorer:
    model = AttentionExplorer()
    assert model.row_percentages == [int(p.split()[0]) for p in SEED_ROW]
    return model


@dataclass(frozen=True)
class Action:
    name: str
    section: str
    act: Callable  # act(page, k): context k's edit
    mine: Callable  # mine(k): the state context k's edit gives
    default: Callable  # default(): the state nobody edited
    check: Callable  # check(page, state): the page shows that state


ACTIONS = (
    Action(
        "máscara causal + X[1,1]",
        "autoatencion",
        causal_act,
        causal_mine,
        SelfAttention,
        causal_check,
    ),
    Action(
        "d_k", "autoatencion", d_k_act, lambda k: ScalingDemo(d_k=_d_k(k)), ScalingDemo, _scaling
    ),
    Action("n_heads", "cabezas", heads_act, _heads, lambda: 4, _head_dims),
    Action("d_model", "posicion", d_model_act, _d_model, lambda: 64, _shape),
    Action(
        "identidad",
        "capital",
        identity_act,
        lambda k: CapitalWalkthrough(identity=_identity(k)),
        CapitalWalkthrough,
        _capital,
    ),
    Action(
        "frase + T = 0,1", "explorador", explorer_act, explorer_mine, explorer_default, _explorer
    ),
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
            watches.append(PageWatch(page, LOCAL))
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
            own = ACTIONS[k % 6]
            own.check(page, own.mine(k))
        times["editar y comprobar"] = time.monotonic() - t

        t = time.monotonic()
        for k, page in enumerate(pages):
            other = ACTIONS[(k + 1) % 6]
            if other.section != ACTIONS[k % 6].section:
                go(page, other.section)
            other.check(page, other.default())
        times["valores de fábrica en otra sección"] = time.monotonic() - t

        t = time.monotonic()
        for k, page in enumerate(pages):
            own = ACTIONS[k % 6]
            if ACTIONS[(k + 1) % 6].section != own.section:
                go(page, own.section)
            own.check(page, own.mine(k))
        times["volver y comprobar de nuevo"] = time.monotonic() - t

        for k, watch in enumerate(watches):
            assert watch.console_errors == [], f"contexto {k}: {watch.console_errors}"
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


def test_ten_contexts_do_not_share_state(browser, lecture_url):
    """Contexts 0 and 1 act and check exactly as a run of two contexts would (the actions go by
    k % 6), so this run makes every assertion the former two-context test made, and more."""
    times = run_contexts(browser, lecture_url, 10)
    _report(10, times)
