"""A table's socket in a test, over websockets' sync client against a real server."""

from __future__ import annotations

import json
from typing import Any

from websockets.sync.client import ClientConnection


class SyncSocket:
    """One socket of a table, read up to the `pong` of a `ping` (`drain`): its last
    state, and the errors, hints and frames it was sent. `hello`: a seat's token to say
    hello with (None: the connection says who it is, or it watches)."""

    def __init__(self, ws: ClientConnection, timeout: float, hello: str | None = None) -> None:
        self.ws = ws
        self.timeout = timeout  # seconds for any one message
        self.state: dict[str, Any] = {}
        self.errors: list[dict[str, Any]] = []
        self.hints: list[dict[str, Any]] = []
        self.frames: list[str] = []
        if hello is not None:
            self.ws.send(json.dumps({"type": "hello", "token": hello}))
        self.drain()

    def read(self) -> dict[str, Any]:
        raw = self.ws.recv(timeout=self.timeout)
        assert isinstance(raw, str)
        self.frames.append(raw)
        msg: dict[str, Any] = json.loads(raw)
        if msg["type"] == "state":
            self.state = msg
        elif msg["type"] == "error":
            self.errors.append(msg)
        elif msg["type"] == "hint":
            self.hints.append(msg)
        return msg

    def drain(self) -> dict[str, Any]:
        """Everything sent to this socket so far (a socket's messages are answered in
        order); the last state."""
        self.ws.send('{"type":"ping"}')
        while self.read()["type"] != "pong":
            pass
        return self.state

    def until(self, kind: str) -> dict[str, Any]:
        """Read up to the next message of type `kind` (a hint, an error)."""
        while True:
            msg = self.read()
            if msg["type"] == kind:
                return msg
