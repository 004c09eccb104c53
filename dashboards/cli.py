"""`clase04`: the lecture's command (pyproject's console script), the same on Linux, macOS and
Windows, with or without make:

    clase04 serve [--port 5006] [--show] [--prod] [panel serve options…]
    clase04 export [--out dist]
    clase04 demos

``serve`` is ``dashboards.serving`` (the one serve command), ``export`` is ``dashboards.export``;
``demos`` lists what the registry holds. The Makefile, anaconda-project and serve-prod call it.
"""

from __future__ import annotations

import sys

from attnmodel.i18n import languages

USAGE = """uso: clase04 <orden> [opciones]

órdenes:
  serve    la clase en el navegador con panel serve (http://localhost:5006)
  export   la clase en archivos HTML que funcionan sin conexión (dist/)
  demos    las demos y secciones que hay, con su aplicación servida

`clase04 <orden> --help` da las opciones de cada orden.
"""


def demos() -> str:
    from dashboards import registry

    lines = []
    for section in registry.SECTIONS:
        lines.append(f"{section.id:<14}{section.label()}")
        for demo in registry.section_demos(section):
            lines.append(f"  {demo.id:<14}/{demo.module:<16}{demo.title()}")
    lines.append(f"idiomas: {', '.join(languages())}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if args else 2
    order, rest = args[0], args[1:]
    if order == "serve":
        from dashboards import serving

        serving.main(rest, prog="clase04 serve")  # replaces this process with panel serve
        return 0
    if order == "export":
        from dashboards import export

        return export.main(rest, prog="clase04 export")
    if order == "demos":
        print(demos())
        return 0
    print(f"clase04: orden desconocida «{order}».\n\n{USAGE}", end="", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
