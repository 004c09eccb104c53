"""The lecture's formulas as MathML, written on the server: every ``$$…$$`` of a text becomes a
``<math>`` element that the browser draws natively (no MathJax in any page) and a screen
reader reads as it is. Each keeps its TeX as ``alttext`` and as the ``application/x-tex``
annotation of its ``<semantics>``, so it can be copied.

:func:`with_math` converts a text, before Markdown when it is Markdown. Every ASCII punctuation
mark of the MathML's text nodes is written as a character reference, which Markdown
(markdown-it) never reads as markup (an ``_``, a ``*`` or a ``\\`` of the TeX stays as it is)
and the browser reads as the character; attributes are inside their tag, which Markdown passes
through as it is. Each formula is converted once per process (:func:`formula`).

A ``{field}`` of a catalogue text inside a formula (``$$d_k = {d_k}$$``) stays a field: the
export's browser code fills it in the converted text (:func:`catalogue`, ``C04.t``), as an
``<mn>`` and in the TeX. A field inside a formula takes an integer: filled before or after the
conversion, the MathML is the same.

No Panel here: the conversion is plain text in, text out.
"""

from __future__ import annotations

import functools
import html
import logging
import re
import xml.etree.ElementTree as ET

from latex2mathml.converter import convert_to_element

from attnmodel import i18n

log = logging.getLogger("dashboards.components.mathml")

# A formula of a text: $$…$$, the catalogue's and the views' one delimiter.
FORMULA = re.compile(r"\$\$(.+?)\$\$", re.DOTALL)
TEX = "application/x-tex"

# latex2mathml writes TeX's named spaces by their MathML 3 names, which MathML Core (what
# browsers draw) does not know: their widths in em, as TeX sets them (3, 4 and 5 mu of 18).
NAMED_SPACES = {
    "thinmathspace": "0.167em",
    "mediummathspace": "0.222em",
    "thickmathspace": "0.278em",
    "negativethinmathspace": "-0.167em",
    "negativemediummathspace": "-0.222em",
    "negativethickmathspace": "-0.278em",
}

# Fields of a formula stand for private-use characters while latex2mathml reads it: each
# becomes one token, found again by its character.
_PLACEHOLDER = 0xE000


def _reference(char: str) -> str:
    return f"&#{ord(char)};"


def _text(value: str) -> str:
    """A text node: every ASCII character but letters, digits and the space as a character
    reference (markup for neither Markdown nor HTML); the rest as it is."""
    return "".join(
        c if not c.isascii() or c.isalnum() or c == " " else _reference(c) for c in value
    )


def _serialize(node: ET.Element, out: list[str]) -> None:
    # An attribute is inside the tag, which Markdown passes through as it is.
    attributes = "".join(f' {k}="{html.escape(v)}"' for k, v in node.attrib.items())
    out.append(f"<{node.tag}{attributes}>")
    if node.text:
        out.append(_text(node.text))
    for child in node:
        _serialize(child, out)
    out.append(f"</{node.tag}>")
    if node.tail:
        out.append(_text(node.tail))


def _clean(node: ET.Element, fields: dict[str, str]) -> None:
    """latex2mathml's tree made plain: its texts hold character references (it unescapes its
    own output), named spaces become widths, and a field's token becomes an ``<mn>``."""
    for element in node.iter():
        if element.text:
            element.text = html.unescape(element.text)
            if element.text in fields:
                element.tag = "mn"
                element.attrib.clear()
        for name, value in element.attrib.items():
            element.attrib[name] = NAMED_SPACES.get(value, html.unescape(value))


@functools.lru_cache(maxsize=4096)
def formula(latex: str, block: bool = False) -> str:
    """The MathML of the TeX formula ``latex`` (without its $$), inline or a block, with
    ``latex`` as its ``alttext`` and its annotation; a ``{field}`` in it stays one."""
    fields: dict[str, str] = {}

    def placeholder(match: re.Match) -> str:
        char = chr(_PLACEHOLDER + len(fields))
        fields[char] = match.group(0)
        return char

    marked = i18n.FIELD.sub(placeholder, latex)
    presentation = convert_to_element(marked)[0]  # <math><mrow>…</mrow></math>: the mrow
    _clean(presentation, fields)
    math = ET.Element("math", {"display": "block" if block else "inline", "alttext": marked})
    semantics = ET.SubElement(math, "semantics")
    semantics.append(presentation)
    ET.SubElement(semantics, "annotation", {"encoding": TEX}).text = marked
    out: list[str] = []
    _serialize(math, out)
    written = "".join(out)
    for char, field in fields.items():
        written = written.replace(char, field)
    return written


def _alone(text: str, match: re.Match) -> bool:
    """Whether a formula is a line of ``text`` by itself: drawn as a block (its own box,
    which scrolls when it is wider than a phone)."""
    before = text[: match.start()].rpartition("\n")[2]
    after = text[match.end() :].partition("\n")[0]
    return not before.strip() and not after.strip()


@functools.lru_cache(maxsize=4096)
def with_math(text: str) -> str:
    """``text`` with every $$…$$ written as MathML (:func:`formula`); a formula alone on its
    line is a block. A formula latex2mathml cannot read stays as it was, and is logged."""
    if "$$" not in text:
        return text

    def convert(match: re.Match) -> str:
        try:
            return formula(match.group(1).strip(), _alone(text, match))
        except Exception as error:  # latex2mathml raises its own kinds, and IndexError
            log.info("Fórmula que no se pudo convertir (%s): %r", error, match.group(1))
            return match.group(0)

    return FORMULA.sub(convert, text)


@functools.cache
def catalogue(lang: str = i18n.DEFAULT_LANG) -> dict[str, str]:
    """``i18n.catalogue(lang)`` with its formulas as MathML and its fields kept: what the
    page's catalogue (``C04.t``, ``C04.rich``) reads, live and in the export."""
    return {key: with_math(value) for key, value in i18n.catalogue(lang).items()}
