"""docs/clase04.ipynb: every registry demo displays in a Jupyter notebook (issue 12).

The notebook runs once, in a kernel of this interpreter (nbclient), and its outputs are checked:
no errors, each demo's view as a Panel output holding every text the view shows, the numbers the
cells print equal to the models', the English view, nothing loaded from a CDN, formulas as MathML
and no MathJax. Then the outputs are drawn as a notebook frontend draws them, in Chromium, with
no kernel and no network: every Board and the MiniLM grid draw, each in its view's language
(before dashboards/app/notebook.py, every one threw on an undefined ``window.C04``).

One test runs the kernel and makes every check (the ``_check_*`` functions, in order): under
`make test` pytest-xdist hands each test to any worker, so a module fixture shared by several
tests could run the notebook once per worker.
"""

from __future__ import annotations

import html
import json
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from attnmodel import CapitalWalkthrough, SelfAttention
from attnmodel.formatting import es_number
from attnmodel.i18n import text
from dashboards.demos.registry import DEMOS

from c04_testing import (
    OFFLINE_PREFIXES,
    PageWatch,
    json_leaves,
    spec_find,
    spec_text,
    viewable_texts,
)
from c04_views import js_views

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "clase04.ipynb"
# Measured: ~13 s for the whole notebook on 2 cores; a cell is bounded, and so the run.
CELL_TIMEOUT = 120
PANEL_MIME = "application/vnd.holoviews_exec.v0+json"
NUMBER = re.compile(r"−?\d+,\d+")


def _execute(scratch: Path) -> tuple[dict, float]:
    """The notebook after one run (cell id -> cell), and the run's wall time."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        nb,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        startup_timeout=60,
        resources={"metadata": {"path": str(NOTEBOOK.parent)}},
    )
    # ipykernel's own spec ("python -m ipykernel_launcher"): jupyter_client runs it with the
    # interpreter that runs the tests, the venv's. The client still owns (and shuts) the kernel.
    assert client.create_kernel_manager().format_kernel_cmd()[0] == sys.executable
    # The kernel's IPython profile in a scratch folder, not the user's home.
    env = {**os.environ, "IPYTHONDIR": str(scratch)}
    start = time.perf_counter()
    client.execute(env=env)
    elapsed = time.perf_counter() - start
    return {cell.get("id"): cell for cell in nb.cells}, elapsed


def _displays(cell) -> list[dict]:
    """What a cell displayed; Panel also leaves an empty display per view, for its console."""
    kinds = ("display_data", "execute_result")
    return [o for o in cell.outputs if o.output_type in kinds and o.data]


def _panel_outputs(cell) -> list[dict]:
    return [o for o in _displays(cell) if PANEL_MIME in o.data]


def _document(output) -> str:
    """The Bokeh document a Panel output carries (its ``docs_json``), as JSON text."""
    found = re.search(r"var docs_json = (\{.*?\});\n", output.data["text/html"], re.S)
    assert found, "a Panel output without its Bokeh document"
    return found.group(1)


def _shown(output) -> str:
    """Every string of the Bokeh document a Panel output carries, joined."""
    return "\n".join(s for s in json_leaves(json.loads(_document(output))) if isinstance(s, str))


def _decoded(value):
    """A value of Bokeh's serialised document as Python: its maps become dicts."""
    if isinstance(value, dict) and value.get("type") == "map":
        return {k: _decoded(v) for k, v in value.get("entries", [])}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def _specs(output, lang: str = "es") -> list:
    """Every Markup component's spec, and every Board's, in the Bokeh document a Panel output
    carries (a Board drawn by its view: the drawing of the state it carries, tests/c04_views.py)."""
    specs = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("attributes", {}).get("spec_json"):
                specs.append(json.loads(node["attributes"]["spec_json"]))
            if node.get("attributes", {}).get("specs_json"):  # a Board's fragments
                specs.extend(json.loads(node["attributes"]["specs_json"]).values())
            attributes = node.get("attributes", {})
            if attributes.get("view") and attributes.get("state_json"):
                state = json.loads(attributes["state_json"])
                specs.extend(js_views(lang).render(attributes["view"], state).values())
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(json.loads(_document(output)))
    return specs


def _assert_shows_the_view(output, view) -> None:
    # The document's strings, and the texts of its Markup specs as markup.js joins them.
    specs = _specs(output, getattr(view, "lang", "es"))
    shown = "\n".join([_shown(output), *(spec_text(s, without_lang="es") for s in specs)])
    texts = [t for t in viewable_texts(view).split("\n") if t.strip()]
    assert texts
    missing = [t for t in texts if t not in shown]
    assert missing == [], f"{type(view).__name__}: not in the notebook output: {missing[:3]}"


def _stdout(cell) -> str:
    return "".join(o.text for o in cell.outputs if o.output_type == "stream" and o.name == "stdout")


def _printed(cell, label: str) -> list[str]:
    lines = [line for line in _stdout(cell).splitlines() if line.startswith(label)]
    assert len(lines) == 1, (label, _stdout(cell))
    return lines[0][len(label) :].split()


def _check_no_errors(cells: dict) -> None:
    for cell_id, cell in cells.items():
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            assert output.output_type != "error", (cell_id, output.get("evalue"))
            if output.output_type == "stream":
                assert output.name == "stdout", (cell_id, output.text)


def test_the_committed_notebook_has_no_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], cell.get("id")
            assert cell.execution_count is None, cell.get("id")


def _check_every_registry_demo_displays_its_view(cells: dict) -> None:
    """One title, then one Panel output per demo, in the registry's order; each output holds
    every text a fresh view of that demo shows (viewable_texts: panes, labels, titles)."""
    cell = cells["demos"]
    displays = _displays(cell)
    assert len(displays) == 2 * len(DEMOS)
    for demo, heading, output in zip(DEMOS, displays[::2], displays[1::2], strict=True):
        assert demo.title() in heading.data["text/markdown"]
        assert demo.model in heading.data["text/markdown"]
        assert PANEL_MIME in output.data, demo.id
        assert output.data["text/plain"].startswith(f"{demo.view}("), demo.id
        _assert_shows_the_view(output, demo.view_class()(model=demo.model_class()()))


def _check_causal_mask_prints_the_models_weights_and_the_view_shows_them(cells: dict) -> None:
    cell = cells["causal"]
    model = SelfAttention(causal=True)
    for i, row in enumerate(model.weights, start=1):
        printed = _printed(cell, f"A, fila {i}:")
        assert printed == [es_number(w, 4) for w in row]
        assert all(NUMBER.fullmatch(p) for p in printed)
    (pane,) = _panel_outputs(cell)
    # The Board carries the model's numbers: self_attention.js draws the model's weights.
    shown = spec_find(_specs(pane), "sa-weights")
    assert [row["cells"] for row in shown["rows"]] == [
        [es_number(w, 4) for w in row] for row in model.weights
    ]


def _check_capital_for_italy_prints_the_models_probability_and_the_view_shows_it(
    cells: dict,
) -> None:
    cell = cells["capital"]
    model = CapitalWalkthrough(country="Italia")
    assert _printed(cell, "Predicción:") == [model.prediction]
    assert _printed(cell, "Probabilidad:") == [es_number(model.probability, 4)]
    (pane,) = _panel_outputs(cell)
    # The steps' Board carries the model's numbers: capital.js draws the model's prediction.
    specs = _specs(pane)
    assert spec_find(specs, "capital-prediction")["value"] == model.prediction
    assert spec_find(specs, "capital-probability")["value"] == es_number(model.probability, 4)


def _check_a_demo_in_english(cells: dict) -> None:
    cell = cells["ingles"]
    demo = DEMOS[0]
    heading, output = _displays(cell)
    assert demo.title("en") in heading.data["text/markdown"]
    english = demo.view_class()(lang="en")
    _assert_shows_the_view(output, english)
    # The view did switch: texts the Spanish view does not have.
    assert set(viewable_texts(english).split("\n")) - set(
        viewable_texts(demo.view_class()()).split("\n")
    )


def _check_nothing_loads_from_a_cdn(cells: dict) -> None:
    """Panel's notebook loader has nothing to fetch (its JS is inline) and no output links a
    script or stylesheet by URL."""
    loaders = [
        o.data["application/javascript"]
        for o in _displays(cells["preparar"])
        if "application/javascript" in o.data
    ]
    (loader,) = [js for js in loaders if "const inline_js = [" in js]
    for name, nothing in (
        ("js_urls", "[]"),
        ("css_urls", "[]"),
        ("js_modules", "[]"),
        ("js_exports", "{}"),
    ):
        found = re.findall(rf"const {name} = ([\[{{].*?[\]}}]);", loader, re.S)
        assert found == [nothing], (name, [f[:200] for f in found])
    for cell_id, cell in cells.items():
        for output in _displays(cell) if cell.cell_type == "code" else []:
            page = output.data.get("text/html", "")
            assert not re.search(r"<(script|link)[^>]+(src|href)=[\"']?(https?:)?//", page), cell_id
            if PANEL_MIME in output.data:
                urls = re.findall(r"https?://[^\s\"'\\)]+\.(?:m?js|css)\b", _shown(output))
                assert urls == [], (cell_id, urls[:3])


def _check_formulas_are_mathml_without_mathjax(cells: dict) -> None:
    """No output carries Bokeh's MathJax bundle (its modules, models/text/mathjax/…): the
    views' formulas are MathML written by Python, in the views' own output."""
    outputs = [
        json.dumps(output.data, ensure_ascii=False)
        for cell in cells.values()
        if cell.cell_type == "code"
        for output in _displays(cell)
    ]
    assert not [o[:200] for o in outputs if "models/text/mathjax/" in o]
    assert any("<math " in html.unescape(html.unescape(o)) for o in outputs)


def _frontend_page(cells: dict) -> str:
    """The code cells' outputs in order, in one page, as a notebook frontend shows them: a
    script for a JavaScript output (Panel's loader), the HTML of the others (Panel's views,
    configure()'s browser code); text, Markdown and streams left out (nothing to draw)."""
    parts = []
    for cell in cells.values():
        for output in _displays(cell) if cell.cell_type == "code" else []:
            if "application/javascript" in output.data:
                code = output.data["application/javascript"].replace("</script", "<\\/script")
                parts.append(f"<script>{code}</script>")
            elif "text/html" in output.data:
                parts.append(output.data["text/html"])
    body = "\n".join(parts)
    return f'<!doctype html><html><head><meta charset="utf-8"></head><body>{body}</body></html>'


def _components(cells: dict) -> list[str]:
    """The class of every Board and HeadGrid in the outputs' Bokeh documents, in order."""
    found = []
    for cell in cells.values():
        for output in _panel_outputs(cell) if cell.cell_type == "code" else []:
            found += re.findall(r'"class_name":\s*"(Board|HeadGrid)"', _document(output))
    return found


# Every Board and HeadGrid view once the page has drawn them (false until as many as the
# documents hold have drawn something): its class, view, language, the text of its slots and
# the cells of its attention weights (self-attention's "sa-weights" table), its tiles.
DRAWN_JS = """(expected) => {
  if (!window.Bokeh) return false;
  const found = [];
  const walk = (view) => {
    const name = view.model && view.model.class_name;
    if (name === "Board" || name === "HeadGrid") found.push(view);
    for (const child of view.child_views || []) walk(child);
  };
  Object.values(Bokeh.index).forEach(walk);
  if (found.length < expected) return false;
  const drawn = found.map((view) => {
    const root = view.shadow_el;
    const weights = root.querySelector('[data-testid="sa-weights"]');
    return {
      name: view.model.class_name,
      view: view.model.data.view || "",
      lang: view.model.data.lang,
      text: Array.from(root.querySelectorAll(".c04-slot"), (el) => el.textContent).join("\\n"),
      weights: weights
        ? Array.from(weights.querySelectorAll("tr"), (tr) =>
            Array.from(tr.querySelectorAll("td:not(.c04-sum)"), (td) => td.textContent))
            .filter((row) => row.length)
        : null,
      tiles: root.querySelectorAll(".c04-headgrid-tile").length,
    };
  });
  return drawn.every((d) => d.text || d.tiles) ? drawn : false;
}"""


def _check_every_view_draws_in_a_browser(cells: dict, page, folder: Path) -> None:
    frontend = folder / "salidas.html"
    frontend.write_text(_frontend_page(cells), encoding="utf-8")
    watch = PageWatch(page, OFFLINE_PREFIXES)
    components = _components(cells)
    assert components.count("HeadGrid") == 1
    assert len(components) > len(DEMOS)
    page.goto(frontend.as_uri())
    try:
        drawn = page.wait_for_function(DRAWN_JS, arg=len(components), timeout=30_000).json_value()
    except PlaywrightTimeout:
        raise AssertionError(f"not every view drew: {watch.console_errors[:3]}") from None
    assert sorted(d["name"] for d in drawn) == sorted(components)
    assert watch.console_errors == []
    assert watch.external == []
    assert {d["lang"] for d in drawn} == {"es", "en"}
    (grid,) = [d for d in drawn if d["name"] == "HeadGrid"]
    assert grid["tiles"] == 72  # MiniLM-L6: 6 layers × 12 heads

    # The words and numbers its view's browser code writes are in the view's language: the
    # default model's weights in English and in Spanish, the causal cell's in Spanish.
    def shown(model, lang):
        point = "," if lang == "es" else "."
        return [[f"{w:.4f}".replace(".", point) for w in row] for row in model.weights]

    tables = [(d["lang"], d["weights"]) for d in drawn if d["view"] == "self_attention"]
    default, causal = SelfAttention(), SelfAttention(causal=True)
    expected = [("es", shown(default, "es")), ("es", shown(causal, "es"))]
    expected.append(("en", shown(default, "en")))
    assert sorted(tables) == sorted(expected)
    for d in drawn:
        if d["view"] == "self_attention":
            other = "es" if d["lang"] == "en" else "en"
            assert text("self_attention.heatmap_title", d["lang"]) in d["text"]
            assert text("self_attention.heatmap_title", other) not in d["text"]


def test_the_notebook_shows_every_demo(tmp_path, page):
    cells, elapsed = _execute(tmp_path)
    print(f"clase04.ipynb: {elapsed:.1f} s")  # shown with -s; --durations shows the test's
    assert elapsed < 3 * CELL_TIMEOUT
    _check_no_errors(cells)
    _check_every_registry_demo_displays_its_view(cells)
    _check_causal_mask_prints_the_models_weights_and_the_view_shows_them(cells)
    _check_capital_for_italy_prints_the_models_probability_and_the_view_shows_it(cells)
    _check_a_demo_in_english(cells)
    _check_nothing_loads_from_a_cdn(cells)
    _check_formulas_are_mathml_without_mathjax(cells)
    _check_every_view_draws_in_a_browser(cells, page, tmp_path)
