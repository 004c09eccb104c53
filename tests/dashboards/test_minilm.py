"""dashboards.demos.minilm: the real model's section, its grid's spec, its view and its export."""

from __future__ import annotations

import base64
import html
import json
import logging

import numpy as np
import pytest

from attnmodel.formatting import percent
from attnmodel.i18n import Refusal, languages, say, text
from attnmodel.minilm import (
    DEFAULT_SENTENCE,
    ENGLISH_SENTENCE,
    LECTURE_SENTENCES,
    MAX_CHARS,
    MAX_PIECES,
    MAX_WORDS,
    N_HEADS,
    N_LAYERS,
    MiniLMDemo,
    model,
)
from attnmodel.multihead import RELATIONS, SENTENCES
from dashboards.components.markup import spec_json
from dashboards.demos.minilm import (
    DECIMALS,
    HeadGrid,
    MiniLMView,
    grid_spec,
    render,
    render_sentence,
    render_toy,
    role_text,
)

from c04_testing import board_labels, control_value, one_refusal, use

DEFAULTS = {
    "sentence": DEFAULT_SENTENCE,
    "layer": 0,
    "head": 2,
    "toy_sentence": SENTENCES[0],
}


@pytest.fixture(scope="module")
def views():
    """One view per language for the module (a view builds in ~0.1 s, the tests are many)."""
    return {lang: MiniLMView(lang=lang) for lang in languages()}


@pytest.fixture
def view(views):
    """The Spanish view, back at the model's defaults with an empty, enabled text box."""
    v = views["es"]
    v.model.param.update(**DEFAULTS)
    use(v, "sentence", DEFAULT_SENTENCE)
    assert v.sentence_error.spec == {}
    assert control_value(v.sentence) == DEFAULT_SENTENCE
    return v


def decoded(spec: dict) -> np.ndarray:
    """The grid's numbers as head_grid.mjs reads them (``weights``: base64 of uint16
    little-endian ten-thousandths): [layers, heads, n, n] in [0, 1]."""
    n = len(spec["pieces"])
    raw = np.frombuffer(base64.b64decode(spec["weights"], validate=True), dtype="<u2")
    return raw.reshape(spec["layers"], spec["heads"], n, n) / 10**DECIMALS


# -- the render ------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", languages())
def test_render_fills_every_target_of_the_view(views, lang):
    view = views[lang]
    assert set(render(view.model, lang)) == set(view.client_targets())
    assert set(render(MiniLMDemo(sentence=ENGLISH_SENTENCE), lang)) == set(view.client_targets())


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("sentence", [DEFAULT_SENTENCE, ENGLISH_SENTENCE])
def test_the_grid_carries_the_model_s_attention_and_its_measured_roles(sentence, lang):
    demo = MiniLMDemo(sentence=sentence)
    spec = render(demo, lang)["grid"]
    assert spec is grid_spec(sentence, lang)
    assert spec["pieces"] == list(demo.pieces)
    assert (spec["layers"], spec["heads"]) == (N_LAYERS, N_HEADS)
    numbers = decoded(spec)
    np.testing.assert_allclose(numbers, demo.attention, rtol=0, atol=0.5 / 10**DECIMALS + 1e-9)
    assert len(spec["tiles"]) == N_LAYERS
    for la in range(N_LAYERS):
        assert len(spec["tiles"][la]) == N_HEADS
        for h in range(N_HEADS):
            aria = spec["tiles"][la][h]["aria"]
            role = demo.roles[la][h]
            assert text("minilm.head_name", lang, layer=la + 1, head=h + 1) in aria
            assert role_text(role.role, role.score, lang) in aria
            shares = [percent(float(s), 0, lang) for s in demo.scores[la, h]]
            assert spec["scores"][la][h] == shares


def test_a_tile_says_the_role_in_the_catalogue_s_words():
    demo = MiniLMDemo()
    role = demo.roles[0][2]
    for lang in languages():
        said = text(f"minilm.role.{role.role}", lang, share=percent(role.score, 0, lang))
        assert role_text(role.role, role.score, lang) == said
        assert said in grid_spec(DEFAULT_SENTENCE, lang)["tiles"][0][2]["title"]


@pytest.mark.parametrize("lang", languages())
def test_the_pieces_and_their_counts_are_the_model_s(lang):
    demo = MiniLMDemo()
    out = render_sentence(DEFAULT_SENTENCE, lang)
    items = {i["testid"]: i["value"] for i in out["readouts"]["items"]}
    assert items["minilm-pieces-count"] == str(len(demo.pieces) - 2)
    assert items["minilm-words"] == str(len(DEFAULT_SENTENCE.split()))
    assert " · ".join(demo.pieces) in json.dumps(out["pieces"], ensure_ascii=False)
    assert out["sentence"]["value"] == DEFAULT_SENTENCE
    assert out["sentence_list"]["value"] == DEFAULT_SENTENCE
    assert out["sentence_error"] == {}


def test_words_are_counted_as_the_caps_count_them_not_the_tokenizer_s():
    # The tokenizer makes "today." two words ("today", "."); the cap (40 words) counts spaces.
    sentence = "The weather is lovely today."
    assert len(model().encode(sentence).words) == 6
    items = {i["testid"]: i["value"] for i in render_sentence(sentence)["readouts"]["items"]}
    assert items["minilm-words"] == "5"


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("toy_sentence", SENTENCES)
def test_each_toy_head_is_shown_beside_its_real_head(toy_sentence, lang):
    out = render_toy(toy_sentence, lang)
    k_range = range(len(RELATIONS))
    assert set(out) == {f"toy_{k}" for k in k_range} | {f"real_{k}" for k in k_range} | {"toy"}
    assert out["toy"] == {"value": toy_sentence, "options": [[s, s] for s in SENTENCES]}
    matches = MiniLMDemo(toy_sentence=toy_sentence).toy_matches
    words = toy_sentence.split()
    for k, match in enumerate(matches):
        relation = text(f"multihead.relation.{RELATIONS[k]}", lang)
        assert out[f"toy_{k}"]["title"] == text("minilm.toy.toy_title", lang, relation=relation)
        real = out[f"real_{k}"]
        similarity = percent(match.similarity, 0, lang)
        assert real["title"] == text(
            "minilm.toy.real_title",
            lang,
            layer=match.layer + 1,
            head=match.head + 1,
            similarity=similarity,
        )
        for spec, matrix in ((out[f"toy_{k}"], match.toy), (real, match.real)):
            np.testing.assert_allclose([row["shade"] for row in spec["rows"]], matrix)
            # The sentence's words stay Spanish, marked as such on a page in another language.
            labels = words if lang == "es" else [{"text": w, "lang": "es"} for w in words]
            assert spec["cols"] == labels
            assert [row["label"] for row in spec["rows"]] == labels


# -- the view --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "refusal"),
    [
        (
            " ".join(["cat"] * (MAX_WORDS + 1)),
            Refusal("core.sentence_too_long", n=MAX_WORDS + 1, max_tokens=MAX_WORDS),
        ),
        ("supercalifragilistic " * 10, None),  # too many pieces: its count from the tokenizer
        ("   ", Refusal("core.sentence_empty")),
    ],
)
def test_a_refused_sentence_is_said_and_the_model_keeps_its_own(view, typed, refusal):
    if refusal is None:
        n = len(model().encode(typed).pieces) - 2
        refusal = Refusal("minilm.too_many_pieces", n=n, max_pieces=MAX_PIECES)
    before = render(view.model, "es")
    use(view, "sentence", typed)
    assert view.model.sentence == DEFAULT_SENTENCE
    assert control_value(view.sentence) == typed  # kept in the box, to be corrected
    assert view.sentence_error.spec["text"] == f"{say(refusal, 'es')} {text('minilm.kept', 'es')}"
    assert view.sentence_error.spec["testid"] == "minilm-sentence-error"
    assert render(view.model, "es") == before
    # A valid sentence clears the message, and what is shown follows it.
    use(view, "sentence", "A dog barks at night.")
    assert view.sentence_error.spec == {}
    assert view.model.sentence == "A dog barks at night."
    assert view.grid.spec["pieces"] == list(model().encode("A dog barks at night.").pieces)
    assert view.grid.spec != before["grid"]


def test_the_refusal_is_said_in_the_view_s_language(views):
    view = views["en"]
    view.model.param.update(**DEFAULTS)
    use(view, "sentence", " ".join(["cat"] * (MAX_WORDS + 1)))
    said = text("core.sentence_too_long", "en", n=MAX_WORDS + 1, max_tokens=MAX_WORDS)
    assert view.sentence_error.spec["text"] == f"{said} {text('minilm.kept', 'en')}"
    use(view, "sentence", DEFAULT_SENTENCE)  # the same sentence: the message goes
    assert view.sentence_error.spec == {}
    assert control_value(view.sentence) == DEFAULT_SENTENCE
    assert view.model.sentence == DEFAULT_SENTENCE


def test_the_english_button_and_the_select(view):
    use(view, "english")
    assert view.model.sentence == ENGLISH_SENTENCE
    assert control_value(view.sentence_list) == ENGLISH_SENTENCE
    assert control_value(view.sentence) == ENGLISH_SENTENCE
    assert view.grid.spec is grid_spec(ENGLISH_SENTENCE, "es")
    use(view, "sentence_list", LECTURE_SENTENCES[-1])
    assert view.model.sentence == LECTURE_SENTENCES[-1]
    assert control_value(view.sentence) == LECTURE_SENTENCES[-1]
    assert [v for v, _ in view.sentence_list.spec["options"]] == list(LECTURE_SENTENCES)


def test_the_toy_select_moves_the_comparison(view):
    view.toy_board.receive({"control": "toy", "value": SENTENCES[2]})
    assert view.model.toy_sentence == SENTENCES[2]
    assert view.real[0].spec == render_toy(SENTENCES[2], "es")["real_0"]
    view.model.toy_sentence = SENTENCES[1]
    assert control_value(view.toy_sentence) == SENTENCES[1]


def test_a_click_in_the_grid_selects_the_head_and_the_model_moves_the_grid(view, caplog):
    """A click or an arrow key is the grid's message {selected: [layer, head]} (head_grid.mjs):
    taken without a line; the model then moves the grid (server → browser)."""
    with caplog.at_level(logging.INFO, logger="dashboards.runtime.clients"):
        view.grid.receive({"selected": [3, 4]})
    assert caplog.records == []
    assert (view.model.layer, view.model.head) == (3, 4)
    assert view.grid.selected == [3, 4]
    np.testing.assert_array_equal(view.model.selected, view.model.attention[3, 4])
    view.model.layer = 2
    assert view.grid.selected == [2, 4]
    view.model.head = 11
    assert view.grid.selected == [2, 11]


# Anything a forged message can carry: wrong types, off the grid, other keys, not a dict.
FORGED_SELECTIONS = [
    {"selected": ["a", 1]},
    {"selected": [9, 0]},
    {"selected": [N_LAYERS, 0]},
    {"selected": [0, N_HEADS]},
    {"selected": [-1, 0]},
    {"selected": [1, N_HEADS + 87]},  # a valid layer with a head off the grid
    {"selected": [1]},
    {"selected": []},
    {"selected": [1, 2, 3]},
    {"selected": [True, 1]},
    {"selected": [1.0, 2]},
    {"selected": [2**70, 1]},
    {"selected": "x"},
    {"selected": None},
    {"selected": {"layer": 1}},
    {"selected": [1, 2], "extra": 1},
    {"layer": 1, "head": 2},
    {},
    [1, 2],
    "x",
    None,
]


@pytest.mark.parametrize("forged", FORGED_SELECTIONS)
def test_a_forged_selection_is_refused_with_one_info_line_and_the_head_kept(view, forged, caplog):
    view.grid.receive({"selected": [3, 4]})
    state = dict(view.model.param.values())
    with caplog.at_level(logging.INFO):
        view.grid.receive(forged)
    assert (view.model.layer, view.model.head) == (3, 4)
    assert dict(view.model.param.values()) == state
    assert view.grid.selected == [3, 4]
    assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
    one_refusal(caplog)


@pytest.mark.parametrize("forged", [[9, 1], ["a", 1], [1, 2], "x", None, (3, 4), 5])
def test_a_client_that_writes_the_selection_itself_is_refused_and_the_grid_put_back(
    view, forged, caplog
):
    """``selected`` is the server's (a page only sends a message): a client that writes the
    property itself, even a head on the grid, moves nothing; the model's is put back and one
    INFO line says so."""
    view.grid.receive({"selected": [3, 4]})
    with caplog.at_level(logging.INFO, logger="dashboards.runtime.clients"):
        view.grid.selected = forged
    assert (view.model.layer, view.model.head) == (3, 4)
    assert view.grid.selected == [3, 4]
    assert len(caplog.records) == 1


def test_a_client_that_writes_the_grid_s_spec_is_refused_and_the_server_s_kept(view, caplog):
    """Only the grid's ``spec`` sets the text it draws: a forged ``spec_json`` is one INFO line
    and the server's is sent back."""
    shown = view.grid.spec_json
    with caplog.at_level(logging.INFO, logger="dashboards.runtime.clients"):
        view.grid.spec_json = '{"pieces": ["x"]}'
    assert view.grid.spec_json == shown
    assert len(caplog.records) == 1
    assert "spec_json" in caplog.records[0].getMessage()
    view.model.sentence = ENGLISH_SENTENCE  # the server's own change is no refusal
    assert view.grid.spec_json == spec_json(grid_spec(ENGLISH_SENTENCE, "es"))
    assert len(caplog.records) == 1


def test_the_export_s_grid_chooses_in_the_page(view):
    """Offline (no server) the page sets ``selected`` itself: the grid knows it is offline."""
    assert view.grid.offline is False
    view.enable_client_side()
    assert view.grid.offline is True
    assert "selected" not in getattr(HeadGrid, "client_writes", ())


def test_the_select_can_go_back_after_a_typed_sentence(view):
    use(view, "sentence", "A dog barks at night.")
    # The typed sentence is the select's first option while it is the model's.
    options = [v for v, _ in view.sentence_list.spec["options"]]
    assert options == ["A dog barks at night.", *LECTURE_SENTENCES]
    assert control_value(view.sentence_list) == "A dog barks at night."
    use(view, "sentence_list", DEFAULT_SENTENCE)
    assert view.model.sentence == DEFAULT_SENTENCE
    assert [v for v, _ in view.sentence_list.spec["options"]] == list(LECTURE_SENTENCES)


# -- the export ------------------------------------------------------------------------------


@pytest.fixture(scope="module", params=languages())
def exported(request):
    """(view, states, count) of an exported view, per language."""
    view = MiniLMView(lang=request.param)
    states: dict = {}
    count = view.enable_client_side(states)
    return view, states, count


def test_the_export_embeds_every_lecture_and_toy_sentence_under_1_mb(exported):
    _, states, count = exported
    table = states["minilm"]
    assert set(table["sentences"]) == set(LECTURE_SENTENCES)
    assert set(table["toys"]) == set(SENTENCES)
    assert count == len(LECTURE_SENTENCES) + len(SENTENCES)
    size = len(json.dumps(table, ensure_ascii=False).encode("utf-8"))
    assert size <= 1_000_000, size


def test_the_export_embeds_what_the_live_view_renders(exported):
    view, states, _ = exported
    lang = view.lang
    for sentence, embedded in states["minilm"]["sentences"].items():
        live = dict(render_sentence(sentence, lang))
        # The box shows the sentence, disabled: free text needs the live server.
        live["sentence"] = {**live["sentence"], "disabled": True}
        assert embedded == live, sentence
        assert all(type(v) is dict for v in embedded.values() if isinstance(v, dict))
        assert json.loads(json.dumps(embedded)) == json.loads(json.dumps(live))
    for toy_sentence, embedded in states["minilm"]["toys"].items():
        assert embedded == render_toy(toy_sentence, lang), toy_sentence


def test_the_export_disables_free_text_and_says_so(exported):
    view, _, _ = exported
    assert view.sentence.spec["disabled"] is True
    assert view.sentence_hint.object == ""  # Enter applies nothing there
    assert MiniLMView(lang=view.lang).sentence_hint.object == view.hint_html
    # The note is an "html" slot of the Board above the grid: empty live, set by the export.
    assert MiniLMView(lang=view.lang).export_note.object == ""
    assert view.export_note.kind == "html"
    assert "disabled" not in view.english.spec  # the English sentence is embedded
    assert "disabled" not in view.sentence_list.spec
    assert html.escape(text("minilm.export_note", view.lang)) in view.export_note.object


# -- the controls: native, on the two Boards -------------------------------------------------


@pytest.mark.parametrize(
    ("board", "message"),
    [
        ("board", {"control": "sentence", "value": 5}),
        ("board", {"control": "sentence", "value": None}),
        ("board", {"control": "sentence", "value": ["uno"]}),
        ("board", {"control": "sentence_list", "value": "no-existe"}),
        ("board", {"control": "sentence_list", "value": "A dog barks at night."}),  # not offered
        ("board", {"control": "sentence_list", "value": 0}),
        ("board", {"control": "sentence_list", "value": None}),
        ("board", {"control": "english", "value": 1}),
        ("board", {"control": "toy", "value": SENTENCES[1]}),  # the other board's
        ("board", {"control": "readouts", "value": 1}),
        ("board", {"value": DEFAULT_SENTENCE}),
        ("board", None),
        ("toy_board", {"control": "toy", "value": "no-existe"}),
        ("toy_board", {"control": "toy", "value": 1}),
        ("toy_board", {"control": "toy", "value": None}),
        ("toy_board", {"control": "toy", "value": SENTENCES[1], "extra": 1}),
        ("toy_board", {"control": "sentence", "value": ENGLISH_SENTENCE}),
        ("toy_board", "toy"),
    ],
)
def test_a_forged_control_message_is_refused_and_the_state_kept(view, board, message, caplog):
    """What no page sends is one INFO line; the model, both boards and the grid stay."""
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    state = dict(view.model.param.values())
    before = (dict(view.board.specs), dict(view.toy_board.specs), view.grid.spec)
    getattr(view, board).receive(message)
    assert dict(view.model.param.values()) == state
    assert (dict(view.board.specs), dict(view.toy_board.specs), view.grid.spec) == before
    one_refusal(caplog)


def test_the_controls_are_labelled_and_the_spanish_sentences_marked_on_an_english_page(views):
    for lang, view in views.items():
        named = {**board_labels(view.board), **board_labels(view.toy_board)}
        assert named == {
            "sentence": text("minilm.sentence", lang),
            "english": text("minilm.english", lang),
            "sentence_list": text("minilm.examples", lang),
            "toy": text("minilm.toy.sentence", lang),
        }
        nodes = [n for n in view.board.layout + view.toy_board.layout if isinstance(n, dict)]
        marked = {n["slot"]: n.get("lang") for n in nodes if n.get("control")}
        # The lecture's sentences stay Spanish: their selects say so on another page.
        expected = None if lang == "es" else "es"
        assert marked == {"sentence_list": expected, "toy": expected}
        assert view.sentence.spec["placeholder"] == text("minilm.placeholder", lang)
        assert view.sentence.spec["max_length"] == MAX_CHARS
