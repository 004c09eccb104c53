"""Class mode's shared state: who is the lecturer, the lecturer's state, the question asked to
the class and its answers. No Panel here (dashboards/classroom/classmode.py draws it in the
sessions).

- **The lecturer**: the lecture opened with ``?profesor=<token>``, the token of the server
  (``C04_CLASS_TOKEN``; `make serve` makes a random one at start and prints the link). Compared
  in constant time; redacted in the access log (:class:`RedactToken`).
- **The broker** keeps the class's state and tells every process of the server when it changes:
  :class:`LocalBroker` in one process (`make serve`, nothing to install), :class:`RedisBroker`
  when ``C04_REDIS_URL`` is set (`make serve-prod`: Redis pub/sub between the workers, the
  state and the answers in Redis keys, so a restarted worker reads them back).
- **The hub** of each process receives what the broker says and tells the sessions of this
  process (each schedules its own update on its document). It keeps only the latest of each
  kind: a session that was busy applies the newest state once, never a backlog.

What travels (JSON): ``state`` {seq, query, live} (the lecturer's link,
dashboards/sharing/links.py),
``question`` {seq, id, revealed, result} (an exercise of dashboards/sharing/exercises.toml;
``result`` once revealed: the computed value and the answers' counts), ``count`` {qseq, count}.
Answers are anonymous: a random id per browser tab (or session) → the answer, counted only.
"""

from __future__ import annotations

import contextlib
import hmac
import itertools
import json
import logging
import os
import re
import secrets
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

from dashboards.sharing import links

log = logging.getLogger("dashboards.classroom.shared_state")

TOKEN_ENV = "C04_CLASS_TOKEN"
BROKER_ENV = "C04_REDIS_URL"
# The lecturer link's query key: ?profesor=<token>.
TOKEN_KEY = links.TOKEN_KEY
MIN_TOKEN_CHARS = 16
# A lecturer's changes go out at most this often (a dragged slider is dozens a second); the
# last one of a burst always goes.
PUBLISH_INTERVAL_S = 0.25
# Nothing of a class outlives this in Redis without a new change (the class has ended).
CLASS_TTL_S = 6 * 3600
VOTER = re.compile(r"^[0-9a-f]{32}$")
# A session's update not run after this long: the queue goes on without waiting for it.
STUCK_S = 5.0
KINDS = ("state", "question", "count")
PREFIX = "c04:clase:"
CHANNEL = PREFIX + "canal"


# ---------------------------------------------------------------------------------------------
# The lecturer's token


def new_token() -> str:
    """A random token, as Jupyter's (144 bits, URL-safe)."""
    return secrets.token_urlsafe(18)


def server_token() -> str | None:
    return os.environ.get(TOKEN_ENV) or None


def token_problem(token: str | None) -> str | None:
    """Why a configured token cannot be used (catalogue key), None when it can."""
    if token is None:
        return None
    if len(token) < MIN_TOKEN_CHARS or not re.fullmatch(r"[A-Za-z0-9_\-.~]+", token):
        return "class.bad_token"
    return None


def is_lecturer(given: str | None, token: str | None = None) -> bool:
    """Whether ``given`` is the server's token (constant time; no token, nobody is)."""
    token = server_token() if token is None else token
    if not token or not given or token_problem(token):
        return False
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def lecturer_link(base: str, token: str) -> str:
    return f"{base.rstrip('/')}/?{TOKEN_KEY}={token}"


def masked(token: str) -> str:
    """What a log may say of a token: its first 4 characters."""
    return token[:4] + "…"


class RedactToken(logging.Filter):
    """The access log (``tornado.access``) writes every request's URL: the lecturer link's
    token is cut to its first 4 characters there."""

    PATTERN = re.compile(rf"({TOKEN_KEY}=)([^&\s#)]{{4}})[^&\s#)]*")

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args and isinstance(record.args, tuple):
            record.args = tuple(
                self.PATTERN.sub(r"\1\2…", a) if isinstance(a, str) else a for a in record.args
            )
        if isinstance(record.msg, str) and TOKEN_KEY in record.msg:
            record.msg = self.PATTERN.sub(r"\1\2…", record.msg)
        return True


def install_redaction() -> None:
    for name in ("tornado.access", "bokeh.server.tornado", "bokeh.server.views.ws"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactToken) for f in logger.filters):
            logger.addFilter(RedactToken())


# ---------------------------------------------------------------------------------------------
# The hub of one process


class Hub:
    """The latest state, question and count this process knows, and its sessions to tell.

    ``receive`` may be called from any thread (the Redis listener's); a session's ``notify``
    only marks what changed and asks :meth:`schedule` for its turn.

    **One session at a time.** The sessions to update wait in one queue and the next one's
    update is put on the server's loop only when the previous one is done (``session.doc``'s
    next tick; ``session.update()``). Measured with 150 followers on a worker (bench_class.py):
    queuing all 150 updates at once made the loop run them all before it read the lecturer's
    next message, so each of the lecturer's changes waited a whole round and they piled up
    (latency growing 1.1 s per change, the lecturer's own page 9 s behind). Between two
    followers the loop now reads what arrived, a session is queued once however many changes
    came, and its update applies the newest state. The lecturer's session goes first."""

    def __init__(self):
        self._lock = threading.Lock()
        self.latest: dict[str, dict | None] = dict.fromkeys(KINDS)
        self._sessions: weakref.WeakSet = weakref.WeakSet()
        self.connected = True
        self._queue: deque = deque()
        self._queued: set[int] = set()
        self._pumping = False
        # The session whose update is on the loop now, and since when (a session closed
        # meanwhile drops its callbacks: the queue must not wait for it forever).
        self._inflight: tuple[object, float] | None = None
        self._watchdog: threading.Thread | None = None
        # The highest ``seq`` this process has ever been told: a broker restarted empty numbers
        # from it (RedisBroker._next_seq), even after a resync emptied ``latest``.
        self._highest_seq = 0

    def schedule(self, session, first: bool = False) -> None:
        """Give ``session`` a turn to update (once, however often it is asked before it)."""
        with self._lock:
            if id(session) not in self._queued:
                self._queued.add(id(session))
                (self._queue.appendleft if first else self._queue.append)(session)
            if self._pumping:
                return
            self._pumping = True
        self._next()

    def _next(self) -> None:
        while True:
            with self._lock:
                if not self._queue:
                    self._pumping, self._inflight = False, None
                    return
                session = self._queue.popleft()
                self._queued.discard(id(session))
                self._inflight = (session, now())
            doc = getattr(session, "doc", None)
            if doc is None:  # not served (tests, a notebook): now
                session.update()
                continue
            try:
                doc.add_next_tick_callback(lambda session=session: self._run(session))
            except Exception:  # its session is gone
                with self._lock:
                    self._sessions.discard(session)
                continue
            # If that callback never runs (its session closed without saying so), the queue
            # goes on after STUCK_S anyway (one watchdog thread per process).
            self._watch()
            return

    def _watch(self) -> None:
        with self._lock:
            if self._watchdog is not None:
                return
            self._watchdog = threading.Thread(target=self._watching, name="c04-turnos")
            self._watchdog.daemon = True
        self._watchdog.start()

    def _watching(self) -> None:
        while True:
            time.sleep(STUCK_S / 5)
            with self._lock:
                inflight = self._inflight
            if inflight is not None and now() - inflight[1] > STUCK_S:
                self._stuck(inflight)

    def _stuck(self, inflight) -> None:
        """The in-flight update did not run in STUCK_S (its session closed, or its loop is
        that busy): the next session's turn. If it runs later, it still updates."""
        with self._lock:
            if self._inflight is not inflight:
                return  # it ran
        log.info("Clase: una sesión no atendió su turno en %.0f s; sigue la próxima", STUCK_S)
        self._next()

    def _run(self, session) -> None:
        with self._lock:
            current = self._inflight is not None and self._inflight[0] is session
        try:
            session.update()
        finally:
            if current:  # (a late one, given up on by _stuck, does not move the queue twice)
                self._next()

    def join(self, session) -> None:
        with self._lock:
            self._sessions.add(session)

    def leave(self, session) -> None:
        with self._lock:
            self._sessions.discard(session)
            gone_inflight = self._inflight is not None and self._inflight[0] is session
        if gone_inflight:  # its update will never run: the next session's turn
            self._next()

    def sessions(self) -> list:
        with self._lock:
            return list(self._sessions)

    def receive(self, kind: str, payload: dict | None, *, resync: bool = False) -> None:
        """A change of the class (``payload`` None: cleared). An older state than the one kept
        (a message published before a resync read the keys, delivered after it) is dropped. A
        ``resync`` is the broker's keys read again after a reconnection: the truth, kept as it
        is: a worker that reconnects late to a restarted broker may hold a higher ``seq`` than
        the broker's, and must not keep its students on the old state (seen on CI)."""
        if kind not in KINDS:
            return
        with self._lock:
            old = self.latest[kind]
            if (
                not resync
                and kind == "state"
                and payload is not None
                and old is not None
                and payload.get("seq", 0) < old.get("seq", 0)
            ):
                return
            self.latest[kind] = payload
            if payload is not None and isinstance(payload.get("seq"), int):
                self._highest_seq = max(self._highest_seq, payload["seq"])
            sessions = list(self._sessions)
        for session in sessions:
            session.notify(kind)

    def highest_seq(self) -> int:
        """The highest ``seq`` of a state or question this process was ever told."""
        with self._lock:
            return self._highest_seq

    def set_connected(self, connected: bool) -> None:
        changed = connected != self.connected
        self.connected = connected
        if changed:
            for session in self.sessions():
                session.notify("broker")

    def snapshot(self) -> dict[str, dict | None]:
        with self._lock:
            return dict(self.latest)


# ---------------------------------------------------------------------------------------------
# Brokers


class BrokerDown(RuntimeError):
    """The broker did not answer (Redis stopped or restarting)."""


def _result(counts: dict[str, int], value: Any) -> dict:
    return {"value": value, "counts": sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))}


class LocalBroker:
    """One process: the class lives in this object; every change goes straight to the hub."""

    def __init__(self, hub: Hub):
        self.hub = hub
        self._lock = threading.Lock()
        self._seq = itertools.count(1)
        self._state: dict | None = None
        self._question: dict | None = None
        self._answers: dict[str, str] = {}

    def start(self) -> None:
        pass

    def publish_state(self, query: str, live: bool = True) -> dict:
        with self._lock:
            self._state = {"seq": next(self._seq), "query": query, "live": live}
            state = dict(self._state)
        self.hub.receive("state", state)
        return state

    def state(self) -> dict | None:
        with self._lock:
            return dict(self._state) if self._state else None

    def ask(self, exercise_id: str) -> dict:
        with self._lock:
            self._question = {"seq": next(self._seq), "id": exercise_id, "revealed": False}
            self._answers = {}
            question = dict(self._question)
        self.hub.receive("question", question)
        self.hub.receive("count", {"qseq": question["seq"], "count": 0})
        return question

    def question(self) -> dict | None:
        with self._lock:
            return dict(self._question) if self._question else None

    def answer(self, qseq: int, voter: str, value: str) -> int | None:
        """Keep ``voter``'s answer to question ``qseq`` (replacing theirs); the count, or None
        when that question is not open (revealed, cleared, another one asked)."""
        with self._lock:
            q = self._question
            if q is None or q["seq"] != qseq or q["revealed"]:
                return None
            self._answers[voter] = value
            count = len(self._answers)
        self.hub.receive("count", {"qseq": qseq, "count": count})
        return count

    def reveal(self, qseq: int, value: Any) -> dict | None:
        """Close question ``qseq``: no answer after this; its result (the computed ``value``
        and how many gave each answer) goes to everyone."""
        with self._lock:
            q = self._question
            if q is None or q["seq"] != qseq:
                return None
            counts: dict[str, int] = {}
            for answer in self._answers.values():
                counts[answer] = counts.get(answer, 0) + 1
            q = self._question = {**q, "revealed": True, "result": _result(counts, value)}
            question = dict(q)
        self.hub.receive("question", question)
        return question

    def clear(self) -> None:
        with self._lock:
            self._question, self._answers = None, {}
        self.hub.receive("question", None)
        self.hub.receive("count", None)

    def end(self) -> None:
        self.clear()
        with self._lock:
            query = self._state["query"] if self._state else ""
        self.publish_state(query, live=False)

    def close(self) -> None:
        pass


# Atomic in Redis: an answer is kept only while its question is the open one.
_ANSWER_LUA = """
local q = redis.call('GET', KEYS[1])
if not q then return -1 end
local d = cjson.decode(q)
if tonumber(d['seq']) ~= tonumber(ARGV[1]) or d['revealed'] then return -1 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return redis.call('HLEN', KEYS[2])
"""


class RedisBroker:
    """Several processes: the class's state, question and answers are Redis keys (they outlive
    a worker), and every change is published on one channel that each worker's listener thread
    hands to its hub. When the connection comes back (a broker restart), the listener reads the
    keys again and the sessions resync to them; a lecturer's session publishes its state again
    if the broker lost it."""

    def __init__(self, hub: Hub, url: str):
        import redis  # a dependency of the live app; only this broker needs it

        self.hub = hub
        self.url = url
        self._redis = redis
        # Short timeouts: a session's callback never waits long on a broker that is down.
        self.client = redis.Redis.from_url(
            url, socket_timeout=1.0, socket_connect_timeout=1.0, decode_responses=True
        )
        self._answer = self.client.register_script(_ANSWER_LUA)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._pubsub = None

    # -- the wire ------------------------------------------------------------------------------

    def _call(self, fn: Callable, *args):
        try:
            return fn(*args)
        except self._redis.RedisError as exc:
            self.hub.set_connected(False)
            raise BrokerDown(str(exc)) from exc

    def _publish(self, kind: str, payload: dict | None) -> None:
        message = json.dumps({"kind": kind, "payload": payload}, ensure_ascii=False)
        self._call(self.client.publish, CHANNEL, message)

    def _get(self, key: str) -> dict | None:
        raw = self._call(self.client.get, PREFIX + key)
        return json.loads(raw) if raw else None

    def _set(self, key: str, value: dict) -> None:
        raw = json.dumps(value, ensure_ascii=False)
        self._call(self.client.set, PREFIX + key, raw, CLASS_TTL_S)

    # -- the listener --------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._listen, name="c04-clase", daemon=True)
            self._thread.start()

    def _listen(self) -> None:
        wait = 0.2
        while not self._stop.is_set():
            try:
                pubsub = self.client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(CHANNEL)
                self._pubsub = pubsub
                self.resync()  # after subscribing: nothing published in between is missed
                self.hub.set_connected(True)
                wait = 0.2
                while not self._stop.is_set():
                    message = pubsub.get_message(timeout=1.0)
                    if message and message.get("type") == "message":
                        self._deliver(message.get("data"))
            except (self._redis.RedisError, BrokerDown, OSError) as exc:
                if self.hub.connected:
                    log.warning("Clase: el intermediario (Redis) no responde: %s", exc)
                self.hub.set_connected(False)
                self._stop.wait(wait)
                wait = min(2.0, wait * 2)
            finally:
                with contextlib.suppress(Exception):
                    if self._pubsub is not None:
                        self._pubsub.close()

    def _deliver(self, data) -> None:
        try:
            message = json.loads(data)
            kind, payload = message["kind"], message["payload"]
        except (TypeError, ValueError, KeyError):
            return  # not ours: only this project's workers publish on the channel
        self.hub.receive(kind, payload)

    def resync(self) -> None:
        """Read the class's keys again and hand them to the hub (at start and after a broker
        restart)."""
        state, question = self._get("state"), self._get("question")
        self.hub.receive("state", state, resync=True)
        self.hub.receive("question", question, resync=True)
        if question is not None:
            count = self._call(self.client.hlen, PREFIX + f"respuestas:{question['seq']}")
            self.hub.receive("count", {"qseq": question["seq"], "count": count}, resync=True)
        else:
            self.hub.receive("count", None, resync=True)

    # -- what sessions do ----------------------------------------------------------------------

    def _next_seq(self) -> int:
        """The class's next sequence number. A restarted broker is empty and its counter would
        start over, below what every worker's hub holds (which drops an older state): the
        counter starts from the highest number this process was ever told instead (not what
        its hub holds now: a resync after the restart emptied it)."""
        floor = self.hub.highest_seq()
        if floor:
            self._call(partial(self.client.set, nx=True), PREFIX + "seq", floor)
        return self._call(self.client.incr, PREFIX + "seq")

    def publish_state(self, query: str, live: bool = True) -> dict:
        seq = self._next_seq()
        state = {"seq": seq, "query": query, "live": live}
        self._set("state", state)
        self._publish("state", state)
        return state

    def state(self) -> dict | None:
        return self._get("state")

    def ask(self, exercise_id: str) -> dict:
        seq = self._next_seq()
        question = {"seq": seq, "id": exercise_id, "revealed": False}
        self._set("question", question)
        self._publish("question", question)
        self._publish("count", {"qseq": seq, "count": 0})
        return question

    def question(self) -> dict | None:
        return self._get("question")

    def answer(self, qseq: int, voter: str, value: str) -> int | None:
        keys = [PREFIX + "question", PREFIX + f"respuestas:{qseq}"]
        count = self._call(self._answer, keys, [qseq, voter, value, CLASS_TTL_S])
        if count is None or int(count) < 0:
            return None
        self._publish("count", {"qseq": qseq, "count": int(count)})
        return int(count)

    def reveal(self, qseq: int, value: Any) -> dict | None:
        question = self._get("question")
        if question is None or question["seq"] != qseq:
            return None
        # Closed first: an answer arriving now is refused by the script above.
        self._set("question", {**question, "revealed": True})
        answers = self._call(self.client.hvals, PREFIX + f"respuestas:{qseq}")
        counts: dict[str, int] = {}
        for answer in answers:
            counts[answer] = counts.get(answer, 0) + 1
        question = {**question, "revealed": True, "result": _result(counts, value)}
        self._set("question", question)
        self._publish("question", question)
        return question

    def clear(self) -> None:
        question = self._get("question")
        keys = [PREFIX + "question"]
        if question is not None:
            keys.append(PREFIX + f"respuestas:{question['seq']}")
        self._call(self.client.delete, *keys)
        self._publish("question", None)
        self._publish("count", None)

    def end(self) -> None:
        self.clear()
        state = self._get("state")
        self.publish_state(state["query"] if state else "", live=False)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=3)


# ---------------------------------------------------------------------------------------------
# This process's


_hub: Hub | None = None
_broker: LocalBroker | RedisBroker | None = None
_lock = threading.Lock()


def hub() -> Hub:
    broker()
    assert _hub is not None
    return _hub


def broker() -> LocalBroker | RedisBroker:
    """This process's broker: Redis when ``C04_REDIS_URL`` is set, else in process."""
    global _hub, _broker
    with _lock:
        if _broker is None:
            _hub = Hub()
            url = os.environ.get(BROKER_ENV)
            _broker = RedisBroker(_hub, url) if url else LocalBroker(_hub)
            _broker.start()
        return _broker


def reset() -> None:
    """Forget this process's class (tests)."""
    global _hub, _broker
    with _lock:
        if _broker is not None:
            _broker.close()
        _hub = _broker = None


def now() -> float:
    return time.monotonic()
