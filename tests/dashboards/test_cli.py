"""`clase04`, the console script: serve, export and demos, on the registry."""

from __future__ import annotations

import pytest

from attnmodel.i18n import languages
from dashboards import cli, export, registry, serving


def test_demos_lists_every_section_demo_and_served_app(capsys):
    assert cli.main(["demos"]) == 0
    out = capsys.readouterr().out
    for section in registry.SECTIONS:
        assert section.label() in out
    for demo in registry.DEMOS:
        assert f"/{demo.module} " in out
        assert demo.title() in out
    assert f"idiomas: {', '.join(languages())}" in out


def test_serve_is_the_one_serve_command(monkeypatch):
    calls = []
    monkeypatch.setattr(serving, "main", lambda args, prog: calls.append((args, prog)))
    assert cli.main(["serve", "--port", "5077", "--show"]) == 0
    assert calls == [(["--port", "5077", "--show"], "clase04 serve")]
    # What it would exec: the registry's apps on that port.
    argv = serving.argv(["--port", "5077"], "clase04 serve")
    assert argv[argv.index("--port") + 1] == "5077"


def test_export_is_the_export_with_its_options(monkeypatch, tmp_path):
    seen = []
    monkeypatch.setattr(export, "export", lambda out, log, langs: seen.append((out, langs)) or [])
    monkeypatch.setattr(export, "summary", lambda results, seconds: "")
    assert cli.main(["export", "--out", str(tmp_path)]) == 0
    assert cli.main(["export", "--out", str(tmp_path), "--lang", "en"]) == 0
    assert seen == [(tmp_path, None), (tmp_path, ["en"])]


def test_export_help_names_the_command(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["export", "--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("usage: clase04 export")


@pytest.mark.parametrize(("argv", "code"), [([], 2), (["--help"], 0), (["servir"], 2)])
def test_usage_and_unknown_orders(argv, code, capsys):
    assert cli.main(argv) == code
    captured = capsys.readouterr()
    assert "uso: clase04 <orden>" in captured.out + captured.err
    if argv == ["servir"]:
        assert "orden desconocida «servir»" in captured.err
