"""Class mode in real Chromium, live (`make serve`'s in-process broker): a lecturer and two
students in separate browser contexts follow, leave, rejoin, answer and see the result; a
student who guesses the lecturer's link or forges websocket messages cannot drive.

A server of its own: a live class would make every other test's page follow the lecturer.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from attnmodel.i18n import text
from dashboards import serving
from dashboards.classroom import shared_state

from c04_testing import class_flow, end_class, forge_class_actions, open_class_page

TOKEN = shared_state.new_token()


@pytest.fixture(scope="module")
def class_server(tmp_path_factory):
    log = tmp_path_factory.mktemp("class") / "serve.log"
    port = serving.free_port()
    proc = serving.start(port, log, env={shared_state.TOKEN_ENV: TOKEN})
    yield f"http://127.0.0.1:{port}", log
    serving.stop(proc)


def test_a_lecturer_and_two_students_live(browser, class_server):
    base, log = class_server
    contexts = []
    try:
        c, lecturer, lecturer_watch = open_class_page(browser, f"{base}/lecture?profesor={TOKEN}")
        contexts.append(c)
        students = []
        for _ in range(2):
            c, page, _watch = open_class_page(browser, f"{base}/lecture")
            contexts.append(c)
            students.append(page)
        class_flow([lecturer, *students], f"{base}/lecture", TOKEN, check_wcag=True)

        # A student who guesses the link is a student; one who forges the lecturer's messages
        # is refused: the result stays on the projector, no new question, the class goes on.
        c, guesser, _ = open_class_page(browser, f"{base}/lecture?profesor={TOKEN[:-1]}x")
        contexts.append(c)
        expect(guesser.get_by_test_id("class-status")).to_contain_text(text("class.following"))
        expect(guesser.get_by_test_id("class-ask")).to_have_count(0)
        forge_class_actions(
            base,
            [
                {"action": "clear"},
                {"action": "ask", "id": "causal"},
                {"action": "end"},
                {"action": "reveal"},
            ],
        )
        expect(lecturer.get_by_test_id("class-distribution")).to_be_visible()
        expect(lecturer.get_by_test_id("class-status")).to_contain_text(text("class.lecturer_live"))
        assert "rechazada" in log.read_text()
        assert TOKEN not in log.read_text()
        end_class(lecturer, students)
        assert lecturer_watch.console_errors == []
    finally:
        for c in contexts:
            c.close()


def test_the_lecturer_s_questions_start_with_the_section_on_screen(browser, class_server):
    from dashboards.demos import registry
    from dashboards.sharing import exercises

    base, _log = class_server
    url = f"{base}/lecture?profesor={TOKEN}&seccion=capital"
    c, lecturer, watch = open_class_page(browser, url)
    try:
        select = lecturer.get_by_test_id("class-exercise")
        ids = [e.id for e in exercises.exercises()]
        for section in ("capital", "cabezas", "posicion"):
            if section != "capital":  # the lecturer moves on: the list follows
                lecturer.get_by_role("button", name=text(f"section.{section}")).click()
            demos = next(s.demos for s in registry.SECTIONS if s.id == section)
            here = [e.id for d in demos for e in exercises.of_demo(d)]
            options = select.locator("option")
            expect(options.nth(0)).to_have_attribute("value", here[0])
            expect(select).to_have_value(here[0])
            got = options.evaluate_all("os => os.map((o) => o.value)")
            assert got[: len(here)] == here, section
            assert sorted(got) == sorted(ids)
        end_class(lecturer, [])
        assert watch.console_errors == []
    finally:
        c.close()
