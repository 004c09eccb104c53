"""The lecture's navigation (dashboards/app/navigation.py): a section's message shows it; what no
page sends is refused with one INFO line and the section on screen stays."""

from __future__ import annotations

import logging
import math

import pytest

from attnmodel.i18n import text
from dashboards.app.lecture import SECTIONS, create_lecture
from dashboards.app.navigation import Navigation


@pytest.fixture
def refusals(caplog):
    logger = logging.getLogger("dashboards")
    # Served, the project's loggers do not propagate (configure()): caplog's handler is added
    # to them then, and a record reaches it once either way.
    added = not logger.propagate
    if added:
        logger.addHandler(caplog.handler)
    caplog.set_level(logging.INFO, logger="dashboards.runtime.clients")
    yield caplog
    if added:
        logger.removeHandler(caplog.handler)


def test_a_message_naming_a_section_shows_it():
    lect = create_lecture("autoatencion")
    lect.nav.receive({"section": "capital"})
    assert lect.nav.value == lect.section == "capital"
    assert lect.content.objects[0].marker == "capital"


@pytest.mark.parametrize(("action", "index"), [("next", 2), ("prev", 0)])
def test_a_presenter_key_moves_between_sections(action, index):
    # The navigation also draws the presenter's switches: its keys come as {"action": …}.
    lect = create_lecture(SECTIONS[0].id)
    lect.nav.receive({"action": "next"})
    assert lect.nav.value == SECTIONS[1].id
    lect.nav.receive({"action": action})
    assert lect.nav.value == lect.section == SECTIONS[index].id


def test_the_reset_key_puts_the_sections_demos_back():
    lect = create_lecture("autoatencion")
    lect.scaling.d_k = 256
    lect.nav.receive({"action": "reset"})
    assert lect.scaling.d_k == type(lect.scaling)().d_k != 256


@pytest.mark.parametrize(
    "message",
    [
        {"section": "no-existe"},
        {"section": None},
        {"section": 3},
        {"section": ["capital"]},
        {"section": math.nan},
        {"otra": "capital"},
        "capital!",
        "capital",  # a page sends {"section": id}, never the bare id
        None,
        [1, 2],
        {"section": "x" * 100_000},
        {"action": "borrar"},
        {"action": ["next"]},
        {"action": "next", "section": "no-existe"},
    ],
)
def test_a_forged_message_is_refused_and_the_section_stays(message, refusals):
    lect = create_lecture("posicion")
    lect.nav.receive(message)
    assert lect.nav.value == lect.section == "posicion"
    lines = [r for r in refusals.records if "navegación" in r.getMessage()]
    assert len(lines) == 1
    assert lines[0].levelno == logging.INFO
    assert "valor de un cliente rechazado" in lines[0].getMessage()
    assert len(lines[0].getMessage()) < 300  # a huge value is cut


def test_a_forged_value_written_directly_is_set_back(refusals):
    """A client can write the component's ``value`` itself (a page never does): the lecture
    refuses an id that is no section and puts the one on screen back."""
    lect = create_lecture("capital")
    lect.nav.value = "<script>"
    assert lect.nav.value == lect.section == "capital"
    assert sum("navegación" in r.getMessage() for r in refusals.records) == 1


def test_a_client_rewriting_its_options_does_not_widen_what_is_accepted(refusals):
    lect = create_lecture("capital")
    lect.nav.options = {"trampa": "trampa"}
    lect.nav.receive({"section": "trampa"})
    assert lect.nav.value == "capital"


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_buttons_are_the_sections_in_order_with_the_heading(lang):
    lect = create_lecture("explorador", lang)
    assert lect.nav.options == {s.label(lang): s.id for s in SECTIONS}
    assert lect.nav.heading == text("lecture.sections", lang)
    assert lect.nav.value == "explorador"
    assert 'seccion=explorador"' in lect.nav.languages.replace("&amp;", "&")


def test_the_navigation_is_one_component_of_two_bokeh_models():
    from bokeh.document import Document

    nav = Navigation(options={"A": "a", "B": "b"}, value="a", heading="S")
    doc = Document()
    root = nav.get_root(doc)
    doc.add_root(root)
    kinds = sorted(type(m).__name__ for m in doc.models if type(m).__name__ != "ImportedStyleSheet")
    assert len(kinds) == 2, kinds


def test_the_navigation_is_the_page_s_address():
    """The lecture's navigation follows the browser's address (an Address: one component fewer
    on every page): the link of the state on screen is its ``query``, back/forward's address
    comes to it as {"popstate": "?…"} and is applied, and what a link ignored is its notice."""
    lect = create_lecture("autoatencion")
    assert lect.link.address is lect.nav
    lect.scaling.d_k = 16
    assert "escalado.d_k=16" in lect.nav.query
    lect.nav.receive({"popstate": "?seccion=capital&escalado.d_k=256"})
    assert (lect.scaling.d_k, lect.nav.value) == (256, "capital")
    lect.nav.receive({"popstate": "?escalado.d_k=5000"})
    assert lect.scaling.d_k == 256  # a d_k the model refuses: ignored, and said
    assert lect.nav.notice["testid"] == "link-notice"
