"""docs/ejemplos-trabajados.md and docs/worked-examples.md are exactly what the models compute
today, each in its language."""

from __future__ import annotations

import re

import pytest

from attnmodel import worked_examples
from attnmodel.capital import COUNTRIES, VOCABULARY
from attnmodel.explorer import AttentionExplorer
from attnmodel.i18n import text
from attnmodel.multihead import MultiHeadDemo
from attnmodel.positional import WORKED_TOKENS
from attnmodel.training import FACTS, HELD_OUT, TrainingDemo

from c04_testing import spanish_words_left


@pytest.mark.parametrize("lang", sorted(worked_examples.DOC_PATHS))
def test_worked_examples_document_matches_the_models(lang):
    path = worked_examples.DOC_PATHS[lang]
    on_disk = path.read_text(encoding="utf-8")
    assert on_disk == worked_examples.render(lang), (
        f"docs/{path.name} no coincide con los modelos: ejecuta `make docs`."
    )


def test_worked_examples_quote_the_seed_numbers():
    text = worked_examples.render()
    # The capital claims of the seed, as the document prints them.
    assert "| +0,90 | Francia | 0,3805 | " in text
    assert "| Roma | 0,3398 |" in text
    assert "París o Roma (empate)" in text
    # Example 4.2.6: integer scores that can be checked by hand.
    assert "| token 1 | 2 | 1 | 3 |" in text


def es(word: str) -> str:
    return f'<span lang="es">{word}</span>'


def test_the_english_document_quotes_the_same_claims_with_decimal_points():
    doc = worked_examples.render("en")
    assert doc.startswith(text("worked.title", "en") + "\n")
    assert f"| +0.90 | {es('Francia')} | 0.3805 | " in doc
    assert f"| {es('Roma')} | 0.3398 | 1.0794 |" in doc
    assert text("worked.capital.tie", "en", first=es("París"), second=es("Roma")) in doc
    assert "**Why 0.34 and not 0.38.**" in doc
    assert "| token 1 | 2 | 1 | 3 |" in doc
    assert "Unscaled: 10.2%, 0.5%, 1.6%" in doc


def _table_cells(doc: str) -> list[list[str]]:
    return [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in doc.splitlines()
        if line.startswith("|")
    ]


SPANISH_NUMBER = re.compile(r"[+−]?\d+(?:,\d+)?(?: %)?")


def test_both_documents_have_the_same_tables_and_numbers():
    spanish, english = (_table_cells(worked_examples.render(lang)) for lang in ("es", "en"))
    assert len(spanish) == len(english) > 100
    numbers = 0
    for es_row, en_row in zip(spanish, english, strict=True):
        assert len(es_row) == len(en_row), en_row
        for es_cell, en_cell in zip(es_row, en_row, strict=True):
            if SPANISH_NUMBER.fullmatch(es_cell):
                assert en_cell == es_cell.replace(",", ".").replace(" %", "%")
                numbers += 1
    assert numbers > 500


def test_the_english_document_has_no_spanish_outside_the_kept_examples():
    doc = worked_examples.render("en")
    assert spanish_words_left(doc) == set()
    # What is kept in Spanish is the models' own words (tokens, sentences, countries, output
    # words), nothing else; and the check is not vacuous: those words are Spanish.
    model_words = {
        *MultiHeadDemo().tokens,
        MultiHeadDemo().sentence,
        *AttentionExplorer().tokens,
        AttentionExplorer().sentence,
        *WORKED_TOKENS,
        *COUNTRIES,
        *VOCABULARY,
        # The tiny Transformer's probe, its held-out facts and what it predicts for them.
        *(TrainingDemo(country=c).prompt for c in ("Francia", *HELD_OUT)),
        *HELD_OUT,
        *(FACTS[c] for c in HELD_OUT),
        *(TrainingDemo(country=c).prediction for c in HELD_OUT),
        "La",
        "capital",
        "de",
        "es",
    }
    kept = set(re.findall(r'<span lang="es">(.*?)</span>', doc))
    assert kept == model_words
    assert doc.count('lang="es"') == len(re.findall(r'<span lang="es">(.*?)</span>', doc))
    unmarked = re.sub(r'<span lang="es">(.*?)</span>', r"\1", doc)
    assert spanish_words_left(unmarked)
    assert spanish_words_left(worked_examples.render("es")) >= {"apunte", "semilla", "empate"}
    # Each Spanish example is said to be kept, with its English gloss.
    assert doc.count("Spanish example kept") == 3
    assert "“The cat sleeps because the cat is tired”" in doc


def test_the_command_writes_the_language_asked_for(tmp_path):
    out = tmp_path / "worked.md"
    assert worked_examples.main(["--lang", "en", "--write", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == worked_examples.render("en")
