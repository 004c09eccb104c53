"""CapitalView without a browser: country and identity drive every step on screen, in Spanish
and (the same view with ``lang="en"``) in English, the model's Spanish words kept and marked."""

from __future__ import annotations

import logging
import re

import numpy as np
import panel as pn
import pytest
from bokeh.models import Plot

from attnmodel import CapitalWalkthrough
from attnmodel.capital import W_K, W_Q, W_V, U
from attnmodel.formatting import es_number, number
from attnmodel.i18n import text
from dashboards.components.markup import Markup, md_html, section_markdown
from dashboards.components.style import CATEGORY_COLORS
from dashboards.demos.capital import CapitalView, numbers

from c04_testing import (
    board_labels,
    board_texts,
    control_value,
    label_text,
    one_refusal,
    spanish_words_left,
    spec_find,
    spec_table,
    spec_text,
    use,
    viewable_texts,
)
from c04_views import drawn, js_views

VOCAB = ["París", "Roma", "grande", "bonita", "antigua", "famosa", "una", "muy"]


def shown(view: CapitalView, name: str) -> dict:
    """Slot ``name`` of the steps' Board as the browser draws it (capital.js, run by
    tests/c04_views.py)."""
    return drawn(view.steps, view.lang)[name]


def readout(view: CapitalView, testid: str) -> str:
    """The text of a readout's value (the model's words as text, marked or not)."""
    return label_text(spec_find(shown(view, "readouts"), testid)["value"])


def unmarked(spec) -> str:
    """A spec's texts outside the words marked as Spanish ({"text", "lang": "es"})."""
    if isinstance(spec, dict):
        if spec.get("lang") == "es":
            return ""
        spec = [v for k, v in spec.items() if k not in ("testid", "shade")]
    if isinstance(spec, list):
        return " ".join(unmarked(v) for v in spec)
    return spec if isinstance(spec, str) else ""


def table(spec: dict, testid: str) -> list[list[str]]:
    """A table spec's rows (header row and labels included), found by its data-testid."""
    assert spec["testid"] == testid
    return spec_table(spec)


def column(view_html: str, testid: str) -> dict[str, str]:
    """A vertical word -> value table (logits, probabilities)."""
    return {row[0]: row[1] for row in table(view_html, testid)[1:]}


# The probability bars' fixed scale: a bar's full width is p = 0.6 (the old chart's y range).
PROBABILITY_FULL = 0.6
# The bars' colours: the attention's blue; París, Roma and the six other words.
ATTENTION_BLUE = "#1f5fa8"
OTHER_GREY = "#b8c2cf"


def bars(spec: dict, testid: str) -> dict:
    """A bars spec's columns, found by its data-testid: each row's label as text ("label"), its
    value text ("value"), its bar's width in % ("width") and colour ("color")."""
    assert spec["testid"] == testid
    rows = spec["rows"]
    return {
        "label": [label_text(row["label"]) for row in rows],
        "value": [row["value"] for row in rows],
        "width": [row["width"] for row in rows],
        "color": [row.get("color", spec.get("color")) for row in rows],
    }


def attention_bars(view: CapitalView) -> dict:
    return bars(shown(view, "attention_bars"), "capital-attention-bars")


def probability_bars(view: CapitalView) -> dict:
    return bars(shown(view, "probability_bars"), "capital-probability-bars")


def probability_widths(probabilities) -> list[float]:
    """Each word's bar: its probability on the 0–0.6 scale, in %, a full bar at most."""
    return [min(100.0, 100 * float(p) / PROBABILITY_FULL) for p in probabilities]


@pytest.fixture
def view(panel_cleanup):
    v = CapitalView()
    v.__panel__().get_root()  # renders the plots
    return v


def box_titles(board) -> list[str]:
    """The titles (HTML) of a Board's boxes, in the layout's order."""
    found = []

    def walk(node):
        if "box" in node:
            found.append(node["title"])
        for child in node.get("row", []) + node.get("col", []) + node.get("box", []):
            walk(child)

    walk({"col": board.layout})
    return found


def box_steps(board) -> list[str]:
    """The css classes of a Board's boxes, in the layout's order."""
    found = []

    def walk(node):
        if "box" in node:
            found.append(node.get("css", ""))
        for child in node.get("row", []) + node.get("col", []):
            walk(child)

    walk({"col": board.layout})
    return found


def test_builds_with_the_seed_text(view):
    layout = view.__panel__()
    assert isinstance(layout, pn.Column)
    # The header and the controls in a Board, the stepper, the steps in another: no pane.
    assert layout.objects[0] is view.board
    assert layout.objects[2] is view.steps
    # Both Boards are drawn by capital.js from the same numbers, each its own slots: the first
    # has only its controls (their specs are Python's).
    assert view.board.view == view.steps.view == "capital"
    assert view.board.state_json == view.steps.state_json != ""
    assert drawn(view.board) == view.board.specs
    assert set(view.board.specs) == {"country", "identity"}
    assert layout.select(pn.pane.Markdown) == []
    title = text("demo.capital").replace("___", r"\_\_\_")
    header = board_texts(view.board)[0]
    assert header == md_html(section_markdown(title, text("capital.intro"), anchor="capital"))
    assert "La capital de ___ es …" in header
    assert "<math" in header  # its formulas as MathML
    assert board_labels(view.board) == {
        "country": text("capital.country"),
        "identity": text("capital.identity"),
    }
    # The identity's scale is said under its control.
    assert text("capital.identity_note") in board_texts(view.board)
    # The steps' texts: the Board's prose, made HTML (formulas MathML) once.
    seen = board_texts(view.steps)
    for piece in (
        text("capital.step.attention_caption", es="es"),
        text("capital.step.distribution"),
    ):
        assert md_html(piece) in seen
    assert layout.select(pn.Card) == []
    titles = box_titles(view.steps)
    assert titles == [
        md_html(title)
        for title in (
            "1 · Tokens",
            "2 · Embeddings",
            text("capital.step.position_title"),
            "4 · Q, K, V",
            text("capital.step.scores_title", es="es"),
            "6 · Softmax",
            text("capital.step.mixed_title"),
            text("capital.step.logits_title"),
        )
    ]
    # Box n is step n of the stepper.
    assert box_steps(view.steps) == [f"c04-step-{n}" for n in range(1, 9)]
    assert titles[4] == "<p>5 · Puntajes de «es» (÷ √3)</p>"  # the seed's
    assert text("capital.readout.loss") in spec_text(shown(view, "readouts"))
    assert "−ln p" in spec_text(shown(view, "readouts"))


def test_default_numbers_are_the_notes(view):
    # docs/ejemplos-trabajados.md, identity +0,90.
    assert readout(view, "capital-prediction") == "París"
    assert readout(view, "capital-probability") == "0,3805"
    assert readout(view, "capital-loss") == "0,9662"
    assert table(shown(view, "attention_row"), "capital-attention-row")[1][1:6] == [
        "0,0038",
        "0,3151",
        "0,0337",
        "0,6468",
        "0,0006",
    ]
    assert table(shown(view, "scores"), "capital-scores")[1][1:] == [
        "0,0000",
        "4,4188",
        "2,1820",
        "5,1379",
        "−1,8160",
    ]
    assert shown(view, "mixed")["text"] == "z = (1,9953; −0,2850; 0,5821)"
    assert table(shown(view, "query"), "capital-query")[1] == ["es", "4,16", "0,00", "0,00"]
    assert table(shown(view, "embeddings"), "capital-embeddings")[4] == [
        "Francia",
        "2,00",
        "0,00",
        "0,90",
    ]
    assert table(shown(view, "with_position"), "capital-with-position")[4] == [
        "Francia",
        "2,1411",
        "−0,9900",
        "0,9000",
    ]


def test_steps_show_the_model(view):
    model = view.model
    emb = table(shown(view, "embeddings"), "capital-embeddings")
    assert emb[0] == ["", "lugar", "función", "identidad"]
    assert [r[0] for r in emb[1:]] == model.tokens
    for name, testid, values in [
        ("pe", "capital-pe", model.positional),
        ("with_position", "capital-with-position", model.with_position),
        ("keys", "capital-keys", model.K),
        ("values", "capital-values", model.V),
    ]:
        rows = table(shown(view, name), testid)[1:]
        assert [r[1:] for r in rows] == [[es_number(v, 4) for v in row] for row in values]
    # The fixed weights (step 4, whole numbers, no data-testid) and the unembedding U (step 8).
    dims = ["", "lugar", "función", "identidad"]
    for name, weights in (("w_q", W_Q), ("w_k", W_K), ("w_v", W_V)):
        spec = shown(view, name)
        assert (spec["testid"], spec["title"]) == (None, name.upper())
        assert spec_table(spec) == [dims] + [
            [dims[i + 1], *(es_number(v, 0) for v in row)] for i, row in enumerate(weights)
        ]
    unembedding = table(shown(view, "unembedding"), "capital-unembedding")
    assert unembedding == [dims] + [
        [word, *(es_number(v) for v in row)] for word, row in zip(VOCAB, U, strict=True)
    ]
    assert shown(view, "unembedding")["title"] == text("capital.table.unembedding")
    for word, logit in zip(VOCAB, model.logits, strict=True):
        assert column(shown(view, "logits"), "capital-logits")[word] == es_number(logit, 4)
    for word, p in zip(VOCAB, model.probability_vector, strict=True):
        assert column(shown(view, "probabilities"), "capital-probabilities")[word] == es_number(
            p, 4
        )


def test_country_select_sets_identity_slider_and_readouts(view):
    use(view, "country", "Italia")
    assert view.model.country == "Italia"
    assert view.model.identity == pytest.approx(-0.90)
    assert control_value(view.identity) == pytest.approx(-0.90)
    expected = CapitalWalkthrough(country="Italia", identity=-0.90)
    assert readout(view, "capital-prediction") == "Roma" == expected.prediction
    assert readout(view, "capital-probability") == es_number(expected.probability, 4) == "0,3398"
    assert readout(view, "capital-loss") == es_number(expected.loss, 4)
    assert "Italia" in shown(view, "tokens")["tokens"]
    assert table(shown(view, "embeddings"), "capital-embeddings")[4][0] == "Italia"
    use(view, "country", "Francia")
    assert control_value(view.identity) == pytest.approx(0.90)
    assert readout(view, "capital-prediction") == "París"


@pytest.mark.parametrize("identity", [0.5, 0.0, -0.3, -1.0, 1.0])
def test_identity_slider_changes_probabilities_and_readouts(view, identity):
    use(view, "identity", identity)
    assert view.model.identity == identity
    expected = CapitalWalkthrough(identity=identity)
    probabilities = column(shown(view, "probabilities"), "capital-probabilities")
    assert probabilities == {w: es_number(p, 4) for w, p in expected.probabilities.items()}
    assert readout(view, "capital-prediction") == expected.prediction
    assert readout(view, "capital-probability") == es_number(expected.probability, 4)
    assert readout(view, "capital-loss") == es_number(expected.loss, 4)
    seen = probability_bars(view)
    assert seen["label"] == VOCAB
    np.testing.assert_allclose(seen["width"], probability_widths(expected.probability_vector))
    assert seen["value"] == [es_number(p, 4) for p in expected.probability_vector]


def test_identity_zero_is_a_tie(view):
    use(view, "identity", 0.0)
    assert readout(view, "capital-prediction") == "París o Roma (empate)"
    probabilities = column(shown(view, "probabilities"), "capital-probabilities")
    assert probabilities["París"] == probabilities["Roma"] == "0,2374"
    assert "p(París) = p(Roma)" in spec_text(shown(view, "readouts"))


def test_attention_row_is_identical_for_every_identity(view):
    texts, widths = [], []
    for identity in (0.9, 0.0, -0.9):
        use(view, "identity", identity)
        texts.append(table(shown(view, "attention_row"), "capital-attention-row")[1])
        widths.append(attention_bars(view)["width"])
    assert texts[0] == texts[1] == texts[2]
    np.testing.assert_allclose(widths[0], widths[1])
    np.testing.assert_allclose(widths[0], widths[2])
    np.testing.assert_allclose(np.asarray(widths[0]) / 100, view.model.attention_row)
    # ... and for the other country, whose name is the only change in the header row.
    use(view, "country", "Italia")
    assert table(shown(view, "attention_row"), "capital-attention-row")[1] == texts[0]


def test_other_six_words_have_logit_zero(view):
    for identity in (0.9, -0.45):
        use(view, "identity", identity)
        logits = column(shown(view, "logits"), "capital-logits")
        assert [logits[w] for w in VOCAB[2:]] == ["0,0000"] * 6
        assert logits["París"] != "0,0000"
        probabilities = column(shown(view, "probabilities"), "capital-probabilities")
        assert len({probabilities[w] for w in VOCAB[2:]}) == 1


def test_attention_bars_follow_the_country(view):
    seen = attention_bars(view)
    assert seen["label"] == ["0 · La", "1 · capital", "2 · de", "3 · Francia", "4 · es"]
    assert seen["value"] == ["0,0038", "0,3151", "0,0337", "0,6468", "0,0006"]
    # Widths on the 0–1 scale: docs/ejemplos-trabajados.md's weights, in %.
    np.testing.assert_allclose(seen["width"], [0.38, 31.51, 3.37, 64.68, 0.06], atol=0.005)
    assert seen["color"] == [ATTENTION_BLUE] * 5
    use(view, "country", "Italia")
    seen = attention_bars(view)
    assert seen["label"][3] == "3 · Italia"
    assert seen["label"][:3] == ["0 · La", "1 · capital", "2 · de"]
    np.testing.assert_allclose(np.asarray(seen["width"]) / 100, view.model.attention_row)


def test_bar_charts_are_markup_built_once(view):
    """Two tables drawn by markup.js (no Bokeh figure, no canvas), the same components after
    every change, their headers the catalogue's axis words."""
    root = view.__panel__().get_root()
    assert [m for m in root.references() if isinstance(m, Plot)] == []
    assert [m for m in root.references() if isinstance(m, Markup)] == []  # slots of the Board
    kinds = {name: view.steps.kinds[name] for name in ("attention_bars", "probability_bars")}
    assert kinds == {"attention_bars": "bars", "probability_bars": "bars"}
    before = {m.id for m in root.references()}
    use(view, "identity", -0.4)
    use(view, "country", "Italia")
    assert {m.id for m in root.references()} == before  # the same models, new numbers
    assert probability_bars(view)["label"] == VOCAB
    expected = CapitalWalkthrough(country="Italia", identity=-0.9)
    np.testing.assert_allclose(
        probability_bars(view)["width"], probability_widths(expected.probability_vector)
    )
    spec = shown(view, "probability_bars")
    assert (spec["corner"], spec["head"]) == (
        text("capital.chart.word_axis"),
        text("capital.chart.probability_axis"),
    )
    assert (spec["corner"], spec["head"]) == ("palabra siguiente", "probabilidad")
    spec = shown(view, "attention_bars")
    assert (spec["corner"], spec["head"]) == ("token", text("capital.chart.weight_axis"))
    assert spec["head"] == "peso de atención"


def test_probability_bars_keep_a_fixed_scale(view):
    """A bar's width is p / 0.6 in every state (the scale does not follow the largest p), so
    two states' bars compare; a probability of 0.6 or more would fill it."""
    for identity in (0.9, 0.0, -1.0):
        use(view, "identity", identity)
        model = CapitalWalkthrough(identity=identity)
        widths = probability_bars(view)["width"]
        for p, width in zip(model.probability_vector, widths, strict=True):
            assert width == pytest.approx(p / 0.6 * 100)
    assert probability_widths([0.75]) == [100.0]


def test_vocabulary_bar_colours(view):
    colors = probability_bars(view)["color"]
    assert colors[:2] == list(CATEGORY_COLORS[:2])  # París, Roma
    assert colors[2:] == [OTHER_GREY] * 6  # the six "resto" words


def test_model_changes_move_the_controls(view):
    view.model.identity = 0.25
    assert control_value(view.identity) == 0.25
    assert readout(view, "capital-probability") == es_number(view.model.probability, 4)
    view.model.country = "Italia"
    assert control_value(view.country) == "Italia"
    assert control_value(view.identity) == pytest.approx(-0.90)


def test_asymmetry_box_uses_the_model_slopes(view):
    slopes = view.model.identity_slopes
    html = spec_text(shown(view, "asymmetry"))
    assert spec_find(shown(view, "asymmetry"), "capital-slope-paris")["text"] == es_number(
        slopes["París"], 4
    )
    assert spec_find(shown(view, "asymmetry"), "capital-slope-roma")["text"] == es_number(
        slopes["Roma"], 4
    )
    assert "× 1,00" in html
    assert "× (−0,61)" in html
    assert "p(París | +0,90) = 0,3805" in html
    assert "p(Roma | −0,90) = 0,3398" in html
    use(view, "identity", 0.5)
    assert "p(Roma | −0,50) = " + es_number(
        CapitalWalkthrough(identity=-0.5).probabilities["Roma"], 4
    ) in spec_text(shown(view, "asymmetry"))


def test_identity_control_range(view):
    spec = view.identity.spec
    assert (spec["start"], spec["end"], spec["step"]) == (-1.0, 1.0, 0.01)
    assert (spec["start"], spec["end"]) == view.model.param.identity.bounds
    assert (spec["decimals"], spec["decimal"]) == (2, ",")  # "0,90", as the page writes it
    assert board_labels(view.board)["identity"] == text("capital.identity")
    assert board_labels(view.board)["country"] == text("capital.country")
    assert [value for value, _ in view.country.spec["options"]] == ["Francia", "Italia"]
    assert text("capital.country_help") in board_texts(view.board)


@pytest.mark.parametrize(
    "message",
    [
        {"control": "country", "value": "Alemania"},
        {"control": "country", "value": "francia"},
        {"control": "country", "value": 1},
        {"control": "country", "value": None},
        {"control": "country", "value": ["Italia"]},
        {"control": "identity", "value": 1.5},
        {"control": "identity", "value": -2},
        {"control": "identity", "value": float("nan")},
        {"control": "identity", "value": float("inf")},
        {"control": "identity", "value": True},
        {"control": "identity", "value": "0.5"},
        {"control": "identity", "value": None},
        {"control": "identity", "value": [0.5]},
        {"control": "readouts", "value": 1},
        {"control": "identity", "value": 0.5, "extra": 1},
        {"control": "identity"},
        {"value": 0.5},
        "country=Italia",
        None,
    ],
)
def test_a_forged_control_message_is_refused_and_the_state_kept(view, message, caplog):
    """What no page sends (a country the model does not have, an identity out of its bounds or
    not a number, a slot that is no control) is one INFO line; every step stays."""
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    before = (view.board.specs_json, view.steps.specs_json, view.steps.state_json)
    view.board.receive(message)
    assert (view.model.country, view.model.identity) == ("Francia", 0.90)
    assert (view.board.specs_json, view.steps.specs_json, view.steps.state_json) == before
    one_refusal(caplog)


# --------------------------------------------------------------------------------------------
# English: the same view with lang="en"; the model's Spanish words kept, marked lang="es".
# --------------------------------------------------------------------------------------------

# The model's words that are Spanish only (English has "capital"; "La", "de", "es", "una" and
# "muy" are too short for spanish_words_left but are marked all the same).
MODEL_WORDS = ("Francia", "Italia", "París", "Roma", "grande", "bonita", "antigua", "famosa")
KEPT_OUT = re.compile(r'<(\w+)\b[^>]*\blang="es"[^>]*>.*?</\1>', re.S)


def outside_kept(markup: str) -> str:
    """``markup`` without the elements marked lang="es" (the examples kept in Spanish)."""
    return KEPT_OUT.sub(" ", markup)


@pytest.fixture
def english(panel_cleanup):
    v = CapitalView(lang="en")
    v.__panel__().get_root()
    return v


def test_english_view_has_no_spanish_left(english):
    # The bars' labels are the model's words, marked lang="es" as in the tables.
    labels = [
        *attention_bars(english)["label"],
        *probability_bars(english)["label"],
    ]
    assert labels[:5] == ["0 · La", "1 · capital", "2 · de", "3 · Francia", "4 · es"]
    assert labels[5:] == VOCAB
    for chart in ("attention_bars", "probability_bars"):
        assert all(
            label_text(row["label"], without_lang="es").strip(" ·0123456789") == ""
            for row in shown(english, chart)["rows"]
        )
    lines = viewable_texts(english).split("\n")
    # ... the select's value is the only Spanish left, the model's country (its option shows
    # "France").
    data = {english.country.spec["value"]}
    assert spanish_words_left("\n".join(line for line in lines if line not in data)) == set()
    assert spanish_words_left("\n".join(lines)) <= {w.lower() for w in MODEL_WORDS}
    layout = english.__panel__()
    titles = box_titles(english.steps)
    assert titles[2] == "<p>3 · + position</p>"
    assert titles[4] == '<p>5 · Scores of “<span lang="es">es</span>” (÷ √3)</p>'
    assert board_labels(english.board) == {"country": "Country", "identity": "Country identity"}
    assert shown(english, "probability_bars")["corner"] == "next word"
    assert shown(english, "probability_bars")["head"] == "probability"
    assert shown(english, "attention_bars")["head"] == "attention weight"
    assert attention_bars(english)["value"] == ["0.0038", "0.3151", "0.0337", "0.6468", "0.0006"]
    # The title is the registry's, the intro says the example stays Spanish, with a gloss.
    assert layout.select(pn.pane.Markdown) == []
    header = board_texts(english.board)[0]  # Markdown made HTML: "\_\_\_" shows "___"
    assert f"<h2>{text('demo.capital', 'en')}</h2>" in header
    assert "Spanish example kept" in header
    assert '<span lang="es">«La capital de Francia es …»</span> means “The capital of France' in (
        header
    )


def test_english_keeps_the_model_words_marked(english):
    """Every model word in the English HTML is inside a lang="es" element: the tokens, the
    vocabulary, the prediction, the asymmetry box and the tables' headers."""
    panes = ["tokens", "embeddings", "scores", "attention_row", "logits", "probabilities"]
    panes += ["readouts", "asymmetry", "attention_bars", "probability_bars", "unembedding"]
    for identity in (0.9, 0.0):
        use(english, "identity", identity)
        for pane in panes:
            left = unmarked(shown(english, pane))
            assert not [w for w in MODEL_WORDS if re.search(rf"\b{w}\b", left)], left
            for short in ("La", "de", "es", "una", "muy"):
                assert f">{short}<" not in left
    # The Board's fixed texts (box titles, prose): a model word only inside lang="es".
    for fixed in board_texts(english.board) + board_texts(english.steps):
        left = outside_kept(fixed)
        assert not [w for w in MODEL_WORDS if re.search(rf"\b{w}\b", left)], fixed
    assert shown(english, "embeddings")["rows"][3]["label"] == {"text": "Francia", "lang": "es"}
    assert shown(english, "embeddings")["cols"] == ["place", "function", "identity"]
    assert {"text": "grande", "lang": "es"} in [
        r["label"] for r in shown(english, "unembedding")["rows"]
    ]
    # The select shows the countries in English; its values stay the model's.
    assert english.country.spec["options"] == [["Francia", "France"], ["Italia", "Italy"]]
    assert control_value(english.country) == "Francia"


def test_english_numbers_use_a_decimal_point(english):
    assert spec_find(shown(english, "readouts"), "capital-prediction")["value"] == {
        "text": "París",
        "lang": "es",
    }
    assert readout(english, "capital-probability") == "0.3805"
    assert readout(english, "capital-loss") == "0.9662"
    assert table(shown(english, "attention_row"), "capital-attention-row")[1][1:6] == [
        "0.0038",
        "0.3151",
        "0.0337",
        "0.6468",
        "0.0006",
    ]
    assert shown(english, "mixed")["text"] == "z = (1.9953, −0.2850, 0.5821)"
    assert shown(english, "attention_row")["note"] == "The row sums to Σ = 1.0000"
    # docs/ejemplos-trabajados.md, identity +0,90: París 0,3805, Roma 0,1491, the others 0,0784.
    assert probability_bars(english)["value"][:3] == ["0.3805", "0.1491", "0.0784"]
    assert spec_find(shown(english, "asymmetry"), "capital-slope-roma")["text"] == "−0.3945"
    seen = spec_text(shown(english, "asymmetry"))
    assert "p(París | +0.90) = 0.3805, p(Roma | −0.90) = 0.3398." in seen
    assert "París" not in unmarked(shown(english, "asymmetry"))  # marked as Spanish


def test_english_controls_change_the_numbers(english):
    use(english, "country", "Italia")
    assert control_value(english.identity) == pytest.approx(-0.90)
    assert spec_find(shown(english, "readouts"), "capital-prediction")["value"] == {
        "text": "Roma",
        "lang": "es",
    }
    assert readout(english, "capital-probability") == "0.3398"
    assert table(shown(english, "embeddings"), "capital-embeddings")[4] == [
        "Italia",
        "2.00",
        "0.00",
        "−0.90",
    ]
    use(english, "identity", 0.0)
    assert readout(english, "capital-prediction") == "París or Roma (a tie)"
    assert "París" not in unmarked(spec_find(shown(english, "readouts"), "capital-prediction"))
    assert readout(english, "capital-probability") == "0.2374"
    assert "At identity 0 they tie" in spec_text(shown(english, "asymmetry"))
    use(english, "identity", -0.5)
    expected = CapitalWalkthrough(identity=-0.5)
    assert readout(english, "capital-probability") == number(expected.probability, 4, lang="en")
    assert readout(english, "capital-probability") != es_number(expected.probability, 4)


def test_english_render_is_the_spanish_one_in_other_words():
    """Same numbers in both languages; the bars' values differ only in the separator, their
    labels only in the mark of the model's words, their headers in the language."""
    for identity in (0.9, 0.0, -0.37):
        model = CapitalWalkthrough(identity=identity)
        state = numbers(model)
        es, en = js_views("es").render("capital", state), js_views("en").render("capital", state)
        assert list(es) == list(en)
        for chart in ("attention_bars", "probability_bars"):
            testid = es[chart]["testid"]
            assert bars(es[chart], testid)["label"] == bars(en[chart], testid)["label"]
            for mine, theirs in zip(es[chart]["rows"], en[chart]["rows"], strict=True):
                assert mine["value"].replace(",", ".") == theirs["value"]
                assert (mine["width"], mine.get("color")) == (theirs["width"], theirs.get("color"))
        assert es["probability_bars"]["rows"][0]["label"] == "París"
        assert en["probability_bars"]["rows"][0]["label"] == {"text": "París", "lang": "es"}
        assert es["attention_bars"]["head"] == "peso de atención"
        assert en["attention_bars"]["head"] == "attention weight"
