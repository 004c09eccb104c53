"""Class mode in lecture sessions (dashboards/classroom/classmode.py), several sessions of one
process on
the in-process broker: follow, leave, rejoin; ask, answer, reveal, clear; who may drive."""

from __future__ import annotations

import json
import logging

import pytest

from attnmodel.i18n import text
from dashboards.app.lecture import Lecture
from dashboards.classroom import classmode, shared_state
from dashboards.sharing import exercises


@pytest.fixture
def token(monkeypatch):
    token = shared_state.new_token()
    monkeypatch.setenv(shared_state.TOKEN_ENV, token)
    monkeypatch.delenv(shared_state.BROKER_ENV, raising=False)
    shared_state.reset()
    yield token
    shared_state.reset()  # no class left live for the other tests of this process


@pytest.fixture
def open_lecture(monkeypatch, token):
    """A session opened with ``given`` as its ?profesor= (None: a student's)."""

    def _open(given: str | None = None, **params) -> Lecture:
        monkeypatch.setattr(classmode, "session_token", lambda: given)
        return Lecture(**params)

    return _open


def view(lecture: Lecture) -> dict:
    return json.loads(lecture.classroom.panel.view_json)


class FakeDoc:
    """A session's document: keeps what would run on the next tick or after a timeout."""

    def __init__(self):
        self.next_tick: list = []
        self.timeouts: list = []

    def add_next_tick_callback(self, callback):
        self.next_tick.append(callback)

    def add_timeout_callback(self, callback, ms):
        self.timeouts.append((callback, ms))

    def run(self):
        ran, self.next_tick = self.next_tick, []
        for callback in ran:
            callback()
        return len(ran)


def test_without_a_class_a_student_sees_no_bar_and_follows_nobody(open_lecture):
    student = open_lecture()
    assert not student.classroom.lecturer
    assert view(student)["live"] is False
    assert student.classroom.following is False


def test_students_follow_the_lecturer_s_section_and_numbers(open_lecture, token):
    lecturer = open_lecture(token)
    assert lecturer.classroom.lecturer
    student = open_lecture()
    late = open_lecture(section="posicion")  # opened elsewhere: it joins the lecturer's section
    assert student.classroom.following
    assert late.classroom.following
    assert late.section == lecturer.section == "autoatencion"
    lecturer.go("capital")
    lecturer.capital.identity = 0.0
    lecturer.capital.country = "Italia"
    for s in (student, late):
        assert s.section == "capital"
        assert s.capital.identity == lecturer.capital.identity
        assert s.capital.country == "Italia"
        assert s.capital.probability == lecturer.capital.probability
        assert s.link.address.query == lecturer.link.address.query
        assert view(s)["following"] is True


def test_a_student_who_touches_a_control_leaves_and_one_click_rejoins(open_lecture, token):
    lecturer = open_lecture(token)
    student = open_lecture()
    student.scaling.d_k = 16  # the student's own change
    assert student.classroom.following is False
    assert view(student)["message"]["text"] == text("class.left_by_change")
    lecturer.self_attention.causal = True
    assert student.self_attention.causal is False  # not followed any more
    assert student.scaling.d_k == 16
    student.classroom.handle({"action": "follow"})
    assert student.classroom.following is True
    assert student.self_attention.causal is True
    assert student.scaling.d_k == lecturer.scaling.d_k
    student.go("cabezas")  # opening another section is touching too
    assert student.classroom.following is False
    student.classroom.handle({"action": "follow"})
    student.classroom.handle({"action": "leave"})
    lecturer.go("posicion")
    assert student.section == "autoatencion"


@pytest.mark.parametrize("action", classmode.LECTURER_ACTIONS)
def test_a_student_cannot_drive_ask_reveal_or_clear(open_lecture, token, action, caplog):
    logging.getLogger("dashboards").addHandler(caplog.handler)  # it does not propagate
    caplog.set_level(logging.INFO, logger="dashboards.classroom.classmode")
    lecturer = open_lecture(token)
    lecturer.classroom.handle({"action": "ask", "id": "identity_zero"})
    student = open_lecture()
    before = shared_state.broker().question()
    student.classroom.handle({"action": action, "id": "causal"})
    assert shared_state.broker().question() == before
    assert shared_state.broker().state()["live"] is True
    assert view(student)["message"]["text"] == text("class.refused")
    assert "rechazada" in caplog.text
    logging.getLogger("dashboards").removeHandler(caplog.handler)
    # Forging the panel's own parameters changes only what that browser draws.
    student.classroom.panel.view_json = json.dumps({"role": "lecturer"})
    student.classroom.handle({"action": "reveal"})
    assert shared_state.broker().question() == before


def test_the_class_answers_and_the_reveal_shows_the_counts_beside_the_model(open_lecture, token):
    lecturer = open_lecture(token, section="capital")
    ana, ben, eng = open_lecture(), open_lecture(), open_lecture(lang="en")
    lecturer.classroom.handle({"action": "ask", "id": "identity_zero"})
    q = view(ana)["question"]
    assert q["card"]["question"] == exercises.exercises()[10].text("question")
    assert "count" not in q  # the students' form is not redrawn at each answer
    assert view(lecturer)["question"]["count"] == 0
    seq = q["seq"]
    ana.classroom.handle({"action": "answer", "seq": seq, "answer": "0", "voter": "a" * 32})
    ben.classroom.handle({"action": "answer", "seq": seq, "answer": "abc", "voter": "b" * 32})
    assert view(ben)["message"]["text"] == text("exercises.unreadable")
    ben.classroom.handle({"action": "answer", "seq": seq, "answer": "2", "voter": "b" * 32})
    eng.classroom.handle({"action": "answer", "seq": seq, "answer": "0", "voter": "c" * 32})
    eng.classroom.handle({"action": "answer", "seq": seq, "answer": "2", "voter": "c" * 32})
    assert view(lecturer)["question"]["count"] == 3
    assert view(ana)["question"]["mine"] == "París"
    lecturer.capital.identity = 0.7
    lecturer.classroom.handle({"action": "reveal"})
    # The lecturer's page went to the question's state, and the followers with it.
    assert lecturer.capital.identity == 0.0
    assert ana.capital.identity == 0.0
    result = view(lecturer)["question"]["result"]
    exercise = next(e for e in exercises.exercises() if e.id == "identity_zero")
    expected = exercises.solve(exercise, type(lecturer.capital)())
    assert result["expected"] == exercises.shown(exercise, expected)
    counts = {row["label"]: (row["count"], row["right"]) for row in result["rows"]}
    options = exercise.options()
    assert counts == {
        options[0]: (1, expected == 0),
        options[1]: (0, expected == 1),
        options[2]: (2, expected == 2),
    }
    assert result["total"] == 3
    assert result["right"] == counts[options[expected]][0]
    english = view(eng)["question"]["result"]
    assert english["expected"] == exercises.shown(exercise, expected, "en")
    # Closed: a late answer is not counted.
    ana.classroom.handle({"action": "answer", "seq": seq, "answer": "1", "voter": "a" * 32})
    assert view(ana)["message"]["text"] == text("class.closed")
    lecturer.classroom.handle({"action": "clear"})
    assert view(ana)["question"] is None
    assert view(lecturer)["question"] is None


def test_one_session_is_one_voter_whatever_ids_it_sends(open_lecture, token):
    lecturer = open_lecture(token)
    lecturer.classroom.handle({"action": "ask", "id": "causal"})
    student = open_lecture()
    seq = view(student)["question"]["seq"]
    for voter in ("a" * 32, "b" * 32, "<script>", None):
        student.classroom.handle({"action": "answer", "seq": seq, "answer": "1", "voter": voter})
    assert view(lecturer)["question"]["count"] == 1


def test_number_answers_written_alike_are_counted_together():
    exercise = next(e for e in exercises.exercises() if e.kind == "number")
    value = 0.5
    counts = [[repr(value), 3], [repr(value + 1e-9), 2]]
    counts += [[repr(10.0 + i), 1] for i in range(12)]
    rows = classmode.result_rows(exercise, {"value": value, "counts": counts}, "es")
    assert rows["rows"][0] == {"label": exercises.shown(exercise, value), "count": 5, "right": True}
    assert len(rows["rows"]) == classmode.MAX_ROWS
    assert rows["rows"][-1]["label"] == text("class.others")
    assert rows["total"] == 17 == sum(r["count"] for r in rows["rows"])


def test_ending_the_class_frees_the_students_and_resuming_brings_them_back(open_lecture, token):
    lecturer = open_lecture(token)
    student = open_lecture()
    lecturer.classroom.handle({"action": "end"})
    assert view(student)["live"] is False
    assert student.classroom.following is False
    lecturer.go("posicion")
    assert student.section == "autoatencion"
    lecturer.classroom.handle({"action": "resume"})
    assert student.classroom.following is True
    assert student.section == "posicion"


def test_a_busy_follower_applies_only_the_newest_state(open_lecture, token):
    lecturer = open_lecture(token)
    student = open_lecture()
    doc = student.classroom.doc = FakeDoc()
    applied = []
    real_apply = student.classroom._apply
    student.classroom._apply = lambda state: (applied.append(state["seq"]), real_apply(state))
    for d_k in (4, 16, 64, 256):
        lecturer.scaling.d_k = d_k
    assert doc.run() == 1  # one update scheduled for four changes
    assert len(applied) == 1
    assert student.scaling.d_k == 256


def test_a_dragged_slider_reaches_the_broker_a_few_times_a_second(open_lecture, token):
    lecturer = open_lecture(token)
    doc = lecturer.classroom.doc = FakeDoc()
    sent = []
    broker = shared_state.broker()
    real = broker.publish_state
    broker.publish_state = lambda query, live=True: (sent.append(query), real(query, live))[1]
    lecturer.classroom._last_publish = shared_state.now()  # it just published
    for identity in (0.1, 0.2, 0.3, 0.4, 0.5):
        lecturer.capital.identity = identity
    assert sent == []
    assert len(doc.timeouts) == 1
    callback, ms = doc.timeouts[0]
    assert 0 < ms <= shared_state.PUBLISH_INTERVAL_S * 1000
    callback()
    assert len(sent) == 1
    assert "capital.identity=0.5" in sent[0]  # the last of the burst


def test_a_follower_recomputes_only_the_demo_the_lecturer_changed(open_lecture, token):
    lecturer = open_lecture(token)
    student = open_lecture()
    touched = []
    for name in ("self_attention", "scaling", "multihead", "positional", "explorer"):
        model = getattr(student, name)
        model.param.watch(touched.append, [p for p in model.param if p != "name"])
    lecturer.capital.identity = 0.3
    assert student.capital.identity == 0.3
    assert touched == []


def test_the_lecturer_s_list_starts_with_the_section_on_screen_and_follows_it(open_lecture, token):
    lecturer = open_lecture(token, section="capital")
    by_demo: dict[str, list[str]] = {}
    for e in exercises.exercises():  # the file's order, grouped by demo
        by_demo.setdefault(e.demo, []).append(e.id)
    everything = [e.id for e in exercises.exercises()]
    for section, demos in (("capital", ["capital"]), ("cabezas", ["cabezas"]), ("jugar", [])):
        lecturer.go(section)
        choices = view(lecturer)["exercises"]
        ids = [o["id"] for o in choices["options"]]
        here = [i for d in demos for i in by_demo[d]]
        assert ids[: len(here)] == here, section
        assert sorted(ids) == sorted(everything)  # every question still offered, once
        assert choices["current"] == (here[0] if here else everything[0])


def test_students_follow_the_lecturer_s_generated_text(open_lecture, token):
    """«La siguiente palabra»: the lecturer's text, sampling settings and generated tokens
    reach every follower, who then shows the same numbers."""
    lecturer = open_lecture(token)
    student = open_lecture()
    lecturer.go("siguiente")
    lecturer.next_word.param.update(
        prompt="Once upon a time, there was a little", temperature=0.7, top_p=0.9, seed=3
    )
    lecturer.next_word.param.update(length=5, step=2)
    s = student.next_word
    assert student.section == "siguiente"
    assert (s.prompt, s.temperature, s.top_p, s.seed, s.length, s.step) == (
        "Once upon a time, there was a little",
        0.7,
        0.9,
        3,
        5,
        2,
    )
    assert [g.token for g in s.generation[0]] == [g.token for g in lecturer.next_word.generation[0]]
    assert student.link.address.query == lecturer.link.address.query
