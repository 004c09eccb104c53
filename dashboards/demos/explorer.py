"""The explorer page: "Atención: cómo decide un Transformer qué mirar" (demo.explorador).

Everything on screen comes from ``attnmodel.explorer.AttentionExplorer``: the attention map of
the typed sentence (one row per query token, every cell a percentage) and the row of the token in
focus as a bar list. The page's text is that of the seed, in its order, read from the catalogue
(``[explorer]`` in ``attnmodel/locales/<lang>.d/explorer.toml``); other languages keep the
Spanish default sentence, quoted with a gloss (``explorer.move``).
"""

from __future__ import annotations

import json
import logging

import numpy as np
import panel as pn
import param
from bokeh.models import CustomJSTickFormatter

from attnmodel.explorer import (
    DEFAULT_FOCUS,
    DEFAULT_SENTENCE,
    MAX_SENTENCE_CHARS,
    MAX_TOKENS,
    MAX_WORD_CHARS,
    POSITION_WEIGHT,
    SCORE_SCALE,
    TOKEN_DIM,
    TRIGRAM_SALT,
    AttentionExplorer,
    percentages,
)
from attnmodel.formatting import tick_js
from attnmodel.i18n import DEFAULT_LANG, say, text
from dashboards.components.board import Board, prose, slot
from dashboards.components.markup import Markup, announce_spec, esc, math_md
from dashboards.components.render import apply_render, shared_render
from dashboards.components.views import DemoView, first_max

# A fixed name, not __name__: served, this file also runs as a bokeh_app_<uuid> script per
# session, and every such name would leave one more logger behind.
log = logging.getLogger("dashboards.demos.explorer")

# What the "Fíjate" buttons set (the reset button sets the model's defaults).
COLD_TEMPERATURE = 0.1
HOT_TEMPERATURE = 3.0

# The Spanish "Se mantiene la frase anterior." (appended to the model's own message), for the
# tests that still import it; the views read explorer.kept in their language.

# Shared by the Board (the map, the bar list, the caveat) and the intro's pane (the lead and its
# tags), each in its own shadow root.
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
  min-width: 2.8em; color: #000; }
.c04-map td.d { color: #fff; }
.c04-map td.m { color: #555; background: repeating-linear-gradient(135deg, #f1f1f1 0 4px,
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
/* Projector mode (present.js): the focus row's words and percentages large. */
.c04-bars .p, .c04-bars .t { font-size: var(--c04-cell-size, inherit); }
.c04-bars .m { color: #666; }
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


def _percent_texts(pct, lang: str) -> list[str]:
    """Whole percentages as ``lang`` writes them ("39 %" in Spanish, "39%" in English)."""
    # The catalogue's pattern once, not once per cell: a 40-token map is 1600 of them.
    before, after = text("format.percent", lang, value="\0").split("\0")
    return [f"{before}{p}{after}" for p in pct]


def heatmap_spec(tokens, weights, focus: int, causal: bool, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.heatmap``: the attention map as whole percentages, shaded by weight (a
    40-token sentence is 1600 cells). Cell (i, j) is ``cell-i-j``; the focus row is marked;
    with ``causal`` the cells j > i are hidden by the mask."""
    pct = percentages(weights).tolist()
    return {
        "testid": "explorer-table",
        "corner": text("explorer.query", lang),
        "tokens": list(tokens),
        "focus": int(focus),
        "causal": bool(causal),
        "cells": [_percent_texts(row, lang) for row in pct],
        "weights": np.asarray(weights, dtype=float).tolist(),
    }


def row_spec(tokens, row, focus: int, causal: bool, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.focus_row``: "Adónde mira <token>", one bar per key token (width ∝ weight)
    with its percentage; with ``causal`` the tokens after the focus are hidden by the mask."""
    return {
        "testid": "explorer-row",
        "title": text("explorer.row_title", lang, token=tokens[focus]),
        "tokens": list(tokens),
        "focus": int(focus),
        "causal": bool(causal),
        "cells": _percent_texts(percentages(row).tolist(), lang),
        "widths": [100 * w for w in np.asarray(row, dtype=float).tolist()],
    }


def announce(tokens, row: dict, focus: int, weights, lang: str = DEFAULT_LANG) -> dict:
    """What the live region says after a change: where the focus token looks most, with the
    percentage its row shows."""
    j = first_max(weights)
    return announce_spec(
        "explorer", lang, token=str(tokens[focus]), key=str(tokens[j]), weight=row["cells"][j]
    )


def error_spec(message: str) -> dict:
    """The message beside the sentence box ("" shows nothing)."""
    return {"testid": "explorer-sentence-error", "cls": "c04-error", "text": message}


def select_options(tokens) -> list[tuple[str, str]]:
    """The token list as Bokeh's Select holds it: (str(index), "5 · gato")."""
    return [(str(i), f"{i} · {token}") for i, token in enumerate(tokens)]


@shared_render
def render(model: AttentionExplorer, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """Everything on the page that follows the model, in ``lang`` (the browser twin is
    ``explorer.js``).

    ``table`` and ``row``: the specs of the map and of the focus row (markup.js);
    ``buttons_labels`` / ``buttons_active``: the token buttons as Bokeh holds them (labels, index
    of the pressed one);
    ``select_options`` / ``select_value``: the token list as Bokeh holds it (str(index), label).
    """
    state = model.state()
    tokens = state.tokens
    # The sentence event may arrive before the model clamps the focus to the new length.
    focus = min(model.focus, len(tokens) - 1)
    causal = bool(model.causal)
    # The widgets before the HTML: ``apply_render`` sends the changes in this order, and in the
    # browser new button labels or list options make Bokeh lay the page out on the spot; done
    # before the map's new HTML (up to 1600 cells) is in the page, that layout is cheap and the
    # map is laid out once, in the next frame (C04.apply does the same in the export).
    row = row_spec(tokens, state.weights[focus], focus, causal, lang)
    return {
        "buttons_labels": token_labels(tokens),
        "buttons_active": focus,
        "select_options": select_options(tokens),
        "select_value": str(focus),
        "table": heatmap_spec(tokens, state.weights, focus, causal, lang),
        "row": row,
        "announce": announce(tokens, row, focus, state.weights[focus], lang),
    }


def refused_message(exc: ValueError, lang: str = DEFAULT_LANG) -> str:
    """A refused sentence's message in ``lang``: the model's reason, then that it was kept."""
    return f"{say(exc, lang)} {text('explorer.kept', lang)}"


def sentence_message(sentence: str, lang: str = DEFAULT_LANG) -> str | None:
    """The message shown when ``sentence`` is refused (None if accepted), in ``lang``."""
    try:
        AttentionExplorer(sentence=sentence)
    except ValueError as exc:
        return refused_message(exc, lang)
    return None


def client_constants(lang: str = DEFAULT_LANG) -> dict[str, object]:
    """What the browser twin needs from Python (embedded in the page, never typed into JS); the
    messages in ``lang``, the page's language."""

    def template(sentence: str, n: int) -> str:
        """The message for ``sentence``, with its count ``n`` as "{n}" (the twin fills it in)."""
        message = sentence_message(sentence, lang) or ""
        if message.count(str(n)) != 1:
            raise RuntimeError(f"Mensaje inesperado para {n}: {message!r}")
        return message.replace(str(n), "{n}")

    too_many = MAX_TOKENS + 1
    too_long = MAX_SENTENCE_CHARS + 1
    word = MAX_WORD_CHARS + 1
    defaults = AttentionExplorer.param
    return {
        "token_dim": TOKEN_DIM,
        "trigram_salt": TRIGRAM_SALT,
        "position_weight": POSITION_WEIGHT,
        "score_scale": SCORE_SCALE,
        "max_tokens": MAX_TOKENS,
        "max_chars": MAX_SENTENCE_CHARS,
        "max_word_chars": MAX_WORD_CHARS,
        "reset": {
            "sentence": DEFAULT_SENTENCE,
            "focus": DEFAULT_FOCUS,
            "temperature": defaults.temperature.default,
            "positional": defaults.positional.default,
            "causal": defaults.causal.default,
        },
        "cold_temperature": COLD_TEMPERATURE,
        "hot_temperature": HOT_TEMPERATURE,
        "empty_message": sentence_message("", lang),
        "too_many_message": template(" ".join(["x"] * too_many), too_many),
        "too_long_message": template("x " * (too_long // 2) + "x" * (too_long % 2), too_long),
        "word_too_long_message": template("x" * word, word),
    }


class _ButtonsProps:
    """Live side of ``buttons_labels``/``buttons_active``: Bokeh's names over Panel's params."""

    def __init__(self, widget: pn.widgets.RadioButtonGroup):
        self.widget = widget

    @property
    def labels(self) -> list[str]:
        return list(self.widget.options)

    @labels.setter
    def labels(self, labels: list[str]) -> None:
        # Options and value together, so the value never points past the new options.
        value = self.widget.value if self.widget.value is not None else 0
        self.widget.param.update(
            options={label: i for i, label in enumerate(labels)},
            value=min(value, len(labels) - 1),
        )

    @property
    def active(self) -> int:
        return self.widget.value

    @active.setter
    def active(self, index: int) -> None:
        self.widget.value = index


class _SelectProps:
    """Live side of ``select_options``/``select_value``: Bokeh's (str(index), label) pairs."""

    def __init__(self, widget: pn.widgets.Select):
        self.widget = widget

    @property
    def options(self) -> list[tuple[str, str]]:
        return [(str(i), label) for label, i in self.widget.options.items()]

    @options.setter
    def options(self, options: list[tuple[str, str]]) -> None:
        value = self.widget.value if self.widget.value is not None else 0
        self.widget.param.update(
            options={label: int(index) for index, label in options},
            value=min(value, len(options) - 1),
        )

    @property
    def value(self) -> str:
        return str(self.widget.value)

    @value.setter
    def value(self, index: str) -> None:
        self.widget.value = int(index)


class ExplorerView(DemoView):
    """The explorer page: sentence box, token chooser, temperature, position and causal switches,
    the attention map, the focus row as bars, the "Fíjate en tres cosas" buttons and the text.

    Controls (all two-way bound to the model):

    - ``self.sentence_input`` (TextInput "Frase"): applied on Enter/blur. An empty sentence or one
      of more than 40 words shows a message in ``self.sentence_error`` (data-testid
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
      ``-causal``; the checkboxes ``c04-explorer-positional-box``, ``c04-explorer-causal-box``; the
      token buttons ``c04-explorer-tokens``, the token list ``c04-explorer-token-list``.

    data-testids: ``explorer-table`` (the map; header "Consulta | tokens…"), ``cell-i-j`` (the
    whole percentage of query i on key j, "39 %"), ``explorer-row-title`` ("Adónde mira gato"),
    ``explorer-row`` (the bar list), ``row-j`` (percentage of key j in the focus row).

    Every text is the catalogue's ``explorer.*`` in ``lang`` (quoted above in Spanish); the
    numbers on the "T = …" buttons and in the slider follow ``lang`` too.

    Updates: one watcher on the model (``_on_model``) puts :func:`render` on screen with
    ``apply_render`` (the token widgets' options and values, the specs of the Board's slots
    ``table``, ``row`` and ``announce``; ``self.table``, ``self.row`` read them) in one hold.
    In the export, ``enable_client_side`` makes the browser twin
    (``dashboards/demos/explorer.js``) do the same from the widgets' values.
    """

    model = param.ClassSelector(class_=AttentionExplorer)

    def __init__(self, **params):
        params.setdefault("model", AttentionExplorer())
        super().__init__(**params)
        m = self.model
        # Set while the view writes the model's state into its widgets: the buttons and the
        # select pass through states of their own on the way (new options, then the value), and
        # those must not reach the model as a new focus. Comparing with the model cannot tell.
        self._syncing = False

        self.sentence_input = pn.widgets.TextInput(
            label=self.t("explorer.sentence"),
            value=m.sentence,
            placeholder=self.t("explorer.placeholder"),
            max_length=MAX_SENTENCE_CHARS,  # the model's cap: the box stops where it would refuse
            width=480,
            margin=(5, 10),
        )
        self.sentence_error = Markup(
            kind="note",
            spec=error_spec(""),
            margin=(30, 10, 5, 10),
            sizing_mode="stretch_width",
        )
        self.sentence_input.param.watch(self._on_sentence, "value")

        self.token_buttons = pn.widgets.RadioButtonGroup(
            options=self._button_options(token_labels(m.tokens)),
            value=m.focus,
            color="primary",
            variant="outline",
            margin=(2, 10),
            stylesheets=[":host .bk-btn-group { flex-wrap: wrap; row-gap: 4px; }"],
            sizing_mode="stretch_width",
            css_classes=["c04-explorer-tokens"],
        )
        self.token_select = pn.widgets.Select(
            label=self.t("explorer.list_label"),
            options=self._select_options(m.tokens),
            value=m.focus,
            width=220,
            margin=(5, 10),
            css_classes=["c04-explorer-token-list"],
        )
        self.token_buttons.param.watch(self._on_focus_widget, "value")
        self.token_select.param.watch(self._on_focus_widget, "value")

        # A Bokeh model belongs to one document: one formatter per view (per session).
        self.temperature_slider = pn.widgets.FloatSlider.from_param(
            m.param.temperature,
            label=self.t("explorer.temperature"),
            step=0.05,
            format=CustomJSTickFormatter(code=tick_js(2, lang=self.lang)),
            width=320,
            margin=(5, 20, 5, 10),
        )
        self.positional_box = pn.widgets.Checkbox.from_param(
            m.param.positional,
            label=self.t("explorer.positional"),
            margin=(25, 10, 5, 10),
            css_classes=["c04-explorer-positional-box"],
        )
        self.causal_box = pn.widgets.Checkbox.from_param(
            m.param.causal,
            label=self.t("explorer.causal"),
            margin=(25, 10, 5, 10),
            css_classes=["c04-explorer-causal-box"],
        )

        cold, hot = self.num(COLD_TEMPERATURE, 1), self.num(HOT_TEMPERATURE, 0)
        self.reset_button = self._button(
            self.t("explorer.reset"), "reset", 250, self._notice_default
        )
        self.cold_button = self._button(f"T = {cold}", "cold", 90, self._notice_cold)
        self.hot_button = self._button(f"T = {hot}", "hot", 90, self._notice_hot)
        self.causal_button = self._button(
            self.t("explorer.causal_button"), "causal", 220, self._notice_causal
        )

        self._buttons_props = _ButtonsProps(self.token_buttons)
        self._select_props = _SelectProps(self.token_select)

        t = self.t
        tags = "".join(
            f'<span class="c04-tag">#{esc(tag)}</span>' for tag in t("explorer.tags").split()
        )
        # The fixed texts before the controls in one Markdown pane, those after the "Fíjate"
        # buttons in another; those between the map and the buttons in the Board with the map,
        # the row and the announcer (issue 36).
        lead = (
            f'<p class="c04-lead">{esc(t("explorer.lead"))}</p><div class="c04-tags">{tags}</div>'
        )
        intro = "\n\n".join(
            (f"## {t('demo.explorador')}", lead, t("explorer.problem"), t("explorer.move"))
        )
        self.board = Board(
            layout=[
                slot("table", "heatmap"),
                prose(f'<div class="c04-note">{esc(t("explorer.legend"))}</div>'),
                slot("row", "focus_row"),
                prose(f'<div class="c04-caveat">{esc(t("explorer.caveat"))}</div>'),
                prose(f"**{t('explorer.notice')}**"),
                slot("announce", "announce"),
            ],
            stylesheets=[CSS],
            sizing_mode="stretch_width",
        )
        # Each fragment as the tests read it (a Slot: spec, kind).
        self.table = self.board.slot("table")
        self.row = self.board.slot("row")
        self.announcer = self.board.slot("announce")
        self._show()
        m.param.watch(self._on_model, ["sentence", "focus", "temperature", "positional", "causal"])

        outro = "\n\n".join(t(f"explorer.{key}") for key in ("inside", "qkv", "toy", "takeaway"))
        self._layout = pn.Column(
            math_md(intro, stylesheets=[CSS], margin=(0, 10)),
            pn.Row(self.sentence_input, self.sentence_error, sizing_mode="stretch_width"),
            pn.pane.HTML(
                f'<div class="c04-label">{esc(t("explorer.focus_label"))}</div>',
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
            self.board,
            self._notice(t("explorer.notice_default"), self.reset_button),
            self._notice(
                t("explorer.notice_temperature", cold=cold, hot=hot),
                self.cold_button,
                self.hot_button,
            ),
            self._notice(t("explorer.notice_causal"), self.causal_button),
            math_md(outro),
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
            self._set_error(refused_message(exc, self.lang))
            return
        self._set_error("")

    def _set_error(self, text: str) -> None:
        self.sentence_error.spec = error_spec(text)

    def _on_focus_widget(self, event) -> None:
        if self._syncing or event.new is None:
            return
        try:
            self.model.focus = int(event.new)
        except ValueError as exc:  # only if a widget drifted from the sentence
            log.info("Token rechazado: %s", exc)
            self._show()

    def _notice_default(self, _event=None) -> None:
        # Sentence first: the focus is checked against the sentence already set.
        self.model.param.update(
            sentence=DEFAULT_SENTENCE,
            focus=DEFAULT_FOCUS,
            temperature=AttentionExplorer.param.temperature.default,
            positional=AttentionExplorer.param.positional.default,
            causal=AttentionExplorer.param.causal.default,
        )
        self._sync_sentence_box()  # also when nothing changed: drop a rejected text from the box

    def _notice_cold(self, _event=None) -> None:
        self.model.temperature = COLD_TEMPERATURE

    def _notice_hot(self, _event=None) -> None:
        self.model.temperature = HOT_TEMPERATURE

    def _notice_causal(self, _event=None) -> None:
        self.model.causal = True

    # -- model -> widgets and panes --------------------------------------------------------

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """What :func:`render` fills: target name -> (pane or widget, kind); see the brief."""
        return {
            "table": (self.board, "board:table"),
            "row": (self.board, "board:row"),
            "buttons_labels": (self.token_buttons, "prop:labels"),
            "buttons_active": (self.token_buttons, "prop:active"),
            "select_options": (self.token_select, "prop:options"),
            "select_value": (self.token_select, "prop:value"),
            "announce": (self.board, "board:announce"),
        }

    def _live_targets(self) -> dict[str, tuple[object, str]]:
        # Panel's widgets call Bokeh's labels/active "options"/"value" (and hold ints, not
        # strings): the adapters translate, so render() speaks Bokeh for the browser twin too.
        targets = self.client_targets()
        for name, (widget, kind) in targets.items():
            if widget is self.token_buttons:
                targets[name] = (self._buttons_props, kind)
            elif widget is self.token_select:
                targets[name] = (self._select_props, kind)
        return targets

    def _on_model(self, *events) -> None:
        with pn.io.hold():
            # A new sentence or focus also puts the model's sentence back in a box holding a
            # refused text (and clears its message).
            if {"sentence", "focus"} & {e.name for e in events}:
                self._sync_sentence_box()
            self._show()

    def _show(self) -> None:
        # The widgets' own watchers must not write back into the model meanwhile.
        syncing, self._syncing = self._syncing, True
        try:
            apply_render(self._live_targets(), render(self.model, self.lang))
        finally:
            self._syncing = syncing

    def _sync_sentence_box(self) -> None:
        if self.sentence_input.value == self.model.sentence:
            return
        syncing, self._syncing = self._syncing, True
        try:
            self.sentence_input.value = self.model.sentence
            self._set_error("")
        finally:
            self._syncing = syncing

    # -- the export: the same page computed in the browser ---------------------------------

    def enable_client_side(self, states: dict | None = None) -> int:
        """Wire every control to the browser twin (``C04.views.explorer``, explorer.js).

        Each control gets a JS callback ``C04.update("explorer", {targets, controls, trigger},
        KINDS)``; the explorer's constants go into ``states["explorer"]`` (no state table: the
        twin computes every setting). Returns 0, the number of embedded states.
        """
        if states is not None:
            states["explorer"] = client_constants(self.lang)
        kinds = {name: kind for name, (_, kind) in self.client_targets().items()}
        kinds["error"] = "markup"  # set by the twin only when the sentence box was applied
        objects = {name: obj for name, (obj, _) in self.client_targets().items()}
        objects["error"] = self.sentence_error
        controls = {
            "w_sentence": self.sentence_input,
            "w_buttons": self.token_buttons,
            "w_select": self.token_select,
            "w_temperature": self.temperature_slider,
            "w_positional": self.positional_box,
            "w_causal": self.causal_box,
        }
        args = {**objects, **controls}
        names = ", ".join(f"{name}: {name}" for name in args)
        kinds_js = json.dumps(kinds)

        def code(trigger: str) -> str:
            return (
                f'C04.update("explorer", {{{names}, trigger: {json.dumps(trigger)}}}, {kinds_js});'
            )

        for name, widget in controls.items():
            widget.jscallback(args=args, value=code(name[2:]))
        for trigger, button in (
            ("reset", self.reset_button),
            ("cold", self.cold_button),
            ("hot", self.hot_button),
            ("causal_button", self.causal_button),
        ):
            button.js_on_click(args=args, code=code(trigger))
        return 0

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return {
            "sentence": self.sentence_input,
            "focus": self.token_buttons,
            "temperature": self.temperature_slider,
            "positional": self.positional_box,
            "causal": self.causal_box,
        }

    @staticmethod
    def link_export(name: str) -> dict | None:
        """The sentence's caps, as the model's (links.js checks a link's sentence with them)."""
        if name == "sentence":
            p = AttentionExplorer.param.sentence
            return {"max_tokens": p.max_tokens, "max_word_chars": p.max_word_chars}
        return None

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("explorador")
