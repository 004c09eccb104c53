"""Every demo is also servable alone (`make serve` serves /<demo> next to the lecture)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel.i18n import text
from dashboards.demos.registry import APPS, DEMOS

from c04_testing import heading_text

HEADINGS = {d.module: heading_text(d.title()) for d in DEMOS}


@pytest.mark.parametrize("app", [a for a in APPS if a != "lecture"])
def test_demo_is_servable_alone(page, watch, server, app):
    page.goto(f"{server['base']}/{app}")
    expect(page.get_by_text(HEADINGS[app]).first).to_be_visible(timeout=30_000)
    # The lecture's navigation is not part of a standalone demo.
    expect(page.get_by_text(text("lecture.sections"))).to_have_count(0)
    assert page.evaluate("document.documentElement.lang") == "es"
    assert watch.console_errors == []
    assert watch.external == []
