"""Every state in the link (dashboards/sharing/links.py): the text of each parameter, the round trip
through a link for every demo, and hostile links (a valid state, a notice, nothing raised)."""

from __future__ import annotations

import importlib

import numpy as np
import param
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attnmodel.explorer import MAX_SENTENCE_CHARS
from attnmodel.i18n import languages, text
from attnmodel.self_attention import CUSTOM
from dashboards.demos import registry
from dashboards.sharing import links

# A state off the defaults for each demo: every parameter of its link changed.
CHANGED = {
    "autoatencion": {
        "X": [[1.5, -2], [0, 1e-7], [3, 0.25]],
        "W_Q": [[1, 0], [0, 1]],
        "W_K": [[2, 1], [-1, 1]],
        "W_V": [[0, 1], [1, 0]],
        "causal": True,
        "scaled": False,
    },
    "escalado": {"d_k": 16, "seed": 3},
    "cabezas": {"sentence": "María dijo que ella llegaría tarde", "n_heads": 2},
    "posicion": {"n_positions": 20, "d_model": 32},
    "capital": {"country": "Italia", "identity": -0.35},
    "explorador": {
        "sentence": "El perro ladra y el gato duerme",
        "focus": 4,
        "temperature": 0.55,
        "positional": False,
    },
}

# A hostile link per demo: each value refused for a different reason, with markup and junk.
HOSTILE = {
    "autoatencion": {
        "autoatencion.preset": "<script>alert(1)</script>",
        "autoatencion.causal": "2",
        "autoatencion.scaled": "sí",
        "autoatencion.X": "1,2;3",
    },
    "escalado": {"escalado.d_k": "5000", "escalado.seed": "-1"},
    "cabezas": {"cabezas.sentence": "<img src=x onerror=alert(1)>", "cabezas.n_heads": "7"},
    "posicion": {"posicion.n_positions": "1e999", "posicion.d_model": "33"},
    "capital": {"capital.country": "Atlántida", "capital.identity": "NaN"},
    "explorador": {
        "explorador.sentence": "a" * 10_000,
        "explorador.focus": "99",
        "explorador.temperature": "Infinity",
        "explorador.causal": "1; DROP TABLE",
    },
    "siguiente": {
        "siguiente.prompt": "a\x00<b>" + "x" * 400,
        "siguiente.top_k": "500",
        "siguiente.length": "99",
        "siguiente.sequence": "<script>",
    },
}


def fresh() -> dict[str, object]:
    return {d.id: d.model_class()() for d in registry.DEMOS}


def render(demo_id: str, model, lang: str = "es") -> dict:
    """What the view puts on screen for ``model``: the numbers its browser code draws
    (``numbers``), or, for a view not moved to that yet, its Python render."""
    module = importlib.import_module(registry.demo(demo_id).import_name)
    return (getattr(module, "numbers", None) or module.render)(model, lang)


def assert_same_render(a: dict, b: dict) -> None:
    """Every target of the view's render equal: text, specs and numbers, to the last bit."""
    np.testing.assert_equal(a, b)


def test_every_field_is_a_parameter_of_its_model_and_every_key_is_unique():
    keys = [f.key for f in links.all_fields()]
    assert len(keys) == len(set(keys))
    for f in links.all_fields():
        model_class = registry.demo(f.demo).model_class()
        assert f.param in model_class.param
        assert not model_class.param[f.param].readonly
    assert not set(links.PAGE_KEYS) & set(keys)


def test_the_defaults_make_an_empty_link():
    assert links.encode(fresh()) == ""
    assert links.encode(fresh(), "capital") == "seccion=capital"
    assert links.encode(fresh(), "capital", "en") == "lang=en&seccion=capital"


@pytest.mark.parametrize("demo_id", CHANGED)
def test_a_changed_state_round_trips_through_its_link_with_the_same_numbers(demo_id):
    models = fresh()
    models[demo_id].param.update(**CHANGED[demo_id])
    link = links.encode(models, "capital")
    assert link.startswith("seccion=capital&")
    # Every parameter of the demo is in it (self-attention's matrices: a custom preset).
    for f in links.fields(demo_id):
        assert f"{f.key}=" in link

    opened = fresh()
    assert links.decode(links.parse("?" + link), opened) == []
    for demo in registry.DEMOS:
        assert_same_render(render(demo.id, opened[demo.id]), render(demo.id, models[demo.id]))
    assert links.encode(opened, "capital") == link


def test_a_link_that_is_the_state_already_recomputes_nothing():
    """Every new page applies its link (or, with none, the defaults) to fresh models: a value
    the model has is not set again (a matrix set again would recompute the model)."""
    models = fresh()
    set_again = []
    for demo_id, model in models.items():
        names = [f.param for f in links.fields(demo_id)]
        model.param.watch(lambda *events, d=demo_id: set_again.append(d), names)
    assert links.decode([], models) == []
    assert links.decode(links.parse("autoatencion.X=1,0;0,1;1,1"), models) == []
    assert set_again == []
    links.decode(links.parse("autoatencion.X=2,0;0,1;1,1"), models)
    assert set(set_again) == {"autoatencion"}  # X, then the preset it no longer matches
    assert models["autoatencion"].X[0, 0] == 2.0


def test_a_preset_stands_for_its_matrices():
    models = fresh()
    models["autoatencion"].param.update(preset="puntajes grandes", scaled=False)
    link = links.encode(models)
    assert link == (
        "autoatencion.preset=puntajes%20grandes&autoatencion.causal=0&autoatencion.scaled=0"
    )
    opened = fresh()
    links.decode(links.parse(link), opened)
    assert_same_render(
        render("autoatencion", opened["autoatencion"]),
        render("autoatencion", models["autoatencion"]),
    )


def test_a_link_follows_the_model():
    models = fresh()
    models["capital"].identity = 0.0
    assert "capital.identity=0&" in links.encode(models) + "&"
    models["capital"].identity = 0.5
    assert "capital.identity=0.5" in links.encode(models)
    models["capital"].identity = 0.010000000000000009  # a slider's arithmetic
    assert "capital.identity=0.01" in links.encode(models)


def test_each_kind_reads_back_what_it_writes():
    p = registry.demo("autoatencion").model_class().param
    field = links.fields("autoatencion")[1]  # X
    matrix = [[1.5, -2.0], [0.0, 1e-07], [1e6, -0.125]]
    assert links.to_text("matrix", matrix) == "1.5,-2;0,1e-07;1000000,-0.125"
    assert links.from_text(field, links.to_text("matrix", matrix), p.X) == matrix
    with pytest.raises(links.Unreadable):
        links.from_text(field, "1,2;3,4", p.X)  # 2 × 2 for a 3 × 2
    with pytest.raises(links.Unreadable):
        links.from_text(field, "1,2;3,4;nan,0", p.X)


@pytest.mark.parametrize("lang", languages())
@pytest.mark.parametrize("demo_id", HOSTILE)
def test_a_hostile_link_opens_a_valid_state_and_says_what_it_ignored(demo_id, lang):
    models = fresh()
    pairs = [*HOSTILE[demo_id].items(), ("<b>x</b>", "1"), ("lang", "en"), ("seccion", "x")]
    ignored = links.decode(pairs, models, lang)
    # Every bad value and the unknown key, none of the page's own keys; the model unchanged.
    assert sorted(i.key for i in ignored) == sorted([*HOSTILE[demo_id], "<b>x</b>"])
    assert all(i.reason for i in ignored)
    assert links.encode(models) == ""
    said = links.notice(ignored, lang)
    for item in ignored[: links.NOTICE_ITEMS]:
        assert item.said() in said
    assert "a" * (links.KEY_CHARS + 1) not in said  # a long value is not repeated


def test_the_notice_names_a_few_and_counts_the_rest():
    ignored = [links.Ignored(f"k{i}", "r") for i in range(8)]
    said = links.notice(ignored)
    assert "«k4» (r)" in said
    assert "«k5»" not in said
    assert text("links.more", n=3) in said
    assert links.notice([]) == ""
    long_key = links.Ignored("x" * 500, "")
    assert len(long_key.said()) == links.KEY_CHARS + 2


def test_a_key_given_twice_counts_once_and_an_overlong_link_is_not_read():
    models = fresh()
    assert links.decode([("capital.identity", "0"), ("capital.identity", "0.5")], models) == []
    assert models["capital"].identity == 0.0
    huge = [("capital.identity", "0")] + [(f"k{i}", "x" * 1000) for i in range(70)]
    models = fresh()
    ignored = links.decode(huge, models)
    assert len(ignored) == 1
    assert str(links.MAX_LINK_CHARS) in ignored[0].reason
    assert models["capital"].identity == 0.9


def test_a_link_of_many_keys_is_read_and_its_unknown_keys_said():
    # parse_qsl's max_num_fields=1000 raised here: a traceback at the session's open.
    link = "?capital.identity=0&" + "&".join(f"k{i}=" for i in range(1500))
    models = fresh()
    ignored = links.decode(links.parse(link), models)
    assert models["capital"].identity == 0.0
    assert [i.key for i in ignored] == [f"k{i}" for i in range(1500)]
    assert {i.reason for i in ignored} == {text("links.unknown")}


def test_a_sentence_at_the_model_cap_is_taken_and_one_character_more_is_not():
    words = ("palabra " * (MAX_SENTENCE_CHARS // 8))[:MAX_SENTENCE_CHARS].split()[:40]
    sentence = " ".join(words)
    models = fresh()
    assert links.decode([("explorador.sentence", sentence)], models) == []
    ignored = links.decode([("explorador.sentence", "a" * (MAX_SENTENCE_CHARS + 1))], models)
    assert [i.key for i in ignored] == ["explorador.sentence"]
    assert models["explorador"].sentence == sentence


def test_the_link_of_a_custom_preset_writes_the_matrices():
    models = fresh()
    models["autoatencion"].W_V = [[1, 0], [1, 3]]
    assert models["autoatencion"].preset == CUSTOM
    assert "autoatencion.W_V=1,0;1,3" in links.encode(models)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from([f.key for f in links.all_fields()] + ["x", ""]),
            st.one_of(
                st.text(max_size=60),
                st.sampled_from(["1", "0", "-1", "1e308", "nan", "2", "Italia", "1,2;3,4;5,6"]),
            ),
        ),
        max_size=12,
    )
)
def test_any_link_decodes_to_a_valid_state_without_raising(pairs):
    models = fresh()
    ignored = links.decode(pairs, models)
    assert len(ignored) <= len(pairs)
    # What it left is a state its own link opens again, identically.
    link = links.encode(models)
    again = fresh()
    assert links.decode(links.parse(link), again) == []
    assert links.encode(again) == link


def test_kind_of_knows_every_parameter_type_of_the_links():
    assert links.kind_of(param.Boolean()) == "bool"
    with pytest.raises(TypeError):
        links.kind_of(param.Dict())
