"""Demo 2: why divide the scores by √d_k.

Everything on screen comes from ``attnmodel.scaling.ScalingDemo``: the typical score, the mean
softmax entropy with and without the factor, the mean gradient size (those three over the model's
``n_trials`` random queries), and the weights of one random query with their own entropy. Every
word is in the catalogue, table ``[scaling]`` (``attnmodel/locales/<lang>``); the numbers are
written as the view's language writes them.
"""

from __future__ import annotations

import json
import math

import numpy as np
import param

from attnmodel.formatting import number, percent
from attnmodel.i18n import DEFAULT_LANG, text
from attnmodel.scaling import ScalingDemo
from dashboards.components.board import Board, column, control, prose, row, slot
from dashboards.components.markup import announce_spec, readout_spec, rich, section_markdown
from dashboards.components.render import apply_render, shared_render
from dashboards.components.views import DemoView
from dashboards.runtime import clients

D_K_OPTIONS = [2**i for i in range(11)]  # 1, 2, 4, …, 1024
# The offline export embeds every (d_k, seed) state for these seeds: "New sample" cycles them.
EXPORT_SEEDS = 10
UNSCALED_COLOR = "#a40000"
SCALED_COLOR = "#1f5fa8"
BAR_EM = 14  # the bar column's width: a weight of 1 is a 14 em bar


def sqrt_text(d_k: int, lang: str = DEFAULT_LANG) -> str:
    """'√64 = 8' when the root is exact, '√128 ≈ 11,31' (es) / '√128 ≈ 11.31' (en) otherwise."""
    root = math.sqrt(d_k)
    if root == int(root):
        return f"√{d_k} = {int(root)}"
    return f"√{d_k} ≈ {number(root, lang=lang)}"


def bars_spec(weights, which: str, d_k: int, lang: str = DEFAULT_LANG) -> dict:
    """``C04.markup.bars``: one query's attention over its keys, a row per key with its
    percentage and a bar, titled as the chart it is; ``which`` is "unscaled" or "scaled".

    HTML drawn by markup.js rather than a Bokeh figure: two figures were ~50 Bokeh models and
    two canvases of every new session's first section (bench_sessions.py, bench_phone.py)."""
    w = np.asarray(weights, dtype=float)
    return {
        "testid": f"scaling-{which}-bars",
        "caption": text(f"scaling.{which}_title", lang, d_k=d_k),
        "corner": text("scaling.key_axis", lang),
        "head": text("scaling.weight_axis", lang),
        "color": UNSCALED_COLOR if which == "unscaled" else SCALED_COLOR,
        "bar_em": BAR_EM,
        "rows": [
            {"label": str(j + 1), "value": percent(x, 1, lang), "width": 100 * x, "note": ""}
            for j, x in enumerate(w.tolist())
        ],
    }


@shared_render
def render(model: ScalingDemo, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """Everything on screen that follows the model, in ``lang``, by target name (see
    ``client_targets``).

    The specs of ``readouts``, ``gradient_readouts``, ``status``, the bars of one query
    ``unscaled_bars``, ``scaled_bars`` and its own entropy under each, ``unscaled_entropy``,
    ``scaled_entropy`` (all drawn by markup.js). The export embeds this dict for every
    (d_k, seed) it offers; the browser (``C04.views.scaling`` in dashboards/demos/scaling.js)
    only looks it up.
    """
    return render_state(client_state(model, lang), model.d_k, model.seed, lang)


def render_state(state: dict, d_k: int, seed: int, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """``render`` from one embedded ``client_state``: what ``C04.views.scaling.render`` does in
    the browser, line by line (the texts from the catalogue, the numbers already in ``state``)."""
    score, entropy_u, entropy_s, grad_u, grad_s, sample_u, sample_s, n = state["t"]

    def r(key: str, **fields) -> list:
        return rich(f"scaling.{key}", lang, **fields)

    sqrt = {"text": sqrt_text(d_k, lang), "testid": "scaling-sqrt-dk"}
    readouts = [
        readout_spec(r("score_label"), score, r("score_unit", sqrt=sqrt), "scaling-score-std"),
        readout_spec(
            r("entropy_unscaled_label"),
            entropy_u,
            r("entropy_unscaled_unit", n=str(n)),
            "scaling-entropy-unscaled",
        ),
        readout_spec(
            r("entropy_scaled_label"),
            entropy_s,
            r("entropy_scaled_unit", n=str(n)),
            "scaling-entropy-scaled",
        ),
    ]
    gradient_readouts = [
        readout_spec(
            r("gradient_unscaled_label"),
            grad_u,
            r("gradient_unscaled_unit"),
            "scaling-gradient-unscaled",
        ),
        readout_spec(
            r("gradient_scaled_label"),
            grad_s,
            r("gradient_scaled_unit"),
            "scaling-gradient-scaled",
        ),
    ]
    status = r(
        "status",
        d_k={"text": f"d_k = {d_k}", "testid": "scaling-dk"},
        seed={"text": str(seed), "testid": "scaling-seed"},
    )
    return {
        "readouts": {"items": readouts},
        "gradient_readouts": {"items": gradient_readouts},
        "status": {"testid": None, "cls": "c04-note", "text": status},
        "unscaled_bars": bars_spec(state["wu"], "unscaled", d_k, lang),
        "scaled_bars": bars_spec(state["ws"], "scaled", d_k, lang),
        "announce": announce_spec(
            "scaling", lang, d_k=str(d_k), n=str(n), unscaled=entropy_u, scaled=entropy_s
        ),
        "unscaled_entropy": readout_spec(
            r("sample_entropy_unscaled_label"),
            sample_u,
            r("sample_entropy_unit"),
            "scaling-sample-entropy-unscaled",
        ),
        "scaled_entropy": readout_spec(
            r("sample_entropy_scaled_label"),
            sample_s,
            r("sample_entropy_unit"),
            "scaling-sample-entropy-scaled",
        ),
    }


def client_state(model: ScalingDemo, lang: str = DEFAULT_LANG) -> dict[str, object]:
    """One embedded state, compact: the seven readout numbers written in ``lang`` (the page's
    language), the number of queries the means are over, and the two bar vectors.

    ``C04.views.scaling.render`` rebuilds ``render(model, lang)`` from it, byte for byte (the
    readouts' texts from the page's catalogue, √d_k, the status line, the bars with their
    titles and percentages); the full render dicts would be six times larger (0,27 MB vs
    0,04 MB for 110 states), and the whole-lecture page must stay under 6 MB.
    """
    m = model

    def num(x: float, decimals: int = 2) -> str:
        return number(x, decimals, lang=lang)

    return {
        "t": [
            num(m.score_std),
            num(m.entropy_unscaled),
            num(m.entropy_scaled),
            num(m.gradient_unscaled, 3),
            num(m.gradient_scaled, 3),
            num(m.sample_entropy_unscaled),
            num(m.sample_entropy_scaled),
            str(m.n_trials),
        ],
        "wu": np.asarray(m.weights_unscaled, dtype=float).tolist(),
        "ws": np.asarray(m.weights_scaled, dtype=float).tolist(),
    }


def state_key(d_k: int, seed: int) -> str:
    """Key of an embedded state; dashboards/demos/scaling.js builds the same string."""
    return f"d_k={int(d_k)}|seed={int(seed)}"


def d_k_spec(d_k: int) -> dict:
    """The d_k control (a range over the stops 1, 2, 4, …, 1024 and the model's own d_k): the
    position of ``d_k``, each stop's text and the value it sends."""
    stops = sorted({*D_K_OPTIONS, int(d_k)})
    return {
        "value": stops.index(int(d_k)),
        "start": 0,
        "end": len(stops) - 1,
        "step": 1,
        "texts": [str(v) for v in stops],
        "values": stops,
    }


class ScalingView(DemoView):
    """d_k control, "New sample", readouts and the bars of one query with and without √d_k,
    one Board (the controls native, board.js).

    data-testids (each readout is a ``div.c04-readout``; its number is in ``.c04-value``):

    - ``scaling-score-std``: ``scaling.score_label`` (deviation of the unscaled scores,
      2 decimals).
    - ``scaling-sqrt-dk``: the √d_k it is compared with ("√64 = 8"), inside that readout.
    - ``scaling-entropy-unscaled``: ``scaling.entropy_unscaled_label``, mean entropy in bits
      over the model's ``n_trials`` queries, unscaled (2 decimals).
    - ``scaling-entropy-scaled``: ``scaling.entropy_scaled_label``, the same mean after dividing
      by √d_k.
    - ``scaling-sample-entropy-unscaled``, ``scaling-sample-entropy-scaled``: under each chart,
      the entropy in bits of the one query drawn there (``scaling.sample_entropy_*_label``,
      2 decimals).
    - ``scaling-gradient-unscaled``, ``scaling-gradient-scaled``: mean softmax-gradient size
      (3 decimals).
    - ``scaling-dk``: the current d_k; ``scaling-seed``: the current sample number.
    - ``scaling-export-note``: the note on how "New sample" cycles the embedded samples,
      visible only in the offline export (``export_note``, shown by ``enable_client_side``).

    - ``scaling-unscaled-bars``, ``scaling-scaled-bars``: the bars of one sample query over
      its keys (``bars_spec``: a table titled by its ``caption``, a row per key with its
      percentage in ``scaling-unscaled-bars-<key>`` / ``scaling-scaled-bars-<key>`` and a bar).

    Every text is in ``lang``: the catalogue's table ``[scaling]``.
    """

    model = param.ClassSelector(class_=ScalingDemo)

    def __init__(self, **params):
        params.setdefault("model", ScalingDemo())
        super().__init__(**params)
        m = self.model
        # Shown only in the offline export (enable_client_side), where the samples cycle.
        self.export_note_html = (
            '<div class="c04-note" data-testid="scaling-export-note">'
            f"{self.t('scaling.export_note', last=EXPORT_SEEDS - 1)}</div>"
        )
        gradient_note = self.t("scaling.gradient_note", n=m.n_trials)
        header = section_markdown(self.t("scaling.title"), self.t("scaling.intro"))
        self.board = Board(
            layout=[
                prose(header, "c04-prose"),
                row(
                    control("d_k", "range", self.t("scaling.d_k_slider"), css="c04-wide"),
                    control("sample", "button", self.t("scaling.new_sample")),
                    css="c04-controls",
                ),
                slot("status", "note"),
                slot("export_note", "html"),
                slot("readouts", "readouts"),
                prose(self.t("scaling.caption")),
                row(
                    # The drawn query's own entropy, under its bars.
                    column(slot("unscaled_bars", "bars"), slot("unscaled_entropy", "readout")),
                    column(slot("scaled_bars", "bars"), slot("scaled_entropy", "readout")),
                ),
                slot(
                    "gradient_readouts",
                    "readouts",
                    footnote=f'<div class="c04-note">{gradient_note}</div>',
                ),
                slot("announce", "announce"),
            ],
            on_control=self._on_control,
            sizing_mode="stretch_width",
        )
        # Each fragment as the tests read it (a Slot: spec, kind).
        for name in render(m, self.lang):
            setattr(self, "announcer" if name == "announce" else name, self.board.slot(name))
        self.export_note = self.board.slot("export_note")

        self.d_k = self.board.slot("d_k")
        self._refresh()
        m.param.watch(self._on_change, ["d_k", "seed"])

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link (dashboards/sharing/live_link.py); the seed has
        none: "Nueva muestra" steps it."""
        return {"d_k": self.d_k, "seed": None}

    @staticmethod
    def link_export(name: str) -> dict | None:
        """In the export "Nueva muestra" cycles the embedded samples 0 … EXPORT_SEEDS − 1 and
        scaling.js keeps the seed (``setSeed``, ``seed``)."""
        if name == "seed":
            return {"hook": "scaling", "range": [0, EXPORT_SEEDS - 1, 1]}
        return None

    def _on_control(self, name: str, value) -> None:
        """A control's use (Board.receive): "Nueva muestra", or a d_k the model checks."""
        if name == "sample":
            self.new_sample()
        else:
            clients.take("d_k", self.model, "d_k", value)

    def new_sample(self) -> None:
        self.model.seed = (self.model.seed + 1) % 2**32

    def _on_change(self, *events) -> None:
        self._refresh()

    def _refresh(self) -> None:
        """Every slot and both controls from the model, in one change of the board."""
        values = {**render(self.model, self.lang), "d_k": d_k_spec(self.model.d_k), "sample": {}}
        apply_render(self.board.targets(values), values)

    def client_targets(self) -> dict[str, tuple[object, str]]:
        """Target name -> (the board, "board:<slot>"), for the names of ``render``."""
        return self.board.targets(render(self.model, self.lang))

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed every reachable (d_k, seed) and wire the controls; export only.

        States: every stop of the d_k slider × the seeds 0 … EXPORT_SEEDS − 1 (and the model's
        own seed), as ``client_state`` in the page's language (``lang``; from it the browser
        rebuilds ``render``, its texts from the page's catalogue) under
        ``states["scaling"][state_key(d_k, seed)]``. In the export "New sample" goes to the next
        of those seeds, back to 0 after the last (a note says so).
        The controls run ``C04.update("scaling", …)`` (Board.run_offline) with every target,
        ``w_d_k`` (the d_k control: its value is the position of the stop), ``w_sample`` (the
        button), ``options`` (the stops, JSON), ``init`` (the model's seed, JSON), ``n_seeds``
        and ``trigger`` (the control used). Returns the number of embedded states.
        """
        m = self.model
        options = self.d_k.spec["values"]
        seeds = sorted({*range(EXPORT_SEEDS), int(m.seed)})
        table = {
            state_key(d_k, seed): client_state(ScalingDemo(d_k=d_k, seed=seed), self.lang)
            for d_k in options
            for seed in seeds
        }
        if states is not None:
            states["scaling"] = table
        self.export_note.spec = self.export_note_html
        self.board.run_offline(
            "scaling",
            self.client_targets(),
            options=json.dumps(options),
            init=json.dumps({"seed": int(m.seed)}),
            n_seeds=EXPORT_SEEDS,
        )
        return len(table)

    def __panel__(self):
        return self.board


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("escalado")
