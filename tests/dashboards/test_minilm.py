"""dashboards.demos.minilm: the real model's section, the numbers it sends, what the browser draws
from them (tests/c04_views.py runs static/demos/minilm.js in Node), its view and its export."""

from __future__ import annotations

import base64
import html
import json
import logging

import numpy as np
import pytest

from attnmodel.formatting import number
from attnmodel.i18n import Refusal, languages, say, text
from attnmodel.minilm import (
    DEFAULT_SENTENCE,
    ENGLISH_SENTENCE,
    HEAD_ROLES,
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
from dashboards.demos.minilm import HeadGrid, MiniLMView, numbers

from c04_testing import (
    board_labels,
    control_value,
    label_text,
    minilm_grid_texts,
    minilm_sentence_texts,
    minilm_toy_titles,
    one_refusal,
    spec_find,
    use,
)
from c04_views import drawn, js_views

DEFAULTS = {
    "sentence": DEFAULT_SENTENCE,
    "layer": 0,
    "head": 2,
    "toy_sentence": SENTENCES[0],
}
TOYS = [name for k in range(len(RELATIONS)) for name in (f"toy_{k}", f"real_{k}")]


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


def decoded(state: dict) -> np.ndarray:
    """The grid's numbers as minilm.js reads them (``weights``: base64 of uint16
    little-endian ten-thousandths): [layers, heads, n, n] in [0, 1]."""
    n = len(state["pieces"])
    raw = np.frombuffer(base64.b64decode(state["weights"], validate=True), dtype="<u2")
    return raw.reshape(len(state["scores"]), len(state["scores"][0]), n, n) / 1e4


def grid_texts(view: MiniLMView) -> dict:
    """The grid's texts as the browser writes them from the grid's state (minilm.js)."""
    state = json.loads(view.grid.state_json)
    return js_views(view.lang).render("minilm_grid", state)["grid"]


def shown_states(view: MiniLMView) -> tuple:
    """Everything the view sends that follows the model: the three states and both boards'
    specs."""
    return (
        view.board.state_json,
        view.grid.state_json,
        view.toy_board.state_json,
        dict(view.board.specs),
        dict(view.toy_board.specs),
    )


# -- the numbers and what the browser draws from them -----------------------------------------


@pytest.mark.parametrize("lang", languages())
def test_the_boards_draw_every_slot_from_the_model_s_numbers(views, lang):
    view = views[lang]
    view.model.param.update(**DEFAULTS)
    assert view.board.view == "minilm"
    assert view.toy_board.view == "minilm_toy"
    values = numbers(view.model)
    assert (view.board.state, view.grid.state, view.toy_board.state) == (
        values["sentence"],
        values["grid"],
        values["toy"],
    )
    first = drawn(view.board, lang)
    assert {"readouts", "pieces", "announce"} <= set(first)
    assert set(drawn(view.toy_board, lang)) == {*TOYS, "toy"}


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("sentence", [DEFAULT_SENTENCE, ENGLISH_SENTENCE])
def test_the_grid_carries_the_model_s_attention_and_its_measured_roles(views, sentence, lang):
    view = views[lang]
    view.model.param.update(**{**DEFAULTS, "sentence": sentence})
    demo = MiniLMDemo(sentence=sentence)
    state = json.loads(view.grid.state_json)  # as the page reads it
    assert state["pieces"] == list(demo.pieces)
    np.testing.assert_allclose(decoded(state), demo.attention, rtol=0, atol=0.5e-4 + 1e-9)
    assert state["scores"] == np.asarray(demo.scores, dtype=float).tolist()
    assert [[state["roles"][i] for i in layer] for layer in state["role"]] == [
        [r.role for r in layer] for layer in demo.roles
    ]
    # Every tile's title, name and short label, every share, in the page's words.
    drawn_grid = grid_texts(view)
    expected = minilm_grid_texts(sentence, lang)
    for key, value in expected.items():
        assert drawn_grid[key] == value, key
    assert drawn_grid["label"] == text("minilm.grid.grid_label", lang)
    assert drawn_grid["layer_labels"] == [
        text("minilm.grid.layer_short", lang, n=la + 1) for la in range(N_LAYERS)
    ]
    # "C{n}": no field for the catalogue (a brace after a letter), the number written after.
    short = "C" if lang == "es" else "H"
    assert drawn_grid["head_labels"] == [f"{short}{h + 1}" for h in range(N_HEADS)]
    assert len(HEAD_ROLES) == len(drawn_grid["role_names"])


def test_a_tile_says_the_role_in_the_catalogue_s_words(views):
    """Layer 1, head 3 of the default sentence looks at the previous piece (measured: 100 %)."""
    assert MiniLMDemo().roles[0][2].role == "previous"
    tiles = {lang: grid_texts(views[lang])["tiles"][0][2] for lang in languages()}
    assert tiles["es"]["title"] == "Capa 1, cabeza 3 · mira al trozo anterior: 100 %"
    assert tiles["en"]["short"].endswith("100%")


@pytest.mark.parametrize("lang", languages())
def test_the_pieces_and_their_counts_are_the_model_s(views, lang):
    view = views[lang]
    view.model.param.update(**DEFAULTS)
    shown = drawn(view.board, lang)
    want = minilm_sentence_texts(DEFAULT_SENTENCE, lang)
    for tid in ("minilm-words", "minilm-pieces-count"):
        assert label_text(spec_find(shown["readouts"], tid)["value"]) == want[tid]
    unit = spec_find(shown["readouts"], "minilm-pieces-count")["unit"]
    assert label_text(unit) == text("minilm.readout.pieces_unit", lang, max_pieces=MAX_PIECES)
    assert label_text(shown["pieces"]["text"]) == want["minilm-pieces"]
    assert shown["pieces"]["testid"] == "minilm-pieces"
    said = text(
        "a11y.announce.minilm",
        lang,
        pieces=want["minilm-pieces-count"],
        words=want["minilm-words"],
    )
    assert label_text(shown["announce"]["text"]) == said
    assert shown["sentence"]["value"] == DEFAULT_SENTENCE
    assert shown["sentence_list"]["value"] == DEFAULT_SENTENCE
    assert shown["sentence_error"] == {}


def test_words_are_counted_as_the_caps_count_them_not_the_tokenizer_s(view):
    # The tokenizer makes "today." two words ("today", "."); the cap (40 words) counts spaces.
    sentence = "The weather is lovely today."
    assert len(model().encode(sentence).words) == 6
    use(view, "sentence", sentence)
    assert view.board.state["words"] == 5
    assert label_text(spec_find(drawn(view.board)["readouts"], "minilm-words")["value"]) == "5"


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("toy_sentence", SENTENCES)
def test_each_toy_head_is_shown_beside_its_real_head(views, toy_sentence, lang):
    view = views[lang]
    view.model.param.update(**{**DEFAULTS, "toy_sentence": toy_sentence})
    out = drawn(view.toy_board, lang)
    assert out["toy"] == {"value": toy_sentence, "options": [[s, s] for s in SENTENCES]}
    titles = minilm_toy_titles(toy_sentence, lang)
    matches = MiniLMDemo(toy_sentence=toy_sentence).toy_matches
    words = toy_sentence.split()
    for k, match in enumerate(matches):
        for kind, matrix in (("toy", match.toy), ("real", match.real)):
            spec = out[f"{kind}_{k}"]
            assert spec["title"] == titles[f"{kind}_{k}"]
            assert spec["testid"] == f"minilm-{kind}-{k + 1}"
            np.testing.assert_array_equal([row["shade"] for row in spec["rows"]], matrix)
            cells = [[number(a, 2, lang=lang) for a in row] for row in np.asarray(matrix)]
            assert [row["cells"] for row in spec["rows"]] == cells
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
    before = shown_states(view)
    use(view, "sentence", typed)
    assert view.model.sentence == DEFAULT_SENTENCE
    assert control_value(view.sentence) == typed  # kept in the box, to be corrected
    assert view.sentence_error.spec["text"] == f"{say(refusal, 'es')} {text('minilm.kept', 'es')}"
    assert view.sentence_error.spec["testid"] == "minilm-sentence-error"
    # The states and the other controls as they were: only the box and its message changed.
    after = shown_states(view)
    assert after[:3] == before[:3]
    assert after[4] == before[4]
    assert {k: v for k, v in after[3].items() if k not in ("sentence", "sentence_error")} == {
        k: v for k, v in before[3].items() if k not in ("sentence", "sentence_error")
    }
    # A valid sentence clears the message, and what is shown follows it.
    use(view, "sentence", "A dog barks at night.")
    assert view.sentence_error.spec == {}
    assert view.model.sentence == "A dog barks at night."
    assert view.grid.state["pieces"] == list(model().encode("A dog barks at night.").pieces)
    assert view.board.state["pieces"] == view.grid.state["pieces"]
    assert view.grid.state_json != before[1]


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
    assert view.grid.state["pieces"] == list(MiniLMDemo(sentence=ENGLISH_SENTENCE).pieces)
    use(view, "sentence_list", LECTURE_SENTENCES[-1])
    assert view.model.sentence == LECTURE_SENTENCES[-1]
    assert control_value(view.sentence) == LECTURE_SENTENCES[-1]
    assert [v for v, _ in view.sentence_list.spec["options"]] == list(LECTURE_SENTENCES)


def test_the_toy_select_moves_the_comparison(view):
    view.toy_board.receive({"control": "toy", "value": SENTENCES[2]})
    assert view.model.toy_sentence == SENTENCES[2]
    real = drawn(view.toy_board)["real_0"]
    assert real["title"] == minilm_toy_titles(SENTENCES[2])["real_0"]
    assert real["title"] != minilm_toy_titles(SENTENCES[0])["real_0"]
    view.model.toy_sentence = SENTENCES[1]
    assert control_value(view.toy_sentence) == SENTENCES[1]


def test_a_click_in_the_grid_selects_the_head_and_the_model_moves_the_grid(view, caplog):
    """A click or an arrow key is the grid's message {selected: [layer, head]} (minilm.js):
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


def test_a_client_that_writes_the_grid_s_state_is_refused_and_the_server_s_kept(view, caplog):
    """Only the grid's ``state`` sets the text it draws: a forged ``state_json`` is one INFO
    line and the server's is sent back."""
    shown = view.grid.state_json
    with caplog.at_level(logging.INFO, logger="dashboards.runtime.clients"):
        view.grid.state_json = '{"pieces": ["x"]}'
    assert view.grid.state_json == shown
    assert len(caplog.records) == 1
    assert "state_json" in caplog.records[0].getMessage()
    view.model.sentence = ENGLISH_SENTENCE  # the server's own change is no refusal
    pieces = json.loads(view.grid.state_json)["pieces"]
    assert pieces == list(MiniLMDemo(sentence=ENGLISH_SENTENCE).pieces)
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


def test_the_export_embeds_what_the_live_view_draws_in_every_language(exported):
    """The embedded numbers of each sentence are the live view's states for it (the tables hold
    numbers only: the same in every language)."""
    view, states, _ = exported
    live = MiniLMView(lang="es" if view.lang != "es" else "en")
    for sentence, embedded in states["minilm"]["sentences"].items():
        live.model.sentence = sentence
        assert embedded == {"sentence": live.board.state, "grid": live.grid.state}, sentence
        assert json.loads(json.dumps(embedded)) == embedded  # plain JSON data
    for toy_sentence, embedded in states["minilm"]["toys"].items():
        live.model.toy_sentence = toy_sentence
        assert embedded == live.toy_board.state, toy_sentence
    assert json.loads(json.dumps(states["minilm"])) == states["minilm"]


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
    before = shown_states(view)
    getattr(view, board).receive(message)
    assert dict(view.model.param.values()) == state
    assert shown_states(view) == before
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
