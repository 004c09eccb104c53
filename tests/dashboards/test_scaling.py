"""ScalingView without a browser: the d_k slider and "Nueva muestra" <-> model, and the readouts."""

from __future__ import annotations

import math
import re

import numpy as np
import panel as pn
import pytest

from attnmodel.formatting import es_number, es_percent
from attnmodel.scaling import N_TRIALS, ScalingDemo
from dashboards.scaling import (
    D_K_OPTIONS,
    ENTROPY_SCALED_LABEL,
    ENTROPY_SCALED_UNIT,
    ENTROPY_UNSCALED_LABEL,
    ENTROPY_UNSCALED_UNIT,
    SAMPLE_ENTROPY_SCALED_LABEL,
    SAMPLE_ENTROPY_UNIT,
    SAMPLE_ENTROPY_UNSCALED_LABEL,
    ScalingView,
    sqrt_text,
)


def readout(html: str, testid: str) -> str:
    """The .c04-value text of the readout with that data-testid."""
    match = re.search(
        rf'data-testid="{testid}"><div class="c04-label">[^<]*</div>'
        r'<div class="c04-value">([^<]*)</div>',
        html,
    )
    assert match, f"no readout {testid!r}"
    return match.group(1)


def label_and_unit(html: str, testid: str) -> tuple[str, str]:
    """The .c04-label and .c04-unit texts of the readout with that data-testid."""
    match = re.search(
        rf'data-testid="{testid}"><div class="c04-label">([^<]*)</div>'
        r'<div class="c04-value">[^<]*</div><div class="c04-unit">([^<]*)</div>',
        html,
    )
    assert match, f"no readout {testid!r}"
    return match.group(1), match.group(2)


def span(html: str, testid: str) -> str:
    match = re.search(rf'data-testid="{testid}">([^<]*)<', html)
    assert match, f"no {testid!r}"
    return match.group(1)


def assert_shows_model(view: ScalingView) -> None:
    m = view.model
    top, bottom = view.readouts.object, view.gradient_readouts.object
    assert readout(top, "scaling-score-std") == es_number(m.score_std)
    assert readout(top, "scaling-entropy-unscaled") == es_number(m.entropy_unscaled)
    assert readout(top, "scaling-entropy-scaled") == es_number(m.entropy_scaled)
    assert readout(bottom, "scaling-gradient-unscaled") == es_number(m.gradient_unscaled, 3)
    assert readout(bottom, "scaling-gradient-scaled") == es_number(m.gradient_scaled, 3)
    sample_u, sample_s = view.unscaled_entropy.object, view.scaled_entropy.object
    assert readout(sample_u, "scaling-sample-entropy-unscaled") == es_number(
        m.sample_entropy_unscaled
    )
    assert readout(sample_s, "scaling-sample-entropy-scaled") == es_number(m.sample_entropy_scaled)
    assert span(top, "scaling-sqrt-dk") == sqrt_text(m.d_k)
    assert span(view.status.object, "scaling-dk") == f"d_k = {m.d_k}"
    assert span(view.status.object, "scaling-seed") == str(m.seed)
    for source, weights in (
        (view.unscaled_source, m.weights_unscaled),
        (view.scaled_source, m.weights_scaled),
    ):
        np.testing.assert_allclose(bars(source), weights)
        assert source.data["llave"] == [str(j + 1) for j in range(m.n_keys)]
        assert source.data["label"] == [es_percent(w, 1) for w in weights]
    assert view.bars_unscaled.title.text == f"Sin escalar (d_k = {m.d_k})"
    assert view.bars_scaled.title.text == f"Con escalado (÷ √{m.d_k})"


def bars(source) -> np.ndarray:
    return np.asarray(source.data["peso"])


@pytest.fixture
def view(panel_cleanup):
    v = ScalingView()
    v.__panel__().get_root()  # every Bokeh model builds
    return v


def _all_text(view) -> str:
    return "\n".join(str(getattr(o, "object", "")) for o in view.__panel__().select())


def test_builds_with_the_seed_text(view):
    assert view.__panel__() is view.__panel__()  # built once
    text = _all_text(view)
    for caption in (
        r"Si $$q$$ y $$k$$ tienen componentes independientes de varianza 1, el producto punto "
        r"$$q\cdot k$$ tiene varianza $$d_k$$: crece con la dimensión. Puntajes grandes empujan al "
        r"softmax hacia un one-hot, donde su gradiente es casi cero — y el modelo deja de "
        r"aprender. Dividir por $$\sqrt{d_k}$$ devuelve la varianza a 1.",
        r"Distribución de atención sobre 8 llaves de una sola consulta al azar, con puntajes "
        r"típicos de esa $$d_k$$. Sin escalar, una sola llave se lo lleva todo y las demás quedan "
        r"en cero: gradiente nulo para todas ellas.",
        r"¿Por qué dividir por $$\sqrt{d_k}$$?",
        "Puntaje típico",
        "desviación ≈ √d_k sin escalar",
        ENTROPY_UNSCALED_LABEL,
        ENTROPY_UNSCALED_UNIT.format(n=N_TRIALS),
        ENTROPY_SCALED_LABEL,
        ENTROPY_SCALED_UNIT.format(n=N_TRIALS),
        SAMPLE_ENTROPY_UNSCALED_LABEL,
        SAMPLE_ENTROPY_SCALED_LABEL,
        SAMPLE_ENTROPY_UNIT,
        f"Norma media del jacobiano del softmax sobre {N_TRIALS} consultas",
        "Gradiente sin escalar",
        "Gradiente con escalado",
    ):
        assert caption in re.sub(r"\s+", " ", text)


def test_mean_entropy_readouts_say_mean_and_over_how_many_queries(view):
    m = view.model
    assert m.n_trials == N_TRIALS == 4000
    for testid, label, unit in (
        ("scaling-entropy-unscaled", ENTROPY_UNSCALED_LABEL, ENTROPY_UNSCALED_UNIT),
        ("scaling-entropy-scaled", ENTROPY_SCALED_LABEL, ENTROPY_SCALED_UNIT),
    ):
        shown_label, shown_unit = label_and_unit(view.readouts.object, testid)
        assert shown_label == label
        assert shown_unit == unit.format(n=m.n_trials)
        assert "media" in shown_label
        assert f"media de {m.n_trials} consultas" in shown_unit
        assert shown_unit.startswith("bits")
    # The gradient readouts, which were already means, keep saying so.
    _, unit = label_and_unit(view.gradient_readouts.object, "scaling-gradient-unscaled")
    assert "medio" in unit


def test_sample_entropy_readouts_are_the_drawn_querys(view):
    m = view.model
    for pane, testid, label, entropy, weights in (
        (
            view.unscaled_entropy,
            "scaling-sample-entropy-unscaled",
            SAMPLE_ENTROPY_UNSCALED_LABEL,
            m.sample_entropy_unscaled,
            bars(view.unscaled_source),
        ),
        (
            view.scaled_entropy,
            "scaling-sample-entropy-scaled",
            SAMPLE_ENTROPY_SCALED_LABEL,
            m.sample_entropy_scaled,
            bars(view.scaled_source),
        ),
    ):
        shown_label, shown_unit = label_and_unit(pane.object, testid)
        assert (shown_label, shown_unit) == (label, SAMPLE_ENTROPY_UNIT)
        assert "media" not in shown_label + shown_unit
        assert "esta consulta" in shown_label
        # The entropy of the bars on screen, computed here from their heights.
        by_hand = -sum(p * math.log2(p) for p in weights if p > 0)
        assert readout(pane.object, testid) == es_number(by_hand) == es_number(entropy)
    # At the defaults the drawn query is not the mean: 0,63 vs 0,46 bits, 2,80 vs 2,49.
    assert readout(view.unscaled_entropy.object, "scaling-sample-entropy-unscaled") == "0,63"
    assert readout(view.scaled_entropy.object, "scaling-sample-entropy-scaled") == "2,80"
    assert readout(view.readouts.object, "scaling-entropy-unscaled") == "0,46"
    assert readout(view.readouts.object, "scaling-entropy-scaled") == "2,49"


def test_sample_entropy_sits_under_its_bars(view):
    layout = view.__panel__()
    for fig, pane in (
        (view.bars_unscaled, view.unscaled_entropy),
        (view.bars_scaled, view.scaled_entropy),
    ):
        (column,) = [
            c
            for c in layout.select(pn.Column)
            if any(getattr(o, "object", None) is fig for o in c.objects)
        ]
        bokeh_pane, below = column.objects
        assert bokeh_pane.object is fig
        assert below is pane


def test_default_readouts_are_the_models(view):
    assert view.model.d_k == 64
    assert view.d_k_slider.value == 64
    assert view.d_k_slider.options == D_K_OPTIONS == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]
    assert_shows_model(view)
    assert span(view.readouts.object, "scaling-sqrt-dk") == "√64 = 8"
    # The typical unscaled score is about √64 = 8.
    assert readout(view.readouts.object, "scaling-score-std").startswith("8,")


def test_slider_changes_d_k_and_every_number(view):
    before = view.readouts.object
    view.d_k_slider.value = 1024
    assert view.model.d_k == 1024
    assert view.readouts.object != before
    assert_shows_model(view)
    assert span(view.readouts.object, "scaling-sqrt-dk") == "√1024 = 32"
    view.d_k_slider.value = 128
    assert view.model.d_k == 128
    assert span(view.readouts.object, "scaling-sqrt-dk") == "√128 ≈ 11,31"
    assert_shows_model(view)


def test_larger_d_k_collapses_the_unscaled_softmax(view):
    view.d_k_slider.value = 1
    low = (view.model.entropy_unscaled, view.model.gradient_unscaled)
    view.d_k_slider.value = 1024
    high = (view.model.entropy_unscaled, view.model.gradient_unscaled)
    assert high[0] < low[0]
    assert high[1] < low[1]
    assert max(bars(view.unscaled_source)) > 0.99  # one key takes it all


def test_model_d_k_moves_the_slider(view):
    view.model.d_k = 16
    assert view.d_k_slider.value == 16
    assert_shows_model(view)
    view.model.d_k = 100  # not a power of two: it gets its own stop
    assert 100 in view.d_k_slider.options
    assert view.d_k_slider.value == 100
    assert_shows_model(view)


def test_new_sample_changes_the_seed_and_the_bars(view):
    old_bars = bars(view.unscaled_source)
    view.sample_button.clicks += 1
    assert view.model.seed == 1
    assert not np.allclose(bars(view.unscaled_source), old_bars)
    assert_shows_model(view)
    view.model.seed = 7
    assert span(view.status.object, "scaling-seed") == "7"
    assert_shows_model(view)


def test_out_of_range_d_k_is_refused_by_the_model(view):
    before = view.readouts.object
    with pytest.raises(ValueError, match="d_k"):
        view.model.d_k = 5000
    assert view.model.d_k == 64
    assert view.d_k_slider.value == 64
    assert view.readouts.object == before


def test_plots_are_built_once_with_fixed_axes(view):
    figures = (view.bars_unscaled, view.bars_scaled)
    sources = (view.unscaled_source, view.scaled_source)
    assert [s.name for s in sources] == ["scaling-unscaled-source", "scaling-scaled-source"]
    view.d_k_slider.value = 1024
    view.sample_button.clicks += 1
    assert (view.bars_unscaled, view.bars_scaled) == figures
    assert (view.unscaled_source, view.scaled_source) == sources
    for fig in figures:
        assert (fig.y_range.start, fig.y_range.end) == (0, 1)
        assert list(fig.x_range.factors) == [str(j + 1) for j in range(8)]
        assert fig.xaxis.axis_label == "llave"
        assert fig.yaxis.axis_label == "peso"
    assert_shows_model(view)


def test_sqrt_text():
    assert sqrt_text(64) == "√64 = 8"
    assert sqrt_text(1) == "√1 = 1"
    assert sqrt_text(2) == "√2 ≈ 1,41"


def test_views_do_not_share_state(panel_cleanup):
    a, b = ScalingView(), ScalingView()
    assert a.model is not b.model
    assert a.d_k_slider is not b.d_k_slider
    a.d_k_slider.value = 4
    assert b.model.d_k == 64
    assert span(b.readouts.object, "scaling-sqrt-dk") == "√64 = 8"


def test_view_uses_the_given_model(panel_cleanup):
    model = ScalingDemo(d_k=256)
    view = ScalingView(model=model)
    assert view.model is model
    assert view.d_k_slider.value == 256
    assert_shows_model(view)
