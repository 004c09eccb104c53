"""ExplorerView without a browser: the controls drive the model and the panes follow it.

The map, the focus row and the announcement are explorer.js's drawing of the model's numbers
(dashboards.demos.explorer.numbers), read as the browser has them (tests/c04_views.py runs that
drawing in Node); every text and number is checked against the model and the catalogue.
"""

from __future__ import annotations

import json
import logging
import types

import numpy as np
import panel as pn
import pytest

from attnmodel.explorer import DEFAULT_SENTENCE, AttentionExplorer, percentages
from attnmodel.i18n import Refusal, text
from dashboards.components.board import Board
from dashboards.components.markup import Markup, md_html
from dashboards.demos.explorer import ExplorerView, numbers, token_labels

from c04_testing import (
    announce_spec,
    board_labels,
    board_texts,
    control_value,
    one_refusal,
    spanish_words_left,
    spec_text,
    use,
    viewable_texts,
)
from c04_views import drawn, js_views

SEED_ROW = ["0 %", "39 %", "3 %", "0 %", "0 %", "44 %", "2 %", "11 %"]
QUERY = text("explorer.query")  # the map's corner: "Consulta"


def looks_at(token: str) -> str:
    """The focus row's title in Spanish ("Adónde mira gato")."""
    return text("explorer.row_title", token=token)


def shown(view: ExplorerView, name: str) -> dict:
    """Slot ``name`` as the browser draws it (explorer.js, run by tests/c04_views.py)."""
    return drawn(view.board, view.lang)[name]


def cells(view: ExplorerView) -> list[list[str]]:
    spec = shown(view, "table")
    assert spec["testid"] == "explorer-table"
    assert len(spec["cells"]) == len(view.model.tokens)
    return spec["cells"]


def expected_cells(model: AttentionExplorer, lang: str = "es") -> list[list[str]]:
    return [
        [text("format.percent", lang, value=p) for p in row]
        for row in percentages(model.weights).tolist()
    ]


def row_texts(view: ExplorerView) -> list[str]:
    return shown(view, "row")["cells"]


def row_title(view: ExplorerView) -> str:
    return shown(view, "row")["title"]


def header(view: ExplorerView) -> list[str]:
    # The map's header row: "Consulta", then the tokens.
    table = shown(view, "table")
    return [table["corner"], *table["tokens"]]


def assert_draws_the_model(view: ExplorerView) -> None:
    """The map, the focus row and the announcement show the model's numbers: every text from
    the model and the catalogue, the bars' widths and the shades from its weights."""
    m, lang = view.model, view.lang
    focus = min(m.focus, len(m.tokens) - 1)
    table, row = shown(view, "table"), shown(view, "row")
    want = expected_cells(m, lang)
    assert table["testid"] == "explorer-table"
    assert table["corner"] == text("explorer.query", lang)
    assert table["tokens"] == row["tokens"] == m.tokens
    assert table["focus"] == row["focus"] == focus
    assert table["causal"] is row["causal"] is bool(m.causal)
    assert table["cells"] == want
    np.testing.assert_array_equal(table["weights"], m.weights)
    assert row["testid"] == "explorer-row"
    assert row["title"] == text("explorer.row_title", lang, token=m.tokens[focus])
    assert row["cells"] == want[focus]
    np.testing.assert_allclose(row["widths"], 100 * m.weights[focus], rtol=1e-15)
    top = int(np.argmax(m.weights[focus]))  # the first of equal largest weights
    said = announce_spec(
        "explorer", lang, token=m.tokens[focus], key=m.tokens[top], weight=want[focus][top]
    )
    assert shown(view, "announce") == json.loads(json.dumps(said))


def as_browser(view: ExplorerView):
    """The Board as the browser has it: its layout and every slot's spec (drawn or sent)."""
    specs = json.dumps(drawn(view.board, view.lang))
    return types.SimpleNamespace(layout=view.board.layout, specs_json=specs)


def all_pane_texts(view: ExplorerView) -> list[str]:
    # In layout order (a function selector walks the tree depth first); a Markup pane by the
    # texts of its spec, the Board by its fixed texts and its slots' specs (as the browser draws
    # them) in its layout order.
    panes = view.__panel__().select(
        lambda o: isinstance(o, (pn.pane.HTML, pn.pane.Markdown, Markup, Board))
    )
    texts = []
    for p in panes:
        if isinstance(p, Board):
            texts.extend(board_texts(as_browser(view), specs=True))
        else:
            texts.append(spec_text(p.spec) if isinstance(p, Markup) else p.object)
    return texts


def error_text(view: ExplorerView) -> str:
    return view.sentence_error.spec["text"]


def labels(slot) -> list[str]:
    """A choice's or a select's option labels, in order."""
    return [label for _, label in slot.spec["options"]]


def option(slot, label: str):
    """The value of a choice's or a select's option shown as ``label``."""
    return next(value for value, shown in slot.spec["options"] if shown == label)


@pytest.fixture
def view(panel_cleanup):
    return ExplorerView()


def test_builds_with_seed_text_in_order(view):
    # The whole section is one Board: header, controls, figures, notices and text.
    assert view.__panel__() is view.board
    shown = "\n".join(all_pane_texts(view))
    ordered = [
        text("demo.explorador"),
        text("explorer.lead"),
        "#transformers",
        "#atencion",
        "#fundamentos",
        "El problema que resuelve",
        "Mueve las variables",
        "Antes de la teoría, tócalo. Elige un token, cambia la frase, arrastra los deslizadores.",
        text("explorer.focus_label"),
        QUERY,  # the map's corner
        looks_at("gato"),
        text("explorer.caveat"),
        text("explorer.notice"),
        "Qué está pasando dentro",
        r"\frac{\exp(s_{ij}/T)}{\sum_k \exp(s_{ik}/T)}",
        "Un token que atiende 80 % a otro sale pareciéndose un 80 % a él.",
        "Queries, keys y values",
        "<th>Nombre</th>\n<th>Pregunta que responde</th>",  # the Markdown table, as HTML
        "<td>Key (K)</td>\n<td>¿Qué ofrezco para que me encuentren?</td>",
        "Qué tiene de juguete el visualizador",
        "Para llevarte",
        "Todo lo demás son detalles de ingeniería sobre esa idea.",
    ]
    positions = [shown.find(s) for s in ordered]
    assert all(p >= 0 for p in positions), [
        s for s, p in zip(ordered, positions, strict=True) if p < 0
    ]
    assert positions == sorted(positions)


def test_default_table_is_the_seed(view):
    assert header(view) == [QUERY, *DEFAULT_SENTENCE.split()]
    assert cells(view)[5] == SEED_ROW
    assert cells(view) == expected_cells(view.model)
    assert row_texts(view) == SEED_ROW
    assert row_title(view) == looks_at("gato")
    # The focus row is the highlighted one.
    assert shown(view, "table")["focus"] == 5
    assert_draws_the_model(view)


def test_duplicate_tokens_get_unique_readable_labels(view):
    assert labels(view.focus) == [
        "El", "gato", "duerme", "porque", "el", "gato (2)", "está", "cansado",
    ]  # fmt: skip
    assert option(view.focus, "gato (2)") == 5
    assert control_value(view.focus) == 5
    assert option(view.focus_list, "5 · gato") == 5
    assert control_value(view.focus_list) == 5
    assert token_labels(["a", "a", "a"]) == ["a", "a (2)", "a (3)"]


def test_clicking_a_token_sets_focus_and_heading(view):
    use(view, "focus", option(view.focus, "duerme"))
    assert view.model.focus == 2
    assert control_value(view.focus_list) == 2
    assert row_title(view) == looks_at("duerme")
    assert row_texts(view) == [f"{p} %" for p in view.model.row_percentages]
    assert shown(view, "table")["focus"] == 2
    assert_draws_the_model(view)


def test_select_sets_focus_and_buttons_follow(view):
    use(view, "focus_list", option(view.focus_list, "1 · gato"))
    assert view.model.focus == 1
    assert control_value(view.focus) == 1
    assert row_texts(view) == [f"{p} %" for p in view.model.row_percentages]
    view.model.focus = 7  # model -> both controls
    assert control_value(view.focus) == 7
    assert control_value(view.focus_list) == 7
    assert row_title(view) == looks_at("cansado")
    assert_draws_the_model(view)


def test_temperature_slider_reaches_model_and_table(view):
    slider = view.temperature
    spec = slider.spec
    assert (spec["start"], spec["end"], spec["step"], spec["decimals"]) == (0.1, 3.0, 0.05, 2)
    assert spec["decimal"] == ","
    assert board_labels(view.board)["temperature"] == text("explorer.temperature")
    before = cells(view)
    use(view, "temperature", 0.1)
    assert view.model.temperature == pytest.approx(0.1)
    assert cells(view) == expected_cells(view.model)
    assert cells(view) != before
    assert max(view.model.row_percentages) >= 75
    view.model.temperature = 3.0  # model -> slider
    assert control_value(slider) == pytest.approx(3.0)
    assert cells(view) == expected_cells(view.model)
    assert_draws_the_model(view)


def test_positional_checkbox_reaches_model_and_table(view):
    before = cells(view)
    use(view, "positional", False)
    assert view.model.positional is False
    assert cells(view) == expected_cells(view.model)
    assert cells(view) != before
    # Without position the two "gato" are the same vector: identical rows.
    assert cells(view)[1] == cells(view)[5]
    view.model.positional = True
    assert control_value(view.positional) is True


def test_causal_checkbox_switches_off_the_upper_triangle(view):
    use(view, "causal", True)
    assert view.model.causal is True
    table = cells(view)
    assert table == expected_cells(view.model)
    assert shown(view, "table")["causal"] is shown(view, "row")["causal"] is True  # j > i masked
    n = len(table)
    for i in range(n):
        for j in range(i + 1, n):
            assert table[i][j] == "0 %"
    assert table[0][0] == "100 %"
    assert_draws_the_model(view)
    view.model.causal = False
    assert control_value(view.causal) is False
    assert shown(view, "table")["causal"] is False


def test_new_sentence_updates_everything(view):
    use(view, "sentence", "la reina habla con el rey")
    m = view.model
    assert m.sentence == "la reina habla con el rey"
    assert m.focus == 5  # still in range
    assert header(view) == [QUERY, "la", "reina", "habla", "con", "el", "rey"]
    assert cells(view) == expected_cells(m)
    assert labels(view.focus) == ["la", "reina", "habla", "con", "el", "rey"]
    assert labels(view.focus_list)[0] == "0 · la"
    assert error_text(view) == ""
    # A shorter sentence moves the focus to its last token, and the controls follow.
    use(view, "sentence", "hola mundo")
    assert m.focus == 1
    assert control_value(view.focus) == 1
    assert control_value(view.focus_list) == 1
    assert row_title(view) == looks_at("mundo")
    assert cells(view) == expected_cells(m)
    assert_draws_the_model(view)
    # model -> box
    m.sentence = "uno dos tres"
    assert control_value(view.sentence) == "uno dos tres"


@pytest.mark.parametrize(
    ("typed", "fragment"),
    [("", "La frase está vacía"), ("   ", "La frase está vacía"), (" ".join(["a"] * 41), "41")],
)
def test_bad_sentence_shows_message_and_keeps_model(view, typed, fragment):
    before_table, before_state = shown(view, "table"), view.board.state_json
    use(view, "sentence", typed)
    assert view.model.sentence == DEFAULT_SENTENCE
    assert view.board.state_json == before_state
    assert shown(view, "table") == before_table
    assert control_value(view.sentence) == typed  # kept in the box, to be corrected
    message = error_text(view)
    assert fragment in message
    assert text("explorer.kept") in message
    # A valid sentence clears the message.
    use(view, "sentence", "otra frase")
    assert error_text(view) == ""


def test_html_in_the_sentence_is_escaped_everywhere(view):
    use(view, "sentence", "<script>alert(1)</script> <img src=x onerror=alert(1)> hola")
    m = view.model
    assert m.tokens[0] == "<script>alert(1)</script>"
    m.focus = 0
    # The Board's fixed HTML never holds it; the specs carry it as text for markup.js and
    # board.js, which escape it.
    assert "<script" not in json.dumps(view.board.layout)
    assert "<img" not in json.dumps(view.board.layout)
    # The numbers and the drawing carry the text as typed; markup.js escapes it
    # (tests/ui/test_twin_explorer.py).
    assert view.board.state["tokens"][0] == "<script>alert(1)</script>"
    assert shown(view, "table")["tokens"][0] == "<script>alert(1)</script>"
    assert row_title(view) == looks_at("<script>alert(1)</script>")
    assert header(view)[1] == "<script>alert(1)</script>"
    # board.js writes button and option labels as text: they keep what was typed.
    assert "<script>alert(1)</script>" in labels(view.focus)
    assert "0 · <script>alert(1)</script>" in labels(view.focus_list)


def test_notice_buttons_put_the_app_in_their_state(view):
    m = view.model
    m.param.update(sentence="hola mundo", temperature=2.0, positional=False, causal=True)
    use(view, "reset")
    assert (m.sentence, m.focus, m.temperature, m.positional, m.causal) == (
        DEFAULT_SENTENCE, 5, 1.0, True, False,
    )  # fmt: skip
    assert cells(view)[5] == SEED_ROW
    assert control_value(view.sentence) == DEFAULT_SENTENCE
    assert control_value(view.focus) == 5
    assert (control_value(view.positional), control_value(view.causal)) == (True, False)

    use(view, "cold")
    assert m.temperature == pytest.approx(0.1)
    assert control_value(view.temperature) == pytest.approx(0.1)
    assert max(m.row_percentages) >= 75
    assert row_texts(view) == [f"{p} %" for p in m.row_percentages]

    use(view, "hot")
    assert control_value(view.temperature) == pytest.approx(3.0)
    assert m.temperature == pytest.approx(3.0)
    assert max(m.row_percentages) < 30
    assert cells(view) == expected_cells(m)

    use(view, "causal_button")
    assert m.causal is True
    assert control_value(view.causal) is True
    assert cells(view)[0][1] == "0 %"
    assert cells(view) == expected_cells(m)


def test_reset_drops_a_rejected_text_from_the_box(view):
    use(view, "sentence", "")
    assert error_text(view)
    use(view, "reset")
    assert control_value(view.sentence) == DEFAULT_SENTENCE
    assert error_text(view) == ""


def test_a_new_focus_drops_a_refused_text_from_the_box(view):
    use(view, "sentence", "uno  dos")
    use(view, "sentence", "")
    use(view, "temperature", 2.0)  # another control: the message and the text stay
    assert error_text(view)
    assert control_value(view.sentence) == ""
    use(view, "focus_list", 0)
    assert control_value(view.sentence) == "uno  dos"  # the model's sentence, as typed
    assert error_text(view) == ""


def test_the_board_gets_the_models_numbers_and_the_controls_specs(view):
    """Numbers cross, specs don't: the Board's state is the model's numbers (no text, nothing
    formatted), the browser draws the map, the row and the announcement from it; the Board's
    specs are the controls' and the message's."""
    use(view, "sentence", "uno dos uno tres")
    use(view, "causal", True)
    m = view.model
    state = numbers(m)
    assert view.board.view == "explorer"
    assert view.board.state is state  # one shared object for every session in that state
    assert json.loads(view.board.state_json) == state
    assert set(state) == {"tokens", "focus", "causal", "weights"}
    assert (state["tokens"], state["focus"], state["causal"]) == (m.tokens, 3, True)
    assert all(type(w) is float for row in state["weights"] for w in row)
    np.testing.assert_array_equal(state["weights"], m.weights)
    assert set(view.board.specs) == {
        *("focus", "focus_list", "temperature", "positional", "causal"),
        *("sentence", "sentence_error"),
    }
    assert set(js_views().render("explorer", state)) == {"table", "row", "announce"}
    assert labels(view.focus) == token_labels(m.tokens) == ["uno", "dos", "uno (2)", "tres"]
    assert view.focus.spec["value"] == view.focus_list.spec["value"] == 3
    assert view.focus_list.spec["options"][2] == [2, "2 · uno"]
    assert_draws_the_model(view)


def test_forty_token_sentence_updates_every_cell(view):
    words = " ".join(f"palabra{i % 7}x{i}" for i in range(40))
    use(view, "sentence", words)
    assert len(cells(view)) == 40
    assert cells(view) == expected_cells(view.model)
    for t in np.linspace(0.1, 3.0, 4):
        view.model.temperature = float(t)
        assert cells(view) == expected_cells(view.model)
    assert_draws_the_model(view)
    # Uniform rows: 2.5 % each, a half rounded up.
    uniform = {"tokens": [f"t{i}" for i in range(40)], "focus": 3, "causal": False}
    spec = js_views().render("explorer", {**uniform, "weights": np.full((40, 40), 1 / 40).tolist()})
    assert spec["table"]["cells"] == [["3 %"] * 40] * 40


# --- The page in English: the same view with lang="en" --------------------------------------

SEED_ROW_EN = ["0%", "39%", "3%", "0%", "0%", "44%", "2%", "11%"]
ENGLISH = "the cat sleeps because the cat is tired"


@pytest.fixture
def english(panel_cleanup):
    return ExplorerView(lang="en")


def english_left(view: ExplorerView) -> set[str]:
    """Spanish words on the English view, outside the examples marked lang="es" and outside the
    tokens of the sentence being explored: the token buttons show the student's own sentence
    (data, in whatever language it was typed; by default the kept Spanish example)."""
    tokens = {t.lower() for t in view.model.tokens}
    texts = [viewable_texts(view), *board_texts(as_browser(view), specs=True)]
    return spanish_words_left("\n".join(texts)) - tokens


def test_english_page_has_no_spanish_left_and_keeps_the_spanish_example(english):
    assert english_left(english) == set()
    use(english, "sentence", ENGLISH)  # the student's own sentence: English throughout
    assert english_left(english) == set()
    # The default sentence is Spanish model data: quoted, marked lang="es", glossed, said so.
    move = text("explorer.move", "en")
    assert f'<i lang="es">{DEFAULT_SENTENCE}</i>' in move
    assert "Spanish example kept" in move
    assert "The cat sleeps because the cat is tired" in " ".join(move.split())
    assert md_html(move) in "\n".join(all_pane_texts(english))
    assert english.sentence.spec["placeholder"] == text("explorer.placeholder", "en")
    named = board_labels(english.board)
    assert named["temperature"] == "Temperature T"
    assert [named["cold"], named["hot"]] == ["T = 0.1", "T = 3"]
    assert "towards 0.1" in "\n".join(all_pane_texts(english))


def test_english_numbers_use_a_decimal_point_and_follow_the_controls(english):
    assert header(english)[0] == "Query"
    assert cells(english)[5] == SEED_ROW_EN
    assert row_texts(english) == SEED_ROW_EN
    assert row_title(english) == "What gato looks at"
    assert (english.temperature.spec["decimals"], english.temperature.spec["decimal"]) == (2, ".")
    use(english, "cold")
    cold = [f"{p}%" for p in AttentionExplorer(temperature=0.1).row_percentages]
    assert row_texts(english) == cold != SEED_ROW_EN
    assert cells(english)[5] == cold
    use(english, "causal", True)
    assert cells(english)[0][1] == "0%"
    assert_draws_the_model(english)


@pytest.mark.parametrize(("typed", "count"), [("", None), (" ".join(["a"] * 41), "41")])
def test_english_refused_sentence_is_said_in_english(english, typed, count):
    with pytest.raises(Refusal) as refused:
        AttentionExplorer(sentence=typed)
    use(english, "sentence", typed)
    message = error_text(english)
    assert message == f"{refused.value.message('en')} {text('explorer.kept', 'en')}"
    assert message.endswith("The previous sentence is kept.")
    assert spanish_words_left(message) == set()
    if count:
        assert count in message
    assert english.model.sentence == DEFAULT_SENTENCE
    assert english_left(english) == set()


@pytest.mark.parametrize(
    "message",
    [
        {"control": "focus", "value": 8},  # past the sentence's last token
        {"control": "focus", "value": -1},
        {"control": "focus", "value": True},
        {"control": "focus", "value": 2.5},
        {"control": "focus", "value": "2"},
        {"control": "focus_list", "value": None},
        {"control": "focus_list", "value": [2]},
        {"control": "temperature", "value": 0},
        {"control": "temperature", "value": 30},
        {"control": "temperature", "value": True},
        {"control": "temperature", "value": "2"},
        {"control": "temperature", "value": None},
        {"control": "positional", "value": 0},
        {"control": "positional", "value": "no"},
        {"control": "causal", "value": None},
        {"control": "sentence", "value": 5},
        {"control": "sentence", "value": None},
        {"control": "sentence", "value": ["uno", "dos"]},
        {"control": "reset", "value": 1},
        {"control": "cold", "value": None},
        {"control": "hot", "value": True},
        {"control": "causal_button", "value": 1},
        {"control": "table", "value": 1},
        {"control": "n_heads", "value": 2},
        {"control": "temperature", "value": 2.0, "extra": 1},
        {"control": "temperature"},
        {"value": 2.0},
        "temperature=2",
        None,
    ],
)
def test_a_forged_control_message_is_refused_and_the_state_kept(view, message, caplog):
    """What no page sends (out of bounds, the wrong type, a control the board does not have,
    a button with a value) is one INFO line; the model and every control and figure stay."""
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    m = view.model
    before = (m.sentence, m.focus, m.temperature, m.positional, m.causal)
    specs = dict(view.board.specs)
    view.board.receive(message)
    assert (m.sentence, m.focus, m.temperature, m.positional, m.causal) == before
    assert view.board.specs == specs
    one_refusal(caplog)


def test_every_control_is_on_the_board_with_its_label(view):
    assert board_labels(view.board) == {
        "sentence": text("explorer.sentence"),
        "focus": text("explorer.focus_label"),
        "focus_list": text("explorer.list_label"),
        "temperature": text("explorer.temperature"),
        "positional": text("explorer.positional"),
        "causal": text("explorer.causal"),
        "reset": text("explorer.reset"),
        "cold": "T = 0,1",
        "hot": "T = 3",
        "causal_button": text("explorer.causal_button"),
    }
    assert view.sentence.spec["max_length"] == view.model.param.sentence.max_chars
    assert view.sentence.spec["placeholder"] == text("explorer.placeholder")
