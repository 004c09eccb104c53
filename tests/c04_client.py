"""A client that speaks Bokeh's websocket protocol and sends what it likes: the student of issue 14
who forges messages by hand. Used by tests/dashboards/test_hostile.py and bench/bench_flood.py.

It does what a browser tab does to open a session (GET the page for its session token, open the
websocket with that token and an Origin, pull the document, send ``document_ready``) and then
sends raw PATCH-DOC messages: any value, of any type, for any property of any model, at any
rate. It keeps the server-side state it is told about (every model's attributes as pulled, then
as patched), each reply to its own messages (OK or ERROR) and whether the server closed the
websocket. Talks to 127.0.0.1 only; every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time

from bokeh.protocol import Protocol
from bokeh.protocol.receiver import Receiver
from bokeh.util.serialization import make_id
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.iostream import StreamClosedError
from tornado.websocket import WebSocketClosedError, websocket_connect

TOKEN_RE = re.compile(r'"token"\s*:\s*"([^"]+)"')
# What BokehJS sends once the page has rendered (Panel builds lazy parts on it).
DOCUMENT_READY = {
    "kind": "MessageSent",
    "msg_type": "bokeh_event",
    "msg_data": {"type": "event", "name": "document_ready", "values": {"type": "map"}},
}
TIMEOUT_S = 30.0
# What this client lets the server send it (the whole document of the lecture is a few MB).
MAX_RECEIVED = 64 * 2**20

# Bokeh widget models by the property a browser writes when a student uses them.
WIDGET_PROPERTIES = {
    "Slider": ("value", "value_throttled"),
    "IntSlider": ("value", "value_throttled"),
    "Select": ("value",),
    "TextInput": ("value", "value_input"),
    "Checkbox": ("active",),
    "RadioButtonGroup": ("active",),
    "Button": (),
}


def find_objects(node, found: list) -> list:
    """Every serialized Bokeh object ({"type": "object", "id", "name", "attributes"})."""
    if isinstance(node, dict):
        if node.get("type") == "object" and "id" in node:
            found.append(node)
        for value in node.values():
            find_objects(value, found)
    elif isinstance(node, list):
        for value in node:
            find_objects(value, found)
    return found


class ForgingSession:
    """One session of ``base_url/app``, driven by hand."""

    def __init__(self, base_url: str, app: str):
        if not base_url.startswith("http://127.0.0.1:"):
            raise ValueError(f"solo 127.0.0.1: {base_url!r}")
        self.base_url = base_url
        self.app = app
        self.ws = None
        self.receiver = Receiver(Protocol())
        self.models: dict[str, dict] = {}  # id -> {"name", "attributes"}
        self.replies: dict[str, str] = {}  # our msgid -> "OK" / "ERROR"
        self.errors: list[str] = []  # the texts of ERROR replies
        self.closed = False  # the websocket closed: ``close_code`` says with what code
        self.close_code: int | None = None  # the server's close frame's code (1009: too big)
        self.failure: BaseException | None = None  # a client-side error that ended the reading
        self.pulled: dict | None = None  # the last PULL-DOC-REPLY's content
        self._changed = asyncio.Event()
        self._reader: asyncio.Task | None = None

    # -- opening -------------------------------------------------------------------------------

    async def open(self) -> ForgingSession:
        http = AsyncHTTPClient(force_instance=True)
        try:
            page = await http.fetch(
                HTTPRequest(f"{self.base_url}/{self.app}", request_timeout=TIMEOUT_S)
            )
        finally:
            http.close()
        match = TOKEN_RE.search(page.body.decode("utf-8", "replace"))
        if match is None:
            raise RuntimeError("la página no trae token de sesión")
        ws_url = self.base_url.replace("http://", "ws://", 1) + f"/{self.app}/ws"
        self.ws = await websocket_connect(
            HTTPRequest(ws_url, headers={"Origin": self.base_url}, request_timeout=TIMEOUT_S),
            subprotocols=["bokeh", match.group(1)],
            max_message_size=MAX_RECEIVED,
        )
        # Browsers send small frames at once (TCP_NODELAY): without it each change waits for
        # a delayed ACK (~40 ms).
        self.ws.protocol.stream.set_nodelay(True)
        ack = await asyncio.wait_for(self._recv(), TIMEOUT_S)
        if ack is None or ack.msgtype != "ACK":
            raise RuntimeError(f"se esperaba ACK, llegó {ack and ack.msgtype}")
        await self._send("PULL-DOC-REQ", {})
        reply = await asyncio.wait_for(self._recv(), TIMEOUT_S)
        if reply is None or reply.msgtype != "PULL-DOC-REPLY":
            raise RuntimeError(f"se esperaba PULL-DOC-REPLY, llegó {reply and reply.msgtype}")
        self._learn(reply.content)
        self._reader = asyncio.ensure_future(self._read())
        await self._send("PATCH-DOC", {"events": [DOCUMENT_READY]})
        return self

    async def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 5)
            except Exception:
                self._reader.cancel()

    # -- the wire ------------------------------------------------------------------------------

    async def _recv(self):
        while True:
            fragment = await self.ws.read_message()
            if fragment is None:
                return None
            message = await self.receiver.consume(fragment)
            if message is not None:
                return message

    async def _send(self, msgtype: str, content: dict | str) -> str:
        """A Bokeh message: three text frames (header, metadata, content). ``content`` may be
        a dict (JSON with NaN and ±Infinity as Python writes them) or text sent as is."""
        msgid = make_id()
        # As a browser writes it: UTF-8, not \u escapes.
        body = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        try:
            await self.ws.write_message(json.dumps({"msgid": msgid, "msgtype": msgtype}))
            await self.ws.write_message("{}")
            await self.ws.write_message(body)
        except (WebSocketClosedError, StreamClosedError):  # the websocket closed under us
            # The reader records the server's close frame, if it got one: let it finish first.
            if self._reader is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(self._reader), 5)
            self.closed = True
        return msgid

    def _learn(self, content) -> None:
        for obj in find_objects(content, []):
            known = self.models.setdefault(obj["id"], {"name": obj.get("name"), "attributes": {}})
            known["attributes"].update(obj.get("attributes") or {})

    async def _read(self) -> None:
        try:
            while True:
                message = await self._recv()
                if message is None:
                    break
                if message.msgtype in ("OK", "ERROR"):
                    self.replies[message.header.get("reqid")] = message.msgtype
                    if message.msgtype == "ERROR":
                        self.errors.append(str(message.content.get("text")))
                elif message.msgtype == "PULL-DOC-REPLY":
                    self.pulled = message.content
                elif message.msgtype == "PATCH-DOC":
                    self._learn(message.content)
                    for event in message.content.get("events", ()):
                        if event.get("kind") == "ModelChanged":
                            model = self.models.setdefault(
                                event["model"]["id"], {"name": None, "attributes": {}}
                            )
                            model["attributes"][event["attr"]] = event["new"]
                self._changed.set()
        except Exception as exc:  # this client's own failure, not the server closing
            self.failure = exc
        self.close_code = self.ws.close_code
        self.closed = True
        self._changed.set()

    # -- what a test does ----------------------------------------------------------------------

    def find(self, name: str, **attributes) -> list[str]:
        """Ids of the models of Bokeh type ``name`` whose attributes include ``attributes``
        (a css class is matched inside ``css_classes``)."""
        found = []
        for model_id, model in self.models.items():
            if model["name"] != name:
                continue
            attrs = model["attributes"]
            ok = True
            for key, value in attributes.items():
                if key == "css_class":
                    ok = ok and value in (attrs.get("css_classes") or [])
                else:
                    ok = ok and attrs.get(key) == value
            if ok:
                found.append(model_id)
        return found

    def attr(self, model_id: str, name: str):
        return self.models[model_id]["attributes"].get(name)

    async def change(self, model_id: str, attr: str, new) -> str:
        """Send one ModelChanged, as a browser does when a control changes."""
        event = {"kind": "ModelChanged", "model": {"id": model_id}, "attr": attr, "new": new}
        return await self._send("PATCH-DOC", {"events": [event]})

    async def click(self, model_id: str) -> str:
        """Send a button's click event."""
        event = {
            "kind": "MessageSent",
            "msg_type": "bokeh_event",
            "msg_data": {
                "type": "event",
                "name": "button_click",
                "values": {"type": "map", "entries": [["model", {"id": model_id}]]},
            },
        }
        return await self._send("PATCH-DOC", {"events": [event]})

    async def send_msg(self, model_id: str, data: dict) -> str:
        """Send a message to a JSComponent (what its ESM's ``model.send_msg(data)`` sends)."""
        event = {
            "kind": "MessageSent",
            "msg_type": "bokeh_event",
            "msg_data": {
                "type": "event",
                "name": "data_event",  # what model.send_msg sends (esm_event goes the other way)
                "values": {
                    "type": "map",
                    # As BokehJS writes an object (a plain dict with "id" is a reference).
                    "entries": [
                        ["model", {"id": model_id}],
                        ["data", {"type": "map", "entries": [[k, v] for k, v in data.items()]}],
                    ],
                },
            },
        }
        return await self._send("PATCH-DOC", {"events": [event]})

    async def pull(self) -> dict[str, dict]:
        """The server's document now (a new PULL-DOC): model id -> attributes."""
        self.pulled = None
        await self._send("PULL-DOC-REQ", {})
        await self.until(lambda: self.pulled is not None)
        return {o["id"]: o.get("attributes") or {} for o in find_objects(self.pulled or {}, [])}

    async def reply(self, msgid: str, timeout: float = TIMEOUT_S) -> str | None:
        """The server's reply to message ``msgid`` ("OK", "ERROR"), None if it closed first."""
        await self.until(lambda: msgid in self.replies, timeout)
        return self.replies.get(msgid)

    async def until(self, predicate, timeout: float = TIMEOUT_S) -> bool:
        """Wait until ``predicate()`` holds or the websocket closes; False on closing. Raises
        TimeoutError after ``timeout`` seconds, and this client's own error if reading failed
        (a client-side error is not the server closing)."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if self.failure is not None:
                raise RuntimeError(f"{self.app}: el cliente falló al leer") from self.failure
            if self.closed:
                return False
            self._changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{self.app}: nada en {timeout:g} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)
        return True
