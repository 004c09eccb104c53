"""`clase04`, the console script: serve, export and demos, on the registry."""

from __future__ import annotations

import pytest

from attnmodel.i18n import LANG_VARIABLES, languages, text, user_lang
from dashboards import cli, export, serving
from dashboards.demos import registry


@pytest.fixture(autouse=True)
def no_language_in_the_environment(monkeypatch):
    """The messages' language comes from the environment: these tests start from none."""
    for variable in LANG_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def test_demos_lists_every_section_demo_and_served_app(capsys):
    assert cli.main(["demos"]) == 0
    out = capsys.readouterr().out
    for section in registry.SECTIONS:
        assert section.label() in out
    for demo in registry.DEMOS:
        assert f"/{demo.module} " in out
        assert demo.title() in out
    assert text("cli.languages", "es", languages=", ".join(languages())) in out


def test_demos_in_english():
    assert cli.main(["--lang", "en", "demos"]) == 0
    out = cli.demos("en")
    for section in registry.SECTIONS:
        assert section.label("en") in out
    assert text("cli.languages", "en", languages=", ".join(languages())) in out


def test_serve_is_the_one_serve_command(monkeypatch):
    calls = []
    monkeypatch.setattr(serving, "main", lambda args, prog, lang: calls.append((args, prog, lang)))
    assert cli.main(["serve", "--port", "5077", "--show"]) == 0
    assert calls == [(["--port", "5077", "--show"], "clase04 serve", "es")]
    # What it would exec: the registry's apps on that port.
    argv = serving.argv(["--port", "5077"], "clase04 serve")
    assert argv[argv.index("--port") + 1] == "5077"


def test_export_is_the_export_with_its_options(monkeypatch, tmp_path):
    seen = []

    def fake(out, log, langs, say):
        seen.append((out, langs, say))
        return []

    monkeypatch.setattr(export, "export", fake)
    monkeypatch.setattr(export, "summary", lambda results, seconds, lang: "")
    assert cli.main(["export", "--out", str(tmp_path)]) == 0
    # export's own --lang chooses the pages' languages; clase04's chooses the messages'.
    assert cli.main(["--lang", "en", "export", "--out", str(tmp_path), "--lang", "es"]) == 0
    assert seen == [(tmp_path, None, "es"), (tmp_path, ["es"], "en")]


def test_export_help_names_the_command(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["export", "--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith("usage: clase04 export")


@pytest.mark.parametrize(("argv", "code"), [([], 2), (["--help"], 0), (["servir"], 2)])
def test_usage_and_unknown_orders(argv, code, capsys):
    assert cli.main(argv) == code
    captured = capsys.readouterr()
    assert cli.usage("es") in captured.out + captured.err
    if argv == ["servir"]:
        assert text("cli.unknown_order", "es", order="servir") in captured.err


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({}, "es"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "es_ES.UTF-8", "LC_ALL": "en_GB.UTF-8"}, "en"),
        ({"LANGUAGE": "fr_FR:en", "LANG": "es_AR.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "es"),
        ({"LANG": "de_DE.UTF-8"}, "es"),
    ],
)
def test_the_messages_language_comes_from_the_environment(environ, lang):
    assert user_lang(environ) == lang


def test_usage_in_the_environment_language_and_by_flag(monkeypatch, capsys):
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert cli.main(["--help"]) == 0
    assert capsys.readouterr().out == cli.usage("en")
    assert cli.main(["--lang=es", "--help"]) == 0
    assert capsys.readouterr().out == cli.usage("es")
    assert cli.main(["--lang", "en", "servir"]) == 2
    assert text("cli.unknown_order", "en", order="servir") in capsys.readouterr().err


def test_an_unknown_message_language_is_refused(capsys):
    assert cli.main(["--lang", "fr", "demos"]) == 2
    known = ", ".join(languages())
    assert capsys.readouterr().err.strip() == text(
        "cli.unknown_lang", "es", lang="fr", languages=known
    )


def test_serve_help_speaks_english(capsys):
    with pytest.raises(SystemExit):
        serving.argv(["--help"], "clase04 serve", "en")
    out = capsys.readouterr().out
    assert text("cli.serve_description", "en") in out
    assert text("cli.serve_show", "en") in out
