"""Demo 2: why divide the scores by √d_k.

Everything on screen comes from ``attnmodel.scaling.ScalingDemo``: the typical score, the softmax
entropy with and without the factor, the mean gradient size, and the weights of one random query.
"""

from __future__ import annotations

import math

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource, CustomJSTickFormatter, FactorRange, HoverTool, Range1d
from bokeh.plotting import figure

from attnmodel.scaling import ScalingDemo
from dashboards.common import (
    configure,
    es_number,
    es_percent,
    math_md,
    readout_html,
    section_header,
)

SPANISH_TICKS_JS = "return tick.toFixed(1).replace('.', ',');"
D_K_OPTIONS = [2**i for i in range(11)]  # 1, 2, 4, …, 1024
UNSCALED_COLOR = "#a40000"
SCALED_COLOR = "#1f5fa8"

INTRO = (
    r"Si $$q$$ y $$k$$ tienen componentes independientes de varianza 1, el producto punto "
    r"$$q\cdot k$$ tiene varianza $$d_k$$: crece con la dimensión. Puntajes grandes empujan al "
    r"softmax hacia un one-hot, donde su gradiente es casi cero — y el modelo deja de aprender. "
    r"Dividir por $$\sqrt{d_k}$$ devuelve la varianza a 1."
)

CAPTION = (
    r"Distribución de atención sobre 8 llaves con puntajes aleatorios típicos de esa $$d_k$$. "
    r"Sin escalar, una sola llave se lo lleva todo y las demás quedan en cero: gradiente nulo "
    r"para todas ellas."
)

GRADIENT_NOTE = (
    "Norma media del jacobiano del softmax sobre 4000 consultas: la señal que llega a los "
    "puntajes al entrenar. Sin escalar se acerca a 0 cuando d_k crece; con escalado no depende "
    "de d_k."
)


def sqrt_text(d_k: int) -> str:
    """'√64 = 8' when the root is exact, '√128 ≈ 11,31' otherwise."""
    root = math.sqrt(d_k)
    if root == int(root):
        return f"√{d_k} = {int(root)}"
    return f"√{d_k} ≈ {es_number(root)}"


class ScalingView(pn.viewable.Viewer):
    """d_k slider, "Nueva muestra", readouts and the bars of one query with and without √d_k.

    data-testids (each readout is a ``div.c04-readout``; its number is in ``.c04-value``):

    - ``scaling-score-std``: "Puntaje típico" (deviation of the unscaled scores, 2 decimals).
    - ``scaling-sqrt-dk``: the √d_k it is compared with ("√64 = 8"), inside that readout.
    - ``scaling-entropy-unscaled``: "Entropía del softmax", bits, unscaled (2 decimals).
    - ``scaling-entropy-scaled``: "Con escalado", bits after dividing by √d_k (2 decimals).
    - ``scaling-gradient-unscaled``, ``scaling-gradient-scaled``: mean softmax-gradient size
      (3 decimals).
    - ``scaling-dk``: the current d_k; ``scaling-seed``: the current sample number.

    Plots: ``bars_unscaled`` and ``bars_scaled`` are plain Bokeh figures (Bokeh names
    ``scaling-unscaled-figure``, ``scaling-scaled-figure``). A change only replaces their titles
    and the data of their sources ``unscaled_source``/``scaled_source`` (Bokeh names
    ``scaling-unscaled-source``, ``scaling-scaled-source``; columns ``llave``, ``peso``,
    ``label_y``, ``label``).
    """

    model = param.ClassSelector(class_=ScalingDemo)

    def __init__(self, **params):
        params.setdefault("model", ScalingDemo())
        super().__init__(**params)
        m = self.model

        self.d_k_slider = pn.widgets.DiscreteSlider(
            label="Dimensión d_k",
            options=self._options_for(m.d_k),
            value=m.d_k,
            width=320,
            margin=(10, 20, 10, 10),
        )
        self.d_k_slider.param.watch(self._on_slider, "value")
        self.sample_button = pn.widgets.Button(
            label="Nueva muestra", color="primary", width=140, margin=(28, 10, 10, 10)
        )
        self.sample_button.on_click(self._new_sample)
        self.status = pn.pane.HTML("", margin=(30, 10, 10, 10))

        self.readouts = pn.pane.HTML("", margin=(4, 0))
        self.gradient_readouts = pn.pane.HTML("", margin=(4, 0))

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
            section_header(r"¿Por qué dividir por $$\sqrt{d_k}$$?", INTRO),
            pn.Row(self.d_k_slider, self.sample_button, self.status),
            self.readouts,
            math_md(CAPTION),
            pn.Row(
                pn.pane.Bokeh(self.bars_unscaled, margin=(0, 10, 10, 0)),
                pn.pane.Bokeh(self.bars_scaled, margin=(0, 10, 10, 0)),
            ),
            self.gradient_readouts,
            pn.pane.HTML(
                f'<div class="c04-note">{GRADIENT_NOTE}</div>', sizing_mode="stretch_width"
            ),
            sizing_mode="stretch_width",
        )

    @staticmethod
    def _options_for(d_k: int) -> list[int]:
        # A d_k set on the model that is not a power of two still gets a stop on the slider.
        return sorted({*D_K_OPTIONS, int(d_k)})

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
        m = self.model
        score = readout_html(
            "Puntaje típico",
            es_number(m.score_std),
            "desviación ≈ √d_k sin escalar "
            f'(<span data-testid="scaling-sqrt-dk">{sqrt_text(m.d_k)}</span>)',
            testid="scaling-score-std",
        )
        entropy = readout_html(
            "Entropía del softmax",
            es_number(m.entropy_unscaled),
            "bits, sin escalar",
            testid="scaling-entropy-unscaled",
        )
        scaled = readout_html(
            "Con escalado",
            es_number(m.entropy_scaled),
            "bits, tras dividir por √d_k",
            testid="scaling-entropy-scaled",
        )
        grad_u = readout_html(
            "Gradiente sin escalar",
            es_number(m.gradient_unscaled, 3),
            "tamaño medio del gradiente del softmax",
            testid="scaling-gradient-unscaled",
        )
        grad_s = readout_html(
            "Gradiente con escalado",
            es_number(m.gradient_scaled, 3),
            "tras dividir por √d_k",
            testid="scaling-gradient-scaled",
        )
        with pn.io.hold():
            self.readouts.object = score + entropy + scaled
            self.gradient_readouts.object = grad_u + grad_s
            self.status.object = (
                f'<span class="c04-note"><span data-testid="scaling-dk">d_k = {m.d_k}</span> · '
                f'muestra n.º <span data-testid="scaling-seed">{m.seed}</span> · '
                "máximo con 8 llaves: 3 bits</span>"
            )
            self.unscaled_source.data = self._bars_data(m.weights_unscaled)
            self.scaled_source.data = self._bars_data(m.weights_scaled)
            self.bars_unscaled.title.text = f"Sin escalar (d_k = {m.d_k})"
            self.bars_scaled.title.text = f"Con escalado (÷ √{m.d_k})"

    @staticmethod
    def _bars_data(weights) -> dict[str, list]:
        """Bars of one query over its keys, with the Spanish percentage drawn above each bar."""
        w = np.asarray(weights, dtype=float)
        return {
            "llave": [str(j + 1) for j in range(len(w))],
            "peso": w.tolist(),
            # Inside the fixed 0..1 range even for a bar of height 1.
            "label_y": (np.minimum(w, 0.86) + 0.07).tolist(),
            "label": [es_percent(x, 1) for x in w],
        }

    @staticmethod
    def _bars_figure(keys: list[str], name: str, color: str) -> tuple[ColumnDataSource, figure]:
        """One bar panel, built once; a change only replaces its source's data and title."""
        source = ColumnDataSource(
            {"llave": [], "peso": [], "label_y": [], "label": []}, name=f"{name}-source"
        )
        fig = figure(
            name=f"{name}-figure",
            x_range=FactorRange(factors=keys),
            y_range=Range1d(0, 1),
            width=400,
            height=260,
            toolbar_location=None,
            tools="",
            x_axis_label="llave",
            y_axis_label="peso",
        )
        bars = fig.vbar(x="llave", top="peso", width=0.8, source=source, color=color, alpha=0.85)
        # Spanish percentages over each bar (Bokeh's own tick text uses a decimal point).
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
            HoverTool(renderers=[bars], tooltips=[("llave", "@llave"), ("peso", "@label")])
        )
        fig.yaxis.formatter = CustomJSTickFormatter(code=SPANISH_TICKS_JS)
        fig.xgrid.visible = False
        fig.yaxis.minor_tick_line_color = None
        return source, fig

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):
    configure()
    ScalingView().servable(title="¿Por qué dividir por √d_k?")
