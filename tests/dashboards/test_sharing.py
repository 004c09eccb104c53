"""The link in the page (dashboards/sharing/live_link.py): a session's state ↔ its address,
back/forward, "Copiar enlace", and what the export tells links.js about each field's widget."""

from __future__ import annotations

import pytest

from attnmodel.i18n import text
from dashboards import export
from dashboards.app.lecture import Lecture
from dashboards.demos import next_word, registry
from dashboards.sharing import links, live_link


def test_the_lecture_opens_its_link_and_its_address_follows_the_models():
    lecture = Lecture(section="capital")
    lecture.link.apply("?seccion=capital&capital.identity=0&nada=1", navigate=False)
    assert lecture.capital.identity == 0.0
    assert "capital.identity=0" in lecture.link.address.query
    assert "nada" in lecture.link.address.notice["text"]
    lecture.scaling.d_k = 16
    assert "escalado.d_k=16" in lecture.link.address.query
    lecture.go("cabezas")
    assert lecture.link.address.query.startswith("seccion=cabezas&")


def test_the_address_is_the_link_of_every_demo_after_changes_in_each():
    """The page keeps each demo's part of the link and recomputes the one that changed: after
    changes in every demo (a preset that sets the matrices, a cell, a section), the address is
    what ``links.encode`` computes from all the models."""
    lecture = Lecture(section="autoatencion", lang="en")
    models = {d.id: getattr(lecture, d.module) for d in registry.DEMOS}

    def expected() -> str:
        return links.encode(models, lecture.nav.value, "en")

    lecture.self_attention.preset = lecture.self_attention.param.preset.objects[1]
    assert lecture.link.address.query == expected()
    lecture.self_attention.set_cell("X", 0, 0, 2.5)
    lecture.scaling.d_k = 256
    lecture.capital.country = "Italia"
    lecture.explorer.sentence = "el gato duerme"
    lecture.positional.d_model = 32
    lecture.multihead.n_heads = 2
    assert lecture.link.address.query == expected()
    lecture.go("capital")
    lecture.self_attention.causal = True
    assert lecture.link.address.query == expected()
    assert "autoatencion.causal=1" in lecture.link.address.query


def test_back_and_forward_apply_the_address_and_its_section():
    lecture = Lecture(section="autoatencion")
    lecture.link.address.receive({"popstate": "?seccion=posicion&posicion.d_model=32"})
    assert lecture.section == "posicion"
    assert lecture.positional.d_model == 32
    assert lecture.link.address.notice == {}
    # Back to the first address: the defaults again.
    lecture.link.address.receive({"popstate": "?seccion=autoatencion"})
    assert lecture.section == "autoatencion"
    assert lecture.positional.d_model == 64  # not in that address: at its default again


@pytest.mark.parametrize(
    "message",
    [None, [], "x", {"popstate": 5}, {"popstate": "?" + "a" * (live_link.MAX_MESSAGE_CHARS + 1)}],
)
def test_a_forged_message_changes_nothing(message):
    lecture = Lecture(section="autoatencion")
    before = lecture.link.address.query
    lecture.link.address.receive(message)
    assert lecture.link.address.query == before
    assert lecture.section == "autoatencion"


def test_an_unknown_section_in_a_link_is_ignored_and_an_alias_opens_its_section():
    lecture = Lecture(section="autoatencion")
    lecture.link.apply("?seccion=<script>")
    assert lecture.section == "autoatencion"
    lecture.link.apply("?seccion=escalado")
    assert lecture.section == "autoatencion"  # the √d_k demo is in the first section
    lecture.link.apply("?seccion=capital")
    assert lecture.section == "capital"


def test_copy_link_labels_are_the_catalogue_s():
    button = live_link.copy_link("capital", "en")
    assert button.section == "capital"
    assert button.labels["copy"] == text("links.copy", "en")


@pytest.mark.parametrize("demo", registry.DEMOS, ids=lambda d: d.id)
def test_the_export_describes_every_field_of_each_demo(demo):
    view = demo.view_class()(lang="en")
    described = live_link.export_fields(demo.id, view, "en")
    assert [f["key"] for f in described] == [f.key for f in links.fields(demo.id)]
    defaults = links.default_texts(demo.id)
    for f in described:
        assert f["default"] == defaults[f["key"].split(".", 1)[1]]
        assert f["css"].startswith("c04-link-")
        if f["kind"] == "choice":
            assert f["default"] in f["map"]  # every option the live model has, by its text
        if "hook" not in f:  # a Board's control (C04.boards), never a widget's property
            assert "control" in f
            assert "prop" not in f


def test_the_exported_lecture_embeds_every_field_once(monkeypatch):
    # The link's fields are the views' controls, not the numbers a page embeds: the lecture is
    # built without SmolLM's generations (export_tables, ~7 s of forward passes and most of
    # this test's time; tests/ui/test_export_next_word.py checks them against the model).
    monkeypatch.setattr(next_word, "export_tables", lambda: {"tops": {}})
    wire = export.Wiring("es")
    export.build_lecture(wire)
    keys = [f["key"] for f in wire.states["links"]["fields"]]
    assert keys == [f.key for f in links.all_fields()]
    assert wire.states["links"]["sections"] is True
    wire = export.Wiring("es")
    export.pages()[1].build(wire)  # a section's page: no section in its links
    assert wire.states["links"]["sections"] is False
