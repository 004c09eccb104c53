"""The registry of demos: the one list the lecture, the export, the served apps and the tests read.

A demo is a model (``attnmodel``), a view (``dashboards/demos/<module>.py``, which is also the
demo's standalone app at ``/<module>``; its browser code ``dashboards/static/demos/<module>.js``)
and a title per language (``demo.<id>`` in
``attnmodel/locales/<lang>.toml``). A section of the lecture shows one or more demos under one
navigation entry (``section.<id>``); the last section, "jugar", shows the exercises.

Adding a demo: its model, its view module ending in ``serve_demo("<id>")`` (imported there, in
the block that runs only when the module is served as its own app), one ``Demo`` line
here (and a ``Section`` line if it opens a section of its own), its titles in the catalogues.

No Panel import here: ``dashboards.serving`` (the serve command) reads ``APPS`` without it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import attnmodel
from attnmodel.i18n import DEFAULT_LANG, text
from attnmodel.self_attention import CUSTOM


@dataclass(frozen=True)
class Demo:
    id: str  # marker (data-testid="section-<id>") and anchor; title: demo.<id>
    module: str  # dashboards/demos/<module>.py; the Lecture keeps the model as .<module>
    view: str  # the pn.viewable.Viewer class in that module, built with model=…
    model: str  # the attnmodel class
    # The model's parameters in the link (dashboards/sharing/links.py), in the order they are
    # applied: every one a control can change.
    link: tuple[str, ...] = ()
    # (parameter, other, value): the parameter is in the link only while other == value.
    link_if: tuple[tuple[str, str, object], ...] = ()
    # The toggles and choices whose change leaves the numbers before it in view, faded
    # ("antes → ahora", dashboards/static/markup.js); a subset of ``link``.
    compare: tuple[str, ...] = ()

    @property
    def app(self) -> str:
        return f"dashboards/demos/{self.module}.py"

    @property
    def import_name(self) -> str:
        return f"dashboards.demos.{self.module}"

    def view_class(self) -> type:
        return getattr(importlib.import_module(self.import_name), self.view)

    def model_class(self) -> type:
        return getattr(attnmodel, self.model)

    def available(self) -> bool:
        """False when the model's optional data are not installed (MiniLM's weights: its
        ``installed()``); the export leaves such a demo's section out."""
        installed = getattr(self.model_class(), "installed", None)
        return installed is None or bool(installed())

    def title(self, lang: str = DEFAULT_LANG) -> str:
        return text(f"demo.{self.id}", lang)


@dataclass(frozen=True)
class Section:
    id: str  # ?seccion=<id>, the navigation's value; label: section.<id>
    demos: tuple[str, ...]  # Demo ids, in the order shown; () for the exercises

    def label(self, lang: str = DEFAULT_LANG) -> str:
        return text(f"section.{self.id}", lang)


_MATRICES = ("X", "W_Q", "W_K", "W_V")

DEMOS = (
    Demo(
        "autoatencion",
        "self_attention",
        "SelfAttentionView",
        "SelfAttention",
        # A preset sets the matrices: they are in the link only when they are the student's own.
        link=("preset", *_MATRICES, "causal", "scaled"),
        link_if=tuple((m, "preset", CUSTOM) for m in _MATRICES),
        compare=("preset", "causal", "scaled"),
    ),
    Demo(
        "escalado", "scaling", "ScalingView", "ScalingDemo", link=("d_k", "seed"), compare=("d_k",)
    ),
    # arc_threshold has no control (the view's fixed 10 %): not in the link.
    Demo(
        "cabezas",
        "multihead",
        "MultiHeadView",
        "MultiHeadDemo",
        link=("sentence", "n_heads"),
    ),
    Demo(
        "posicion",
        "positional",
        "PositionalView",
        "PositionalEncodingDemo",
        link=("n_positions", "d_model"),
    ),
    # The country sets the identity: the identity after it.
    Demo(
        "capital",
        "capital",
        "CapitalView",
        "CapitalWalkthrough",
        link=("country", "identity"),
        compare=("country",),
    ),
    # The seed picks the run; the step and the probe read it.
    Demo(
        "entrenamiento",
        "training",
        "TrainingView",
        "TrainingDemo",
        link=("seed", "step", "country"),
    ),
    Demo(
        "explorador",
        "explorer",
        "ExplorerView",
        "AttentionExplorer",
        # The sentence clamps the focus: the focus after it.
        link=("sentence", "focus", "temperature", "positional", "causal"),
        compare=("temperature", "positional", "causal"),
    ),
    # A real pretrained Transformer; the chosen head (layer, head) is the grid's, not the link's.
    Demo(
        "modelo",
        "minilm",
        "MiniLMView",
        "MiniLMDemo",
        link=("sentence", "toy_sentence"),
    ),
    # A real language model: the text first (a new text clears what was generated), the
    # sampling's settings, then what was generated with them and which step is shown.
    Demo(
        "siguiente",
        "next_word",
        "NextWordView",
        "NextWordDemo",
        link=(
            "prompt",
            "temperature",
            "top_k",
            "top_p",
            "seed",
            "length",
            "step",
            "sequence",
            "layer",
            "head",
        ),
    ),
    # One Transformer block, step by step: the model sets its prompt, then the layer and step.
    Demo("bloque", "block", "BlockView", "BlockDemo", link=("which", "prompt", "layer", "step")),
)

# The lecture numbers the demos as the seed does: 1 autoatención (with √d_k), 2 cabezas,
# 3 posición, 4 la capital, 5 where W_Q and W_K come from; then the explorer, the real model
# (MiniLM) and the exercises.
SECTIONS = (
    Section("autoatencion", ("autoatencion", "escalado")),
    Section("cabezas", ("cabezas",)),
    Section("posicion", ("posicion",)),
    Section("capital", ("capital",)),
    Section("entrenamiento", ("entrenamiento",)),
    Section("explorador", ("explorador",)),
    Section("modelo", ("modelo",)),
    Section("siguiente", ("siguiente", "bloque")),
    Section("jugar", ()),
)

# The servable lecture (the index page of `panel serve`), then each demo on its own.
LECTURE_APP = "lecture"
APPS = (LECTURE_APP, *(d.module for d in DEMOS))
# Their scripts, as `panel serve` takes them (it names each app after its file: /lecture, …).
APP_FILES = ("dashboards/app/lecture.py", *(d.app for d in DEMOS))

_DEMOS = {d.id: d for d in DEMOS}
# A demo that is not the first of its section opens that section (?seccion=escalado).
ALIASES = {d: s.id for s in SECTIONS for d in s.demos if d != s.id}


def demo(demo_id: str) -> Demo:
    return _DEMOS[demo_id]


def section_demos(section: Section) -> tuple[Demo, ...]:
    return tuple(_DEMOS[d] for d in section.demos)


# The catalogue's tables the browser code reads (C04.t), served pages and export alike: number
# format, input and model messages, each demo's own table (named as its module). The rest
# (lecture, exercises, export, worked examples) is written into the page by Python: not embedded
# again (~8 KB a page).
BROWSER_TABLES = ("format", "input", "core", "a11y", "links", *(d.module for d in DEMOS))
