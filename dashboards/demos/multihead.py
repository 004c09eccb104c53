"""Demo "Varias cabezas, varias relaciones a la vez": one arc diagram and one matrix per head.

Everything drawn comes from ``attnmodel.multihead.MultiHeadDemo``: :func:`numbers` is the
model's numbers (the tokens, each head's relation and weights, their mean, d_model and d_k, the
arc threshold), and the browser draws them (``C04.views.multihead``,
dashboards/static/demos/multihead.js), live and in the export: each head's title, its arcs and
matrix (one SVG drawing by ``C04.markup.head_plot``, dashboards/static/markup.js: ten Bokeh
canvases for four heads and their sum were the slowest section to paint and to build), its
"most attended" list and its folded table of numbers, every word from the catalogue
(``multihead.*``), every number written as the page's language writes it. Hovering (or
touching) a row of a matrix fades every arc that does not start at that row's token; markup.js
does that in the browser, so it needs no server round trip and works in the static HTML export,
which embeds the numbers of all 16 discrete states.

The sentences are Spanish data (``SENTENCE_LANG``): a page in another language keeps them, marks
them ``lang="es"`` (the sentence selector, the token lists, the drawings' tokens) and says so
with a gloss of each sentence.
"""

from __future__ import annotations

import numpy as np
import panel as pn
import param

from attnmodel.i18n import text
from attnmodel.multihead import (
    HEAD_OPTIONS,
    SENTENCE_IDS,
    SENTENCE_LANG,
    SENTENCES,
    MultiHeadDemo,
)
from dashboards.components.board import Board, column, control, group, prose, row, slot
from dashboards.components.markup import esc, section_markdown
from dashboards.components.render import shared_render
from dashboards.components.style import HEAD_PLOT_CSS
from dashboards.components.views import DemoView
from dashboards.runtime import clients

MAX_HEADS = max(HEAD_OPTIONS)
DEMO = "multihead"

CSS = """
.mh-title { font-weight: 600; font-size: 110%; margin: 4px 0 2px; }
.mh-swatch { display: inline-block; width: 0.9em; height: 0.9em; border-radius: 2px;
  vertical-align: -0.1em; margin-right: 6px; }
.mh-desc { color: #444; font-size: 92%; margin: 0 0 4px; max-width: 70em; }
.mh-top { display: flex; flex-wrap: wrap; gap: 4px 6px; margin: 2px 0 6px; padding: 0;
  list-style: none; font-size: 90%; }
.mh-top li { white-space: nowrap; padding: 1px 7px; border: 1px solid #d6dbe3;
  border-radius: 10px; background: #fafbfd; font-variant-numeric: tabular-nums; }
.mh-top li.mh-strong { border-color: #1f5fa8; background: #eef3fa; font-weight: 600; }
.mh-top-label { font-size: 85%; color: #555; margin-top: 2px; }
.mh-dims { font-family: monospace; font-size: 105%; margin-top: 4px; }
.mh-panel { margin: 6px 0; }
.mh-panel > .c04-slot, .mh-panel > .c04-prose-html { margin-right: 0; }
.mh-box { border-left: 4px solid #1f5fa8; background: #f5f8fc; padding: 4px 14px;
  margin-top: 12px; }
"""
# The note of pages in another language than the sentences' (kept_example_html).
KEPT_CSS = ".mh-kept ul { margin: 2px 0 0; padding-left: 1.2em; }"


@shared_render
def numbers(model: MultiHeadDemo, lang: str = "") -> dict[str, object]:
    """What multihead.js draws, the model's numbers (no text: the browser writes them in the
    page's language), one per session state and per (sentence, h) the export embeds.

    ``tokens`` (the sentence's words, Spanish data), ``relations`` (each head's relation id:
    the catalogue's ``multihead.relation.<id>`` names it), ``weights`` ([h][i][j], α_ij of each
    head), ``combined`` (their mean), ``d_model``, ``d_k``, ``threshold`` (the smallest weight
    drawn as an arc). ``lang`` is not used: the shared cache's key has it."""
    m = model
    return {
        "tokens": list(m.tokens),
        "relations": list(m.relations()),
        "weights": np.asarray(m.weights, dtype=float).tolist(),
        "combined": np.asarray(m.combined, dtype=float).tolist(),
        "d_model": int(m.d_model),
        "d_k": int(m.d_k),
        "threshold": float(m.arc_threshold),
    }


def state_key(sentence: str, n_heads: int) -> str:
    """Key of one discrete state in the export's table; multihead.js builds the same string."""
    return f"sentence={sentence}|n_heads={int(n_heads)}"


def kept_example_html(lang: str) -> str:
    """On a page in another language than the sentences': why they stay in Spanish, and each
    sentence (marked ``lang="es"``) with its gloss in ``lang``."""
    glosses = "".join(
        f'<li><span lang="{SENTENCE_LANG}">{esc(sentence)}</span> — '
        f"{esc(text(f'multihead.gloss.{sid}', lang))}</li>"
        for sentence, sid in zip(SENTENCES, SENTENCE_IDS, strict=True)
    )
    marker = "\x00"  # survives esc(): the list goes where the catalogue puts {glosses}
    note = esc(text("multihead.kept_example", lang, glosses=marker))
    return (
        '<div class="c04-note mh-kept" data-testid="multihead-kept-example">'
        f"{note.replace(marker, f'<ul>{glosses}</ul>')}</div>"
    )


class MultiHeadView(DemoView):
    """Sentence and number-of-heads controls, one arc diagram + matrix per head, their sum:
    one Board, the header and the controls (a native <select> and a group of buttons, board.js)
    in it too.

    A control's use reaches ``_on_control`` (Board.receive), which gives the value to the
    model's own check (``clients.take``: one INFO line on a refusal, the last valid state
    kept); the controls' specs follow the model (``control_specs``), whoever changed it.

    Panels for the maximum number of heads are in the layout once; ``n_heads`` only shows or
    hides them (``display: none`` in their group's styles: multihead.js). One model watcher
    (``sentence``, ``n_heads``, ``arc_threshold``) sets the board's ``state`` to
    ``numbers(model)`` and the controls' specs, in one ``pn.io.hold()``; the browser draws
    every slot from the numbers (``C04.views.multihead.render``), the same code as the export
    (``enable_client_side``).

    data-testids (k = 1 … 4 is the head number shown on screen):

    - ``head-<k>-title``: "Cabeza k · <name>" and the head's description (``multihead.*``).
    - ``head-<k>-plot`` / ``combined-plot``: the drawing (markup.js, ``head_plot``): an arc
      is ``path.c04-head-arc``, a matrix cell ``rect.c04-head-cell``, both with ``data-row``
      = i and ``data-col`` = j; an arc's ``stroke-opacity`` is α_ij (the hover fades its
      ``opacity``); an arc's or a cell's tooltip (HTML) is its ``data-tip``.
    - ``head-<k>-top``: a ``ul``; each ``li`` (``data-row="i"``) reads "mordió → perro 97 %",
      the most attended token j of row i of ``weights[k − 1]`` and its weight.
    - ``combined-top``: the same list for ``combined``.
    - ``head-<k>-table`` / ``combined-table``: every weight of the matrix, folded.
    - ``head-dims``: "d_model = 24, h = 4 → cada cabeza de dimensión 6".
    - ``multihead-caveat``: the "patrones ilustrativos" note.
    - ``multihead-kept-example`` (pages in another language than the sentences' only): why the
      example stays in Spanish and a gloss of each sentence. There the sentence's <select> is
      marked ``lang="es"`` (the control's ``lang``) with its label and help outside it, and the
      tokens of the lists and drawings are marked ``lang="es"``.

    CSS classes: ``mh-sentence-control`` (the sentence's list), ``mh-heads-control`` (the
    "Cabezas" buttons), ``mh-plot-<k>`` (the drawing of head k; ``mh-plot-suma`` for the sum).
    """

    model = param.ClassSelector(class_=MultiHeadDemo)

    def __init__(self, **params):
        params.setdefault("model", MultiHeadDemo())
        super().__init__(**params)
        m = self.model

        kept = self.lang != SENTENCE_LANG  # the sentences stay Spanish: marked, glossed
        # The caveat goes with the introduction, not folded in projector mode (a div, not a
        # paragraph).
        caveat = (
            '<div class="c04-note" data-testid="multihead-caveat">'
            f"<em>{self.t('multihead.caveat')}</em></div>"
        )
        header = section_markdown(
            self.t("demo.cabezas"), f"{self.t('multihead.intro')}\n\n{caveat}", anchor="cabezas"
        )
        controls = row(
            # On a page in another language the <select> (its options: the sentences) is marked
            # lang="es"; its label and help, outside it, are in the page's language.
            control(
                "sentence",
                "select",
                self.t("multihead.sentence_label"),
                help=self.t("multihead.sentence_doc"),
                css="mh-sentence-control",
                lang=SENTENCE_LANG if kept else "",
            ),
            control(
                "n_heads",
                "choice",
                self.t("multihead.heads_label"),
                help=self.t("multihead.n_heads_doc"),
                css="mh-heads-control",
            ),
            css="c04-controls",
        )

        # Every fragment in one Board (issue 36): a head's panel is a group whose styles hide
        # it (display: none, not Bokeh's `visible`, which relays out the whole page).
        def panel(k: int) -> dict:
            return group(
                f"panel_{k}",
                slot(f"title_{k}", "html", css="mh-wide"),
                slot(f"plot_{k}", "head_plot", css=f"mh-plot mh-plot-{k}"),
                slot(f"top_{k}", "html", css="mh-wide"),
                # The matrix's numbers, for a screen reader (the drawing shows those ≥ threshold).
                slot(f"table_{k}", "matrix"),
                css="mh-panel",
            )

        combined_text = (
            f"### {self.t('multihead.combined_title')}\n\n{self.t('multihead.combined_note')}"
        )
        self.board = Board(
            lang=self.lang,
            layout=[
                prose(header, "c04-prose"),
                controls,
                *([slot("kept_example", "html", css="mh-wide")] if kept else []),
                prose(self.t("multihead.how_to_read")),
                *(panel(k) for k in range(1, MAX_HEADS + 1)),
                column(
                    prose(combined_text),
                    slot("plot_suma", "head_plot", css="mh-plot mh-plot-suma"),
                    slot("combined_top", "html", css="mh-wide"),
                    slot("table_suma", "matrix"),
                    css="mh-panel",
                ),
                column(prose(self.t("multihead.why_heads")), slot("dims", "html"), css="mh-box"),
                slot("announce", "announce"),
            ],
            view=DEMO,
            on_control=self._on_control,
            stylesheets=[CSS, KEPT_CSS, HEAD_PLOT_CSS],
            sizing_mode="stretch_width",
            margin=(0, 10),
        )
        # The controls as the links read them (a Slot: spec, kind).
        self.sentence = self.board.slot("sentence")
        self.n_heads = self.board.slot("n_heads")
        if kept:
            self.board.update_specs({"kept_example": kept_example_html(self.lang)})

        self._refresh()
        m.param.watch(self._on_change, ["sentence", "n_heads", "arc_threshold"])

    # --- updates -------------------------------------------------------------------------

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return {"sentence": self.sentence, "n_heads": self.n_heads}

    def _on_control(self, name: str, value) -> None:
        """A control's use (Board.receive): a sentence or a number of heads, which the model
        checks (an option of its own, of the same type)."""
        clients.take(name, self.model, name, value)

    def _on_change(self, *events) -> None:
        self._refresh()

    def control_specs(self) -> dict[str, dict]:
        """The controls' specs: the model's options (the sentences, h = 1 … 4) and value."""
        m = self.model
        sentences = m.param.sentence.objects
        return {
            "sentence": {"value": m.sentence, "options": [[s, s] for s in sentences]},
            "n_heads": {
                "value": m.n_heads,
                "options": [[h, str(h)] for h in m.param.n_heads.objects],
            },
        }

    def _refresh(self) -> None:
        """The model's numbers and the controls' specs, in one change of the board."""
        with pn.io.hold():
            self.board.state = numbers(self.model)
            self.board.update_specs(self.control_specs())

    # --- static export -------------------------------------------------------------------

    def enable_client_side(self, states: dict | None = None) -> int:
        """Make the controls work without a server (export only; the live app never calls it).

        Fills ``states["multihead"]`` with the ``numbers`` of every sentence × n_heads (key:
        ``state_key``); both controls then run ``C04.views.multihead.readState`` (Board.run_offline:
        ``w_sentence`` holds the sentence, ``w_n_heads`` h), which looks the state up, and every
        board of the view draws it. The hover on the matrices is markup.js's, client-side
        anyway. Returns the number of states.
        """
        threshold = self.model.arc_threshold
        table = {
            state_key(sentence, h): numbers(
                MultiHeadDemo(sentence=sentence, n_heads=h, arc_threshold=threshold)
            )
            for sentence in SENTENCES
            for h in HEAD_OPTIONS
        }
        if states is not None:
            states[DEMO] = table
        self.board.run_offline(DEMO)
        return len(table)

    def __panel__(self):
        return self.board


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("cabezas")
