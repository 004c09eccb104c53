"""SelfAttentionView without a browser: widgets <-> model, and the numbers the panes show."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from attnmodel import i18n
from attnmodel.formatting import es_number, number
from attnmodel.i18n import text
from attnmodel.self_attention import PRESETS, SelfAttention
from dashboards.components.markup import md_html
from dashboards.components.mathml import with_math
from dashboards.demos.self_attention import TOKENS, SelfAttentionView

import c04_testing
from c04_testing import board_labels, control_value, use


def table(spec: dict, testid: str) -> list[list[str]]:
    """The cell texts of one table spec (by data-testid), row by row, without the Σ column."""
    assert spec["testid"] == testid
    return c04_testing.spec_rows(spec)


def sums(spec: dict) -> list[str]:
    return [row["sum"] for row in spec["rows"]]


def expected(matrix, decimals: int) -> list[list[str]]:
    return [[es_number(v, decimals) for v in row] for row in np.asarray(matrix)]


def assert_shows_model(view: SelfAttentionView) -> None:
    m = view.model
    assert table(view.scores_pane.spec, "sa-scores") == expected(m.scores, 4)
    assert table(view.weights_pane.spec, "sa-weights") == expected(m.weights, 4)
    assert table(view.z_pane.spec, "sa-Z") == expected(m.Z, 4)
    for pane, name, value in (
        (view.q_pane, "sa-Q", m.Q),
        (view.k_pane, "sa-K", m.K),
        (view.v_pane, "sa-V", m.V),
    ):
        shown = table(pane.spec, name)
        decimals = len(shown[0][0].split(",")[1])
        assert decimals in (2, 4)
        assert shown == expected(value, decimals)
    gradient = table(view.gradient_pane.spec, "sa-gradient")
    assert len(gradient) == 3
    for row, g in zip(gradient, m.gradient, strict=True):
        assert abs(float(row[0].replace(",", ".").replace("−", "-")) - g) < 1e-4


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
    assert table(view.weights_pane.spec, "sa-weights")[0] == ["0,2840", "0,1400", "0,5760"]
    assert table(view.z_pane.spec, "sa-Z")[0] == ["1,5760", "1,4320"]
    assert sums(view.weights_pane.spec) == ["1,0000"] * 3
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
    assert table(view.weights_pane.spec, "sa-weights")[0] == ["1,0000", "0,0000", "0,0000"]
    assert table(view.scores_pane.spec, "sa-scores")[0][1:] == ["−∞", "−∞"]
    assert_shows_model(view)
    assert table(view.gradient_pane.spec, "sa-gradient")[0] == ["0,0000"]
    assert "el gradiente se apaga" in c04_testing.spec_text(view.gradient_pane.spec)
    view.model.causal = False
    assert control_value(view.board.slot("causal")) is False
    assert None not in [c for row in view.scores_pane.spec["rows"] for c in row["cells"]]
    assert_shows_model(view)


def test_scaled_checkbox_switches_the_scores(view):
    scaled_scores = view.model.scores
    # The caption's formulas as MathML, each with its TeX.
    assert r'alttext="QK^\top/\sqrt{d_k}"' in view.scores_title.object
    use(view, "scaled", False)
    assert view.model.scaled is False
    assert view.scores_title.object == with_math(text("self_attention.scores_unscaled"))
    np.testing.assert_allclose(view.model.scores, scaled_scores * np.sqrt(2))
    assert table(view.scores_pane.spec, "sa-scores")[0] == ["2,0000", "1,0000", "3,0000"]
    assert_shows_model(view)
    view.model.scaled = True
    assert control_value(view.board.slot("scaled")) is True
    assert r'alttext="QK^\top/\sqrt{d_k}"' in view.scores_title.object


def test_preset_select_loads_the_matrices(view):
    use(view, "preset", "puntajes grandes")
    use(view, "scaled", False)
    m = view.model
    assert m.preset == "puntajes grandes"
    np.testing.assert_array_equal(m.X, 3 * np.array([[1, 0], [0, 1], [1, 1]]))
    assert c04_testing.cell_texts(view.editors["X"])[2][1] == "3"
    assert_shows_model(view)
    # The softmax saturates: every row is practically one-hot, the gradient fades.
    assert c04_testing.spec_text(view.gradient_pane.spec).count("el gradiente se apaga") == 3
    m.preset = "W_K = W_Q"
    assert control_value(view.board.slot("preset")) == "W_K = W_Q"
    weights = table(view.weights_pane.spec, "sa-weights")
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
    assert table(view.weights_pane.spec, "sa-weights") == expected(reference.weights, 4)
    assert_shows_model(view)


@pytest.mark.parametrize("text", ["abc", "", "1e400", "nan", "2e7"])
def test_bad_cell_keeps_the_model_and_shows_a_message(view, text, caplog):
    before = view.weights_pane.spec
    x_before = view.model.X.copy()
    with caplog.at_level(logging.INFO, logger="dashboards.components.matrix"):
        c04_testing.commit(view.editors["X"], 0, 0, text)
    np.testing.assert_array_equal(view.model.X, x_before)
    assert view.weights_pane.spec == before
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
    heatmap = view.heatmap
    assert heatmap.kind == "head_plot"

    def spec():
        out = heatmap.spec
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
    assert heatmap is view.heatmap  # built once, its spec replaced


def test_one_refresh_per_preset_change(view, monkeypatch):
    calls = []
    original = view._refresh
    monkeypatch.setattr(view, "_refresh", lambda: (calls.append(1), original()))
    use(view, "preset", "puntajes grandes")
    assert len(calls) == 1


def test_views_do_not_share_state(panel_cleanup):
    a, b = SelfAttentionView(), SelfAttentionView()
    assert a.model is not b.model
    assert a.board is not b.board
    use(a, "causal", True)
    c04_testing.commit(a.editors["X"], 0, 0, "2")
    assert b.model.causal is False
    assert b.model.X[0, 0] == 1.0
    assert table(b.weights_pane.spec, "sa-weights")[0] == ["0,2840", "0,1400", "0,5760"]


def test_view_uses_the_given_model(panel_cleanup):
    model = SelfAttention(causal=True)
    view = SelfAttentionView(model=model)
    assert view.model is model
    assert control_value(view.board.slot("causal")) is True
    assert table(view.weights_pane.spec, "sa-weights")[0] == ["1,0000", "0,0000", "0,0000"]


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
    assert table(english.weights_pane.spec, "sa-weights")[0] == ["0.2840", "0.1400", "0.5760"]
    assert table(english.z_pane.spec, "sa-Z")[0] == ["1.5760", "1.4320"]
    assert table(english.q_pane.spec, "sa-Q")[1] == ["−1.00", "1.00"]
    assert sums(english.weights_pane.spec) == ["1.0000"] * 3
    assert "0.4714" in _all_text(english)  # the uniform row's gradient, in the note
    assert english.heatmap.spec["tips"][0][2] == "0.5760"
    assert english.heatmap.spec["texts"]["query"] == text("self_attention.query_axis", "en")
    assert board_labels(english.board)["causal"] == "Causal mask"
    assert preset_options_of(english)["Preset 1 · large scores"] == "puntajes grandes"
    assert english.scores_title.object == with_math(
        text("self_attention.scores_scaled", "en", d_k=2)
    )


def test_english_controls_change_the_english_numbers(english):
    use(english, "causal", True)
    assert table(english.weights_pane.spec, "sa-weights")[0] == ["1.0000", "0.0000", "0.0000"]
    assert table(english.gradient_pane.spec, "sa-gradient")[0] == ["0.0000"]
    assert text("self_attention.one_hot", "en") in c04_testing.spec_text(english.gradient_pane.spec)
    use(english, "causal", False)
    c04_testing.commit(english.editors["X"], 0, 0, "1.5")  # an English decimal point
    m = english.model
    assert m.X[0, 0] == 1.5
    assert control_value(english.board.slot("preset")) == "personalizado"
    assert table(english.q_pane.spec, "sa-Q")[0] == ["3.00", "1.50"]
    assert table(english.weights_pane.spec, "sa-weights") == [
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
    before = english.weights_pane.spec
    c04_testing.commit(english.editors["X"], 0, 0, typed)
    assert english.weights_pane.spec == before
    error = english.editors["X"].error
    assert error == text("input.cell_refused", "en", name="X", row=1, col=1, message=message)
    assert c04_testing.spanish_words_left(error) == set()
    assert c04_testing.cell_texts(english.editors["X"])[0][0] == "1"
