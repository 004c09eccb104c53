"""Demo 4 of the lecture: "La capital de ___ es …", the eight steps of the appendix, computed.

Every number on screen comes from ``attnmodel.capital.CapitalWalkthrough``; the view only lays
the steps out and keeps them current when the country or its identity changes. :func:`numbers`
is the model's numbers; the browser draws them (``C04.views.capital``,
dashboards/static/demos/capital.js: every word from the catalogue's table ``[capital]``, every
number written as the page's language writes it), live and in the export.

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
from attnmodel.i18n import text
from dashboards.components.board import Board, box, control, prose, row, slot
from dashboards.components.markup import esc, section_markdown
from dashboards.components.render import shared_render
from dashboards.components.stepper import stepper
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


@shared_render
def numbers(model: CapitalWalkthrough, lang: str = "") -> dict[str, object]:
    """What capital.js draws, the model's numbers and words (no text of the catalogue, nothing
    formatted: the browser writes them in the page's language), one per session state.

    The sentence's ``tokens`` (the country in its slot ``country_slot``, the query "es" at
    ``query``), the ``vocabulary``, ``identity_dim`` (the identity's dimension); the steps:
    ``embeddings``, ``positional``, ``with_position`` (5×3), the fixed ``W_Q``, ``W_K``,
    ``W_V`` and ``U`` (the unembedding, 8×3), ``q`` (the query's row of Q), ``keys``, ``values``,
    ``scores``, ``attention`` (the query's row), ``mixed``, ``logits``, ``probabilities``
    (vocabulary order); ``top`` (the most probable words: two at an exact tie), its
    ``probability`` and ``loss``; ``slopes`` (d logit / d identity of París and Roma) and
    ``mirror``: p(París) at +|identity| and p(Roma) at −|identity| (the asymmetry box).
    In the export capital.js computes the same from ``constants()``. ``lang`` is not used:
    the shared cache's key has it."""
    m = model
    p = m.probability_vector
    magnitude = abs(float(m.identity))
    # What the same |identity| gives each side, from two scratch models (public outputs only).
    plus = CapitalWalkthrough(identity=magnitude).probabilities
    minus = CapitalWalkthrough(identity=-magnitude).probabilities
    return {
        "country": m.country,
        "identity": float(m.identity),
        "tokens": m.tokens,
        "vocabulary": m.vocabulary,
        "country_slot": COUNTRY_SLOT,
        "query": QUERY,
        "identity_dim": DIMENSIONS.index("identidad"),
        "embeddings": m.embeddings.tolist(),
        "positional": m.positional.tolist(),
        "with_position": m.with_position.tolist(),
        "W_Q": W_Q.tolist(),
        "W_K": W_K.tolist(),
        "W_V": W_V.tolist(),
        "U": U.tolist(),
        "q": m.Q[QUERY].tolist(),
        "keys": m.K.tolist(),
        "values": m.V.tolist(),
        "scores": m.scores.tolist(),
        "attention": m.attention_row.tolist(),
        "mixed": m.mixed.tolist(),
        "logits": m.logits.tolist(),
        "probabilities": p.tolist(),
        "top": [w for w, pw in zip(m.vocabulary, p, strict=True) if pw == p.max()],
        "probability": m.probability,
        "loss": m.loss,
        "slopes": m.identity_slopes,
        "mirror": {"París": plus["París"], "Roma": minus["Roma"]},
    }


def constants() -> dict[str, object]:
    """The toy model's constants the export embeds, so that capital.js's walkthrough (the
    export's, where the identity is free) computes from the very numbers of attnmodel.capital.

    Taken from the model's public outputs: the embeddings at identity 0 (the identity enters
    only at [country slot, identity dimension]) and the sentence with ``None`` in the
    country's slot."""
    base = CapitalWalkthrough(identity=0.0)
    sentence: list[str | None] = list(base.tokens)
    sentence[COUNTRY_SLOT] = None
    return {
        "sentence": sentence,
        "country_slot": COUNTRY_SLOT,
        "query": QUERY,
        "identity_dim": DIMENSIONS.index("identidad"),
        "countries": dict(COUNTRIES),
        "embeddings_at_zero": base.embeddings.tolist(),
        "W_Q": W_Q.tolist(),
        "W_K": W_K.tolist(),
        "W_V": W_V.tolist(),
        "U": U.tolist(),
        "vocabulary": list(VOCABULARY),
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
    ``capital-unembedding``, ``capital-logits`` and ``capital-probabilities`` (8, vocabulary
    order), the readouts ``capital-prediction``, ``capital-probability`` (4 decimals, e.g.
    "0,3805"), ``capital-loss`` (−ln p), ``capital-asymmetry`` (the París/Roma slopes,
    ``capital-slope-paris``, ``capital-slope-roma``) and the two bar charts
    ``capital-attention-bars`` (a row per token, "3 · Francia"-style, on the 0–1 scale) and
    ``capital-probability-bars`` (a row per word, on the fixed 0–0.6 scale), their values
    ``capital-attention-bars-1`` … and ``capital-probability-bars-1`` ….

    Layout: the first Board, the walkthrough's stepper (a component of its own), then the eight
    steps and what follows them in a second :class:`Board` (``self.steps``: a titled box per
    step, the fixed texts as its prose), one Bokeh model for all (issue 36).

    Updates: one model watcher gives both Boards the model's :func:`numbers` (each draws its
    own slots with ``C04.views.capital.render``) and the controls their specs, in one hold.

    Language: every label, caption, note and axis in ``lang``; the model's words (tokens,
    vocabulary, the countries' token names) stay Spanish, marked ``lang="es"`` in the HTML of a
    page in another language, which also shows the note ``capital.kept_spanish`` (a gloss). The
    country select shows the countries' names in ``lang``; its values stay the model's.

    Export: ``enable_client_side`` embeds the model's ``constants()`` and wires both controls
    (Board.run_offline) to ``C04.views.capital.readState``, which computes the walkthrough in
    the page.
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
            lang=self.lang,
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
            view="capital",
            on_control=self._on_control,
            sizing_mode="stretch_width",
        )
        self.country = self.board.slot("country")
        self.identity = self.board.slot("identity")
        # The options: the countries' names in the page's language, the model's values.
        self._countries = [[c, t(f"capital.country_name.{c}")] for c in COUNTRIES]
        es = text("capital.kept", self.lang, word=esc(model.tokens[QUERY]))  # the query, kept

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
            lang=self.lang,
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
            view="capital",
            stylesheets=[PANE_CSS],
            sizing_mode="stretch_width",
        )
        self._last_state = None
        self._refresh()
        model.param.watch(self._on_change, ["country", "identity"])
        self._layout = pn.Column(
            self.board, stepper(STEPS, self.lang), self.steps, sizing_mode="stretch_width"
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
        """The model's numbers to both Boards (each draws its own slots) and the controls, in
        one hold."""
        model = self.model
        state = (model.country, model.identity)
        if state == self._last_state:  # country -> identity fires twice for one change
            return
        self._last_state = state
        shown = numbers(model)
        with pn.io.hold():
            self.board.state = shown
            self.steps.state = shown
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

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed the model's constants and wire the country select and the identity slider;
        export only.

        No embedded states: the identity is continuous (step 0.01), so capital.js computes the
        walkthrough in the page from ``constants()``, which go into
        ``states["capital"]["constants"]``. A control's use runs
        ``C04.views.capital.readState`` (Board.run_offline) with the controls as ``w_country``
        and ``w_identity`` ({name, value}), ``trigger`` (the control used: a new country sets
        its identity and moves its control, as the model does) and ``board`` (this Board); its
        state goes to both Boards. Returns 0 (states embedded).
        """
        if states is not None:
            states["capital"] = {"constants": constants()}
        self.board.run_offline("capital")
        return 0

    def __panel__(self):
        return self._layout


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("capital")
