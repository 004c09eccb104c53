"""Hostile clients (issue 14): forged websocket messages against the served apps, no browser.

For every control of every demo (a Board's native control: a message), MiniLM's grid of heads
(its message, and writes of its properties) and the lecture's navigation, a client that speaks
Bokeh's protocol by hand (tests/c04_client.py) sends values no page can send: wrong types, NaN,
±inf, huge numbers, indices and options that do not exist, texts over the models' caps, messages
with keys no page sends, and a flood. After that the model's key figure (the numbers the server
sends the demo's Board, which its view draws with the announcement) is what it was; the session
still answers a valid change with the numbers the model computes; a second session answers its
own; and the server's log has no ERROR, no traceback and no "Exception in callback", but an INFO
line naming a refused control.
Latency under a flood is measured in `make bench` (bench/bench_flood.py), not asserted here.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import math

import pytest

from attnmodel import (
    AttentionExplorer,
    CapitalWalkthrough,
    MultiHeadDemo,
    PositionalEncodingDemo,
    ScalingDemo,
    SelfAttention,
)
from attnmodel.explorer import MAX_SENTENCE_CHARS
from dashboards.demos import capital, explorer, multihead, positional, scaling, self_attention
from dashboards.serving import WEBSOCKET_MAX_MESSAGE_BYTES

from c04_client import ForgingSession

NOT_A_VALUE = ["abc", None, True, [1, 2], {"x": 1}, math.nan, math.inf, -math.inf]
HUGE = [1e308, -1e308, 2**63, 10**30]
# A matrix's cell (its Board's control "X" of «Autoatención»): commits off the grid, of the
# wrong types.
FORGED_COMMITS = [
    *NOT_A_VALUE,
    {"row": 9, "col": 0, "text": "1"},
    {"row": -1, "col": 0, "text": "1"},
    {"row": "0", "col": 0, "text": "1"},
    {"row": 0, "col": 0, "text": 5},
    {"row": 0, "col": 0},
    {"row": 0, "col": 0, "text": "abc"},  # a student's refused text
    {"row": 0, "col": 0, "text": "é" * 300_000},
]
# A text box gets texts: a model's refusal leaves its text in the box (as for a typed one), so
# only the model's state is checked. Over the model's caps, under the websocket's limit.
TEXTS = ["", " " * 50, "x" * (MAX_SENTENCE_CHARS + 1), "palabra" * 20, "é" * 300_000]
# Per app: a valid use (its Board's control, a message) and the model it leads to (that model's
# numbers are what the server must send).
VALID = {
    "self_attention": (
        ("board", "causal"),
        "control",
        True,
        lambda: drawn_from(self_attention, SelfAttention(causal=True)),
    ),
    # A Board's native control: its use is a message {control, value} (board.py, receive).
    "scaling": (
        ("board", "d_k"),
        "control",
        128,
        lambda: drawn_from(scaling, ScalingDemo(d_k=128)),
    ),
    "multihead": (
        ("board", "n_heads"),
        "control",
        2,
        lambda: drawn_from(multihead, MultiHeadDemo(n_heads=2)),
    ),
    "positional": (
        ("board", "n_positions"),
        "control",
        20,
        lambda: drawn_from(positional, PositionalEncodingDemo(n_positions=20)),
    ),
    "capital": (
        ("board", "country"),
        "control",
        "Italia",
        lambda: drawn_from(capital, CapitalWalkthrough(country="Italia")),
    ),
    "explorer": (
        ("board", "temperature"),
        "control",
        2.0,
        lambda: drawn_from(explorer, AttentionExplorer(temperature=2.0)),
    ),
}


def drawn_from(module, model) -> dict:
    """What a Board drawn by its view receives: the model's numbers (the demo ``module``'s
    ``numbers``), as JSON."""
    return {"state": json.loads(json.dumps(module.numbers(model)))}


def announce_id(session: ForgingSession) -> tuple[str, str | None]:
    """The demo's announcer: a Markup of kind "announce" (its data model's id, None), or the
    Board with an "announce" slot (its data model's id, "announce")."""
    found = [
        (i, None) for i, m in session.models.items() if m["attributes"].get("kind") == "announce"
    ]
    found += [
        (i, "announce")
        for i, m in session.models.items()
        # the layout as Bokeh serialises it (a dict is a "map" of entries)
        if '"announce"' in json.dumps(m["attributes"].get("layout", []))
    ]
    assert len(found) == 1, found
    return found[0]


def announced(session: ForgingSession) -> dict:
    model, slot = announce_id(session)
    if slot is None:
        return json.loads(session.attr(model, "spec_json") or "{}")
    if session.attr(model, "view"):  # a Board drawn by its view: the state it draws from
        return {"state": json.loads(session.attr(model, "state_json") or "{}")}
    return json.loads(session.attr(model, "specs_json") or "{}").get(slot, {})


def _plain(value):
    """A value as Bokeh serialises it (a dict is a "map" of entries) back to plain JSON."""
    if isinstance(value, dict) and value.get("type") == "map":
        return {k: _plain(v) for k, v in value.get("entries", [])}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def board_controls(session: ForgingSession) -> list[tuple[str, str, str, str]]:
    """(component id, data model id, control, kind) of every native control of a Board."""
    found = []
    for data_id, m in session.models.items():
        layout = _plain(m["attributes"].get("layout"))
        if not isinstance(layout, list):
            continue
        nodes = list(layout)
        controls = []
        while nodes:
            node = nodes.pop()
            if not isinstance(node, dict):
                continue
            if node.get("control"):
                controls.append((node["slot"], node["kind"]))
            nodes += node.get("row", []) + node.get("col", []) + node.get("box", [])
        component = [
            i
            for i, c in session.models.items()
            if c["name"] == "panel.models.esm.ReactiveESM"
            and (c["attributes"].get("data") or {}).get("id") == data_id
        ]
        found += [(component[0], data_id, name, kind) for name, kind in controls if component]
    return found


# What a Board's control gets: every kind of wrong value, a huge text, and messages no page sends.
FORGED_CONTROL_VALUES = [*NOT_A_VALUE, *HUGE, -1, 0, 2.5, "no-existe", "é" * 300_000]


def offered(spec: dict, value) -> bool:
    """Whether a control offers ``value`` (its spec as the page holds it): a stop's value, or a
    number on a plain range's steps."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return False
    if "values" in spec:
        return value in spec["values"]
    if not {"start", "end", "step"} <= set(spec):
        return False
    steps = (value - spec["start"]) / spec["step"]
    return spec["start"] <= value <= spec["end"] and abs(steps - round(steps)) < 1e-9


def _own(kind: str, spec: dict, value) -> bool:
    """Whether a page could send ``value`` for this control (then it is a use, not a forgery):
    a stop or an option it offers, a number within its range, a checkbox's True or False."""
    if kind == "checkbox":
        return isinstance(value, bool)
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return False
    if kind == "range" and "values" in spec:
        return value in spec["values"]
    if kind in ("range", "number"):
        return offered(spec, value)
    if kind in ("select", "choice"):
        return any(type(v) is type(value) and v == value for v, _ in spec["options"])
    return False


def forged_values(kind: str, spec: dict) -> list:
    """The values a control gets: FORGED_CONTROL_VALUES but those a page could send; a text box
    gets texts over the model's caps (any other text is a student's sentence)."""
    if kind == "text":
        return [v for v in FORGED_CONTROL_VALUES if not isinstance(v, str)] + TEXTS
    values = [v for v in FORGED_CONTROL_VALUES if not _own(kind, spec, v)]
    if kind == "matrix":  # a matrix's cell: commits off the grid, of the wrong types
        values += FORGED_COMMITS
    return values


def control_specs(session: ForgingSession, data_id: str) -> dict:
    return json.loads(session.attr(data_id, "specs_json") or "{}")


async def expect_valid_change(session: ForgingSession, app: str) -> None:
    """The app's valid change gets the numbers of the model in that state (what its Board's view
    draws)."""
    (_, which), _, value, rendered = VALID[app]
    expected = rendered()
    (component,) = {c for c, _, control, _ in board_controls(session) if control == which}
    await session.send_msg(component, {"control": which, "value": value})
    assert await session.until(lambda: announced(session) == expected, 30), app


async def pulled_until(session: ForgingSession, check, timeout: float = 10.0) -> dict:
    """The server's document once ``check(document)`` holds (a paced change is handled up to
    0.2 s after its message's OK), or the last one pulled after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        document = await session.pull()
        if check(document) or asyncio.get_running_loop().time() > deadline:
            return document
        await asyncio.sleep(0.1)


def run(coroutine) -> None:
    """Run ``coroutine`` in a thread of its own: Playwright's sync API keeps an event loop
    running in the test's thread when a browser test ran before in the same process."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coroutine).result()


def log_since(server: dict, offset: int) -> str:
    return server["log_path"].read_text(encoding="utf-8", errors="replace")[offset:]


def assert_clean(log: str) -> None:
    for bad in ("ERROR", "Traceback", "Exception in callback"):
        assert bad not in log, log[max(log.find(bad) - 2000, 0) : log.find(bad) + 2000]


async def forge_everything(base: str, app: str) -> None:
    forger = await ForgingSession(base, app).open()
    try:
        await forger.until(lambda: bool(board_controls(forger)), 30)
        before = announced(forger)
        values_before = await forger.pull()
        last = None
        boards = board_controls(forger)
        for component, data_id, control, kind in boards:
            spec = control_specs(forger, data_id).get(control, {})
            for value in forged_values(kind, spec):
                last = await forger.send_msg(component, {"control": control, "value": value})
            last = await forger.send_msg(component, {"control": control, "value": 1, "más": 2})
        for component in {c for c, _, _, _ in boards}:
            for message in ({"control": "no-existe", "value": 1}, {"value": 1}, {}):
                last = await forger.send_msg(component, message)
        # A text box keeps a refused text beside its message, as for a typed one: the text it
        # had, typed again, takes both away (then its board is as it was).
        for component, data_id, control, kind in boards:
            if kind == "text":
                had = json.loads(values_before[data_id]["specs_json"])[control]["value"]
                last = await forger.send_msg(component, {"control": control, "value": had})
        assert await forger.reply(last) in ("OK", "ERROR")
        assert not forger.closed
        # The model's key figure is the one before.
        assert await forger.until(lambda: announced(forger) == before, 10)
        # A Board's controls and figures: its specs as they were (but a board with a matrix,
        # whose refused text is said under its cells, as for a typed one).
        with_matrix = {d for _, d, _, kind in boards if kind == "matrix"}
        kept = [(d, "specs_json") for d in {d for _, d, _, _ in boards} - with_matrix]

        def unchanged(document: dict) -> bool:
            return all(document[i].get(p) == values_before[i].get(p) for i, p in kept)

        now = await pulled_until(forger, unchanged)
        for model_id, prop in kept:
            assert now[model_id].get(prop) == values_before[model_id].get(prop), prop
        await expect_valid_change(forger, app)
    finally:
        await forger.close()
    # A second session answers its own change.
    other = await ForgingSession(base, app).open()
    try:
        await other.until(lambda: bool(board_controls(other)), 30)
        await expect_valid_change(other, app)
    finally:
        await other.close()


@pytest.mark.parametrize("app", list(VALID))
def test_forged_values_for_every_control_are_refused_cleanly(server, app):
    offset = len(server["log_path"].read_text(encoding="utf-8", errors="replace"))
    run(forge_everything(server["base"], app))
    log = log_since(server, offset)
    assert_clean(log)
    assert "valor de un cliente rechazado" in log or "Mensaje de un cliente rechazado" in log


async def forge_navigation(base: str) -> None:
    """The lecture's navigation (dashboards/app/navigation.py): forged messages and forged
    writes of its ``value``, then a real section asked as a page asks it."""
    from dashboards.demos.registry import SECTIONS

    forger = await ForgingSession(base, "lecture").open()
    try:

        def found() -> tuple[list[str], list[str]]:
            data = [i for i, m in forger.models.items() if m["name"].startswith("Navigation")]
            component = [
                i
                for i, m in forger.models.items()
                if m["name"] == "panel.models.esm.ReactiveESM"
                and (m["attributes"].get("data") or {}).get("id") in data
            ]
            return data, component

        await forger.until(lambda: all(found()), 30)
        (data_id,), (component_id,) = found()
        before = (await forger.pull())[data_id]["value"]
        for value in [*NOT_A_VALUE, *HUGE, "no-existe", "x" * 10_000]:
            await forger.send_msg(component_id, {"section": value})
            last = await forger.change(data_id, "value", value)
        await forger.send_msg(component_id, {"otra": SECTIONS[1].id})
        assert await forger.reply(last) in ("OK", "ERROR")
        now = await pulled_until(forger, lambda d: d[data_id]["value"] == before)
        assert now[data_id]["value"] == before

        # The section's first demo is drawn: its CopyLink carries its marker.
        def shown() -> bool:
            wanted = SECTIONS[1].demos[0]
            return any(m["attributes"].get("marker") == wanted for m in forger.models.values())

        assert not shown()
        await forger.send_msg(component_id, {"section": SECTIONS[1].id})
        assert await forger.until(shown, 30)
    finally:
        await forger.close()


def test_forged_values_for_the_navigation_are_refused_cleanly(server):
    offset = len(server["log_path"].read_text(encoding="utf-8", errors="replace"))
    run(forge_navigation(server["base"]))
    log = log_since(server, offset)
    assert_clean(log)
    assert "valor de un cliente rechazado" in log


# What MiniLM's grid of heads gets (its message is {selected: [layer, head]}, HeadGrid.receive):
# wrong types, heads off the grid, keys no page sends, no dict at all.
FORGED_SELECTIONS = [
    *(
        {"selected": v}
        # (NOT_A_VALUE's [1, 2] is a head on the grid: a page's own message)
        for v in [*NOT_A_VALUE, *HUGE, [9, 0], [0, 12], [-1, 0], [1], [1, 2, 3]]
        if v != [1, 2]
    ),
    {"selected": [True, 1]},
    {"selected": [1.0, 2]},
    {"selected": [2**70, 1]},
    {"selected": [1, 2], "extra": 1},
    {"layer": 1, "head": 2},
    {},
]
DEFAULT_HEAD = [0, 2]  # HeadGrid.selected's default, the model's first head (layer 1, head 3)
# Writes of its properties (no page writes one live): the server's are kept and sent back.
FORGED_GRID_WRITES = [
    *(("selected", v) for v in [[4, 1], [9, 0], "x", None, 5, [True, 1], {"x": 1}]),
    ("state_json", '{"pieces": ["x"]}'),
    ("state_json", "é" * 300_000),
]


async def forge_head_grid(base: str) -> None:
    """MiniLM's grid of heads (dashboards/demos/minilm.py, HeadGrid): forged messages and forged
    writes of its properties leave the head shown and the server's state; then a head chosen as a
    page chooses it moves the grid."""
    forger = await ForgingSession(base, "minilm").open()
    try:

        def found() -> tuple[list[str], list[str]]:
            data = [i for i, m in forger.models.items() if m["name"].startswith("HeadGrid")]
            component = [
                i
                for i, m in forger.models.items()
                if m["name"] == "panel.models.esm.ReactiveESM"
                and (m["attributes"].get("data") or {}).get("id") in data
            ]
            return data, component

        await forger.until(lambda: all(found()), 60)
        (data_id,), (component_id,) = found()
        before = (await forger.pull())[data_id]
        last = None
        for message in FORGED_SELECTIONS:
            last = await forger.send_msg(component_id, message)
        for prop, value in FORGED_GRID_WRITES:
            last = await forger.change(data_id, prop, value)
        assert await forger.reply(last) in ("OK", "ERROR")
        assert not forger.closed

        def shown(attributes: dict) -> tuple:
            # (a property at its default is left out of the document pulled)
            return (attributes.get("selected", DEFAULT_HEAD), attributes.get("state_json"))

        now = await pulled_until(forger, lambda d: shown(d[data_id]) == shown(before))
        assert shown(now[data_id]) == shown(before)
        assert before.get("state_json")
        await forger.send_msg(component_id, {"selected": [4, 1]})
        moved = await pulled_until(forger, lambda d: d[data_id].get("selected") == [4, 1])
        assert moved[data_id].get("selected") == [4, 1]
    finally:
        await forger.close()


def test_forged_messages_and_writes_for_the_head_grid_are_refused_cleanly(server):
    offset = len(server["log_path"].read_text(encoding="utf-8", errors="replace"))
    run(forge_head_grid(server["base"]))
    log = log_since(server, offset)
    assert_clean(log)
    assert "Control «cabeza»: valor de un cliente rechazado" in log


async def flood(base: str) -> None:
    """1,000 temperatures as fast as the socket takes them, while a second session changes its
    own; the flooding session ends at the last value it sent (merged, never replayed)."""
    flooder = await ForgingSession(base, "explorer").open()
    other = await ForgingSession(base, "explorer").open()
    try:
        for s in (flooder, other):
            await s.until(lambda s=s: bool(board_controls(s)), 30)
        (slider,) = {c for c, _, name, _ in board_controls(flooder) if name == "temperature"}
        values = [round(0.1 + 0.01 * (k % 250), 2) for k in range(1000)]

        async def send_all() -> None:  # one writer: a message's three frames stay together
            for v in values:
                await flooder.send_msg(slider, {"control": "temperature", "value": v})

        sending = asyncio.ensure_future(send_all())
        await expect_valid_change(other, "explorer")
        await sending
        last = values[-1]
        expected = drawn_from(explorer, AttentionExplorer(temperature=last))
        assert await flooder.until(lambda: announced(flooder) == expected, 60)
    finally:
        await flooder.close()
        await other.close()


def test_a_flood_from_one_session_ends_at_its_last_value(server):
    offset = len(server["log_path"].read_text(encoding="utf-8", errors="replace"))
    run(flood(server["base"]))
    assert_clean(log_since(server, offset))


# Tornado answers a frame over the limit with a close frame (1009) and drops the connection at
# once, the frame's payload unread: the kernel then resets the connection, and a reset that
# arrives before the client has read the close frame discards it (the client sees the socket
# closed, code None). The server's behaviour is the same every time; only its observation races,
# so each attempt must see the websocket closed, and one of a few must read the 1009.
OVERSIZED_ATTEMPTS = 4


async def oversized_once(base: str) -> int | None:
    """One websocket sends a message over the limit: the close code it reads (None: reset)."""
    forger = await ForgingSession(base, "explorer").open()
    try:
        await forger.until(lambda: bool(board_controls(forger)), 30)
        (box,) = {c for c, _, name, kind in board_controls(forger) if kind == "text"}
        too_long = "a" * (WEBSOCKET_MAX_MESSAGE_BYTES + 1)
        await forger.send_msg(box, {"control": "sentence", "value": too_long})
        assert not await forger.until(lambda: False, 30)  # the server closes the websocket
        return forger.close_code
    finally:
        await forger.close()


async def oversized(base: str) -> None:
    codes = [await oversized_once(base)]
    while codes[-1] != 1009 and len(codes) < OVERSIZED_ATTEMPTS:
        codes.append(await oversized_once(base))
    # RFC 6455: "message too big", the server's reason; nothing else ever.
    assert codes[-1] == 1009, codes
    assert set(codes) <= {1009, None}, codes
    other = await ForgingSession(base, "explorer").open()
    try:
        await other.until(lambda: bool(board_controls(other)), 30)
        await expect_valid_change(other, "explorer")
    finally:
        await other.close()


def test_a_message_over_the_limit_closes_only_that_websocket(server):
    offset = len(server["log_path"].read_text(encoding="utf-8", errors="replace"))
    run(oversized(server["base"]))
    assert_clean(log_since(server, offset))
