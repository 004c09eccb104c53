"""Demo 2: why divide the scores by √d_k.

Everything on screen comes from ``attnmodel.scaling.ScalingDemo``: the typical score, the mean
softmax entropy with and without the factor, the mean gradient size (those three over the model's
``n_trials`` random queries), and the weights of one random query with their own entropy.
:func:`numbers` is those numbers; the browser draws them
(``C04.views.scaling``, dashboards/static/demos/scaling.js: every word from the catalogue's table
``[scaling]``, every number written as the page's language writes it), live and in the export.
"""

from __future__ import annotations

import json

import numpy as np
import panel as pn
import param

from attnmodel.scaling import ScalingDemo
from dashboards.components.board import Board, column, control, prose, row, slot
from dashboards.components.markup import section_markdown
from dashboards.components.render import shared_render
from dashboards.components.views import DemoView
from dashboards.runtime import clients

D_K_OPTIONS = [2**i for i in range(11)]  # 1, 2, 4, …, 1024
# The offline export embeds every (d_k, seed) state for these seeds: "New sample" cycles them.
EXPORT_SEEDS = 10


@shared_render
def numbers(model: ScalingDemo, lang: str = "") -> dict[str, object]:
    """What scaling.js draws, the model's numbers (no text: the browser writes them in the
    page's language), one per session state and per (d_k, seed) the export embeds.

    ``d_k``, ``seed``, ``n`` (the queries the means are over), ``score_std``, and pairs
    [without √d_k, with it]: ``entropy`` (mean, bits), ``gradient`` (mean softmax-gradient
    size), ``sample_entropy`` (the drawn query's own), ``weights`` (the drawn query's weights
    over its keys). ``lang`` is not used: the shared cache's key has it."""
    m = model
    return {
        "d_k": int(m.d_k),
        "seed": int(m.seed),
        "n": int(m.n_trials),
        "score_std": float(m.score_std),
        "entropy": [float(m.entropy_unscaled), float(m.entropy_scaled)],
        "gradient": [float(m.gradient_unscaled), float(m.gradient_scaled)],
        "sample_entropy": [float(m.sample_entropy_unscaled), float(m.sample_entropy_scaled)],
        "weights": [
            np.asarray(m.weights_unscaled, dtype=float).tolist(),
            np.asarray(m.weights_scaled, dtype=float).tolist(),
        ],
    }


def state_key(d_k: int, seed: int) -> str:
    """Key of an embedded state; dashboards/static/demos/scaling.js builds the same string."""
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
      its keys (a table titled by its caption, a row per key with its percentage in
      ``scaling-unscaled-bars-<key>`` / ``scaling-scaled-bars-<key>`` and a bar).

    Every text is in ``lang``: the catalogue's table ``[scaling]``, written by scaling.js.
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
            lang=self.lang,
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
            view="scaling",
            on_control=self._on_control,
            sizing_mode="stretch_width",
        )
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
        scaling.js keeps the seed (links.js's hook: ``linked``, ``setLinked``)."""
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
        """The model's numbers and the d_k control, in one change of the board."""
        with pn.io.hold():
            self.board.state = numbers(self.model)
            self.board.update_specs({"d_k": d_k_spec(self.model.d_k), "sample": {}})

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed every reachable (d_k, seed) and wire the controls; export only.

        States: every stop of the d_k slider × the seeds 0 … EXPORT_SEEDS − 1 (and the model's
        own seed), each its ``numbers``, under ``states["scaling"][state_key(d_k, seed)]``.
        In the export "New sample" goes to the next of those seeds, back to 0 after the last (a
        note says so). A control's use runs ``C04.views.scaling.readState`` (Board.run_offline)
        with ``w_d_k`` (the position of the stop), ``w_sample`` (the button), ``options`` (the
        stops, JSON), ``init`` (the model's seed, JSON), ``n_seeds`` and ``trigger`` (the
        control used). Returns the number of embedded states.
        """
        m = self.model
        options = self.d_k.spec["values"]
        seeds = sorted({*range(EXPORT_SEEDS), int(m.seed)})
        table = {
            state_key(d_k, seed): numbers(ScalingDemo(d_k=d_k, seed=seed))
            for d_k in options
            for seed in seeds
        }
        if states is not None:
            states["scaling"] = table
        self.export_note.spec = self.export_note_html
        self.board.run_offline(
            "scaling",
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
