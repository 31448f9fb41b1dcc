"""A Web Push service on loopback for the push tests (RFC 8030's receiving end): it
keeps every request, answers each path as the test says, checks the VAPID JWT
(RFC 8292) against the server's public key and opens each message with the
subscriber's private keys (RFC 8291 `aes128gcm`, by `http_ece`: an implementation
that is not the server's)."""

from __future__ import annotations

import base64
import json
import os
import queue
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece  # type: ignore[import-untyped]
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def vapid_claims(authorization: str, key: str, origin: str, subject: str) -> dict[str, Any]:
    """The claims of a `vapid t=JWT, k=KEY` header once its ES256 signature is checked
    against the server's public `key`, for the push service at `origin`."""
    scheme, _, params = authorization.partition(" ")
    assert scheme == "vapid"
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    assert parts["k"] == key
    signed, _, signature = parts["t"].rpartition(".")
    raw = unb64(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
    public.verify(der, signed.encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    header, claims = (json.loads(unb64(p)) for p in signed.split("."))
    assert header["alg"] == "ES256"
    assert claims["aud"] == origin and claims["sub"] == subject
    return claims  # type: ignore[no-any-return]


@dataclass
class Subscriber:
    """A browser's side of one subscription: its keys and where its service lives."""

    path: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def p256dh(self) -> str:
        public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64(public)

    def json(self, origin: str, **extra: Any) -> dict[str, Any]:
        """What the page posts: the browser's `PushSubscription.toJSON()`."""
        return {
            "endpoint": origin + self.path,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh(), "auth": b64(self.auth)},
            **extra,
        }

    def stored(self, origin: str) -> dict[str, Any]:
        """The seat's kept form (`push.subscription`), for `Pushes` without a server."""
        return {"endpoint": origin + self.path, "p256dh": self.p256dh(), "auth": b64(self.auth)}

    def decrypt(self, body: bytes) -> bytes:
        return bytes(
            http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm")
        )


class PushService:
    """A push service on loopback, in threads of this process: keeps each request in
    `received`, answers `status[path]` (201 unless told). The port is the kernel's
    pick, bound before anyone is told of it (no race with another test's server)."""

    def __init__(self, subject: str) -> None:
        self.subject = subject
        self.subscribers: dict[str, Subscriber] = {}
        self.status: dict[str, int] = {}
        # A path whose answer waits until its event is set (the test chooses when).
        self.holds: dict[str, threading.Event] = {}
        self.received: queue.Queue[dict[str, Any]] = queue.Queue()
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # kept connections, as push services keep them

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                service.received.put(
                    {"path": self.path, "headers": dict(self.headers), "body": body}
                )
                hold = service.holds.get(self.path)
                if hold is not None:
                    hold.wait(30)
                self.send_response(service.status.get(self.path, 201))
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = int(self.server.server_address[1])
        self.origin = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def subscriber(self, path: str) -> Subscriber:
        self.subscribers[path] = Subscriber(path)
        return self.subscribers[path]

    def next(self, timeout: float = 20) -> dict[str, Any]:
        return self.received.get(timeout=timeout)

    def taken(self) -> list[dict[str, Any]]:
        """Every request received so far, in the order they came."""
        out = []
        while not self.received.empty():
            out.append(self.received.get_nowait())
        return out

    def claims(self, got: dict[str, Any], server_key: str) -> dict[str, Any]:
        """The checked claims of a request's VAPID header."""
        headers = {k.lower(): v for k, v in got["headers"].items()}
        return vapid_claims(headers["authorization"], server_key, self.origin, self.subject)

    def open(self, got: dict[str, Any], server_key: str) -> dict[str, Any]:
        """Check the request's headers and VAPID JWT, and decrypt its body."""
        headers = {k.lower(): v for k, v in got["headers"].items()}
        assert headers["content-encoding"] == "aes128gcm"
        assert int(headers["ttl"]) > 0
        claims = self.claims(got, server_key)
        assert time.time() < claims["exp"] <= time.time() + 24 * 3600
        message: dict[str, Any] = json.loads(self.subscribers[got["path"]].decrypt(got["body"]))
        return message

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
