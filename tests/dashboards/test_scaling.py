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
from dashboards.demos.scaling import D_K_OPTIONS, ScalingView

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
from c04_views import drawn

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


def shown(view: ScalingView, name: str) -> dict:
    """Slot ``name`` as the browser draws it (scaling.js, run by tests/c04_views.py)."""
    return drawn(view.board, view.lang)[name]


def span(spec: dict, testid: str) -> str:
    return label_text(spec_find(spec, testid)["text"])


def assert_shows_model(view: ScalingView) -> None:
    """Every number on screen is the model's, written in the view's language."""
    m, lang = view.model, view.lang

    def num(x: float, decimals: int = 2) -> str:
        return number(x, decimals, lang=lang)

    top, bottom = shown(view, "readouts"), shown(view, "gradient_readouts")
    assert readout(top, "scaling-score-std") == num(m.score_std)
    assert readout(top, "scaling-entropy-unscaled") == num(m.entropy_unscaled)
    assert readout(top, "scaling-entropy-scaled") == num(m.entropy_scaled)
    assert readout(bottom, "scaling-gradient-unscaled") == num(m.gradient_unscaled, 3)
    assert readout(bottom, "scaling-gradient-scaled") == num(m.gradient_scaled, 3)
    sample_u, sample_s = shown(view, "unscaled_entropy"), shown(view, "scaled_entropy")
    assert readout(sample_u, "scaling-sample-entropy-unscaled") == num(m.sample_entropy_unscaled)
    assert readout(sample_s, "scaling-sample-entropy-scaled") == num(m.sample_entropy_scaled)
    root = math.sqrt(m.d_k)
    exact = root == int(root)
    assert span(top, "scaling-sqrt-dk") == (
        f"√{m.d_k} = {int(root)}" if exact else f"√{m.d_k} ≈ {num(root)}"
    )
    assert span(shown(view, "status"), "scaling-dk") == f"d_k = {m.d_k}"
    assert span(shown(view, "status"), "scaling-seed") == str(m.seed)
    for which, weights in (("unscaled", m.weights_unscaled), ("scaled", m.weights_scaled)):
        spec = shown(view, f"{which}_bars")
        assert spec["testid"] == f"scaling-{which}-bars"
        np.testing.assert_allclose(bars(view, f"{which}_bars"), weights)
        assert [r["label"] for r in spec["rows"]] == [str(j + 1) for j in range(m.n_keys)]
        assert [r["value"] for r in spec["rows"]] == [percent(w, 1, lang) for w in weights]
        assert spec["caption"] == text(f"scaling.{which}_title", lang, d_k=m.d_k)


def bars(view: ScalingView, name: str) -> np.ndarray:
    """The bars' weights, from their widths (percent of the bar cell)."""
    return np.asarray([row["width"] for row in shown(view, name)["rows"]]) / 100


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
    texts += [spec_text(s) for s in drawn(view.board, view.lang).values() if isinstance(s, dict)]
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
        shown_label, shown_unit = label_and_unit(shown(view, "readouts"), testid)
        assert shown_label == label
        assert shown_unit == unit(m.n_trials)
        assert "media" in shown_label
        assert f"media de {m.n_trials} consultas" in shown_unit
        assert shown_unit.startswith("bits")
    # The gradient readouts, which were already means, keep saying so.
    _, unit = label_and_unit(shown(view, "gradient_readouts"), "scaling-gradient-unscaled")
    assert "medio" in unit


def test_sample_entropy_readouts_are_the_drawn_querys(view):
    m = view.model
    for name, testid, label, entropy, weights in (
        (
            "unscaled_entropy",
            "scaling-sample-entropy-unscaled",
            SAMPLE_ENTROPY_UNSCALED_LABEL,
            m.sample_entropy_unscaled,
            bars(view, "unscaled_bars"),
        ),
        (
            "scaled_entropy",
            "scaling-sample-entropy-scaled",
            SAMPLE_ENTROPY_SCALED_LABEL,
            m.sample_entropy_scaled,
            bars(view, "scaled_bars"),
        ),
    ):
        spec = shown(view, name)
        shown_label, shown_unit = label_and_unit(spec, testid)
        assert (shown_label, shown_unit) == (label, SAMPLE_ENTROPY_UNIT)
        assert "media" not in shown_label + shown_unit
        assert "esta consulta" in shown_label
        # The entropy of the bars on screen, computed here from their heights.
        by_hand = -sum(p * math.log2(p) for p in weights if p > 0)
        assert readout(spec, testid) == es_number(by_hand) == es_number(entropy)
    # At the defaults the drawn query is not the mean: 0,63 vs 0,46 bits, 2,80 vs 2,49.
    assert readout(shown(view, "unscaled_entropy"), "scaling-sample-entropy-unscaled") == "0,63"
    assert readout(shown(view, "scaled_entropy"), "scaling-sample-entropy-scaled") == "2,80"
    assert readout(shown(view, "readouts"), "scaling-entropy-unscaled") == "0,46"
    assert readout(shown(view, "readouts"), "scaling-entropy-scaled") == "2,49"


def test_sample_entropy_sits_under_its_bars(view):
    """In the Board's layout, each chart's column holds the chart and then its entropy."""
    columns = []

    def walk(node):
        if "col" in node:
            columns.append([child.get("slot") for child in node["col"]])
        for child in node.get("row", []) + node.get("col", []):
            walk(child)

    walk({"row": view.board.layout})
    for chart, readout_slot in (
        ("unscaled_bars", "unscaled_entropy"),
        ("scaled_bars", "scaled_entropy"),
    ):
        assert [chart, readout_slot] in columns


def test_default_readouts_are_the_models(view):
    assert view.model.d_k == 64
    assert control_value(view.d_k) == 64
    assert view.d_k.spec["values"] == D_K_OPTIONS == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    assert view.d_k.spec["texts"] == [str(v) for v in D_K_OPTIONS]
    assert_shows_model(view)
    assert span(shown(view, "readouts"), "scaling-sqrt-dk") == "√64 = 8"
    # The typical unscaled score is about √64 = 8.
    assert readout(shown(view, "readouts"), "scaling-score-std").startswith("8,")


def test_slider_changes_d_k_and_every_number(view):
    before = shown(view, "readouts")
    use(view, "d_k", 1024)
    assert view.model.d_k == 1024
    assert shown(view, "readouts") != before
    assert_shows_model(view)
    assert span(shown(view, "readouts"), "scaling-sqrt-dk") == "√1024 = 32"
    use(view, "d_k", 128)
    assert view.model.d_k == 128
    assert span(shown(view, "readouts"), "scaling-sqrt-dk") == "√128 ≈ 11,31"
    assert_shows_model(view)


def test_larger_d_k_collapses_the_unscaled_softmax(view):
    use(view, "d_k", 1)
    low = (view.model.entropy_unscaled, view.model.gradient_unscaled)
    use(view, "d_k", 1024)
    high = (view.model.entropy_unscaled, view.model.gradient_unscaled)
    assert high[0] < low[0]
    assert high[1] < low[1]
    assert max(bars(view, "unscaled_bars")) > 0.99  # one key takes it all


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
    old_bars = bars(view, "unscaled_bars")
    use(view, "sample")
    assert view.model.seed == 1
    assert not np.allclose(bars(view, "unscaled_bars"), old_bars)
    assert_shows_model(view)
    view.model.seed = 7
    assert span(shown(view, "status"), "scaling-seed") == "7"
    assert_shows_model(view)


def test_out_of_range_d_k_is_refused_by_the_model(view):
    before = shown(view, "readouts")
    with pytest.raises(ValueError, match="d_k"):
        view.model.d_k = 5000
    assert view.model.d_k == 64
    assert control_value(view.d_k) == 64
    assert shown(view, "readouts") == before


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
    before = (shown(view, "readouts"), view.d_k.spec)
    view.board.receive(message)
    assert (view.model.d_k, view.model.seed) == (64, 0)
    assert (shown(view, "readouts"), view.d_k.spec) == before
    one_refusal(caplog)


def test_bars_are_built_once_with_fixed_columns(view):
    charts = ("unscaled_bars", "scaled_bars")
    assert all(view.board.kinds[chart] == "bars" for chart in charts)
    use(view, "d_k", 1024)
    use(view, "sample")
    for chart in charts:
        spec = shown(view, chart)
        assert (spec["corner"], spec["head"]) == ("llave", "peso")
        assert len(spec["rows"]) == 8
    # Each chart its own colour, as the readouts' "sin escalar" / "con escalado".
    assert shown(view, "unscaled_bars")["color"] != shown(view, "scaled_bars")["color"]
    assert_shows_model(view)


@pytest.mark.parametrize(
    ("lang", "d_k", "expected"),
    [("es", 64, "√64 = 8"), ("es", 1, "√1 = 1"), ("es", 2, "√2 ≈ 1,41"), ("en", 2, "√2 ≈ 1.41")],
)
def test_sqrt_text(panel_cleanup, lang, d_k, expected):
    view = ScalingView(model=ScalingDemo(d_k=d_k), lang=lang)
    assert span(shown(view, "readouts"), "scaling-sqrt-dk") == expected


def test_views_do_not_share_state(panel_cleanup):
    a, b = ScalingView(), ScalingView()
    assert a.model is not b.model
    assert a.board is not b.board
    use(a, "d_k", 4)
    assert b.model.d_k == 64
    assert span(shown(b, "readouts"), "scaling-sqrt-dk") == "√64 = 8"


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
    for chart in ("unscaled_bars", "scaled_bars"):
        spec = shown(english, chart)
        assert (spec["corner"], spec["head"]) == ("key", "weight")
    assert board_labels(english.board)["sample"] == "New sample"
    assert board_labels(english.board)["d_k"] == text("scaling.d_k_slider", "en")
    # The export's note names the button as the page shows it.
    assert "“New sample”" in english.export_note_html
    assert spanish_words_left(english.export_note_html) == set()


def test_english_numbers_use_a_decimal_point(english):
    # The defaults (d_k = 64, sample 0), as in the Spanish test: 0,63 there is 0.63 here.
    assert readout(shown(english, "unscaled_entropy"), "scaling-sample-entropy-unscaled") == "0.63"
    assert readout(shown(english, "scaled_entropy"), "scaling-sample-entropy-scaled") == "2.80"
    assert readout(shown(english, "readouts"), "scaling-entropy-unscaled") == "0.46"
    assert readout(shown(english, "readouts"), "scaling-entropy-scaled") == "2.49"
    assert readout(shown(english, "readouts"), "scaling-score-std").startswith("8.")
    assert label_and_unit(shown(english, "readouts"), "scaling-entropy-unscaled") == (
        "Mean entropy, unscaled",
        "bits, mean over 4000 random queries",
    )
    assert span(shown(english, "status"), "scaling-seed") == "0"
    assert "sample" in spec_text(shown(english, "status"))
    values = [row["value"] for row in shown(english, "unscaled_bars")["rows"]]
    assert values[0].endswith("%")
    assert " %" not in "".join(values)
    assert shown(english, "unscaled_bars")["caption"] == "Unscaled (d_k = 64)"
    assert shown(english, "scaled_bars")["caption"] == "Scaled (÷ √64)"
    assert_shows_model(english)


def test_english_slider_changes_the_english_numbers(english):
    before = shown(english, "readouts")
    use(english, "d_k", 128)
    assert english.model.d_k == 128
    assert shown(english, "readouts") != before
    assert span(shown(english, "readouts"), "scaling-sqrt-dk") == "√128 ≈ 11.31"
    assert shown(english, "unscaled_bars")["caption"] == "Unscaled (d_k = 128)"
    assert_shows_model(english)
    use(english, "sample")
    assert span(shown(english, "status"), "scaling-seed") == "1"
    assert_shows_model(english)
    assert "," not in readout(shown(english, "readouts"), "scaling-entropy-unscaled")
