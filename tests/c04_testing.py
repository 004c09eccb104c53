"""Helpers shared by the tests and the benches: HTML parsing, Chromium, page watching and polling.

Plain functions, classes and constants only; fixtures live in the conftest.py files. pytest puts
this folder on sys.path (``pythonpath = ["tests"]`` in pyproject.toml), so a test module imports
it as ``from c04_testing import ...`` (with ``--import-mode=importlib`` test modules cannot import
each other). The root conftest.py registers it for pytest's assertion rewriting. The browser
benches (bench/bench_browser.py, bench/bench_export.py) and scripts/screenshots.py put this folder
on sys.path and import the browser part: CHROMIUM and its flags, PageWatch, DEEP_FIND_JS. The
serve command they all run is dashboards/serving.py's.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from attnmodel import i18n
from attnmodel.formatting import es_percent, number, percent
from attnmodel.i18n import DEFAULT_LANG
from attnmodel.training import N_HEADS
from dashboards.components import mathml

# ---------------------------------------------------------------------------------------------
# A fresh interpreter

# The packages the models must never import (they drive the tests, the handout and the docs).
UI_PACKAGES = ("panel", "bokeh")
# A Python expression, for a script run by ``run_fresh``: the UI modules imported so far.
UI_MODULES = f"sorted(m for m in sys.modules if m.split('.')[0] in {set(UI_PACKAGES)!r})"


def run_fresh(script: str, timeout: float = 120) -> dict:
    """Run ``script`` in a new Python process (nothing imported yet) and read the last line it
    prints as JSON; its error output is the failure message."""
    completed = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=timeout
    )
    assert completed.returncode == 0, completed.stderr
    return json.loads(completed.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# HTML without a browser


class _Table(HTMLParser):
    """Rows of cell texts of the table with a given data-testid (nested tables included)."""

    def __init__(self, testid: str, cells: tuple[str, ...], skip_class: str | None):
        super().__init__()
        self.testid, self.depth, self.rows, self._cell = testid, 0, [], None
        self.cells, self.skip_class = cells, skip_class

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table" and (self.depth or attrs.get("data-testid") == self.testid):
            self.depth += 1
        elif self.depth and tag == "tr":
            self.rows.append([])
        elif self.depth and tag in self.cells:
            classes = (attrs.get("class") or "").split()
            if self.skip_class is None or self.skip_class not in classes:
                self._cell = ""

    def handle_endtag(self, tag):
        if tag == "table" and self.depth:
            self.depth -= 1
        elif self.depth and tag in self.cells and self._cell is not None:
            self.rows[-1].append(self._cell.strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def table(
    markup: str, testid: str, *, headers: bool = True, skip_class: str | None = None
) -> list[list[str]]:
    """The rows of cell texts (stripped) of the table with data-testid ``testid`` in ``markup``.

    ``headers=True`` reads <th> and <td> cells, every row kept. ``headers=False`` reads only the
    <td> cells and leaves out the rows that have none (the header rows). Cells whose class list
    holds ``skip_class`` (the Σ column, "c04-sum") are left out. Fails if there is no such table.
    """
    parser = _Table(testid, ("td", "th") if headers else ("td",), skip_class)
    parser.feed(markup)
    rows = parser.rows if headers else [row for row in parser.rows if row]
    assert rows, f"no table {testid!r}"
    return rows


def spec_rows(spec: dict) -> list[list[str]]:
    """The rows a ``C04.markup`` matrix or bars spec shows (dashboards/static/markup.js): a
    matrix row's cell texts, "−∞" for a masked cell and no Σ; a bars row's value."""
    if "cols" in spec:
        return [["−∞" if c is None else c for c in row["cells"]] for row in spec["rows"]]
    return [[row["value"]] for row in spec["rows"]]


def _numbers(values) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _close(a, b, tol: float) -> bool:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return bool(np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True))


def _twin_diff(python, js, tol: float, path: tuple) -> tuple | None:
    # (path, what differs) of the first difference, or None; the path is formatted only then.
    if isinstance(python, dict):
        if not isinstance(js, dict) or sorted(js) != sorted(python):
            return path, f"keys {list(js) if isinstance(js, dict) else js!r} != {list(python)}"
        for key, value in python.items():
            found = _twin_diff(value, js[key], tol, (*path, key))
            if found:
                return found
    elif isinstance(python, list | tuple | np.ndarray):
        if not isinstance(js, list) or len(js) != len(python):
            return path, f"{js!r} != {python!r}"
        if len(python) and _numbers(python) and _numbers(js):  # a row of numbers at once
            return None if _close(js, python, tol) else (path, f"{js!r} != {python!r}")
        for i, (p, j) in enumerate(zip(python, js, strict=True)):
            found = _twin_diff(p, j, tol, (*path, i))
            if found:
                return found
    elif isinstance(python, str | bool | type(None)) or isinstance(js, str | bool | type(None)):
        if js != python:
            return path, f"JS {js!r} != Python {python!r}"
    elif not _close(js, python, tol):
        return path, f"JS {js!r} != Python {python!r}"
    return None


def assert_twin_equal(python, js, where: str, tol: float = 1e-12) -> None:
    """A browser twin's output (JSON back from the page) equals Python's: same keys and lengths,
    the same texts, booleans and nulls, numbers within ``tol`` (absolute and relative)."""
    found = _twin_diff(python, js, tol, ())
    assert found is None, f"{where} at {found[0]}: {found[1]}" if found else ""


def label_text(label, without_lang: str | None = None) -> str:
    """A spec's label as text: a text, {html} (the catalogue's own text, markup kept), {text,
    …} (an element around a label) or a list of those, joined as markup.js joins them."""
    return _label(label, without_lang)


def spec_find(spec, testid: str) -> dict:
    """The part of a spec (a readout, a field) that carries data-testid ``testid``."""
    if isinstance(spec, dict):
        if spec.get("testid") == testid:
            return spec
        values = spec.values()
    elif isinstance(spec, list):
        values = spec
    else:
        values = ()
    for value in values:
        if isinstance(value, dict | list):
            try:
                return spec_find(value, testid)
            except LookupError:
                pass
    raise LookupError(f"no {testid!r} in the spec")


def spec_table(spec: dict) -> list[list[str]]:
    """The rows of cell texts of the table markup.js draws from a matrix spec, header row and
    row labels included (as ``table(markup, testid)`` reads an HTML table)."""
    sums = any(row["sum"] is not None for row in spec["rows"])
    head = ["", *(label_text(c) for c in spec["cols"])] + ([""] if sums else [])
    rows = [head]
    for row in spec["rows"]:
        cells = ["−∞" if c is None else c for c in row["cells"]]
        total = [f"Σ = {row['sum']}"] if row["sum"] is not None else []
        rows.append([label_text(row["label"]), *cells, *total])
    return rows


def drawn(page, *pairs) -> list[str]:
    """The HTML of (kind, spec) pairs as the page's own markup.js draws them."""
    return page.evaluate(
        "(items) => items.map(([kind, spec]) => C04.markup[kind](spec))", [list(p) for p in pairs]
    )


def spec_td_texts(spec: dict) -> list[str]:
    """The <td> texts, in order, of the table that markup.js draws from a matrix or bars spec
    (matrix: cells, "−∞" when masked, then "Σ = …"; bars: value, the bar, the note)."""
    out = []
    for row in spec["rows"]:
        if "cols" in spec:
            out += ["−∞" if c is None else c for c in row["cells"]]
            if row["sum"] is not None:
                out.append(f"Σ = {row['sum']}")
        else:
            out += [row["value"], "", row["note"]]
    return out


# The keys of a spec whose value is one label (markup.js label(): a text in segments).
LABEL_KEYS = frozenset({"label", "value", "unit", "text", "title", "note", "corner", "head"})


def _label(value, without_lang: str | None) -> str:
    if isinstance(value, list):
        return "".join(_label(v, without_lang) for v in value)
    if isinstance(value, dict):
        if "html" in value:
            return value["html"]
        if without_lang is not None and value.get("lang") == without_lang:
            return ""
        return _label(value.get("text"), without_lang)
    return "" if value is None else str(value)


def spec_text(spec, without_lang: str | None = None) -> str:
    """Every text of a spec, one per line (a label's segments joined, as markup.js writes
    them): what its markup shows, for ``in`` checks. With ``without_lang``, the words kept in
    that language ({"text", "lang"}) are left out."""
    if isinstance(spec, dict):
        if "html" in spec or set(spec) <= {"text", "lang", "testid", "tag"}:  # one label
            return _label(spec, without_lang)
        texts = [
            _label(v, without_lang) if k in LABEL_KEYS else spec_text(v, without_lang)
            for k, v in spec.items()
            if k not in ("testid", "shade", "width", "widths", "weights", "cls")
        ]
    elif isinstance(spec, list):
        texts = [spec_text(v, without_lang) for v in spec]
    else:
        return "" if spec is None or isinstance(spec, bool | int | float) else str(spec)
    return "\n".join(t for t in texts if t)


class ByTestid(HTMLParser):
    """Text and class of every element carrying a data-testid (nested ones included).

    With ``prefixes``, only the data-testids starting with one of them count.
    """

    def __init__(self, prefixes: tuple[str, ...] | None = None):
        super().__init__()
        self.prefixes = prefixes
        self.texts: dict[str, str] = {}
        self.classes: dict[str, str] = {}
        self._open: list[tuple[str, str | None]] = []  # (tag, testid)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        testid = attrs.get("data-testid")
        if (
            testid is not None
            and self.prefixes is not None
            and not testid.startswith(self.prefixes)
        ):
            testid = None
        if testid is not None:
            self.texts[testid] = ""
            self.classes[testid] = attrs.get("class") or ""
        self._open.append((tag, testid))

    def handle_endtag(self, tag):
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data):
        for _, testid in self._open:
            if testid is not None:
                self.texts[testid] += data


def by_testid(*markup: str, prefixes: tuple[str, ...] | None = None) -> ByTestid:
    """``markup`` (one or more HTML strings, fed in order) parsed by a ByTestid parser."""
    parser = ByTestid(prefixes)
    for piece in markup:
        parser.feed(piece)
    return parser


class _ElementTexts(HTMLParser):
    def __init__(self, tag: str, inside: str | None):
        super().__init__()
        self.tag, self.inside = tag, inside
        self.texts: list[str] = []
        self._inside = inside is None
        self._in_tag = False

    def handle_starttag(self, tag, attrs):
        self._inside |= tag == self.inside
        if self._inside and tag == self.tag:
            self._in_tag = True
            self.texts.append("")

    def handle_endtag(self, tag):
        if tag == self.inside:
            self._inside = False
        if tag == self.tag:
            self._in_tag = False

    def handle_data(self, data):
        if self._in_tag:
            self.texts[-1] += data


def element_texts(markup: str, tag: str, inside: str | None = None) -> list[str]:
    """The text of every <tag> element of ``markup`` (only those within <inside>, if given)."""
    parser = _ElementTexts(tag, inside)
    parser.feed(markup)
    return parser.texts


def expected_top(model, weights) -> list[str]:
    """A multihead "top" list: for each token, the token it attends most and that weight."""
    tokens, w = model.tokens, np.asarray(weights)
    return [
        f"{tokens[i]} → {tokens[int(np.argmax(w[i]))]} {es_percent(w[i].max())}"
        for i in range(len(tokens))
    ]


def multihead_plot_texts(lang: str = "es") -> dict[str, str]:
    """The texts of every head's drawing of "Varias cabezas", from the catalogue."""
    from attnmodel.i18n import text

    return {
        "arcs": text("a11y.plot.multihead_arcs", lang),
        "matrix": text("a11y.plot.multihead_heat", lang),
        "key_axis": text("multihead.key_axis", lang),
        "query_axis": text("multihead.query_axis", lang),
        "query": text("multihead.hover_query", lang),
        "key": text("multihead.hover_key", lang),
        "weight": "α",
    }


def threshold_arcs(weights, threshold: float) -> list[tuple[int, int]]:
    """(i, j) of every α_ij ≥ threshold, row by row: the arcs a head's drawing draws."""
    w = np.asarray(weights)
    n = w.shape[0]
    return [(i, j) for i in range(n) for j in range(n) if w[i, j] >= threshold]


def expected_plots(model, lang: str = "es") -> dict[str, dict]:
    """What each head drawing of "Varias cabezas" shows for ``model`` ("plot_<k>" of the heads,
    "plot_suma" of their mean; the colour aside), from the model and the catalogue: the
    tokens (marked lang="es" on a page in another language), the weights, the arcs (every α_ij
    ≥ the threshold, row by row), each cell's number from the threshold on, each tooltip
    "0,97 (97 %)" and the drawing's texts."""
    tokens = model.tokens if lang == "es" else [{"text": t, "lang": "es"} for t in model.tokens]
    texts = multihead_plot_texts(lang)

    def plot(weights, testid: str) -> dict:
        w = np.asarray(weights, dtype=float).tolist()
        threshold = model.arc_threshold
        return {
            "testid": testid,
            "tokens": tokens,
            "weights": w,
            "arcs": [[i, j] for i, j in threshold_arcs(w, threshold)],
            "cells": [[number(a, lang=lang) if a >= threshold else "" for a in row] for row in w],
            "tips": [
                [f"{number(a, lang=lang)} ({percent(a, lang=lang)})" for a in row] for row in w
            ],
            "texts": texts,
        }

    plots = {f"plot_{k + 1}": plot(w, f"head-{k + 1}-plot") for k, w in enumerate(model.weights)}
    return {**plots, "plot_suma": plot(model.combined, "combined-plot")}


# ---------------------------------------------------------------------------------------------
# Headings as the page shows them

# Markup and math that Markdown or MathML render as something else: "¿Por qué dividir por
# √d_k?" shows "√d_k" as a formula, "La capital de ___ es …" shows "___" as a rule or emphasis.
_RENDERED_OTHERWISE = re.compile(r"[#*_$\\√…\"“”«»]")


def heading_text(catalogue_text: str) -> str:
    """The longest stretch of a catalogue heading that the page shows verbatim, for
    ``get_by_text``: tests take headings from the registry and catalogue, never retype them."""
    return max(_RENDERED_OTHERWISE.split(catalogue_text), key=lambda s: len(s.strip())).strip()


# ---------------------------------------------------------------------------------------------
# Languages: no Spanish left on an English page


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[^\W\d_]{4,}", text)}


# Common Spanish words, so that text not yet in the catalogue is caught too.
COMMON_SPANISH = _words(
    """para cada como sobre entre desde hasta porque está están también cuando donde pero esta
    este estos estas otra otro todas todos hace puede tiene aquí ahora nada muestra fila filas
    columna columnas casilla casillas número números valor valores cabeza cabezas frase palabra
    palabras escribe pulsa consulta llave llaves peso pesos suma media mayor menor ninguna según
    mismo misma mismos mismas sólo siempre nunca después antes"""
)


_KEPT_SPANISH = re.compile(r'<(\w+)\b[^>]*\blang="es"[^>]*>.*?</\1>', re.S)


def spanish_only_words(lang: str = "en") -> set[str]:
    """Words of four letters or more that the Spanish catalogue uses and the ``lang`` one does
    not ("casilla", "cabeza", "mantiene"), and common Spanish words: what must not appear on a
    page in ``lang`` (a word Portuguese shares with Spanish, "matriz", "para", is not caught)."""
    from attnmodel.i18n import catalogue

    # The page language's words, outside the Spanish it quotes on purpose (lang="es").
    own = _words(_KEPT_SPANISH.sub(" ", " ".join(catalogue(lang).values())))
    spanish = re.sub(r"<[^>]+>", " ", " ".join(catalogue("es").values()))  # words, not markup
    return (_words(spanish) | COMMON_SPANISH) - own


def spanish_words_left(markup: str, lang: str = "en") -> set[str]:
    """The Spanish-only words in ``markup`` (HTML or plain text), outside the examples kept in
    Spanish on purpose: an element marked ``lang="es"`` on a page in ``lang``."""
    kept_out = _KEPT_SPANISH.sub(" ", html.unescape(markup))  # panes' text comes escaped
    plain = html.unescape(re.sub(r"<[^>]+>", " ", kept_out))
    return _words(plain) & spanish_only_words(lang)


# The Bokeh/Panel properties that hold text a reader meets (not names, classes, code, values).
READER_PROPERTIES = frozenset(
    {
        "text",
        "title",
        "label",
        "labels",
        "options",
        "placeholder",
        "axis_label",
        "tooltips",
        "description",
        "content",
    }
)


def _layout_slots(nodes) -> list[str]:
    """The slot names of a Board's layout (as Bokeh holds it: a node may be a map)."""
    found = []
    for node in nodes or []:
        node = dict(node)
        if "slot" in node:
            found.append(node["slot"])
        for key in ("row", "col", "box"):
            found += _layout_slots(node.get(key))
    return found


def viewable_texts(viewable) -> str:
    """The text a student reads in a Panel viewable, from the Bokeh models it renders to: panes,
    widget labels and options, placeholders, titles, axis labels, hover tooltips. Not values
    (what the student typed or chose), names, CSS classes, code or the data drawn on canvas."""
    import panel as pn
    from bokeh.document import Document

    root = pn.panel(viewable).get_root(Document())
    texts: list[str] = []

    def collect(value) -> None:
        if isinstance(value, str):
            texts.append(value)
        elif isinstance(value, list | tuple):
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                collect(key)
                collect(item)

    models = root.references()
    # What sits in an element marked lang="es" is an example kept in Spanish on purpose.
    kept = {
        id(inner)
        for model in models
        if (getattr(model, "html_attributes", None) or {}).get("lang") == "es"
        for inner in model.references()
    }
    for model in models:
        if id(model) in kept:
            continue
        for name, value in model.properties_with_values(include_defaults=False).items():
            if name == "options":  # (value, label) pairs: the label is what is read
                value = [o[1] if isinstance(o, tuple | list) else o for o in value]
            elif name == "tooltips" and isinstance(value, list):  # (label, "@field") pairs
                value = [t[0] if isinstance(t, tuple | list) else t for t in value]
            if name == "spec_json":  # a Markup component's fragment: its texts (markup.js)
                collect(spec_text(json.loads(value or "{}"), without_lang="es"))
            elif name == "specs_json":  # a Board's fragments ("html" slots: their HTML)
                # Its controls' texts are the layout's (board_texts: labels, options).
                controls = set(board_labels(model))
                for slot_name, spec in json.loads(value or "{}").items():
                    if slot_name in controls:
                        continue
                    collect(spec if isinstance(spec, str) else spec_text(spec, without_lang="es"))
            elif name == "state_json" and value and getattr(model, "view", ""):
                # A Board drawn by its view: the texts of its drawing (tests/c04_views.py).
                from c04_views import js_views

                lang = getattr(viewable, "lang", "es")
                drawing = js_views(lang).render(model.view, json.loads(value))
                slots = set(_layout_slots(model.layout)) - set(board_labels(model))
                for slot_name, spec in drawing.items():
                    if slot_name in slots:
                        collect(spec_text(spec, without_lang="es"))
            elif name == "layout" and hasattr(model, "specs_json"):  # a Board's fixed texts
                collect(board_texts(model))
            elif name in READER_PROPERTIES:
                collect(value)
    return "\n".join(texts)


# The tables of the self-attention demo, by data-testid, in the order the view shows them.
SA_TABLES = ("sa-Q", "sa-K", "sa-V", "sa-scores", "sa-weights", "sa-Z", "sa-gradient")


# JS statements for the start of a page function body: hosts(selector, root) lists every element
# matching selector, shadow roots included; paneText(host) is the text of a Panel pane's content;
# out is the {tables, errors, cells} snapshot of the self-attention demo to fill in.
SA_SNAPSHOT_START_JS = """\
  function hosts(selector, root = document, out = []) {
    for (const node of root.querySelectorAll('*')) {
      if (node.matches(selector)) out.push(node);
      if (node.shadowRoot) hosts(selector, node.shadowRoot, out);
    }
    return out;
  }
  const paneText = (host) => [...host.shadowRoot.children]
    .filter((c) => c.tagName === 'DIV').map((c) => c.textContent).join('');
  const out = {tables: {}, errors: {}, cells: {}};
"""


def board_texts(board, specs: bool = False) -> list[str]:
    """A Board's fixed texts (HTML), in the layout's order: each slot's caption and footnote,
    each prose node's, each box's title, each control's label, help and options; with
    ``specs``, also each slot's (``spec_text``, an "html" slot's HTML) after its caption. The
    specs as the browser gets them (``specs_json``: a Board or its Bokeh model)."""
    found = []
    sent = json.loads(board.specs_json or "{}")

    def walk(node):
        found.extend(node[k] for k in ("caption", "html", "title", "label", "help") if k in node)
        if node.get("control"):  # a control's options are texts too (its value is not)
            # ... unless the control is marked in another language (an example kept on purpose)
            options = [] if node.get("lang") else sent.get(node["slot"], {}).get("options", [])
            found.extend(str(label) for _, label in options)
        elif specs and "slot" in node:
            spec = sent.get(node["slot"], "" if node["kind"] == "html" else {})
            found.append(spec if isinstance(spec, str) else spec_text(spec))
        found.extend(node[k] for k in ("footnote",) if k in node)
        for child in node.get("row", []) + node.get("col", []) + node.get("box", []):
            walk(child)

    walk({"col": board.layout})
    return found


def sa_panes(view) -> dict:
    """Each table of a SelfAttentionView by data-testid (SA_TABLES), as the browser draws it
    (self_attention.js, run by tests/c04_views.py): an object with the slot's ``kind`` and
    ``spec``."""
    from types import SimpleNamespace

    from c04_views import drawn

    specs = drawn(view.board, view.lang)
    slots = ("q", "k", "v", "scores", "weights", "z", "gradient")
    return {
        tid: SimpleNamespace(kind=view.board.kinds[name], spec=specs[name])
        for tid, name in zip(SA_TABLES, slots, strict=True)
    }


def commit(editor, i: int, j: int, text: str) -> None:
    """What a student's Enter in cell (i, j) of a MatrixEditor sends: its Board's message."""
    value = {"row": i, "col": j, "text": text}
    editor.board.receive({"control": editor.name_param, "value": value})


def cell_texts(editor) -> list[list[str]]:
    """What a MatrixEditor's boxes show, row by row: the texts its grid sent to the browser,
    with what the student committed since (the server does not send a box its own text)."""
    return [row[:] for row in editor.texts]


def sa_editors(view) -> dict:
    """A SelfAttentionView's editors as the page shows them: each error message (unescaped
    text) and each matrix's cell texts, row by row."""
    return {
        "errors": {n: html.unescape(e.error) for n, e in view.editors.items()},
        "cells": {n: [t for row in cell_texts(e) for t in row] for n, e in view.editors.items()},
    }


# ---------------------------------------------------------------------------------------------
# Browser pages (Playwright)


def twin_html(*names: str, states: dict | None = None, head: str = "", lang: str = "es") -> str:
    """A blank page with what the export puts first in <head> (the embedded ``states``, the
    ``lang`` catalogue, then c04.js, markup.js and the twin files ``names`` from
    dashboards/static/ or dashboards/demos/), then ``head``: the twin tests' page, built by the
    export's own code."""
    from dashboards.components.scripts import script_path
    from dashboards.export import head_elements

    files = ("c04.js", "markup.js", *names)
    scripts = [(name, script_path(name).read_text(encoding="utf-8")) for name in files]
    # Unpacked: the twin tests read the states as soon as the page is set (the exported
    # files' packed tables are the export tests').
    elements = "".join(head_elements(scripts, states or {}, lang, pack=False))
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">{elements}{head}'
        "</head><body></body></html>"
    )


# Where xdist's controller tells its workers the background export writes (root conftest.py).
EXPORT_KEY = "c04_export"


def wait_for_export(folder: Path, timeout: float = 600.0) -> Path:
    """The dist/ folder of a background ``python -m dashboards.export`` writing into ``folder``
    (its exit code into ``folder/rc``), once it has finished; fails with its log if it failed."""
    rc = folder / "rc"
    deadline = time.monotonic() + timeout
    while not (rc.is_file() and rc.read_text().strip()):
        if time.monotonic() > deadline:
            pytest.fail(f"la exportación no terminó en {timeout:g} s ({folder / 'export.log'})")
        time.sleep(0.2)
    if rc.read_text().strip() != "0":
        pytest.fail(f"make export falló:\n{(folder / 'export.log').read_text()}")
    return folder / "dist"


# Debian's Chromium: Playwright cannot download its own browser here (`make test` installs it).
CHROMIUM = os.environ.get("CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    # Every host but this machine's loopback name and address fails to resolve, in the browser
    # itself: a page's request to the internet (or to any other address, 127.0.0.2 included)
    # fails with net::ERR_NAME_NOT_RESOLVED. PageWatch records such requests with a listener, so
    # the pages need no route, and Chromium's HTTP cache (which a route turns off) keeps
    # Bokeh's and Panel's bundles from one load to the next.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
]

# Panel's jscallback wraps the callback code in try/catch and reports the caught error with
# console.log, so a broken client-side callback shows up as a plain log whose text starts with
# the error's name ("TypeError: x is undefined", "Error: ...") rather than as a console error.
JS_ERROR_TEXT = re.compile(r"^(?:[A-Z]\w*)?Error\b")

LOCAL_PREFIXES = (
    "http://127.0.0.1",
    "http://localhost",
    "ws://127.0.0.1",
    "ws://localhost",
    "data:",
    "blob:",
    "file:",
    "about:",
)
# For file:// pages (the exported HTML): only file:, data:, blob: and about: may load.
OFFLINE_PREFIXES = ("file:", "data:", "blob:", "about:")


class PageWatch:
    """Console errors, page errors, dialogs and requests outside ``allowed`` seen by one page.

    ``console_errors`` holds console messages of type "error", console messages of any type whose
    text starts with a JS error name (see JS_ERROR_TEXT) and uncaught page errors. Every request
    whose URL does not start with one of ``allowed`` is recorded in ``external`` (a listener).
    Such a request fails: CHROMIUM_ARGS make every other host unresolvable, and when ``allowed``
    lets no local server through (OFFLINE_PREFIXES: an exported file) the page's requests to
    http(s)/ws(s) URLs are aborted too, so a file:// page cannot reach the test's own server.
    Live pages get no route, which keeps Chromium's HTTP cache on.
    Pass ``console_errors`` and ``external`` lists to gather several pages' in one place.
    """

    def __init__(
        self,
        page,
        allowed: tuple[str, ...] = LOCAL_PREFIXES,
        console_errors: list[str] | None = None,
        external: list[str] | None = None,
    ):
        self.allowed = allowed
        self.console_errors: list[str] = [] if console_errors is None else console_errors
        self.external: list[str] = [] if external is None else external
        self.dialogs: list[str] = []
        self._page = page
        self._listeners: list[tuple[str, object]] = []

        def on_console(message):
            if message.type == "error" or JS_ERROR_TEXT.match(message.text):
                self.console_errors.append(message.text)

        def on_pageerror(error):
            self.console_errors.append(str(error))

        def on_dialog(dialog):
            self.dialogs.append(dialog.message)
            dialog.dismiss()

        def on_request(request):
            # blob: and data: URLs are content the page holds already (a route never saw them).
            if not request.url.startswith((*self.allowed, "blob:", "data:")):
                self.external.append(request.url)

        self._listeners = [
            ("console", on_console),
            ("pageerror", on_pageerror),
            ("dialog", on_dialog),
            ("request", on_request),
        ]
        for event, handler in self._listeners:
            page.on(event, handler)

        self._route = None
        if not any(NETWORK_URL.match(prefix + "//") for prefix in allowed):
            # No local server allowed: the loopback host the resolver rules let through is
            # aborted here (a file:// page loads nothing over http, so no cache is lost).
            self._route = lambda route: route.abort()
            page.route(NETWORK_URL, self._route)

    def stop(self) -> None:
        """Stop watching (what was seen stays): e.g. an export's offline watch before the same
        page opens the live lecture under another watch."""
        for event, handler in self._listeners:
            self._page.remove_listener(event, handler)
        self._listeners = []
        if self._route is not None:
            self._page.unroute(NETWORK_URL, self._route)
            self._route = None


# The URLs that go over the network (PageWatch's route for a page with no server allowed).
NETWORK_URL = re.compile(r"^(?:https?|wss?)://")


# A JS function declaration: the first element matching `sel` under `root`, looking inside
# shadow roots too (every Bokeh/Panel view renders into one), or null.
DEEP_FIND_JS = """function deepFind(root, sel) {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) {
        const inner = deepFind(el.shadowRoot, sel);
        if (inner) return inner;
      }
    }
    return null;
  }"""


# A chart markup.js draws (C04.markup.lines or raster), by its data-testid, as the page holds
# it and as it is drawn; null while it is not drawn yet.
# - "spec": the spec the page's component holds (its data model's spec_json, or its slot in a
#   Board's specs_json: what markup.js drew from), and for a raster "values": its matrix as
#   the page holds it ({shape, dtype, data: a plain list});
# - lines: "series", each path.c04-line's vertices read back into data units through the frame
#   and ranges the svg states, its stroke (computed), dash and width; "points" each circle's
#   centre in data units and its fill; the element's role and aria-label;
# - raster: the title drawn, the canvas's size (one pixel per cell) and every pixel's [r, g, b,
#   a] row by row, the colour bar's tick texts, role and aria-label.
# A typed array's bytes as base64, in the page: how an array crosses to the test exactly and
# fast (as a JSON array, Playwright wraps each number in an object of its own).
BASE64_JS = """function base64(array) {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    let text = "";
    for (let i = 0; i < bytes.length; i += 0x8000)
      text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(text);
  }"""

# With full = false, no matrix data and no pixels (a cheap poll: wait_for_chart). The matrix and
# the pixels cross as base64 of their bytes (BASE64_JS): as JSON arrays, a 512 × 512 heat map
# took 7.3 s to read (0.1 s as bytes).
CHART_JS = f"""(testid, full = true) => {{
  {DEEP_FIND_JS}
  {BASE64_JS}
  // Bokeh's arrays are subclasses (their names minified): the typed array each one is.
  const KINDS = [Float64Array, Float32Array, Int32Array, Uint32Array, Int16Array, Uint16Array,
    Int8Array, Uint8Array, Uint8ClampedArray];
  const chart = deepFind(document, '[data-testid="' + testid + '"]');
  if (!chart) return null;
  const out = {{role: chart.getAttribute("role"), aria: chart.getAttribute("aria-label")}};
  // The component's data model (the spec it drew from), found by its spec's testid.
  out.spec = null;
  for (const doc of Bokeh.documents) {{
    for (const m of doc.all_models) {{
      const json = m.data && m.data.spec_json;
      // Or a slot of a Board (components/board.py): the one spec of that testid among its slots.
      const board = m.data && m.data.specs_json;
      if (typeof board === "string" && board.includes('"testid":"' + testid + '"')) {{
        const slot = Object.values(JSON.parse(board)).find((s) => s && s.testid === testid);
        if (slot) out.spec = slot;
      }}
      // Or a slot of a Board drawn by its view: the view's drawing of the state it holds.
      const state = m.data && m.data.view && m.data.state_json;
      if (typeof state === "string" && state) {{
        const drawn = C04.views[m.data.view].render(JSON.parse(state));
        const slot = Object.values(drawn).find((s) => s && s.testid === testid);
        if (slot) out.spec = slot;
      }}
      if (typeof json === "string" && json.includes('"testid":"' + testid + '"')) {{
        out.spec = JSON.parse(json);
        const values = m.data.values;
        if (values && values.shape) {{
          const typed = ArrayBuffer.isView(values) ? values : Float64Array.from(values);
          out.values = {{shape: Array.from(values.shape), dtype: values.dtype ||
            values.constructor.name, bytes: KINDS.find((k) => typed instanceof k).name,
            data: full ? base64(typed) : null}};
        }}
      }}
    }}
  }}
  const svg = chart.querySelector("svg[data-frame]");
  if (svg) {{
    const [left, top, w, h] = svg.dataset.frame.split(" ").map(Number);
    const [x0, x1] = svg.dataset.x.split(" ").map(Number);
    const [y0, y1] = svg.dataset.y.split(" ").map(Number);
    const X = (px) => x0 + ((px - left) / w) * (x1 - x0);
    const Y = (py) => y1 - ((py - top) / h) * (y1 - y0);
    out.series = [...svg.querySelectorAll("path.c04-line")].map((path) => {{
      const style = getComputedStyle(path);
      const nums = (path.getAttribute("d").match(/-?[0-9.]+/g) || []).map(Number);
      const vertices = [];
      for (let k = 0; k + 1 < nums.length; k += 2) vertices.push([X(nums[k]), Y(nums[k + 1])]);
      return {{vertices, stroke: style.stroke, width: parseFloat(style.strokeWidth),
        dash: style.strokeDasharray, box: path.getBBox().width}};
    }});
    out.points = [...svg.querySelectorAll("circle.c04-point")].map((c) => ({{
      x: X(Number(c.getAttribute("cx"))), y: Y(Number(c.getAttribute("cy"))),
      fill: getComputedStyle(c).fill, r: Number(c.getAttribute("r"))}}));
    out.legend = [...svg.querySelectorAll(".c04-legend text")].map((t) => t.textContent);
    // Half a drawing unit's rounding (0.1), in data units: how close a vertex can be read back.
    out.tolerance = [0.06 * (x1 - x0) / w, 0.06 * (y1 - y0) / h];
    out.width = svg.getBoundingClientRect().width;
  }}
  const canvas = chart.querySelector("canvas.c04-raster-canvas");
  if (canvas) {{
    const {{width, height}} = canvas;
    const data = full ? canvas.getContext("2d").getImageData(0, 0, width, height).data : [];
    out.title = chart.querySelector(".c04-raster-title").textContent;
    out.canvas = {{width, height, pixels: full ? base64(data) : null,
      shown: canvas.getBoundingClientRect().width,
      rendering: getComputedStyle(canvas).imageRendering}};
    out.bar_ticks = [...chart.querySelectorAll(".c04-raster-barticks span")]
      .map((s) => s.textContent);
    out.box = chart.getBoundingClientRect().width;
  }}
  return out;
}}"""


# A typed array's class in the page → its numpy dtype (little-endian, as the page's bytes).
TYPED_ARRAYS = {
    "Float64Array": "<f8",
    "Float32Array": "<f4",
    "Int32Array": "<i4",
    "Uint32Array": "<u4",
    "Int16Array": "<i2",
    "Uint16Array": "<u2",
    "Int8Array": "i1",
    "Uint8Array": "u1",
    "Uint8ClampedArray": "u1",
}


def chart(page, testid: str):
    """The chart ``testid`` as the page holds and draws it (CHART_JS), or None; the matrix's
    data and the canvas's pixels as numpy arrays (flat, as the page holds them)."""
    out = page.evaluate(CHART_JS, testid)
    values = (out or {}).get("values")
    if values and values["data"] is not None:
        raw = base64.b64decode(values["data"])
        values["data"] = np.frombuffer(raw, dtype=TYPED_ARRAYS[values.pop("bytes")])
    canvas = (out or {}).get("canvas")
    if canvas and canvas["pixels"] is not None:
        canvas["pixels"] = np.frombuffer(base64.b64decode(canvas["pixels"]), dtype=np.uint8)
    return out


def wait_for_chart(page, testid: str, ready: str, timeout: float = 15_000) -> dict:
    """Wait until ``ready`` (a JS expression of ``c``, what CHART_JS returns) holds; then the
    chart."""
    page.wait_for_function(
        f"(testid) => {{ const c = ({CHART_JS})(testid, false); return Boolean(c && ({ready})); }}",
        arg=testid,
        timeout=timeout,
    )
    return chart(page, testid)


def raster_colours(values, low: float = -1.0, high: float = 1.0) -> np.ndarray:
    """The [r, g, b] each cell of a matrix is painted with: 256 steps of ColorBrewer's RdBu
    (Bokeh's palette, interpolated as Bokeh does), a value's step as Bokeh's
    LinearColorMapper picks it (equal bins over [low, high], high in the last)."""
    from bokeh.palettes import RdBu11, interp_palette

    palette = np.array(
        [[int(c[k : k + 2], 16) for k in (1, 3, 5)] for c in interp_palette(RdBu11, 256)]
    )
    v = np.asarray(values, dtype=np.float32).astype(np.float64)
    index = np.clip(np.floor((v - low) / (high - low) * len(palette)), 0, len(palette) - 1)
    return palette[index.astype(int)]


def assert_raster_drawn(drawn: dict, values, where: str) -> None:
    """A raster drawn one canvas pixel per cell of ``values`` (an n × d matrix, row 0 on top),
    each opaque and of the colour its value takes (``raster_colours``)."""
    n, d = np.shape(values)
    canvas = drawn["canvas"]
    assert (canvas["height"], canvas["width"]) == (n, d), where
    pixels = np.asarray(canvas["pixels"]).reshape(n, d, 4)
    assert (pixels[..., 3] == 255).all(), f"{where}: un píxel sin pintar"
    want = raster_colours(values)
    wrong = np.argwhere((pixels[..., :3] != want).any(axis=-1))
    assert len(wrong) == 0, f"{where}: {len(wrong)} celdas de otro color, p. ej. {wrong[:3]}"


def assert_lines_drawn(drawn: dict, series: list[list[float]], where: str) -> None:
    """Each path of a lines chart drawn through the expected values (one vertex per value, at
    x = 0, 1, …), within the drawing's rounding (0.1 of a px) read back in data units."""
    got = drawn["series"]
    tol_x, tol_y = drawn["tolerance"]
    assert len(got) == len(series), where
    for k, (path, values) in enumerate(zip(got, series, strict=True)):
        vertices = path["vertices"]
        assert len(vertices) == len(values), f"{where} serie {k}: {len(vertices)} vértices"
        if values:
            xs = [v[0] for v in vertices]
            ys = [v[1] for v in vertices]
            np.testing.assert_allclose(xs, range(len(values)), rtol=0, atol=tol_x, err_msg=where)
            np.testing.assert_allclose(ys, values, rtol=0, atol=tol_y, err_msg=where)


# A bar chart as the page draws it (markup.js bars, inside the Markup's shadow root), by its
# data-testid: per row its label's text, the text of its words marked lang="es", its value, its
# bar's width (% of the bar column, as the style says) and its computed colour; null for a
# chart not drawn yet.
_READ_BARS_JS = """
  const read = (testid) => {
    const table = deepFind(document, `table[data-testid="${testid}"]`);
    if (!table) return null;
    const rows = [...table.rows].slice(1);
    const bar = (tr) => tr.cells[2].querySelector("div");
    return {
      label: rows.map((tr) => tr.cells[0].textContent),
      kept: rows.map((tr) =>
        [...tr.cells[0].querySelectorAll('[lang="es"]')].map((e) => e.textContent).join("")),
      value: rows.map((tr) => tr.cells[1].textContent),
      width: rows.map((tr) => parseFloat(bar(tr).style.width)),
      color: rows.map((tr) => getComputedStyle(bar(tr)).backgroundColor),
    };
  };"""

# One bar chart (argument: its data-testid), as _READ_BARS_JS reads it.
BARS_TABLE_JS = "(testid) => {\n" + DEEP_FIND_JS + _READ_BARS_JS + "\n  return read(testid);\n}"

# «La capital»'s two bar charts, by chart, as _READ_BARS_JS reads them.
CAPITAL_BARS_JS = (
    "() => {\n"
    + DEEP_FIND_JS
    + _READ_BARS_JS
    + """
  return {
    attention: read("capital-attention-bars"),
    probabilities: read("capital-probability-bars"),
  };
}"""
)

# The chart of CAPITAL_BARS_JS of each bars spec of the capital's render.
CAPITAL_CHARTS = {"attention": "attention_bars", "probabilities": "probability_bars"}


def css_rgb(color: str) -> str:
    """A "#rrggbb" colour as getComputedStyle writes it: "rgb(r, g, b)"."""
    r, g, b = (int(color[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def _kept_text(label, lang: str = "es") -> str:
    if isinstance(label, list):
        return "".join(_kept_text(part, lang) for part in label)
    if isinstance(label, dict) and "html" not in label:
        if label.get("lang") == lang:
            return _label(label.get("text"), None)
        return _kept_text(label.get("text"), lang)
    return ""


def bars_as_drawn(spec: dict) -> dict:
    """What BARS_TABLE_JS (one chart of CAPITAL_BARS_JS) reads from the table markup.js draws
    from a bars spec (widths unrounded: markup.js writes them with one decimal)."""
    rows = spec["rows"]
    return {
        "label": [label_text(row["label"]) for row in rows],
        "kept": [_kept_text(row["label"]) for row in rows],
        "value": [row["value"] for row in rows],
        "width": [min(100.0, max(0.0, row["width"])) for row in rows],
        "color": [css_rgb(row.get("color") or spec.get("color") or "#1f5fa8") for row in rows],
    }


def assert_bars(got: dict | None, spec: dict, where: str) -> None:
    """A bar chart as the page draws it (BARS_TABLE_JS) is the one of ``spec``: texts and
    colours identical, widths to markup.js's one decimal."""
    assert got is not None, where
    want = bars_as_drawn(spec)
    for column in ("label", "kept", "value", "color"):
        assert got[column] == want[column], (where, column)
    np.testing.assert_allclose(got["width"], want["width"], atol=0.051, rtol=0, err_msg=where)


def assert_capital_bars(got: dict, rendered: dict) -> None:
    """The page's two capital bar charts (CAPITAL_BARS_JS) are those of ``rendered`` (the
    capital's render): texts and colours identical, widths to markup.js's one decimal."""
    for chart, name in CAPITAL_CHARTS.items():
        assert_bars(got[chart], rendered[name], chart)


# A JS function: the text a reader meets on the page, through every shadow root (text nodes,
# placeholders, aria-labels and titles), outside <script>/<style> and outside any element marked
# lang="es" (an example kept in Spanish on purpose). Canvas text is not in the DOM: the views'
# Bokeh strings are checked without a browser (viewable_texts).
PAGE_TEXT_JS = """() => {
  const out = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      out.push(node.textContent);
      return;
    }
    if (node.nodeType === Node.ELEMENT_NODE) {
      if (node.tagName === "SCRIPT" || node.tagName === "STYLE") return;
      if (node.getAttribute("lang") === "es") return;
      for (const name of ["placeholder", "aria-label", "title"]) {
        if (node.getAttribute(name)) out.push(node.getAttribute(name));
      }
      if (node.shadowRoot) walk(node.shadowRoot);
    }
    for (const child of node.childNodes) walk(child);
  };
  walk(document);
  return out.join(" ");
}"""


def readout(page, testid: str):
    """The value (.c04-value) of the readout with that data-testid."""
    return page.locator(f'[data-testid="{testid}"] .c04-value')


def table_row(page, testid: str, i: int):
    """The <td> cells of row ``i`` (0 is the header row) of the data-testid table, without the
    Σ column (.c04-sum)."""
    return page.locator(f'[data-testid="{testid}"] tr').nth(i).locator("td:not(.c04-sum)")


def slider_handle(page, label: str):
    """The handle of the slider named ``label``: a Board's native range (its label is its
    name), or a Bokeh slider's whose input group shows ``label``."""
    native = page.get_by_role("slider", name=label)
    bokeh = page.locator(".bk-input-group", has_text=label).locator(".noUi-handle")
    return native.or_(bokeh).first


def press_slider(page, label: str, *keys: str) -> None:
    """Focus the handle of the slider labelled ``label`` and press ``keys`` in turn."""
    handle = slider_handle(page, label)
    handle.focus()
    for key in keys:
        handle.press(key)


def settled_texts(page, testids, timeout: float = 15.0) -> dict[str, str]:
    """The text of each data-testid element, once two reads agree and none is empty (Panel
    may re-render a pane's element while the page settles); the last read at the timeout."""
    deadline = time.monotonic() + timeout
    previous = None
    while True:
        now = {tid: page.locator(f'[data-testid="{tid}"]').first.inner_text() for tid in testids}
        if now == previous and all(now.values()):
            return now
        if time.monotonic() > deadline:
            return now
        previous = now
        page.wait_for_timeout(100)


# The text of each data-testid element, through the shadow roots (null when absent).
TESTID_TEXTS_JS = f"""(testids) => {{
  {DEEP_FIND_JS}
  const out = {{}};
  for (const tid of testids) {{
    const node = deepFind(document, '[data-testid="' + tid + '"]');
    out[tid] = node ? node.textContent : null;
  }}
  return out;
}}"""

# The training section (dashboards/demos/training.py), live and exported: the slots training.js
# draws that markup.js turns into HTML, with their kind, and the data-testid of each (the four
# readouts first).
TRAINING_KINDS = {
    "readouts": "readouts",
    **{f"head_{h}": "matrix" for h in range(N_HEADS)},
    "roles": "matrix",
    "top": "matrix",
    "held_out": "note",
    "comparison": "note",
    "probability_bars": "bars",
}
TRAINING_TESTIDS = (
    "training-step",
    "training-loss",
    "training-probability",
    "training-prediction",
    *(f"training-head-{h + 1}" for h in range(N_HEADS)),
    "training-roles",
    "training-top",
    "training-held-out",
    "training-comparison",
    "training-probability-bars",
)


def expect_training(page, rendered: dict, what, timeout: float = 15.0) -> None:
    """Wait until the training section shows ``rendered`` (training.js's drawing of a state):
    every data-testid element the text the page's markup.js draws from those specs, the
    next-word bars their rows (labels, marked words, values, widths and colours: BARS_TABLE_JS)
    and the loss chart its spec, its curve and its marker drawn where the numbers say
    (CHART_JS). ``what`` names the state in the failure."""
    from playwright.sync_api import expect

    # The readouts first, one by one: a failure names the number that differs.
    for tid in TRAINING_TESTIDS[:4]:
        value = label_text(spec_find(rendered["readouts"], tid)["value"])
        expect(readout(page, tid)).to_have_text(value, timeout=timeout * 1000)
    pairs = ((kind, rendered[name]) for name, kind in TRAINING_KINDS.items())
    parsed = by_testid(*drawn(page, *pairs))
    want = {tid: parsed.texts[tid] for tid in TRAINING_TESTIDS}
    deadline = time.monotonic() + timeout
    while (got := page.evaluate(TESTID_TEXTS_JS, list(TRAINING_TESTIDS))) != want:
        if time.monotonic() > deadline:
            differ = {t: (got[t], want[t]) for t in TRAINING_TESTIDS if got[t] != want[t]}
            raise AssertionError(f"{what} no coincide: {differ}")
        page.wait_for_timeout(100)
    # The texts are the same by now; the bars' widths and colours are set with them.
    assert_bars(
        page.evaluate(BARS_TABLE_JS, "training-probability-bars"),
        rendered["probability_bars"],
        f"{what} training-probability-bars",
    )
    # The loss chart: the spec the page holds is the render's, and the marker is drawn there.
    want = rendered["loss_chart"]
    [point] = want["points"]
    got = wait_for_chart(
        page,
        "training-loss-chart",
        f"c.spec && c.spec.points[0].x === {int(point['x'])} && c.points.length === 1",
        timeout * 1000,
    )
    assert got["spec"] == want, what
    tol_x, tol_y = got["tolerance"]
    assert abs(got["points"][0]["x"] - point["x"]) <= tol_x, what
    assert abs(got["points"][0]["y"] - point["y"]) <= tol_y, what
    assert_lines_drawn(got, [want["series"][0]["y"]], f"{what} training-loss-chart")


def plain_markup(markup: str) -> str:
    """The text a browser reads from catalogue HTML (its tags left out)."""
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def assert_training_shows(specs: dict, model, lang: str = "es") -> None:
    """The training section's specs (training.js's drawing) show ``model``'s numbers and the
    catalogue's words, every text and number computed here from the model (attnmodel.training)
    and the catalogue (attnmodel.i18n.text, attnmodel.formatting). The numbers cross with 4
    decimals (dashboards.demos.training.DECIMALS): a number shown with fewer is written from
    the model's value rounded to 4 first, as the page gets it."""
    from attnmodel.formatting import number, percent
    from attnmodel.i18n import text
    from attnmodel.training import DEFAULT_STEPS, FACTS, HELD_OUT, ROLES, hand_comparison

    def num(x, decimals: int = 4) -> str:
        return number(float(np.round(float(x), 4)), decimals, lang=lang)

    def pct(x) -> str:
        return percent(float(np.round(float(x), 4)), 0, lang)

    def word(w: str):  # the model's words stay Spanish, marked so on another page
        return w if lang == "es" else {"text": w, "lang": "es"}

    def plain(label) -> str:
        return plain_markup(label_text(label))

    m = model
    where = f"{lang} {m.seed}|{m.step}|{m.country}"
    tokens = m.tokens
    p = m.probabilities
    items = {i["testid"]: i for i in specs["readouts"]["items"]}
    readouts = {
        tid: (plain(i["label"]), plain(i["value"]), plain(i["unit"])) for tid, i in items.items()
    }
    assert readouts == {
        "training-step": (
            text("training.readout.step", lang),
            str(m.step),
            text("training.readout.of_steps", lang, steps=DEFAULT_STEPS),
        ),
        "training-loss": (text("training.readout.loss", lang), num(m.loss), "nats"),
        "training-probability": (
            text("training.readout.probability", lang, capital=m.capital),
            num(m.capital_probability),
            "",
        ),
        "training-prediction": (
            text("training.readout.prediction", lang),
            m.prediction,
            f"p = {num(p[m.prediction])}",
        ),
    }, where
    assert items["training-prediction"]["value"] == word(m.prediction), where
    for h, (role, share) in enumerate(m.roles):
        spec = specs[f"head_{h}"]
        said = text(f"training.role.{role}", lang, share=pct(share))
        assert spec["title"] == text("training.head_title", lang, n=h + 1, role=said), where
        assert spec["testid"] == f"training-head-{h + 1}"
        assert spec["cols"] == [word(w) for w in tokens], where
        assert [r["label"] for r in spec["rows"]] == [word(w) for w in tokens], where
        assert spec_rows(spec) == [[num(x, 2) for x in row] for row in m.attention[h]], where
    roles = specs["roles"]
    assert roles["title"] == text("training.roles_title", lang)
    assert roles["cols"] == [text(f"training.role_name.{r}", lang) for r in ROLES]
    assert [r["label"] for r in roles["rows"]] == [
        text("training.head_name", lang, n=h + 1) for h in range(len(m.heads))
    ]
    assert spec_rows(roles) == [[num(h[r], 2) for r in ROLES] for h in m.heads], where
    top = specs["top"]
    ranked = sorted(p, key=lambda w: -p[w])[:5]
    assert top["title"] == text("training.top_title", lang)
    assert [r["label"] for r in top["rows"]] == [word(w) for w in ranked], where
    assert spec_rows(top) == [[num(p[w])] for w in ranked], where
    if m.held_out:
        held = text(
            "training.held_out",
            lang,
            country=m.country,
            capital=m.capital,
            p=num(m.capital_probability),
            prediction=m.prediction,
            p_prediction=num(p[m.prediction]),
        )
    else:
        held = text("training.trained_fact", lang, country=m.country, held=" · ".join(HELD_OUT))
    assert specs["held_out"]["testid"] == "training-held-out"
    assert plain(specs["held_out"]["text"]) == plain_markup(held), where
    c, hand = m.comparison, hand_comparison()
    alike = "alike" if np.round(c["share_learned"], 4) > 0.5 else "unalike"
    compare = text(
        f"training.compare.{alike}",
        lang,
        n=c["head"] + 1,
        country=m.country,
        cos_learned=num(c["cosine_learned"], 2),
        cos_hand=num(hand["cosine_hand"], 2),
        share_learned=pct(c["share_learned"]),
        share_hand=pct(hand["share_hand"]),
    )
    spread = text(
        "training.compare.spread",
        lang,
        share_learned=pct(c["concentration_learned"]),
        share_hand=pct(hand["concentration_hand"]),
        cells=c["cells"],
    )
    assert specs["comparison"]["testid"] == "training-comparison"
    assert plain(specs["comparison"]["text"]) == plain_markup(compare) + " " + plain_markup(
        spread
    ), where
    announce = text(
        "a11y.announce.training", lang, step=m.step, capital=m.capital, p=num(m.capital_probability)
    )
    assert plain(specs["announce"]["text"]) == plain_markup(announce), where
    # The next word: a row per capital (the facts' order), the country's in the first category
    # colour, and one for every other word: 1 − the capitals' sum (each rounded to 4 decimals).
    bars = specs["probability_bars"]
    capitals = list(FACTS.values())
    kept = [float(np.round(p[w], 4)) for w in capitals]
    rest = max(0.0, 1.0 - sum(kept))
    assert bars["testid"] == "training-probability-bars"
    assert (bars["corner"], bars["head"]) == (
        text("training.chart.word_axis", lang),
        text("training.chart.probability_axis", lang),
    )
    assert [r["label"] for r in bars["rows"]] == [*map(word, capitals), "…"], where
    assert [r["value"] for r in bars["rows"]] == [num(x) for x in kept] + [num(rest)], where
    np.testing.assert_allclose(
        [r["width"] for r in bars["rows"]], [100 * x for x in [*kept, rest]], rtol=0, atol=1e-9
    )
    colors = ["#0072b2" if w == m.capital else "#b8c2cf" for w in capitals] + ["#b8c2cf"]
    assert [r["color"] for r in bars["rows"]] == colors, where
    # The loss chart: the run's curve from step 0 and the step's marker, its tooltip.
    chart = specs["loss_chart"]
    assert chart["testid"] == "training-loss-chart"
    assert chart["aria"] == text("a11y.plot.training_loss", lang)
    assert chart["decimal"] == text("format.decimal", lang)
    assert (chart["x"]["label"], chart["x"]["max"]) == (
        text("training.chart.step_axis", lang),
        DEFAULT_STEPS,
    )
    assert chart["y"]["label"] == text("training.chart.loss_axis", lang)
    [series] = chart["series"]
    np.testing.assert_allclose(series["y"], m.loss_curve, rtol=0, atol=5e-5)
    [marker] = chart["points"]
    assert (marker["x"], marker["y"]) == (m.step, float(np.round(m.loss, 4))), where
    assert marker["tip"] == [
        [text("training.chart.step", lang), str(m.step)],
        ["nats", num(m.loss)],
    ]


# "Un modelo de verdad" (dashboards/demos/minilm.py), live and exported: the grid of minilm.js,
# read through its shadow roots, against texts computed here from the model and the catalogue.

# Every tile of the grid: data-testid → aria-label.
MINILM_TILES_JS = """() => {
  const out = {};
  const walk = (root) => {
    for (const el of root.querySelectorAll('*')) {
      const tid = el.getAttribute('data-testid');
      if (tid && tid.startsWith('minilm-tile-')) out[tid] = el.getAttribute('aria-label');
      if (el.shadowRoot) walk(el.shadowRoot);
    }
  };
  walk(document);
  return out;
}"""
MINILM_TILES_ARE_JS = f"""(want) => {{
  const got = ({MINILM_TILES_JS})();
  const keys = Object.keys(want);
  return Object.keys(got).length === keys.length && keys.every((k) => got[k] === want[k]);
}}"""


def minilm_tile(page, layer: int, head: int):
    """The tile of ``layer``, ``head`` (1-based, as its data-testid)."""
    return page.locator(f'[data-testid="minilm-tile-{layer}-{head}"]')


def labelled_select(page, label: str):
    """The <select> named ``label``: a Board's native select (its label is its name), or a
    Panel Select's whose input group shows ``label``."""
    native = page.get_by_role("combobox", name=label, exact=True)
    bokeh = page.locator(".bk-input-group", has_text=label).locator("select")
    return native.or_(bokeh).first


def minilm_grid_texts(sentence: str, lang: str = "es") -> dict:
    """The grid's texts for ``sentence``, from the model's outputs and the catalogue: ``tiles``
    [layer][head] ({title, aria, short}: each head's name and its role, its largest measured
    share), ``scores`` [layer][head] (each role's share), ``role_names`` and the grid's words."""
    from attnmodel.i18n import text
    from attnmodel.minilm import HEAD_ROLES, MiniLMDemo

    demo = MiniLMDemo(sentence=sentence)
    tiles = []
    for la, layer in enumerate(demo.roles):
        row = []
        for h, role in enumerate(layer):
            share = percent(role.score, 0, lang)
            name = text("minilm.head_name", lang, layer=la + 1, head=h + 1)
            said = text(f"minilm.role.{role.role}", lang, share=share)
            short = text(f"minilm.short.{role.role}", lang, share=share)
            row.append({"title": f"{name} · {said}", "aria": f"{name}: {said}", "short": short})
        tiles.append(row)
    return {
        "tiles": tiles,
        "scores": [
            [[percent(float(s), 0, lang) for s in head] for head in layer] for layer in demo.scores
        ],
        "role_names": [text(f"minilm.role_name.{r}", lang) for r in HEAD_ROLES],
        **{
            key: text(f"minilm.grid.{key}", lang)
            for key in ("arcs_alt", "top_title", "scores_title", "numbers_title", "query_key")
        },
    }


def minilm_tiles(sentence: str, lang: str = "es") -> dict[str, str]:
    """data-testid → aria-label of the 72 tiles for ``sentence`` (minilm_grid_texts)."""
    tiles = minilm_grid_texts(sentence, lang)["tiles"]
    return {
        f"minilm-tile-{la + 1}-{h + 1}": tile["aria"]
        for la, layer in enumerate(tiles)
        for h, tile in enumerate(layer)
    }


def minilm_sentence_texts(sentence: str, lang: str = "es") -> dict[str, str]:
    """What the first Board shows for ``sentence``: the pieces line (``minilm-pieces``), the
    words (counted as the caps count them: separated by spaces) and the pieces of words."""
    from attnmodel.i18n import text
    from attnmodel.minilm import MiniLMDemo

    pieces = MiniLMDemo(sentence=sentence).pieces
    return {
        "minilm-pieces": f"{text('minilm.pieces_said', lang)} {' · '.join(pieces)}",
        "minilm-words": str(len(sentence.split())),
        "minilm-pieces-count": str(len(pieces) - 2),
    }


def minilm_toy_titles(toy_sentence: str, lang: str = "es") -> dict[str, str]:
    """The caption of each toy head's table (``toy_<k>``) and of the real head most like it
    (``real_<k>``) on ``toy_sentence``, from the model and the catalogue."""
    from attnmodel.i18n import text
    from attnmodel.minilm import MiniLMDemo

    titles = {}
    for k, match in enumerate(MiniLMDemo(toy_sentence=toy_sentence).toy_matches):
        relation = text(f"multihead.relation.{match.relation}", lang)
        titles[f"toy_{k}"] = text("minilm.toy.toy_title", lang, relation=relation)
        titles[f"real_{k}"] = text(
            "minilm.toy.real_title",
            lang,
            layer=match.layer + 1,
            head=match.head + 1,
            similarity=percent(match.similarity, 0, lang),
        )
    return titles


def expect_minilm_tiles(page, sentence: str, lang: str = "es", timeout: float = 15_000) -> None:
    """Wait until the 72 tiles carry the names of ``sentence``'s heads (one evaluation of all of
    them per try); on failure, say which differ."""
    want = minilm_tiles(sentence, lang)
    try:
        page.wait_for_function(MINILM_TILES_ARE_JS, arg=want, timeout=timeout)
    except Exception:
        got = page.evaluate(MINILM_TILES_JS)
        differ = {k: (got.get(k), v) for k, v in want.items() if got.get(k) != v}
        extra = sorted(set(got) - set(want))
        pytest.fail(f"{sentence!r} ({lang}): {len(differ)} tiles differ {differ}, extra {extra}")


def expect_minilm_sentence(page, sentence: str, lang: str = "es", timeout: float = 15_000):
    """The pieces line, both readouts and every tile show the model's ``sentence``."""
    from playwright.sync_api import expect

    texts = minilm_sentence_texts(sentence, lang)
    pieces = page.locator('[data-testid="minilm-pieces"]')
    expect(pieces).to_have_text(texts["minilm-pieces"], timeout=timeout)
    for tid in ("minilm-words", "minilm-pieces-count"):
        expect(readout(page, tid)).to_have_text(texts[tid])
    expect_minilm_tiles(page, sentence, lang, timeout)


def minilm_page_weights(sentence: str, layer: int, head: int) -> np.ndarray:
    """The head's map as the page decodes it: the model's attention to 4 decimals."""
    from attnmodel.minilm import MiniLMDemo

    state = MiniLMDemo(sentence=sentence).state
    return np.round(np.asarray(state.attention[layer, head], dtype=np.float64) * 1e4) / 1e4


def js_round(x: float) -> int:
    """JavaScript's Math.round (halves up) of a non-negative number."""
    return math.floor(x + 0.5)


def minilm_expected_top(sentence: str, layer: int, head: int, lang: str = "es") -> list[str]:
    """What each piece looks at most, as minilm.js lists it: on the 4-decimal weights the
    page decodes, the first largest key and Math.round of its percentage."""
    from attnmodel.i18n import text
    from attnmodel.minilm import MiniLMDemo

    pieces = MiniLMDemo(sentence=sentence).state.pieces
    items = []
    for i, row in enumerate(minilm_page_weights(sentence, layer, head)):
        best = int(np.argmax(row))  # the first of equal largest, as the page's strict >
        share = text("format.percent", lang, value=js_round(100 * row[best]))
        items.append(
            text("minilm.grid.top_item", lang, query=pieces[i], key=pieces[best], share=share)
        )
    return items


def expect_minilm_detail(page, sentence: str, layer: int, head: int, lang: str = "es") -> None:
    """The head ``layer``, ``head`` (0-based) of ``sentence`` is the chosen one, in large: its
    tile pressed (the only one), its title, its measured shares, what each piece looks at."""
    from playwright.sync_api import expect

    spec = minilm_grid_texts(sentence, lang)
    expect(minilm_tile(page, layer + 1, head + 1)).to_have_attribute("aria-pressed", "true")
    expect(page.locator('[data-testid^="minilm-tile-"][aria-pressed="true"]')).to_have_count(1)
    expect(page.locator('[data-testid="minilm-detail-title"]')).to_have_text(
        spec["tiles"][layer][head]["title"]
    )
    scores = page.locator('[data-testid="minilm-scores"]')
    expect(scores.locator("caption")).to_have_text(spec["scores_title"])
    expect(scores.locator("th")).to_have_text(spec["role_names"])
    expect(scores.locator("td")).to_have_text(spec["scores"][layer][head])
    top = page.locator('[data-testid="minilm-top"] li')
    expect(top).to_have_text(minilm_expected_top(sentence, layer, head, lang))


# Time every C04.update of an exported page (what one control change costs in the browser) and,
# after it, the next two animation frames (Bokeh has painted the new data by then).
TIMER_JS = """() => {
  window.__c04Times = [];
  const update = C04.update;
  C04.update = function (...a) {
    const t0 = performance.now();
    const ms = update.apply(this, a);
    const entry = {demo: a[0], update: ms, painted: null};
    window.__c04Times.push(entry);
    requestAnimationFrame(() => requestAnimationFrame(() => {
      entry.painted = performance.now() - t0;
    }));
    return ms;
  };
}"""


def update_times(page, demo: str) -> list[dict]:
    """The C04.update calls TIMER_JS recorded, once each has painted: at least one, all of
    ``demo``. Each is {"demo", "update": ms of the call, "painted": ms until painted}."""
    page.wait_for_function("() => window.__c04Times.every((t) => t.painted !== null)")
    times = page.evaluate("() => window.__c04Times")
    assert times
    assert all(t["demo"] == demo for t in times)
    return times


def format_times(times: list[dict]) -> str:
    """``update/painted`` ms of each call, for the report (-s)."""
    return ", ".join(f"{t['update']:.1f}/{t['painted']:.1f}" for t in times)


def export_and_live(open_export, offline, open_live, filename: str, section: str, run):
    """``run(page)`` in the exported ``filename`` opened offline, then in the served lecture on
    ``section`` (a new page): the two results. Neither page may log a console error or request
    anything outside file: (the export) or localhost (the live app)."""
    exported = run(open_export(filename, section))
    assert offline.external == []
    assert offline.console_errors == []
    live, live_watch = open_live(section)
    served = run(live)
    assert live_watch.console_errors == []
    assert live_watch.external == []
    return exported, served


# The arcs of a "Varias cabezas" drawing as drawn (markup.js, head_plot), one list per column:
# each path.c04-head-arc's row i ("fila") and column j ("col"), its weight α ("peso": the
# stroke-opacity), the opacity it shows ("alpha": α times the hover's fade, if any), its stroke
# width and its tooltip's HTML.
HEAD_ARCS_JS = """(paths) => {
  const out = {fila: [], col: [], peso: [], alpha: [], width: [], tip: []};
  for (const p of paths) {
    const a = Number(p.getAttribute("stroke-opacity"));
    out.fila.push(Number(p.dataset.row));
    out.col.push(Number(p.dataset.col));
    out.peso.push(a);
    out.alpha.push(p.style.opacity === "" ? a : a * Number(p.style.opacity));
    out.width.push(Number(p.getAttribute("stroke-width")));
    out.tip.push(p.dataset.tip);
  }
  return out;
}"""


def head_arcs(page, testid: str) -> dict:
    """The arcs drawn in the "Varias cabezas" drawing ``testid`` (``HEAD_ARCS_JS``)."""
    return page.locator(f'[data-testid="{testid}"] path.c04-head-arc').evaluate_all(HEAD_ARCS_JS)


def hover_until_faded(page, testid: str, before: dict) -> dict:
    """Move the mouse down the middle column of the matrix of the drawing ``testid`` until its
    arcs' "alpha" differs from ``before``; return the arcs. Fails if no row of the matrix
    changes the arcs."""
    matrix = page.locator(f'[data-testid="{testid}"] svg.c04-head-matrix')
    matrix.scroll_into_view_if_needed()
    box = matrix.bounding_box()
    assert box is not None
    for frac in (0.1, 0.2, 0.3, 0.4):
        page.mouse.move(box["x"] + 0.6 * box["width"], box["y"] + frac * box["height"])
        page.wait_for_timeout(150)
        after = head_arcs(page, testid)
        if after["alpha"] != before["alpha"]:
            return after
    pytest.fail("pasar el ratón por la matriz no cambió la opacidad de ningún arco")


def assert_one_row_highlighted(arcs: dict, fade: float) -> None:
    """Only the arcs of one matrix row keep their weight as opacity; the rest are faded."""
    peso, fila, alpha = (np.array(arcs[c]) for c in ("peso", "fila", "alpha"))
    kept = np.isclose(alpha, peso)
    assert len(set(fila[kept])) == 1, "solo se resaltan los arcos de una fila"
    np.testing.assert_allclose(alpha[~kept], fade * peso[~kept])


def head_token_html(token) -> str:
    """A token of a head drawing's spec as its tooltip writes it (markup.js, label())."""
    if isinstance(token, dict):
        return f'<span lang="{html.escape(token["lang"])}">{html.escape(token["text"])}</span>'
    return html.escape(token)


def head_cell_tip(spec: dict, i: int, j: int) -> str:
    """The tooltip (HTML) of cell (i, j) of a head drawing's matrix."""
    texts, tokens = spec["texts"], spec["tokens"]
    return (
        f"{html.escape(texts['query'])}: {head_token_html(tokens[i])}<br>"
        f"{html.escape(texts['key'])}: {head_token_html(tokens[j])}<br>"
        f"α: {html.escape(spec['tips'][i][j])}"
    )


def assert_arcs_drawn(arcs: dict, spec: dict, arc_width: float) -> None:
    """The arcs drawn are the spec's (a ``plot_spec``): from query i to attended j, opacity α_ij
    and stroke width ``arc_width`` · α_ij, none faded, the tooltip "i → j: α = <cell>"."""
    weights = spec["weights"]
    assert list(zip(arcs["fila"], arcs["col"], strict=True)) == [tuple(a) for a in spec["arcs"]]
    expected = [weights[i][j] for i, j in spec["arcs"]]
    assert arcs["peso"] == expected
    assert arcs["alpha"] == expected
    np.testing.assert_allclose(arcs["width"], arc_width * np.array(expected), rtol=1e-15)
    words = [head_token_html(t) for t in spec["tokens"]]
    assert arcs["tip"] == [
        f"{words[i]} → {words[j]}: α = {html.escape(spec['cells'][i][j])}" for i, j in spec["arcs"]
    ]


# -- class mode (tests/ui/test_classroom.py, tests/ui/test_serve_prod.py) ---------------------


def open_class_page(browser, url: str):
    """A new browser context (a student's or the lecturer's own browser) on ``url``:
    (context, page, its PageWatch) once a section is on screen."""
    context = browser.new_context()
    page = context.new_page()
    watch = PageWatch(page)
    page.goto(url)
    page.locator('[data-testid^="section-"]').first.wait_for(state="attached", timeout=60_000)
    return context, page, watch


def forge_class_actions(base_url: str, messages: list[dict]) -> None:
    """A student's session (no token), by hand over the websocket, sending the lecturer's
    actions to its class panel (tests/c04_client.py)."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from c04_client import ForgingSession

    async def run():
        session = await ForgingSession(base_url, "lecture").open()
        try:
            panel = class_panel_ids(session)
            assert len(panel) == 1
            for message in messages:
                await session.send_msg(panel[0], message)
            await asyncio.sleep(1.0)
            assert not session.closed
        finally:
            await session.close()

    # Playwright keeps an asyncio loop running in the test's thread: the client gets its own.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, run()).result(timeout=120)


def class_panel_ids(session) -> list[str]:
    """The ClassPanel models of a ForgingSession's document (css class ``c04-class``)."""
    return [
        model_id
        for model_id, model in session.models.items()
        if "c04-class" in (model["attributes"].get("css_classes") or [])
    ]


def country_select(page, lang: str = "es"):
    """«La capital»'s country: its Board's native select, named by its label."""
    from attnmodel.i18n import text

    return page.get_by_role("combobox", name=text("capital.country", lang), exact=True)


def class_flow(pages, lecture_url: str, token: str, check_wcag: bool = False) -> None:
    """A lecturer and students (``pages``: one per browser context, the lecturer's first):
    follow, leave by touching, rejoin; a question asked, answered by two, revealed with the
    right counts; the class ended. Every page is already open on ``lecture_url`` except the
    lecturer's, opened here with the token."""
    from playwright.sync_api import expect

    from attnmodel.i18n import text
    from dashboards.demos.capital import CapitalWalkthrough
    from dashboards.sharing import exercises

    lecturer, ana, ben = pages
    following = text("class.following")
    expect(lecturer.get_by_test_id("class-status")).to_contain_text(text("class.lecturer_live"))
    # The token is not left in the address bar (the projector shows it) nor in a copied link.
    assert "profesor" not in lecturer.url
    for student in (ana, ben):
        expect(student.get_by_test_id("class-status")).to_contain_text(following)
        expect(student.get_by_test_id("class-ask")).to_have_count(0)
    # The lecturer opens a section and changes a control: the students show the same numbers.
    lecturer.get_by_role("button", name=text("section.capital")).click()
    country_select(lecturer).select_option("Italia")
    model = CapitalWalkthrough(country="Italia")
    shown = readout_text(model.probability)
    for who, page in zip(("lecturer", "ana", "ben"), pages, strict=True):
        value = page.locator('[data-testid="capital-probability"] .c04-value')
        expect(value, who).to_have_text(shown)
    # Ana touches a control: she leaves follow mode, and it says so.
    country_select(ana).select_option("Francia")
    expect(ana.get_by_test_id("class-status")).to_contain_text(text("class.not_following"))
    expect(ana.get_by_test_id("class-message")).to_contain_text(text("class.left_by_change"))
    france = readout_text(CapitalWalkthrough(country="Francia").probability)
    # The lecturer moves on: Ben follows, Ana keeps her own screen.
    lecturer.get_by_role("button", name=text("section.autoatencion")).click()
    lecturer.locator(".sa-causal input").check()
    causal = ["1,0000", "0,0000", "0,0000"]
    expect(sa_first_row(ben)).to_have_text(causal)
    expect(ana.locator('[data-testid="capital-probability"] .c04-value')).to_have_text(france)
    # One click and she is back on the lecturer's screen.
    ana.get_by_test_id("class-follow").click()
    expect(ana.get_by_test_id("class-status")).to_contain_text(following)
    expect(sa_first_row(ana)).to_have_text(causal)
    # Ask the class; both answer; the lecturer sees the count, then the distribution.
    lecturer.get_by_test_id("class-exercise").select_option("identity_zero")
    lecturer.get_by_test_id("class-ask").click()
    exercise = next(e for e in exercises.exercises() if e.id == "identity_zero")
    question = exercise.text("question")
    for student, option in ((ana, 0), (ben, 2)):
        form = student.get_by_test_id("class-form")
        expect(form).to_contain_text(question)
        if check_wcag and student is ana:
            assert wcag_violations(student) == {}
        form.locator(f"input[value='{option}']").check()
        student.get_by_test_id("class-answer").click()
        expect(student.get_by_test_id("class-message")).to_contain_text(text("class.sent"))
    expect(lecturer.get_by_test_id("class-count")).to_have_text(text("class.count", n=2))
    lecturer.get_by_test_id("class-reveal").click()
    expected = exercises.solve(exercise, CapitalWalkthrough())
    said = exercises.shown(exercise, expected)
    for page in pages:
        expected_line = page.get_by_test_id("class-expected")
        expect(expected_line).to_have_text(text("class.result", answer=said))
    rows = lecturer.get_by_test_id("class-distribution").locator("tbody tr")
    options = exercise.options()
    counts = {0: 1, 1: 0, 2: 1}
    for i, label in enumerate(options):
        mark = "✓ " if i == expected else ""
        expect(rows.nth(i).locator("td").nth(0)).to_have_text(mark + label)
        expect(rows.nth(i).locator("td").nth(1)).to_have_text(str(counts[i]))
    right = counts[expected]
    expect(lecturer.get_by_test_id("class-right")).to_have_text(
        text("class.right_count", right=right, total=2)
    )
    if check_wcag:
        for page in (lecturer, ana):
            assert wcag_violations(page) == {}


def end_class(lecturer, students) -> None:
    from playwright.sync_api import expect

    clear = lecturer.get_by_test_id("class-clear")
    if clear.count():  # a question on screen (a restarted broker starts without one)
        clear.click()
        expect(clear).to_have_count(0)
    lecturer.get_by_test_id("class-end").click()
    for student in students:
        expect(student.get_by_test_id("class-bar")).to_have_count(0)


def sa_first_row(page):
    return page.locator('[data-testid="sa-weights"] tr').nth(1).locator("td:not(.c04-sum)")


def readout_text(probability: float) -> str:
    from attnmodel.formatting import number

    return number(probability, 4)


# -- accessibility (axe-core) ---------------------------------------------------------------

# axe's WCAG 2.1 A and AA rules, nothing else (best practices are not the target).
AXE_OPTIONS = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}
# No rule is excepted: a violation found here is fixed, or listed with its reason.
EXCEPTIONS: dict[str, str] = {}

# Bokeh's markup views have initialised: each asks Bokeh's math provider first, which settles
# "failed" at once in these pages (no MathJax bundle: formulas are MathML written by Python).
SETTLED_JS = """() => {
  if (!window.Bokeh) return document.readyState === 'complete';  // the index: no Bokeh
  const providers = window.Bokeh && Bokeh.require && Bokeh.require('models/text/providers');
  const status = providers ? providers.default_provider.status : 'none';
  if (status === 'loaded' || status === 'failed') return true;
  // A page with no HTML pane (a demo's Board alone) never asks for the provider.
  const doc = window.Bokeh.documents && window.Bokeh.documents[0];
  return status === 'not_started' && Boolean(doc) && doc.is_idle;
}"""


@functools.cache
def _axe_js() -> str:
    """axe-core as the package bundles it (570 kB): put in a page once, not at every check."""
    from axe_playwright_python.sync_playwright import Axe

    return Axe().axe_script


def wcag_violations(page, skip: tuple[str, ...] = ()) -> dict[str, list]:
    """axe's WCAG 2.1 A/AA violations on the page as it is: rule id → the nodes' targets
    (every rule of those tags but the ids in ``skip``)."""
    page.wait_for_function(SETTLED_JS, timeout=30_000)
    # a11y.js names what Bokeh draws in its MutationObserver's callbacks: run by the time two
    # frames have gone by since the page settled.
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_js())
    options = {**AXE_OPTIONS, "rules": {rule: {"enabled": False} for rule in skip}}
    found = page.evaluate("(options) => axe.run(document, options)", options)["violations"]
    return {v["id"]: [n["target"] for n in v["nodes"]] for v in found if v["id"] not in EXCEPTIONS}


# -- A Board's native controls (dashboards/components/board.py) --------------------------------


def use(view, name: str, value=None) -> None:
    """What a browser sends when a student uses control ``name`` of the view's board (a button
    without a value)."""
    msg = {"control": name} if value is None else {"control": name, "value": value}
    view.board.receive(msg)


def control_value(slot):
    """The value a Board's control shows: a range over stops shows the stop at its position."""
    spec = slot.spec
    if slot.kind == "range" and "values" in spec:
        return spec["values"][spec["value"]]
    return spec.get("value")


def board_labels(board) -> dict[str, str]:
    """Each control of a Board's layout → its label."""
    found = {}

    def walk(node):
        if node.get("control"):
            found[node["slot"]] = node["label"]
        for child in node.get("row", []) + node.get("col", []) + node.get("box", []):
            walk(child)

    walk({"col": board.layout})
    return found


def one_refusal(caplog):
    """The one INFO line of a client's value refused (dashboards.runtime.clients.refused): there
    is exactly one, at INFO. Returns it."""
    import logging

    lines = [r for r in caplog.records if "valor de un cliente rechazado" in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    assert lines[0].levelno == logging.INFO
    return lines[0]


def json_leaves(value):
    """Every key and every leaf of a JSON value (dicts and lists walked), depth first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from json_leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from json_leaves(item)
    else:
        yield value


# -- What the page's C04.spec builds (c04.js), computed here from the catalogue and the numbers:
# the expected specs of test_twin_core and of the drawings' announcements. --------------------


def matrix_spec(
    matrix,
    row_labels,
    col_labels,
    decimals: int = 2,
    row_sums: bool = False,
    testid: str | None = None,
    shade: bool = False,
    title: str = "",
    note: str | None = None,
    lang: str = DEFAULT_LANG,
) -> dict:
    """The spec of ``C04.markup.matrix``: cell texts in ``lang``, None for −∞ (masked), each
    row's weights when ``shade`` (cells coloured by value in [0, 1]), its "Σ" when ``row_sums``,
    and a ``note`` under the table. A label may be ``{"text", "lang"}`` (a word kept in
    another language)."""
    m = np.atleast_2d(np.asarray(matrix, dtype=float))
    rows = []
    for label, row in zip(row_labels, m, strict=True):
        rows.append(
            {
                "label": str(label),
                "cells": [None if np.isneginf(v) else number(v, decimals, lang=lang) for v in row],
                "shade": [float(v) for v in row] if shade else None,
                "sum": number(row[np.isfinite(row)].sum(), decimals, lang=lang)
                if row_sums
                else None,
            }
        )
    return {
        "testid": testid,
        "title": title,
        "cols": [str(c) for c in col_labels],
        "rows": rows,
        "note": note,
    }


def rich(key: str, lang: str = DEFAULT_LANG, /, **fields) -> list:
    """Catalogue text ``key`` as a label of ``C04.markup`` (markup.js): the catalogue's own
    text and markup (its formulas as MathML) as ``{"html": …}`` pieces, each ``{field}``
    replaced by its value, itself a label: a text (escaped by the markup), ``{"text", "lang"?,
    "testid"?, "tag"?}`` or a list (a field inside a formula takes a number, as a text).
    The page's ``C04.rich`` builds the same list from the same converted catalogue."""
    parts = i18n.FIELD.split(mathml.catalogue(lang)[key])
    if set(parts[1::2]) != set(fields):
        raise KeyError(f"campos {sorted(set(parts[1::2]))} ≠ valores {sorted(fields)} en {key!r}")
    return [fields[part] if i % 2 else {"html": part} for i, part in enumerate(parts) if part]


def readout_spec(label, value, unit="", testid: str | None = None) -> dict:
    """``C04.markup.readout``: one big number with its label and unit (each a label)."""
    return {"testid": testid, "label": label, "value": value, "unit": unit}


def announce_spec(key: str, lang: str = DEFAULT_LANG, /, **fields) -> dict:
    """The spec of an announcer: catalogue text ``a11y.announce.<key>`` with its fields
    (labels, as ``rich``). ``C04.spec.announce`` builds the same in the export."""
    return {"text": rich(f"a11y.announce.{key}", lang, **fields)}
