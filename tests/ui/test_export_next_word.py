"""«La siguiente palabra» in the exported files (dist/siguiente.html, dist/en/siguiente.html),
opened offline, against the model and the live section.

The export cannot run the model: it embeds the 200 most likely tokens after each lecture text
and after each prefix of a few generations (a tree), every head's map on the lecture texts and
the measured heads' maps on the repeated sequence; the page reshapes and samples from them.
Checked here: the shipped tables are the model's (a fresh forward pass, the model's attention);
the page's numbers at the defaults, after "Generar 8", after T / top-k / top-p moved, are the
ones computed here from the model's raw logits and its own sampler; a typed text, a draw off
the tree and a head not embedded each say so; English numbers; and the same moves in the live
section and in the export showing the same texts.
"""

from __future__ import annotations

import base64
import re

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from attnmodel import smollm
from attnmodel.formatting import number
from attnmodel.i18n import text
from attnmodel.next_word import LECTURE_PROMPTS
from dashboards.export import unpacked_states

from c04_testing import DEEP_FIND_JS
from next_word_testing import (
    PROMPT,
    SECTION,
    SNAPSHOT_JS,
    button,
    expect_shows,
    expected_bars,
    heads_text,
    ids_of,
    map_texts,
    pct,
    press_range,
    repeated_heads,
    sampled,
    snapshot,
    t,
    text_line,
    visible,
)

pytestmark = pytest.mark.ui

FILE = "siguiente.html"
STATES = re.compile(r'<script type="application/json" id="c04-states">(.*?)</script>', re.S)


# The generated tokens the text shows (next-word-token-1, -2, …), in order.
TOKENS_JS = f"""(() => {{
  {DEEP_FIND_JS}
  const out = [];
  for (let i = 1; ; i++) {{
    const el = deepFind(document, '[data-testid="next-word-token-' + i + '"]');
    if (!el) return out;
    out.push(el.textContent);
  }}
}})()"""
# The step chooser's pressed option is the ``i``th (-1: the last); board.js shows a new value
# in a control the student used less than 400 ms ago only then (TOUCH_MS).
PRESSED_JS = f"""(i) => {{
  const steps = ({SNAPSHOT_JS})().steps;
  return steps[i < 0 ? steps.length - 1 : i][1] && steps.filter((s) => s[1]).length === 1;
}}"""
# Two reads, two frames apart, agree.
STEADY_JS = f"""() => new Promise((resolve) => {{
  const read = () => JSON.stringify(({SNAPSHOT_JS})());
  const first = read();
  requestAnimationFrame(() => requestAnimationFrame(() => resolve(read() === first)));
}})"""


def shipped(exported) -> dict:
    """``states["next_word"]`` as the exported file carries it."""
    html = (exported / FILE).read_text(encoding="utf-8")
    return unpacked_states(STATES.search(html).group(1))["next_word"]


def decode(b64: str, dtype: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(b64), dtype=dtype)


def test_shipped_tables_are_the_models(exported):
    tables = shipped(exported)
    lm = smollm.model()
    pieces = dict(
        zip(decode(tables["pieces"][0], "<u2").tolist(), tables["pieces"][1], strict=True)
    )
    assert all(lm.piece(i) == piece for i, piece in pieces.items())
    keys = sorted(tables["tops"], key=lambda k: (len(k), k))
    assert len(keys) > 50
    # Every lecture text's root, and a spread of deeper nodes: ~10 fresh forward passes.
    sample = sorted({*(",".join(map(str, ids_of(p))) for p in LECTURE_PROMPTS), *keys[::15]})
    assert len(sample) >= 10
    for key in sample:
        ids = [int(i) for i in key.split(",")]
        top_ids, top_logits, lse = tables["tops"][key]
        top_ids, top_logits = decode(top_ids, "<u2"), decode(top_logits, "<f4")
        z = lm.forward(ids, last=True)[-1]
        fresh = smollm.top_of(z, 200)
        assert len(set(top_ids.tolist())) == top_ids.size == 200, key
        np.testing.assert_allclose(top_logits, fresh.logits, rtol=0, atol=1e-4, err_msg=key)
        # The same tokens, where two logits are not within the tolerance of a tie.
        np.testing.assert_allclose(z[top_ids], top_logits, rtol=0, atol=1e-4, err_msg=key)
        ties = np.abs(np.diff(fresh.logits)) < 1e-4
        differ = np.flatnonzero(top_ids != fresh.ids)
        assert all(ties[max(i - 1, 0) : i + 1].any() for i in differ), key
        assert lse == pytest.approx(float(np.log(np.exp(z.astype(np.float64)).sum())), abs=1e-4)
        assert set(top_ids.tolist()) <= set(pieces)
    for prompt in LECTURE_PROMPTS:
        ids = list(ids_of(prompt))
        embedded = tables["prompts"][prompt]
        assert embedded["ids"] == ids
        n = len(ids)
        maps = decode(embedded["attention"], "u1").reshape(30, 9, n, n)
        want = np.floor(100 * lm.attention(ids).astype(np.float64) + 0.5)
        np.testing.assert_array_equal(maps, want, err_msg=prompt)
    heads = repeated_heads()
    assert tables["repeated"]["ids"] == heads["ids"]
    best = {"previous": heads["best_previous"], "induction": heads["best_induction"]}
    for name, (layer, head, score) in best.items():
        assert tables["heads"][name][:2] == [layer, head], name
        assert tables["heads"][name][2] == pytest.approx(score, abs=1e-6), name
        got = tables["repeated"]["maps"][f"{layer},{head}"]
        np.testing.assert_array_equal(got, np.floor(100 * heads["maps"][layer - 1, head - 1] + 0.5))


def off_the_tree_seed(tables) -> tuple[int, int]:
    """A seed whose first token at the defaults has no embedded continuation, and that token:
    drawn here from the embedded root top (softmax over its 50 largest logits, the token
    whose interval holds the seed's first uniform number)."""
    ids = list(ids_of())
    top_ids, top_logits, _ = tables["tops"][",".join(map(str, ids))]
    top_ids = decode(top_ids, "<u2")
    z = decode(top_logits, "<f4").astype(np.float64)[:50]
    p = np.exp(z - z.max())
    cumulative = np.cumsum(p / p.sum())
    for seed in range(1, 500):
        u = smollm.splitmix64(seed, 1)[0]
        token = int(top_ids[min(int(np.searchsorted(cumulative, u, side="right")), 49)])
        if ",".join(map(str, [*ids, token])) not in tables["tops"]:
            return seed, token
    raise AssertionError("every seed up to 500 stays on the embedded tree")


@pytest.fixture
def export_page(page, offline, open_export):
    open_export(FILE, SECTION)
    page.locator('[data-testid="next-word-bars"]').wait_for(timeout=30_000)
    return page


def test_export_offline(export_page, offline, exported):
    page = export_page
    ids = ids_of()
    expect(page.locator('[data-testid="next-word-status"]')).to_have_text(t("export_note"))
    expect_shows(
        page,
        {
            **expected_bars(ids),
            "text": text_line(PROMPT, [], t("nothing")),
            "step": t("step_note_prompt"),
            "steps": [[t("after_text"), True]],
        },
        "valores por defecto",
    )

    # "Generar 8" with seed 0 at the defaults: the model's own sampler's tokens, as far as
    # the embedded tree goes (see test_generate_eight_offline for the rest).
    pieces = [step.piece for step in sampled(ids, 8)]
    button(page, "burst", n=8).click()
    page.wait_for_function(TOKENS_JS + ".length > 0")
    page.wait_for_function(STEADY_JS)
    shown = page.evaluate(TOKENS_JS)
    assert shown == pieces[: len(shown)]
    assert len(shown) >= 7  # the 6 generated tokens each run embeds, and the one after them

    # A seed whose first token leaves the embedded tree: the page says where it stops.
    button(page, "clear").click()
    expect_shows(page, {"text": text_line(PROMPT, [], t("nothing"))}, "borrar")
    seed, token = off_the_tree_seed(shipped(exported))
    (step,) = sampled(ids, 1, seed=seed)
    assert step.token == token  # the model's sampler draws it too
    seed_box = page.get_by_role("spinbutton", name=text("next_word.seed"))
    seed_box.fill(str(seed))
    seed_box.press("Enter")
    button(page, "one").click()
    expect_shows(
        page,
        {
            **expected_bars(ids, chosen=token),
            "text": text_line(PROMPT, [step.piece], t("offline_cut", n=1)),
            "steps": [[f"1 \u00b7 {visible(step.piece)}", True]],
            "step": t(
                "step_note",
                n=1,
                token=visible(step.piece),
                p=pct(step.probabilities[token]),
                u=number(step.u, 3),
            ),
            "seed": str(seed),
        },
        f"semilla {seed} fuera del árbol",
    )

    # T, top-k and top-p moved by keyboard: the bars reshape as computed here (top-k 200: the
    # whole embedded top).
    button(page, "clear").click()
    press_range(page, text("next_word.temperature"), "End")
    press_range(page, text("next_word.top_k"), "End")
    press_range(page, text("next_word.top_p"), "ArrowLeft", "ArrowLeft")
    expect_shows(
        page,
        {**expected_bars(ids, 3.0, 200, 0.9), "temperature": "3", "top_k": "200", "top_p": "0.9"},
        "T 3, top-k 200, top-p 0,9",
    )
    press_range(page, text("next_word.temperature"), "Home")
    press_range(page, text("next_word.top_p"), "Home")
    cold = expected_bars(ids, 0.1, 200, 0.05)
    assert cold["kept"] == "1"  # top-p 0,05: only the most likely token
    assert cold["bars"][0][1] == pct(1.0)
    expect_shows(page, {**cold, "temperature": "0.1", "top_p": "0.05"}, "T 0,1, top-p 0,05")

    # A typed text needs the server: the file says so and keeps the numbers.
    box = page.get_by_placeholder(text("next_word.placeholder"))
    box.fill("The weather today is")
    box.press("Enter")
    expect_shows(page, {"prompt_error": t("offline_prompt"), **cold}, "texto propio")

    # Another lecture text: its own numbers.
    story = LECTURE_PROMPTS[1]
    board_examples = page.get_by_role("group", name=text("next_word.examples"))
    board_examples.get_by_role("button", name=story, exact=True).click()
    expect_shows(
        page,
        {**expected_bars(ids_of(story), 0.1, 200, 0.05), "prompt_error": None, "prompt": story},
        "segundo texto",
    )
    assert offline.external == []
    assert offline.console_errors == []


def test_export_in_english(page, offline, open_export):
    open_export(f"en/{FILE}", SECTION)
    page.locator('[data-testid="next-word-bars"]').wait_for(timeout=30_000)
    want = expected_bars(ids_of(), lang="en")
    assert want["bars"][0][2] == "77.3%"
    expect_shows(page, want, "en")
    assert offline.external == []
    assert offline.console_errors == []


def test_whole_lecture_file_shows_the_section(whole_lecture):
    """clase04.html carries the section too (read only: the shared page is not touched)."""
    page, watch = whole_lecture("es")
    expect_shows(
        page,
        {**expected_bars(ids_of()), "text": text_line(PROMPT, [], t("nothing"))},
        "clase04.html",
    )
    assert watch.console_errors == []
    assert watch.external == []


def test_a_head_not_embedded_says_so(export_page, offline):
    page = export_page
    group = page.get_by_role("group", name=text("next_word.sequence"))
    group.get_by_role("button", name=text("next_word.sequence_repeated"), exact=True).click()
    expect_shows(page, {"map": None}, "secuencia repetida, capa 1 cabeza 1")
    heads = repeated_heads()
    assert (1, 1) not in {heads["best_previous"][:2], heads["best_induction"][:2]}
    expect_shows(page, {"map_missing": t("offline_head")}, "cabeza sin mapa", timeout=3_000)


def test_generate_eight_offline(export_page, offline):
    page = export_page
    ids = ids_of()
    steps = sampled(ids, 8)
    pieces = [s.piece for s in steps]
    ended = steps[-1].token in smollm.END_IDS
    button(page, "burst", n=8).click()
    last = t("end_option") if ended else t("next_option")
    expect_shows(
        page,
        {
            "text": text_line(PROMPT, pieces, t("ended") if ended else ""),
            "steps": [
                *([f"{i + 1} \u00b7 {visible(p)}", False] for i, p in enumerate(pieces)),
                [last, True],
            ],
        },
        "Generar 8",
        timeout=5_000,
    )
    assert offline.console_errors == []


# The same moves in the live section and in the export: (what, argument, the item of the
# snapshot that shows the move is done).
MOVES = [
    ("range", ("temperature", "ArrowRight"), "bars"),  # T 1,05
    ("range", ("top_k", "ArrowLeft"), "bars"),  # 49
    ("range", ("top_p", "ArrowLeft"), "bars"),  # 0,95
    ("range", ("temperature", "ArrowLeft"), "bars"),  # back to the defaults: on the tree
    ("range", ("top_p", "End"), "bars"),
    ("range", ("top_k", "ArrowRight"), "bars"),
    ("seed", 2, "seed"),
    ("button", "one", "text"),
    ("button", "one", "text"),
    ("step", 0, "step"),  # the first token's draw
    ("button", "clear", "text"),
    ("button", "one", "text"),
    ("button", "one", "text"),
    ("button", "one", "text"),
    ("step", 1, "step"),
    ("button", "induction_head", "heads"),
    ("button", "previous_head", "heads"),
    ("button", "clear", "text"),
]
# What both pages show (the status line differs: the export's note).
COMPARED = (
    *("caption", "bars", "kept", "mass", "entropy", "text", "step", "heads", "map"),
    *("map_tokens", "steps", "seed", "temperature", "top_k", "top_p", "layer", "head"),
)
CHANGED_JS = (
    f"""([key, before]) => JSON.stringify(({SNAPSHOT_JS})()[key]) !== JSON.stringify(before)"""
)


def run_moves(page) -> list[dict]:
    """The snapshot at the defaults and after each move (only the COMPARED items)."""
    page.locator('[data-testid="next-word-bars"]').wait_for(timeout=60_000)
    shots = [expect_shows(page, expected_bars(ids_of()), "valores por defecto")]
    pressed = -1
    for kind, arg, shows in MOVES:
        before = shots[-1][shows]
        if kind == "range":
            name, key = arg
            press_range(page, text(f"next_word.{name}"), key)
        elif kind == "seed":
            box = page.get_by_role("spinbutton", name=text("next_word.seed"))
            box.fill(str(arg))
            box.press("Enter")
        elif kind == "step":
            group = page.get_by_role("group", name=text("next_word.step"))
            group.get_by_role("button").nth(arg).click()
        else:
            button(page, arg, **({"n": 8} if arg == "burst" else {})).click()
        try:
            page.wait_for_function(CHANGED_JS, arg=[shows, before])
        except PlaywrightTimeoutError:
            raise AssertionError(f"{kind} {arg}: {shows} no cambió\n{snapshot(page)}") from None
        if kind == "step":
            pressed = arg
        elif arg in ("one", "burst", "clear"):
            pressed = -1
        page.wait_for_function(PRESSED_JS, arg=pressed)
        page.wait_for_function(STEADY_JS)
        shots.append({k: v for k, v in snapshot(page).items() if k in COMPARED})
    return shots


def test_export_and_live_show_the_same(export_page, offline, open_live):
    exported = run_moves(export_page)
    assert offline.external == []
    assert offline.console_errors == []
    live, live_watch = open_live(SECTION)
    served = run_moves(live)
    assert live_watch.console_errors == []
    assert live_watch.external == []
    for n, (a, b) in enumerate(zip(exported, served, strict=True)):
        wrong = {k: {"export": a[k], "live": b[k]} for k in COMPARED if a[k] != b[k]}
        assert not wrong, f"{MOVES[n - 1] if n else 'valores por defecto'}: {wrong}"

    # A few of them against this test's own numbers.
    after = dict(zip(range(1, len(MOVES) + 1), exported[1:], strict=True))
    ids = ids_of()
    two = sampled(ids, 2, seed=2)
    assert after[9]["text"] == text_line(PROMPT, [s.piece for s in two], "")
    assert after[10]["bars"] == expected_bars(ids, chosen=two[0].token)["bars"]
    three = sampled(ids, 3, seed=2)
    assert after[14]["text"] == text_line(PROMPT, [s.piece for s in three], "")
    assert after[15]["bars"] == expected_bars((*ids, three[0].token), chosen=three[1].token)["bars"]
    for n, name in ((16, "best_induction"), (17, "best_previous")):
        layer, head, _ = repeated_heads()[name]
        assert after[n]["heads"] == heads_text(layer, head)
        assert after[n]["map"] == map_texts(repeated_heads()["maps"][layer - 1, head - 1])
