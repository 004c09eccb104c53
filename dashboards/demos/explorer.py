"""The explorer page: "Atención: cómo decide un Transformer qué mirar" (demo.explorador).

Everything on screen comes from ``attnmodel.explorer.AttentionExplorer``: the attention map of
the typed sentence (one row per query token, every cell a percentage) and the row of the token in
focus as a bar list. The page's text is that of the seed, in its order, read from the catalogue
(``[explorer]`` in ``attnmodel/locales/<lang>.toml``); other languages keep the
Spanish default sentence, quoted with a gloss (``explorer.move``).

Numbers cross, specs don't (issue 37): Python sends the model's numbers (:func:`numbers`) and
dashboards/static/demos/explorer.js draws the map, the row and the announcement from them, live
and in the export (where it also computes them from the typed sentence).
"""

from __future__ import annotations

import logging

import numpy as np
import panel as pn
import param

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
)
from attnmodel.i18n import DEFAULT_LANG, say, text
from dashboards.components.board import Board, control, prose, row, slot
from dashboards.components.markup import esc
from dashboards.components.render import shared_render
from dashboards.components.style import HEATMAP_CSS
from dashboards.components.views import DemoView
from dashboards.runtime import clients

# A fixed name, not __name__: served, this file also runs as a bokeh_app_<uuid> script per
# session, and every such name would leave one more logger behind.
log = logging.getLogger("dashboards.demos.explorer")

# What the "Fíjate" buttons set (the reset button sets the model's defaults).
COLD_TEMPERATURE = 0.1
HOT_TEMPERATURE = 3.0
TEMPERATURE_STEP = 0.05  # the temperature control's step

# Shared by the Board (the map, the bar list, the caveat) and the intro's pane (the lead and its
# tags), each in its own shadow root.
CSS = """
.c04-tags { display: flex; gap: 6px; flex-wrap: wrap; margin: 2px 0; }
.c04-tag { font-size: 80%; padding: 1px 9px; border-radius: 10px; background: #e8eef7;
  color: #1f5fa8; border: 1px solid #c9d6ea; }
.c04-lead { font-size: 112%; color: #333; margin: 0; }
.c04-label { font-weight: 600; }
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


def error_spec(message: str) -> dict:
    """The message beside the sentence box ("" shows nothing)."""
    return {"testid": "explorer-sentence-error", "cls": "c04-error", "text": message}


def select_options(tokens) -> list[list]:
    """The token list's options: [index, "5 · gato"]."""
    return [[i, f"{i} · {token}"] for i, token in enumerate(tokens)]


def temperature_spec(temperature: float, lang: str = DEFAULT_LANG) -> dict:
    """The temperature control: a range over the model's bounds, two decimals in ``lang``."""
    start, end = AttentionExplorer.param.temperature.bounds
    return {
        "value": float(temperature),
        "start": start,
        "end": end,
        "step": TEMPERATURE_STEP,
        "decimals": 2,
        "decimal": text("format.decimal", lang),
    }


def sentence_spec(shown: str, lang: str = DEFAULT_LANG) -> dict:
    """The sentence box: what it shows (the model's sentence, or a refused text kept to be
    corrected), its placeholder and the model's cap (the box stops where it would refuse)."""
    return {
        "value": shown,
        "placeholder": text("explorer.placeholder", lang),
        "max_length": MAX_SENTENCE_CHARS,
    }


@shared_render
def numbers(model: AttentionExplorer, lang: str = "") -> dict[str, object]:
    """What explorer.js draws, the model's numbers: its ``tokens`` (as typed), the ``focus``
    index, ``causal`` (the map and the row hide the masked cells) and ``weights`` (n × n, row i
    how query i splits its 100 %). No text, nothing formatted: the browser writes the
    percentages in the page's language. ``lang`` is not used: the shared cache's key has it."""
    state = model.state()
    tokens = list(state.tokens)
    # The sentence event may arrive before the model clamps the focus to the new length.
    return {
        "tokens": tokens,
        "focus": min(int(model.focus), len(tokens) - 1),
        "causal": bool(model.causal),
        "weights": np.asarray(state.weights, dtype=float).tolist(),
    }


def refused_message(exc: ValueError, lang: str = DEFAULT_LANG) -> str:
    """A refused sentence's message in ``lang``: the model's reason, then that it was kept."""
    return f"{say(exc, lang)} {text('explorer.kept', lang)}"


def constants() -> dict[str, object]:
    """The model's constants the export embeds, so that explorer.js computes in the page from
    the very numbers of attnmodel.explorer (the sentence is free input); none is typed in JS.
    The refused sentences' messages are the catalogue's (``core.*``, ``explorer.kept``)."""
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
    }


# The sentence box's width (the TextInput's was 480 px), down to the screen's on a phone.
VIEW_CSS = """
.c04-explorer-sentence input[type=text] { width: 480px; }
.c04-explorer-sentence { max-width: 100%; }
.c04-explorer-notice { align-items: center; }
.c04-explorer-notice .c04-prose-html p { margin: 0.3em 0; }
"""

# The controls whose value is a model parameter, taken through its own checks.
PARAMETERS = ("temperature", "positional", "causal")


class ExplorerView(DemoView):
    """The explorer page: sentence box, token chooser, temperature, position and causal switches,
    the attention map, the focus row as bars, the "Fíjate en tres cosas" buttons and the text,
    all one Board (the controls native, board.js).

    Controls (slots of ``self.board``; a use is a message checked here):

    - ``sentence`` (text "Frase"): applied on Enter/blur. An empty sentence or one of more than
      40 words shows a message in the slot ``sentence_error`` beside it (data-testid
      ``explorer-sentence-error``); the model keeps its last valid sentence, the box keeps the
      typed text so it can be corrected (the spec's value is what the box shows).
    - ``focus`` (a choice, one button per token, labels made unique with :func:`token_labels`,
      values = token index) and ``focus_list`` (a select, "5 · gato"): both set ``model.focus``.
    - ``temperature`` ("Temperatura T", 0,1–3, step 0,05), ``positional`` ("Codificación
      posicional"), ``causal`` ("Máscara causal").
    - "Fíjate" buttons: ``reset`` (default sentence, focus 5, T = 1, position on, causal off),
      ``cold`` (T = 0,1), ``hot`` (T = 3), ``causal_button`` (causal on).

    data-testids: ``explorer-table`` (the map; header "Consulta | tokens…"), ``cell-i-j`` (the
    whole percentage of query i on key j, "39 %"), ``explorer-row-title`` ("Adónde mira gato"),
    ``explorer-row`` (the bar list), ``row-j`` (percentage of key j in the focus row).

    Every text is the catalogue's ``explorer.*`` in ``lang`` (quoted above in Spanish); the
    numbers on the "T = …" buttons and in the temperature control follow ``lang`` too.

    Updates: one watcher on the model (``_on_model``) sets, in one ``pn.io.hold()``, the
    Board's ``state`` (:func:`numbers`, which explorer.js draws as the map, the row and the
    announcement: ``view="explorer"``) and the controls' specs. In the export the controls run
    explorer.js's ``readState``, which computes the same numbers in the page.
    """

    model = param.ClassSelector(class_=AttentionExplorer)

    def __init__(self, **params):
        params.setdefault("model", AttentionExplorer())
        super().__init__(**params)
        m = self.model
        t = self.t
        cold, hot = self.num(COLD_TEMPERATURE, 1), self.num(HOT_TEMPERATURE, 0)
        tags = "".join(
            f'<span class="c04-tag">#{esc(tag)}</span>' for tag in t("explorer.tags").split()
        )
        lead = (
            f'<p class="c04-lead">{esc(t("explorer.lead"))}</p><div class="c04-tags">{tags}</div>'
        )
        intro = "\n\n".join(
            (f"## {t('demo.explorador')}", lead, t("explorer.problem"), t("explorer.move"))
        )
        outro = "\n\n".join(t(f"explorer.{key}") for key in ("inside", "qkv", "toy", "takeaway"))

        def notice(text: str, *buttons) -> dict:
            return row(*buttons, prose(f"• {text}"), css="c04-explorer-notice")

        self.board = Board(
            lang=self.lang,
            view="explorer",
            layout=[
                prose(intro),
                row(
                    control(
                        "sentence", "text", t("explorer.sentence"), css="c04-explorer-sentence"
                    ),
                    slot("sentence_error", "note"),
                    css="c04-controls",
                ),
                control("focus", "choice", t("explorer.focus_label")),
                row(
                    control("focus_list", "select", t("explorer.list_label")),
                    control("temperature", "range", t("explorer.temperature"), css="c04-wide"),
                    control("positional", "checkbox", t("explorer.positional")),
                    control("causal", "checkbox", t("explorer.causal")),
                    css="c04-controls",
                ),
                slot("table", "heatmap"),
                prose(f'<div class="c04-note">{esc(t("explorer.legend"))}</div>'),
                slot("row", "focus_row"),
                prose(f'<div class="c04-caveat">{esc(t("explorer.caveat"))}</div>'),
                prose(f"**{t('explorer.notice')}**"),
                slot("announce", "announce"),
                notice(
                    t("explorer.notice_default"), control("reset", "button", t("explorer.reset"))
                ),
                notice(
                    t("explorer.notice_temperature", cold=cold, hot=hot),
                    control("cold", "button", f"T = {cold}"),
                    control("hot", "button", f"T = {hot}"),
                ),
                notice(
                    t("explorer.notice_causal"),
                    control("causal_button", "button", t("explorer.causal_button")),
                ),
                prose(outro),
            ],
            on_control=self._on_control,
            stylesheets=[HEATMAP_CSS + CSS + VIEW_CSS],
            sizing_mode="stretch_width",
        )
        # Each control and the message as the tests read them (a Slot: spec, kind).
        for name in ("sentence", "sentence_error", "focus", "focus_list", *PARAMETERS):
            setattr(self, name, self.board.slot(name))
        self._show(sentence=True)
        m.param.watch(self._on_model, ["sentence", "focus", "temperature", "positional", "causal"])

    # -- controls -> model -----------------------------------------------------------------

    def _on_control(self, name: str, value) -> None:
        """A control's use (Board.receive): the value checked by the model, or here."""
        if name == "sentence":
            self._on_sentence(value)
        elif name in ("focus", "focus_list"):
            # An index of a token: the model checks it against its sentence (not a bool).
            clients.take(name, self.model, "focus", value)
        elif name in PARAMETERS:
            clients.take(name, self.model, name, value)
        elif name == "reset":
            self.reset()
        elif name == "cold":
            self.model.temperature = COLD_TEMPERATURE
        elif name == "hot":
            self.model.temperature = HOT_TEMPERATURE
        else:  # causal_button
            self.model.causal = True

    def _on_sentence(self, value) -> None:
        if not isinstance(value, str):
            clients.refused("sentence", {"sentence": value}, "no es un texto")
            return
        try:
            self.model.sentence = value
        except ValueError as exc:
            log.info("Frase rechazada: %s", clients.brief(str(exc)))
            # The box keeps the typed text, to be corrected, beside the message.
            self.board.update_specs(
                {
                    "sentence": sentence_spec(value, self.lang),
                    "sentence_error": error_spec(refused_message(exc, self.lang)),
                }
            )
            return
        # Taken (also the model's own sentence, typed again): the message goes.
        self._show(sentence=True)

    def reset(self) -> None:
        """The first "Fíjate" button: the model's defaults, the sentence first (the focus is
        checked against the sentence already set); a refused text leaves the box."""
        self.model.param.update(
            sentence=DEFAULT_SENTENCE,
            focus=DEFAULT_FOCUS,
            temperature=AttentionExplorer.param.temperature.default,
            positional=AttentionExplorer.param.positional.default,
            causal=AttentionExplorer.param.causal.default,
        )
        self._show(sentence=True)  # also when nothing changed

    # -- model -> board --------------------------------------------------------------------

    def _on_model(self, *events) -> None:
        # A new sentence or focus also puts the model's sentence back in a box holding a
        # refused text (and clears its message).
        self._show(sentence=bool({"sentence", "focus"} & {e.name for e in events}))

    def _show(self, sentence: bool = False) -> None:
        """The model's numbers and the controls on the model's values, in one hold; with
        ``sentence``, the model's sentence in the box and no message."""
        m = self.model
        state = numbers(m)
        focus, tokens = state["focus"], state["tokens"]
        specs = {
            "focus": {
                "value": focus,
                "options": [list(o) for o in enumerate(token_labels(tokens))],
            },
            "focus_list": {"value": focus, "options": select_options(tokens)},
            "temperature": temperature_spec(m.temperature, self.lang),
            "positional": {"value": bool(m.positional)},
            "causal": {"value": bool(m.causal)},
        }
        if sentence:
            specs["sentence"] = sentence_spec(m.sentence, self.lang)
            specs["sentence_error"] = error_spec("")
        with pn.io.hold():
            self.board.state = state
            self.board.update_specs(specs)

    # -- the export: the same page computed in the browser ---------------------------------

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed the model's constants (:func:`constants`, ``states["explorer"]``) and wire
        every control to ``C04.views.explorer.readState`` (Board.run_offline), with every
        control as ``w_<name>``, ``trigger`` (the control used) and ``board`` (this Board): the
        sentence is free input, so the page computes the numbers (no state table). Returns 0,
        the number of embedded states."""
        if states is not None:
            states["explorer"] = constants()
        self.board.run_offline("explorer")
        return 0

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return {name: self.board.slot(name) for name in ("sentence", "focus", *PARAMETERS)}

    @staticmethod
    def link_export(name: str) -> dict | None:
        """The sentence's caps, as the model's (links.js checks a link's sentence with them)."""
        if name == "sentence":
            p = AttentionExplorer.param.sentence
            return {"max_tokens": p.max_tokens, "max_word_chars": p.max_word_chars}
        return None

    def __panel__(self):
        return self.board


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("explorador")
