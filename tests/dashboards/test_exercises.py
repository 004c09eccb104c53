"""Predict, then check (dashboards/sharing/exercises.py, practice.py): the exercises' file, the
answers the models compute, the checks, and the mistakes a lecturer can make in the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attnmodel import CapitalWalkthrough, PositionalEncodingDemo, ScalingDemo, TrainingDemo
from attnmodel.i18n import languages, text
from attnmodel.self_attention import PRESETS
from attnmodel.training import FACTS
from dashboards.app.lecture import EXERCISES as SEED_BULLETS
from dashboards.app.lecture import Lecture
from dashboards.demos import registry
from dashboards.sharing import exercises, practice
from dashboards.sharing.exercises import ExerciseError

ROOT = Path(__file__).resolve().parents[2]
BY_ID = {e.id: e for e in exercises.exercises()}


def solved(exercise_id: str):
    e = BY_ID[exercise_id]
    return exercises.solve(e, exercises.model_class(e.demo)())


def test_every_demo_has_two_exercises_or_more_and_every_seed_bullet_one():
    assert len(exercises.exercises()) >= 12
    for demo in registry.DEMOS:
        assert len(exercises.of_demo(demo.id)) >= 2, demo.id
    checked = {e.seed for e in exercises.exercises() if e.seed}
    assert checked == {bullet.key for bullet in SEED_BULLETS}


def test_the_answers_the_explanations_state():
    """What the questions and explanations say about the numbers, computed."""
    options = BY_ID["coreference"].options()
    assert options[solved("coreference")] == "perro"  # «él» vuelve a «perro»
    assert options[solved("previous_word")] == "él"  # each token looks at the one before
    assert solved("wk_equals_wq") == 1  # token 2 looks at itself: the diagonal dominates
    assert solved("default_row") == 2  # token 1 looks at token 3 most
    assert solved("causal") == 1.0  # (1, 0, 0)
    assert solved("large_scores") > 0.999  # almost one-hot
    assert round(solved("std_64")) == 8  # √64 = 8
    assert solved("entropy_512") == 0  # under 1 bit
    assert solved("near_far") == 0  # near is more alike than far
    assert PositionalEncodingDemo().similarity[0] == 32  # "PE(0) · PE(0) = 32"
    assert solved("identity_zero") == 2  # a tie
    assert round(solved("identity_minus"), 2) == 0.34
    assert round(CapitalWalkthrough().probabilities["París"], 2) == 0.38  # "p(París) ≈ 0,38"
    assert solved("causal_first") == 1.0
    assert solved("cold") > solved("second_gato")  # a cold softmax concentrates
    assert abs(solved("untrained_attention") - 1 / 5) < 0.02  # "casi por igual … (1/5 = 20 %)"
    assert solved("trained_attention") > 0.9
    assert solved("held_out_capital") == 1  # under 0.01
    sweden = TrainingDemo(country="Suecia")  # "con la capital de otro país, con mucha seguridad"
    assert sweden.prediction in FACTS.values()
    assert sweden.prediction != "Estocolmo"
    assert sweden.probabilities[sweden.prediction] > 0.9


def test_an_answer_is_the_model_s_at_the_moment_of_checking(monkeypatch):
    """Not a number from the file: change what the model computes and the answer changes."""
    default_row = BY_ID["default_row"]
    assert solved("default_row") == 2
    # The 4.2.6 preset with W_K = W_Q: token 1 now looks at itself most.
    monkeypatch.setitem(PRESETS["4.2.6"], "W_K", PRESETS["4.2.6"]["W_Q"])
    assert exercises.solve(default_row, exercises.model_class("autoatencion")()) == 0
    # And the evaluation reads the model it is given.
    assert exercises.evaluate("score_std", ScalingDemo(d_k=256)) == pytest.approx(16, rel=0.05)


def test_check_moves_the_model_to_the_state_and_says_right_or_wrong():
    model = CapitalWalkthrough(country="Italia")
    e = BY_ID["identity_minus"]
    v = exercises.check(e, model, "0,34", "es")
    assert v.right is True
    assert model.identity == -0.9
    assert model.country == "Francia"  # the state is on top of the defaults
    assert v.message == text("exercises.right", "es", answer="0,34")
    assert exercises.check(e, model, "0.40", "en").right is False
    assert exercises.check(e, model, "0,345", "es").right is True  # within 0,01
    unread = exercises.check(e, model, "abc", "es")
    assert unread.right is None
    assert unread.message == text("exercises.unreadable", "es")


@pytest.mark.parametrize(
    ("answer", "right"),
    [("100", True), ("100 %", True), ("99,5", True), ("98", False), ("1", False), ("", None)],
)
def test_a_percentage_is_written_as_the_page_shows_it(answer, right):
    e = BY_ID["causal"]
    assert exercises.check(e, exercises.model_class(e.demo)(), answer).right is right


@pytest.mark.parametrize(("answer", "right"), [("1", True), ("0", False), ("9", None), ("x", None)])
def test_a_choice_is_its_option_s_number(answer, right):
    e = BY_ID["wk_equals_wq"]
    assert exercises.check(e, exercises.model_class(e.demo)(), answer).right is right


def test_an_overlong_answer_is_not_read():
    e = BY_ID["std_64"]
    too_long = "8" + " " * exercises.MAX_ANSWER_CHARS
    assert exercises.check(e, exercises.model_class(e.demo)(), too_long).right is None


GOOD = """
[[exercise]]
id = "x"
demo = "capital"
answer = "probabilities['Roma']"
kind = "number"
tolerance = 0.01
[exercise.es]
question = "¿p?"
explanation = "Porque."
[exercise.en]
question = "p?"
explanation = "Because."
"""


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (('demo = "capital"', 'demo = "capitales"'), "no es una demo"),
        (("probabilities['Roma']", "probabilities.Roma"), "Attribute"),
        (("probabilities['Roma']", "__import__('os')"), "solo se pueden llamar"),
        (("probabilities['Roma']", "no_existe"), "AttributeError"),
        (("probabilities['Roma']", "probabilities['Berlín']"), "KeyError"),
        (("probabilities['Roma']", "probabilities['Roma'"), "no se puede leer"),
        (('kind = "number"', 'kind = "choice"'), "options"),
        (('[exercise.en]\nquestion = "p?"', '[exercise.en]\nquestio = "p?"'), "en.question"),
        (('id = "y"', 'id = "X y"'), "id debe"),
        (("tolerance = 0.01", "tolerance = -1"), "tolerance"),
        (('demo = "capital"', 'demo = "capital"\nstate = { identidad = 1 }'), "identidad"),
        (('demo = "capital"', 'demo = "capital"\nstate = { identity = 5 }'), "identity"),
        (('demo = "capital"', 'demo = "capital"\nseed = "nada"'), "seed"),
        (('demo = "capital"', 'demo = "capital"\ncolor = "rojo"'), "color"),
    ],
)
def test_a_mistake_in_the_file_is_said_naming_its_entry(tmp_path, change, said):
    path = tmp_path / "exercises.toml"
    path.write_text(GOOD + GOOD.replace('id = "x"', 'id = "y"').replace(*change), "utf-8")
    with pytest.raises(ExerciseError) as info:
        exercises.load(path)
    message = str(info.value)
    assert "ejercicio n.º 2" in message
    assert said in message


def test_the_file_without_mistakes_loads_and_a_repeated_id_does_not(tmp_path):
    path = tmp_path / "exercises.toml"
    path.write_text(GOOD, "utf-8")
    assert [e.id for e in exercises.load(path)] == ["x"]
    path.write_text(GOOD + GOOD, "utf-8")
    with pytest.raises(ExerciseError, match="ya lo usa"):
        exercises.load(path)
    path.write_text("[[exercise]\n", "utf-8")
    with pytest.raises(ExerciseError, match="no se pudo leer"):
        exercises.load(path)


def test_serve_and_export_stop_at_a_broken_file_with_its_message(tmp_path):
    broken = tmp_path / "mis-ejercicios.toml"
    broken.write_text(GOOD.replace('demo = "capital"', 'demo = "nada"'), "utf-8")
    env = {**os.environ, exercises.EXERCISES_ENV: str(broken)}
    for command in (["export", "--out", str(tmp_path / "out")], ["serve", "--port", "1"]):
        result = subprocess.run(
            [sys.executable, "-m", "dashboards.cli", "--lang", "es", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode != 0
        assert "mis-ejercicios.toml, ejercicio n.º 1 («x»)" in result.stderr
        assert "«nada» no es una demo" in result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("lang", languages())
def test_every_card_has_its_texts_and_the_export_s_card_its_answer(lang):
    for e in exercises.exercises():
        spec = practice.export_spec(e, lang)
        assert spec["question"]
        assert spec["explanation"]
        assert spec["expected"]["right"].startswith(text("exercises.right", lang, answer="|")[:5])
        if e.kind == "choice":
            assert 0 <= spec["expected"]["value"] < len(spec["options"])


def test_a_live_card_checks_on_the_session_s_model_and_ignores_junk():
    lecture = Lecture(section="capital")
    (block,) = lecture._built["capital"].select(practice.ExerciseBlock)
    specs = json.loads(block.block_json)["cards"]
    assert [c["id"] for c in specs] == [e.id for e in exercises.of_demo("capital")]
    block.receive({"id": "identity_minus", "answer": "0,34"})
    verdicts = json.loads(block.verdicts_json)
    assert verdicts["identity_minus"]["right"] is True
    assert lecture.capital.identity == -0.9
    assert "capital.identity=-0.9" in lecture.link.address.query  # the address follows
    junk = (None, [], {"answer": "0,34"}, {"id": "nada", "answer": "1"}, {"id": 5, "answer": "1"})
    for message in (*junk, {"id": "identity_minus", "answer": None}, "0,34"):
        before = block.verdicts_json
        block.receive(message)
        assert block.verdicts_json == before
    block.receive({"id": "identity_minus", "answer": "9" * 10_000})
    assert json.loads(block.verdicts_json)["identity_minus"]["right"] is None
    assert json.loads(block.verdicts_json)["identity_minus"]["n"] == 2


def test_answers_are_not_in_a_live_page():
    lecture = Lecture(section="capital")
    (block,) = lecture._built["capital"].select(practice.ExerciseBlock)
    for spec in json.loads(block.block_json)["cards"]:
        assert "expected" not in spec


def test_progress_counts_the_page_s_exercises():
    ids = [e.id for e in exercises.exercises()]
    p = practice.progress(ids, "en")
    assert json.loads(p.ids_json) == ids
    assert json.loads(p.labels_json)["reset"] == text("exercises.reset", "en")
    assert np.all([isinstance(i, str) for i in ids])


def test_checking_moves_the_demo_and_one_click_puts_the_student_s_own_state_back():
    lecture = Lecture(section="autoatencion")
    model = lecture.self_attention
    block = next(
        b
        for b in lecture._built["autoatencion"].select(practice.ExerciseBlock)
        if "causal" in b.block_json
    )
    mine = np.array(model.X, dtype=float)
    mine[1][0] = 0.37  # the student's own cell: the preset becomes theirs
    model.X = mine.tolist()
    model.scaled = False
    own = {"X": mine.copy(), "W_Q": np.array(model.W_Q), "preset": model.preset, "scaled": False}
    assert own["preset"] == "personalizado"
    block.receive({"id": "causal", "answer": "100"})
    verdict = json.loads(block.verdicts_json)["causal"]
    assert verdict["right"] is True
    assert verdict["offer"] is True
    assert model.causal is True  # at the question's state
    assert model.preset != "personalizado"
    # A second check without a change in between: still back to the student's, not the first
    # question's; only the latest card offers it.
    block.receive({"id": "large_scores", "answer": "1"})
    verdicts = json.loads(block.verdicts_json)
    assert verdicts["large_scores"]["offer"] is True
    assert verdicts["causal"]["offer"] is False
    block.receive({"id": "large_scores", "action": "restore"})
    verdicts = json.loads(block.verdicts_json)
    assert verdicts["large_scores"]["restored"] is True
    assert not any(v["offer"] for v in verdicts.values())
    assert model.preset == own["preset"]
    assert model.scaled is False
    assert model.causal is False
    np.testing.assert_array_equal(np.array(model.X, dtype=float), own["X"])
    np.testing.assert_array_equal(np.array(model.W_Q, dtype=float), own["W_Q"])
    # Nothing left to go back to: a second click does nothing.
    before = block.verdicts_json
    block.receive({"id": "large_scores", "action": "restore"})
    assert block.verdicts_json == before
    # At the question's state already (the defaults): nothing to go back to, nothing offered.
    fresh = Lecture(section="autoatencion")
    (block,) = (
        b
        for b in fresh._built["autoatencion"].select(practice.ExerciseBlock)
        if "default_row" in b.block_json
    )
    block.receive({"id": "default_row", "answer": "2"})
    assert json.loads(block.verdicts_json)["default_row"]["offer"] is False


def test_the_readme_counts_the_questions_of_the_file():
    import re
    import tomllib

    with exercises.EXERCISES_FILE.open("rb") as f:
        n = len(tomllib.load(f)["exercise"])
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    said = re.findall(r"\((\d+) en total", readme) + re.findall(r"ofrece las (\d+)", readme)
    assert len(said) == 2
    assert said == [str(n)] * 2


def test_a_worker_reads_the_exercises_without_computing_their_answers(monkeypatch):
    """The launcher computed every answer before serving (serving.check_exercises); a worker's
    first page does not load MiniLM's weights and train the tiny Transformer again for that."""
    solved = [e.id for e in exercises.load()]
    monkeypatch.setattr(exercises, "solve", lambda *args: pytest.fail("an answer was computed"))
    assert [e.id for e in exercises.exercises.__wrapped__()] == solved
