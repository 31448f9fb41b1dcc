"""Web Push (docs/protocol-guide.md "Notifications"): the server's VAPID key pair, the
seats' subscriptions, and the messages sent when something waits for a seat nobody
has open.

Standard end to end, no third-party account: RFC 8292 (VAPID, `py_vapid`), RFC 8291
(`aes128gcm` of `cryptography`'s ECDH, HKDF and AES-GCM), RFC 8030 (the POST itself,
over kept connections, with `aiohttp` wherever it posts). Sending is off
the move's path: a change only puts a message in a bounded queue (full: the message is
dropped and counted, never a wait), and a few sender tasks post them with retries and
backoff, so a slow or dead push service never delays a move nor grows memory. The
sending is off the event loop too: batches of messages are encrypted, signed (one
VAPID JWT per push service for its 12 hours) and posted by a worker process of their
own at a lower priority (`thinking.worker_pool`), started at the first push; the loop
only hands a batch over and reads the answers back (a thread would hold the
interpreter's lock in the sending's Python). The server posts only to origins of
`HOLLYWOOD_GIN_PUSH_SERVICES`, never to an address a client chose (a request forgery
into the host's network), and follows no redirect.
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import contextlib
import ipaddress
import logging
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import aiohttp
import orjson
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from py_vapid import Vapid02  # type: ignore[import-untyped]

from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.table import Table, short
from hollywood_gin.tables.thinking import worker_pool
from hollywood_gin.tables.writer import Writer


class Registry(Protocol):
    """What of the registry (`hollywood_gin.tables.registry`) the pushes use."""

    hub: Hub
    writer: Writer

    def get(self, table_id: str) -> Table | None: ...

    async def find(self, table_id: str) -> Table | None: ...


log = logging.getLogger("hollywood_gin.push")

MAX_PER_SEAT = 5  # at most 5 per seat, the oldest dropped (docs/protocol-guide.md)
QUEUE_SIZE = 10_000  # messages waiting to be sent, at most (then dropped and counted)
SENDERS = 4  # messages in flight at once (on the loop: `inline`)
BATCH = 64  # messages handed to the worker process at once, at most
IN_FLIGHT = 16  # of a batch, posted at once by the worker
# A batch smaller than `BATCH` waits this long for more first: handing a batch over
# costs the worker about as much as sealing a message, and a notification 20 ms later
# is no later for a person.
GATHER_SECONDS = 0.02
ATTEMPTS = 3  # a message tried this often (5xx, 429, no answer), backing off
BACKOFF_SECONDS = 2.0  # 2 s, then 8 s
POST_TIMEOUT_SECONDS = 10.0
TTL_SECONDS = 24 * 3600  # a push service keeps an undelivered message a day at most
KINDS = ("your_move", "next_hand", "match_over", "deadline_soon")
# The actions that do not mean "something waits for you".
NOT_WAITING = frozenset({"resign", "claim", "stand_in"})
ANSWER_BYTES = 65_536  # of an answer's body, read at most (push services say little)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class BadSubscription(ValueError):
    """A subscription the server does not take; `code` is the wire error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class VapidKeys:
    """The server's VAPID key pair and its subject (RFC 8292)."""

    vapid: Any  # py_vapid.Vapid02
    public: bytes  # 65-byte uncompressed P-256 point
    subject: str
    # Per push service (its origin): the JWT's expiry and the header signed for it.
    signed: dict[str, tuple[int, str]] = field(default_factory=dict)
    private: str = ""  # base64url of the scalar: how a worker process signs

    @classmethod
    def from_private(cls, private_b64: str, subject: str) -> VapidKeys:
        vapid = Vapid02.from_raw(private_b64.encode())
        public = vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return cls(vapid, public, subject, private=private_b64)

    @property
    def key(self) -> str:
        return b64url(self.public)

    def claims(self, endpoint: str, now: float) -> tuple[str, dict[str, object] | None]:
        """`endpoint`'s push service (the JWT's `aud`) and the claims to sign for it,
        or None when a header signed for it has over an hour of its 12 left."""
        parts = urlsplit(endpoint)
        aud = f"{parts.scheme}://{parts.netloc}"
        kept = self.signed.get(aud)
        if kept is not None and kept[0] - now > 3600:
            return aud, None
        return aud, {"aud": aud, "exp": int(now) + 12 * 3600, "sub": self.subject}

    def keep(self, aud: str, claims: dict[str, object], header: str) -> str:
        """Keep `header`, signed for `claims`, for `aud`'s push service."""
        exp = claims["exp"]
        assert isinstance(exp, int)
        if len(self.signed) > 100:  # a handful of push services in practice
            self.signed.clear()
        self.signed[aud] = (exp, header)
        return header

    def authorization(self, endpoint: str, now: float) -> str:
        """`vapid t=JWT, k=K` for `endpoint`'s push service, valid 12 hours; one
        signature per push service is reused while it has over an hour left (RFC 8292
        lets a JWT serve until its `exp`), signed with the key parsed once."""
        aud, claims = self.claims(endpoint, now)
        if claims is None:
            return self.signed[aud][1]
        header: str = self.vapid.sign(claims)["Authorization"]
        return self.keep(aud, claims, header)


def new_private_key() -> str:
    """A fresh P-256 private key as base64url of its 32-byte scalar."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


class KeepsSecrets(Protocol):
    async def keep_secret(self, name: str, value: str) -> str: ...


def key_file(data_file: Path) -> Path:
    return data_file.with_name(data_file.name + ".vapid")


def keep_in_file(path: Path, value: str) -> str:
    """The key kept in `path` (0600, beside the data file); `value` written when none is."""
    with contextlib.suppress(FileNotFoundError):
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(value + "\n")
        f.flush()
        os.fsync(f.fileno())
    return value


async def load_keys(
    subject: str | None, given: str | None, store: object, data_file: Path
) -> VapidKeys | None:
    """The key pair: `given`, else the one kept with the data (made on first start);
    None when push is off (no subject)."""
    if subject is None:
        return None
    if given:
        return VapidKeys.from_private(given, subject)
    keep = getattr(store, "keep_secret", None)
    if keep is not None:  # PostgreSQL: in the database, one key for every worker
        private = await keep("vapid_private_key", new_private_key())
    else:  # the SQLite file: a file beside it, as private as the file itself
        private = await asyncio.to_thread(keep_in_file, key_file(data_file), new_private_key())
    return VapidKeys.from_private(private, subject)


# --- subscriptions ---------------------------------------------------------------


def _origin_allowed(scheme: str, host: str, port: int | None, entry: str) -> bool:
    parts = urlsplit(entry)
    want_host = (parts.hostname or "").lower()
    if parts.scheme != scheme or parts.port != port:
        return False
    if want_host.startswith("*."):
        return host.endswith(want_host[1:]) and len(host) > len(want_host) - 1
    return host == want_host


def check_endpoint(endpoint: str, services: Sequence[str]) -> None:
    """Refuse an endpoint outside the allowed push services (`push_service`)."""
    try:
        parts = urlsplit(endpoint)
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        raise BadSubscription("push_service", "not a push service address") from None
    if parts.username or parts.password or not host or parts.scheme not in ("https", "http"):
        raise BadSubscription("push_service", "not a push service address")
    allowed = any(_origin_allowed(parts.scheme, host, port, e) for e in services)
    if allowed and "*" not in "".join(services):
        return
    if allowed:
        # A wildcard entry never reaches an IP address (`*.push.apple.com` is a name).
        with contextlib.suppress(ValueError):
            ipaddress.ip_address(host)
            exact = any(urlsplit(e).hostname == host for e in services)
            if not exact:
                raise BadSubscription("push_service", "not a push service address")
        return
    raise BadSubscription("push_service", "this push service is not one the server posts to")


def subscription(body: JsonObject, lang: str, now: float) -> JsonObject:
    """The stored form of a browser's `PushSubscription.toJSON()`."""
    keys = body["keys"]
    assert isinstance(keys, dict)
    return {
        "endpoint": body["endpoint"],
        "p256dh": keys["p256dh"],
        "auth": keys["auth"],
        "lang": lang,
        "at": now,
    }


# --- sending ---------------------------------------------------------------------

Texts = Callable[[str, str, str], tuple[str, str]]


def english(lang: str, kind: str, name: str) -> tuple[str, str]:
    """The messages' words when the web layer gives none (tests of this layer)."""
    return {
        "your_move": ("Your move", f"{name} has moved."),
        "next_hand": ("Next hand", f"{name} is ready for the next hand."),
        "match_over": ("Match over", f"Your match with {name} is over."),
        "deadline_soon": ("Your move", f"Time is running out in your match with {name}."),
    }[kind]


def waiting_for(table: Table, seat: int) -> str | None:
    """What waits for `seat` now (a `kind`), or None."""
    if table.status == "match_over":
        return "match_over"
    kinds = {a.kind for a in table.match.legal(seat)} - NOT_WAITING
    if not kinds:
        return None
    if "next_hand" in kinds:
        return "next_hand"
    if "new_match" in kinds:
        return "match_over"
    return "your_move"


@dataclass
class Message:
    table_id: str
    seat: int
    endpoint: str
    p256dh: str
    auth: str
    plaintext: bytes
    attempt: int = 0


RECORD_SIZE = 4096  # RFC 8291's one record; a message is far smaller


def hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(hashes.SHA256(), length, salt, info).derive(ikm)


def encrypt(plaintext: bytes, p256dh: str, auth: str) -> bytes:
    """RFC 8291 `aes128gcm` for one subscription, a fresh sender key each time:
    `cryptography`'s ECDH, HKDF and AES-GCM, composed as the RFC's section 3.4 and
    RFC 8188's one record (http_ece did the same at twice the cost; the tests open
    every message with http_ece)."""
    receiver = unb64url(p256dh)
    secret = unb64url(auth)
    if len(plaintext) + 17 > RECORD_SIZE:
        raise ValueError("a push message is one record")
    sender = ec.generate_private_key(ec.SECP256R1())
    shared = sender.exchange(
        ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), receiver)
    )
    public = sender.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    ikm = hkdf(secret, shared, b"WebPush: info\x00" + receiver + public, 32)
    salt = os.urandom(16)
    key = hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
    nonce = hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
    # The last (only) record: the plaintext, its delimiter 2, no padding.
    sealed = AESGCM(key).encrypt(nonce, plaintext + b"\x02", None)
    return salt + RECORD_SIZE.to_bytes(4, "big") + bytes([len(public)]) + public + sealed


def headers_for(authorization: str) -> dict[str, str]:
    return {
        "Authorization": authorization,
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(TTL_SECONDS),
        "Urgency": "normal",
    }


def new_session(timeout: float = POST_TIMEOUT_SECONDS) -> aiohttp.ClientSession:
    """A client for its owner's life (the worker's, or `Pushes`' own when `inline`): up
    to `IN_FLIGHT` kept connections per push service, no proxy from the environment.
    Made on the loop it posts from."""
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=0, limit_per_host=IN_FLIGHT),
        timeout=aiohttp.ClientTimeout(total=timeout),
        trust_env=False,
    )


async def post(
    session: aiohttp.ClientSession, endpoint: str, body: bytes, headers: dict[str, str]
) -> int:
    """The push service's answer (0: none, in time). Never a redirect followed: the
    server posts only where `check_endpoint` let it. A kept connection the service
    closed meanwhile is replaced once (aiohttp retries no POST of its own)."""
    for attempt in (1, 2):
        try:
            async with session.post(
                endpoint, data=body, headers=headers, allow_redirects=False
            ) as answer:
                # Read (a little at most) so the connection is kept for the next.
                await answer.content.read(ANSWER_BYTES)
                return answer.status
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
            if attempt == 2 or isinstance(exc, aiohttp.ClientConnectorError):
                return 0
        except (aiohttp.ClientError, TimeoutError, OSError, ValueError):
            return 0
    return 0  # pragma: no cover - the loop returns


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop's where it is installed (the server's own loop): less of the worker's CPU
    a message than asyncio's."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - not on this platform
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


class _Worker:
    """The worker process's own: the key pair (its JWTs kept per push service), an
    event loop and a client kept between batches (connections kept alive)."""

    def __init__(self, private: str, subject: str) -> None:
        self.keys = VapidKeys.from_private(private, subject)
        self.loop = new_event_loop()
        self.session: aiohttp.ClientSession | None = None

    async def deliver(self, batch: Sequence[tuple[str, bytes, str, str]], now: float) -> list[int]:
        room = asyncio.Semaphore(IN_FLIGHT)
        if self.session is None:
            self.session = new_session()
        session = self.session

        async def one(endpoint: str, plaintext: bytes, p256dh: str, auth: str) -> int:
            try:
                body = encrypt(plaintext, p256dh, auth)
            except Exception:  # keys no browser made: this message can never go
                return -1
            header = self.keys.authorization(endpoint, now)
            async with room:
                return await post(session, endpoint, body, headers_for(header))

        return list(await asyncio.gather(*(one(*m) for m in batch)))


_worker: _Worker | None = None


def close_worker() -> None:
    """This process's worker session closed: at a benchmark's end, when the key pair
    changes, and when a worker process exits (`atexit`: the pool's processes are
    spawned and end through the interpreter's shutdown, where an open session would
    print "Unclosed client session" into the host's log at every stop)."""
    global _worker
    if _worker is not None and _worker.session is not None:
        _worker.loop.run_until_complete(_worker.session.close())
    _worker = None


atexit.register(close_worker)


def deliver(
    private: str,
    subject: str,
    batch: Sequence[tuple[str, bytes, str, str]],
    now: float | None = None,
) -> tuple[list[int], int]:
    """In the worker process: each (endpoint, plaintext, p256dh, auth) encrypted,
    signed and posted; the answers' statuses (0: none, -1: keys that cannot be used)
    and this process's id. `now`: the time the JWTs are signed for (`Pushes.clock`'s,
    so tests can move it); the worker's own clock by default."""
    global _worker
    if _worker is None or (_worker.keys.private, _worker.keys.subject) != (private, subject):
        close_worker()
        _worker = _Worker(private, subject)
    when = time.time() if now is None else now
    statuses = _worker.loop.run_until_complete(_worker.deliver(batch, when))
    return statuses, os.getpid()


class Pushes:
    """Told of every change, as the hub is: queues a message for each seat something
    newly waits for while it has no open connection; sender tasks post them."""

    def __init__(
        self,
        registry: Registry,
        keys: VapidKeys,
        *,
        texts: Texts = english,
        clock: Callable[[], float] = time.time,
        executor: Executor | None = None,
        inline: bool = False,
    ) -> None:
        """`executor`: where messages are sealed and posted (default: a worker process
        of its own, started at the first push); `inline`: on the loop instead, as
        before the worker (benchmarks compare)."""
        self.registry = registry
        self.keys = keys
        self.texts = texts
        self.clock = clock
        # `inline`: the client the senders post with, made on the loop at the first post.
        self.session: aiohttp.ClientSession | None = None
        self.queue: asyncio.Queue[Message] = asyncio.Queue(QUEUE_SIZE)
        self.inline = inline
        self._executor = executor
        self._own_executor = executor is None
        # The processes that sent something (tests, benchmarks).
        self.pids: set[int] = set()
        # (table, seat) -> what waits for it, already told: one message per new wait.
        self.told: dict[tuple[str, int], str] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.later: set[asyncio.TimerHandle] = set()
        self.sent = 0
        self.dropped = 0
        self.failed = 0
        self.gone = 0
        self.latencies: list[float] = []  # queue to answer, seconds (benchmarks read it)
        self._queued_at: dict[int, float] = {}

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        if self.inline:
            self.tasks = [loop.create_task(self._sender()) for _ in range(SENDERS)]
        else:
            self.tasks = [loop.create_task(self._deliverer())]

    async def close(self) -> None:
        for handle in self.later:
            handle.cancel()
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.session is not None:
            await self.session.close()
            self.session = None
        if self._own_executor and self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = worker_pool(1)
        return self._executor

    async def _off_loop(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in the worker; a worker that died is replaced for the next call."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.executor(), fn, *args)
        except BrokenProcessPool:
            if self._own_executor:
                self._executor = None
            raise

    # --- the listener (on the move's path: nothing here waits) ------------------
    def changed(self, table: Table, seats: Sequence[int] | None = None) -> None:
        if seats is not None:
            return  # one seat's own view (a card order): nothing new waits
        for seat, holder in enumerate(table.seats):
            if not holder.push or holder.computer is not None:
                continue
            kind = waiting_for(table, seat)
            key = (table.id, seat)
            if kind is None:
                self.told.pop(key, None)
                continue
            if self.told.get(key) == kind:
                continue  # the same wait (a draw, then the discard still asked)
            self.told[key] = kind
            if not self.registry.hub.connected(table.id, seat):
                self.notify(table, seat, kind)

    def arrived(self, table: Table) -> None:
        """A table newly held here (claimed from another worker, read back for its
        clock): what waits for its seats now was pushed where it came about, so it is
        noted, not pushed again."""
        for seat, holder in enumerate(table.seats):
            kind = waiting_for(table, seat) if holder.push and holder.computer is None else None
            if kind is not None:
                self.told[(table.id, seat)] = kind

    def deadline_soon(self, table: Table, seat: int) -> None:
        """A quarter of the seat's time is left (a table played over days: `Presence.soon`)."""
        holder = table.seats[seat]
        if holder.push and not self.registry.hub.connected(table.id, seat):
            self.notify(table, seat, "deadline_soon")

    def forget(self, table_id: str) -> None:
        for seat in (0, 1):
            self.told.pop((table_id, seat), None)

    def notify(self, table: Table, seat: int, kind: str) -> None:
        """Queue `kind` for each subscription of `seat` (dropped when the queue is full)."""
        other = table.seats[1 - seat].name if len(table.seats) == 2 else ""
        for sub in table.seats[seat].push:
            title, body = self.texts(str(sub.get("lang") or "en"), kind, other)
            payload = {
                "table": table.id,
                "kind": kind,
                "title": title,
                "body": body,
                "url": f"/t/{table.id}",
            }
            message = Message(
                table.id,
                seat,
                str(sub["endpoint"]),
                str(sub["p256dh"]),
                str(sub["auth"]),
                orjson.dumps(payload),
            )
            self._put(message)

    def _put(self, message: Message) -> None:
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning("push queue full: %d messages dropped", self.dropped)
            return
        self._queued_at[id(message)] = time.monotonic()

    # --- sending: batches to the worker (or, `inline`, on the loop) ---------------
    async def _deliverer(self) -> None:
        """Takes what waits in the queue (up to `BATCH`) to the worker, which seals,
        signs and posts it; then what each answer means, here."""
        while True:
            batch = [await self.queue.get()]
            if self.queue.qsize() < BATCH - 1:
                await asyncio.sleep(GATHER_SECONDS)
            while len(batch) < BATCH and not self.queue.empty():
                batch.append(self.queue.get_nowait())
            items = [(m.endpoint, m.plaintext, m.p256dh, m.auth) for m in batch]
            try:
                statuses, pid = await self._off_loop(
                    deliver, self.keys.private, self.keys.subject, items, self.clock()
                )
                self.pids.add(pid)
            except asyncio.CancelledError:
                raise
            except Exception:  # the worker died: each message is tried again later
                log.exception("handing %d push messages to the worker failed", len(batch))
                statuses = [0] * len(batch)
            for message, status in zip(batch, statuses, strict=True):
                await self._answered(message, status)

    async def _sender(self) -> None:
        while True:
            message = await self.queue.get()
            try:
                await self.send(message)
            except asyncio.CancelledError:
                raise
            except Exception:  # one message's failure never ends the sending
                log.exception("push to table %s failed", short(message.table_id))
                self._queued_at.pop(id(message), None)

    async def send(self, message: Message) -> None:
        """One message sealed, signed and posted here, on the loop (`inline`), by the
        worker's own `post`."""
        try:
            body = encrypt(message.plaintext, message.p256dh, message.auth)
        except Exception:
            await self._answered(message, -1)
            return
        header = self.keys.authorization(message.endpoint, self.clock())
        if self.session is None:
            self.session = new_session()
        status = await post(self.session, message.endpoint, body, headers_for(header))
        await self._answered(message, status)

    async def _answered(self, message: Message, status: int) -> None:
        """What the push service's answer means: sent, gone (404, 410: the subscription
        is deleted), tried again later (none, 429, 5xx) or never to go."""
        queued = self._queued_at.pop(id(message), None)
        if queued is not None and len(self.latencies) < 100_000:
            self.latencies.append(time.monotonic() - queued)
        try:
            if status in (404, 410):
                self.gone += 1
                await self.drop(message.table_id, message.seat, message.endpoint)
            elif 200 <= status < 300:
                self.sent += 1
            elif status == 0 or status == 429 or status >= 500:
                self._retry(message)
            else:  # keys unusable, 400, 401, 403, 413: it will never go; no retry
                self.failed += 1
                log.info("push to table %s refused: %d", short(message.table_id), status)
        except asyncio.CancelledError:
            raise
        except Exception:  # one message's failure never ends the sending
            log.exception("push to table %s failed", short(message.table_id))

    def _retry(self, message: Message) -> None:
        message.attempt += 1
        if message.attempt >= ATTEMPTS:
            self.failed += 1
            return
        delay = BACKOFF_SECONDS * 4 ** (message.attempt - 1)
        loop = asyncio.get_running_loop()

        def again() -> None:
            self.later.discard(handle)
            self._put(message)

        handle = loop.call_later(delay, again)
        self.later.add(handle)

    async def drop(self, table_id: str, seat: int, endpoint: str) -> None:
        """The push service says this subscription is gone: forget it. The table may
        have left memory since the message was queued (idle, or released by a shared
        store's worker): it is loaded again for this, as a request would (`find`), so
        the deletion is stored like any other change of the seats."""
        table = self.registry.get(table_id) or await self.registry.find(table_id)
        if table is not None and seat < len(table.seats):
            await remove(self.registry, table, seat, endpoint)


async def add(registry: Registry, table: Table, seat: int, sub: JsonObject) -> None:
    """Keep `sub` for `seat` (replacing one of the same endpoint; at most 5, the oldest
    dropped), stored with the seats."""

    def mutate() -> Callable[[], None]:
        holder = table.seats[seat]
        before = list(holder.push)
        kept = [s for s in holder.push if s.get("endpoint") != sub["endpoint"]]
        holder.push = [*kept, sub][-MAX_PER_SEAT:]

        def undo() -> None:
            holder.push = before

        return undo

    await registry.writer.change_seats(table, mutate)


async def remove(registry: Registry, table: Table, seat: int, endpoint: str) -> bool:
    """Forget the subscription of `endpoint` for `seat`; False: there was none."""
    found = False

    def mutate() -> Callable[[], None]:
        nonlocal found
        holder = table.seats[seat]
        before = list(holder.push)
        holder.push = [s for s in holder.push if s.get("endpoint") != endpoint]
        found = len(holder.push) != len(before)

        def undo() -> None:
            holder.push = before

        return undo

    await registry.writer.change_seats(table, mutate)
    return found
