"""ScalingView without a browser: the d_k slider and "Nueva muestra" <-> model, and the readouts,
in Spanish and (the same view with ``lang="en"``) in English."""

from __future__ import annotations

import html
import logging
import math
import re

import numpy as np
import pytest

from attnmodel.formatting import es_number, number, percent
from attnmodel.i18n import text
from attnmodel.scaling import N_TRIALS, ScalingDemo
from dashboards.components.markup import Markup
from dashboards.components.mathml import with_math
from dashboards.demos.scaling import D_K_OPTIONS, ScalingView, render, sqrt_text

import c04_testing
from c04_testing import (
    board_labels,
    control_value,
    label_text,
    one_refusal,
    spanish_words_left,
    spec_find,
    spec_text,
    use,
    viewable_texts,
)

# The readouts' labels and units, from the catalogue (table [scaling]); "{n}" units are filled
# with the number of queries.
ENTROPY_UNSCALED_LABEL = text("scaling.entropy_unscaled_label")
ENTROPY_SCALED_LABEL = text("scaling.entropy_scaled_label")
SAMPLE_ENTROPY_UNSCALED_LABEL = text("scaling.sample_entropy_unscaled_label")
SAMPLE_ENTROPY_SCALED_LABEL = text("scaling.sample_entropy_scaled_label")
SAMPLE_ENTROPY_UNIT = text("scaling.sample_entropy_unit")


def entropy_unscaled_unit(n: int, lang: str = "es") -> str:
    return text("scaling.entropy_unscaled_unit", lang, n=n)


def entropy_scaled_unit(n: int, lang: str = "es") -> str:
    return text("scaling.entropy_scaled_unit", lang, n=n)


def readout(spec: dict, testid: str) -> str:
    """The value of the readout with that data-testid."""
    return label_text(spec_find(spec, testid)["value"])


def label_and_unit(spec: dict, testid: str) -> tuple[str, str]:
    """The label and unit texts of the readout with that data-testid."""
    found = spec_find(spec, testid)
    return label_text(found["label"]), label_text(found["unit"])


def span(spec: dict, testid: str) -> str:
    return label_text(spec_find(spec, testid)["text"])


def assert_shows_model(view: ScalingView) -> None:
    """Every number on screen is the model's, written in the view's language."""
    m, lang = view.model, view.lang

    def num(x: float, decimals: int = 2) -> str:
        return number(x, decimals, lang=lang)

    top, bottom = view.readouts.spec, view.gradient_readouts.spec
    assert readout(top, "scaling-score-std") == num(m.score_std)
    assert readout(top, "scaling-entropy-unscaled") == num(m.entropy_unscaled)
    assert readout(top, "scaling-entropy-scaled") == num(m.entropy_scaled)
    assert readout(bottom, "scaling-gradient-unscaled") == num(m.gradient_unscaled, 3)
    assert readout(bottom, "scaling-gradient-scaled") == num(m.gradient_scaled, 3)
    sample_u, sample_s = view.unscaled_entropy.spec, view.scaled_entropy.spec
    assert readout(sample_u, "scaling-sample-entropy-unscaled") == num(m.sample_entropy_unscaled)
    assert readout(sample_s, "scaling-sample-entropy-scaled") == num(m.sample_entropy_scaled)
    assert span(top, "scaling-sqrt-dk") == sqrt_text(m.d_k, lang)
    assert span(view.status.spec, "scaling-dk") == f"d_k = {m.d_k}"
    assert span(view.status.spec, "scaling-seed") == str(m.seed)
    for pane, which, weights in (
        (view.unscaled_bars, "unscaled", m.weights_unscaled),
        (view.scaled_bars, "scaled", m.weights_scaled),
    ):
        spec = pane.spec
        assert spec["testid"] == f"scaling-{which}-bars"
        np.testing.assert_allclose(bars(pane), weights)
        assert [r["label"] for r in spec["rows"]] == [str(j + 1) for j in range(m.n_keys)]
        assert [r["value"] for r in spec["rows"]] == [percent(w, 1, lang) for w in weights]
        assert spec["caption"] == text(f"scaling.{which}_title", lang, d_k=m.d_k)


def bars(pane: Markup) -> np.ndarray:
    """The bars' weights, from their widths (percent of the bar cell)."""
    return np.asarray([row["width"] for row in pane.spec["rows"]]) / 100


@pytest.fixture
def view(panel_cleanup):
    v = ScalingView()
    v.__panel__().get_root()  # every Bokeh model builds
    return v


def _all_text(view) -> str:
    # Every pane's text; a Markup pane's, its spec's texts; the Board's fixed texts and its
    # specs' texts. Unescaped: the Board's fixed HTML is made by Markdown (components/markup.py,
    # md_html), which writes a formula's "=" as is where with_math writes "&#61;".
    texts = [
        spec_text(o.spec) if isinstance(o, Markup) else str(getattr(o, "object", ""))
        for o in view.__panel__().select()
    ]
    texts += c04_testing.board_texts(view.board)
    texts += [spec_text(s) for s in view.board.specs.values() if isinstance(s, dict)]
    return html.unescape("\n".join(texts))


def seed_texts(lang: str) -> list[str]:
    """The view's fixed texts in ``lang``, as the catalogue has them (formulas as MathML)."""
    keys = (
        "intro",
        "caption",
        "title",
        "score_label",
        "entropy_unscaled_label",
        "entropy_scaled_label",
        "sample_entropy_unscaled_label",
        "sample_entropy_scaled_label",
        "sample_entropy_unit",
        "gradient_unscaled_label",
        "gradient_unscaled_unit",
        "gradient_scaled_label",
        "gradient_scaled_unit",
    )
    sqrt = "√64 = 8"  # in its own element, found by data-testid="scaling-sqrt-dk"
    return [
        *(with_math(text(f"scaling.{key}", lang)) for key in keys),
        text("scaling.score_unit", lang, sqrt=sqrt),
        text("scaling.entropy_unscaled_unit", lang, n=N_TRIALS),
        text("scaling.entropy_scaled_unit", lang, n=N_TRIALS),
        text("scaling.gradient_note", lang, n=N_TRIALS),
    ]


@pytest.mark.parametrize("lang", ["es", "en"])
def test_builds_with_the_seed_text(panel_cleanup, lang):
    view = ScalingView(lang=lang)
    assert view.__panel__() is view.__panel__()  # built once
    shown = re.sub(r"\s+", " ", _all_text(view))
    for caption in seed_texts(lang):
        assert html.unescape(caption) in shown


def test_mean_entropy_readouts_say_mean_and_over_how_many_queries(view):
    m = view.model
    assert m.n_trials == N_TRIALS == 4000
    for testid, label, unit in (
        ("scaling-entropy-unscaled", ENTROPY_UNSCALED_LABEL, entropy_unscaled_unit),
        ("scaling-entropy-scaled", ENTROPY_SCALED_LABEL, entropy_scaled_unit),
    ):
        shown_label, shown_unit = label_and_unit(view.readouts.spec, testid)
        assert shown_label == label
        assert shown_unit == unit(m.n_trials)
        assert "media" in shown_label
        assert f"media de {m.n_trials} consultas" in shown_unit
        assert shown_unit.startswith("bits")
    # The gradient readouts, which were already means, keep saying so.
    _, unit = label_and_unit(view.gradient_readouts.spec, "scaling-gradient-unscaled")
    assert "medio" in unit


def test_sample_entropy_readouts_are_the_drawn_querys(view):
    m = view.model
    for pane, testid, label, entropy, weights in (
        (
            view.unscaled_entropy,
            "scaling-sample-entropy-unscaled",
            SAMPLE_ENTROPY_UNSCALED_LABEL,
            m.sample_entropy_unscaled,
            bars(view.unscaled_bars),
        ),
        (
            view.scaled_entropy,
            "scaling-sample-entropy-scaled",
            SAMPLE_ENTROPY_SCALED_LABEL,
            m.sample_entropy_scaled,
            bars(view.scaled_bars),
        ),
    ):
        shown_label, shown_unit = label_and_unit(pane.spec, testid)
        assert (shown_label, shown_unit) == (label, SAMPLE_ENTROPY_UNIT)
        assert "media" not in shown_label + shown_unit
        assert "esta consulta" in shown_label
        # The entropy of the bars on screen, computed here from their heights.
        by_hand = -sum(p * math.log2(p) for p in weights if p > 0)
        assert readout(pane.spec, testid) == es_number(by_hand) == es_number(entropy)
    # At the defaults the drawn query is not the mean: 0,63 vs 0,46 bits, 2,80 vs 2,49.
    assert readout(view.unscaled_entropy.spec, "scaling-sample-entropy-unscaled") == "0,63"
    assert readout(view.scaled_entropy.spec, "scaling-sample-entropy-scaled") == "2,80"
    assert readout(view.readouts.spec, "scaling-entropy-unscaled") == "0,46"
    assert readout(view.readouts.spec, "scaling-entropy-scaled") == "2,49"


def test_sample_entropy_sits_under_its_bars(view):
    """In the Board's layout, each chart's column holds the chart and then its entropy."""
    columns = []

    def walk(node):
        if "col" in node:
            columns.append([child.get("slot") for child in node["col"]])
        for child in node.get("row", []) + node.get("col", []):
            walk(child)

    walk({"row": view.board.layout})
    for chart, pane in (
        (view.unscaled_bars, view.unscaled_entropy),
        (view.scaled_bars, view.scaled_entropy),
    ):
        assert [chart.name, pane.name] in columns


def test_default_readouts_are_the_models(view):
    assert view.model.d_k == 64
    assert control_value(view.d_k) == 64
    assert view.d_k.spec["values"] == D_K_OPTIONS == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    assert view.d_k.spec["texts"] == [str(v) for v in D_K_OPTIONS]
    assert_shows_model(view)
    assert span(view.readouts.spec, "scaling-sqrt-dk") == "√64 = 8"
    # The typical unscaled score is about √64 = 8.
    assert readout(view.readouts.spec, "scaling-score-std").startswith("8,")


def test_slider_changes_d_k_and_every_number(view):
    before = view.readouts.spec
    use(view, "d_k", 1024)
    assert view.model.d_k == 1024
    assert view.readouts.spec != before
    assert_shows_model(view)
    assert span(view.readouts.spec, "scaling-sqrt-dk") == "√1024 = 32"
    use(view, "d_k", 128)
    assert view.model.d_k == 128
    assert span(view.readouts.spec, "scaling-sqrt-dk") == "√128 ≈ 11,31"
    assert_shows_model(view)


def test_larger_d_k_collapses_the_unscaled_softmax(view):
    use(view, "d_k", 1)
    low = (view.model.entropy_unscaled, view.model.gradient_unscaled)
    use(view, "d_k", 1024)
    high = (view.model.entropy_unscaled, view.model.gradient_unscaled)
    assert high[0] < low[0]
    assert high[1] < low[1]
    assert max(bars(view.unscaled_bars)) > 0.99  # one key takes it all


def test_model_d_k_moves_the_slider(view):
    view.model.d_k = 16
    assert control_value(view.d_k) == 16
    assert_shows_model(view)
    view.model.d_k = 100  # not a power of two: it gets its own stop
    assert 100 in view.d_k.spec["values"]
    assert control_value(view.d_k) == 100
    assert view.d_k.spec["end"] == len(D_K_OPTIONS)  # one stop more
    assert_shows_model(view)


def test_new_sample_changes_the_seed_and_the_bars(view):
    old_bars = bars(view.unscaled_bars)
    use(view, "sample")
    assert view.model.seed == 1
    assert not np.allclose(bars(view.unscaled_bars), old_bars)
    assert_shows_model(view)
    view.model.seed = 7
    assert span(view.status.spec, "scaling-seed") == "7"
    assert_shows_model(view)


def test_out_of_range_d_k_is_refused_by_the_model(view):
    before = view.readouts.spec
    with pytest.raises(ValueError, match="d_k"):
        view.model.d_k = 5000
    assert view.model.d_k == 64
    assert control_value(view.d_k) == 64
    assert view.readouts.spec == before


@pytest.mark.parametrize(
    "message",
    [
        {"control": "d_k", "value": 5000},
        {"control": "d_k", "value": 0},
        {"control": "d_k", "value": True},
        {"control": "d_k", "value": 64.5},
        {"control": "d_k", "value": "128"},
        {"control": "d_k", "value": None},
        {"control": "d_k", "value": [128]},
        {"control": "n_heads", "value": 2},
        {"control": "d_k", "value": 128, "extra": 1},
        {"control": "d_k"},
        {"control": "sample", "value": 1},
        {"control": "sample", "value": None},
        {"value": 128},
        "d_k=128",
        None,
    ],
)
def test_a_forged_control_message_is_refused_and_the_state_kept(view, message, caplog):
    """What no page sends (out of bounds, the wrong type, a control the board does not have) is
    one INFO line; d_k and every number stay."""
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    before = (view.readouts.spec, view.d_k.spec)
    view.board.receive(message)
    assert (view.model.d_k, view.model.seed) == (64, 0)
    assert (view.readouts.spec, view.d_k.spec) == before
    one_refusal(caplog)


def test_bars_are_built_once_with_fixed_columns(view):
    charts = (view.unscaled_bars, view.scaled_bars)
    assert all(chart.kind == "bars" for chart in charts)
    use(view, "d_k", 1024)
    use(view, "sample")
    assert (view.unscaled_bars, view.scaled_bars) == charts
    for chart in charts:
        assert (chart.spec["corner"], chart.spec["head"]) == ("llave", "peso")
        assert len(chart.spec["rows"]) == 8
    # Each chart its own colour, as the readouts' "sin escalar" / "con escalado".
    assert view.unscaled_bars.spec["color"] != view.scaled_bars.spec["color"]
    assert_shows_model(view)


def test_sqrt_text():
    assert sqrt_text(64) == "√64 = 8"
    assert sqrt_text(1) == "√1 = 1"
    assert sqrt_text(2) == "√2 ≈ 1,41"


def test_views_do_not_share_state(panel_cleanup):
    a, b = ScalingView(), ScalingView()
    assert a.model is not b.model
    assert a.board is not b.board
    use(a, "d_k", 4)
    assert b.model.d_k == 64
    assert span(b.readouts.spec, "scaling-sqrt-dk") == "√64 = 8"


def test_view_uses_the_given_model(panel_cleanup):
    model = ScalingDemo(d_k=256)
    view = ScalingView(model=model)
    assert view.model is model
    assert control_value(view.d_k) == 256
    assert_shows_model(view)


# ---------------------------------------------------------------------------------------------
# English: the same view with lang="en"


@pytest.fixture
def english(panel_cleanup):
    v = ScalingView(lang="en")
    v.__panel__().get_root()
    return v


def test_english_view_has_no_spanish_left(english):
    assert spanish_words_left(viewable_texts(english)) == set()
    # The bars' columns are named in English.
    for chart in (english.unscaled_bars, english.scaled_bars):
        assert (chart.spec["corner"], chart.spec["head"]) == ("key", "weight")
    assert board_labels(english.board)["sample"] == "New sample"
    assert board_labels(english.board)["d_k"] == text("scaling.d_k_slider", "en")
    # The export's note names the button as the page shows it.
    assert "“New sample”" in english.export_note_html
    assert spanish_words_left(english.export_note_html) == set()


def test_english_numbers_use_a_decimal_point(english):
    m = english.model
    # The defaults (d_k = 64, sample 0), as in the Spanish test: 0,63 there is 0.63 here.
    assert readout(english.unscaled_entropy.spec, "scaling-sample-entropy-unscaled") == "0.63"
    assert readout(english.scaled_entropy.spec, "scaling-sample-entropy-scaled") == "2.80"
    assert readout(english.readouts.spec, "scaling-entropy-unscaled") == "0.46"
    assert readout(english.readouts.spec, "scaling-entropy-scaled") == "2.49"
    assert readout(english.readouts.spec, "scaling-score-std").startswith("8.")
    assert label_and_unit(english.readouts.spec, "scaling-entropy-unscaled") == (
        "Mean entropy, unscaled",
        "bits, mean over 4000 random queries",
    )
    assert span(english.status.spec, "scaling-seed") == "0"
    assert "sample" in spec_text(english.status.spec)
    values = [row["value"] for row in english.unscaled_bars.spec["rows"]]
    assert values[0].endswith("%")
    assert " %" not in "".join(values)
    assert english.unscaled_bars.spec["caption"] == "Unscaled (d_k = 64)"
    assert english.scaled_bars.spec["caption"] == "Scaled (÷ √64)"
    assert_shows_model(english)
    assert english.readouts.spec == render(m, "en")["readouts"]


def test_english_slider_changes_the_english_numbers(english):
    before = english.readouts.spec
    use(english, "d_k", 128)
    assert english.model.d_k == 128
    assert english.readouts.spec != before
    assert span(english.readouts.spec, "scaling-sqrt-dk") == "√128 ≈ 11.31"
    assert english.unscaled_bars.spec["caption"] == "Unscaled (d_k = 128)"
    assert_shows_model(english)
    use(english, "sample")
    assert span(english.status.spec, "scaling-seed") == "1"
    assert_shows_model(english)
    assert "," not in readout(english.readouts.spec, "scaling-entropy-unscaled")


def test_sqrt_text_in_english():
    assert sqrt_text(64, "en") == "√64 = 8"
    assert sqrt_text(2, "en") == "√2 ≈ 1.41"
