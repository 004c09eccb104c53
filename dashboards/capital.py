"""Demo 4 of the lecture: "La capital de ___ es …", the eight steps of the appendix, computed.

Every number on screen comes from ``attnmodel.capital.CapitalWalkthrough``; the view only lays
the steps out and keeps them current when the country or its identity changes.
"""

from __future__ import annotations

import json

import panel as pn
import param
from bokeh.models import ColumnDataSource, CustomJSTickFormatter, FactorRange, HoverTool, Range1d
from bokeh.plotting import figure

from attnmodel import CapitalWalkthrough
from attnmodel.capital import (
    COUNTRIES,
    COUNTRY_SLOT,
    DIMENSIONS,
    QUERY,
    VOCABULARY,
    W_K,
    W_Q,
    W_V,
    U,
)
from attnmodel.formatting import tick_js
from dashboards.common import (
    DemoView,
    LiveHTML,
    apply_render,
    es_number,
    esc,
    lean_renderers,
    math_md,
    matrix_html,
    readout_html,
    section_header,
    serve_demo,
)

PAGE_TITLE = '"La capital de ___ es …" — el recorrido completo, calculado'

INTRO = (
    r"Los ocho pasos del apéndice de la Clase 4, ejecutados de verdad con $$d_{model} = 3$$ y un "
    r"vocabulario de 8 palabras. Cambia el país y observa lo que no cambia: la fila de atención "
    r"es idéntica. Lo que cambia es el contenido que viaja."
)

ATTENTION_CAPTION = 'Fila de atención de "es" sobre los 5 tokens'

DISTRIBUTION_CAPTION = (
    'Distribución final sobre el vocabulario de 8 palabras. Las seis palabras "resto" comparten '
    "el mismo vector de salida nulo, así que reciben todas el mismo logit 0."
)

CARD_CSS = ":host { border: 1px solid #d6dbe3; border-radius: 6px; background: #fff; }"

PANE_CSS = """
.c04-matrix caption { white-space: nowrap; }
.c04-row { display: flex; flex-wrap: wrap; gap: 4px 14px; align-items: flex-start; }
.c04-tokens { display: flex; gap: 6px; flex-wrap: wrap; margin: 4px 0; }
.c04-token { border: 1px solid #1f5fa8; border-radius: 4px; padding: 4px 8px; text-align: center; }
.c04-token small { display: block; color: #666; font-size: 75%; }
.c04-token.c04-country { background: #1f5fa8; color: #fff; }
.c04-token.c04-country small { color: #dde6f3; }
.c04-token.c04-query { border-width: 2px; font-weight: 600; }
.c04-vector { font-variant-numeric: tabular-nums; }
.c04-box { border-left: 4px solid #d95f02; background: #fdf6f0; padding: 8px 14px; }
.c04-box p { margin: 4px 0; }
"""

CARD_WIDTH = 350

# The slider's value label and the axis ticks as the page's language writes numbers.
SLIDER_TICK_JS = tick_js(2)
AXIS_TICK_JS = tick_js()


# Bar colours: París and Roma stand out, the six "resto" words share a grey.
WORD_COLORS = {"París": "#1f5fa8", "Roma": "#d95f02"}
OTHER_COLOR = "#b8c2cf"
ATTENTION_COLOR = "#1f5fa8"

# Bokeh names (found in the browser with Bokeh.documents[0].get_model_by_name).
ATTENTION_SOURCE = "capital-attention-source"
PROBABILITIES_SOURCE = "capital-probabilities-source"


def _vector(values, decimals: int = 4) -> str:
    return "(" + "; ".join(es_number(v, decimals) for v in values) + ")"


def attention_labels(tokens: list[str]) -> list[str]:
    """The attention chart's factors: "3 · Francia"-style, so the country's bar is renamed."""
    return [f"{pos} · {token}" for pos, token in enumerate(tokens)]


def tokens_html(tokens: list[str]) -> str:
    chips = []
    for pos, token in enumerate(tokens):
        cls = "c04-token"
        if pos == COUNTRY_SLOT:
            cls += " c04-country"
        elif pos == QUERY:
            cls += " c04-query"
        chips.append(f'<div class="{cls}">{esc(token)}<small>pos {pos}</small></div>')
    return (
        f'<div class="c04-tokens" data-testid="capital-tokens">{"".join(chips)}</div>'
        '<div class="c04-note">«es», el último token, es el que predice la palabra '
        "siguiente.</div>"
    )


def readouts_html(model: CapitalWalkthrough) -> str:
    p = model.probability_vector
    top = [w for w, pw in zip(model.vocabulary, p, strict=True) if pw == p.max()]
    return (
        readout_html("Predicción", esc(model.prediction), testid="capital-prediction")
        + readout_html(
            "Probabilidad",
            es_number(model.probability, 4),
            " = ".join(f"p({esc(w)})" for w in top),
            testid="capital-probability",
        )
        + readout_html(
            "Pérdida si acierta", es_number(model.loss, 4), "−ln p", testid="capital-loss"
        )
    )


def asymmetry_html(model: CapitalWalkthrough) -> str:
    a = float(model.attention_row[COUNTRY_SLOT])
    slopes = model.identity_slopes
    u_paris, u_roma = float(U[0, 2]), float(U[1, 2])
    magnitude = abs(model.identity)
    # What the same |identity| gives each side, from two scratch models (public outputs only).
    plus = CapitalWalkthrough(identity=magnitude).probabilities["París"]
    minus = CapitalWalkthrough(identity=-magnitude).probabilities["Roma"]
    m = es_number(magnitude)
    if magnitude > 0:
        compare = (
            f"Con |identidad| = {m}: p(París | +{m}) = {es_number(plus, 4)}, "
            f"p(Roma | −{m}) = {es_number(minus, 4)}."
        )
    else:
        compare = f"Con identidad 0 empatan: p(París) = p(Roma) = {es_number(plus, 4)}."
    return (
        '<div class="c04-box" data-testid="capital-asymmetry">'
        "<p><b>¿Por qué París y Roma no son simétricas?</b> Cada logit cambia con la "
        "identidad con pendiente <i>a</i><sub>país</sub> × <i>u</i><sub>palabra,2</sub>: la "
        f"atención de «es» sobre el país (<i>a</i><sub>país</sub> = {es_number(a, 4)}) por "
        "la componente de identidad del vector de salida de la palabra.</p>"
        f"<p>Pendiente de París = <i>a</i><sub>país</sub> × {es_number(u_paris)} = "
        f'<b data-testid="capital-slope-paris">{es_number(slopes["París"], 4)}</b>; '
        f"de Roma = <i>a</i><sub>país</sub> × ({es_number(u_roma)}) = "
        f'<b data-testid="capital-slope-roma">{es_number(slopes["Roma"], 4)}</b>.</p>'
        "<p>Los vectores de salida de París y Roma coinciden en «lugar» (por eso empatan con "
        "identidad 0), pero no son simétricos en «identidad»: la misma |identidad| empuja "
        f"más a París que a Roma. {compare} La asimetría está en la capa de salida, no en la "
        "atención.</p></div>"
    )


def render(model: CapitalWalkthrough) -> dict[str, object]:
    """Everything on screen that follows the country and the identity, by target name.

    HTML panes (``tokens``, ``embeddings``, ``pe``, ``with_position``, ``query``, ``keys``,
    ``values``, ``scores``, ``attention_row``, ``mixed``, ``logits``, ``probabilities``,
    ``readouts``, ``asymmetry``), the attention chart's factors (``attention_factors``, set
    before its data) and the data of the two bar charts (``attention_source``,
    ``probabilities_source``). The browser twin (``C04.views.capital`` in
    dashboards/static/capital.js) returns the same dict from the same constants
    (``client_constants()``).
    """
    tokens = model.tokens
    dims = list(DIMENSIONS)
    vocab = model.vocabulary
    attention_row = model.attention_row
    probability_vector = model.probability_vector
    labels = attention_labels(tokens)
    return {
        "tokens": tokens_html(tokens),
        "embeddings": matrix_html(
            model.embeddings,
            title="x (5×3)",
            row_labels=tokens,
            col_labels=dims,
            testid="capital-embeddings",
        ),
        "pe": matrix_html(
            model.positional,
            title="PE",
            row_labels=tokens,
            col_labels=dims,
            decimals=4,
            testid="capital-pe",
        ),
        "with_position": matrix_html(
            model.with_position,
            title="x + PE",
            row_labels=tokens,
            col_labels=dims,
            decimals=4,
            testid="capital-with-position",
        ),
        "query": matrix_html(
            model.Q[QUERY : QUERY + 1],
            title="Consulta de «es»: q = (x + PE) W_Q",
            row_labels=[tokens[QUERY]],
            col_labels=dims,
            testid="capital-query",
        ),
        "keys": matrix_html(
            model.K,
            title="Llaves K",
            row_labels=tokens,
            col_labels=dims,
            decimals=4,
            testid="capital-keys",
        ),
        "values": matrix_html(
            model.V,
            title="Valores V",
            row_labels=tokens,
            col_labels=dims,
            decimals=4,
            testid="capital-values",
        ),
        "scores": matrix_html(
            model.scores[None, :],
            row_labels=["es"],
            col_labels=tokens,
            decimals=4,
            testid="capital-scores",
        ),
        "attention_row": matrix_html(
            attention_row[None, :],
            row_labels=["es"],
            col_labels=tokens,
            decimals=4,
            shade=True,
            testid="capital-attention-row",
        )
        + f'<div class="c04-note">La fila suma Σ = {es_number(attention_row.sum(), 4)}</div>',
        "mixed": (
            f'<div class="c04-vector" data-testid="capital-mixed">z = {_vector(model.mixed)}</div>'
        ),
        "logits": matrix_html(
            model.logits[:, None],
            title="Logits",
            row_labels=vocab,
            col_labels=["logit"],
            decimals=4,
            testid="capital-logits",
        ),
        "probabilities": matrix_html(
            probability_vector[:, None],
            title="Probabilidades",
            row_labels=vocab,
            col_labels=["p"],
            decimals=4,
            testid="capital-probabilities",
        ),
        "readouts": readouts_html(model),
        "asymmetry": asymmetry_html(model),
        # The country's bar is renamed with the country: factors first, then the data.
        "attention_factors": labels,
        "attention_source": {
            "token": labels,
            "peso": attention_row.tolist(),
            "label": [es_number(a, 4) for a in attention_row],
        },
        "probabilities_source": {
            "palabra": list(vocab),
            "p": probability_vector.tolist(),
            "color": [WORD_COLORS.get(w, OTHER_COLOR) for w in vocab],
            "label": [es_number(p, 4) for p in probability_vector],
        },
    }


def client_constants() -> dict[str, object]:
    """The toy model's constants for the browser twin (the export embeds them), so that
    dashboards/static/capital.js computes from the very numbers of attnmodel.capital.

    Taken from the model's public outputs: the embeddings at identity 0 (the identity enters
    only at [country slot, "identidad"]) and the sentence with ``None`` in the country's slot.
    """
    base = CapitalWalkthrough(identity=0.0)
    sentence: list[str | None] = list(base.tokens)
    sentence[COUNTRY_SLOT] = None
    return {
        "sentence": sentence,
        "country_slot": COUNTRY_SLOT,
        "query": QUERY,
        "identity_dim": DIMENSIONS.index("identidad"),
        "countries": dict(COUNTRIES),
        "dimensions": list(DIMENSIONS),
        "embeddings_at_zero": base.embeddings.tolist(),
        "W_Q": W_Q.tolist(),
        "W_K": W_K.tolist(),
        "W_V": W_V.tolist(),
        "U": U.tolist(),
        "vocabulary": list(VOCABULARY),
        "word_colors": dict(WORD_COLORS),
        "other_color": OTHER_COLOR,
    }


class CapitalView(DemoView):
    """The eight steps of "La capital de ___ es …" for one country and identity.

    Controls: "País" (select, Francia/Italia) and "Identidad del país" (slider −1..1, step 0.01),
    both bound to the model; choosing a country sets the identity, so the slider moves too.

    data-testids: ``capital-tokens`` (step 1), ``capital-embeddings`` (2), ``capital-pe`` and
    ``capital-with-position`` (3), ``capital-query``, ``capital-keys``, ``capital-values`` (4),
    ``capital-scores`` (5), ``capital-attention-row`` (6), ``capital-mixed`` (7),
    ``capital-logits`` and ``capital-probabilities`` (8, vocabulary order), the readouts
    ``capital-prediction``, ``capital-probability`` (4 decimals, e.g. "0,3805"), ``capital-loss``
    (−ln p), and ``capital-asymmetry`` (the París/Roma slopes).

    Updates: one model watcher recomputes every HTML pane in place and, in the same
    ``pn.io.hold()``, the data of the two bar charts. Both are plain Bokeh figures built once:
    ``self.attention_bars`` (Bokeh name ``capital-attention-bars``) draws
    ``self.attention_source`` (name ``capital-attention-source``; columns ``token`` = "3 ·
    Francia"-style labels, ``peso``, ``label``) on a categorical x range whose factors follow the
    country; ``self.probability_bars`` (name ``capital-probability-bars``) draws
    ``self.probabilities_source`` (name ``capital-probabilities-source``; columns ``palabra`` in
    vocabulary order, ``p``, ``color``, ``label``). ``label`` holds the Spanish 4-decimal text the
    hover shows. What is on screen is ``render(model)``, put there by ``apply_render``.

    Export: ``enable_client_side`` wires both controls to the browser twin
    (dashboards/static/capital.js), which computes the same ``render`` in the page from the
    model's constants (``client_constants()``, embedded in the page).
    """

    model = param.ClassSelector(class_=CapitalWalkthrough)

    def __init__(self, **params):
        params.setdefault("model", CapitalWalkthrough())
        super().__init__(**params)
        model = self.model
        self.country_select = pn.widgets.Select.from_param(
            model.param.country, label="País", width=180
        )
        self.identity_slider = pn.widgets.FloatSlider.from_param(
            model.param.identity,
            label="Identidad del país",
            start=-1.0,
            end=1.0,
            step=0.01,
            format=CustomJSTickFormatter(code=SLIDER_TICK_JS),
            width=320,
        )
        self.identity_note = LiveHTML(
            '<span class="c04-note">+1: Francia pura · −1: Italia pura · 0: ninguna</span>',
            margin=(26, 10),
        )

        def html(**kw):
            return LiveHTML("", margin=(0, 4), stylesheets=[PANE_CSS], **kw)

        self.tokens = html()
        self.embeddings = html()
        self.pe = html()
        self.with_position = html()
        self.query = html()
        self.keys = html()
        self.values = html()
        self.scores = html()
        self.attention_row = html()
        self.mixed = html()
        self.logits = html()
        self.probabilities = html()
        self.readouts = html(sizing_mode="stretch_width")
        self.asymmetry = html(sizing_mode="stretch_width")

        # Bokeh models belong to one document: figures and sources per view (per session).
        self.attention_source = ColumnDataSource(
            {"token": [], "peso": [], "label": []}, name=ATTENTION_SOURCE
        )
        self.probabilities_source = ColumnDataSource(
            {"palabra": [], "p": [], "color": [], "label": []}, name=PROBABILITIES_SOURCE
        )
        self.attention_bars = self._attention_figure()
        self.probability_bars = self._probability_figure()
        self._last_state = None
        self._refresh()
        model.param.watch(self._on_change, ["country", "identity"])

        cards = [
            self._card("1 · Tokens", self.tokens),
            self._card(
                "2 · Embeddings",
                math_md("Dimensiones: «lugar», «función» e «identidad» (+1 Francia, −1 Italia)."),
                self.embeddings,
            ),
            self._card(
                "3 · + posición",
                math_md(
                    "El par seno/coseno de la frecuencia más alta va en «lugar» y «función»; la "
                    "identidad no recibe posición."
                ),
                self.pe,
                self.with_position,
            ),
            self._card(
                "4 · Q, K, V",
                math_md(
                    r"$$W_Q$$ convierte «soy palabra funcional» en «busco un lugar»; $$W_K$$ solo "
                    r"ofrece «lugar» (ignora la identidad); $$W_V = I$$."
                ),
                LiveHTML(self._weights_html(), margin=(0, 4), stylesheets=[PANE_CSS]),
                self.query,
                pn.Row(self.keys, self.values),
                width=2 * CARD_WIDTH + 10,
            ),
            self._card(
                "5 · Puntajes de «es» (÷ √3)",
                math_md(r"$$q_{es} \cdot k_j / \sqrt{3}$$ para cada uno de los 5 tokens."),
                self.scores,
            ),
            self._card(
                "6 · Softmax",
                math_md(ATTENTION_CAPTION),
                self.attention_row,
                pn.pane.Bokeh(self.attention_bars),
            ),
            self._card(
                "7 · Vector mezclado",
                math_md(r"$$z = \sum_j a_j v_j$$: lo que «es» lleva a la salida."),
                self.mixed,
            ),
            self._card(
                "8 · Logits → probabilidades",
                math_md(
                    r"Logit de cada palabra $$= u_{palabra} \cdot z$$; después, softmax sobre "
                    r"el vocabulario."
                ),
                LiveHTML(self._unembedding_html(), margin=(0, 4)),
                pn.Row(self.logits, self.probabilities),
            ),
        ]
        self._layout = pn.Column(
            section_header(PAGE_TITLE.replace("___", r"\_\_\_"), INTRO, anchor="capital"),
            pn.Row(self.country_select, self.identity_slider, self.identity_note),
            # Fixed rows, not a FlexBox: inside the lecture's Row a FlexBox kept the attention
            # figure from ever finishing its first paint, and the browser then dropped every
            # later plot update.
            pn.Column(pn.Row(*cards[:3]), pn.Row(*cards[3:5]), pn.Row(*cards[5:])),
            math_md(DISTRIBUTION_CAPTION, css_classes=["c04-note"]),
            pn.pane.Bokeh(self.probability_bars, sizing_mode="stretch_width"),
            self.readouts,
            self.asymmetry,
            sizing_mode="stretch_width",
        )

    @staticmethod
    def _card(title: str, *objects, width: int = CARD_WIDTH) -> pn.Card:
        return pn.Card(
            *objects,
            title=title,
            collapsible=False,
            width=width,
            margin=(5, 10, 5, 0),
            header_background="#eef4fb",
            styles={"background": "#fff"},
            stylesheets=[CARD_CSS],
        )

    @staticmethod
    def _weights_html() -> str:
        dims = list(DIMENSIONS)
        tables = "".join(
            matrix_html(w, title=title, row_labels=dims, col_labels=dims, decimals=0)
            for title, w in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V))
        )
        return f'<div class="c04-row">{tables}</div>'

    def _unembedding_html(self) -> str:
        return matrix_html(
            U,
            title="Vectores de salida u",
            row_labels=self.model.vocabulary,
            col_labels=list(DIMENSIONS),
            testid="capital-unembedding",
        )

    # -- updates -------------------------------------------------------------------------------

    def _on_change(self, *events) -> None:
        self._refresh()

    def _refresh(self) -> None:
        model = self.model
        state = (model.country, model.identity)
        if state == self._last_state:  # country -> identity fires twice for one change
            return
        self._last_state = state
        apply_render(self.client_targets(), render(model))

    def _attention_labels(self) -> list[str]:
        return attention_labels(self.model.tokens)

    # -- the export (dashboards/export.py) -----------------------------------------------------

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (pane / source / Bokeh model, kind), for the names of ``render``."""
        html = {
            name: (getattr(self, name), "html")
            for name in (
                "tokens",
                "embeddings",
                "pe",
                "with_position",
                "query",
                "keys",
                "values",
                "scores",
                "attention_row",
                "mixed",
                "logits",
                "probabilities",
                "readouts",
                "asymmetry",
            )
        }
        return {
            **html,
            "attention_factors": (self.attention_bars.x_range, "prop:factors"),
            "attention_source": (self.attention_source, "data"),
            "probabilities_source": (self.probabilities_source, "data"),
        }

    def enable_client_side(self, states: dict | None = None) -> int:
        """Wire the country select and the identity slider to the browser twin
        (``C04.views.capital``). No embedded states: the twin computes every step from the
        model's constants, which go into ``states["capital"]["constants"]``.

        The callback gets every target, the controls as ``w_country`` and ``w_identity``, and
        ``trigger`` (the control that changed: a new country sets its identity, as the model
        does).
        """
        if states is not None:
            states["capital"] = {"constants": client_constants()}
        targets = self.client_targets()
        kinds = {name: kind for name, (_, kind) in targets.items()}
        args = {name: obj for name, (obj, _) in targets.items()}
        args["w_country"] = self.country_select
        args["w_identity"] = self.identity_slider
        # Bokeh's CustomJS passes each arg as a variable of its own: gather them in one object.
        names = ", ".join(args)
        code = f'C04.update("capital", {{{names}, trigger: cb_obj}}, {json.dumps(kinds)});'
        self.country_select.jscallback(value=code, args=args)
        self.identity_slider.jscallback(value=code, args=args)
        return 0

    # -- plots ---------------------------------------------------------------------------------

    def _attention_figure(self):
        fig = figure(
            name="capital-attention-bars",
            x_range=FactorRange(factors=self._attention_labels()),
            y_range=Range1d(0, 1),
            width=CARD_WIDTH - 30,
            height=230,
            tools="",
            toolbar_location=None,
            x_axis_label="token",
            y_axis_label="peso de atención",
            output_backend="canvas",
        )
        bars = fig.vbar(
            x="token", top="peso", width=0.8, source=self.attention_source, color=ATTENTION_COLOR
        )
        fig.add_tools(
            HoverTool(renderers=[bars], tooltips=[("token", "@token"), ("peso", "@label")])
        )
        self._style_bars(fig)
        lean_renderers(fig)
        return fig

    def _probability_figure(self):
        fig = figure(
            name="capital-probability-bars",
            x_range=FactorRange(factors=list(self.model.vocabulary)),
            y_range=Range1d(0, 0.6),
            height=300,
            sizing_mode="stretch_width",
            tools="",
            toolbar_location=None,
            x_axis_label="palabra siguiente",
            y_axis_label="probabilidad",
            output_backend="canvas",
        )
        bars = fig.vbar(
            x="palabra", top="p", width=0.8, source=self.probabilities_source, color="color"
        )
        fig.add_tools(
            HoverTool(renderers=[bars], tooltips=[("palabra", "@palabra"), ("p", "@label")])
        )
        self._style_bars(fig)
        lean_renderers(fig)
        return fig

    @staticmethod
    def _style_bars(fig) -> None:
        fig.yaxis.formatter = CustomJSTickFormatter(code=AXIS_TICK_JS)
        fig.xgrid.visible = False
        fig.yaxis.minor_tick_line_color = None

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):
    serve_demo("capital")
