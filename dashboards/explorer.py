"""The explorer page: "Atención: cómo decide un Transformer qué mirar".

Everything on screen comes from ``attnmodel.explorer.AttentionExplorer``: the attention map of
the typed sentence (one row per query token, every cell a percentage) and the row of the token in
focus as a bar list. The page's Spanish text is that of the seed, in its order.
"""

from __future__ import annotations

import logging

import panel as pn
import param
from bokeh.models import CustomJSTickFormatter

from attnmodel.explorer import DEFAULT_FOCUS, DEFAULT_SENTENCE, AttentionExplorer, percentages
from dashboards.common import configure, esc, math_md

log = logging.getLogger(__name__)

TITLE = "Atención: cómo decide un Transformer qué mirar"

LEAD = (
    "El mecanismo de atención compara cada token con todos los demás y reparte un presupuesto "
    "de 100 %. Aquí no lo lees: lo mueves."
)

TAGS = ("transformers", "atencion", "fundamentos")

PROBLEM = """
### El problema que resuelve

Una frase no se entiende palabra a palabra. En "el gato duerme porque el gato está cansado", el
segundo gato es el mismo que el primero, y cansado habla de él, no de duerme. Un modelo necesita
una forma de conectar tokens distantes sin recorrer la frase en orden.

La atención hace exactamente eso: para cada token, calcula cuánto debería "mirar" a cada uno de
los otros, y con esas proporciones mezcla su información.
"""

MOVE = """
### Mueve las variables

Antes de la teoría, tócalo. Elige un token, cambia la frase, arrastra los deslizadores.
"""

CAVEAT = (
    "Modelo de juguete, sin red: una sola cabeza, sin proyecciones aprendidas, y la similitud "
    "entre tokens es ortográfica (trigramas de letras), no semántica. La mecánica del softmax, "
    "la temperatura, la posición y la máscara causal es exactamente la de un Transformer real."
)

NOTICE_1 = (
    "Con la frase por defecto y el segundo `gato` enfocado, la atención se va al primer `gato`. "
    "Se parecen, así que se atienden."
)
NOTICE_2 = (
    "Baja la temperatura hacia 0,1: casi todo el 100 % cae en un solo token. Súbela a 3: se "
    "reparte casi uniforme."
)
NOTICE_3 = (
    "Activa la máscara causal: las celdas a la derecha de la diagonal se apagan. Cada token solo "
    "puede mirar hacia atrás."
)

INSIDE = r"""
### Qué está pasando dentro

Cada token empieza como un vector (su embedding) al que se le suma información de posición,
porque sin ella el modelo no distinguiría "perro muerde hombre" de "hombre muerde perro".

Después, para cada par de tokens (i, j) se calcula un puntaje con el producto escalar de sus
vectores. Ese puntaje se escala y pasa por un softmax fila a fila:

$$\mathrm{atenci\acute{o}n}(i, j) = \frac{\exp(s_{ij}/T)}{\sum_k \exp(s_{ik}/T)}$$

El softmax convierte puntajes arbitrarios en proporciones que suman 1. La temperatura T controla
la nitidez: dividir por un número pequeño exagera las diferencias; por uno grande, las aplana. Es
la misma temperatura que verás en el muestreo de texto.

Por último, la salida de cada token es la media ponderada de los vectores de todos los tokens
usando esas proporciones. Un token que atiende 80 % a otro sale pareciéndose un 80 % a él.
"""

QKV = """
### Queries, keys y values

En un Transformer real, el mismo vector se proyecta con tres matrices aprendidas:

| Nombre | Pregunta que responde |
|---|---|
| Query (Q) | ¿Qué estoy buscando? |
| Key (K) | ¿Qué ofrezco para que me encuentren? |
| Value (V) | ¿Qué información aporto si me eligen? |

El puntaje es Q·K, y la mezcla final se hace sobre V. Separar los tres permite que un token busque
una cosa y ofrezca otra. Y hay varias cabezas en paralelo, cada una con sus propias matrices, para
capturar relaciones distintas a la vez (sintaxis en una, correferencia en otra).
"""

TOY = """
### Qué tiene de juguete el visualizador

Para que puedas predecir el resultado y comprobarlo, el explorador simplifica dos cosas:

- **La similitud es ortográfica.** Dos tokens se parecen si comparten trigramas de letras
  (`gato` ~ `gatos`). Un modelo real aprende similitud semántica: `gato` ~ `felino`.
- **No hay proyecciones ni cabezas.** Q = K = V = el propio vector. Una cabeza.

Todo lo demás (softmax, temperatura, posición, máscara causal) es literalmente lo que hace un
Transformer. Si te queda claro aquí, te queda claro allí.
"""

TAKEAWAY = """
### Para llevarte

La atención es un presupuesto de 100 % que cada token reparte entre los demás, calculado
comparando vectores. La temperatura decide si ese reparto es tacaño o generoso. La máscara causal
decide si puede mirar al futuro. Todo lo demás son detalles de ingeniería sobre esa idea.
"""

LEGEND = (
    "Cada fila es el reparto de un token (redondeado, puede sumar 99 % o 101 %). Fila resaltada: "
    "el token que consulta. Celdas rayadas: ocultas por la máscara causal."
)

SPANISH_SLIDER_JS = "return tick.toFixed(2).replace('.', ',');"

# Shared by the map and the bar list (each pane gets it in its own shadow root).
CSS = """
.c04-tags { display: flex; gap: 6px; flex-wrap: wrap; margin: 2px 0; }
.c04-tag { font-size: 80%; padding: 1px 9px; border-radius: 10px; background: #e8eef7;
  color: #1f5fa8; border: 1px solid #c9d6ea; }
.c04-lead { font-size: 112%; color: #333; margin: 0; }
.c04-label { font-weight: 600; }
.c04-map-wrap { overflow-x: auto; max-width: 100%; }
.c04-map { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 90%; }
.c04-map th { font-weight: 500; color: #444; padding: 2px 6px; white-space: nowrap; }
.c04-map thead th { text-align: center; border-bottom: 1px solid #c9d0da; }
.c04-map tbody th { text-align: right; }
.c04-map td { padding: 3px 7px; text-align: right; border: 1px solid #dde2ea; white-space: nowrap;
  min-width: 2.8em; }
.c04-map td.d { color: #fff; }
.c04-map td.m { color: #aaa; background: repeating-linear-gradient(135deg, #f1f1f1 0 4px,
  #e2e2e2 4px 8px); }
.c04-map tr.f th { color: #b53d00; font-weight: 700; }
.c04-map tr.f td { border-top: 2px solid #d9480f; border-bottom: 2px solid #d9480f; }
.c04-map tr.f td:last-child { border-right: 2px solid #d9480f; }
.c04-map tr.f td:first-of-type { border-left: 2px solid #d9480f; }
.c04-row-title { font-size: 120%; font-weight: 600; margin: 6px 0 6px; }
.c04-bars { display: grid; grid-template-columns: max-content minmax(120px, 420px) max-content;
  gap: 3px 10px; align-items: center; font-variant-numeric: tabular-nums; }
.c04-bars .t { text-align: right; white-space: nowrap; }
.c04-bars .b { height: 14px; background: #eef1f5; }
.c04-bars .b > div { height: 100%; background: #1f5fa8; }
.c04-bars .p { white-space: nowrap; text-align: right; min-width: 3em; }
.c04-bars .m { color: #aaa; }
.c04-caveat { border-left: 4px solid #d9a400; background: #fff8e1; padding: 8px 14px;
  color: #333; }
"""


def token_labels(tokens) -> list[str]:
    """Unique, readable button labels: the second "gato" is "gato (2)", the third "gato (3)".

    Tokens never contain spaces (they are whitespace-split), so "gato (2)" cannot collide with a
    typed token.
    """
    seen: dict[str, int] = {}
    labels = []
    for token in tokens:
        seen[token] = seen.get(token, 0) + 1
        labels.append(token if seen[token] == 1 else f"{token} ({seen[token]})")
    return labels


def heatmap_html(tokens, weights, focus: int, causal: bool) -> str:
    """The attention map as an HTML table of whole percentages, shaded by weight.

    Built as one list of strings (a 40-token sentence is 1600 cells). Cell (i, j) has
    data-testid ``cell-i-j``; the focus row has class ``f``; cells hidden by the causal mask
    (j > i) have class ``m``.
    """
    names = [esc(t) for t in tokens]
    pct = percentages(weights)
    parts = [
        '<div class="c04-map-wrap"><table class="c04-map" data-testid="explorer-table">'
        "<thead><tr><th>Consulta</th>",
        *(f"<th>{name}</th>" for name in names),
        "</tr></thead><tbody>",
    ]
    for i, name in enumerate(names):
        parts.append('<tr class="f">' if i == focus else "<tr>")
        parts.append(f"<th>{name}</th>")
        for j, (w, p) in enumerate(zip(weights[i].tolist(), pct[i].tolist(), strict=True)):
            if causal and j > i:
                parts.append(f'<td class="m" data-testid="cell-{i}-{j}">{p} %</td>')
            else:
                dark = ' class="d"' if w > 0.55 else ""
                parts.append(
                    f'<td{dark} style="background:rgba(31,95,168,{w:.3f})" '
                    f'data-testid="cell-{i}-{j}">{p} %</td>'
                )
        parts.append("</tr>")
    parts.append("</tbody></table></div>")
    return "".join(parts)


def row_html(tokens, row, focus: int, causal: bool) -> str:
    """ "Adónde mira <token>": one bar per key token, width ∝ weight, with its percentage."""
    pct = percentages(row).tolist()
    parts = [
        f'<div class="c04-row-title" data-testid="explorer-row-title">Adónde mira '
        f"{esc(tokens[focus])}</div>"
        '<div class="c04-bars" data-testid="explorer-row">'
    ]
    for j, (token, w, p) in enumerate(zip(tokens, row.tolist(), pct, strict=True)):
        masked = ' m"' if causal and j > focus else '"'
        parts.append(
            f'<div class="t{masked}>{esc(token)}</div>'
            f'<div class="b"><div style="width:{100 * w:.2f}%"></div></div>'
            f'<div class="p{masked} data-testid="row-{j}">{p} %</div>'
        )
    parts.append("</div>")
    return "".join(parts)


class ExplorerView(pn.viewable.Viewer):
    """The explorer page: sentence box, token chooser, temperature, position and causal switches,
    the attention map, the focus row as bars, the "Fíjate en tres cosas" buttons and the text.

    Controls (all two-way bound to the model):

    - ``self.sentence_input`` (TextInput "Frase"): applied on Enter/blur. An empty sentence or one
      of more than 40 words shows a Spanish message in ``self.sentence_error`` (data-testid
      ``explorer-sentence-error``); the model keeps its last valid sentence, the box keeps the
      typed text so it can be corrected.
    - ``self.token_buttons`` (RadioButtonGroup, one button per token, labels made unique with
      :func:`token_labels`, values = token index) and ``self.token_select`` (Select, "5 · gato"):
      both set ``model.focus``.
    - ``self.temperature_slider`` ("Temperatura T", 0,1–3, step 0,05), ``self.positional_box``
      ("Codificación posicional"), ``self.causal_box`` ("Máscara causal").
    - "Fíjate" buttons: ``self.reset_button`` (default sentence, focus 5, T = 1, position on,
      causal off), ``self.cold_button`` (T = 0,1), ``self.hot_button`` (T = 3),
      ``self.causal_button`` (causal on). CSS classes ``c04-explorer-reset``, ``-cold``, ``-hot``,
      ``-causal``; the checkboxes ``c04-explorer-positional-box``, ``c04-explorer-causal-box``.

    data-testids: ``explorer-table`` (the map; header "Consulta | tokens…"), ``cell-i-j`` (the
    whole percentage of query i on key j, "39 %"), ``explorer-row-title`` ("Adónde mira gato"),
    ``explorer-row`` (the bar list), ``row-j`` (percentage of key j in the focus row).

    Updates: one watcher on the model (``_on_model``) sets the options/values of the token
    widgets and the ``.object`` of ``self.table`` and ``self.row`` (HTML panes) in one hold.
    """

    model = param.ClassSelector(class_=AttentionExplorer)

    def __init__(self, **params):
        params.setdefault("model", AttentionExplorer())
        super().__init__(**params)
        m = self.model
        self._syncing = False

        self.sentence_input = pn.widgets.TextInput(
            label="Frase",
            value=m.sentence,
            placeholder="Escribe una frase y pulsa Enter",
            width=480,
            margin=(5, 10),
        )
        self.sentence_error = pn.pane.HTML(
            '<div class="c04-error" data-testid="explorer-sentence-error"></div>',
            margin=(30, 10, 5, 10),
            sizing_mode="stretch_width",
        )
        self.sentence_input.param.watch(self._on_sentence, "value")

        labels = token_labels(m.tokens)
        self.token_buttons = pn.widgets.RadioButtonGroup(
            options=self._button_options(labels),
            value=m.focus,
            color="primary",
            variant="outline",
            margin=(2, 10),
            stylesheets=[":host .bk-btn-group { flex-wrap: wrap; row-gap: 4px; }"],
            sizing_mode="stretch_width",
        )
        self.token_select = pn.widgets.Select(
            label="o elígelo de la lista",
            options=self._select_options(m.tokens),
            value=m.focus,
            width=220,
            margin=(5, 10),
        )
        self.token_buttons.param.watch(self._on_focus_widget, "value")
        self.token_select.param.watch(self._on_focus_widget, "value")

        # A Bokeh model belongs to one document: one formatter per view (per session).
        self.temperature_slider = pn.widgets.FloatSlider.from_param(
            m.param.temperature,
            label="Temperatura T",
            step=0.05,
            format=CustomJSTickFormatter(code=SPANISH_SLIDER_JS),
            width=320,
            margin=(5, 20, 5, 10),
        )
        self.positional_box = pn.widgets.Checkbox.from_param(
            m.param.positional,
            label="Codificación posicional",
            margin=(25, 10, 5, 10),
            css_classes=["c04-explorer-positional-box"],
        )
        self.causal_box = pn.widgets.Checkbox.from_param(
            m.param.causal,
            label="Máscara causal",
            margin=(25, 10, 5, 10),
            css_classes=["c04-explorer-causal-box"],
        )

        self.table = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width")
        self.row = pn.pane.HTML("", stylesheets=[CSS], sizing_mode="stretch_width")

        self.reset_button = self._button(
            "Frase por defecto, segundo gato", "reset", 250, self._notice_default
        )
        self.cold_button = self._button("T = 0,1", "cold", 90, self._notice_cold)
        self.hot_button = self._button("T = 3", "hot", 90, self._notice_hot)
        self.causal_button = self._button(
            "Activar la máscara causal", "causal", 220, self._notice_causal
        )

        self._refresh()
        m.param.watch(self._on_model, ["sentence", "focus", "temperature", "positional", "causal"])

        tags = "".join(f'<span class="c04-tag">#{esc(t)}</span>' for t in TAGS)
        self._layout = pn.Column(
            math_md(f"## {TITLE}", margin=(0, 10)),
            pn.pane.HTML(
                f'<p class="c04-lead">{esc(LEAD)}</p><div class="c04-tags">{tags}</div>',
                stylesheets=[CSS],
                sizing_mode="stretch_width",
            ),
            math_md(PROBLEM),
            math_md(MOVE),
            pn.Row(self.sentence_input, self.sentence_error, sizing_mode="stretch_width"),
            pn.pane.HTML(
                '<div class="c04-label">Token que consulta (fila del mapa)</div>',
                stylesheets=[CSS],
                margin=(8, 10, 0, 10),
            ),
            self.token_buttons,
            pn.Row(
                self.token_select,
                self.temperature_slider,
                self.positional_box,
                self.causal_box,
                sizing_mode="stretch_width",
            ),
            self.table,
            pn.pane.HTML(f'<div class="c04-note">{esc(LEGEND)}</div>', margin=(0, 10)),
            self.row,
            pn.pane.HTML(
                f'<div class="c04-caveat">{esc(CAVEAT)}</div>',
                stylesheets=[CSS],
                sizing_mode="stretch_width",
                margin=(10, 10),
            ),
            math_md("**Fíjate en tres cosas:**", margin=(0, 10)),
            self._notice(NOTICE_1, self.reset_button),
            self._notice(NOTICE_2, self.cold_button, self.hot_button),
            self._notice(NOTICE_3, self.causal_button),
            math_md(INSIDE),
            math_md(QKV),
            math_md(TOY),
            math_md(TAKEAWAY),
            sizing_mode="stretch_width",
        )

    # -- building blocks -------------------------------------------------------------------

    @staticmethod
    def _button_options(labels) -> dict[str, int]:
        return {label: i for i, label in enumerate(labels)}

    @staticmethod
    def _select_options(tokens) -> dict[str, int]:
        return {f"{i} · {token}": i for i, token in enumerate(tokens)}

    @staticmethod
    def _button(label: str, key: str, width: int, action) -> pn.widgets.Button:
        button = pn.widgets.Button(
            label=label,
            color="primary",
            variant="outline",
            width=width,
            margin=(8, 6),
            css_classes=[f"c04-explorer-{key}"],
        )
        button.on_click(action)
        return button

    @staticmethod
    def _notice(text: str, *buttons) -> pn.Row:
        return pn.Row(*buttons, math_md(f"• {text}", margin=(0, 10)), sizing_mode="stretch_width")

    # -- widgets -> model ------------------------------------------------------------------

    def _on_sentence(self, event) -> None:
        if self._syncing:
            return
        try:
            self.model.sentence = event.new
        except ValueError as exc:
            log.info("Frase rechazada: %s", exc)
            self._set_error(f"{exc} Se mantiene la frase anterior.")
            return
        self._set_error("")

    def _set_error(self, text: str) -> None:
        self.sentence_error.object = (
            f'<div class="c04-error" data-testid="explorer-sentence-error">{esc(text)}</div>'
        )

    def _on_focus_widget(self, event) -> None:
        if self._syncing or event.new is None:
            return
        try:
            self.model.focus = int(event.new)
        except ValueError as exc:  # only if a widget drifted from the sentence
            log.info("Token rechazado: %s", exc)
            self._sync_widgets()

    def _notice_default(self, _event=None) -> None:
        # Sentence first: the focus is checked against the sentence already set.
        self.model.param.update(
            sentence=DEFAULT_SENTENCE,
            focus=DEFAULT_FOCUS,
            temperature=1.0,
            positional=True,
            causal=False,
        )
        self._sync_widgets()  # also when nothing changed: drop a rejected text from the box

    def _notice_cold(self, _event=None) -> None:
        self.model.temperature = 0.1

    def _notice_hot(self, _event=None) -> None:
        self.model.temperature = 3.0

    def _notice_causal(self, _event=None) -> None:
        self.model.causal = True

    # -- model -> widgets and panes --------------------------------------------------------

    def _on_model(self, *events) -> None:
        names = {e.name for e in events}
        with pn.io.hold():
            if names & {"sentence", "focus"}:
                self._sync_widgets()
            self._refresh()

    def _focus(self, n: int) -> int:
        # The sentence event may arrive before the model clamps the focus to the new length.
        return min(self.model.focus, n - 1)

    def _sync_widgets(self) -> None:
        m = self.model
        tokens = m.tokens
        focus = self._focus(len(tokens))
        buttons = self._button_options(token_labels(tokens))
        select = self._select_options(tokens)
        self._syncing = True
        try:
            if self.sentence_input.value != m.sentence:
                self.sentence_input.value = m.sentence
                self._set_error("")
            if self.token_buttons.options != buttons:
                self.token_buttons.param.update(options=buttons, value=focus)
            elif self.token_buttons.value != focus:
                self.token_buttons.value = focus
            if self.token_select.options != select:
                self.token_select.param.update(options=select, value=focus)
            elif self.token_select.value != focus:
                self.token_select.value = focus
        finally:
            self._syncing = False

    def _refresh(self) -> None:
        m = self.model
        state = m.state()
        tokens = state.tokens
        focus = self._focus(len(tokens))
        causal = bool(m.causal)
        table = heatmap_html(tokens, state.weights, focus, causal)
        row = row_html(tokens, state.weights[focus], focus, causal)
        with pn.io.hold():
            self.table.object = table
            self.row.object = row

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):
    configure()
    ExplorerView().servable(title=TITLE)
