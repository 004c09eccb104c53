"""Class mode's shared state (dashboards/classroom/shared_state.py): the lecturer's token, the hub,
and both
brokers (in process, and Redis: a real redis-server on 127.0.0.1, as `make serve-prod` starts)."""

from __future__ import annotations

import logging
import shutil
import subprocess
import time

import pytest
import redis

from dashboards import serving
from dashboards.classroom import shared_state


class Sessions:
    """A stand-in for the sessions of a process: what each was told."""

    def __init__(self):
        self.told: list[str] = []

    def notify(self, kind: str) -> None:
        self.told.append(kind)


# -- the token ---------------------------------------------------------------------------------


def test_only_the_server_s_token_is_the_lecturer():
    token = shared_state.new_token()
    assert len(token) >= shared_state.MIN_TOKEN_CHARS
    assert shared_state.new_token() != token
    assert shared_state.is_lecturer(token, token)
    for given in (None, "", token[:-1], token + "x", "x" * len(token)):
        assert not shared_state.is_lecturer(given, token)
    assert not shared_state.is_lecturer(token, "")  # no token on the server: nobody drives


@pytest.mark.parametrize("token", ["corto", "x" * 15, "x" * 20 + " y", "ñ" * 20])
def test_a_weak_token_is_refused_with_a_reason(token):
    assert shared_state.token_problem(token) == "class.bad_token"
    assert not shared_state.is_lecturer(token, token)


def test_the_access_log_never_holds_the_token_in_full():
    token = shared_state.new_token()
    record = logging.LogRecord(
        "tornado.access",
        logging.INFO,
        __file__,
        1,
        "%d %s %.2fms",
        (200, f"GET /lecture?seccion=capital&profesor={token}&lang=es (127.0.0.1)", 3.0),
        None,
    )
    shared_state.RedactToken().filter(record)
    said = record.getMessage()
    assert token not in said
    assert f"profesor={token[:4]}…&lang=es" in said


def test_serve_prints_a_new_token_once_and_a_given_one_masked(monkeypatch, capsys):
    monkeypatch.delenv(shared_state.TOKEN_ENV, raising=False)
    known, _ = serving._parse(["--port", "5099"], "clase04 serve", "es")
    env = serving.class_token(known, "es")
    token = env[shared_state.TOKEN_ENV]
    out = capsys.readouterr().out
    assert shared_state.lecturer_link("http://localhost:5099/", token) in out
    monkeypatch.setenv(shared_state.TOKEN_ENV, token)
    assert serving.class_token(known, "es") == {}
    out = capsys.readouterr().out
    assert token not in out
    assert shared_state.masked(token) in out
    monkeypatch.setenv(shared_state.TOKEN_ENV, "corto")
    with pytest.raises(SystemExit):
        serving.class_token(known, "es")


# -- the hub -----------------------------------------------------------------------------------


def test_the_hub_keeps_the_newest_state_and_tells_every_session():
    hub = shared_state.Hub()
    a, b = Sessions(), Sessions()
    hub.join(a)
    hub.join(b)
    hub.receive("state", {"seq": 5, "query": "x", "live": True})
    hub.receive("state", {"seq": 4, "query": "old", "live": True})  # a message older than it
    assert hub.latest["state"]["query"] == "x"
    assert a.told == b.told == ["state"]
    hub.receive("state", {"seq": 2, "query": "y", "live": True}, resync=True)  # the broker's
    assert hub.latest["state"]["query"] == "y"
    assert hub.highest_seq() == 5
    assert a.told == b.told == ["state", "state"]
    hub.leave(b)
    hub.receive("question", None)
    hub.receive("nonsense", {})
    assert a.told == ["state", "state", "question"]
    assert b.told == ["state", "state"]


class Served:
    """A session on a document that keeps its next-tick callbacks (run them with ``tick``)."""

    def __init__(self, log: list, name: str, drops: bool = False):
        self.log, self.name, self.drops = log, name, drops
        self.callbacks: list = []
        self.doc = self

    def add_next_tick_callback(self, callback) -> None:
        if not self.drops:  # a closed session's document drops them
            self.callbacks.append(callback)

    def tick(self) -> None:
        ran, self.callbacks = self.callbacks, []
        for callback in ran:
            callback()

    def update(self) -> None:
        self.log.append(self.name)


def test_the_hub_updates_one_session_at_a_time_each_once_the_lecturer_first():
    hub = shared_state.Hub()
    log: list[str] = []
    a, b, lecturer = Served(log, "a"), Served(log, "b"), Served(log, "profesor")
    for _ in range(3):  # three changes before any update ran: one turn each
        hub.schedule(a)
        hub.schedule(b)
    hub.schedule(lecturer, first=True)
    assert len(a.callbacks) == 1  # a's turn is on its loop, nobody else's yet
    assert b.callbacks == lecturer.callbacks == []
    a.tick()
    assert log == ["a"]
    assert len(lecturer.callbacks) == 1  # the lecturer before b
    lecturer.tick()
    b.tick()
    assert log == ["a", "profesor", "b"]


def test_a_closed_session_does_not_stop_the_queue(monkeypatch):
    hub = shared_state.Hub()
    log: list[str] = []
    gone, other = Served(log, "gone", drops=True), Served(log, "other")
    hub.join(gone)
    hub.schedule(gone)
    hub.schedule(other)
    assert other.callbacks == []  # waiting behind the lost one
    hub.leave(gone)  # its session closed: the next one's turn
    other.tick()
    assert log == ["other"]
    # A lost update nobody said goodbye to: given up by the watchdog (after STUCK_S).
    monkeypatch.setattr(hub, "_watch", lambda: None)  # the test plays the watchdog
    lost = Served(log, "lost", drops=True)
    hub.join(lost)
    hub.schedule(lost)
    hub.schedule(other)
    assert other.callbacks == []
    hub._stuck(hub._inflight)  # STUCK_S later
    other.tick()
    assert log == ["other", "other"]
    assert lost in hub.sessions()  # only late, maybe: it stays in the class
    # A slow one given up on still updates when its loop gets to it, and the queue moves once.
    slow = Served(log, "slow")
    hub.schedule(slow)
    hub.schedule(other)
    hub._stuck(hub._inflight)
    slow.tick()
    assert log[-1] == "slow"
    assert len(other.callbacks) == 1
    other.tick()
    assert log[-2:] == ["slow", "other"]


# -- both brokers ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    server = shutil.which("redis-server") or "/usr/bin/redis-server"
    port = serving.free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    client = redis.Redis(port=port, socket_timeout=1)
    deadline = time.monotonic() + 20
    while True:
        try:
            client.ping()
            break
        except redis.RedisError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("redis-server no arrancó (`make test` lo instala con apt-get)")
            time.sleep(0.1)
    yield f"redis://127.0.0.1:{port}/0", port, proc
    proc.terminate()
    proc.wait(10)


def _until(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "nada llegó al hub"
        time.sleep(0.01)


@pytest.fixture(params=["local", "redis"])
def broker(request):
    hub = shared_state.Hub()
    if request.param == "local":
        made = shared_state.LocalBroker(hub)
    else:
        url = request.getfixturevalue("redis_url")[0]
        redis.Redis.from_url(url).flushdb()
        made = shared_state.RedisBroker(hub, url)
    made.start()
    if request.param == "redis":
        _until(lambda: made._pubsub is not None)
    yield made
    made.close()


def test_the_lecturer_s_state_reaches_the_hub(broker):
    first = broker.publish_state("seccion=capital", live=True)
    second = broker.publish_state("seccion=capital&capital.identity=0", live=True)
    assert second["seq"] > first["seq"]
    _until(lambda: (broker.hub.latest["state"] or {}).get("seq") == second["seq"])
    assert broker.state()["query"] == "seccion=capital&capital.identity=0"
    broker.end()
    _until(lambda: broker.hub.latest["state"]["live"] is False)


def test_one_answer_per_voter_counted_only_while_the_question_is_open(broker):
    question = broker.ask("identity_zero")
    seq = question["seq"]
    assert broker.answer(seq, "a" * 32, "0") == 1
    assert broker.answer(seq, "b" * 32, "2") == 2
    assert broker.answer(seq, "a" * 32, "2") == 2  # a changed answer replaces, never adds
    assert broker.answer(seq + 1, "c" * 32, "1") is None  # another question's
    _until(lambda: (broker.hub.latest["count"] or {}).get("count") == 2)
    revealed = broker.reveal(seq, 2)
    assert revealed["result"]["value"] == 2
    assert [tuple(c) for c in revealed["result"]["counts"]] == [("2", 2)]
    assert broker.answer(seq, "d" * 32, "1") is None  # closed once revealed
    _until(lambda: (broker.hub.latest["question"] or {}).get("revealed") is True)
    broker.clear()
    _until(lambda: broker.hub.latest["question"] is None)
    assert broker.question() is None
    assert broker.answer(seq, "e" * 32, "1") is None


def test_a_new_question_starts_with_no_answers(broker):
    first = broker.ask("identity_zero")
    broker.answer(first["seq"], "a" * 32, "1")
    second = broker.ask("identity_minus")
    _until(lambda: (broker.hub.latest["question"] or {}).get("seq") == second["seq"])
    assert broker.answer(first["seq"], "b" * 32, "1") is None
    assert broker.reveal(second["seq"], 1)["result"]["counts"] == []


def test_redis_keeps_the_class_for_a_worker_that_starts_later(redis_url):
    url = redis_url[0]
    redis.Redis.from_url(url).flushdb()
    one = shared_state.RedisBroker(shared_state.Hub(), url)
    one.publish_state("seccion=posicion", live=True)
    question = one.ask("identity_zero")
    one.answer(question["seq"], "a" * 32, "1")
    later = shared_state.RedisBroker(shared_state.Hub(), url)  # a worker (re)started now
    later.start()
    try:
        _until(lambda: later.hub.latest["count"] is not None)
        assert later.hub.latest["state"]["query"] == "seccion=posicion"
        assert later.hub.latest["question"]["seq"] == question["seq"]
        assert later.hub.latest["count"]["count"] == 1
    finally:
        later.close()


def test_a_broker_that_stops_is_said_and_the_hub_resyncs_when_it_is_back(tmp_path):
    port = serving.free_port()
    args = ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", ""]
    proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    hub = shared_state.Hub()
    session = Sessions()
    hub.join(session)
    broker = shared_state.RedisBroker(hub, url)
    try:
        _until(lambda: _pings(url))
        broker.start()
        _until(lambda: broker._pubsub is not None)
        broker.publish_state("seccion=capital", live=True)
        _until(lambda: hub.latest["state"] is not None)
        proc.terminate()
        proc.wait(10)
        _until(lambda: not hub.connected)
        with pytest.raises(shared_state.BrokerDown):
            broker.publish_state("seccion=cabezas", live=True)
        proc = subprocess.Popen(args, cwd=tmp_path, stdout=subprocess.DEVNULL)
        _until(lambda: hub.connected, timeout=10)
        assert "broker" in session.told  # the lecturer's session publishes its state again
        broker.publish_state("seccion=cabezas", live=True)
        _until(lambda: (hub.latest["state"] or {}).get("query") == "seccion=cabezas")
    finally:
        broker.close()
        proc.terminate()
        proc.wait(10)


def test_a_restarted_broker_never_numbers_a_state_below_what_the_workers_hold(redis_url):
    """A broker restarts empty: the next state must still be newer than the one each worker's
    hub keeps (a hub drops an older one), or the students stop following (seen on CI)."""
    url = redis_url[0]
    redis.Redis.from_url(url).flushdb()
    lecturer = shared_state.RedisBroker(shared_state.Hub(), url)
    student = shared_state.RedisBroker(shared_state.Hub(), url)
    for broker in (lecturer, student):
        broker.start()
        _until(lambda broker=broker: broker._pubsub is not None)
    try:
        for n in range(3):
            last = lecturer.publish_state(f"seccion=capital&capital.identity={n}", live=True)
        for hub in (lecturer.hub, student.hub):
            _until(lambda hub=hub: (hub.latest["state"] or {}).get("seq") == last["seq"])
        redis.Redis.from_url(url).flushdb()  # what a restarted redis-server holds
        lecturer.resync()  # the lecturer's worker reconnected first: its hub now holds nothing
        assert lecturer.hub.latest["state"] is None
        again = lecturer.publish_state("seccion=cabezas", live=True)
        assert again["seq"] > last["seq"]
        _until(lambda: (student.hub.latest["state"] or {}).get("query") == "seccion=cabezas")
        # A worker that reconnects later reads the broker's state, whatever it holds.
        student.hub.receive("state", {**last, "seq": again["seq"] + 5})
        student.resync()
        assert student.hub.latest["state"]["query"] == "seccion=cabezas"
        assert lecturer.ask("identity_zero")["seq"] > again["seq"]
    finally:
        lecturer.close()
        student.close()


def _pings(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_timeout=0.5).ping())
    except redis.RedisError:
        return False


def test_the_watchdog_moves_a_queue_whose_turn_never_ran(monkeypatch):
    monkeypatch.setattr(shared_state, "STUCK_S", 0.2)
    hub = shared_state.Hub()
    log: list[str] = []
    lost, other = Served(log, "lost", drops=True), Served(log, "other")
    hub.schedule(lost)
    hub.schedule(other)
    _until(lambda: other.callbacks, timeout=5)
    other.tick()
    assert log == ["other"]
