"""dashboards/components/mathml.py: the lecture's $$…$$ formulas as MathML written by Python.

The expected trees are written out by hand from the TeX (what each construct means in MathML),
not taken from latex2mathml; each output is parsed as XML, so a malformed one fails too.
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET

import panel as pn
import pytest

from attnmodel import i18n
from attnmodel.i18n import text
from dashboards import export
from dashboards.components import mathml
from dashboards.components.mathml import formula, with_math
from dashboards.demos import positional, self_attention

TEX = "application/x-tex"
MATH = re.compile(r"<math\b.*?</math>", re.S)


def tree(node: ET.Element):
    """An element as (tag, text) for a leaf, (tag, [children]) otherwise."""
    children = list(node)
    if not children:
        return (node.tag, node.text or "")
    return (node.tag, [tree(c) for c in children])


def parse(written: str) -> tuple[ET.Element, tuple, str]:
    """One <math> as written: the element, its presentation tree and its annotation."""
    math = ET.fromstring(written)
    assert math.tag == "math"
    (semantics,) = list(math)
    assert semantics.tag == "semantics"
    presentation, annotation = list(semantics)
    assert annotation.tag == "annotation"
    assert annotation.get("encoding") == TEX
    return math, tree(presentation), annotation.text


def only_formula(text_: str) -> str:
    (written,) = MATH.findall(text_)
    return written


def catalogue_formulas(lang: str) -> list[str]:
    return [
        m.group(1).strip()
        for value in i18n.catalogue(lang).values()
        for m in mathml.FORMULA.finditer(value)
    ]


def test_scores_caption_formula_is_the_mathml_of_its_tex():
    latex = r"QK^\top/\sqrt{d_k}"
    assert f"$${latex}$$" in text("self_attention.scores_scaled", d_k=2)  # the catalogue's own
    math, presentation, annotation = parse(formula(latex))
    assert math.get("display") == "inline"
    assert math.get("alttext") == latex
    assert annotation == latex
    assert presentation == (
        "mrow",
        [
            ("mi", "Q"),
            ("msup", [("mi", "K"), ("mo", "⊤")]),
            ("mo", "/"),
            ("msqrt", [("mrow", [("msub", [("mi", "d"), ("mi", "k")])])]),
        ],
    )


def test_attention_formula_of_the_intro_is_a_block_with_a_fraction():
    latex = r"\text{Attention}(Q,K,V) = \text{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V"
    intro = text("lecture.intro")
    assert f"\n$${latex}$$\n" in intro  # alone on its line
    math, presentation, annotation = parse(only_formula(with_math(f"\n$${latex}$$\n")))
    assert math.get("display") == "block"
    assert annotation == latex == math.get("alttext")
    tag, items = presentation
    assert tag == "mrow"
    assert items[0] == ("mtext", "Attention")
    assert items[1:8] == [
        ("mo", "("),
        ("mi", "Q"),
        ("mo", ","),
        ("mi", "K"),
        ("mo", ","),
        ("mi", "V"),
        ("mo", ")"),
    ]
    assert items[8:10] == [("mo", "="), ("mtext", "softmax")]
    # \left( \frac{…}{…} \right): a row of the two fences around the fraction.
    assert items[10] == (
        "mrow",
        [
            ("mo", "("),
            (
                "mfrac",
                [
                    ("mrow", [("mi", "Q"), ("msup", [("mi", "K"), ("mo", "⊤")])]),
                    ("mrow", [("msqrt", [("mrow", [("msub", [("mi", "d"), ("mi", "k")])])])]),
                ],
            ),
            ("mo", ")"),
        ],
    )
    assert items[11] == ("mi", "V")
    assert len(items) == 12


def test_subscripts_and_the_dot_of_the_catalogue():
    assert "$$W_K = W_Q$$" in text("exercise.wk_equals_wq")
    _, presentation, annotation = parse(formula("W_K = W_Q"))
    assert annotation == "W_K = W_Q"
    assert presentation == (
        "mrow",
        [
            ("msub", [("mi", "W"), ("mi", "K")]),
            ("mo", "="),
            ("msub", [("mi", "W"), ("mi", "Q")]),
        ],
    )
    assert r"$$q\cdot k$$" in text("scaling.intro")
    _, presentation, _ = parse(formula(r"q\cdot k"))
    assert presentation == ("mrow", [("mi", "q"), ("mo", "\u00b7"), ("mi", "k")])


def test_a_negative_thin_space_is_a_width_browsers_know():
    assert r"\sin\!\left(" in positional.FORMULA
    written = formula(r"\sin\!x")
    space = ET.fromstring(written).find(".//mspace")
    assert space is not None
    assert space.get("width") == "-0.167em"  # 3 mu, at 18 mu to the em


@pytest.mark.parametrize("lang", i18n.languages())
def test_every_formula_of_the_catalogue_is_mathml_with_its_tex(lang):
    formulas = catalogue_formulas(lang)
    assert len(formulas) >= 30
    for latex in formulas:
        math, _, annotation = parse(formula(latex))
        assert annotation == latex == math.get("alttext"), latex
    converted = mathml.catalogue(lang)
    assert not [k for k, v in converted.items() if "$$" in v]
    assert set(converted) == set(i18n.catalogue(lang))


@pytest.mark.parametrize("lang", i18n.languages())
def test_a_word_in_a_formula_is_one_text_not_a_letter_each(lang):
    """A screen reader reads ``<mtext>atención</mtext>`` as a word; ``\\mathrm{atenci\\acute{o}n}``
    was eight upright letters and an accent over the o (drawn off its letter in Chromium)."""
    spelled = []
    for latex in catalogue_formulas(lang):
        math, _, _ = parse(formula(latex))
        for row in math.iter("mrow"):
            run = 0
            for child in row:
                upright = child.tag == "mi" and child.get("mathvariant") == "normal"
                run = run + 1 if upright or child.tag == "mover" else 0
                if run >= 3:
                    spelled.append(latex)
                    break
    assert spelled == []


@pytest.mark.parametrize("d_k", [2, 64, 512])
def test_a_field_inside_a_formula_is_filled_the_same_before_or_after(d_k):
    """The export's browser code fills the converted catalogue (C04.t); the live view converts
    the filled text: both write the same MathML."""
    for lang in i18n.languages():
        template = mathml.catalogue(lang)["self_attention.scores_scaled"]
        assert "<mn>{d_k}</mn>" in template
        filled = i18n.fill(template, {"d_k": d_k})
        assert filled == with_math(text("self_attention.scores_scaled", lang, d_k=d_k))
        last = MATH.findall(filled)[-1]
        _, presentation, annotation = parse(last)
        assert annotation == f"d_k = {d_k}"
        assert presentation == (
            "mrow",
            [("msub", [("mi", "d"), ("mi", "k")]), ("mo", "="), ("mn", str(d_k))],
        )


def test_formulas_pass_through_markdown_unchanged():
    """Panel's Markdown (markdown-it) leaves every formula as written: no _ read as emphasis,
    no backslash eaten, no * or ^ taken for markup. Every catalogue text with a formula and
    the demos' own formulas, rendered by the pane, hold the same <math> elements."""
    texts = [
        i18n.FIELD.sub("7", value)
        for lang in i18n.languages()
        for value in i18n.catalogue(lang).values()
        if "$$" in value
    ]
    texts += [self_attention.FORMULA, positional.FORMULA, "*a* $$a_{i}*b_{j}\\_x$$ _b_"]
    seen = 0
    for source in texts:
        written = with_math(source)
        rendered = html.unescape(pn.pane.Markdown(written)._transform_object(written)["object"])
        before = [ET.canonicalize(m) for m in MATH.findall(written)]
        after = [ET.canonicalize(m) for m in MATH.findall(rendered)]
        assert after == before, source
        seen += len(before)
    assert seen > 60


def test_a_formula_latex2mathml_cannot_read_stays_as_written():
    assert with_math(r"a $$\frac{$$ b") == r"a $$\frac{$$ b"


def test_a_text_without_formulas_is_unchanged():
    plain = text("lecture.sections")
    assert with_math(plain) is plain


def test_the_export_embeds_the_catalogue_with_its_formulas_as_mathml():
    head = export.head_elements([], {}, "en")
    (catalogue,) = [h for h in head if f'id="{export.TEXT_ID}"' in h]
    entries = json.loads(re.search(r">(.*)</script>", catalogue, re.S).group(1))
    assert not [k for k, v in entries.items() if "$$" in v]
    caption = entries["self_attention.scores_scaled"]
    assert caption == mathml.catalogue("en")["self_attention.scores_scaled"]
    assert caption.count("<math ") == 2
