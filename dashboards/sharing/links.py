"""Every state in the link: the demos' parameters as the address's query (live) or fragment
(export), ``?seccion=cabezas&cabezas.n_heads=2``.

One key per parameter, ``<demo id>.<parameter>`` (the registry's ids, the models' names), the
same live and in the export. A demo is in the link when any of its parameters differs from its
default, and then with every parameter of its ``Demo.link`` (a link says the whole state of a
demo, so applying it in order gives the same numbers whatever was on screen before), except a
parameter of ``Demo.link_if`` whose condition does not hold (self-attention's matrices follow
from a preset: only a custom one writes them).

Values as text: booleans ``1``/``0``, numbers to 15 significant digits (``0.9``), a
matrix as rows separated by ``;`` and cells by ``,`` (``1,0;0,1;1,1``), a choice or a sentence as
itself. :func:`decode` applies a link to models and returns what it ignored, each with its
reason in the page's language: an unknown key, a value that does not parse, or one the model
refuses (the model keeps its last valid value). Nothing here raises for a link.

dashboards/static/links.js does the same in the offline export, where there is no server to run
this. What the two share is data, generated here and embedded in the export (:func:`grammar`,
``live_link.export_fields``): the page's keys, the limits, the number patterns, each field's kind,
default, condition and bounds. What is written twice is the algorithm (a value's parse, a demo
at its defaults, the notice): the live server applies a link before a session's first render,
and the export has no server. tests/ui/test_links.py holds the two equal (same links, same
states, same notices). No Panel import here.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, urlencode

import numpy as np
import param

from attnmodel._params import Matrix
from attnmodel.formatting import number
from attnmodel.i18n import DEFAULT_LANG, Refusal, say, text
from dashboards.demos import registry

# Keys of the address that are not a demo's parameter.
SECTION_KEY = "seccion"
LANG_KEY = "lang"
# Projector mode (dashboards/static/present.js): the browser's, kept in the address by it.
MODE_KEY = "modo"
# The lecturer link's token (dashboards/classroom/shared_state.py): read by the server, never in a
# link.
TOKEN_KEY = "profesor"
PAGE_KEYS = (LANG_KEY, SECTION_KEY, MODE_KEY, TOKEN_KEY)
# A longer link is not read at all (a 10 000-character sentence is 10 000 here, well under).
MAX_LINK_CHARS = 65_536
# The notice names at most this many ignored keys, each cut to KEY_CHARS characters.
NOTICE_ITEMS = 5
KEY_CHARS = 40
# ASCII digits: the same pattern reads the same in JavaScript (Python's \d takes any script's).
_NUMBER = re.compile(r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$")
_INTEGER = re.compile(r"^[+-]?[0-9]{1,19}$")


def grammar() -> dict[str, object]:
    """The format's constants as the export embeds them for dashboards/static/links.js, which
    has no copy of its own."""
    return {
        "page_keys": list(PAGE_KEYS),
        "number": _NUMBER.pattern,
        "integer": _INTEGER.pattern,
        "max_chars": MAX_LINK_CHARS,
        "notice_items": NOTICE_ITEMS,
        "key_chars": KEY_CHARS,
    }


@dataclass(frozen=True)
class Field:
    demo: str  # the registry's demo id
    param: str  # the model's parameter
    kind: str  # bool, int, real, choice, matrix or text
    when: tuple[str, object] | None = None  # (parameter, value): in the link only then

    @property
    def key(self) -> str:
        return f"{self.demo}.{self.param}"


def kind_of(p: param.Parameter) -> str:
    """The text form of a model parameter."""
    if isinstance(p, param.Boolean):
        return "bool"
    if isinstance(p, Matrix):
        return "matrix"
    if isinstance(p, param.Selector):
        return "choice"
    if isinstance(p, param.Integer):
        return "int"
    if isinstance(p, param.Number):
        return "real"
    if isinstance(p, param.String):
        return "text"
    raise TypeError(f"{p.name}: un parámetro {type(p).__name__} no tiene forma de enlace")


@functools.cache
def fields(demo_id: str) -> tuple[Field, ...]:
    """The fields of a demo, in the order they are applied."""
    demo = registry.demo(demo_id)
    params = demo.model_class().param
    conditions = {name: (other, value) for name, other, value in demo.link_if}
    return tuple(
        Field(demo_id, name, kind_of(params[name]), conditions.get(name)) for name in demo.link
    )


def all_fields() -> tuple[Field, ...]:
    return tuple(f for d in registry.DEMOS for f in fields(d.id))


def _real_text(x: float) -> str:
    """15 significant digits, shortest form: a slider's 0.010000000000000009 is "0.01" (what
    its label shows; a float's 17th digit is the slider's arithmetic, not the student's)."""
    r = repr(float(f"{float(x):.15g}"))
    return r[:-2] if r.endswith(".0") else r


def to_text(kind: str, value) -> str:
    """A parameter's value as it goes in the link."""
    if kind == "bool":
        return "1" if value else "0"
    if kind == "int":
        return str(int(value))
    if kind == "real":
        return _real_text(value)
    if kind == "matrix":
        return ";".join(",".join(_real_text(x) for x in row) for row in value)
    return str(value)


class Unreadable(ValueError):
    """A link's value that is not of its parameter's kind: the catalogue key of the reason."""

    def __init__(self, key: str, /, **values):
        self.key, self.values = key, values
        super().__init__(key)


def _real(s: str) -> float:
    if not _NUMBER.match(s.strip()):
        raise Unreadable("links.not_a_number")
    x = float(s)
    if not math.isfinite(x):
        raise Unreadable("links.not_a_number")
    return x


def from_text(f: Field, s: str, p: param.Parameter):
    """The value a link's text stands for, for ``p`` (the model's parameter), or Unreadable.
    Bounds and the model's own rules are the model's to check."""
    if f.kind == "bool":
        if s not in ("0", "1"):
            raise Unreadable("links.not_a_bool")
        return s == "1"
    if f.kind == "int":
        if not _INTEGER.match(s.strip()):
            raise Unreadable("links.not_an_integer")
        return int(s)
    if f.kind == "real":
        return _real(s)
    if f.kind == "choice":
        for option in p.objects:
            if to_text("text", option) == s:
                return option
        raise Unreadable("links.not_an_option")
    if f.kind == "matrix":
        rows, cols = p.shape
        cells = [row.split(",") for row in s.split(";")]
        if len(cells) != rows or any(len(row) != cols for row in cells):
            raise Unreadable("links.not_a_matrix", rows=rows, cols=cols)
        try:
            return [[_real(c) for c in row] for row in cells]
        except Unreadable:
            raise Unreadable("links.not_a_matrix", rows=rows, cols=cols) from None
    return s


@functools.cache
def default_texts(demo_id: str) -> dict[str, str]:
    model = registry.demo(demo_id).model_class()()
    return {f.param: to_text(f.kind, getattr(model, f.param)) for f in fields(demo_id)}


def _active(f: Field, model) -> bool:
    return f.when is None or getattr(model, f.when[0]) == f.when[1]


def demo_pairs(demo_id: str, model) -> list[tuple[str, str]]:
    """(key, text) of a demo's state: none at its defaults, else every active field."""
    texts = [(f, to_text(f.kind, getattr(model, f.param))) for f in fields(demo_id)]
    defaults = default_texts(demo_id)
    if all(t == defaults[f.param] for f, t in texts):
        return []
    return [(f.key, t) for f, t in texts if _active(f, model)]


def query(pairs: Iterable[tuple[str, str]]) -> str:
    """The address's query (or fragment) for ``pairs``, without its ``?``/``#``."""
    return urlencode(list(pairs), quote_via=quote, safe=",;")


def encode(models: Mapping[str, object], section: str | None = None, lang: str | None = None):
    """The link of ``models`` (demo id → model): ``lang`` and ``seccion`` first when given."""
    return encode_pairs({d: demo_pairs(d, m) for d, m in models.items()}, section, lang)


def encode_pairs(
    pairs_by_demo: Mapping[str, list[tuple[str, str]]],
    section: str | None = None,
    lang: str | None = None,
) -> str:
    """``encode`` from each demo's ``demo_pairs`` already computed (a page keeps them, and
    recomputes only the demo that changed)."""
    pairs = []
    if lang is not None and lang != DEFAULT_LANG:
        pairs.append((LANG_KEY, lang))
    if section is not None:
        pairs.append((SECTION_KEY, section))
    for demo in pairs_by_demo.values():
        pairs += demo
    return query(pairs)


@dataclass
class Ignored:
    key: str
    reason: str  # in the page's language

    def said(self) -> str:
        key = self.key if len(self.key) <= KEY_CHARS else self.key[: KEY_CHARS - 1] + "…"
        return f"«{key}» ({self.reason})" if self.reason else f"«{key}»"


def _reason(exc: Exception, f: Field, p: param.Parameter, lang: str) -> str:
    if isinstance(exc, Unreadable):
        return text(exc.key, lang, **exc.values)
    if isinstance(exc, Refusal):
        return say(exc, lang)
    bounds = getattr(p, "bounds", None)
    if bounds is not None and bounds[0] is not None and bounds[1] is not None:
        decimals = 0 if f.kind == "int" else 2
        return text(
            "links.out_of_range",
            lang,
            low=number(bounds[0], decimals, lang=lang),
            high=number(bounds[1], decimals, lang=lang),
        )
    return text("links.refused", lang)


def parse(link: str) -> list[tuple[str, str]]:
    """The (key, value) pairs of a query or fragment (with or without its ``?``/``#``)."""
    link = link[1:] if link[:1] in ("?", "#") else link
    # No max_num_fields: it raises (a link of 1 001 keys was a traceback at a session's open).
    # decode stops at MAX_LINK_CHARS, and an address is bounded by the server's header limit
    # and live_link.MAX_MESSAGE_CHARS: 131 000 keys parse in ~85 ms.
    return parse_qsl(link, keep_blank_values=True)


def decode(
    pairs: Iterable[tuple[str, str]],
    models: Mapping[str, object],
    lang: str = DEFAULT_LANG,
    page_keys: Iterable[str] = PAGE_KEYS,
) -> list[Ignored]:
    """Apply a link's pairs to ``models`` (demo id → model), each demo's fields in their order,
    a demo the link does not name at its defaults (a link is the whole state of its page);
    returns what was ignored: unknown keys (a demo not on this page included), unreadable or
    refused values. A key given twice counts once (its first value)."""
    given: dict[str, str] = {}
    ignored: list[Ignored] = []
    total = 0
    for key, value in pairs:
        total += len(key) + len(value)
        if total > MAX_LINK_CHARS:
            return [Ignored("…", text("links.too_long", lang, max=MAX_LINK_CHARS))]
        given.setdefault(key, value)
    page_keys = set(page_keys)
    known = {f.key: f for demo_id in models for f in fields(demo_id)}
    for key in given:
        if key not in known and key not in page_keys:
            ignored.append(Ignored(key, text("links.unknown", lang)))
    for demo_id, model in models.items():
        if not any(f.key in given for f in fields(demo_id)):
            # Not in the link: at its defaults (back to a page's first address resets it).
            given.update({f.key: default_texts(demo_id)[f.param] for f in fields(demo_id)})
        for f in fields(demo_id):
            if f.key not in given:
                continue
            p = model.param[f.param]
            try:
                value = from_text(f, given[f.key], p)
                if not _same(f, getattr(model, f.param), value):
                    model.param.update({f.param: value})
            except Exception as exc:  # any refusal of a link's value: said, never raised
                ignored.append(Ignored(f.key, _reason(exc, f, p, lang)))
    return ignored


def _same(f: Field, current, value) -> bool:
    """A link's value is the model's already: nothing to set. param calls a model's watchers
    again for an equal matrix (it does not compare arrays), and every new session's page
    applies its link, or the defaults: ~5 ms of an open recomputed the fresh models."""
    if f.kind == "matrix":
        return bool(np.array_equal(np.asarray(current, dtype=float), np.asarray(value, float)))
    return type(current) is type(value) and current == value


def notice(ignored: list[Ignored], lang: str = DEFAULT_LANG) -> str:
    """One line saying what a link had that was ignored ("" for nothing)."""
    if not ignored:
        return ""
    items = "; ".join(i.said() for i in ignored[:NOTICE_ITEMS])
    more = len(ignored) - NOTICE_ITEMS
    if more > 0:
        items += text("links.more", lang, n=more)
    return text("links.notice", lang, items=items)
