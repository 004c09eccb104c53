"""The text catalogues: every string a user reads, one TOML file per language.

``attnmodel/locales/<lang>.toml`` holds the words and the number format of a language (its
``[format]`` table: decimal separator, percent pattern). Keys are dotted paths of the TOML
tables (``lecture.title``, ``input.kept``); values are ``str.format`` templates with named
fields (``«{text}» no es un número.``). Python reads them with :func:`text`; the offline export
embeds the same catalogue in each page as JSON (:func:`catalogue_json`) for its browser code
(``C04.t`` in ``dashboards/static/c04.js``), so both sides read one file.

Adding a language is one file: copy ``es.toml`` to ``<lang>.toml``, translate the values and
keep the keys and the ``{fields}``; ``tests/attnmodel/test_i18n.py`` checks both.
"""

from __future__ import annotations

import functools
import json
import os
import re
import tomllib
from pathlib import Path

LOCALES = Path(__file__).resolve().parent / "locales"
DEFAULT_LANG = "es"


def languages() -> tuple[str, ...]:
    """The languages that have a catalogue, the default first (``("es", "en")``)."""
    found = sorted(p.stem for p in LOCALES.glob("*.toml"))
    return (DEFAULT_LANG, *(lang for lang in found if lang != DEFAULT_LANG))


# The environment variables that name a user's language, in POSIX's order of precedence.
LANG_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def user_lang(environ=None) -> str:
    """The language of a command line's messages: the first language named by the environment
    (``LANGUAGE`` may list several, ``en_GB.UTF-8:es``) that has a catalogue, else Spanish."""
    environ = os.environ if environ is None else environ
    for variable in LANG_VARIABLES:
        for name in environ.get(variable, "").split(":"):
            code = name.split(".", 1)[0].split("_", 1)[0].split("@", 1)[0].lower()
            if code in languages():
                return code
    return DEFAULT_LANG


def _flatten(table: dict, prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in table.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{path}."))
        elif isinstance(value, str):
            flat[path] = value
        else:
            raise ValueError(f"{path}: el catálogo solo admite textos, no {type(value).__name__}.")
    return flat


@functools.cache
def catalogue(lang: str = DEFAULT_LANG) -> dict[str, str]:
    """Every key of ``locales/<lang>.toml`` (dotted) → its text. Read once per process."""
    path = LOCALES / f"{lang}.toml"
    if not path.is_file():
        raise ValueError(f"No hay catálogo para el idioma «{lang}»: hay {', '.join(languages())}.")
    with path.open("rb") as f:
        return _flatten(tomllib.load(f))


# A field: {name} not right after a letter, digit, _, ^ or \ (there it is a TeX group, as in
# \sqrt{d_k}). dashboards/static/c04.js (C04.t) uses the same pattern: the export's pages fill
# the same catalogue in the browser.
FIELD = re.compile(r"(?<![\w^\\])\{([A-Za-z_][A-Za-z0-9_]*)\}")


@functools.cache
def fields(template: str) -> frozenset[str]:
    """The named ``{fields}`` of a template (once per template: every number formatted reads
    the ``[format]`` templates)."""
    return frozenset(FIELD.findall(template))


def fill(template: str, values: dict) -> str:
    """``template`` with each field replaced by ``str(values[name])``; every field must have a
    value and every value a field (a mismatch is a bug in the code or the catalogue)."""
    wanted = fields(template)
    if wanted != set(values):
        raise KeyError(f"campos {sorted(wanted)} ≠ valores {sorted(values)} en {template!r}")
    return FIELD.sub(lambda m: str(values[m.group(1)]), template) if wanted else template


def text(key: str, lang: str = DEFAULT_LANG, /, **values) -> str:
    """The text of ``key`` in ``lang`` with its ``{fields}`` filled from ``values``.

    A key missing from the catalogue, or fields and values that differ, is a KeyError naming
    them (a bug, caught by the tests, not something a user can cause).
    """
    entries = catalogue(lang)
    try:
        template = entries[key]
    except KeyError:
        raise KeyError(f"{key!r} no está en locales/{lang}.toml") from None
    return fill(template, values)


class Refusal(ValueError):
    """A refused input, said in the catalogue: ``Refusal("key", field=value, …)``.

    A ValueError whose ``str()`` is the Spanish text (the models' messages stay Spanish by
    default) and whose :meth:`message` gives it in any language; a field's value may itself be
    a Refusal (a message inside a message), said in the same language.
    """

    def __init__(self, key: str, /, **values):
        self.key = key
        self.values = values
        super().__init__(self.message(DEFAULT_LANG))

    def message(self, lang: str = DEFAULT_LANG) -> str:
        return text(self.key, lang, **{k: say(v, lang) for k, v in self.values.items()})


def say(value, lang: str = DEFAULT_LANG) -> str:
    """A Refusal (or any exception or value) as text in ``lang``: what a view shows."""
    if isinstance(value, Refusal):
        return value.message(lang)
    return str(value)


def catalogue_json(
    lang: str = DEFAULT_LANG,
    tables: tuple[str, ...] | None = None,
    entries: dict[str, str] | None = None,
) -> str:
    """The catalogue as the JSON the export embeds (``<script type="application/json">``):
    every key, or only those of the top-level ``tables`` (what the browser code reads).
    ``entries`` is the catalogue of ``lang`` as the page shows it, when it is not the file's
    text (the export's, with its formulas as MathML); by default, :func:`catalogue`."""
    if entries is None:
        entries = catalogue(lang)
    if tables is not None:
        entries = {k: v for k, v in entries.items() if k.split(".", 1)[0] in tables}
    return json.dumps(entries, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
