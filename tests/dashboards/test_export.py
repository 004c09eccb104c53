"""dashboards.export without a browser: the post-processing of a saved page and the page list."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess

import panel as pn
import pytest

from attnmodel.i18n import text
from dashboards import export
from dashboards.app.lecture import SECTIONS
from dashboards.app.session import configure
from dashboards.components.scripts import SCRIPT_DIRS, static_scripts, without_comment_lines


@pytest.fixture(scope="module")
def saved_page() -> str:
    """A small page saved like the export saves: Markdown with math, a select, a button."""
    configure()
    layout = pn.Column(
        pn.pane.Markdown("## Hola $$x^2$$"),
        pn.widgets.Select(options=["a", "b"]),
        pn.widgets.Button(label="Probar"),
    )
    return export.save_html(layout, "Prueba")


def docs_of(page: str) -> list[dict]:
    return [json.loads(html.unescape(m.group(2))) for m in export._DOC_JSON.finditer(page)]


def stylesheets(node, name: str):
    if isinstance(node, dict):
        if node.get("type") == "object" and node.get("name") == name:
            yield node
        for value in node.values():
            yield from stylesheets(value, name)
    elif isinstance(node, list):
        for value in node:
            yield from stylesheets(value, name)


def head_of(page: str) -> str:
    return page.split("</head>", 1)[0]


def test_the_saved_page_points_at_the_cdn_before_processing(saved_page):
    """What the post-processing is for: Panel's save leaves CDN stylesheets and icons."""
    urls = [s["attributes"]["url"] for s in stylesheets(docs_of(saved_page), "ImportedStyleSheet")]
    assert urls
    assert all(u.startswith("https://cdn.holoviz.org/panel/") for u in urls)
    assert 'rel="icon"' in saved_page
    with pytest.raises(export.ExportError, match="desde internet"):
        export.check_offline(saved_page)


def test_imported_stylesheets_become_inline_with_the_local_css(saved_page):
    before = {
        s["id"]: s["attributes"]["url"]
        for s in stylesheets(docs_of(saved_page), "ImportedStyleSheet")
    }
    result = export.postprocess(saved_page)
    docs = docs_of(result.html)
    assert list(stylesheets(docs, "ImportedStyleSheet")) == []
    inline = {s["id"]: s["attributes"]["css"] for s in stylesheets(docs, "InlineStyleSheet")}
    assert set(before) <= set(inline)  # same ids, so every reference still resolves
    assert sorted(result.inlined) == sorted(before.values())
    for sid, url in before.items():
        path = export.PANEL_DIST / url.split("/dist/", 1)[1].split("?", 1)[0]
        if "url(" not in path.read_text(encoding="utf-8"):
            assert inline[sid] == path.read_text(encoding="utf-8")
        assert "cdn.holoviz.org" not in inline[sid]
    export.check_offline(result.html)  # does not raise


def test_relative_css_urls_become_data_uris():
    css = export.inline_css(export.PANEL_DIST / "css" / "loading.css")
    assert "../assets/" not in css
    assert 'url("data:image/svg+xml;base64,' in css


def test_favicon_links_are_removed(saved_page):
    result = export.postprocess(saved_page)
    assert not re.search(r"<link\b[^>]*\bicon", result.html, re.I)
    assert any("favicon" in link for link in result.removed)
    assert any("apple-touch-icon" in link for link in result.removed)


def test_scripts_and_states_are_injected_in_head_before_bokeh(saved_page):
    scripts = [("c04.js", "window.C04 = {views: {}};"), ("demo.js", "var s = '</script>';")]
    states = {"demo": {"a|b": {"x": [0.5, 1.0], "html": "<b>Hola & adiós</b>"}}}
    page = export.postprocess(saved_page, scripts, states).html
    head = head_of(page)
    core, demo, bokeh = (
        head.index("window.C04 = {views: {}};"),
        head.index("var s = '<\\/script>';"),
        head.index("BEGIN bokeh.min.js"),
    )
    assert core < demo < bokeh
    assert head.index('<meta charset="utf-8">') < head.index(f'id="{export.STATES_ID}"') < core
    match = re.search(
        rf'<script type="application/json" id="{export.STATES_ID}">(.*?)</script>', head
    )
    assert "</b>" not in match.group(1)
    assert json.loads(match.group(1)) == states
    assert "window.c04Goto" in head
    assert '<html lang="es"' in page


def test_a_missing_local_stylesheet_stops_the_export(saved_page, tmp_path):
    with pytest.raises(export.ExportError, match="no está instalada"):
        export.postprocess(saved_page, dist_dir=tmp_path)


def test_any_remaining_remote_resource_stops_the_export():
    page = '<html><head><link rel="stylesheet" href="https://example.org/a.css"></head></html>'
    with pytest.raises(export.ExportError, match=r"https://example\.org/a\.css"):
        export.check_offline(page)
    page = '<html><head><script src="//example.org/a.js"></script></head></html>'
    with pytest.raises(export.ExportError, match="internet"):
        export.check_offline(page)
    # A URL that is only text inside a script is not a request.
    export.check_offline('<script>var u = "<link href=\\"https://x.org\\">";</script>')


def test_a_large_part_of_the_states_is_packed_and_unpacks_to_itself():
    small = {"a": [1, 2.5, "x"]}
    large = {"rows": [[i, i / 7, f"</script>{i}"] for i in range(3000)]}
    states = {"small": small, "large": large}
    packed = export.packed_states(states)
    assert packed["small"] == small
    assert set(packed["large"]) == {export.PACKED}
    assert len(packed["large"][export.PACKED]) < len(json.dumps(large)) / 2
    text = export.states_json(packed)
    assert "</script" not in text
    assert export.unpacked_states(text) == states


def test_states_json_is_script_safe_and_refuses_nan():
    import numpy as np

    value = {"v": {"k": np.array([1.5, 2.0]), "s": "<b>x</b></SCRIPT><!-- <script>"}}
    text = export.states_json(value)
    assert "</" not in text
    assert "<!--" not in text
    assert json.loads(text) == {"v": {"k": [1.5, 2.0], "s": "<b>x</b></SCRIPT><!-- <script>"}}
    with pytest.raises(export.ExportError, match="NaN"):
        export.states_json({"v": [float("nan")]})


def test_static_scripts_core_first_then_sorted(tmp_path):
    for name in ("zeta.js", "c04.js", "alfa.js", "notas.txt"):
        (tmp_path / name).write_text(f"// {name}", encoding="utf-8")
    assert [name for name, _ in static_scripts(tmp_path)] == [
        "c04.js",
        "alfa.js",
        "zeta.js",
    ]
    assert static_scripts(tmp_path / "no-existe") == []


def test_pages_cover_every_section_of_the_lecture():
    section_ids = [s.id for s in SECTIONS]
    assert list(export.SECTION_VIEWS) == [i for i in section_ids if i != "jugar"]
    assert [p.filename for p in export.PAGES] == [
        "clase04.html",
        *(f"{i}.html" for i in export.SECTION_VIEWS),
    ]


def test_index_links_every_file_with_its_size():
    results = [export.Result(p.filename, 1_234_567, 0, 0.1) for p in export.PAGES]
    page = export.index_html(results)
    for p in export.PAGES:
        assert f'<a href="{p.filename}" lang="es">{p.filename}</a>' in page  # ids: Spanish
    assert "1,23 MB" in page
    assert "<script" not in page
    assert "http" not in page
    english = export.index_html(results, "en")
    assert '<html lang="en">' in english
    assert "1.23 MB" in english
    assert f'href="../{export.INDEX_FILE}" hreflang="es"' in english
    assert 'href="en/index.html" hreflang="en"' in page


@pytest.mark.parametrize("lang", ["es", "en"])
def test_main_reports_a_failure_with_a_non_zero_exit(lang, monkeypatch, tmp_path, capsys):
    def fail(out_dir, log, langs, say):
        raise export.ExportError("no_head")

    monkeypatch.setattr(export, "export", fail)
    assert export.main(["--out", str(tmp_path)], lang=lang) == 1
    err = capsys.readouterr().err
    assert err.strip() == text(
        "cli.export_failed", lang, message=text("cli.export_error.no_head", lang)
    )


def test_export_errors_are_said_in_each_language():
    error = export.ExportError("still_remote", url="https://x.org/a.js", tag="<script>")
    assert (
        str(error)
        == error.message("es")
        == text("cli.export_error.still_remote", "es", url="https://x.org/a.js", tag="<script>")
    )
    assert error.message("en").startswith("The page still loads https://x.org/a.js")


def test_summary_speaks_the_language_and_its_numbers():
    results = [export.Result("clase04.html", 5_560_000, 12, 3.25)]
    spanish = export.summary(results, 4.5, "es")
    english = export.summary(results, 4.5, "en")
    assert spanish.splitlines()[0].startswith(text("cli.export_header", "es"))
    assert "5,56" in spanish
    assert "4,5" in spanish
    assert english.splitlines()[0].startswith(text("cli.export_header", "en"))
    assert "5.56" in english
    assert "4.5" in english
    assert english.splitlines()[-1].startswith(text("cli.export_total", "en"))


def test_the_embedded_catalogue_has_every_key_the_browser_code_names():
    """Each key written out in dashboards/static/*.js and dashboards/static/demos/*.js
    (C04.t("table.key"…)) is in the catalogue
    the export embeds, in every language; the keys only Python reads are left out."""
    import json
    import re

    from attnmodel.i18n import catalogue_json, languages

    named = set()
    for path in (p for d in SCRIPT_DIRS for p in d.glob("*.js")):
        named |= set(re.findall(r"\bt\(\s*[\"'`]([a-z_]+\.[\w.]+)[\"'`]", path.read_text()))
    assert {"input.cell_refused", "core.temperature", "format.decimal"} <= named
    for lang in languages():
        embedded = json.loads(catalogue_json(lang, export.BROWSER_TABLES))
        assert named <= set(embedded), named - set(embedded)
        assert not any(key.startswith(("worked.", "exercise.", "lecture.")) for key in embedded)


def test_inlined_scripts_leave_out_whole_comment_lines_only():
    """The pages inline the browser scripts without their comment lines; code, strings and
    regexes on a line of code stay, and every script still parses."""
    sample = (
        "// a comment\n"
        "const a = 'x // y'; // trailing stays\n"
        "  /** a block\n   * of lines */\n"
        "const b = /\\/*[a]/g;\n"
        "const c = `\n  text`;\n"
    )
    assert without_comment_lines(sample) == (
        "const a = 'x // y'; // trailing stays\nconst b = /\\/*[a]/g;\nconst c = `\n  text`;\n"
    )
    node = shutil.which("node")
    scripts = static_scripts()
    assert len(scripts) > 10
    saved = sum(len(code) - len(without_comment_lines(code)) for _, code in scripts)
    assert saved > 30_000  # bytes of every exported page
    if node is None:
        pytest.skip("sin node para comprobar que cada script sigue siendo JavaScript")
    for name, code in scripts:
        result = subprocess.run(
            [node, "--check", "--input-type=commonjs"],
            input=without_comment_lines(code),
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, (name, result.stderr)


def test_scripts_from_the_first_large_one_are_packed_and_unpack_to_themselves():
    big = "var big = '" + "ab" * 40_000 + "';"
    page = (
        '<html lang="en"><head><script>var first = 1;</script>'
        f'<script type="application/json" id="x">{{"a": 1}}</script>'
        f'<script type="text/javascript">{big}</script></head>'
        '<body><script type="text/javascript">Bokeh.embed();</script></body></html>'
    )
    packed = export.pack_scripts(page, "en")
    assert len(packed) < len(page) / 2
    assert "<script>var first = 1;</script>" in packed  # before the first large one: as it was
    assert '{"a": 1}' in packed  # data is not code
    assert "Bokeh.embed();" in packed  # small, after it: deferred, in its place
    assert f'type="{export.DEFERRED_JS}">Bokeh.embed();' in packed
    assert big not in packed
    assert text("export.old_browser", "en") in packed
    assert export.unpacked_page(packed) == page


def test_a_section_file_starts_with_its_first_demos_title_and_formula_as_html():
    configure()
    page = next(p for p in export.pages("en") if p.filename == "posicion.html")
    layout = page.build(export.Wiring("en"))
    step = export.first_step(layout)
    assert step.startswith('<div class="c04-first-step">')
    assert f"<h2>{text('demo.posicion', 'en')}</h2>" in step
    assert step.count("<math") == 1
    assert 'encoding="application/x-tex"' in step
    assert ' id="' not in step  # the Board keeps its anchor: no id twice in the page
    assert "<input" not in step
    assert "data-slot" not in step
    assert export.first_step(pn.Column(pn.pane.Markdown("# x"))) == ""  # no Board: no step


def test_the_first_step_goes_inside_the_one_root_element(saved_page):
    step = '<div class="c04-first-step"><h2>Hola</h2></div>'
    with_step = export.with_first_step(saved_page, step)
    root = re.search(r'<div id="[^"]+" data-root-id="[^"]+"[^>]*>(.*?</div>)</div>', with_step)
    assert root.group(1) == step
    assert export.with_first_step(saved_page, "") == saved_page
    empty_root = re.search(r'<div id="[^"]+" data-root-id="[^"]+"[^>]*></div>', saved_page)
    two_roots = saved_page + empty_root.group(0)
    assert export.with_first_step(two_roots, step) == two_roots
    # its CSS (hidden once Bokeh's document stands beside it) comes with it, and only then
    processed = export.postprocess(with_step)
    assert export.FIRST_STEP_CSS in processed.html
    assert export.FIRST_STEP_JS in processed.html
    assert export.FIRST_STEP_CSS not in export.postprocess(saved_page).html
