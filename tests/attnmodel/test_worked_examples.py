"""docs/ejemplos-trabajados.md is exactly what the models compute today."""

from __future__ import annotations

from attnmodel import worked_examples


def test_worked_examples_document_matches_the_models():
    on_disk = worked_examples.DOC_PATH.read_text(encoding="utf-8")
    assert on_disk == worked_examples.render(), (
        "docs/ejemplos-trabajados.md no coincide con los modelos: ejecuta `make docs`."
    )


def test_worked_examples_quote_the_seed_numbers():
    text = worked_examples.render()
    # The capital claims of the seed, as the document prints them.
    assert "| +0,90 | Francia | 0,3805 | " in text
    assert "| Roma | 0,3398 |" in text
    assert "París o Roma (empate)" in text
    # Example 4.2.6: integer scores that can be checked by hand.
    assert "| token 1 | 2 | 1 | 3 |" in text
