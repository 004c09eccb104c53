"""«La siguiente palabra» in the browser (tests/ui/test_next_word.py, test_export_next_word.py):
what the page must show, computed here from the model's raw logits and attention
(``attnmodel.smollm.model()``), its own sampler (``SmolLM2.sample``) and the catalogue, never
from the section's code (dashboards/demos/next_word.py, next_word.js); and one reading of the
page (``SNAPSHOT_JS``) to compare with it.
"""

from __future__ import annotations

import contextlib
import functools

import numpy as np
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from attnmodel import smollm
from attnmodel.formatting import number, percent
from attnmodel.i18n import text

from c04_testing import DEEP_FIND_JS, slider_handle

SECTION = "siguiente"
PROMPT = "The capital of France is"
DEFAULTS = {"temperature": 1.0, "top_k": 50, "top_p": 1.0}
SHOWN_BARS = 10  # the bars the section draws; the kept tokens after them share one row
CONTEXT_CHARS = 40  # the bars' title quotes the end of the text
REPEAT = 12  # the repeated random sequence: 12 tokens, then the same 12 again


def t(key: str, lang: str = "es", **values) -> str:
    return text(f"next_word.{key}", lang, **values)


def visible(piece: str) -> str:
    """A token as the page writes it in labels: a space as "␣", a new line as "↵"."""
    return piece.replace(" ", "\u2423").replace("\n", "\u21b5")


def ids_of(prompt: str = PROMPT) -> tuple[int, ...]:
    return tuple(smollm.model().tokenize(prompt).ids)


@functools.cache
def logits(ids: tuple[int, ...]) -> np.ndarray:
    """The model's raw logits for the token after ``ids`` (a fresh forward pass), float64."""
    return smollm.model().forward(list(ids), last=True)[-1].astype(np.float64)


def sampling(ids, temperature: float, top_k: int, top_p: float) -> tuple[np.ndarray, np.ndarray]:
    """(the kept token ids, most likely first; their sampling probabilities): softmax(z / T)
    over the top_k largest logits, then the smallest most likely prefix whose probability
    reaches top_p, renormalised."""
    z = logits(tuple(ids))
    order = np.lexsort((np.arange(z.size), -z))[:top_k]
    e = np.exp((z[order] - z[order].max()) / temperature)
    p = e / e.sum()
    if top_p < 1.0:
        cumulative = 0.0
        last = p.size - 1
        for i, x in enumerate(p):
            cumulative += x
            if cumulative >= top_p:
                last = i
                break
        p = p[: last + 1] / p[: last + 1].sum()
    return order[: p.size], p


def own(ids) -> np.ndarray:
    """The model's own distribution after ``ids`` (T = 1, no cut), over the vocabulary."""
    z = logits(tuple(ids))
    e = np.exp(z - z.max())
    return e / e.sum()


def pct(p: float, lang: str = "es") -> str:
    return percent(p, 1, lang)


def expected_bars(
    ids, temperature=1.0, top_k=50, top_p=1.0, lang="es", chosen: int | None = None, context=None
) -> dict:
    """The bars and readouts after ``ids``: per row [label, value, note], the caption, the
    readouts' values; ``chosen`` (a token id) marked as drawn; ``context`` the text the title
    quotes (the detokenized ids by default)."""
    kept, p = sampling(ids, temperature, top_k, top_p)
    model = own(ids)
    rows = []
    for token, x in zip(kept[:SHOWN_BARS], p[:SHOWN_BARS], strict=True):
        piece = visible(smollm.model().piece(int(token)))
        label = t("chosen_label", lang, token=piece) if token == chosen else piece
        rows.append([label, pct(x, lang), pct(model[token], lang)])
    if kept.size > SHOWN_BARS:
        rest = list(kept[SHOWN_BARS:])
        n = kept.size - SHOWN_BARS
        if chosen in rest:
            label = t("rest_chosen", lang, n=n, token=visible(smollm.model().piece(chosen)))
        else:
            label = t("rest", lang, n=n)
        rows.append([label, pct(p[SHOWN_BARS:].sum(), lang), ""])
    if context is None:
        context = smollm.model().detokenize(ids)
    if len(context) > CONTEXT_CHARS:
        context = "…" + context[-CONTEXT_CHARS:]
    return {
        "caption": t("bars_title", lang, context=context),
        "bars": rows,
        "kept": str(kept.size),
        "mass": pct(model[kept].sum(), lang),
        "entropy": number(float(-(p * np.log2(p)).sum()), 2, lang=lang),
    }


def probability_of(ids, token: int, temperature=1.0, top_k=50, top_p=1.0) -> float:
    kept, p = sampling(ids, temperature, top_k, top_p)
    return float(p[list(kept).index(token)])


def sampled(ids, n: int, temperature=1.0, top_k=50, top_p=1.0, seed=0) -> list:
    """The model's own sampler over the whole vocabulary (SmolLM2.sample): its steps."""
    return smollm.model().sample(list(ids), n, temperature, top_k, top_p, seed)


def text_line(prompt: str, pieces: list[str], note: str, lang: str = "es") -> str:
    """The text's line (next-word-text) as the page reads."""
    line = f"{t('text_label', lang)}: {prompt}{''.join(pieces)}"
    return f"{line} — {note}" if note else line


@functools.cache
def repeated_heads() -> dict:
    """The previous-token and induction scores of every head on the repeated random sequence,
    measured here (float64 means of the model's maps), the best of each (1-based), and every
    head's map as the page's whole percentages."""
    ids = [int(i) for i in smollm.repeated_sequence(0, REPEAT)]
    maps = smollm.model().attention(ids).astype(np.float64)
    n = len(ids)
    rows = np.arange(1, n)
    previous = maps[..., rows, rows - 1].mean(axis=-1)
    rows = np.arange(REPEAT, n)
    induction = maps[..., rows, rows - REPEAT + 1].mean(axis=-1)

    def best(scores):
        layer, head = np.unravel_index(int(np.argmax(scores)), scores.shape)
        return int(layer) + 1, int(head) + 1, float(scores[layer, head])

    return {
        "ids": ids,
        "maps": maps,
        "previous": previous,
        "induction": induction,
        "best_previous": best(previous),
        "best_induction": best(induction),
    }


def whole_percents(weights) -> list[list[int]]:
    return np.floor(100 * np.asarray(weights, dtype=np.float64) + 0.5).astype(int).tolist()


def map_texts(weights, lang: str = "es") -> list[list[str]]:
    return [[text("format.percent", lang, value=v) for v in row] for row in whole_percents(weights)]


def heads_text(layer: int, head: int, lang: str = "es") -> str:
    m = repeated_heads()
    pl, ph, ps = m["best_previous"]
    il, ih, is_ = m["best_induction"]
    return t(
        "heads",
        lang,
        p_layer=pl,
        p_head=ph,
        p_score=pct(ps, lang),
        i_layer=il,
        i_head=ih,
        i_score=pct(is_, lang),
        layer=layer,
        head=head,
        previous=pct(m["previous"][layer - 1, head - 1], lang),
        induction=pct(m["induction"][layer - 1, head - 1], lang),
    )


# What the page shows of the section, through the shadow roots: the bars (caption; per row
# label, value, note), the readouts' values, the notes, the map's cells, the step chooser's
# buttons (text and pressed), the prompt box; null for what is not drawn.
SNAPSHOT_JS = f"""() => {{
  {DEEP_FIND_JS}
  const one = (tid) => deepFind(document, '[data-testid="' + tid + '"]');
  const textOf = (tid) => {{ const el = one(tid); return el ? el.textContent : null; }};
  const value = (tid) => {{
    const el = one(tid);
    return el ? el.querySelector(".c04-value").textContent : null;
  }};
  const table = one("next-word-bars");
  const map = one("next-word-map");
  const control = (name) => deepFind(document, '[data-control="' + name + '"]');
  const buttons = (name) => {{
    const box = control(name);
    return box ? [...box.querySelectorAll("button")].map(
      (b) => [b.textContent, b.getAttribute("aria-pressed") === "true"]) : null;
  }};
  const input = (name) => {{
    const box = control(name);
    return box ? box.querySelector("input").value : null;
  }};
  return {{
    caption: table && table.caption ? table.caption.textContent : null,
    bars: table ? [...table.rows].slice(1).map(
      (tr) => [tr.cells[0].textContent, tr.cells[1].textContent, tr.cells[3].textContent]) : null,
    kept: value("next-word-kept"),
    mass: value("next-word-mass"),
    entropy: value("next-word-entropy"),
    text: textOf("next-word-text"),
    step: textOf("next-word-step"),
    heads: textOf("next-word-heads"),
    map: map ? [...map.tBodies[0].rows].map(
      (tr) => [...tr.cells].slice(1).map((c) => c.textContent)) : null,
    map_tokens: map ? [...map.tHead.rows[0].cells].slice(1).map((c) => c.textContent) : null,
    map_missing: textOf("next-word-map-missing"),
    prompt_error: textOf("next-word-prompt-error"),
    steps: buttons("step"),
    examples: buttons("examples"),
    sequence: buttons("sequence"),
    prompt: input("prompt"),
    seed: input("seed"),
    temperature: input("temperature"),
    top_k: input("top_k"),
    top_p: input("top_p"),
    layer: input("layer"),
    head: input("head"),
  }};
}}"""

SHOWS_JS = f"""(want) => {{
  const got = ({SNAPSHOT_JS})();
  return Object.keys(want).every((k) => JSON.stringify(got[k]) === JSON.stringify(want[k]));
}}"""


def snapshot(page) -> dict:
    return page.evaluate(SNAPSHOT_JS)


def expect_shows(page, want: dict, where: str = "", timeout: float = 15_000) -> dict:
    """Wait until every item of ``want`` is on the page (a condition, no fixed wait); then
    assert it (a readable difference when it never came). Returns the page's snapshot."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(SHOWS_JS, arg=want, timeout=timeout)
    got = snapshot(page)
    wrong = {k: {"page": got[k], "want": v} for k, v in want.items() if got[k] != v}
    assert not wrong, f"{where}: {wrong}"
    return got


def board(page):
    """The section's Board (its outermost column)."""
    return page.locator(".c04-col", has=page.locator('[data-testid="next-word-bars"]')).first


def press_range(page, label: str, *keys: str) -> None:
    """Keys on the native range named ``label`` (it moves by its step, as a student's)."""
    handle = slider_handle(board(page), label)
    handle.focus()
    for key in keys:
        handle.press(key)


def button(page, key: str, **values):
    return board(page).get_by_role("button", name=t(key, **values), exact=True)
