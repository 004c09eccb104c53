"""BlockView without a browser: every text and number block.js draws (run in Node by
``drawn``), in Spanish and English, against the model's walk (tested on its own in
tests/attnmodel/test_block.py), Python's number writing and the catalogue; the controls and
what a forged message gets."""

from __future__ import annotations

import logging

import pytest

from attnmodel.block import DEFAULT_PROMPTS, LENS_TOP, BlockDemo, walk_of
from attnmodel.formatting import number, percent
from attnmodel.i18n import Refusal, text
from dashboards.demos import block as block_module
from dashboards.demos.block import BlockView, numbers
from dashboards.runtime import model_thread

from c04_testing import label_text, one_refusal, spec_find, use
from c04_views import drawn

LANGS = ("es", "en")


def t(key, lang, **values):
    return text(f"block.{key}", lang, **values)


def shown(token: str) -> str:
    return token.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥")


def items(spec) -> list[tuple[str, str, str, str]]:
    """A readouts spec's items: (testid, label, value, unit)."""
    return [
        (i["testid"], label_text(i["label"]), label_text(i["value"]), label_text(i["unit"]))
        for i in spec["items"]
    ]


def expected_steps(which: str, layer: int, lang: str) -> dict[int, list[tuple[str, str, str]]]:
    """Each step's readouts (label, value, unit) written here from the walk and the catalogue."""
    w = walk_of(which, DEFAULT_PROMPTS[which])
    d = w["layers"][layer - 1]
    s = w["shapes"]
    n = lambda x: number(x, 2, lang=lang)  # noqa: E731
    vec = f"[{s['d_model']}]"
    vocab = "[49\u202f152]" if which == "smollm" else f"[{s['vocab']}]"
    heads = t("shape_heads", lang, heads=s["heads"], d_head=s["d_head"])
    kv = t("shape_heads", lang, heads=s["kv_heads"], d_head=s["d_head"])
    into_attention = d["input"] if which == "tiny" else d["norm1"]
    shape, before, after = (t(k, lang) for k in ("shape", "norm_in", "norm_out"))

    def io(sh, b, a):
        return [(shape, sh, ""), (before, n(b), ""), (after, n(a), "")]

    steps = {
        1: [(shape, vec, ""), (after, n(d["input"]), "")],
        3: [
            (before, n(into_attention), ""),
            (t("norm_q", lang), n(d["q"]), heads),
            (t("norm_k", lang), n(d["k"]), kv),
            (t("norm_v", lang), n(d["v"]), kv),
        ],
        4: io(vec, into_attention, d["attention"]),
        5: io(vec, d["input"], d["mid"]),
        9: [*io(vocab, d["out"], d["logits"]), (t("top_logit", lang), n(d["top_logit"]), "")],
        10: [(shape, vocab, ""), (t("norm_p", lang), n(d["probabilities"]), "")],
    }
    if which == "smollm":
        steps[2] = io(vec, d["input"], d["norm1"])
        steps[6] = io(vec, d["mid"], d["norm2"])
        steps[7] = [
            (before, n(d["norm2"]), ""),
            (t("norm_hidden", lang), n(d["hidden"]), "[1536]"),
            (after, n(d["mlp"]), vec),
        ]
        steps[8] = io(vec, d["mid"], d["out"])
    return steps


def view_at(lang: str, **state) -> BlockView:
    view = BlockView(model=BlockDemo(), lang=lang)
    for name, value in state.items():
        use(view, name, value)
    return view


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("layer", [1, 17, 30])
def test_every_step_s_shape_and_norms_as_the_walk_has_them(lang, layer):
    view = view_at(lang, layer=layer)
    specs = drawn(view.steps, lang)
    for n, rows in expected_steps("smollm", layer, lang).items():
        got = items(specs[f"step_{n}"])
        assert [(label, value, unit) for _, label, value, unit in got] == rows, n
        assert all(testid.startswith(f"block-step-{n}-") for testid, *_ in got)


@pytest.mark.parametrize("lang", LANGS)
def test_the_lens_at_each_state_of_the_stream_is_its_top_5(lang):
    layer = 30
    view = view_at(lang, layer=layer)
    specs = drawn(view.steps, lang)
    d = walk_of("smollm", DEFAULT_PROMPTS["smollm"])["layers"][layer - 1]
    for n, state in ((1, "input"), (5, "mid"), (8, "out"), (10, "out")):
        bars = specs[f"lens_{n}"]
        assert bars["caption"] == t("lens_caption", lang, layer=layer)
        lens = d["lens"][state]
        assert len(bars["rows"]) == LENS_TOP
        assert [r["label"] for r in bars["rows"]] == [shown(x) for x in lens["tokens"]]
        assert [r["value"] for r in bars["rows"]] == [percent(p, 1, lang) for p in lens["p"]]
    # After the last layer: the model's own prediction, " Paris" first.
    assert specs["lens_10"]["rows"][0]["label"] == "␣Paris"
    assert specs["note_10"]["text"] == t("note.softmax_last", lang)
    assert specs["note_9"]["text"] == t("note.head_last.smollm", lang)


@pytest.mark.parametrize("lang", LANGS)
def test_a_layer_before_the_last_says_its_head_is_the_logit_lens(lang):
    specs = drawn(view_at(lang, layer=4).steps, lang)
    assert specs["note_9"]["text"] == t("note.head_lens", lang, layer=4)
    assert specs["note_10"]["text"] == t("note.softmax_lens", lang, layer=4)
    assert specs["note_1"]["text"] == t("note.entering", lang, layer=4)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("step", range(1, 11))
def test_the_step_in_detail_follows_its_control(lang, step):
    view = view_at(lang, layer=12, step=step)
    assert view.model.step == step
    specs = drawn(view.board, lang)
    rows = expected_steps("smollm", 12, lang)[step]
    got = items(specs["detail"])
    assert [(label, value, unit) for _, label, value, unit in got] == rows
    title = t(f"step.{step}", lang)
    expected = t("detail_title", lang, layer=12, n_layers=30, title=title)
    assert label_text(specs["detail_title"]["text"]) == expected
    assert ("detail_lens" in specs) == (step in (1, 5, 8, 10))


@pytest.mark.parametrize("lang", LANGS)
def test_the_overview_has_every_layer(lang):
    specs = drawn(view_at(lang, layer=30).steps, lang)
    table = specs["overview"]
    layers = walk_of("smollm", DEFAULT_PROMPTS["smollm"])["layers"]
    assert label_text(table["title"]) == t("overview.title", lang, n=30)
    assert table["cols"] == [
        t(f"overview.{k}", lang) for k in ("out", "attention", "mlp", "top", "p")
    ]
    assert len(table["rows"]) == 30
    for i, (row, d) in enumerate(zip(table["rows"], layers, strict=True)):
        label = t("overview.shown", lang, layer=30) if i == 29 else str(i + 1)
        assert label_text(row["label"]) == label
        assert row["cells"] == [
            number(d["out"], 2, lang=lang),
            number(d["attention"], 2, lang=lang),
            number(d["mlp"], 2, lang=lang),
            shown(d["lens"]["out"]["tokens"][0]),
            percent(d["lens"]["out"]["p"][0], 1, lang),
        ]


@pytest.mark.parametrize("lang", LANGS)
def test_the_tiny_transformer_shows_its_parts_and_says_which_it_lacks(lang):
    view = view_at(lang, which="tiny")
    assert view.model.prompt == DEFAULT_PROMPTS["tiny"]
    specs = drawn(view.steps, lang)
    for n, rows in expected_steps("tiny", 1, lang).items():
        got = items(specs[f"step_{n}"])
        assert [(label, value, unit) for _, label, value, unit in got] == rows, n
    for n in (2, 6, 7, 8):
        assert specs[f"step_{n}"]["items"] == []
        assert specs[f"note_{n}"]["text"] == t(f"missing.{n}", lang)
    assert specs["note_1"]["text"] == t("note.embedding.tiny", lang)
    assert specs["note_9"]["text"] == t("note.head_last.tiny", lang)
    assert len(specs["overview"]["rows"]) == 1
    assert specs["overview"]["rows"][0]["cells"][2] == t("overview.none", lang)
    board = drawn(view.board, lang)
    assert label_text(board["tokens"]["text"]).endswith("La · capital · de · Francia · [es]")
    assert view.layer_control.spec["disabled"] is True
    assert view.layer_control.spec["end"] == 1


@pytest.mark.parametrize("lang", LANGS)
def test_a_refused_prompt_is_said_beside_the_box_and_the_walk_kept(lang):
    view = view_at(lang, which="tiny")
    before = view.steps.state
    use(view, "prompt", "The capital of France is")
    assert view.model.prompt == DEFAULT_PROMPTS["tiny"]
    error = view.prompt_error.spec
    message = Refusal("training.unknown_word", word="The").message(lang)
    assert error["text"] == f"{message} {t('kept', lang)}"
    assert view.prompt_control.spec["value"] == "The capital of France is"  # kept to correct
    assert view.steps.state is before
    use(view, "prompt", "La capital de Italia es")
    assert view.prompt_error.spec == {}
    assert drawn(view.board, lang)["tokens"]["text"][2]["text"].endswith("[es]")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("which", "gpt"),
        ("layer", 31),
        ("layer", "3"),
        ("step", 11),
        ("step", 2.5),
        ("prompt", 5),
        ("prompt", None),
        ("nothing", 1),
    ],
)
def test_a_forged_value_is_one_info_line_and_nothing_changes(caplog, name, value):
    view = view_at("es")
    state = dict(view.model.param.values())
    with caplog.at_level(logging.INFO):
        use(view, name, value)
    one_refusal(caplog)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert dict(view.model.param.values()) == state


def test_the_section_says_it_is_loading_while_the_first_walk_runs(monkeypatch):
    pending = []
    monkeypatch.setattr(block_module.model_thread, "ready", lambda: False)
    monkeypatch.setattr(
        block_module.model_thread.Jobs, "submit", lambda self, *job: pending.append(job)
    )
    view = BlockView(model=BlockDemo(prompt="The capital of Spain is"), lang="en")
    assert view.status.spec["text"] == t("loading", "en")
    assert not view.steps.state  # nothing drawn until the walk is there
    work, done, _failed = pending[0]
    done(work())
    assert view.status.spec == {}
    assert view.steps.state["walk"]["prompt"] == "The capital of Spain is"


def test_numbers_are_plain_json_numbers_and_the_model_s_words():
    values = numbers(BlockDemo())
    assert set(values) == {"which", "layer", "step", "n_layers", "missing", "walk"}
    assert values["walk"] == walk_of("smollm", DEFAULT_PROMPTS["smollm"])


def test_the_export_embeds_both_lecture_prompts_every_layer():
    view = BlockView(model=BlockDemo())
    states: dict = {}
    count = view.enable_client_side(states)
    assert states["block"] == {w: walk_of(w, p) for w, p in DEFAULT_PROMPTS.items()}
    assert count == (30 + 1) * 10
    assert view.export_note.spec.find(t("export_note", "es")) > 0
    assert view.board.offline["demo"] == "block"
    assert view.board.offline["extra"]["prompts"] == DEFAULT_PROMPTS


def test_every_readout_has_its_testid():
    specs = drawn(view_at("es", layer=2).steps, "es")
    own = {3: "q", 7: "hidden"}
    for n in range(1, 11):
        assert spec_find(specs[f"step_{n}"], f"block-step-{n}-{own.get(n, 'shape')}")


def test_a_smollm_text_typed_while_the_model_loads_waits_for_it(monkeypatch):
    view = BlockView(lang="en")
    before = view.model.prompt
    monkeypatch.setattr(model_thread, "ready", lambda: False)
    view._on_control("prompt", "Hello there")
    assert view.model.prompt == before
    assert view.board.specs["prompt_error"]["text"] == text("block.loading", "en")
    assert view.board.specs["prompt"]["value"] == "Hello there"
