"""Demo 2: why divide the scores by √d_k.

Everything on screen comes from ``attnmodel.scaling.ScalingDemo``: the typical score, the mean
softmax entropy with and without the factor, the mean gradient size (those three over the model's
``n_trials`` random queries), and the weights of one random query with their own entropy. Every
word is in the catalogue, table ``[scaling]`` (``attnmodel/locales/<lang>``); the numbers are
written as the view's language writes them.
"""

from __future__ import annotations

import json
import math

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, CustomJSTickFormatter, FactorRange, HoverTool, Range1d
from bokeh.plotting import figure

from attnmodel.formatting import number, percent, tick_js
from attnmodel.i18n import DEFAULT_LANG, text
from attnmodel.scaling import ScalingDemo
from dashboards.common import (
    DemoView,
    LiveHTML,
    Markup,
    announce_spec,
    announcer,
    apply_render,
    client_update,
    lean_renderers,
    math_md,
    plot_alternative,
    readout_spec,
    rich,
    section_header,
    serve_demo,
    shared_render,
)

D_K_OPTIONS = [2**i for i in range(11)]  # 1, 2, 4, …, 1024
# The offline export embeds every (d_k, seed) state for these seeds: "New sample" cycles them.
EXPORT_SEEDS = 10
UNSCALED_COLOR = "#a40000"
SCALED_COLOR = "#1f5fa8"


def sqrt_text(d_k: int, lang: str = DEFAULT_LANG) -> str:
    """'√64 = 8' when the root is exact, '√128 ≈ 11,31' (es) / '√128 ≈ 11.31' (en) otherwise."""
    root = math.sqrt(d_k)
    if root == int(root):
        return f"√{d_k} = {int(root)}"
    return f"√{d_k} ≈ {number(root, lang=lang)}"


def bars_data(weights, lang: str = DEFAULT_LANG) -> dict[str, list]:
    """Bars of one query over its keys, with the percentage drawn above each bar in ``lang``.

    The column names are data, the same in every language (the axes' labels are translated)."""
    w = np.asarray(weights, dtype=float)
    return {
        "llave": [str(j + 1) for j in range(len(w))],
        "peso": w.tolist(),
        # Inside the fixed 0..1 range even for a bar of height 1.
        "label_y": (np.minimum(w, 0.86) + 0.07).tolist(),
        "label": [percent(x, 1, lang) for x in w],
    }


def weights_table(unscaled, scaled, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.matrix``: the bars' percentages, a row per chart, shaded by weight (the
    numbers a screen reader cannot read from the canvas)."""

    def row(key: str, weights) -> dict:
        w = [float(x) for x in weights]
        return {
            "label": text(f"scaling.{key}", lang),
            "cells": [percent(x, 1, lang) for x in w],
            "shade": w,
            "sum": None,
        }

    return {
        "testid": "scaling-weights",
        "title": text("scaling.weights_table", lang),
        "cols": [text("scaling.key_column", lang, j=j + 1) for j in range(len(unscaled))],
        "rows": [row("row_unscaled", unscaled), row("row_scaled", scaled)],
        "note": None,
    }


@shared_render
def render(model: ScalingDemo, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """Everything on screen that follows the model, in ``lang``, by target name (see
    ``client_targets``).

    The specs of ``readouts``, ``gradient_readouts``, ``status`` (markup.js); the bars' data
    ``unscaled_source``, ``scaled_source``; the figure titles ``unscaled_title``,
    ``scaled_title``; the drawn query's own entropy under each figure, ``unscaled_entropy``,
    ``scaled_entropy`` (readout specs). The export embeds this dict for every (d_k, seed) it
    offers; the browser (``C04.views.scaling`` in dashboards/static/scaling.js) only looks it up.
    """
    return render_state(client_state(model, lang), model.d_k, model.seed, lang)


def render_state(state: dict, d_k: int, seed: int, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """``render`` from one embedded ``client_state``: what ``C04.views.scaling.render`` does in
    the browser, line by line (the texts from the catalogue, the numbers already in ``state``)."""
    score, entropy_u, entropy_s, grad_u, grad_s, sample_u, sample_s, n = state["t"]

    def t(key: str, **values) -> str:
        return text(f"scaling.{key}", lang, **values)

    def r(key: str, **fields) -> list:
        return rich(f"scaling.{key}", lang, **fields)

    sqrt = {"text": sqrt_text(d_k, lang), "testid": "scaling-sqrt-dk"}
    readouts = [
        readout_spec(r("score_label"), score, r("score_unit", sqrt=sqrt), "scaling-score-std"),
        readout_spec(
            r("entropy_unscaled_label"),
            entropy_u,
            r("entropy_unscaled_unit", n=str(n)),
            "scaling-entropy-unscaled",
        ),
        readout_spec(
            r("entropy_scaled_label"),
            entropy_s,
            r("entropy_scaled_unit", n=str(n)),
            "scaling-entropy-scaled",
        ),
    ]
    gradient_readouts = [
        readout_spec(
            r("gradient_unscaled_label"),
            grad_u,
            r("gradient_unscaled_unit"),
            "scaling-gradient-unscaled",
        ),
        readout_spec(
            r("gradient_scaled_label"),
            grad_s,
            r("gradient_scaled_unit"),
            "scaling-gradient-scaled",
        ),
    ]
    status = r(
        "status",
        d_k={"text": f"d_k = {d_k}", "testid": "scaling-dk"},
        seed={"text": str(seed), "testid": "scaling-seed"},
    )
    return {
        "readouts": {"items": readouts},
        "gradient_readouts": {"items": gradient_readouts},
        "status": {"testid": None, "cls": "c04-note", "text": status},
        "unscaled_source": bars_data(state["wu"], lang),
        "scaled_source": bars_data(state["ws"], lang),
        "weights_table": weights_table(state["wu"], state["ws"], lang),
        "announce": announce_spec(
            "scaling", lang, d_k=str(d_k), n=str(n), unscaled=entropy_u, scaled=entropy_s
        ),
        "unscaled_title": t("unscaled_title", d_k=d_k),
        "scaled_title": t("scaled_title", d_k=d_k),
        "unscaled_entropy": readout_spec(
            r("sample_entropy_unscaled_label"),
            sample_u,
            r("sample_entropy_unit"),
            "scaling-sample-entropy-unscaled",
        ),
        "scaled_entropy": readout_spec(
            r("sample_entropy_scaled_label"),
            sample_s,
            r("sample_entropy_unit"),
            "scaling-sample-entropy-scaled",
        ),
    }


def client_state(model: ScalingDemo, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """One embedded state, compact: the seven readout numbers written in ``lang`` (the page's
    language), the number of queries the means are over, and the two bar vectors.

    ``C04.views.scaling.render`` rebuilds ``render(model, lang)`` from it, byte for byte (the
    readouts' texts from the page's catalogue, √d_k, the status line, the titles, the bars'
    labels and label heights); the full render dicts would be six times larger (0,27 MB vs
    0,04 MB for 110 states), and the whole-lecture page must stay under 6 MB.
    """
    m = model

    def num(x: float, decimals: int = 2) -> str:
        return number(x, decimals, lang=lang)

    return {
        "t": [
            num(m.score_std),
            num(m.entropy_unscaled),
            num(m.entropy_scaled),
            num(m.gradient_unscaled, 3),
            num(m.gradient_scaled, 3),
            num(m.sample_entropy_unscaled),
            num(m.sample_entropy_scaled),
            str(m.n_trials),
        ],
        "wu": np.asarray(m.weights_unscaled, dtype=float).tolist(),
        "ws": np.asarray(m.weights_scaled, dtype=float).tolist(),
    }


def state_key(d_k: int, seed: int) -> str:
    """Key of an embedded state; dashboards/static/scaling.js builds the same string."""
    return f"d_k={int(d_k)}|seed={int(seed)}"


# The slider's title shows the stop, not its index (the Bokeh slider formats its own title).
STOP_FORMAT_JS = "return String(stops[Math.round(tick)]);"


class StopSlider(pn.viewable.Viewer):
    """A slider over a list of stops (d_k = 1, 2, 4, …): ``value`` is a stop, ``options`` the list.

    Inside, an IntSlider over the stops' indices whose title reads "Dimensión d_k: 64" through a
    ``CustomJSTickFormatter``. Panel's DiscreteSlider writes that label into a separate Div on
    every move instead, and in the browser a Div's new text makes Bokeh lay out the whole page
    again and repaint every plot (20–130 ms with the lecture's figures; bench/bench_browser.py);
    the slider's own title is updated in place.
    """

    value = param.Integer(doc="The stop the slider is on.")
    options = param.List(item_type=int, doc="The stops, in order.")

    def __init__(self, label: str = "", width: int = 320, margin=(10, 20, 10, 10), **params):
        super().__init__(**params)
        self.slider = pn.widgets.IntSlider(
            label=label,
            start=0,
            end=max(len(self.options) - 1, 1),
            step=1,
            value=self._index(self.value),
            format=self._format(),
            width=width,
            margin=margin,
        )
        # No guard against the echo: the slider put on the model's stop writes back the same
        # value, and param calls no watcher for an unchanged value.
        self.slider.param.watch(self._from_slider, "value")
        self.param.watch(self._to_slider, ["value", "options"])

    def _index(self, value: int) -> int:
        return self.options.index(value) if value in self.options else 0

    def _format(self) -> CustomJSTickFormatter:
        return CustomJSTickFormatter(args={"stops": list(self.options)}, code=STOP_FORMAT_JS)

    def _from_slider(self, event) -> None:
        self.value = self.options[int(event.new)]

    def _to_slider(self, *events) -> None:
        updates = {"value": self._index(self.value)}
        if any(e.name == "options" for e in events):
            updates.update(end=max(len(self.options) - 1, 1), format=self._format())
        self.slider.param.update(**updates)

    def __panel__(self):
        return self.slider


class ScalingView(DemoView):
    """d_k slider, "New sample", readouts and the bars of one query with and without √d_k.

    data-testids (each readout is a ``div.c04-readout``; its number is in ``.c04-value``):

    - ``scaling-score-std``: ``scaling.score_label`` (deviation of the unscaled scores,
      2 decimals).
    - ``scaling-sqrt-dk``: the √d_k it is compared with ("√64 = 8"), inside that readout.
    - ``scaling-entropy-unscaled``: ``scaling.entropy_unscaled_label``, mean entropy in bits
      over the model's ``n_trials`` queries, unscaled (2 decimals).
    - ``scaling-entropy-scaled``: ``scaling.entropy_scaled_label``, the same mean after dividing
      by √d_k.
    - ``scaling-sample-entropy-unscaled``, ``scaling-sample-entropy-scaled``: under each figure,
      the entropy in bits of the one query drawn there (``scaling.sample_entropy_*_label``,
      2 decimals).
    - ``scaling-gradient-unscaled``, ``scaling-gradient-scaled``: mean softmax-gradient size
      (3 decimals).
    - ``scaling-dk``: the current d_k; ``scaling-seed``: the current sample number.
    - ``scaling-export-note``: the note on how "New sample" cycles the embedded samples,
      visible only in the offline export (``export_note``, shown by ``enable_client_side``).

    Plots: ``bars_unscaled`` and ``bars_scaled`` are plain Bokeh figures (Bokeh names
    ``scaling-unscaled-figure``, ``scaling-scaled-figure``). A change only replaces their titles
    and the data of their sources ``unscaled_source``/``scaled_source`` (Bokeh names
    ``scaling-unscaled-source``, ``scaling-scaled-source``; columns ``llave``, ``peso``,
    ``label_y``, ``label``: data, the same in every language).

    Every text is in ``lang``: the catalogue's table ``[scaling]``.
    """

    model = param.ClassSelector(class_=ScalingDemo)

    def __init__(self, **params):
        params.setdefault("model", ScalingDemo())
        super().__init__(**params)
        m = self.model

        self.d_k_slider = StopSlider(
            label=self.t("scaling.d_k_slider"),
            options=self._options_for(m.d_k),
            value=m.d_k,
            width=320,
            margin=(10, 20, 10, 10),
        )
        self.d_k_slider.param.watch(self._on_slider, "value")
        self.sample_button = pn.widgets.Button(
            label=self.t("scaling.new_sample"),
            color="primary",
            width=140,
            margin=(28, 10, 10, 10),
        )
        self.sample_button.on_click(self._new_sample)
        self.status = Markup(kind="note", margin=(30, 10, 10, 10))
        # Shown only in the offline export (enable_client_side), where the samples cycle.
        self.export_note = LiveHTML(
            '<div class="c04-note" data-testid="scaling-export-note">'
            f"{self.t('scaling.export_note', last=EXPORT_SEEDS - 1)}</div>",
            visible=False,
            sizing_mode="stretch_width",
            margin=(0, 10),
        )

        self.readouts = Markup(kind="readouts", margin=(4, 0))
        self.gradient_readouts = Markup(kind="readouts", margin=(4, 0))
        # The drawn query's own entropy, under its bars.
        self.unscaled_entropy = Markup(kind="readout", margin=(0, 10, 10, 0))
        self.scaled_entropy = Markup(kind="readout", margin=(0, 10, 10, 0))
        self.weights_table = Markup(kind="matrix", margin=(0, 10, 10, 0))
        self.announcer = announcer()

        # Bokeh models belong to one document: figures and sources per view (per session).
        keys = [str(j + 1) for j in range(m.n_keys)]
        self.unscaled_source, self.bars_unscaled = self._bars_figure(
            keys, "scaling-unscaled", UNSCALED_COLOR
        )
        self.scaled_source, self.bars_scaled = self._bars_figure(
            keys, "scaling-scaled", SCALED_COLOR
        )

        self._refresh()
        m.param.watch(self._on_change, ["d_k", "seed"])

        self._layout = pn.Column(
            section_header(self.t("scaling.title"), self.t("scaling.intro")),
            pn.Row(self.d_k_slider, self.sample_button, self.status),
            self.export_note,
            self.readouts,
            math_md(self.t("scaling.caption")),
            pn.Row(
                pn.Column(
                    pn.pane.Bokeh(self.bars_unscaled, margin=(0, 10, 0, 0)), self.unscaled_entropy
                ),
                pn.Column(
                    pn.pane.Bokeh(self.bars_scaled, margin=(0, 10, 0, 0)), self.scaled_entropy
                ),
            ),
            self.weights_table,
            self.gradient_readouts,
            LiveHTML(
                f'<div class="c04-note">{self.t("scaling.gradient_note", n=m.n_trials)}</div>',
                sizing_mode="stretch_width",
            ),
            self.announcer,
            sizing_mode="stretch_width",
        )

    @staticmethod
    def _options_for(d_k: int) -> list[int]:
        # A d_k set on the model that is not a power of two still gets a stop on the slider.
        return sorted({*D_K_OPTIONS, int(d_k)})

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing.py); the seed has
        none: "Nueva muestra" steps it."""
        return {"d_k": self.d_k_slider, "seed": None}

    @staticmethod
    def link_export(name: str) -> dict | None:
        """In the export "Nueva muestra" cycles the embedded samples 0 … EXPORT_SEEDS − 1 and
        scaling.js keeps the seed (``setSeed``, ``seed``)."""
        if name == "seed":
            return {"hook": "scaling", "range": [0, EXPORT_SEEDS - 1, 1]}
        return None

    def _on_slider(self, event) -> None:
        self.model.d_k = int(event.new)

    def _new_sample(self, _event=None) -> None:
        self.model.seed = (self.model.seed + 1) % 2**32

    def _on_change(self, *events) -> None:
        d_k = self.model.d_k
        with pn.io.hold():
            if d_k not in self.d_k_slider.options:
                self.d_k_slider.options = self._options_for(d_k)
            if self.d_k_slider.value != d_k:
                self.d_k_slider.value = d_k
            self._refresh()

    def _refresh(self) -> None:
        apply_render(self.client_targets(), render(self.model, self.lang))

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (pane / source / Bokeh model, kind), for the names of ``render``."""
        return {
            "readouts": (self.readouts, "markup"),
            "gradient_readouts": (self.gradient_readouts, "markup"),
            "status": (self.status, "markup"),
            "unscaled_source": (self.unscaled_source, "data"),
            "scaled_source": (self.scaled_source, "data"),
            "unscaled_title": (self.bars_unscaled.title, "prop:text"),
            "scaled_title": (self.bars_scaled.title, "prop:text"),
            "unscaled_entropy": (self.unscaled_entropy, "markup"),
            "scaled_entropy": (self.scaled_entropy, "markup"),
            "weights_table": (self.weights_table, "markup"),
            "announce": (self.announcer, "markup"),
        }

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed every reachable (d_k, seed) and wire the controls; export only.

        States: every stop of the d_k slider × the seeds 0 … EXPORT_SEEDS − 1 (and the model's
        own seed), as ``client_state`` in the page's language (``lang``; from it the browser
        rebuilds ``render``, its texts from the page's catalogue) under
        ``states["scaling"][state_key(d_k, seed)]``. In the export "New sample" goes to the next
        of those seeds, back to 0 after the last (a note says so).
        The callbacks get every target, ``w_d_k`` (the slider's Bokeh Slider: its value is the
        index of the stop), ``w_sample`` (the button), ``options`` (the stops, JSON), ``init``
        (the model's seed, JSON), ``n_seeds`` and ``trigger`` (what fired: the slider, or the
        button's click event). Returns the number of embedded states.
        """
        m = self.model
        options = list(self.d_k_slider.options)
        seeds = sorted({*range(EXPORT_SEEDS), int(m.seed)})
        table = {
            state_key(d_k, seed): client_state(ScalingDemo(d_k=d_k, seed=seed), self.lang)
            for d_k in options
            for seed in seeds
        }
        if states is not None:
            states["scaling"] = table
        self.export_note.visible = True

        code, args = client_update(
            "scaling",
            self.client_targets(),
            w_d_k=self.d_k_slider.slider,  # StopSlider: an IntSlider over the stops' indices
            w_sample=self.sample_button,
            options=json.dumps(options),
            init=json.dumps({"seed": int(m.seed)}),
            n_seeds=EXPORT_SEEDS,
        )
        self.d_k_slider.slider.jscallback(value=code, args=args)
        self.sample_button.jscallback(clicks=code, args=args)
        return len(table)

    def _bars_figure(
        self, keys: list[str], name: str, color: str
    ) -> tuple[ColumnDataSource, figure]:
        """One bar panel, built once; a change only replaces its source's data and title."""
        source = ColumnDataSource(
            {"llave": [], "peso": [], "label_y": [], "label": []}, name=f"{name}-source"
        )
        fig = figure(
            name=f"{name}-figure",
            html_attributes=plot_alternative(self, name.replace("-", "_")),
            x_range=FactorRange(factors=keys),
            y_range=Range1d(0, 1),
            width=400,
            height=260,
            toolbar_location=None,
            tools="",
            x_axis_label=self.t("scaling.key_axis"),
            y_axis_label=self.t("scaling.weight_axis"),
        )
        bars = fig.vbar(x="llave", top="peso", width=0.8, source=source, color=color, alpha=0.85)
        # Percentages over each bar, as the page's language writes them (bars_data).
        fig.text(
            x="llave",
            y="label_y",
            text="label",
            source=source,
            text_font_size="8pt",
            text_color="#333",
            text_align="center",
            text_baseline="middle",
        )
        fig.add_tools(
            HoverTool(
                renderers=[bars],
                tooltips=[
                    (self.t("scaling.key_axis"), "@llave"),
                    (self.t("scaling.weight_axis"), "@label"),
                ],
            )
        )
        # Bokeh's own tick text uses a decimal point: the language's separator instead.
        fig.yaxis.formatter = CustomJSTickFormatter(code=tick_js(1, lang=self.lang))
        fig.xgrid.visible = False
        fig.yaxis.minor_tick_line_color = None
        lean_renderers(fig)
        return source, fig

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):
    serve_demo("escalado")
