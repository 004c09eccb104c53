"""«La siguiente palabra»: a real language model (SmolLM2-135M, attnmodel/smollm.py) predicts the
token after the student's text and samples text one token at a time.

Everything on screen comes from ``attnmodel.next_word.NextWordDemo``: the distribution of the
next token as sampling shapes it (temperature, top-k, top-p), the tokens generated with the
seed (each one's distribution kept, to click back through), and one head's attention on the
text or on a repeated random sequence, with the previous-token and induction heads found by
measuring every head there. :func:`numbers` is those numbers; the browser draws them
(``C04.views.next_word``, dashboards/static/demos/next_word.js, every word from the catalogue's
table ``[next_word]``), live and in the export.

The model's work runs in the process's model thread (dashboards/runtime/model_thread.py): the
first use loads it (the section says so meanwhile), and a generation never holds the other
sessions of the worker.

The export cannot run the model: it carries, for the lecture's texts (``LECTURE_PROMPTS``),
the 200 most likely tokens after the text and after every generated token the generations of
:func:`export_tree` reach, every head's map on those texts and the measured heads' maps on the
repeated sequence. With those the page computes exactly what the server would for any
temperature, top-k ≤ 200, top-p and seed, as long as the drawn tokens stay in the tree (the page
says where one leaves it). A typed text needs the server, and the file says so.
"""

from __future__ import annotations

import base64
import logging

import numpy as np
import panel as pn
import param

from attnmodel import smollm
from attnmodel.i18n import DEFAULT_LANG, text
from attnmodel.next_word import (
    LECTURE_PROMPTS,
    MAX_NEW_TOKENS,
    MAX_PROMPT_CHARS,
    TOP_K_MAX,
    NextWordDemo,
    generate,
    measured,
    prompt_attention,
)
from dashboards.components.board import Board, control, prose, row, slot
from dashboards.components.markup import esc, section_markdown
from dashboards.components.render import shared_render
from dashboards.components.style import HEATMAP_CSS
from dashboards.components.views import DemoView
from dashboards.runtime import clients, model_thread

log = logging.getLogger("dashboards.demos.next_word")

STEP_T = 0.05  # the temperature control's step, as the explorer's
STEP_P = 0.05
BURST = 8  # "Generar 8": tokens added by one click

# Every parameter a control sets, checked by the model.
PARAMETERS = ("temperature", "top_k", "top_p", "seed", "layer", "head", "sequence")

CSS = """
.c04-nw-prompt input[type=text] { width: 460px; }
.c04-nw-prompt { max-width: 100%; }
.c04-nw-text { font-size: 115%; line-height: 1.7; }
.c04-nw-text .c04-nw-prompt-text { color: #333; }
.c04-nw-text mark { background: #e8eef7; color: #174a87; padding: 1px 2px; border-radius: 3px; }
.c04-nw-text mark.c04-nw-now { background: #174a87; color: #fff; }
.c04-caveat { border-left: 4px solid #d9a400; background: #fff8e1; padding: 8px 14px;
  color: #333; }
"""


# -- the numbers --------------------------------------------------------------------------------


def distribution(top: smollm.Top, temperature: float, top_k: int, top_p: float) -> dict:
    """The distribution sampling draws from, as the page draws it: the kept tokens (most likely
    first), ``ids``, ``pieces``, ``p`` (after T, top-k and top-p), ``model`` (the model's own
    probability of each, T = 1 and no cut: exp(z − log Σ exp z)), ``entropy`` (of ``p``, bits)
    and ``model_mass`` (the model's probability of the kept tokens together)."""
    p = smollm.shaped_top(top, temperature, top_k, top_p)
    kept = int(np.count_nonzero(p))
    p = p[:kept]
    own = np.exp(np.asarray(top.logits[:kept], dtype=np.float64) - top.lse)
    vocabulary = smollm.tokenizer_model()
    ids = [int(i) for i in top.ids[:kept]]
    return {
        "ids": ids,
        "pieces": [vocabulary.piece(i) for i in ids],
        "p": p.tolist(),
        "model": own.tolist(),
        "entropy": float(-(p * np.log2(p)).sum()),
        "model_mass": float(own.sum()),
    }


def whole_percent(weights: np.ndarray) -> np.ndarray:
    """Whole percentages, halves rounded up: what a map shows (and the export carries), int."""
    return np.floor(100 * np.asarray(weights, dtype=np.float64) + 0.5).astype(int)


def percentages(weights: np.ndarray) -> list[list[int]]:
    return whole_percent(weights).tolist()


def heads_numbers() -> dict:
    """The measured heads: the best previous-token and induction head, [layer, head, score]
    (from 1), and every head's two scores [layer][head] (the repeated sequence's)."""
    m = measured()
    best = {
        name: smollm.best_heads(scores, 1)[0]
        for name, scores in (("previous", m.previous), ("induction", m.induction))
    }
    return {name: [h.layer + 1, h.head + 1, float(h.score)] for name, h in best.items()} | {
        "scores": [
            np.asarray(m.previous, dtype=float).tolist(),
            np.asarray(m.induction, dtype=float).tolist(),
        ]
    }


@shared_render
def numbers(model: NextWordDemo, lang: str = "") -> dict[str, object]:
    """What next_word.js draws (no text, nothing formatted):

    - ``prompt``: the text's tokens (pieces); ``generated``: [{id, piece, u}] the sampled
      tokens and each one's uniform number; ``ended``: the last one is an end token;
    - ``step`` (0 … len(generated)) and ``dist`` (:func:`distribution` of the distribution
      shown: after the text and the first ``step`` generated tokens; null after an end
      token); ``chosen``: the index in ``dist`` of the token drawn from it (-1: none yet);
    - ``attention``: {sequence, tokens, layer, head, percent [n][n]} the chosen head's map;
    - ``heads``: :func:`heads_numbers`.

    ``lang`` is not used: the shared cache's key has it."""
    m = model
    path, _ = m.generation
    step, top = m.shown
    dist = distribution(top, m.temperature, m.top_k, m.top_p) if top is not None else None
    chosen = -1
    if dist is not None and step < len(path):
        chosen = dist["ids"].index(path[step].token)
    tokens, weights = m.attention_map
    return {
        "prompt": list(m.tokens.pieces),
        "generated": [{"id": g.token, "piece": g.piece, "u": g.u} for g in path],
        "ended": bool(path) and path[-1].token in smollm.END_IDS,
        "step": step,
        "dist": dist,
        "chosen": chosen,
        "attention": {
            "sequence": m.sequence,
            "tokens": list(tokens),
            "layer": int(m.layer),
            "head": int(m.head),
            "percent": percentages(weights),
        },
        "heads": heads_numbers(),
    }


# -- the export's tables ------------------------------------------------------------------------

# The generations the export carries for each lecture text: (temperature, top_k, top_p, seeds,
# length). The page follows them exactly; a setting that draws a token off them stops there.
EXPORT_RUNS = (
    (1.0, 50, 1.0, range(4), BURST),  # the defaults, four seeds: "Generar 8" once
    (0.1, 50, 1.0, range(1), BURST),  # nearly greedy
    (0.7, 50, 0.9, range(2), BURST),
)


def _b64(array: np.ndarray, dtype: str) -> str:
    return base64.b64encode(np.ascontiguousarray(array, dtype=dtype).tobytes()).decode("ascii")


def export_tree(prompt: str) -> dict[tuple[int, ...], smollm.Top]:
    """Every token sequence whose next-token top the export carries for ``prompt``: the text,
    and the text followed by each prefix of the generations of ``EXPORT_RUNS``."""
    ids = tuple(smollm.tokenizer_model().tokenize(prompt).ids)
    tree: dict[tuple[int, ...], smollm.Top] = {}
    for temperature, top_k, top_p, seeds, length in EXPORT_RUNS:
        for seed in seeds:
            path, after = generate(ids, length, temperature, top_k, top_p, seed)
            sequence = list(ids)
            for g in path:
                tree[tuple(sequence)] = g.top
                sequence.append(g.token)
            if after is not None:
                tree[tuple(sequence)] = after
    return tree


def export_tables() -> dict:
    """``states["next_word"]``: ``pieces`` [ids (uint16, base64), their texts] of every token
    the tables name;
    ``prompts`` {text: {ids, attention}} with every head's map as whole percentages (uint8,
    base64, [layer][head][i][j]); ``tops`` {"id,id,…": [ids (uint16), logits (float32), lse]}
    (base64, little-endian); ``repeated`` {ids, maps {"layer,head": percentages}} for the
    heads the buttons show; ``heads`` (:func:`heads_numbers`)."""
    vocabulary = smollm.tokenizer_model()
    named: set[int] = set()
    prompts, tops = {}, {}
    for prompt in LECTURE_PROMPTS:
        ids = tuple(vocabulary.tokenize(prompt).ids)
        named.update(ids)
        maps = whole_percent(prompt_attention(ids))
        prompts[prompt] = {"ids": list(ids), "attention": _b64(maps, "u1")}
        for key, top in export_tree(prompt).items():
            named.update(key)
            named.update(int(i) for i in top.ids)
            tops[",".join(map(str, key))] = [
                _b64(top.ids, "<u2"),
                _b64(top.logits, "<f4"),
                float(top.lse),
            ]
    m = measured()
    heads = heads_numbers()
    shown = {(heads[k][0], heads[k][1]) for k in ("previous", "induction")}
    named.update(m.ids)
    repeated = {
        "ids": list(m.ids),
        "maps": {
            f"{layer},{head}": percentages(m.maps[layer - 1, head - 1]) for layer, head in shown
        },
    }
    return {
        "pieces": [
            _b64(np.array(sorted(named)), "<u2"),
            [vocabulary.piece(i) for i in sorted(named)],
        ],
        "prompts": prompts,
        "tops": tops,
        "repeated": repeated,
        "heads": heads,
        "end_ids": list(smollm.END_IDS),
    }


# -- the view -----------------------------------------------------------------------------------


def range_spec(value, start, end, step, decimals: int = 0, lang: str = DEFAULT_LANG) -> dict:
    spec = {"value": value, "start": start, "end": end, "step": step}
    if decimals:
        spec |= {"decimals": decimals, "decimal": text("format.decimal", lang)}
    return spec


def visible(piece: str) -> str:
    """A token as the controls show it: a space as "␣", a new line as "↵" (next_word.js draws
    the same)."""
    return piece.replace(" ", "\u2423").replace("\n", "\u21b5")


class NextWordView(DemoView):
    """The text box and the lecture's texts, T / top-k / top-p, the next token's bars,
    "Generar" with a seed and the generated tokens to click back through, one head's attention
    and the measured heads: one Board (the controls native, board.js).

    Controls (a use is a message checked by the model; a refused value keeps the last valid one):
    ``prompt`` (text, applied on Enter/blur; a refused text stays in the box beside its message,
    ``prompt_error``), ``examples`` (the lecture's texts), ``temperature``, ``top_k``,
    ``top_p``, ``seed``, ``one`` (one more token), ``burst`` (eight more), ``clear``,
    ``step`` (whose distribution is shown), ``layer``, ``head``, ``sequence`` and the buttons
    ``previous_head`` / ``induction_head`` (the measured best head on the repeated sequence).

    data-testids (drawn by next_word.js): ``next-word-bars`` (row i: ``next-word-bars-<i>``),
    ``next-word-readouts``, ``next-word-text``, ``next-word-step``, ``next-word-map``
    (``cell-i-j``), ``next-word-heads``, ``next-word-status`` (loading, failed, the export's
    note).
    """

    model = param.ClassSelector(class_=NextWordDemo)

    def __init__(self, **params):
        params.setdefault("model", NextWordDemo())
        super().__init__(**params)
        t = self.t
        header = section_markdown(t("demo.siguiente"), t("next_word.intro"))
        self.board = Board(
            lang=self.lang,
            view="next_word",
            layout=[
                prose(header, "c04-prose"),
                prose(f'<div class="c04-caveat">{esc(t("next_word.english"))}</div>'),
                row(
                    control("prompt", "text", t("next_word.prompt"), css="c04-nw-prompt"),
                    slot("prompt_error", "note"),
                    css="c04-controls",
                ),
                control("examples", "choice", t("next_word.examples")),
                slot("status", "note"),
                prose(t("next_word.shaping")),
                row(
                    control("temperature", "range", t("next_word.temperature"), css="c04-wide"),
                    control("top_k", "range", t("next_word.top_k"), css="c04-wide"),
                    control("top_p", "range", t("next_word.top_p"), css="c04-wide"),
                    css="c04-controls",
                ),
                slot("readouts", "readouts"),
                slot("bars", "bars"),
                prose(t("next_word.sampling")),
                row(
                    control("seed", "number", t("next_word.seed")),
                    control("one", "button", t("next_word.one")),
                    control("burst", "button", t("next_word.burst", n=BURST)),
                    control("clear", "button", t("next_word.clear")),
                    css="c04-controls",
                ),
                slot("text", "note"),
                control("step", "choice", t("next_word.step")),
                slot("step_note", "note"),
                prose(t("next_word.attention")),
                row(
                    control("sequence", "choice", t("next_word.sequence")),
                    control("layer", "range", t("next_word.layer"), css="c04-wide"),
                    control("head", "range", t("next_word.head")),
                    css="c04-controls",
                ),
                row(
                    control("previous_head", "button", t("next_word.previous_head")),
                    control("induction_head", "button", t("next_word.induction_head")),
                    css="c04-controls",
                ),
                slot("heads", "note"),
                slot("map_note", "note"),
                slot("map", "heatmap"),
                slot("announce", "announce"),
            ],
            on_control=self._on_control,
            stylesheets=[HEATMAP_CSS + CSS],
            sizing_mode="stretch_width",
        )
        self.jobs = model_thread.Jobs()
        self._show(prompt=True)
        self.model.param.watch(self._on_model, ["prompt", *PARAMETERS, "length", "step"])

    # -- controls -> model -----------------------------------------------------------------

    def _on_control(self, name: str, value) -> None:
        m = self.model
        if name == "prompt":
            self._on_prompt(value)
        elif name == "examples":
            if type(value) is not int or not 0 <= value < len(LECTURE_PROMPTS):
                clients.refused(name, {"examples": value}, "no es uno de los textos")
                return
            self._take_prompt(LECTURE_PROMPTS[value])
        elif name in PARAMETERS:
            clients.take(name, m, name, value)
        elif name == "step":
            if clients.take(name, m, "step", value) and m.step > m.length:
                m.step = m.length
        elif name in ("one", "burst"):
            # From the numbers on screen, not the model's (that would run it on this loop).
            if self.board.state.get("ended"):  # an end token: nothing follows it
                return
            length = min(MAX_NEW_TOKENS, m.length + (1 if name == "one" else BURST))
            m.param.update(length=length, step=length)
        elif name == "clear":
            m.param.update(length=0, step=0)
        else:  # previous_head, induction_head: the heads measured, as on screen
            heads = self.board.state.get("heads")
            if heads is None:  # not drawn yet (the model is loading)
                return
            best = heads["previous" if name == "previous_head" else "induction"]
            m.param.update(sequence="repeated", layer=best[0], head=best[1])

    def _on_prompt(self, value) -> None:
        if not isinstance(value, str):
            clients.refused("prompt", {"prompt": value}, "no es un texto")
            return
        self._take_prompt(value)

    def _take_prompt(self, value: str) -> None:
        if not model_thread.ready() and value != self.model.prompt:
            # Checking a text needs the tokenizer, which the model thread is still loading
            # (the first time on a machine it builds the cache): not on the session's loop.
            self._refuse_prompt(value, self.t("next_word.loading"))
            return
        try:
            # A new text starts without generated tokens (the same text again keeps them).
            new = {} if value == self.model.prompt else {"length": 0, "step": 0}
            self.model.param.update(prompt=value, **new)
        except ValueError as exc:
            log.info("Texto rechazado: %s", clients.brief(str(exc)))
            self._refuse_prompt(value, f"{self.say(exc)} {self.t('next_word.kept')}")
            return
        self._show(prompt=True)

    def _refuse_prompt(self, value: str, message: str) -> None:
        """The typed text stays in the box, to be corrected, beside ``message``."""
        error = {"testid": "next-word-prompt-error", "cls": "c04-error", "text": message}
        self.board.update_specs({"prompt": self._prompt_spec(value), "prompt_error": error})

    # -- model -> board --------------------------------------------------------------------

    def _on_model(self, *events) -> None:
        self._show(prompt="prompt" in {e.name for e in events})

    def _prompt_spec(self, shown: str) -> dict:
        return {
            "value": shown,
            "placeholder": self.t("next_word.placeholder"),
            "max_length": MAX_PROMPT_CHARS,
        }

    def control_specs(self) -> dict:
        """Every control on the model's values (the step's options follow the numbers)."""
        m = self.model
        return {
            "examples": {
                "value": LECTURE_PROMPTS.index(m.prompt) if m.prompt in LECTURE_PROMPTS else None,
                "options": [[i, p] for i, p in enumerate(LECTURE_PROMPTS)],
            },
            "temperature": range_spec(m.temperature, 0.1, 3.0, STEP_T, 2, self.lang),
            "top_k": range_spec(m.top_k, 1, TOP_K_MAX, 1),
            "top_p": range_spec(m.top_p, 0.05, 1.0, STEP_P, 2, self.lang),
            "seed": range_spec(m.seed, 0, 2**31 - 1, 1),
            "one": {},
            "burst": {},
            "clear": {},
            "layer": range_spec(m.layer, 1, smollm.N_LAYERS, 1),
            "head": range_spec(m.head, 1, smollm.N_HEADS, 1),
            "sequence": {
                "value": m.sequence,
                "options": [
                    ["prompt", self.t("next_word.sequence_prompt")],
                    ["repeated", self.t("next_word.sequence_repeated")],
                ],
            },
            "previous_head": {},
            "induction_head": {},
        }

    def _show(self, prompt: bool = False) -> None:
        """The controls now, the numbers when the model thread has them."""
        specs = self.control_specs()
        if prompt:
            specs["prompt"] = self._prompt_spec(self.model.prompt)
            specs["prompt_error"] = {}
        if not model_thread.ready():
            specs["status"] = self._note("next_word.loading")
        with pn.io.hold():
            self.board.update_specs(specs)
        values = {k: v for k, v in self.model.param.values().items() if k != "name"}
        self.jobs.submit(lambda: numbers(NextWordDemo(**values)), self._done, self._failed)

    def _note(self, key: str) -> dict:
        return {"testid": "next-word-status", "cls": "c04-note", "text": self.t(key)}

    def _done(self, state: dict) -> None:
        with pn.io.hold():
            self.board.state = state
            self.board.update_specs({"step": self._step_spec(state), "status": {}})

    def _failed(self, exc: BaseException) -> None:
        missing = isinstance(exc, smollm.ModelMissing)
        self.board.update_specs(
            {"status": self._note(f"next_word.{'missing' if missing else 'failed'}")}
        )

    def _step_spec(self, state: dict) -> dict:
        """The step chooser: option i < n is the draw of generated token i + 1 (its label that
        token), option n the distribution after the last one (after the text when none)."""
        generated = state["generated"]
        n = len(generated)
        last = "after_text" if n == 0 else "end_option" if state["ended"] else "next_option"
        options = [[i, f"{i + 1} · {visible(g['piece'])}"] for i, g in enumerate(generated)]
        return {"value": state["step"], "options": [*options, [n, self.t(f"next_word.{last}")]]}

    # -- the export ------------------------------------------------------------------------

    def enable_client_side(self, states: dict | None = None) -> int:
        """Embed :func:`export_tables` (``states["next_word"]``) and wire every control to
        ``C04.views.next_word.readState`` (Board.run_offline). Returns the number of
        embedded next-token tops."""
        tables = export_tables()
        if states is not None:
            states["next_word"] = tables
        self.board.update_specs({"status": self._note("next_word.export_note")})
        self.board.run_offline("next_word", burst=BURST, max_new=MAX_NEW_TOKENS)
        return len(tables["tops"])

    def link_widgets(self) -> dict[str, object]:
        """The control of each parameter in the link; the generated length has none (the
        buttons step it)."""
        widgets = {name: self.board.slot(name) for name in ("prompt", *PARAMETERS, "step")}
        return widgets | {"length": None}

    @staticmethod
    def link_export(name: str) -> dict | None:
        """The texts the file can show (links.js refuses another one); the generated length is
        kept by next_word.js (links.js's hook: ``linked``, ``setLinked``), 0 to 24."""
        if name == "prompt":  # the file has the model's numbers of the lecture's texts only
            return {"max_chars": MAX_PROMPT_CHARS, "texts": list(LECTURE_PROMPTS)}
        if name == "length":
            return {"hook": "next_word", "range": [0, MAX_NEW_TOKENS, 1]}
        return None

    def __panel__(self):
        return self.board


if __name__.startswith("bokeh_app"):  # run as its own app (/<module>): the app shell serves it
    from dashboards.app.standalone import serve_demo

    serve_demo("siguiente")
