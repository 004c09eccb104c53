"""`clase04`: the lecture's command (pyproject's console script), the same on Linux, macOS and
Windows, with or without make:

    clase04 [--lang en] serve [--port 5006] [--show] [--prod] [panel serve options…]
    clase04 [--lang en] export [--out dist] [--lang es]
    clase04 [--lang en] demos

``serve`` is ``dashboards.serving`` (the one serve command), ``export`` is ``dashboards.export``;
``demos`` lists what the registry holds. The messages are in the language of ``--lang`` before
the command, else the environment's (``attnmodel.i18n.user_lang``); ``export --lang`` chooses
which languages to export. The Makefile, anaconda-project and serve-prod call it.
"""

from __future__ import annotations

import sys

from attnmodel.i18n import languages, text, user_lang


def usage(lang: str) -> str:
    return text("cli.usage", lang, languages=", ".join(languages()))


def demos(lang: str | None = None) -> str:
    from dashboards.demos import registry

    lang = lang or user_lang()
    lines = []
    for section in registry.SECTIONS:
        lines.append(f"{section.id:<14}{section.label(lang)}")
        for demo in registry.section_demos(section):
            lines.append(f"  {demo.id:<14}/{demo.module:<16}{demo.title(lang)}")
    lines.append(text("cli.languages", lang, languages=", ".join(languages())))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    lang = user_lang()
    if args and (args[0] == "--lang" or args[0].startswith("--lang=")):
        wanted = args.pop(0).partition("=")[2]
        if not wanted and args:
            wanted = args.pop(0)
        if wanted not in languages():
            known = ", ".join(languages())
            print(text("cli.unknown_lang", lang, lang=wanted, languages=known), file=sys.stderr)
            return 2
        lang = wanted
    if not args or args[0] in ("-h", "--help"):
        print(usage(lang), end="")
        return 0 if args else 2
    order, rest = args[0], args[1:]
    if order == "serve":
        from dashboards import serving

        serving.main(rest, prog="clase04 serve", lang=lang)  # replaces this process
        return 0
    if order == "export":
        from dashboards import export

        return export.main(rest, prog="clase04 export", lang=lang)
    if order == "demos":
        print(demos(lang))
        return 0
    message = text("cli.unknown_order", lang, order=order)
    print(f"{message}\n\n{usage(lang)}", end="", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
