"""dashboards/serving.py: the one serve command, its command line and its environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards import serving
from dashboards.demos.registry import APP_FILES, APPS


def _flag_values(argv: list[str], flag: str) -> list[str]:
    return [argv[i + 1] for i, a in enumerate(argv) if a == flag]


def test_command_serves_every_app_with_the_lecture_as_index():
    argv = serving.command(5006)
    assert argv[len(serving.panel_command())] == "serve"
    apps = [a for a in argv if a.endswith(".py")]
    assert apps == list(APP_FILES)
    assert [Path(a).stem for a in apps] == list(APPS)  # /lecture, /self_attention, …
    for app in apps:
        assert (serving.ROOT / app).is_file()
    assert _flag_values(argv, "--index") == ["lecture"]
    assert _flag_values(argv, "--address") == ["127.0.0.1"]
    assert _flag_values(argv, "--port") == ["5006"]
    assert _flag_values(argv, "--allow-websocket-origin") == ["localhost:5006", "127.0.0.1:5006"]


def test_command_takes_origins_address_and_extra_flags():
    argv = serving.command(7001, "--num-procs", "2", address="0.0.0.0", origins=["aula.edu:80"])
    assert _flag_values(argv, "--address") == ["0.0.0.0"]
    assert _flag_values(argv, "--allow-websocket-origin") == ["aula.edu:80"]
    assert argv[-2:] == ["--num-procs", "2"]


def test_command_line_defaults_are_make_serves():
    assert serving.argv([]) == serving.command("5006")


def test_command_line_passes_unknown_flags_and_prod_adds_a_class_workers():
    rest = ["--use-xheaders", "--num-procs", "2"]
    argv = serving.argv(["--port", "7002", "--prod", *rest])
    assert argv == serving.command("7002", *serving.PROD_FLAGS, *rest)
    assert "--reuse-sessions" in serving.PROD_FLAGS


def test_command_line_origins_replace_the_local_ones():
    argv = serving.argv(["--port", "80", "--allow-websocket-origin", "a.edu:80"])
    assert _flag_values(argv, "--allow-websocket-origin") == ["a.edu:80"]


def test_show_opens_a_browser_unless_anaconda_project_says_not_to():
    assert serving.argv(["--show"])[-1] == "--show"
    assert "--show" not in serving.argv(["--show", "--anaconda-project-no-browser"])


def test_anaconda_project_http_options_become_panel_serve_flags():
    argv = serving.argv(
        [
            "--show",
            "--anaconda-project-port",
            "8086",
            "--anaconda-project-address",
            "0.0.0.0",
            "--anaconda-project-host",
            "aula.edu:8086",
            "--anaconda-project-url-prefix",
            "/clase",
            "--anaconda-project-use-xheaders",
            "--anaconda-project-iframe-hosts",
            "x.edu",
        ]
    )
    assert _flag_values(argv, "--port") == ["8086"]
    assert _flag_values(argv, "--address") == ["0.0.0.0"]
    assert _flag_values(argv, "--allow-websocket-origin") == ["aula.edu:8086"]
    assert _flag_values(argv, "--prefix") == ["/clase"]
    assert "--use-xheaders" in argv
    assert "--show" in argv
    assert not [a for a in argv if a.startswith("--anaconda-project")]


def test_main_replaces_itself_with_panel_serve_in_the_servers_environment(monkeypatch):
    calls = []
    monkeypatch.setattr(serving.os, "execve", lambda *a: calls.append(a))
    monkeypatch.setattr(serving.os, "chdir", lambda path: calls.append(("chdir", path)))
    monkeypatch.delenv("PYTHONMALLOC", raising=False)
    serving.main(["--port", "7003"])
    assert calls[0] == ("chdir", serving.ROOT)
    program, argv, env = calls[1]
    assert Path(program).is_file()
    assert argv == serving.command("7003")
    assert env["PYTHONMALLOC"] == "malloc"


def test_start_reports_a_server_that_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(serving, "command", lambda port, *extra: ["false"])
    with pytest.raises(RuntimeError, match="terminó con código 1"):
        serving.start(serving.free_port(), tmp_path / "serve.log", timeout=10)


def test_panel_flags_are_never_taken_for_an_abbreviation_of_ours():
    # argparse would read --addr as --address and --pro as --prod
    assert serving.argv(["--addr", "0.0.0.0", "--pro"])[-3:] == ["--addr", "0.0.0.0", "--pro"]
