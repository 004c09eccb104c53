"""SelfAttentionView without a browser: widgets <-> model, and the numbers the board shows (its
drawing by self_attention.js, run in Node by tests/c04_views.py), against texts computed here
from the model and the catalogue."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from attnmodel import i18n
from attnmodel.formatting import es_number, large_number, number
from attnmodel.i18n import text
from attnmodel.self_attention import MAX_ABS, PRESETS, SelfAttention
from dashboards.components.markup import md_html
from dashboards.components.mathml import with_math
from dashboards.demos.self_attention import SelfAttentionView

import c04_testing
from c04_testing import board_labels, control_value, use
from c04_views import drawn

TOKENS = ["token 1", "token 2", "token 3"]


def shown(view: SelfAttentionView, name: str):
    """Slot ``name`` of the view's Board as the browser draws it (self_attention.js)."""
    return drawn(view.board, view.lang)[name]


def table(spec: dict, testid: str) -> list[list[str]]:
    """The cell texts of one table spec (by data-testid), row by row, without the Σ column."""
    assert spec["testid"] == testid
    return c04_testing.spec_rows(spec)


def sums(spec: dict) -> list[str]:
    return [row["sum"] for row in spec["rows"]]


def expected(matrix, decimals: int, lang: str = "es") -> list[list[str]]:
    """Each number as the section writes it: ``decimals`` decimals, 5 significant digits from
    10^6 on; −∞ where the causal mask hides a key."""
    return [
        ["−∞" if v == -np.inf else large_number(v, decimals, lang) for v in row]
        for row in np.asarray(matrix)
    ]


def gradient_text(g: float, lang: str = "es") -> str:
    """A row's ‖J‖: 0 below 5·10⁻⁶ (rounding noise), 5 decimals below 10⁻³, else 4."""
    g = 0.0 if g < 5e-6 else float(g)
    return number(g, 4 if g >= 1e-3 or g == 0 else 5, lang=lang)


def assert_shows_model(view: SelfAttentionView) -> None:
    m, lang = view.model, view.lang
    assert table(shown(view, "scores"), "sa-scores") == expected(m.scores, 4, lang)
    assert table(shown(view, "weights"), "sa-weights") == expected(m.weights, 4, lang)
    assert sums(shown(view, "weights")) == [number(sum(row), 4, lang=lang) for row in m.weights]
    assert table(shown(view, "z"), "sa-Z") == expected(m.Z, 4, lang)
    for slot, name, value in (("q", "sa-Q", m.Q), ("k", "sa-K", m.K), ("v", "sa-V", m.V)):
        # 2 decimals when they are exact (the integers of 4.2.6), else 4.
        decimals = 2 if np.allclose(value, np.round(value, 2), rtol=0, atol=1e-12) else 4
        assert table(shown(view, slot), name) == expected(value, decimals, lang)
    gradient = table(shown(view, "gradient"), "sa-gradient")
    assert gradient == [[gradient_text(g, lang)] for g in m.gradient]


@pytest.fixture
def view(panel_cleanup):
    v = SelfAttentionView()
    v.__panel__().get_root()  # every Bokeh model builds
    return v


def preset_options_of(view) -> dict:
    """The preset select's options, label → the model's preset name."""
    return {label: value for value, label in view.board.slot("preset").spec["options"]}


def test_builds_with_the_seed_text_and_the_426_numbers(view):
    assert view.__panel__() is view.__panel__()  # built once
    assert view.model.preset == "4.2.6"
    assert_shows_model(view)
    # The worked example 4.2.6, as the docs print it (4 decimals).
    assert table(shown(view, "weights"), "sa-weights")[0] == ["0,2840", "0,1400", "0,5760"]
    assert table(shown(view, "z"), "sa-Z")[0] == ["1,5760", "1,4320"]
    assert sums(shown(view, "weights")) == ["1,0000"] * 3
    assert text("self_attention.scaled") in board_labels(view.board)["scaled"]
    assert board_labels(view.board)["causal"] == text("self_attention.causal")
    options = preset_options_of(view)
    assert list(options.values()) == [*PRESETS, "personalizado"]  # every preset of the model
    assert options[text("self_attention.preset.4.2.6")] == "4.2.6"
    assert options[text("self_attention.preset.puntajes grandes")] == "puntajes grandes"
    assert options[text("self_attention.preset_n", n=2, name="W_K = W_Q")] == "W_K = W_Q"
    assert options[text("self_attention.preset_custom")] == "personalizado"
    assert list(options)[:3] == [
        "4.2.6 (de fábrica)",
        "Preset 1 · puntajes grandes",
        "Preset 2 · W_K = W_Q",
    ]


def test_a_preset_added_to_the_model_shows_up_without_a_label(monkeypatch):
    """Adding a preset is the model's change only: the select lists it as "Preset n · name"."""
    from dashboards.demos import self_attention as view_module

    n = len(view_module.PRESETS)
    presets = {**view_module.PRESETS, "nuevo": view_module.PRESETS["4.2.6"]}
    monkeypatch.setattr(view_module, "PRESETS", presets)
    for lang in ("es", "en"):
        options = view_module.preset_options(lang)
        assert options[text("self_attention.preset_n", lang, n=n, name="nuevo")] == "nuevo"
        assert list(options.values()) == [*presets, "personalizado"]


def _all_text(view) -> str:
    """Every text of the view: its panes' and its figures' captions and footnotes (a Board's
    in its layout)."""
    return "\n".join(
        [
            str(getattr(o, name, ""))
            for o in view.__panel__().select()
            for name in ("object", "caption", "footnote")
        ]
        + c04_testing.board_texts(view.board)
    )


def test_seed_captions_are_on_screen(view):
    shown = _all_text(view)
    for caption in (
        text("self_attention.intro"),
        "$$Q = XW_Q$$",
        "$$K = XW_K$$",
        "$$V = XW_V$$",
        text("self_attention.weights_title"),
        text("self_attention.output_title"),
        text("self_attention.gradient_title"),
    ):
        # its formulas as MathML: a Markdown pane's text, or a figure's caption made of it
        assert with_math(caption) in shown or md_html(caption) in shown
    titles = [e.title for e in view.editors.values()]
    assert titles == [text("self_attention.editor_x"), "$$W_Q$$", "$$W_K$$", "$$W_V$$"]


def test_causal_checkbox_masks_and_updates_the_tables(view):
    use(view, "causal", True)
    assert view.model.causal is True
    assert table(shown(view, "weights"), "sa-weights")[0] == ["1,0000", "0,0000", "0,0000"]
    assert table(shown(view, "scores"), "sa-scores")[0][1:] == ["−∞", "−∞"]
    assert_shows_model(view)
    assert table(shown(view, "gradient"), "sa-gradient")[0] == ["0,0000"]
    assert "el gradiente se apaga" in c04_testing.spec_text(shown(view, "gradient"))
    view.model.causal = False
    assert control_value(view.board.slot("causal")) is False
    assert None not in [c for row in shown(view, "scores")["rows"] for c in row["cells"]]
    assert_shows_model(view)


def test_scaled_checkbox_switches_the_scores(view):
    scaled_scores = view.model.scores
    # The caption's formulas as MathML, each with its TeX.
    assert r'alttext="QK^\top/\sqrt{d_k}"' in shown(view, "scores_title")
    use(view, "scaled", False)
    assert view.model.scaled is False
    assert shown(view, "scores_title") == with_math(text("self_attention.scores_unscaled"))
    np.testing.assert_allclose(view.model.scores, scaled_scores * np.sqrt(2))
    assert table(shown(view, "scores"), "sa-scores")[0] == ["2,0000", "1,0000", "3,0000"]
    assert_shows_model(view)
    view.model.scaled = True
    assert control_value(view.board.slot("scaled")) is True
    assert r'alttext="QK^\top/\sqrt{d_k}"' in shown(view, "scores_title")


def test_preset_select_loads_the_matrices(view):
    use(view, "preset", "puntajes grandes")
    use(view, "scaled", False)
    m = view.model
    assert m.preset == "puntajes grandes"
    np.testing.assert_array_equal(m.X, 3 * np.array([[1, 0], [0, 1], [1, 1]]))
    assert c04_testing.cell_texts(view.editors["X"])[2][1] == "3"
    assert_shows_model(view)
    # The softmax saturates: every row is practically one-hot, the gradient fades.
    assert c04_testing.spec_text(shown(view, "gradient")).count("el gradiente se apaga") == 3
    m.preset = "W_K = W_Q"
    assert control_value(view.board.slot("preset")) == "W_K = W_Q"
    weights = table(shown(view, "weights"), "sa-weights")
    for i in range(3):  # the diagonal dominates
        row = [float(c.replace(",", ".")) for c in weights[i]]
        assert int(np.argmax(row)) == i
    assert_shows_model(view)


def test_typing_a_spanish_number_edits_the_model(view):
    c04_testing.commit(view.editors["X"], 0, 0, "1,5")
    m = view.model
    assert m.X[0, 0] == 1.5
    assert m.preset == "personalizado"
    assert control_value(view.board.slot("preset")) == "personalizado"
    assert view.editors["X"].error == ""
    reference = SelfAttention(X=[[1.5, 0], [0, 1], [1, 1]])
    assert table(shown(view, "weights"), "sa-weights") == expected(reference.weights, 4)
    assert_shows_model(view)


@pytest.mark.parametrize("text", ["abc", "", "1e400", "nan", "2e7"])
def test_bad_cell_keeps_the_model_and_shows_a_message(view, text, caplog):
    before = shown(view, "weights")
    x_before = view.model.X.copy()
    with caplog.at_level(logging.INFO, logger="dashboards.components.matrix"):
        c04_testing.commit(view.editors["X"], 0, 0, text)
    np.testing.assert_array_equal(view.model.X, x_before)
    assert shown(view, "weights") == before
    message = view.editors["X"].error
    assert message.endswith(i18n.text("input.kept"))
    assert c04_testing.cell_texts(view.editors["X"])[0][0] == "1"  # the last valid value
    assert view.model.preset == "4.2.6"
    ours = [r for r in caplog.records if r.name == "dashboards.components.matrix"]
    assert [r.levelno for r in ours] == [logging.INFO]
    assert not any(r.exc_info for r in caplog.records)
    assert all(r.levelno < logging.WARNING for r in caplog.records)


def test_bad_cell_text_is_escaped(view):
    c04_testing.commit(view.editors["W_V"], 0, 0, "<b>x</b>")
    message = view.editors["W_V"].error
    assert "<b>" not in message
    assert "&lt;b&gt;" in message


def test_heatmap_follows_the_model(view):
    assert view.board.kinds["heatmap"] == "head_plot"

    def spec():
        out = shown(view, "heatmap")
        assert out["testid"] == "sa-heatmap"
        assert out["tokens"] == TOKENS  # token 1 on top, keys in order
        assert "arcs" not in out  # the matrix alone
        assert out["cells"] == [[""] * 3] * 3  # no number drawn: the table beside has them
        return out

    assert spec()["weights"] == view.model.weights.tolist()
    assert spec()["tips"][0][2] == es_number(view.model.weights[0, 2], 4) == "0,5760"
    assert spec()["title"] == text("self_attention.heatmap_title")
    assert spec()["texts"]["weight"] == text("self_attention.weight")
    assert spec()["texts"]["matrix"] == text("a11y.plot.sa_heatmap")
    use(view, "causal", True)
    assert spec()["weights"] == view.model.weights.tolist()
    assert spec()["weights"][0] == [1.0, 0.0, 0.0]
    assert spec()["tips"][0][0] == "1,0000"
    c04_testing.commit(view.editors["X"], 0, 0, "2")
    assert spec()["weights"] == view.model.weights.tolist()


def test_one_refresh_per_preset_change(view, monkeypatch):
    calls = []
    original = view._refresh
    monkeypatch.setattr(view, "_refresh", lambda: (calls.append(1), original()))
    use(view, "preset", "puntajes grandes")
    assert len(calls) == 1


@pytest.mark.parametrize("lang", ["es", "en"])
def test_huge_numbers_show_five_significant_digits(panel_cleanup, lang):
    """Cells at the bound: Q = 2·10¹², unscaled scores 8·10²⁴, each with 5 significant digits
    times a power of ten (every integer digit would show one machine's last bits)."""
    bound = np.full((2, 2), MAX_ABS)
    model = SelfAttention(X=np.full((3, 2), MAX_ABS), W_Q=bound, W_K=bound, W_V=-bound)
    model.scaled = False
    view = SelfAttentionView(model=model, lang=lang)
    comma = "," if lang == "es" else "."
    assert table(shown(view, "q"), "sa-Q")[0] == [f"2{comma}0000×10¹²"] * 2
    assert table(shown(view, "scores"), "sa-scores")[0] == [f"8{comma}0000×10²⁴"] * 3
    assert table(shown(view, "z"), "sa-Z")[2] == [f"−2{comma}0000×10¹²"] * 2
    assert_shows_model(view)
    # A mixed row: 1 234 567 written 1,2346×10⁶; 999 999,5 still in full (2 decimals: Q is exact).
    model.param.update(
        X=[[2.0, 0.0], [0.0, 1.0], [1.0, 1.0]], W_Q=[[617283.5, 499999.75], [0.0, 0.0]]
    )
    assert table(shown(view, "q"), "sa-Q")[0] == [f"1{comma}2346×10⁶", f"999999{comma}50"]
    assert_shows_model(view)


def test_views_do_not_share_state(panel_cleanup):
    a, b = SelfAttentionView(), SelfAttentionView()
    assert a.model is not b.model
    assert a.board is not b.board
    use(a, "causal", True)
    c04_testing.commit(a.editors["X"], 0, 0, "2")
    assert b.model.causal is False
    assert b.model.X[0, 0] == 1.0
    assert table(shown(b, "weights"), "sa-weights")[0] == ["0,2840", "0,1400", "0,5760"]


def test_view_uses_the_given_model(panel_cleanup):
    model = SelfAttention(causal=True)
    view = SelfAttentionView(model=model)
    assert view.model is model
    assert control_value(view.board.slot("causal")) is True
    assert table(shown(view, "weights"), "sa-weights")[0] == ["1,0000", "0,0000", "0,0000"]


# --------------------------------------------------------------------------------------------
# English
# --------------------------------------------------------------------------------------------


@pytest.fixture
def english(panel_cleanup):
    v = SelfAttentionView(lang="en")
    v.__panel__().get_root()
    return v


def test_english_view_has_no_spanish_and_writes_decimal_points(english):
    assert c04_testing.spanish_words_left(c04_testing.viewable_texts(english)) == set()
    # Worked example 4.2.6, with decimal points.
    assert table(shown(english, "weights"), "sa-weights")[0] == ["0.2840", "0.1400", "0.5760"]
    assert table(shown(english, "z"), "sa-Z")[0] == ["1.5760", "1.4320"]
    assert table(shown(english, "q"), "sa-Q")[1] == ["−1.00", "1.00"]
    assert sums(shown(english, "weights")) == ["1.0000"] * 3
    assert "0.4714" in _all_text(english)  # the uniform row's gradient, in the note
    assert shown(english, "heatmap")["tips"][0][2] == "0.5760"
    assert shown(english, "heatmap")["texts"]["query"] == text("self_attention.query_axis", "en")
    assert board_labels(english.board)["causal"] == "Causal mask"
    assert preset_options_of(english)["Preset 1 · large scores"] == "puntajes grandes"
    assert shown(english, "scores_title") == with_math(
        text("self_attention.scores_scaled", "en", d_k=2)
    )


def test_english_controls_change_the_english_numbers(english):
    use(english, "causal", True)
    assert table(shown(english, "weights"), "sa-weights")[0] == ["1.0000", "0.0000", "0.0000"]
    assert table(shown(english, "gradient"), "sa-gradient")[0] == ["0.0000"]
    assert text("self_attention.one_hot", "en") in c04_testing.spec_text(shown(english, "gradient"))
    use(english, "causal", False)
    c04_testing.commit(english.editors["X"], 0, 0, "1.5")  # an English decimal point
    m = english.model
    assert m.X[0, 0] == 1.5
    assert control_value(english.board.slot("preset")) == "personalizado"
    assert table(shown(english, "q"), "sa-Q")[0] == ["3.00", "1.50"]
    assert table(shown(english, "weights"), "sa-weights") == [
        [number(w, 4, lang="en") for w in row] for row in m.weights
    ]
    assert c04_testing.cell_texts(english.editors["X"])[0][0] == "1.5"
    m.X = [[1.25, 0.0], [0.0, 1.0], [1.0, 1.0]]
    # The cell, written in English.
    assert c04_testing.cell_texts(english.editors["X"])[0][0] == "1.25"


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("abc", text("input.not_a_number", "en", text="abc")),
        ("2e7", text("core.matrix_cell_bounds", "en", name="X", bound="1 000 000")),
    ],
)
def test_english_bad_cell_says_why_in_english(english, typed, message):
    before = shown(english, "weights")
    c04_testing.commit(english.editors["X"], 0, 0, typed)
    assert shown(english, "weights") == before
    error = english.editors["X"].error
    assert error == text("input.cell_refused", "en", name="X", row=1, col=1, message=message)
    assert c04_testing.spanish_words_left(error) == set()
    assert c04_testing.cell_texts(english.editors["X"])[0][0] == "1"
