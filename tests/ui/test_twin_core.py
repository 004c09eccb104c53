"""Parity of the browser twin's core (dashboards/static/c04.js) with its Python originals.

Random inputs come from a seeded numpy generator; each test sends them to Chromium in batches
(one `page.evaluate` per batch) and compares: strings byte for byte, numbers within 1e-12
(absolute and relative, `rtol = atol = 1e-12`) or exactly where numpy's order of operations is
reproducible (pairwise sums). C04.fmt is plain JavaScript (toFixed, one pattern for a typed
number): it must write and read exactly what attnmodel.formatting does by the same rules.
"""

from __future__ import annotations

import ast
import decimal
import html
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from attnmodel import formatting
from attnmodel.core import (
    hash_words,
    letter_trigrams,
    scaled_dot_product_attention,
    sinusoidal_encoding,
    softmax,
    softmax_jacobian_norm,
    trigram_vectors,
)
from attnmodel.explorer import DEFAULT_SENTENCE, TOKEN_DIM, TRIGRAM_SALT
from attnmodel.formatting import (
    es_number,
    es_percent,
    large_number,
    number,
    parse_es_number,
    percent,
)
from attnmodel.i18n import Refusal
from attnmodel.i18n import text as catalogue_text
from dashboards.components.markup import esc

from c04_testing import assert_twin_equal, matrix_spec, readout_spec, twin_html

C04_JS = Path(__file__).resolve().parents[2] / "dashboards" / "static" / "c04.js"
TOL = 1e-12
BATCH = 200
FLOAT_MAX = np.finfo(float).max

# Spellings that exercise accents, ñ/ü, ligatures, compatibility forms, scripts whose marks have
# combining class 0 (Devanagari vowel signs, the emoji variation selector) or not (Thai tone
# marks, Arabic harakat, kana voicing marks), final sigma, CJK, emoji and markup.
CORPUS = [
    "El", "gato", "duerme", "porque", "está", "cansado", "Está", "ESTÁ", "niño", "NIÑO",
    "pingüino", "Ñandú", "CAFÉ", "café", "cafe\u0301", "canción", "ﬁn", "ﬃ", "²", "①", "Ǆ",
    "ǅ", "İstanbul", "ΟΔΟΣ", "Σ", "straße", "ẞ", "Ω", "Å", "Ⅸ", "ⅷ", "１２３", "㍿",
    "ﾊﾞﾅﾅ", "がっこう", "東京", "日本語", "한국어", "ทดสอบที่นี่", "नमस्ते", "مَرْحَبًا",
    "שָׁלוֹם", "Tiếng", "Việt", "z̷̢a̴l̶g̸o", "😀", "👍🏽", "👨‍👩‍👧", "🇪🇸", "❤️", "a\u200bb", "...",
    "¡¿!?", "—", "«»", "<script>", "</script>", "<b>x</b>", '"comillas"', "'apóstrofo'",
    "a&b", "x", "ab", "\u0301", "\u0301\u0308", "a b", "a\ud800b",
]  # fmt: skip


@pytest.fixture(scope="module")
def twin_pages(browser):
    """Blank pages with c04.js loaded, one per language, shared by the module; they record
    errors and requests."""
    pages: dict[str, object] = {}
    problems: list[str] = []

    def page_for(lang: str):
        if lang not in pages:
            page = browser.new_page()
            page.on("console", lambda m: m.type == "error" and problems.append(m.text))
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("request", lambda r: problems.append(f"request {r.url}"))
            page.set_content(twin_html(lang=lang))
            assert page.evaluate("typeof window.C04") == "object"
            pages[lang] = page
        return pages[lang]

    yield page_for, problems
    for page in pages.values():
        page.close()


@pytest.fixture
def c04(twin_pages):
    """The shared Spanish page; after each test, no console error and no request."""
    page_for, problems = twin_pages
    yield page_for("es")
    assert problems == []


@pytest.fixture
def c04_en(twin_pages):
    """The shared English page, as `c04`."""
    page_for, problems = twin_pages
    yield page_for("en")
    assert problems == []


def js_map(page, fn: str, cases: list) -> list:
    """Run the JS function `fn` on each argument tuple; return {"ok", "v"} or {"ok", "m"}."""
    code = (
        "cases => cases.map(c => { try { return {ok: true, v: (" + fn + ")(...c)}; }"
        " catch (e) { return {ok: false, m: String(e && e.message)}; } })"
    )
    out = []
    for start in range(0, len(cases), BATCH):
        out.extend(page.evaluate(code, cases[start : start + BATCH]))
    return out


def js_values(page, fn: str, cases: list) -> list:
    results = js_map(page, fn, cases)
    failed = [(c, r["m"]) for c, r in zip(cases, results, strict=True) if not r["ok"]]
    assert not failed, failed[:3]
    return [r["v"] for r in results]


# attnmodel/core.py quotes repr(value) in these refusals; C04.math writes the value as JS does.
QUOTED_VALUE = ("core.temperature", "core.base", "core.positive_int", "core.token_text")
SPECIAL_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


def py_outcome(fn, *args) -> tuple[bool, object]:
    """What ``fn(*args)`` gives, or its refusal's message as the page says it (Spanish): the
    refused value written as JavaScript writes it (:func:`js_quoted`)."""
    try:
        return True, fn(*args)
    except Refusal as exc:
        if exc.key in QUOTED_VALUE:
            written = exc.values["value"]
            value = SPECIAL_FLOATS.get(written) if written in SPECIAL_FLOATS else None
            value = ast.literal_eval(written) if value is None else value
            return False, catalogue_text(exc.key, **{**exc.values, "value": js_quoted(value)})
        return False, str(exc)
    except ValueError as exc:
        return False, str(exc)


def js_outcome(result: dict) -> tuple[bool, object]:
    return (True, result["v"]) if result["ok"] else (False, result["m"])


def units(text: str) -> list[int]:
    """UTF-16 code units, so that lone surrogates survive the trip to the browser."""
    raw = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2)]


FROM_UNITS = "u => String.fromCharCode(...u)"


def assert_close(js, py, context=None) -> None:
    """Same shape, same infinities, finite entries within rtol = atol = 1e-12."""
    js = np.asarray(js, dtype=float)
    py = np.asarray(py, dtype=float)
    assert js.shape == py.shape, context
    assert np.array_equal(np.isneginf(js), np.isneginf(py)), context
    np.testing.assert_allclose(js, py, rtol=TOL, atol=TOL, err_msg=str(context))


def random_doubles(rng, n: int) -> list[float]:
    """Doubles from random bit patterns (every exponent), plus decimal-looking magnitudes."""
    bits = rng.integers(0, 2**63, n, dtype=np.uint64) | (
        rng.integers(0, 2, n, dtype=np.uint64) << np.uint64(63)
    )
    raw = [float(x) for x in bits.view(np.float64) if np.isfinite(x)]
    scaled = rng.standard_normal(n) * 10.0 ** rng.uniform(-9, 24, n)
    digits = rng.integers(0, 7, n)
    rounded = [
        round(float(x), int(d)) for x, d in zip(rng.uniform(-1e3, 1e3, n), digits, strict=True)
    ]
    return raw + [float(x) for x in scaled] + rounded


TIES = [
    0.125, -0.125, 0.375, 2.5, 3.5, -2.5, 0.5, 1.5, -0.5, 0.0625, 0.0005, 1e-7, -0.004, -0.001,
    1e21, -1e21, 1e22, 123456789.125, 1.005, 2.675, 0.0, -0.0, 5e-324, 1.7976931348623157e308,
    4503599627370495.5, 9007199254740993.0, 1e300, -1e-300, 999999999999999999999.5, 2.0**70,
]  # fmt: skip


def half_away_from_zero(x: float, decimals: int) -> str:
    """The rule, computed apart from both sides: |x|'s exact value (a Fraction) times 10^d,
    rounded half away from zero, its digits with `decimals` places, "-" when not zero."""
    scaled = abs(Fraction(x)) * 10**decimals
    n = math.floor(scaled + Fraction(1, 2))
    digits = str(n).rjust(decimals + 1, "0")
    if decimals:
        digits = digits[:-decimals] + "." + digits[-decimals:]
    return ("-" if x < 0 and n else "") + digits


def test_js_number_rounds_the_exact_value_half_away_from_zero_as_python_does(c04, c04_en):
    """C04.fmt.number is toFixed (every integer digit from 1e21 on): the same texts as
    attnmodel.formatting.number on seeded doubles of every exponent, exact binary ties
    (0.125, 2.5, −0.5, k/2^j), huge and tiny values, −0 and what rounds to zero (no sign)."""
    rng = np.random.default_rng(404)
    doubles = random_doubles(rng, 500)
    dyadic = [k / 2**j for k in range(-40, 41, 3) for j in range(1, 10)]  # exact binary ties
    cases = [[x, d, False] for x in TIES + dyadic for d in range(7)]
    cases += [[x, int(d), bool(s)] for x, d, s in zip(
        doubles, rng.integers(0, 7, len(doubles)), rng.random(len(doubles)) < 0.5, strict=True
    )]  # fmt: skip
    cases += [[x, d, True] for x in TIES[:12] + doubles[:20] for d in (12, 20, 100)]
    got = js_values(c04, "(x, d, s) => C04.fmt.number(x, d, s)", cases)
    wrong = [(c, g, es_number(*c)) for c, g in zip(cases, got, strict=True) if g != es_number(*c)]
    assert not wrong, wrong[:5]
    # Python's own text is the rule's, computed apart (Fraction, not Decimal).
    for x, d, s in cases:
        expected = half_away_from_zero(x, d).replace("-", "−").replace(".", ",")
        plus = "+" if s and not expected.startswith("−") and expected.strip("0,") else ""
        assert es_number(x, d, s) == plus + expected, (x, d, s)
    got = js_values(c04_en, "(x, d, s) => C04.fmt.number(x, d, s)", cases[::7])
    assert got == [number(x, d, s, "en") for x, d, s in cases[::7]]
    # The ties, written out: 0,13 where Python's f-string wrote 0,12.
    shown = [[0.125, 2], [-0.125, 2], [2.5, 0], [-2.5, 0], [-0.5, 0], [0.0625, 3], [1.005, 2]]
    shown += [[-0.001, 2], [-0.0, 0], [1e21, 1]]
    got = js_values(c04, "(x, d) => C04.fmt.number(x, d)", shown)
    assert got == [
        "0,13", "−0,13", "3", "−3", "−1", "0,063", "1,00", "0,00", "0", "1000000000000000000000,0",
    ]  # fmt: skip
    refused = js_map(c04, "(x, d) => C04.fmt.number(x, d)", [[1.5, -1], [1.5, 101], [1.5, 0.5]])
    assert [r["ok"] for r in refused] == [False, False, False]
    for d in (-1, 101, 0.5):
        with pytest.raises((ValueError, TypeError)):
            es_number(1.5, d)


def test_js_percent_and_the_default_decimals_match_python(c04, c04_en):
    rng = np.random.default_rng(405)
    xs = [*TIES, math.nan, math.inf, -math.inf, *random_doubles(rng, 150)]
    xs += [float(x) for x in rng.uniform(-0.01, 0.01, 60)]  # "-0,00" territory
    got = js_values(c04, "x => C04.fmt.number(x)", [[x] for x in xs])
    assert got == [es_number(x) for x in xs]
    ps = [*xs[:60], *(float(p) for p in rng.random(100)), 0.005, 0.125, 0.00125, 0.995]
    cases = [[p, int(d)] for p, d in zip(ps, rng.integers(0, 4, len(ps)), strict=True)]
    got = js_values(c04, "(p, d) => C04.fmt.percent(p, d)", cases)
    assert got == [es_percent(p, d) for p, d in cases]
    got = js_values(c04_en, "(p, d) => C04.fmt.percent(p, d)", cases)
    assert got == [percent(p, d, "en") for p, d in cases]
    got = js_values(c04, "p => C04.fmt.percent(p)", [[0.391], [0.995], [0.125], [0.005]])
    assert got == ["39 %", "100 %", "13 %", "1 %"]  # 12,5 and 0,5 round up


def test_js_large_number_matches_python_byte_for_byte(c04):
    """C04.fmt.large (the numbers of «Autoatención»): number() below 10^6 in magnitude, 5
    significant digits times a power of ten from there, the digits of the exact binary value
    rounded half away from zero (1234450 is a tie: 1,2345×10⁶), a carry to the next power."""
    rng = np.random.default_rng(407)
    ties = [1234450.0, -1234450.0, 1234550.0, 9999950.0, -9999950.0, 99999.5, 1e6, -1e6]
    ties += [999999.99995, 999999.4, 2.0**70, 8e24, 1e21, 2e12, *TIES]
    xs = [*ties, math.nan, math.inf, -math.inf, *random_doubles(rng, 150)]
    xs += [float(x) for x in rng.uniform(-1, 1, 80) * 10.0 ** rng.uniform(5, 25, 80)]
    # Exact ties at the fifth digit: 12345.5 · 10^e, an integer below 2^53.
    xs += [(k + 0.5) * 10**e for k in range(10000, 99999, 3797) for e in (2, 5, 10)]
    cases = [[x, int(d)] for x, d in zip(xs, rng.integers(0, 5, len(xs)), strict=True)]
    got = js_values(c04, "(x, d) => C04.fmt.large(x, d)", cases)
    assert got == [large_number(x, d, "es") for x, d in cases]
    assert large_number(1234450.0, 4, "en") == "1.2345×10⁶"
    assert large_number(-9999950.0, 4) == "−1,0000×10⁷"
    assert large_number(8.1234567e24, 2) == "8,1235×10²⁴"


PARSE_TEXTS = [
    "1,5", "−2", " 3.25 ", "1e3", "1E-3", "", "   ", "\u00a0", "abc", "1,5,6", "1.5,2", "1,5.2",
    "inf", "-inf", "+Infinity", "nan", "-NaN", "1e400", "-1e400", "1e-400", "1_000", "1__0",
    "_1", "1_", "1_.5", "1e1_0", "١٢٣", "１２３", "\u00a01,5\u00a0", "\t-3\n", "−", "+", "-",
    "1e", ".5", "5.", ",5", "5,", ",", ".", "1 000", "1\u2009000", "1\u202f000,25",
    "\u2003 7 \u3000", "½", "²", "0x10", "1.2.3", "−0", "−0,0", "+−1", "1e−3", "−1,5e−3",
    "\x1c4\x1f", "\ufeff4", "4\x85", "٣,٥", "1.5e+3", "--1", "1e+", "e3", "1 e 3", "+.5", "-,5e2",
    "1\r\n", "\u30007", "7\u2003", "\x0b7", "7\u205f",
    # At and past MAX_NUMBER_CHARS (64), in code points: an emoji is one, not two.
    "1" * 64, "1" * 65, " " * 70, "0" * 63 + "😀", "0" * 64 + "😀", "x" * 100_000,
]  # fmt: skip

# The grammar, written out (attnmodel/formatting.py's docstring): what each text reads as.
READ = {
    "1,5": 1.5, "−2": -2.0, " 3.25 ": 3.25, "1e3": 1000.0, ".5": 0.5, "5,": 5.0, "1 000": 1000.0,
    "1\u2009000": 1000.0, "1\u202f000,25": 1000.25, "\t-3\n": -3.0, "1e−3": 0.001,
    "−1,5e−3": -0.0015, "+.5": 0.5, "-,5e2": -50.0, "1 e 3": 1000.0, "1e-400": 0.0,
}  # fmt: skip
NOT_A_NUMBER = [
    "inf", "nan", "+Infinity", "1_000", "١٢٣", "１２３", "1,5,6", "1.5,2", "0x10", "−", "1e",
    "--1", "+−1", "\u2003 7 \u3000", "\ufeff4", ",", "e3",
]  # fmt: skip


def test_js_parse_number_reads_the_grammar_as_python_and_refuses_in_each_language(c04, c04_en):
    """C04.fmt.parseNumber and parse_es_number: the same value (and sign of zero) or the same
    refusal, in Spanish and in English, on the texts above and 600 seeded random ones."""
    for text, value in READ.items():
        assert parse_es_number(text) == value, text
    for text in NOT_A_NUMBER:
        with pytest.raises(ValueError, match="no es un número"):
            parse_es_number(text)
    rng = np.random.default_rng(406)
    alphabet = [*"0123456789,.-+e _", "−", "\u00a0", "\u2009", "\t", "\u3000", "n", "f", "E", "٣"]
    texts = PARSE_TEXTS + [
        "".join(rng.choice(alphabet, int(rng.integers(0, 8)))) for _ in range(600)
    ]
    cases = [[t] for t in texts]
    for page, lang in ((c04, "es"), (c04_en, "en")):
        got = [js_outcome(r) for r in js_map(page, "t => C04.fmt.parseNumber(t)", cases)]
        for (text,), g in zip(cases, got, strict=True):
            try:
                expected = (True, parse_es_number(text))
            except ValueError as exc:
                expected = (False, exc.message(lang))
            assert g == expected, (text, lang, g, expected)
            if g[0]:
                assert math.copysign(1, g[1]) == math.copysign(1, expected[1]), text
    accepted = sum(1 for (t,) in cases if parse_or_none(t) is not None)
    assert 100 < accepted < len(cases) - 100  # both outcomes were exercised


def parse_or_none(text):
    try:
        return parse_es_number(text)
    except ValueError:
        return None


def test_c04_js_holds_python_s_number_patterns_as_the_same_text():
    source = C04_JS.read_text()
    for name in ("NUMBER_PATTERN", "SPACES_PATTERN"):
        found = re.search(rf"const {name} = String\.raw`([^`]*)`;", source)
        assert found, name
        assert found.group(1) == getattr(formatting, name), name
    assert f"const MAX_NUMBER_CHARS = {formatting.MAX_NUMBER_CHARS};" in source


ESC_TEXTS = [
    "<script>alert('x')</script>", 'a "b" & \'c\'', "&amp;", "ñandú > gato < perro", "", "1",
    "—∞", "😀", "<<>>", "'" * 3,
]  # fmt: skip


def test_js_esc_matches_html_escape_quote_true(c04):
    got = js_values(c04, "t => C04.html.esc(t)", [[t] for t in ESC_TEXTS + CORPUS])
    assert got == [html.escape(t, quote=True) for t in ESC_TEXTS + CORPUS]
    assert got == [esc(t) for t in ESC_TEXTS + CORPUS]
    assert js_values(c04, "t => C04.html.esc(t)", [[3], [2.5]]) == ["3", "2.5"]  # String(x)


def random_labels(rng, n: int) -> list[str]:
    pool = [*ESC_TEXTS, *CORPUS[:20], "q", "k", "v"]
    return [str(pool[int(i)]) for i in rng.integers(0, len(pool), n)]


def test_js_matrix_spec_matches_python(c04):
    rng = np.random.default_rng(407)
    cases = []
    special = [-np.inf, np.inf, np.nan, -0.0, 0.0, 0.0625, 0.0005, 0.55, 0.5505, 1.0, 0.125, 2.5]
    for i in range(160):
        n_rows, n_cols = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        if i % 8 == 0:
            n_cols = int(rng.integers(7, 41))  # numpy's pairwise sum at work in the row sums
        m = rng.standard_normal((n_rows, n_cols)) * 10.0 ** rng.uniform(-3, 4)
        if i % 2:
            m = rng.random((n_rows, n_cols))  # attention weights, shaded
        picks = rng.random((n_rows, n_cols))
        m = np.where(picks < 0.12, rng.choice(special, (n_rows, n_cols)), m)
        m = np.where(rng.random((n_rows, n_cols)) < 0.1, -np.inf, m)
        options = {
            "title": ["", "Pesos $$\\alpha$$ <b>x</b>", "Q · Kᵀ"][i % 3],
            "rowLabels": random_labels(rng, n_rows) if i % 4 else [str(r) for r in range(n_rows)],
            "colLabels": random_labels(rng, n_cols) if i % 5 else [str(c) for c in range(n_cols)],
            "decimals": int(rng.integers(0, 5)),
            "rowSums": bool(i % 3 == 1),
            "testid": ["", None, 'mat-"q"&<x>', "weights"][i % 4],
            "shade": bool(i % 2),
        }
        cases.append([m.tolist(), options])
    # a vector is one row, as np.atleast_2d; every other option at its default
    cases.append([[0.1, 0.2, 0.7], {"rowLabels": ["a"], "colLabels": ["x", "y", "z"]}])
    got = js_values(c04, "(m, o) => C04.spec.matrix(m, o)", cases)
    for (m, o), g in zip(cases, got, strict=True):
        expected = matrix_spec(
            m,
            o["rowLabels"],
            o["colLabels"],
            title=o.get("title", ""),
            decimals=o.get("decimals", 2),
            row_sums=o.get("rowSums", False),
            testid=o.get("testid"),
            shade=o.get("shade", False),
        )
        assert_twin_equal(expected, g, repr((m, o)), tol=0)


def random_score_rows(rng, count: int) -> list[np.ndarray]:
    """Score matrices: ordinary, huge (up to ±1.6e308), huge spreads, masked entries."""
    out = []
    for i in range(count):
        n_rows, n_cols = int(rng.integers(1, 6)), int(rng.integers(1, 41))
        kind = i % 4
        if kind == 0:
            s = rng.standard_normal((n_rows, n_cols)) * 3
        elif kind == 1:
            s = rng.standard_normal((n_rows, n_cols)) * 10.0 ** rng.uniform(0, 300)
        elif kind == 2:  # rows mixing every scale up to ±1.6e308, where x / T overflows
            exponents = rng.uniform(-5, 308.2, (n_rows, n_cols))
            s = rng.choice([-1, 1], (n_rows, n_cols)) * 10.0**exponents
        else:
            s = rng.standard_normal((n_rows, n_cols)) * 40
        masked = rng.random((n_rows, n_cols)) < 0.3
        masked[np.arange(n_rows), rng.integers(0, n_cols, n_rows)] = False  # keep one per row
        out.append(np.where(masked, -np.inf, s))
    return out


def test_js_softmax_matches_python_within_1e_12(c04):
    rng = np.random.default_rng(408)
    cases = [[s.tolist(), float(rng.uniform(0.1, 3))] for s in random_score_rows(rng, 300)]
    cases += [[[1e300, -1e300, 0.0], 0.1], [[FLOAT_MAX, -FLOAT_MAX], 3.0], [[5.0, -np.inf], 1.0]]
    cases += [[[[1e300, 1e300 * (1 + 2**-52)], [-1e300, -np.inf]], 0.1]]
    cases += [[[1e308, 1.5e308], 0.1], [[FLOAT_MAX, 0.999 * FLOAT_MAX, 0.0], 0.25]]  # x / T = inf
    got = js_values(c04, "(s, t) => C04.math.softmax(s, t)", cases)
    for (s, t), g in zip(cases, got, strict=True):
        expected = softmax(s, temperature=t)
        assert_close(g, expected, (s, t))
        g = np.asarray(g)
        assert np.array_equal(g == 0, expected == 0)  # masked and underflowed: exactly 0
        normal = np.abs(expected) > 1e-290  # tiny weights agree relatively too
        np.testing.assert_allclose(g[normal], expected[normal], rtol=TOL, atol=0)
    assert js_values(c04, "s => C04.math.softmax(s)", [[[1.0, 2.0]]]) == [
        softmax([1.0, 2.0]).tolist()
    ]


def test_js_softmax_raises_the_python_errors_in_spanish(c04):
    cases = [
        [[1.0, 2.0], 0.0], [[1.0], -1.5], [[1.0], math.nan], [[1.0], math.inf], [[1.0], True],
        [[1.0, math.nan], 1.0], [[[1.0], [math.inf]], 1.0], [[-math.inf, -math.inf], 1.0],
        [[[0.0, 1.0], [-math.inf, -math.inf]], 1.0], [[], 1.0],
    ]  # fmt: skip
    got = [js_outcome(r) for r in js_map(c04, "(s, t) => C04.math.softmax(s, t)", cases)]
    expected = [py_outcome(lambda s, t: softmax(s, temperature=t), *c) for c in cases]
    assert got == expected
    assert all(not ok for ok, _ in got)


def random_qkv(rng, i: int):
    n_q = int(rng.integers(1, 7))
    n_k = int(rng.integers(n_q, 9))
    d_k, d_v = int(rng.integers(1, 9)), int(rng.integers(1, 7))
    q = rng.standard_normal((n_q, d_k)) * 3
    k = rng.standard_normal((n_k, d_k)) * 3
    v = rng.standard_normal((n_k, d_v)) * 3
    if i % 3 == 1:
        # Dots of ~1e160 entries: huge finite scores, and products that overflow to ±inf (the
        # score saturates at ±max). The overflowing terms of one dot share their sign: with
        # mixed signs, BLAS's fused multiply-adds make Python's own score +inf, -inf or NaN
        # depending on the kernel's summation order.
        q = np.where(rng.random(q.shape) < 0.3, rng.choice([1e160, 3e155], q.shape), q)
        sign = rng.choice([-1.0, 1.0], (n_k, 1))
        k = np.where(rng.random(k.shape) < 0.3, sign * rng.choice([1e160, 7e154], k.shape), k)
    elif i % 3 == 2:
        q = q * 10.0 ** rng.uniform(0, 2)
    return q, k, v


def test_js_sdpa_matches_python_within_1e_12(c04):
    rng = np.random.default_rng(409)
    cases = []
    for i in range(240):
        q, k, v = random_qkv(rng, i)
        options = {
            "causal": bool(i % 2),
            "scale": bool(i % 5 != 0),
            "temperature": float(rng.uniform(0.1, 3)),
        }
        cases.append([q.tolist(), k.tolist(), v.tolist(), options])
    got = js_values(c04, "(q, k, v, o) => C04.math.sdpa(q, k, v, o)", cases)
    saturated = 0
    for (q, k, v, o), g in zip(cases, got, strict=True):
        r = scaled_dot_product_attention(q, k, v, o["causal"], o["scale"], o["temperature"])
        assert_close(g["scores"], r.scores, (q, k, o))
        assert_close(g["weights"], r.weights, (q, k, o))
        assert_close(g["output"], r.output, (q, k, v, o))
        assert np.array_equal(np.asarray(g["weights"]) == 0, r.weights == 0)
        saturated += int(np.any(np.abs(r.scores) == FLOAT_MAX))
    assert saturated > 10  # the extreme cases did saturate
    default = js_values(c04, "(q, k, v) => C04.math.sdpa(q, k, v)", [cases[0][:3]])[0]
    r = scaled_dot_product_attention(*cases[0][:3])
    assert_close(default["output"], r.output)


def test_js_sdpa_raises_the_python_errors_in_spanish(c04):
    ok = [[1.0, 2.0], [3.0, 4.0]]
    cases = [
        [[1.0, 2.0], ok, ok, {}],
        [ok, [[1.0, 2.0, 3.0]], [[1.0]], {}],
        [ok, ok, [[1.0]], {}],
        [[[1.0], [2.0], [3.0]], [[1.0], [2.0]], [[1.0], [2.0]], {"causal": True}],
        [[[math.nan, 1.0]], ok, ok, {}],
        [ok, ok, [[math.inf, 0.0], [0.0, 0.0]], {}],
        [ok, ok, ok, {"temperature": 0.0}],
    ]
    got = [js_outcome(r) for r in js_map(c04, "(q, k, v, o) => C04.math.sdpa(q, k, v, o)", cases)]
    expected = [
        py_outcome(
            lambda q, k, v, o: scaled_dot_product_attention(
                q, k, v, o.get("causal", False), temperature=o.get("temperature", 1.0)
            ),
            *c,
        )
        for c in cases
    ]
    assert got == expected
    assert all(not ok for ok, _ in got)


def distributions(rng, count: int) -> list[np.ndarray]:
    out = [np.full(5, 0.2), np.eye(4)[1], np.array([0.5, 0.5, 0.0]), np.array([1.0])]
    for i in range(count):
        n = int(rng.integers(1, 41))
        spread = 10.0 ** rng.uniform(-2, 2.5)
        p = softmax(rng.standard_normal((int(rng.integers(1, 4)), n)) * spread)
        if i % 4 == 0:
            p[:, rng.integers(0, n)] = 0.0
        out.append(p)
    return out


def test_js_softmax_jacobian_norm_matches_python_within_1e_12(c04):
    """sqrt(s2 - 2 s3 + s2²) is ill-conditioned near one-hot rows, where numpy's `p**3` (SIMD pow,
    not correctly rounded) decides the last ulp of the radicand: there the squared norms agree to
    1e-15 and the norms only where they are >= 1e-3 (as far as Python's own value is accurate)."""
    rng = np.random.default_rng(411)
    ps = distributions(rng, 300)
    got = js_values(c04, "p => C04.math.softmaxJacobianNorm(p)", [[p.tolist()] for p in ps])
    checked = 0
    for p, g in zip(ps, got, strict=True):
        expected = softmax_jacobian_norm(p)
        g = np.asarray(g, dtype=float)
        np.testing.assert_allclose(g**2, expected**2, rtol=0, atol=1e-15, err_msg=str(p))
        conditioned = expected >= 1e-3
        np.testing.assert_allclose(g[conditioned], expected[conditioned], rtol=TOL, atol=TOL)
        checked += int(np.sum(conditioned))
    assert checked > 400


def test_js_sinusoidal_encoding_matches_python_within_1e_12(c04):
    rng = np.random.default_rng(412)
    cases = [[int(rng.integers(1, 200)), int(rng.integers(1, 65)), b] for b in [10000.0] * 8]
    cases += [[int(rng.integers(1, 120)), int(rng.integers(1, 33)), b] for b in (100.0, 1.5, 1e6)]
    cases += [[8, 16, 10000.0], [40, 16, 10000.0], [1, 1, 2.0], [5, 3, 10000.0]]
    code = "(n, d, b) => C04.math.sinusoidalEncoding(n, d, b).map(r => Array.from(r))"
    got = js_values(c04, code, cases)
    for (n, d, b), g in zip(cases, got, strict=True):
        assert_close(g, sinusoidal_encoding(n, d, b), (n, d, b))
    code = "(n, d) => C04.math.sinusoidalEncoding(n, d).map(r => Array.from(r))"
    assert_close(js_values(c04, code, [[6, 4]])[0], sinusoidal_encoding(6, 4))
    bad = [[0, 4, 10000.0], [2.5, 4, 10000.0], [3, -1, 10000.0], [3, 4, 1.0], [3, 4, math.nan]]
    code = "(n, d, b) => C04.math.sinusoidalEncoding(n, d, b)"
    got = [js_outcome(r) for r in js_map(c04, code, bad)]
    assert got == [py_outcome(sinusoidal_encoding, *c) for c in bad]


def test_js_matmul_and_transpose_match_numpy(c04):
    rng = np.random.default_rng(413)
    cases = []
    for _ in range(100):
        n, k, m = (int(x) for x in rng.integers(1, 12, 3))
        cases.append([(rng.standard_normal((n, k)) * 5).tolist(), rng.random((k, m)).tolist()])
    got = js_values(c04, "(a, b) => [C04.math.matmul(a, b), C04.math.transpose(a)]", cases)
    for (a, b), (product, transposed) in zip(cases, got, strict=True):
        assert_close(product, np.asarray(a) @ np.asarray(b))
        assert transposed == np.asarray(a).T.tolist()


def test_js_sum_is_numpy_pairwise_sum_bit_for_bit(c04):
    rng = np.random.default_rng(414)
    arrays = [
        rng.standard_normal(int(n)) * 10.0 ** rng.uniform(-5, 5, int(n))
        for n in rng.integers(0, 300, 120)
    ]
    got = js_values(c04, "a => C04.math.sum(a)", [[a.tolist()] for a in arrays])
    assert got == [float(np.sum(a)) for a in arrays]


def test_js_letter_trigrams_match_python_exactly(c04):
    got = js_values(
        c04, f"u => C04.math.letterTrigrams(({FROM_UNITS})(u))", [[units(t)] for t in CORPUS]
    )
    for token, g in zip(CORPUS, got, strict=True):
        assert [units(t) for t in letter_trigrams(token)] == [units(t) for t in g], token


def test_js_hash_words_match_python_exactly(c04):
    rng = np.random.default_rng(415)
    texts = [f"{TRIGRAM_SALT}:#ga", "", "abc", *CORPUS[:30]]
    texts += ["".join(rng.choice(list("ab#ñ😀"), int(n))) for n in rng.integers(0, 400, 40)]
    cases = [[t, int(n)] for t, n in zip(texts, rng.integers(1, 320, len(texts)), strict=True)]
    got = js_values(c04, "(t, n) => Array.from(C04.math.hashWords(t, n))", cases)
    assert got == [hash_words(t, n).tolist() for t, n in cases]


def test_js_trigram_vectors_match_python_within_1e_12(c04):
    tokens = [*DEFAULT_SENTENCE.split(), *CORPUS]
    cases = [[[units(t) for t in tokens], TOKEN_DIM, TRIGRAM_SALT]]
    cases += [
        [[units(t) for t in CORPUS[::3]], d, s] for d, s in [(1, 0), (3, 7), (40, 1), (70, 2)]
    ]
    code = f"(us, d, s) => C04.math.trigramVectors(us.map({FROM_UNITS}), d, s)"
    got = js_values(c04, code, cases)
    for (token_units, d, salt), g in zip(cases, got, strict=True):
        words = ["".join(map(chr, u)).encode("utf-16-le", "surrogatepass") for u in token_units]
        words = [w.decode("utf-16-le", "surrogatepass") for w in words]
        assert_close(g, trigram_vectors(words, d, salt=salt), (d, salt))
    one = js_values(c04, "t => C04.math.trigramVectors(t, 16)", [["gato"]])[0]
    assert_close(one, trigram_vectors("gato", 16))
    bad = [[["gato"], 0, 0], [["gato", ""], 16, 0], [["gato", 3], 16, 0], [[], 16, 0]]
    got = [js_outcome(r) for r in js_map(c04, "(t, d, s) => C04.math.trigramVectors(t, d, s)", bad)]
    expected = [py_outcome(lambda t, d, s: trigram_vectors(t, d, s).tolist(), *c) for c in bad]
    assert got == expected


def js_quoted(value) -> str:
    """How C04.math writes a refused value: a number as JavaScript does, anything else as JSON."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return js_number_text(float(value))
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def js_number_text(x: float) -> str:
    """ECMAScript's Number::toString(x) (ECMA-262, Number::toString), written from the spec: the
    shortest digits that read back as x (Python's repr finds the same ones), placed by its rules."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "-Infinity" if x < 0 else "Infinity"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number_text(-x)
    shortest = decimal.Decimal(repr(x)).normalize().as_tuple()
    digits = "".join(map(str, shortest.digits))
    k = len(digits)
    n = shortest.exponent + k  # x = 0.d1…dk × 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def test_js_number_text_is_the_spec_s():
    cases = {1e-05: "0.00001", 1e-07: "1e-7", 1e16: "10000000000000000", 1e21: "1e+21"}
    cases |= {123.456: "123.456", 2.0**60: "1152921504606847000", 0.1: "0.1", 1.5e300: "1.5e+300"}
    cases |= {5e-324: "5e-324", 1234567890123456.0: "1234567890123456", 1e22: "1e+22"}
    assert {x: js_number_text(x) for x in cases} == cases


def test_js_math_refuses_what_python_refuses_with_the_catalogue_s_message(c04):
    """C04.math refuses exactly the values attnmodel/core.py refuses, each with the same
    catalogue message; the value in it is written as JS writes it (the page's controls never
    reach these: they are messages for a developer, not Python's repr)."""
    rng = np.random.default_rng(416)
    xs = random_doubles(rng, 150)
    xs += [1e-5, 1e-4, 0.1, 1.0, 0.0, -0.0, 1234567890123456.0, 1e16, 1e22, math.nan, math.inf]
    temperatures = [-abs(x) if math.isfinite(x) else x for x in xs]

    cases = [[[1.0], t] for t in temperatures]
    got = [js_outcome(r) for r in js_map(c04, "(s, t) => C04.math.softmax(s, t)", cases)]
    assert got == [py_outcome(lambda s, t: softmax(s, temperature=t), *c) for c in cases]
    assert all(not ok for ok, _ in got)
    values = [0, -7, -12, -(2**60), -(10**22), "", "a'b", 'a"b', "a'\"b", "tab\there", "ñ😀"]
    values += ["\x00\x7f\u200b\u2028", [1, "x"]]
    cases = [[v, 4] for v in values]
    got = [js_outcome(r) for r in js_map(c04, "(n, d) => C04.math.sinusoidalEncoding(n, d)", cases)]
    assert got == [py_outcome(sinusoidal_encoding, *c) for c in cases]
    assert all(not ok for ok, _ in got)


def test_js_apply_sets_a_spec_a_boards_slots_and_a_matrix_only_when_they_change(c04):
    result = c04.evaluate(
        """() => {
        let specSets = 0, boardSets = 0, valueSets = 0;
        const watched = (initial, count) => {
          let held = initial;
          return {get: () => held, set: (v) => { count(); held = v; }};
        };
        const spec = watched("", () => specSets++);
        const board = watched('{"a":{"x":1},"b":{"y":2}}', () => boardSets++);
        const values = watched(null, () => valueSets++);
        const args = {
          grid: {data: Object.defineProperty({}, "spec_json", spec)},
          a: null, b: null,
          raster: {data: Object.defineProperty({}, "values", values)},
        };
        args.a = args.b = {data: Object.defineProperty({}, "specs_json", board)};
        const kinds = {grid: "markup", a: "board:a", b: "board:b", raster: "esm:values"};
        const matrix = [1, 2, 3, 4];
        matrix.shape = [2, 2];
        const parts = {grid: {t: "<i>"}, a: {x: 1}, b: {y: 3}, raster: matrix};
        C04.apply(args, parts, kinds);
        const again = [1, 2, 3, 4];
        again.shape = [2, 2];
        C04.apply(args, {...parts, raster: again}, kinds);  // the same: nothing set again
        let error = null;
        try { C04.apply({p: {}}, {p: 1}, {p: "bogus"}); } catch (e) { error = e.message; }
        return {spec: spec.get(), board: JSON.parse(board.get()), values: Array.from(values.get()),
                specSets, boardSets, valueSets, error};
      }"""
    )
    assert result["spec"] == '{"t":"<i>"}'  # the spec as JSON text, escaped by markup.js
    assert result["board"] == {"a": {"x": 1}, "b": {"y": 3}}  # one slot changed, one kept
    assert result["values"] == [1, 2, 3, 4]
    assert (result["specSets"], result["boardSets"], result["valueSets"]) == (1, 1, 1)
    assert result["error"] == 'tipo de destino desconocido: "bogus"'  # a developer's message


def test_js_update_reads_state_renders_applies_and_returns_ms(c04):
    result = c04.evaluate(
        """() => {
        C04.views.demo = {
          readState: (args) => ({t: args.w_t.value}),
          render: (state) => ({out: C04.spec.readout('T', C04.fmt.number(state.t, 1))}),
        };
        let sets = 0, text = "";
        const out = {data: {get spec_json() { return text; },
                            set spec_json(v) { sets += 1; text = v; }}};
        const args = {w_t: {value: 2.25}, out};
        const ms = C04.update('demo', args, {out: 'markup'});
        C04.update('demo', args, {out: 'markup'});  // the same spec again: not set again
        return {ms, spec: JSON.parse(text), sets, last: C04.lastUpdate.demo};
      }"""
    )
    assert result["spec"] == readout_spec("T", es_number(2.25, 1))
    assert result["sets"] == 1
    assert result["ms"] >= 0
    assert result["last"] == "demo"


def test_c04_js_is_a_plain_offline_script():
    source = C04_JS.read_text()
    assert not re.search(r"^\s*(import|export)\b", source, re.MULTILINE)
    for forbidden in ("require(", "import(", "fetch(", "XMLHttpRequest", "WebSocket", "http"):
        assert forbidden not in source, forbidden
    assert "root.C04 = C04" in source


def test_js_text_in_a_views_language_reads_that_languages_catalogue(browser):
    """A notebook's page (dashboards/app/notebook.py) holds the default language's catalogue and
    each other one's: C04.t and C04.fmt write in a view's language inside C04.inLanguage (a
    Board's drawing), in the page's outside it, after an error too; a language the page has
    no catalogue of falls back to the page's."""
    from dashboards.app.notebook import browser_code

    page = browser.new_page()
    try:
        page.set_content(f'<!DOCTYPE html><html lang="es"><body>{browser_code()}</body></html>')
        got = page.evaluate(
            """(key) => {
              const both = () => [C04.t(key), C04.fmt.number(0.5)];
              const outside = both();
              const inside = C04.inLanguage("en", () => [
                ...both(), C04.inLanguage("es", () => C04.t(key)), C04.t(key)]);
              try { C04.inLanguage("en", () => { throw new Error("x"); }); } catch (e) {}
              return {outside, inside, after: both(), none: C04.inLanguage("xx", both)};
            }""",
            "self_attention.heatmap_title",
        )
    finally:
        page.close()
    es, en = (catalogue_text("self_attention.heatmap_title", lang) for lang in ("es", "en"))
    assert got == {
        "outside": [es, "0,50"],
        "inside": [en, "0.50", es, en],
        "after": [es, "0,50"],
        "none": [es, "0,50"],
    }
