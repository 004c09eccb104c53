"""Every demo is also servable alone (`make serve` serves /<demo> next to the lecture)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dashboards.registry import APPS

HEADINGS = {
    "self_attention": "Autoatención sobre tres tokens",
    "scaling": "¿Por qué dividir por",
    "multihead": "Varias cabezas, varias relaciones a la vez",
    "positional": "La matriz de codificación posicional",
    "capital": "La capital de ___ es",
    "explorer": "Atención: cómo decide un Transformer qué mirar",
}


@pytest.mark.parametrize("app", [a for a in APPS if a != "lecture"])
def test_demo_is_servable_alone(page, watch, server, app):
    page.goto(f"{server['base']}/{app}")
    expect(page.get_by_text(HEADINGS[app]).first).to_be_visible(timeout=30_000)
    # The lecture's navigation is not part of a standalone demo.
    expect(page.get_by_text("Secciones")).to_have_count(0)
    assert watch.console_errors == []
    assert watch.external == []
