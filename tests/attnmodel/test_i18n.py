"""The text catalogues (attnmodel/locales/*.toml) and the numbers of each language."""

from __future__ import annotations

import pytest

from attnmodel import i18n
from attnmodel.formatting import MINUS, number, parse_es_number, percent, tick_js

LANGS = i18n.languages()
# English texts that may equal the Spanish ones (names, symbols, loanwords). A text copied
# without translating is what this catches.
SAME_IN_BOTH = {
    "next_word.top_k",  # the sampling settings' names, as the libraries write them
    "next_word.top_p",
    "next_word.bars_corner",  # "Token"
    "next_word.entropy_unit",  # "bits"
    "self_attention.preset_n",  # "Preset {n} · {name}": the seed says "preset" too
    "cli.export_index",  # "[{n}/{total}] {path} … {mb} MB": nothing but fields
    "cli.export_total",  # "total" is the word in both
    "a11y.announce.join",  # "; " between the rows of an announcement: punctuation only
    "training.readout.probability",  # "p({capital})": a formula
    # Countries written the same in Spanish and English.
    "training.country_name.Portugal",
    "training.country_name.Chile",
    "training.country_name.Colombia",
    "training.country_name.Austria",
    # Under each of MiniLM's tiles: an arrow or a token name, and a share.
    "minilm.short.previous",
    "minilm.short.next",
    "minilm.short.special",
    "minilm.grid.top_item",  # "{query} → {key}: {share}"
    # The block's overview: its columns are formulas (the prose above says what each is).
    "block.overview.out",
    "block.overview.attention",
    "block.overview.mlp",
    "block.overview.p",
}


def test_spanish_first_and_english_present():
    assert LANGS[0] == i18n.DEFAULT_LANG == "es"
    assert "en" in LANGS


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_language_has_the_same_keys_and_fields(lang):
    es, other = i18n.catalogue("es"), i18n.catalogue(lang)
    assert sorted(other) == sorted(es)
    for key, template in es.items():
        assert i18n.fields(other[key]) == i18n.fields(template), key


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_text_is_translated(lang):
    es, other = i18n.catalogue("es"), i18n.catalogue(lang)
    # The number format may well be the same (French writes "0,5" and "39 %" too).
    same = {key for key in es if other[key] == es[key] and not key.startswith("format.")}
    assert same <= SAME_IN_BOTH


def test_text_fills_fields_and_refuses_a_mismatch():
    assert i18n.text("input.not_a_number", text="abc") == "«abc» no es un número."
    assert i18n.text("input.not_a_number", "en", text="abc") == "“abc” is not a number."
    with pytest.raises(KeyError, match="campos"):
        i18n.text("input.not_a_number")
    with pytest.raises(KeyError, match="campos"):
        i18n.text("input.kept", extra=1)
    with pytest.raises(KeyError, match=r"no\.existe"):
        i18n.text("no.existe")
    with pytest.raises(ValueError, match="No hay catálogo para el idioma «xx»"):
        i18n.text("input.kept", "xx")


def test_tex_groups_are_not_fields():
    template = r"$$\sqrt{d_k}$$ y $$x^{2}$$, $$a_{i}$$, {name}"
    assert i18n.fields(template) == {"name"}
    assert i18n.fill(template, {"name": "X"}) == r"$$\sqrt{d_k}$$ y $$x^{2}$$, $$a_{i}$$, X"
    # The exercises carry TeX and no field: shown as written.
    assert r"$$\sqrt{d_k}$$" in i18n.text("exercise.large_scores")


def test_catalogue_json_is_the_catalogue():
    import json

    assert json.loads(i18n.catalogue_json("en")) == i18n.catalogue("en")


@pytest.mark.parametrize(
    ("lang", "x", "decimals", "expected"),
    [
        ("es", -3.14159, 2, f"{MINUS}3,14"),
        ("en", -3.14159, 2, f"{MINUS}3.14"),
        ("en", 0.0001, 2, "0.00"),
        ("en", -0.0001, 2, "0.00"),
        ("es", 2.5, 0, "3"),  # a tie: away from zero
    ],
)
def test_number_uses_the_language_decimal_separator(lang, x, decimals, expected):
    assert number(x, decimals, lang=lang) == expected


def test_percent_follows_the_language():
    assert percent(0.391) == "39 %"
    assert percent(0.391, lang="en") == "39%"
    assert percent(0.3915, 1, lang="en") == "39.1%"  # 39.15 is 39.149999… in binary


def test_parse_refusals_are_said_in_each_language():
    with pytest.raises(i18n.Refusal) as empty:
        parse_es_number(" ")
    assert empty.value.message("en") == "The cell is empty: type a number."
    with pytest.raises(ValueError, match=r"^«x» no es un número\.$"):
        parse_es_number("x")
    with pytest.raises(i18n.Refusal) as infinite:
        parse_es_number("1e400")
    assert infinite.value.message("en") == "“1e400” is not a finite number."
    with pytest.raises(i18n.Refusal) as word:
        parse_es_number("inf")  # not in the grammar: ASCII digits only
    assert word.value.message("en") == "“inf” is not a number."


def test_a_refusal_inside_a_refusal_is_said_in_the_same_language():
    inner = i18n.Refusal("input.not_a_number", text="abc")
    outer = i18n.Refusal("input.cell_refused", name="X", row=1, col=2, message=inner)
    assert str(outer) == "X[1,2]: «abc» no es un número. Se mantiene el valor anterior."
    assert outer.message("en") == "X[1,2]: “abc” is not a number. The previous value is kept."
    assert i18n.say(outer, "en") == outer.message("en")
    assert i18n.say(ValueError("plain"), "en") == "plain"


def test_tick_js_writes_the_language_separator():
    assert tick_js(2) == "return tick.toFixed(2).replace('-', '\\u2212').replace('.', \",\");"
    assert tick_js(4, "value", "en").endswith(".replace('.', \".\");")
    assert "Math.round(tick * 1e6) / 1e6" in tick_js()
