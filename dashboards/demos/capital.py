"""Demo 4 of the lecture: "La capital de ___ es …", the eight steps of the appendix, computed.

Every number on screen comes from ``attnmodel.capital.CapitalWalkthrough``; the view only lays
the steps out and keeps them current when the country or its identity changes. Every word is in
the catalogue, table ``[capital]`` (``attnmodel/locales/<lang>``); the numbers are written as the
view's language writes them.

The model's tokens and vocabulary (La, capital, de, Francia, es, París, Roma…) are its data and
stay Spanish in every language: on a page in another language each one is marked ``lang="es"``
(``capital.kept``), and a note under the intro says so and glosses them.
"""

from __future__ import annotations

import panel as pn
import param

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
from attnmodel.formatting import number
from attnmodel.i18n import DEFAULT_LANG, text
from dashboards.components.board import Board, box, control, prose, row, slot
from dashboards.components.markup import (
    announce_spec,
    esc,
    kept_labels,
    matrix_spec,
    readout_spec,
    rich,
    section_markdown,
)
from dashboards.components.markup import kept_label as common_kept_label
from dashboards.components.render import apply_render, shared_render
from dashboards.components.stepper import stepper
from dashboards.components.style import CATEGORY_COLORS
from dashboards.components.views import DemoView
from dashboards.runtime import clients

PANE_CSS = """
.c04-matrix caption { white-space: nowrap; }
.c04-tokens { display: flex; gap: 6px; flex-wrap: wrap; margin: 4px 0; }
.c04-token { border: 1px solid #1f5fa8; border-radius: 4px; padding: 4px 8px; text-align: center; }
.c04-token small { display: block; color: #666; font-size: 75%; }
.c04-token.c04-country { background: #1f5fa8; color: #fff; }
.c04-token.c04-country small { color: #dde6f3; }
.c04-token.c04-query { border-width: 2px; font-weight: 600; }
.c04-vector { font-variant-numeric: tabular-nums; }
.c04-aside { border-left: 4px solid #d95f02; background: #fdf6f0; padding: 8px 14px; }
.c04-aside p { margin: 4px 0; }
"""

CARD_WIDTH = 350
# The identity control: the model's bounds in steps of 0.01, its value written with 2 decimals.
IDENTITY_STEP = 0.01
IDENTITY_DECIMALS = 2
# The walkthrough's eight steps, one box each (the stepper's steps).
STEPS = 8

# The language of the model's words: a page in another language keeps them, marked, and says so.
EXAMPLE_LANG = "es"

# Catalogue keys of the labels of attnmodel.capital.DIMENSIONS (lugar, función, identidad), in
# that order: the tables' headers in the page's language.
DIMENSION_KEYS = (
    "capital.dimension.place",
    "capital.dimension.function",
    "capital.dimension.identity",
)

# Bar colours: París and Roma stand out, the six "resto" words share a grey.
WORD_COLORS = {"París": CATEGORY_COLORS[0], "Roma": CATEGORY_COLORS[1]}
OTHER_COLOR = "#b8c2cf"
ATTENTION_COLOR = "#1f5fa8"

# The probability bars' full width: a fixed scale (the old chart's y range), so that the bars of
# two states compare; a larger probability fills the bar.
PROBABILITY_SCALE = 0.6
# The bar column's width (em) of each chart: the attention card is narrow, the distribution wide.
ATTENTION_BAR_EM = 12
PROBABILITY_BAR_EM = 20


def kept_label(word: str, lang: str = DEFAULT_LANG) -> str | dict:
    """One of the model's Spanish words as a label of ``C04.markup``: as is on the Spanish
    page, marked as Spanish ({"text", "lang": "es"}) on a page in another language."""
    return common_kept_label(word, lang, EXAMPLE_LANG)


def matrix(values, lang: str, spanish=(), **kw) -> dict:
    """``matrix_spec`` in ``lang``, its labels that are model words (``spanish``) kept."""
    return kept_labels(matrix_spec(values, lang=lang, **kw), spanish, lang, EXAMPLE_LANG)


def dimension_labels(lang: str = DEFAULT_LANG) -> list[str]:
    """The three dimensions' names in ``lang`` ("lugar", "función", "identidad" in Spanish)."""
    return [text(key, lang) for key in DIMENSION_KEYS]


def _vector(values, decimals: int = 4, lang: str = DEFAULT_LANG) -> str:
    separator = text("capital.table.vector_separator", lang)
    return "(" + separator.join(number(v, decimals, lang=lang) for v in values) + ")"


def attention_labels(tokens: list[str], lang: str = DEFAULT_LANG) -> list[list]:
    """The attention bars' row labels: "3 · Francia"-style (the country's row is renamed with
    the country), the token kept."""
    return [[f"{pos} · ", kept_label(token, lang)] for pos, token in enumerate(tokens)]


def attention_bars_spec(model: CapitalWalkthrough, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.bars``: the attention of the query over the five tokens, a row per token
    with its weight (4 decimals) and a bar on the 0–1 scale (width in %)."""
    return {
        "testid": "capital-attention-bars",
        "corner": "token",
        "head": text("capital.chart.weight_axis", lang),
        "color": ATTENTION_COLOR,
        "bar_em": ATTENTION_BAR_EM,
        "rows": [
            {"label": label, "value": number(a, 4, lang=lang), "width": 100 * a, "note": ""}
            for label, a in zip(
                attention_labels(model.tokens, lang), model.attention_row.tolist(), strict=True
            )
        ],
    }


def probability_bars_spec(model: CapitalWalkthrough, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.bars``: the probability of each vocabulary word, a row per word (vocabulary
    order) with its probability (4 decimals), its colour (``WORD_COLORS``, else
    ``OTHER_COLOR``) and a bar on the fixed 0–``PROBABILITY_SCALE`` scale (width in %, at most
    100)."""
    return {
        "testid": "capital-probability-bars",
        "corner": text("capital.chart.word_axis", lang),
        "head": text("capital.chart.probability_axis", lang),
        "bar_em": PROBABILITY_BAR_EM,
        "rows": [
            {
                "label": kept_label(word, lang),
                "value": number(p, 4, lang=lang),
                "width": min(100.0, 100 * p / PROBABILITY_SCALE),
                "color": WORD_COLORS.get(word, OTHER_COLOR),
                "note": "",
            }
            for word, p in zip(model.vocabulary, model.probability_vector.tolist(), strict=True)
        ],
    }


def tokens_spec(tokens: list[str], lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.tokens``: the sentence's tokens with their positions (the country's and
    the query's marked), and the note under them."""
    return {
        "testid": "capital-tokens",
        "tokens": [kept_label(token, lang) for token in tokens],
        "country": COUNTRY_SLOT,
        "query": QUERY,
        "note": rich("capital.step.tokens_note", lang, es=kept_label(tokens[QUERY], lang)),
    }


def prediction_label(words: list[str], lang: str = DEFAULT_LANG) -> list:
    """The most probable word, or the tied words ("París o Roma (empate)"), kept."""
    if len(words) == 1:
        return kept_label(words[0], lang)
    joined: list = []
    for k, word in enumerate(words):
        if k:
            joined.append(rich("capital.readout.or", lang))
        joined.append(kept_label(word, lang))
    return rich("capital.readout.tie", lang, words=joined)


def readouts_spec(model: CapitalWalkthrough, lang: str = DEFAULT_LANG) -> dict:
    p = model.probability_vector
    top = [w for w, pw in zip(model.vocabulary, p, strict=True) if pw == p.max()]
    probability_unit: list = []
    for k, word in enumerate(top):
        probability_unit += [" = "] if k else []
        probability_unit += ["p(", kept_label(word, lang), ")"]
    return {
        "items": [
            readout_spec(
                rich("capital.readout.prediction", lang),
                prediction_label(top, lang),
                testid="capital-prediction",
            ),
            readout_spec(
                rich("capital.readout.probability", lang),
                number(model.probability, 4, lang=lang),
                probability_unit,
                testid="capital-probability",
            ),
            readout_spec(
                rich("capital.readout.loss", lang),
                number(model.loss, 4, lang=lang),
                "−ln p",
                testid="capital-loss",
            ),
        ]
    }


def asymmetry_spec(model: CapitalWalkthrough, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.note`` in an aside: why +identity and −identity are not mirror images."""

    def num(x: float, decimals: int = 2) -> str:
        return number(x, decimals, lang=lang)

    a = float(model.attention_row[COUNTRY_SLOT])
    slopes = model.identity_slopes
    u_paris, u_roma = float(U[0, 2]), float(U[1, 2])
    magnitude = abs(model.identity)
    # What the same |identity| gives each side, from two scratch models (public outputs only).
    plus = CapitalWalkthrough(identity=magnitude).probabilities["París"]
    minus = CapitalWalkthrough(identity=-magnitude).probabilities["Roma"]
    words = {"paris": kept_label("París", lang), "roma": kept_label("Roma", lang)}
    if magnitude > 0:
        compare = rich(
            "capital.asymmetry.compare",
            lang,
            m=num(magnitude),
            plus=num(plus, 4),
            minus=num(minus, 4),
            **words,
        )
    else:
        compare = rich("capital.asymmetry.compare_tie", lang, p=num(plus, 4), **words)
    slope = {
        name: {"text": num(slopes[word], 4), "testid": f"capital-slope-{name}", "tag": "b"}
        for name, word in (("paris", "París"), ("roma", "Roma"))
    }
    es = kept_label(model.tokens[QUERY], lang)
    return {
        "testid": "capital-asymmetry",
        # Not "c04-box": that is a Board's titled frame (style.py).
        "cls": "c04-aside",
        "text": [
            rich("capital.asymmetry.why", lang, es=es, a=num(a, 4), **words),
            rich(
                "capital.asymmetry.slopes",
                lang,
                u_paris=num(u_paris),
                u_roma=num(u_roma),
                slope_paris=slope["paris"],
                slope_roma=slope["roma"],
                **words,
            ),
            rich("capital.asymmetry.because", lang, compare=compare, **words),
        ],
    }


@shared_render
def render(model: CapitalWalkthrough, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """Everything on screen that follows the country and the identity, in ``lang``, by target
    name.

    The specs of the view's Board's slots (``tokens``, ``embeddings``, ``pe``,
    ``with_position``, ``query``, ``keys``, ``values``, ``scores``, ``attention_row``,
    ``mixed``, ``logits``, ``probabilities``, ``readouts``, ``announce``, ``asymmetry``) and
    of the two bar charts (``attention_bars``, ``probability_bars``: ``C04.markup.bars``),
    slots too. The browser twin
    (``C04.views.capital`` in static/demos/capital.js) returns the same dict from the same
    constants (``client_constants()``) and the page's catalogue.
    """
    tokens = model.tokens
    query = tokens[QUERY]
    dims = dimension_labels(lang)
    vocab = model.vocabulary
    attention_row = model.attention_row
    probability_vector = model.probability_vector
    row_sum = text("capital.table.row_sum", lang, total=number(attention_row.sum(), 4, lang=lang))
    readouts = readouts_spec(model, lang)
    return {
        "tokens": tokens_spec(tokens, lang),
        "embeddings": matrix(
            model.embeddings,
            lang,
            tokens,
            title="x (5×3)",
            row_labels=tokens,
            col_labels=dims,
            testid="capital-embeddings",
        ),
        "pe": matrix(
            model.positional,
            lang,
            tokens,
            title="PE",
            row_labels=tokens,
            col_labels=dims,
            decimals=4,
            testid="capital-pe",
        ),
        "with_position": matrix(
            model.with_position,
            lang,
            tokens,
            title="x + PE",
            row_labels=tokens,
            col_labels=dims,
            decimals=4,
            testid="capital-with-position",
        ),
        "query": matrix(
            model.Q[QUERY : QUERY + 1],
            lang,
            [query],
            title=rich("capital.table.query", lang, es=kept_label(query, lang)),
            row_labels=[query],
            col_labels=dims,
            testid="capital-query",
        ),
        "keys": matrix(
            model.K,
            lang,
            tokens,
            title=text("capital.table.keys", lang),
            row_labels=tokens,
            col_labels=dims,
            decimals=4,
            testid="capital-keys",
        ),
        "values": matrix(
            model.V,
            lang,
            tokens,
            title=text("capital.table.values", lang),
            row_labels=tokens,
            col_labels=dims,
            decimals=4,
            testid="capital-values",
        ),
        "scores": matrix(
            model.scores[None, :],
            lang,
            tokens,
            row_labels=[query],
            col_labels=tokens,
            decimals=4,
            testid="capital-scores",
        ),
        "attention_row": matrix(
            attention_row[None, :],
            lang,
            tokens,
            row_labels=[query],
            col_labels=tokens,
            decimals=4,
            shade=True,
            testid="capital-attention-row",
            note=row_sum,
        ),
        "mixed": {
            "testid": "capital-mixed",
            "cls": "c04-vector",
            "text": f"z = {_vector(model.mixed, lang=lang)}",
        },
        "logits": matrix(
            model.logits[:, None],
            lang,
            vocab,
            title="Logits",
            row_labels=vocab,
            col_labels=["logit"],
            decimals=4,
            testid="capital-logits",
        ),
        "probabilities": matrix(
            probability_vector[:, None],
            lang,
            vocab,
            title=text("capital.table.probabilities", lang),
            row_labels=vocab,
            col_labels=["p"],
            decimals=4,
            testid="capital-probabilities",
        ),
        "readouts": readouts,
        # The live region: the prediction and its probability, as the readouts write them.
        "announce": announce_spec(
            "capital", lang, word=readouts["items"][0]["value"], p=readouts["items"][1]["value"]
        ),
        "asymmetry": asymmetry_spec(model, lang),
        "attention_bars": attention_bars_spec(model, lang),
        "probability_bars": probability_bars_spec(model, lang),
    }


def client_constants() -> dict[str, object]:
    """The toy model's constants for the browser twin (the export embeds them), so that
    dashboards/static/demos/capital.js computes from the very numbers of attnmodel.capital.

    Taken from the model's public outputs: the embeddings at identity 0 (the identity enters
    only at [country slot, "identidad"]) and the sentence with ``None`` in the country's slot.
    ``dimension_keys``: the catalogue keys of the dimensions' names (the page's language).
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
        "dimension_keys": list(DIMENSION_KEYS),
        "embeddings_at_zero": base.embeddings.tolist(),
        "W_Q": W_Q.tolist(),
        "W_K": W_K.tolist(),
        "W_V": W_V.tolist(),
        "U": U.tolist(),
        "vocabulary": list(VOCABULARY),
        "word_colors": dict(WORD_COLORS),
        "other_color": OTHER_COLOR,
        "attention_color": ATTENTION_COLOR,
        "probability_scale": PROBABILITY_SCALE,
        "attention_bar_em": ATTENTION_BAR_EM,
        "probability_bar_em": PROBABILITY_BAR_EM,
    }


class CapitalView(DemoView):
    """The eight steps of "La capital de ___ es …" for one country and identity.

    Controls: "País" (a native select, Francia/Italia) and "Identidad del país" (a native range
    −1..1, step 0.01), in the section's first :class:`Board` (``self.board``, with the title
    and the intro; board.js), following the model: choosing a country sets the identity, so the
    range moves too. A use is a message the model checks (``_on_control``; a refused value is
    one INFO line, the state kept).

    data-testids: ``capital-tokens`` (step 1), ``capital-embeddings`` (2), ``capital-pe`` and
    ``capital-with-position`` (3), ``capital-query``, ``capital-keys``, ``capital-values`` (4),
    ``capital-scores`` (5), ``capital-attention-row`` (6), ``capital-mixed`` (7),
    ``capital-logits`` and ``capital-probabilities`` (8, vocabulary order), the readouts
    ``capital-prediction``, ``capital-probability`` (4 decimals, e.g. "0,3805"), ``capital-loss``
    (−ln p), and ``capital-asymmetry`` (the París/Roma slopes).

    Layout: the first Board, the walkthrough's stepper (a component of its own), then the eight
    steps and what follows them in a second :class:`Board` (``self.steps``: a titled box per
    step, the fixed texts as its prose), one Bokeh model for all (issue 36);
    each fragment is also ``self.<name>``, a slot read as a Markup was (``spec``, ``kind``).

    Updates: one model watcher recomputes every slot in place, the two bar charts with them:
    ``self.attention_bars`` (``capital-attention-bars``: a row per token, labelled "3 ·
    Francia"-style so the country's row is renamed, its weight with 4 decimals and a bar on the
    0–1 scale) and ``self.probability_bars`` (``capital-probability-bars``: a row per word in
    vocabulary order, its probability with 4 decimals and a bar in the word's colour on the
    fixed 0–0.6 scale), tables drawn by ``C04.markup.bars`` (no canvas, no Bokeh figure). The
    values are ``capital-attention-bars-1`` … and ``capital-probability-bars-1`` …, written in
    the view's language. What is on screen is ``render(model, lang)``, put there by
    ``apply_render``.

    Language: every label, caption, note and axis in ``lang``; the model's words (tokens,
    vocabulary, the countries' token names) stay Spanish, marked ``lang="es"`` in the HTML of a
    page in another language, which also shows the note ``capital.kept_spanish`` (a gloss). The
    country select shows the countries' names in ``lang``; its values stay the model's.

    Export: ``enable_client_side`` wires both controls (Board.run_offline) to the browser twin
    (dashboards/static/demos/capital.js), which computes the same ``render`` in the page from the
    model's constants (``client_constants()``, embedded in the page).
    """

    model = param.ClassSelector(class_=CapitalWalkthrough)

    def __init__(self, **params):
        params.setdefault("model", CapitalWalkthrough())
        super().__init__(**params)
        model = self.model
        t = self.t
        intro = t("capital.intro")
        if self.lang != EXAMPLE_LANG:  # the example stays Spanish: say so, with a gloss
            intro += "\n\n" + t("capital.kept_spanish")
        title = t("demo.capital").replace("___", r"\_\_\_")
        self._labels = {"country": t("capital.country"), "identity": t("capital.identity")}
        self.board = Board(
            layout=[
                prose(section_markdown(title, intro, anchor="capital"), "c04-prose"),
                row(
                    control(
                        "country", "select", self._labels["country"], help=t("capital.country_help")
                    ),
                    control(
                        "identity",
                        "range",
                        self._labels["identity"],
                        help=t("capital.identity_note"),
                        css="c04-wide",
                    ),
                    css="c04-controls",
                ),
            ],
            on_control=self._on_control,
            sizing_mode="stretch_width",
        )
        self.country = self.board.slot("country")
        self.identity = self.board.slot("identity")
        # The options: the countries' names in the page's language, the model's values.
        self._countries = [[c, t(f"capital.country_name.{c}")] for c in COUNTRIES]
        es = text("capital.kept", self.lang, word=esc(model.tokens[QUERY]))  # the query, kept
        dims = dimension_labels(self.lang)
        # The fixed tables: W_Q, W_K, W_V (step 4) and the unembedding U (step 8).
        self._fixed = {
            name: matrix_spec(w, dims, dims, decimals=0, title=title, lang=self.lang)
            for name, title, w in (("w_q", "W_Q", W_Q), ("w_k", "W_K", W_K), ("w_v", "W_V", W_V))
        }
        self._fixed["unembedding"] = self._unembedding_spec()

        def table(name: str) -> dict:
            return slot(name, "matrix")

        # Card n of the old layout is step n (present.js shows steps 1 … n; the Board hides a
        # later step's box); what follows the last box belongs to the last step.
        def step(n: int, title: str, *nodes, width: int = CARD_WIDTH) -> dict:
            return box(title, *nodes, width=width, css=f"c04-step-{n}")

        last = f"c04-step-{STEPS}"
        boxes = [
            step(1, "1 · Tokens", slot("tokens", "tokens")),
            step(2, "2 · Embeddings", prose(t("capital.step.dimensions")), table("embeddings")),
            step(
                3,
                t("capital.step.position_title"),
                prose(t("capital.step.position")),
                table("pe"),
                table("with_position"),
            ),
            step(
                4,
                "4 · Q, K, V",
                prose(t("capital.step.projections")),
                row(table("w_q"), table("w_k"), table("w_v")),
                table("query"),
                row(table("keys"), table("values")),
                width=2 * CARD_WIDTH + 10,
            ),
            step(
                5,
                t("capital.step.scores_title", es=es),
                prose(t("capital.step.scores")),
                table("scores"),
            ),
            step(
                6,
                "6 · Softmax",
                prose(t("capital.step.attention_caption", es=es)),
                table("attention_row"),
                slot("attention_bars", "bars"),
            ),
            step(
                7,
                t("capital.step.mixed_title"),
                prose(t("capital.step.mixed", es=es)),
                slot("mixed", "note"),
            ),
            step(
                8,
                t("capital.step.logits_title"),
                prose(t("capital.step.logits")),
                table("unembedding"),
                row(table("logits"), table("probabilities")),
            ),
        ]
        self.steps = Board(
            layout=[
                row(*boxes[:3]),
                row(*boxes[3:5]),
                row(*boxes[5:]),
                prose(t("capital.step.distribution"), css=f"c04-note {last}"),
                slot("probability_bars", "bars", css=last),
                slot("readouts", "readouts", css=last),
                slot("asymmetry", "note", css=last),
                slot("announce", "announce"),
            ],
            specs=dict(self._fixed),
            stylesheets=[PANE_CSS],
            sizing_mode="stretch_width",
        )
        # Each fragment as the tests read it (a Slot: spec, kind).
        for name in render(model, self.lang):
            setattr(self, name, self.steps.slot(name))

        self._last_state = None
        self._refresh()
        model.param.watch(self._on_change, ["country", "identity"])
        self._layout = pn.Column(
            self.board, stepper(STEPS, self.lang), self.steps, sizing_mode="stretch_width"
        )

    def _unembedding_spec(self) -> dict:
        vocabulary = self.model.vocabulary
        return matrix(
            U,
            self.lang,
            vocabulary,
            title=self.t("capital.table.unembedding"),
            row_labels=vocabulary,
            col_labels=dimension_labels(self.lang),
            testid="capital-unembedding",
        )

    # -- updates -------------------------------------------------------------------------------

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py)."""
        return {"country": self.country, "identity": self.identity}

    def _on_control(self, name: str, value) -> None:
        """A control's use (Board.receive): a country or an identity, which the model checks
        (one of its countries; a real number within its bounds)."""
        clients.take(self._labels[name], self.model, name, value)

    def _on_change(self, *events) -> None:
        self._refresh()

    def _refresh(self) -> None:
        model = self.model
        state = (model.country, model.identity)
        if state == self._last_state:  # country -> identity fires twice for one change
            return
        self._last_state = state
        values = render(model, self.lang)
        with pn.io.hold():
            apply_render(self.steps.targets(values), values)
            self.board.update_specs(self._control_specs())

    def _control_specs(self) -> dict:
        """The controls on the model's country and identity (a change from anywhere: a link,
        the class, a country that sets its identity)."""
        model = self.model
        lo, hi = model.param.identity.bounds
        return {
            "country": {"value": model.country, "options": self._countries},
            "identity": {
                "value": float(model.identity),
                "start": lo,
                "end": hi,
                "step": IDENTITY_STEP,
                "decimals": IDENTITY_DECIMALS,
                "decimal": self.t("format.decimal"),
            },
        }

    # -- the export (dashboards/export.py) -----------------------------------------------------

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (the steps' board, "board:<slot>"), for the names of ``render``."""
        return self.steps.targets(render(self.model, self.lang))

    def enable_client_side(self, states: dict | None = None) -> int:
        """Wire the country select and the identity slider to the browser twin
        (``C04.views.capital``). No embedded states: the twin computes every step from the
        model's constants, which go into ``states["capital"]["constants"]``.

        Each control runs ``C04.update("capital", …)`` (Board.run_offline) with every target
        (the slots of ``self.steps``, which the first Board finds in the page, and its own
        ``identity`` control, which a new country moves), the controls as
        ``w_country`` and ``w_identity`` ({name, value}) and ``trigger`` (the control used: a
        new country sets its identity, as the model does).
        """
        if states is not None:  # the page's language is its catalogue's (C04.t)
            states["capital"] = {"constants": client_constants()}
        # The identity control too: a new country moves it (capital.js, readState).
        targets = {**self.client_targets(), **self.board.targets(["identity"])}
        self.board.run_offline("capital", targets)
        return 0

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("capital")
