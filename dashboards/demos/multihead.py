"""Demo "Varias cabezas, varias relaciones a la vez": one arc diagram and one matrix per head.

Everything drawn comes from ``attnmodel.multihead.MultiHeadDemo``: the arcs are the model's
``arcs(head)`` (weights at or above ``arc_threshold``), the matrices are its ``weights`` and the
last panel is its ``combined`` matrix. Each head's arcs and matrix are one SVG drawing made in
the browser by ``C04.markup.head_plot`` (dashboards/static/markup.js) from the head's spec
(``plot_spec``: the weights, the arcs to draw, the texts): ten Bokeh canvases for four heads and
their sum were the slowest section to paint and to build (make bench). Hovering (or touching) a
row of a matrix fades every arc that does not start at that row's token; markup.js does that in
the browser, so it needs no server round trip and works in the static HTML export.

What is on screen is one pure function, ``render(model, lang)`` (target name -> HTML / spec /
property), shared by the live view (``apply_render``) and the static export, which embeds the
render of all 16 discrete states in the page's language (``client_table``) for
dashboards/static/demos/multihead.js.

Every text comes from the catalogue (``multihead.*``, ``demo.cabezas``). The sentences are
Spanish data (``SENTENCE_LANG``): a page in another language keeps them, marks them
``lang="es"`` (the sentence selector, the token lists, the drawings' tokens) and says so with a
gloss of each sentence.
"""

from __future__ import annotations

import functools
import json

import numpy as np
import param

from attnmodel.formatting import number, percent
from attnmodel.i18n import DEFAULT_LANG, text
from attnmodel.multihead import (
    HEAD_OPTIONS,
    SENTENCE_IDS,
    SENTENCE_LANG,
    SENTENCES,
    MultiHeadDemo,
)
from dashboards.components.board import Board, column, control, group, prose, row, slot
from dashboards.components.markup import (
    SharedSpec,
    announce_spec,
    esc,
    kept_label,
    kept_labels,
    matrix_spec,
    section_markdown,
)
from dashboards.components.render import apply_render
from dashboards.components.style import CATEGORY_COLORS, HEAD_PLOT_CSS
from dashboards.components.views import DemoView, first_max
from dashboards.runtime import clients

MAX_HEADS = max(HEAD_OPTIONS)

HEAD_COLORS = CATEGORY_COLORS
SINGLE_HEAD_COLOR = "#444444"
COMBINED_COLOR = "#222222"

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
# A head's panel; hidden by CSS (display: none) rather than Bokeh's `visible`: in the browser a
# `visible` change relays out the whole document (70–200 ms per panel), a style change does not.
# "display" is always named: Bokeh only sets the styles it is given, so "" clears the "none".
PANEL_STYLES = {"border-top": "1px solid #d6dbe3", "display": ""}
HIDDEN_PANEL_STYLES = {**PANEL_STYLES, "display": "none"}


def arcs_from(weights, threshold: float) -> list[tuple[int, int, float]]:
    """(i, j, α_ij) for every α_ij >= threshold, like ``MultiHeadDemo.arcs`` for any matrix,
    row by row (the order multihead.js finds them in too)."""
    w = np.asarray(weights, dtype=float)
    return [
        (int(i), int(j), float(w[i, j])) for i, j in zip(*np.nonzero(w >= threshold), strict=True)
    ]


def top_entries(tokens, weights) -> list[tuple[int, int, float]]:
    """(i, j, α_ij) with j the most attended token of every row i (first one on a tie)."""
    w = np.asarray(weights, dtype=float)
    return [(i, int(np.argmax(w[i])), float(w[i].max())) for i in range(len(tokens))]


def kept_word(word: str, lang: str = DEFAULT_LANG) -> str:
    """A word of the sentences, escaped, as a page in ``lang`` shows it: as is on a page in the
    sentences' language, marked ``<span lang="es">`` on any other (kept on purpose)."""
    if lang == SENTENCE_LANG:
        return esc(word)
    return f'<span lang="{SENTENCE_LANG}">{esc(word)}</span>'


def top_html(tokens, weights, testid: str, lang: str = DEFAULT_LANG) -> str:
    """Compact list "mordió → perro 97 %" of each row's most attended token."""
    items = []
    for i, j, a in top_entries(tokens, weights):
        cls = ' class="mh-strong"' if a >= 0.5 else ""
        items.append(
            f'<li{cls} data-row="{i}">{kept_word(tokens[i], lang)} → '
            f"{kept_word(tokens[j], lang)} {percent(a, lang=lang)}</li>"
        )
    return (
        f'<div class="mh-top-label">{esc(text("multihead.top_label", lang))}</div>'
        f'<ul class="mh-top" data-testid="{esc(testid)}">{"".join(items)}</ul>'
    )


def weights_table(tokens, weights, testid: str, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.matrix``, folded under "Los números de esta matriz": every weight of a
    matrix the drawing shows (its cells print only those ≥ the threshold), with the drawn
    cells' 2 decimals; the sentence's words marked Spanish on a page in another language."""
    spec = matrix_spec(
        weights,
        tokens,
        tokens,
        2,
        testid=testid,
        title=text("multihead.table_title", lang),
        lang=lang,
    )
    spec["details"] = text("multihead.table_summary", lang)
    return kept_labels(spec, tokens, lang, SENTENCE_LANG)


def announce(tokens, combined, n_heads: int, d_k: int, lang: str = DEFAULT_LANG) -> dict:
    """What the live region says after a change: h, d_k and the largest weight of the sum."""
    flat = np.asarray(combined, dtype=float).ravel()
    i, j = divmod(first_max(flat), len(tokens))
    return announce_spec(
        "multihead",
        lang,
        heads=str(n_heads),
        d_k=str(d_k),
        query=kept_label(tokens[i], lang, SENTENCE_LANG),
        key=kept_label(tokens[j], lang, SENTENCE_LANG),
        weight=percent(flat[i * len(tokens) + j], 1, lang),
    )


# --- what is on screen: one pure function of the model -------------------------------------

DEMO = "multihead"


def head_color(head: int | None, n_heads: int) -> str:
    """Line colour of the arcs of head index ``head`` (0-based; ``None``: the sum)."""
    if head is None:
        return COMBINED_COLOR
    if n_heads == 1:
        return SINGLE_HEAD_COLOR
    return HEAD_COLORS[head % len(HEAD_COLORS)]


def head_shown(styles) -> bool:
    """Whether a head panel with these ``styles`` (``render``'s ``panel_<k>``) is on screen."""
    return dict(styles).get("display") != "none"


def state_key(sentence: str, n_heads: int) -> str:
    """Key of one discrete state in the export's table; multihead.js builds the same string."""
    return f"sentence={sentence}|n_heads={int(n_heads)}"


def title_html(k: int, name: str, description: str, color: str, lang: str = DEFAULT_LANG) -> str:
    """Title and description of head index ``k`` (0-based); ``name`` and ``description`` are
    already in ``lang``."""
    title = text("multihead.head_title", lang, number=k + 1, name=name)
    return (
        f'<div data-testid="head-{k + 1}-title">'
        f'<div class="mh-title"><span class="mh-swatch" style="background:{color}">'
        f"</span>{esc(title)}</div>"
        f'<p class="mh-desc">{esc(description)}</p></div>'
    )


def dims_html(d_model: int, n_heads: int, d_k: int, lang: str = DEFAULT_LANG) -> str:
    line = text("multihead.dims", lang, d_model=d_model, h=n_heads, d_k=d_k)
    return f'<div class="mh-dims" data-testid="head-dims">{esc(line)}</div>'


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


@functools.lru_cache(maxsize=4)
def plot_texts(lang: str = DEFAULT_LANG) -> dict[str, str]:
    """The texts of every head's drawing in ``lang`` (``plot_spec``'s ``texts``): what each
    drawing shows for a screen reader, the matrix's axis titles and its tooltip's labels."""
    return {
        "arcs": text("a11y.plot.multihead_arcs", lang),
        "matrix": text("a11y.plot.multihead_heat", lang),
        "key_axis": text("multihead.key_axis", lang),
        "query_axis": text("multihead.query_axis", lang),
        "query": text("multihead.hover_query", lang),
        "key": text("multihead.hover_key", lang),
        "weight": "α",
    }


def plot_spec(
    tokens, weights, threshold: float, color: str, testid: str, lang: str = DEFAULT_LANG
) -> SharedSpec:
    """The spec of one head's drawing (``C04.markup.head_plot``): its arcs (every α_ij ≥
    ``threshold``, ``arcs_from``) and its matrix, every cell's weight with its number drawn
    when α_ij ≥ ``threshold`` and its tooltip "0,97 (97 %)"; the tokens marked Spanish on a page
    in another language (``kept_label``). A ``SharedSpec``: the same object for every session
    showing it."""
    rows = np.asarray(weights, dtype=float).tolist()
    numbers = [[number(a, lang=lang) for a in row] for row in rows]
    return SharedSpec(
        testid=testid,
        color=color,
        tokens=[kept_label(token, lang, SENTENCE_LANG) for token in tokens],
        weights=rows,
        arcs=[[i, j] for i, j, _ in arcs_from(rows, threshold)],
        cells=[
            [num if a >= threshold else "" for a, num in zip(row, nums, strict=True)]
            for row, nums in zip(rows, numbers, strict=True)
        ],
        tips=[
            [f"{num} ({percent(a, lang=lang)})" for a, num in zip(row, nums, strict=True)]
            for row, nums in zip(rows, numbers, strict=True)
        ],
        texts=plot_texts(lang),
    )


# The empty spec of a hidden head's drawing and table: always this object, so an unchanged
# hidden head is skipped.
HIDDEN = SharedSpec()


@functools.lru_cache(maxsize=128)
def _render(sentence: str, n_heads: int, threshold: float, lang: str) -> dict[str, object]:
    m = MultiHeadDemo(sentence=sentence, n_heads=n_heads, arc_threshold=threshold)
    tokens, h = m.tokens, m.n_heads
    names, descriptions = m.names(lang), m.descriptions(lang)
    weights, combined = m.weights, m.combined
    out: dict[str, object] = {}
    for k in range(MAX_HEADS):
        shown = k < h
        out[f"panel_{k + 1}"] = PANEL_STYLES if shown else HIDDEN_PANEL_STYLES
        if shown:
            color = head_color(k, h)
            out[f"title_{k + 1}"] = title_html(k, names[k], descriptions[k], color, lang)
            out[f"plot_{k + 1}"] = plot_spec(
                tokens, weights[k], threshold, color, f"head-{k + 1}-plot", lang
            )
            out[f"top_{k + 1}"] = top_html(tokens, weights[k], f"head-{k + 1}-top", lang)
            out[f"table_{k + 1}"] = SharedSpec(
                weights_table(tokens, weights[k], f"head-{k + 1}-table", lang)
            )
        else:
            out[f"title_{k + 1}"] = ""
            out[f"plot_{k + 1}"] = HIDDEN
            out[f"top_{k + 1}"] = ""
            out[f"table_{k + 1}"] = HIDDEN
    out["plot_suma"] = plot_spec(
        tokens, combined, threshold, head_color(None, h), "combined-plot", lang
    )
    out["combined_top"] = top_html(tokens, combined, "combined-top", lang)
    out["table_suma"] = SharedSpec(weights_table(tokens, combined, "combined-table", lang))
    out["dims"] = dims_html(m.d_model, h, m.d_k, lang)
    out["announce"] = SharedSpec(announce(tokens, combined, h, m.d_k, lang))
    return out


def render(model: MultiHeadDemo, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """Everything the view shows that depends on the model, by target name, in ``lang``.

    HTML panes (raw HTML): ``title_<k>``, ``top_<k>`` (k = 1 … 4; "" for a hidden head),
    ``combined_top``, ``dims``. Markup specs: ``plot_<k>`` / ``plot_suma`` (a head's drawing,
    ``plot_spec``; empty for a hidden head), ``table_<k>`` / ``table_suma`` (its numbers),
    ``announce``. Properties: ``panel_<k>`` (the styles of head k's panel: ``display: none``
    when hidden, ``head_shown(styles)`` tells).

    A pure function of (sentence, n_heads, arc_threshold, lang), cached: treat the values as
    read-only.
    """
    return dict(_render(model.sentence, model.n_heads, float(model.arc_threshold), lang))


_PLOT_TARGETS = (*(f"plot_{k + 1}" for k in range(MAX_HEADS)), "plot_suma")


def client_table(threshold: float = 0.1, lang: str = DEFAULT_LANG) -> dict[str, dict]:
    """The table multihead.js looks states up in: ``{state_key: packed render, "_shared": …}``,
    every text in ``lang`` (the page's language).

    The drawings' specs repeat what the table can hold once: the tokens, the texts, the
    numbers a cell draws (the part of its tooltip before " (", when α ≥ threshold) and the
    arcs (every α ≥ threshold, row by row). So each ``plot_<k>`` is packed as ``[testid,
    color, weights, tips]`` (``None`` for a hidden head), the state's ``tokens`` once (as the
    specs write them, ``kept_label``), and ``_shared`` holds the threshold and the texts;
    multihead.js rebuilds each spec with copies and comparisons only, so the result is exactly
    ``render`` (the twin test checks every state for equality). Everything else is as
    ``render`` gives it.
    """
    table: dict[str, dict] = {}
    for sentence in SENTENCES:
        for h in HEAD_OPTIONS:
            model = MultiHeadDemo(sentence=sentence, n_heads=h, arc_threshold=threshold)
            packed: dict[str, object] = {
                "tokens": [kept_label(token, lang, SENTENCE_LANG) for token in model.tokens]
            }
            for name, value in render(model, lang).items():
                if name in _PLOT_TARGETS:
                    packed[name] = (
                        None
                        if not value
                        else [value["testid"], value["color"], value["weights"], value["tips"]]
                    )
                else:
                    packed[name] = value
            table[state_key(sentence, h)] = json.loads(json.dumps(packed))
    table["_shared"] = {
        "threshold": float(threshold),
        "texts": plot_texts(lang),
    }
    return table


def _changed(old, new) -> bool:
    # The cached render gives back the very objects of an unchanged target.
    return old is not new and old != new


class MultiHeadView(DemoView):
    """Sentence and number-of-heads controls, one arc diagram + matrix per head, their sum:
    one Board, the header and the controls (a native <select> and a group of buttons, board.js)
    in it too.

    A control's use reaches ``_on_control`` (Board.receive), which gives the value to the
    model's own check (``clients.take``: one INFO line on a refusal, the last valid state
    kept); the controls' specs follow the model (``control_specs``), whoever changed it.

    Panels for the maximum number of heads are built once; ``n_heads`` only shows or hides them
    (``display: none`` in their styles). Each head's arcs and matrix are one ``Markup`` drawn
    by ``C04.markup.head_plot``; one model watcher (``sentence``, ``n_heads``,
    ``arc_threshold``) puts ``render(model)`` on screen with ``apply_render`` (one
    ``pn.io.hold()``), passing only the targets whose value changed: the drawings' and tables'
    specs, the panels' styles and the HTML panes (titles, top lists, dimensions line). Hidden
    heads keep empty specs. ``client_targets()`` names them; ``enable_client_side()`` wires the
    export.

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
            on_control=self._on_control,
            stylesheets=[CSS, KEPT_CSS, HEAD_PLOT_CSS],
            sizing_mode="stretch_width",
            margin=(0, 10),
        )
        # Each fragment as the tests read it (a Slot: spec / object, kind).
        slots = self.board.slot
        self.head_panels = [slots(f"panel_{k}") for k in range(1, MAX_HEADS + 1)]
        self.head_titles = [slots(f"title_{k}") for k in range(1, MAX_HEADS + 1)]
        self.head_plots = [slots(f"plot_{k}") for k in range(1, MAX_HEADS + 1)]
        self.head_tops = [slots(f"top_{k}") for k in range(1, MAX_HEADS + 1)]
        self.head_tables = [slots(f"table_{k}") for k in range(1, MAX_HEADS + 1)]
        self.combined_plot = slots("plot_suma")
        self.combined_top = slots("combined_top")
        self.combined_table = slots("table_suma")
        self.dims = slots("dims")
        self.announcer = slots("announce")
        self.sentence = slots("sentence")
        self.n_heads = slots("n_heads")
        self.kept_example = None
        if kept:
            self.kept_example = slots("kept_example")
            self.kept_example.object = kept_example_html(self.lang)

        self._targets = self.client_targets()
        self._shown: dict[str, object] = {}
        self._refresh()
        m.param.watch(self._on_change, ["sentence", "n_heads", "arc_threshold"])

    # --- updates -------------------------------------------------------------------------

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (the board, "board:<slot>"), the names of ``render``."""
        names = [
            f"{part}_{k + 1}"
            for k in range(MAX_HEADS)
            for part in ("panel", "title", "plot", "top", "table")
        ]
        names += ["plot_suma", "combined_top", "table_suma", "dims", "announce"]
        return self.board.targets(names)

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
        values = render(self.model, self.lang)
        # Only what changed since the last update: same picture, fewer Bokeh events.
        changed = {
            name: value
            for name, value in values.items()
            if name not in self._shown or _changed(self._shown[name], value)
        }
        apply_render(self._targets, changed)
        self._shown = values
        self.board.update_specs(self.control_specs())

    # --- static export -------------------------------------------------------------------

    def enable_client_side(self, states: dict | None = None) -> int:
        """Make the controls work without a server (export only; the live app never calls it).

        Fills ``states["multihead"]`` with the Python ``render`` of every sentence × n_heads in
        the view's language (key: ``state_key``; packed, see ``client_table``); both controls
        then run ``C04.update("multihead", …)`` (Board.run_offline), which looks the state up
        and puts it on screen (static/demos/multihead.js: ``w_sentence`` holds the sentence,
        ``w_n_heads`` h). The hover on the matrices is markup.js's, client-side anyway. Returns
        the number of states.
        """
        table = client_table(self.model.arc_threshold, self.lang)
        if states is not None:
            states[DEMO] = table
        self.board.run_offline(DEMO, self._targets)
        return len(table) - 1  # the "_shared" entry is not a state

    def __panel__(self):
        return self.board


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("cabezas")
