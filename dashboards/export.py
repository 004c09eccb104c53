"""`make export`: the lecture as self-contained HTML files to study offline (written to dist/).

    python -m dashboards.export [--out dist]

Pages: ``clase04.html`` (the whole lecture, every section stacked, anchor-link navigation),
one ``<section>.html`` per section and ``index.html`` linking them. Each page is built from the
same views as the live app with their default models, wired for the browser by each view's
``enable_client_side(states)`` (embedded states go into the ``states`` dict under the demo's
name), saved with Bokeh's inline resources, then post-processed so that, opened from file://,
it asks the network for nothing:

- every Bokeh ``ImportedStyleSheet`` (Panel points them at cdn.holoviz.org) becomes an
  ``InlineStyleSheet`` holding the CSS of the installed Panel package (its relative ``url()``s
  as data: URIs);
- the favicon / apple-touch-icon ``<link>``s go;
- the embedded states (``<script type="application/json" id="c04-states">``), the browser twin
  (``dashboards/static/c04.js``, then every other ``dashboards/static/*.js`` and each demo's
  ``dashboards/static/demos/*.js``, by name) and the
  navigation helper go into ``<head>`` before Bokeh's scripts, so ``window.C04`` exists before
  any callback runs.

Anything still pointing at http(s) afterwards stops the export with a message (ExportError).
"""

from __future__ import annotations

import argparse
import base64
import functools
import gzip
import html
import io
import json
import math
import mimetypes
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import panel as pn
from bokeh.resources import INLINE, Resources

from attnmodel.formatting import number
from attnmodel.i18n import DEFAULT_LANG, catalogue_json, languages, text, user_lang
from dashboards.app import present
from dashboards.app.lecture import EXERCISES, SECTIONS, section_marker
from dashboards.app.session import configure
from dashboards.components import mathml
from dashboards.components.board import Board
from dashboards.components.markup import esc, math_md
from dashboards.components.page import CONTENT_ATTRIBUTES, VIEWPORT_META, language_links, skip_pane
from dashboards.components.scripts import (
    json_in_script,
    script_element,
    static_scripts,
    without_comment_lines,
)
from dashboards.components.views import LangColumn
from dashboards.demos import registry
from dashboards.sharing import exercises, live_link, practice

# Relative to where the command runs (the project folder for make; anywhere for `clase04 export`
# after `pip install .`, which must not write into site-packages).
DEFAULT_OUT = Path("dist")
PANEL_DIST = Path(pn.__file__).resolve().parent / "dist"
STATES_ID = "c04-states"
TEXT_ID = "c04-text"  # the catalogue, read by C04.t in c04.js
BROWSER_TABLES = registry.BROWSER_TABLES
LECTURE_FILE = "clase04.html"
INDEX_FILE = "index.html"
# The largest file measured + 10 % (issue 38): clase04.html is 2.48 MB since the bundles and the
# large tables travel gzipped (pack_scripts, packed_states; with «La siguiente palabra» 4.55 MB
# unpacked, 2.30 packed, then «El bloque»; 4.17 MB once every demo sent numbers and each
# section's file carried only its own demos' drawing; 6.55 MB under a 7 MB cap with MathJax).
# Bokeh's widgets and tables bundles stay in every page: panel.min.js imports them when it loads
# (without them Chromium stops at "Cannot find module '@bokehjs/models/widgets/widget'", or
# ".../widgets/tables", and draws nothing).
MAX_BYTES = 2_750_000

# The demos of each section, in the live lecture's order (the registry's), each after its
# marker. The last section, "jugar", has no demo: the export writes it as text.
SECTION_VIEWS: dict[str, tuple[registry.Demo, ...]] = {
    s.id: registry.section_demos(s) for s in SECTIONS if s.demos
}


def exported_sections() -> tuple[str, ...]:
    """The sections with demos the export writes: a section whose model's optional data are
    not installed (MiniLM's weights) is left out, and the export says so."""
    return tuple(s for s, demos in SECTION_VIEWS.items() if all(d.available() for d in demos))


# Same-page anchors cannot reach the markers: Panel renders them inside shadow roots. This
# helper finds a section marker through every shadow root (a11y.js's deepFind, inlined before it
# with the other static scripts) and scrolls to it (also on load when the address has
# #<section>).
NAV_JS = """
window.c04Goto = function (id) {
  var el = C04.a11y.deepFind(document, '[data-testid="section-' + id + '"]');
  if (el) {
    el.scrollIntoView({block: "start"});
    // The fragment is the page's link (links.js): the section goes in it, the state stays.
    var params = new URLSearchParams(location.hash.indexOf("=") > 0 ? location.hash.slice(1) : "");
    params.set("seccion", id);
    var hash = params.toString().replace(/%2C/g, ",").replace(/%3B/g, ";");
    try { history.replaceState(null, "", "#" + hash); } catch (e) { /* file:// may refuse */ }
  }
  return !el;
};
window.addEventListener("load", function () {
  // #capital (an old anchor) or #seccion=capital&… (a link).
  var hash = location.hash.slice(1);
  var id = hash.indexOf("=") >= 0 ? new URLSearchParams(hash).get("seccion") || "" : hash;
  try { id = decodeURIComponent(id); } catch (e) { return; }
  if (!/^[a-z]+$/.test(id)) return;
  // Sections above may still grow while they render: scroll again for two seconds.
  var tries = 0, found = 0;
  var timer = setInterval(function () {
    tries += 1;
    if (!window.c04Goto(id)) found += 1;
    if (found >= 10 || tries > 60) clearInterval(timer);
  }, 200);
});
"""

PAGE_CSS = """
.c04-export-nav a { margin-right: 1.2em; white-space: nowrap; }
.c04-export-bar { font-size: 92%; color: #555; }
"""


class ExportError(RuntimeError):
    """The export cannot produce an offline page: ``ExportError("<key>", field=value, …)``
    with the key of its text in the catalogue's ``[cli.export_error]``; ``str()`` is Spanish,
    :meth:`message` says it in any language (as :class:`attnmodel.i18n.Refusal` does)."""

    def __init__(self, key: str, /, **values):
        self.key = key
        self.values = values
        super().__init__(self.message(DEFAULT_LANG))

    def message(self, lang: str = DEFAULT_LANG) -> str:
        return text(f"cli.export_error.{self.key}", lang, **self.values)


# ---------------------------------------------------------------------------------------------
# Building the pages


@dataclass
class Wiring:
    """Builds a page's views in its language, calls each view's ``enable_client_side`` and
    collects the embedded states of the page."""

    lang: str = DEFAULT_LANG
    states: dict = field(default_factory=dict)
    count: int = 0
    sections: bool = False  # the page holds every section (its links name one)
    exercises: list = field(default_factory=list)  # the ids of the page's exercise cards
    modules: set = field(default_factory=set)  # the page's demos: only their drawing is inlined

    def __call__(self, view, demo_id: str | None = None):
        if hasattr(view, "enable_client_side"):
            self.count += int(view.enable_client_side(self.states) or 0)
        if demo_id is not None:
            self.modules.add(registry.demo(demo_id).module)
            live_link.export_spec(self.states, demo_id, view, self.lang, self.sections)
        return view


def lang_dir(lang: str) -> str:
    """Where a language's files go inside the export folder: Spanish at the top, others in
    ``<lang>/`` (``dist/en/clase04.html``)."""
    return "" if lang == DEFAULT_LANG else f"{lang}/"


def _goto(section_id: str, label: str) -> str:
    """An anchor link to a section of the same page (works through the shadow roots)."""
    return (
        f'<a href="#{esc(section_id)}" onclick="return c04Goto(&#x27;{esc(section_id)}&#x27;)">'
        f"{label}</a>"
    )


def _section(section_id: str, wire: Wiring) -> LangColumn:
    parts = []
    for demo in SECTION_VIEWS[section_id]:
        view = demo.view_class()(lang=wire.lang)
        present.mark_compare(demo.id, view)
        parts += [
            *live_link.demo_parts(wire(view, demo.id), section_id, wire.lang, demo.id),
            practice.block(demo.id, wire.lang),
        ]
        wire.exercises += [e.id for e in exercises.of_demo(demo.id)]
    return LangColumn(*[p for p in parts if p is not None], sizing_mode="stretch_width")


def _exercises(lang: str) -> pn.Column:
    rows = [
        section_marker("jugar"),
        math_md(text("export.exercises", lang), margin=(0, 10)),
    ]
    labels = {s.id: s.label(lang) for s in SECTIONS}
    for exercise in EXERCISES:
        link = _goto(exercise.section, f"→ {esc(labels[exercise.section])}")
        rows.append(math_md(f"• {exercise.text(lang)} {link}", margin=(0, 10)))
    rows += [
        pn.pane.HTML(f"<p>{esc(text('exercises.in_sections', lang))}</p>", margin=(10, 10, 0, 10)),
        practice.progress([e.id for e in exercises.exercises()], lang),
    ]
    return pn.Column(*rows, sizing_mode="stretch_width")


def file_in_languages(filename: str, lang: str) -> str:
    """Links to the same file in every other language, from a page in ``lang``."""
    up = "../" if lang_dir(lang) else ""
    return language_links(lambda other: f"{up}{lang_dir(other)}{filename}", lang)


def _bar(filename: str, lang: str) -> pn.pane.HTML:
    return pn.pane.HTML(
        f'<nav class="c04-export-bar" aria-label="{esc(text("export.index_link", lang))}">'
        f'<a href="{INDEX_FILE}">{esc(text("export.index_link", lang))}'
        f'</a> · <a href="{LECTURE_FILE}">{esc(text("export.lecture_link", lang))}</a> · '
        f"{file_in_languages(filename, lang)}</nav>",
        stylesheets=[PAGE_CSS],
        margin=(6, 20, 0, 20),
    )


def build_lecture(wire: Wiring) -> pn.viewable.Viewable:
    """Header, anchor-link navigation, every section stacked, "Para seguir jugando" as text."""
    lang = wire.lang
    wire.sections = True
    kept = exported_sections()
    links = "".join(
        _goto(s.id, esc(s.label(lang))) for s in SECTIONS if s.id in kept or not s.demos
    )
    nav = pn.pane.HTML(
        f'<nav class="c04-export-nav" data-testid="export-nav" '
        f'aria-label="{esc(text("a11y.nav", lang))}">'
        f"<b>{esc(text('export.nav', lang))}</b> {links}</nav>",
        stylesheets=[PAGE_CSS],
        margin=(0, 20, 10, 20),
        sizing_mode="stretch_width",
    )
    sections = [_section(section_id, wire) for section_id in kept]
    return pn.Column(
        skip_pane(lang),
        _bar(LECTURE_FILE, lang),
        math_md(text("lecture.intro", lang), margin=(0, 20), css_classes=["c04-prose"]),
        nav,
        present.presenter(lang, mode="export"),
        live_link.notice_pane(),
        LangColumn(
            *sections,
            _exercises(lang),
            sizing_mode="stretch_width",
            html_attributes=dict(CONTENT_ATTRIBUTES),
        ),
        sizing_mode="stretch_width",
        max_width=1400,
    )


def _section_page(section_id: str) -> Callable[[Wiring], pn.viewable.Viewable]:
    def build(wire: Wiring) -> pn.viewable.Viewable:
        content = _section(section_id, wire)
        content.html_attributes = dict(CONTENT_ATTRIBUTES)
        return pn.Column(
            skip_pane(wire.lang),
            _bar(f"{section_id}.html", wire.lang),
            present.presenter(wire.lang, [section_id], mode="export"),
            live_link.notice_pane(),
            content,
            practice.progress(list(wire.exercises), wire.lang),
            sizing_mode="stretch_width",
            max_width=1400,
        )

    return build


@dataclass(frozen=True)
class Page:
    filename: str
    title: str
    description: str
    build: Callable[[Wiring], pn.viewable.Viewable]
    lang: str = DEFAULT_LANG

    @property
    def path(self) -> str:
        """Where it goes inside the export folder (``en/clase04.html``)."""
        return f"{lang_dir(self.lang)}{self.filename}"


def pages(lang: str = DEFAULT_LANG) -> tuple[Page, ...]:
    """The whole lecture and one page per section, in ``lang``."""
    labels = {s.id: s.label(lang) for s in SECTIONS}
    return (
        Page(
            LECTURE_FILE,
            text("lecture.title", lang),
            text("export.lecture_description", lang),
            build_lecture,
            lang,
        ),
        *(
            Page(
                f"{section_id}.html",
                text("export.page_title", lang, label=labels[section_id]),
                labels[section_id],
                _section_page(section_id),
                lang,
            )
            for section_id in exported_sections()
        ),
    )


PAGES = pages()


# ---------------------------------------------------------------------------------------------
# Post-processing the saved HTML


@dataclass
class Processed:
    html: str
    inlined: list[str] = field(default_factory=list)  # the stylesheet URLs made inline
    removed: list[str] = field(default_factory=list)  # the <link> tags taken out


# Bokeh's documents, HTML-escaped JSON; not the export's own JSON (ids "c04-…": the states and
# the catalogue, plain JSON whose MathML holds character references unescaping would change).
_DOC_JSON = re.compile(
    r'(<script type="application/json" id="(?!c04-)[^"]*">)(.*?)(</script>)', re.S
)
_ICON_LINK = re.compile(
    r"<link\b[^>]*\brel=[\"'](?:shortcut icon|icon|apple-touch-icon[^\"']*)[\"'][^>]*>\s*", re.I
)
_HEAD = re.compile(r"<head\b[^>]*>\s*(?:<meta charset=[^>]*>\s*)?", re.I)
_CSS_URL = re.compile(r"url\(\s*(['\"]?)([^'\")]+)\1\s*\)")
_REMOTE = re.compile(r"^\s*(?:https?:)?//", re.I)


def _local_css_path(url: str, dist_dir: Path) -> Path:
    parts = urlsplit(url)
    if "/dist/" not in parts.path:
        raise ExportError("remote_css", url=url)
    path = dist_dir / parts.path.split("/dist/", 1)[1]
    if not path.is_file():
        raise ExportError("css_missing", url=url, path=path)
    return path


def _data_uri(path: Path) -> str:
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def inline_css(path: Path) -> str:
    """The CSS of a local file, its relative ``url()``s turned into data: URIs."""
    css = path.read_text(encoding="utf-8")

    def replace(match: re.Match) -> str:
        target = match.group(2).strip()
        if target.startswith(("data:", "#")):
            return match.group(0)
        if _REMOTE.match(target):
            raise ExportError("css_remote_asset", name=path.name, target=target)
        asset = (path.parent / target.split("?", 1)[0].split("#", 1)[0]).resolve()
        if not asset.is_file():
            raise ExportError("css_asset_missing", name=path.name, target=target, asset=asset)
        return f'url("{_data_uri(asset)}")'

    return _CSS_URL.sub(replace, css)


def _inline_stylesheets(node, dist_dir: Path, inlined: list[str], cache: dict) -> None:
    if isinstance(node, dict):
        if node.get("type") == "object" and node.get("name") == "ImportedStyleSheet":
            url = node.get("attributes", {}).get("url", "")
            if _REMOTE.match(url):
                if url not in cache:
                    cache[url] = inline_css(_local_css_path(url, dist_dir))
                node["name"] = "InlineStyleSheet"
                node["attributes"] = {"css": cache[url]}
                inlined.append(url)
        for value in node.values():
            _inline_stylesheets(value, dist_dir, inlined, cache)
    elif isinstance(node, list):
        for value in node:
            _inline_stylesheets(value, dist_dir, inlined, cache)


# Panel gives every model its own copy of the stylesheets that do not change per model (its
# loading spinner, the lecture's raw_css): 254 copies, 0,33 MB of each lecture file. One
# InlineStyleSheet per text, referred to by id as Bokeh refers to any shared model, styles the
# same shadow roots.
SHARED_CSS_MIN = 200  # characters: shorter per-pane stylesheets are not worth a reference


def _share_stylesheets(node, shared: dict[str, str]) -> None:
    if isinstance(node, dict):
        sheets = node.get("attributes", {}).get("stylesheets") if "attributes" in node else None
        if isinstance(sheets, list):
            for i, sheet in enumerate(sheets):
                if not isinstance(sheet, str) or len(sheet) < SHARED_CSS_MIN:
                    continue
                if sheet in shared:
                    sheets[i] = {"id": shared[sheet]}
                else:
                    shared[sheet] = f"c04-css-{len(shared) + 1}"
                    sheets[i] = {
                        "type": "object",
                        "name": "InlineStyleSheet",
                        "id": shared[sheet],
                        "attributes": {"css": sheet},
                    }
        for value in node.values():
            _share_stylesheets(value, shared)
    elif isinstance(node, list):
        for value in node:
            _share_stylesheets(value, shared)


def _imported_stylesheets(node):
    if isinstance(node, dict):
        if node.get("type") == "object" and node.get("name") == "ImportedStyleSheet":
            yield node.get("attributes", {}).get("url", "")
        for value in node.values():
            yield from _imported_stylesheets(value)
    elif isinstance(node, list):
        for value in node:
            yield from _imported_stylesheets(value)


def _jsonable(value, where: str = "estados"):
    """Plain JSON types (numpy arrays and scalars converted); NaN/±inf are refused."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist(), where)
    if isinstance(value, np.generic):
        return _jsonable(value.item(), where)
    if isinstance(value, float) and not math.isfinite(value):
        raise ExportError("not_finite", where=where, value=value)
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise ExportError("not_json", where=where, kind=type(value).__name__)


def states_json(states: dict) -> str:
    """The embedded states as JSON that is safe inside a <script> element."""
    return json_in_script(json.dumps(_jsonable(states), ensure_ascii=False, separators=(",", ":")))


# A demo's part of the states larger than this goes gzipped (base64): the tables of numbers
# shrink to a fifth to four fifths (training's 325 KB to 60 KB), ~0.5 MB of clase04.html. The page
# unpacks them once as it loads (c04.js, DecompressionStream); a control used before waits.
PACK_BYTES = 16_000
PACKED = "c04_gzip"


def packed_states(states: dict) -> dict:
    """``states`` with every part over PACK_BYTES of JSON as ``{PACKED: base64(gzip(json))}``."""
    out = {}
    for key, value in states.items():
        text = json.dumps(_jsonable(value), ensure_ascii=False, separators=(",", ":"))
        if len(text.encode()) > PACK_BYTES:
            packed = gzip.compress(text.encode(), compresslevel=9, mtime=0)
            value = {PACKED: base64.b64encode(packed).decode("ascii")}
        out[key] = value
    return out


def unpacked_states(text: str) -> dict:
    """The embedded states as a page reads them: the JSON of the <script>, packed parts
    unpacked (the tests read the shipped tables so)."""
    states = json.loads(text)
    for key, value in states.items():
        if isinstance(value, dict) and set(value) == {PACKED}:
            states[key] = json.loads(gzip.decompress(base64.b64decode(value[PACKED])))
    return states


def _html_outside_scripts(page: str) -> str:
    page = re.sub(r"(<script\b[^>]*>).*?(</script>)", r"\1\2", page, flags=re.S | re.I)
    return re.sub(r"(<style\b[^>]*>).*?(</style>)", r"\1\2", page, flags=re.S | re.I)


def check_offline(page: str) -> None:
    """Raise ExportError if the page still loads anything from a URL (tags or stylesheets)."""
    markup = _html_outside_scripts(page)
    for tag in re.findall(r"<(?:link|script|img|iframe)\b[^>]*>", markup, re.I):
        for url in re.findall(r"\b(?:href|src)=[\"']([^\"']*)[\"']", tag, re.I):
            if _REMOTE.match(url):
                raise ExportError("still_remote", url=url, tag=tag)
    for match in _DOC_JSON.finditer(page):
        docs = json.loads(html.unescape(match.group(2)))
        for url in _imported_stylesheets(docs):
            if not url.startswith("data:"):
                raise ExportError("css_not_inlined", url=url)


def head_elements(
    scripts: list[tuple[str, str]], states: dict, lang: str = "es", pack: bool = True
) -> list[str]:
    """What goes first into an exported page's <head>, in order: the embedded states (the
    large parts packed, unless ``pack`` is false: a test's page that reads them at once), the
    language's text catalogue (both JSON data; its formulas as MathML, as the views write
    them) and the twin's scripts."""
    entries = mathml.catalogue(lang)
    shipped = packed_states(states) if pack else states
    return [
        f'<script type="application/json" id="{STATES_ID}">{states_json(shipped)}</script>',
        f'<script type="application/json" id="{TEXT_ID}">'
        f"{json_in_script(catalogue_json(lang, BROWSER_TABLES, entries))}</script>",
        *(script_element(f"/* {name} */\n{text}") for name, text in scripts),
    ]


def postprocess(
    page: str,
    scripts: list[tuple[str, str]] | None = None,
    states: dict | None = None,
    dist_dir: Path = PANEL_DIST,
    lang: str = DEFAULT_LANG,
) -> Processed:
    """Make a page saved with ``resources=INLINE`` need nothing from the network (see top)."""
    result = Processed(page)
    cache: dict[str, str] = {}
    matches = list(_DOC_JSON.finditer(page))
    if not matches:
        raise ExportError("no_document")
    pieces, last = [], 0
    for match in matches:
        docs = json.loads(html.unescape(match.group(2)))
        _inline_stylesheets(docs, dist_dir, result.inlined, cache)
        _share_stylesheets(docs, {})
        text = json.dumps(docs, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        pieces += [page[last : match.start(2)], html.escape(text, quote=False)]
        last = match.end(2)
    page = "".join([*pieces, page[last:]])

    result.removed = [m.group(0).strip() for m in _ICON_LINK.finditer(page)]
    page = _ICON_LINK.sub("", page)
    page = re.sub(r'<html lang="[^"]*"', f'<html lang="{lang}"', page, count=1)

    head = _HEAD.search(page)
    if head is None:
        raise ExportError("no_head")
    injected = [
        VIEWPORT_META,
        *head_elements(scripts or [], states or {}, lang),
        script_element(NAV_JS),
    ]
    if 'class="c04-first-step"' in page:
        injected += [FIRST_STEP_CSS, script_element(FIRST_STEP_JS)]
    # After <meta charset>: the browser only honours it within the first 1024 bytes.
    page = page[: head.end()] + "\n".join(injected) + "\n" + page[head.end() :]

    check_offline(page)
    result.html = page
    return result


# A page's scripts from the first one over PACK_SCRIPT_BYTES on (Bokeh's and Panel's bundles, 2.7
# MB a page) go gzipped (base64, a third of their size) and run, in their order, once unpacked
# (UNPACK_JS, the page's last script). Bokeh's embed script is one of them: it draws the
# document when it runs, the page being parsed by then.
PACK_SCRIPT_BYTES = 64_000
PACKED_JS = "text/x-c04-gzip"
DEFERRED_JS = "text/x-c04-defer"
_SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S | re.I)
_EXECUTABLE = re.compile(r'^\s*(?:type="text/javascript")?\s*$', re.I)
UNPACK_JS = """(() => {
  if (!window.DecompressionStream) {  // Chromium 80, Firefox 113, Safari 16.4 have it
    const note = document.createElement("p");
    note.setAttribute("role", "alert");
    note.textContent = OLD_BROWSER;
    document.body.prepend(note);
    return;
  }
  const waiting = Array.from(document.querySelectorAll(
    'script[type="PACKED"], script[type="DEFERRED"]'));
  const js = { type: "text/javascript" };
  const unzip = (base64) => {  // as C04.bytes (c04.js): native, else a loop, not a map
    let bytes;
    if (Uint8Array.fromBase64) bytes = Uint8Array.fromBase64(base64);
    else {
      const text = atob(base64);
      bytes = new Uint8Array(text.length);
      for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    }
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).blob().then((blob) => new Blob([blob], js));
  };
  // Each script from a blob: URL (compiled as a loaded file is, off the main thread), not
  // async: they run in the order they are added, as they stood in the page.
  Promise.all(waiting.map((el) => (el.type === "PACKED" ? unzip(el.textContent)
    : new Blob([el.textContent], js))))
    .then((blobs) => blobs.forEach((blob, i) => {
      const run = document.createElement("script");
      run.async = false;
      run.src = URL.createObjectURL(blob);
      waiting[i].replaceWith(run);
    }));
})();""".replace("PACKED", PACKED_JS).replace("DEFERRED", DEFERRED_JS)


@functools.lru_cache(maxsize=16)  # the same bundles in every page of an export
def _gzipped(body: str) -> str:
    return base64.b64encode(gzip.compress(body.encode(), compresslevel=9, mtime=0)).decode()


def pack_scripts(page: str, lang: str = DEFAULT_LANG) -> str:
    """``page`` with its scripts from the first large one on packed (large) or deferred
    (small), and UNPACK_JS before </body> to run them in order (or, in a browser without
    DecompressionStream, to say so in ``lang``)."""
    out, last, packing = [], 0, False
    for match in _SCRIPT.finditer(page):
        attributes, body = match.group(1), match.group(2)
        if not _EXECUTABLE.match(attributes):
            continue
        size = len(body.encode())
        packing = packing or size > PACK_SCRIPT_BYTES
        if not packing:
            continue
        if size > PACK_SCRIPT_BYTES:
            tag = f'<script type="{PACKED_JS}">{_gzipped(body)}</script>'
        else:
            tag = f'<script type="{DEFERRED_JS}">{body}</script>'
        out += [page[last : match.start()], tag]
        last = match.end()
    if not packing:
        return page
    page = "".join([*out, page[last:]])
    end = page.rindex("</body>")
    return page[:end] + script_element(_unpack_js(lang)) + "\n" + page[end:]


def _unpack_js(lang: str) -> str:
    return UNPACK_JS.replace("OLD_BROWSER", json.dumps(text("export.old_browser", lang)))


def unpacked_page(page: str) -> str:
    """The page as it runs: every packed or deferred script as the plain one it was (the
    tests read the exported files' code so)."""

    def plain(match: re.Match) -> str:
        attributes, body = match.group(1), match.group(2)
        if PACKED_JS in attributes:
            body = gzip.decompress(base64.b64decode(body)).decode()
        elif DEFERRED_JS not in attributes:
            return match.group(0)
        return f'<script type="text/javascript">{body}</script>'

    unpack = re.compile(
        re.escape(script_element(UNPACK_JS)).replace("OLD_BROWSER", '"[^"]*"') + "\n"
    )
    return _SCRIPT.sub(plain, unpack.sub("", page))


# ---------------------------------------------------------------------------------------------
# The export


@dataclass
class Result:
    filename: str
    size: int
    states: int
    seconds: float
    inlined: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def mb(size: int, lang: str = DEFAULT_LANG) -> str:
    return number(size / 1e6, 2, lang=lang)


# Bokeh's inline bundles without bokeh-mathjax (1,8 MB a file: Panel adds it to every page with
# an HTML pane, and the formulas are MathML written by Python, components/mathml.py) and
# without bokeh-gl (0,19 MB a file), which only WebGL plots use: Bokeh's own file_html leaves
# it out in that case too; Panel's save does not.
INLINE_NO_MATHJAX = Resources(
    mode="inline", components=[c for c in INLINE.components if c != "bokeh-mathjax"]
)
INLINE_NO_GL = Resources(
    mode="inline", components=[c for c in INLINE_NO_MATHJAX.components if c != "bokeh-gl"]
)


def save_html(layout: pn.viewable.Viewable, title: str) -> str:
    """The page as ``save(resources=INLINE)`` writes it, without MathJax (bokeh-gl only if a
    plot uses WebGL)."""
    for resources in (INLINE_NO_GL, INLINE_NO_MATHJAX):
        buffer = io.StringIO()
        pn.panel(layout).save(buffer, resources=resources, title=title)
        page = buffer.getvalue()
        if '"output_backend":"webgl"' not in page:
            break
    return page


def render_page(page: Page, scripts: list[tuple[str, str]]) -> tuple[Processed, int]:
    wire = Wiring(page.lang)
    layout = page.build(wire)
    # A section's file carries the drawing of its own demos only (dashboards/static/demos/).
    drawings = {f"{d.module}.js" for d in registry.DEMOS}
    used = [(n, c) for n, c in scripts if n not in drawings or n[:-3] in wire.modules]
    saved = save_html(layout, page.title)
    if not wire.sections:
        saved = with_first_step(saved, first_step(layout))
    processed = postprocess(saved, used, wire.states, lang=page.lang)
    processed.html = pack_scripts(processed.html, page.lang)
    return processed, wire.count


# A section's file draws in two steps (issue 38). First, as soon as the page is parsed, its
# first demo's title and introduction (with their formulas): plain HTML in Bokeh's root element,
# 0.4–0.7 s on the 4×-throttled phone, 1.3–1.9 s before the bundles have drawn the section. Then
# Bokeh's document, put beside it in the same element: CSS hides the first step at once, and a
# MutationObserver takes it out of the page (its text is then once in the page, for a search or
# a test's locator). A browser without JavaScript keeps the first step.
FIRST_STEP_CSS = """<style>
.c04-first-step { font-family: Helvetica, Arial, sans-serif; font-size: 12px; line-height: 1.43;
  color: #212529; max-width: 1400px; padding: 40px 10px 0; }
.c04-first-step h2 { font-size: 18px; margin: 15px 0; }
[data-root-id] > .c04-first-step:not(:only-child) { display: none; }
</style>"""
FIRST_STEP_JS = """document.addEventListener("DOMContentLoaded", () => {
  const step = document.querySelector(".c04-first-step");
  if (!step) return;
  new MutationObserver((_, observer) => {
    observer.disconnect();
    step.remove();
  }).observe(step.parentNode, { childList: true });
});"""
_ROOT_ELEMENT = re.compile(r'(<div id="[^"]+" data-root-id="[^"]+"[^>]*>)(</div>)')
_ANCHOR = re.compile(r'<p><a id="[^"]*"></a></p>\s*|<a id="[^"]*"></a>')


def first_step(layout: pn.viewable.Viewable) -> str:
    """The first step of a page: the leading prose of its first Board (its demo's title and
    introduction, the HTML the Board shows there), without the anchors the Board keeps."""
    boards = layout.select(Board)
    nodes = []
    for node in boards[0].layout if boards else []:
        if "html" not in node:
            break
        css = esc(node.get("css", ""))
        nodes.append(f'<div class="{css}">{_ANCHOR.sub("", node["html"])}</div>')
    return f'<div class="c04-first-step">{"".join(nodes)}</div>' if nodes else ""


def with_first_step(page: str, step: str) -> str:
    """``page`` with ``step`` inside its Bokeh root element (a page of one root)."""
    roots = _ROOT_ELEMENT.findall(page)
    if not step or len(roots) != 1:
        return page
    return _ROOT_ELEMENT.sub(lambda m: m.group(1) + step + m.group(2), page)


def index_html(results: list[Result], lang: str = DEFAULT_LANG) -> str:
    """A plain page (no script, no external resource) linking every exported file of ``lang``
    (``results``: one per page of ``pages(lang)``, in order) and the other languages' indexes."""
    rows = "".join(
        # The file names are the sections' ids, Spanish words: marked as such on every page.
        f'<tr><td><a href="{esc(p.filename)}" lang="es">{esc(p.filename)}</a></td>'
        f"<td>{esc(p.description)}</td><td class='n'>{mb(r.size, lang)} MB</td></tr>"
        for r, p in zip(results, pages(lang), strict=True)
    )
    title = text("lecture.title", lang)
    return f"""<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
{VIEWPORT_META}
<title>{esc(text("export.index_title", lang, title=title))}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 46em; margin: 2em auto; padding: 0 1em;
  color: #222; line-height: 1.5; }}
table {{ border-collapse: collapse; }}
th, td {{ text-align: left; padding: 4px 12px; border-bottom: 1px solid #d6dbe3; }}
td.n {{ text-align: right; font-variant-numeric: tabular-nums; }}
a {{ color: #1f5fa8; }}
</style>
</head>
<body>
<p>{file_in_languages(INDEX_FILE, lang)}</p>
<h1>{esc(title)}</h1>
<p>{esc(text("export.index_lead", lang))}</p>
<table data-testid="export-files">
<tr><th>{esc(text("export.index_file", lang))}</th><th>{esc(text("export.index_content", lang))}\
</th><th>{esc(text("export.index_size", lang))}</th></tr>
{rows}
</table>
</body>
</html>
"""


def export(
    out_dir: Path = DEFAULT_OUT,
    log: Callable[[str], None] = print,
    langs: tuple[str, ...] | None = None,
    say: str = DEFAULT_LANG,
) -> list[Result]:
    """Write every page and an index.html per language (Spanish in ``out_dir``, the others in
    ``out_dir/<lang>/``); return one Result per file, its path relative to ``out_dir``. ``log``
    gets one line per file in the language ``say``."""
    configure()
    out_dir = Path(out_dir)
    scripts = [(name, without_comment_lines(code)) for name, code in static_scripts()]
    langs = tuple(langs or languages())
    total = sum(len(pages(lang)) + 1 for lang in langs)
    kept = exported_sections()
    for section in SECTIONS:
        if section.id in SECTION_VIEWS and section.id not in kept:
            log(text("cli.export_skipped", say, section=section.label(say)))
    results: list[Result] = []
    n = 0
    for lang in langs:
        (out_dir / lang_dir(lang)).mkdir(parents=True, exist_ok=True)
        done: list[Result] = []
        for page in pages(lang):
            n += 1
            start = time.perf_counter()
            processed, count = render_page(page, scripts)
            data = processed.html.encode("utf-8")
            (out_dir / page.path).write_bytes(data)
            result = Result(
                page.path,
                len(data),
                count,
                time.perf_counter() - start,
                processed.inlined,
                processed.removed,
            )
            done.append(result)
            seconds = number(result.seconds, 1, lang=say)
            size = mb(result.size, say)
            log(
                text(
                    "cli.export_page",
                    say,
                    n=n,
                    total=total,
                    path=page.path,
                    states=count,
                    mb=size,
                    seconds=seconds,
                )
            )
        n += 1
        start = time.perf_counter()
        data = index_html(done, lang).encode("utf-8")
        index = f"{lang_dir(lang)}{INDEX_FILE}"
        (out_dir / index).write_bytes(data)
        done.append(Result(index, len(data), 0, time.perf_counter() - start))
        log(text("cli.export_index", say, n=n, total=total, path=index, mb=mb(len(data), say)))
        results += done
    return results


def summary(results: list[Result], seconds: float, lang: str = DEFAULT_LANG) -> str:
    """The table ``clase04 export`` prints at the end: one row per file, then the total."""
    rows = [(text("cli.export_header", lang), "MB", text("cli.export_states", lang), "s")]
    rows += [
        (r.filename, mb(r.size, lang), str(r.states), number(r.seconds, 1, lang=lang))
        for r in results
    ]
    rows.append(
        (
            text("cli.export_total", lang),
            mb(sum(r.size for r in results), lang),
            str(sum(r.states for r in results)),
            number(seconds, 1, lang=lang),
        )
    )
    width = max(len(row[0]) for row in rows)
    states = max(len(row[2]) for row in rows)
    return "\n".join(f"{a:<{width}}  {b:>6}  {c:>{states}}  {d:>5}" for a, b, c, d in rows)


def main(
    argv: list[str] | None = None,
    prog: str = "python -m dashboards.export",
    lang: str | None = None,
) -> int:
    """The export's command line; its messages in ``lang`` (default: the environment's)."""
    say = lang or user_lang()
    parser = argparse.ArgumentParser(prog=prog, description=text("cli.export_description", say))
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=text("cli.export_out", say))
    parser.add_argument(
        "--lang", action="append", choices=languages(), help=text("cli.export_lang", say)
    )
    args = parser.parse_args(argv)
    try:
        exercises.load()
    except exercises.ExerciseError as exc:
        print(text("cli.exercises_failed", say, message=exc), file=sys.stderr)
        return 1
    start = time.perf_counter()
    print(text("cli.export_start", say, out=args.out), flush=True)
    try:
        results = export(
            args.out, log=lambda line: print(line, flush=True), langs=args.lang, say=say
        )
    except ExportError as exc:
        print(text("cli.export_failed", say, message=exc.message(say)), file=sys.stderr)
        return 1
    except OSError as exc:
        print(text("cli.export_failed", say, message=exc), file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    print()
    print(summary(results, seconds, say))
    done = number(seconds, 1, lang=say)
    print(text("cli.export_done", say, seconds=done, index=args.out / INDEX_FILE))
    too_big = [r.filename for r in results if r.size > MAX_BYTES]
    if too_big:
        print(text("cli.export_too_big", say, files=", ".join(too_big)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
