"""The scale-out set-up on loopback: a throwaway PostgreSQL, N `python -m hollywood_gin` workers
sharing it, and a real HAProxy running the shipped `deploy/haproxy.cfg`.

The config is the shipped file itself: only its `server` lines are written for the
workers started here, and its addresses come from the environment, as in production.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from tests.conftest import PORT_TRIES, REPO, free_port, listens, port_of
from tests.e2e.test_socket_play import FAST, choose, new_table
from tests.postgres import Cluster, start_cluster
from tests.wire import playable

HAPROXY_CFG = REPO / "deploy" / "haproxy.cfg"
WORKERS_BLOCK = re.compile(
    r"(    # --- workers \(keep in step with `(\w+)`[^\n]*\n)(.*?)(    # --- end)", re.S
)


def haproxy_bin() -> str | None:
    return shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if os.path.exists("/usr/sbin/haproxy") else None
    )


def haproxy_config(names: list[str], tables_per_hour: int | None = None) -> str:
    """deploy/haproxy.cfg with one `server` line per worker (GIN_<NAME> addresses)."""
    text = HAPROXY_CFG.read_text()

    def servers(m: re.Match[str]) -> str:
        twin = m.group(2)  # the other backend's name: `any` lines sit in `tables`
        if twin == "any":
            lines = [
                f'    server {n} "${{GIN_{n.upper()}}}" id {i} check'
                for i, n in enumerate(names, 1)
            ]
        else:
            lines = [f'    server {n} "${{GIN_{n.upper()}}}" track tables/{n}' for n in names]
        return m.group(1) + "\n".join(lines) + "\n" + m.group(4)

    out, count = WORKERS_BLOCK.subn(servers, text)
    assert count == 2, "deploy/haproxy.cfg lost its worker markers"
    if os.geteuid() != 0:  # only root can chroot and change user
        out = re.sub(r"(?m)^    (user|group|chroot) .*\n", "", out)
    if tables_per_hour is not None:  # a load run from one address: its limits lifted
        out, lifted = re.subn(r"(sc_http_req_rate\(\d\)) gt 60\b", rf"\1 gt {tables_per_hour}", out)
        assert lifted == 1, "deploy/haproxy.cfg lost its new-tables limit"
        # And the per-client limits: the load client is one address with thousands
        # of sockets (connections per source, requests and sockets open at once).
        for limit in ("sc0_conn_cur gt 100", "sc1_trackers gt 100"):
            out, lifted = re.subn(rf"\b{limit}\b", limit.replace("100", "1000000"), out)
            assert lifted == 1, f"deploy/haproxy.cfg lost its limit {limit!r}"
    return out


@dataclass
class Worker:
    name: str
    port: int
    url: str
    log: Path
    proc: subprocess.Popen[bytes] | None = None
    # The tree whose package runs (`python -m` puts the working directory first on the
    # path): another version's checkout, for a benchmark that alternates versions.
    tree: Path = REPO

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, env: dict[str, str]) -> None:
        full = dict(os.environ)
        full.update(FAST)
        full.update(
            {
                "HOLLYWOOD_GIN_HOST": "127.0.0.1",
                "HOLLYWOOD_GIN_PORT": str(self.port),
                "HOLLYWOOD_GIN_DATABASE_URL": self.url,
                "HOLLYWOOD_GIN_DATA_FILE": str(self.log.parent / f"{self.name}.unused.sqlite3"),
                "HOLLYWOOD_GIN_LOG_LEVEL": "info",
                "HOLLYWOOD_GIN_TRUSTED_PROXIES": "127.0.0.1",
                "HOLLYWOOD_GIN_BOT_DELAY_SECONDS": "0",
                "HOLLYWOOD_GIN_TABLES_PER_HOUR_PER_ADDRESS": "100000",
                "HOLLYWOOD_GIN_TABLES_PER_MINUTE": "100000",
                # The load comes from one loopback address through the proxy.
                "HOLLYWOOD_GIN_HTTP_BURST": "10000000",
                "HOLLYWOOD_GIN_WS_CONNECTS_BURST": "10000000",
            }
        )
        full.update(env)
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "hollywood_gin"],
                cwd=self.tree,
                env=full,
                stdout=out,
                stderr=out,
            )
        wait_healthy(self.base, self.proc)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


class Exited(RuntimeError):
    """A process started for the test ended before it answered."""


def wait_healthy(base: str, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    """Until `proc` answers /healthz at `base` (an answer from another process holding
    the port is not its own: `conftest.listens`)."""
    deadline = time.monotonic() + timeout
    port = port_of(base)
    while True:
        if proc.poll() is not None:
            raise Exited(f"{base} exited with {proc.returncode}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(base + "/healthz", timeout=1).status_code == 200 and listens(
                proc.pid, port
            ):
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"{base} did not answer /healthz")
        time.sleep(0.05)


@dataclass
class Proxy:
    port: int
    root: Path
    workers: list[Worker]
    proc: subprocess.Popen[bytes] | None = None
    tables_per_hour: int | None = None
    # GIN_TRUSTED_PROXIES: none, HAProxy faces its clients (a TLS proxy in front: its address).
    trusted: str = ""
    # Lines added to the config's `global` section (a benchmark trying a setting).
    globals: tuple[str, ...] = ()
    # And to its `defaults` section (`option splice-auto`, ...).
    defaults: tuple[str, ...] = ()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        return self.root / "haproxy.log"

    def start(self) -> None:
        binary = haproxy_bin()
        assert binary is not None
        cfg = self.root / "haproxy.cfg"
        text = haproxy_config([w.name for w in self.workers], self.tables_per_hour)
        if self.globals:
            lines = "".join(f"    {g}\n" for g in self.globals)
            text = re.sub(r"(?m)^global\n", lambda m: m.group(0) + lines, text, count=1)
        if self.defaults:
            lines = "".join(f"    {d}\n" for d in self.defaults)
            text = re.sub(r"(?m)^defaults\n", lambda m: m.group(0) + lines, text, count=1)
        cfg.write_text(text)
        env = dict(os.environ)
        env["GIN_BIND"] = f"127.0.0.1:{self.port}"
        env["GIN_TRUSTED_PROXIES"] = self.trusted
        for w in self.workers:
            env[f"GIN_{w.name.upper()}"] = f"127.0.0.1:{w.port}"
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [binary, "-db", "-f", str(cfg)], env=env, stdout=out, stderr=out
            )
        wait_healthy(self.base, self.proc)

    def logged(self, text: str, timeout: float = 15) -> str:
        """The log once it holds `text`: HAProxy writes a request's line when the
        request ends, which a client that has its answer may see a moment before."""
        deadline = time.monotonic() + timeout
        while True:
            log = self.log.read_text(errors="replace")
            if text in log or time.monotonic() > deadline:
                return log
            time.sleep(0.05)

    def states(self, name: str) -> list[str]:
        """The worker's UP/DOWN transitions, as HAProxy logged them (it starts UP)."""
        text = self.log.read_text(errors="replace")
        return re.findall(rf"Server tables/{name} is (UP|DOWN)", text)

    def wait_state(self, name: str, state: str, seen: int, timeout: float = 15) -> float:
        """Wait for the worker's transition number `seen` + 1 to `state`; return when."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = self.states(name)
            if len(states) > seen and state in states[seen:]:
                return time.monotonic()
            time.sleep(0.05)
        raise RuntimeError(f"HAProxy never marked {name} {state}: {self.states(name)}")

    def downs(self) -> list[str]:
        return re.findall(r"Server tables/(\w+) is DOWN", self.log.read_text(errors="replace"))

    def requests(self) -> list[tuple[str, str]]:
        """(table id prefix, worker) of each request and socket to a table, in log order.

        HAProxy logs a table's path as `/t/{first 8 of its id}...` (never a whole id or a
        seat token): look a table up by `table_id[:8]`."""
        out = []
        for line in self.log.read_text(errors="replace").splitlines():
            m = re.search(r" tables/(\w+) .*\"[A-Z]+ (/\S*) HTTP", line)
            if m is None:
                continue
            parts = m.group(2).split("?")[0].split("/")
            index = 2 if parts[1] == "t" else 3
            if len(parts) > index and parts[index]:
                out.append((parts[index].removesuffix("..."), m.group(1)))
        return out

    def routes(self) -> dict[str, set[str]]:
        """For each table id prefix (`table_id[:8]`): the workers its requests and
        sockets reached (HAProxy's log)."""
        seen: dict[str, set[str]] = {}
        for table_id, worker in self.requests():
            seen.setdefault(table_id, set()).add(worker)
        return seen

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


@dataclass
class Scale:
    """PostgreSQL + workers + HAProxy, all on loopback."""

    pg: Cluster
    url: str
    workers: list[Worker]
    proxy: Proxy

    def worker(self, name: str) -> Worker:
        return next(w for w in self.workers if w.name == name)

    async def sql(self, query: str, *args: Any) -> list[dict[str, Any]]:
        import asyncpg

        con = await asyncpg.connect(self.url)
        try:
            return [dict(r) for r in await con.fetch(query, *args)]
        finally:
            await con.close()

    def query(self, query: str, *args: Any) -> list[dict[str, Any]]:
        return asyncio.run(self.sql(query, *args))

    def owners(self) -> dict[str, tuple[str, int]]:
        return asyncio.run(self.aowners())

    async def aowners(self) -> dict[str, tuple[str, int]]:
        """Each table's owner (worker name, by its pid in the owner's name) and epoch."""
        names = {str(w.proc.pid): w.name for w in self.workers if w.proc is not None}
        rows = await self.sql("SELECT id, owner, owner_epoch FROM tables")
        return {
            r["id"]: (names.get((r["owner"] or "::").split(":")[1], "?"), r["owner_epoch"])
            for r in rows
        }

    def story(self, table_id: str) -> str:
        """What a failed test needs to explain a table: each worker's log lines naming
        it, and its owner, epoch and last stored seq now."""
        lines = [
            f"{w.name}: {line}"
            for w in self.workers
            if w.log.exists()
            for line in w.log.read_text(errors="replace").splitlines()
            if table_id[:8] in line
        ]
        rows = self.query(
            "SELECT t.owner, t.owner_epoch, t.base_seq, max(e.seq) AS top FROM tables t"
            " LEFT JOIN events e ON e.table_id = t.id WHERE t.id = $1"
            " GROUP BY t.owner, t.owner_epoch, t.base_seq",
            table_id,
        )
        pids = {w.name: w.proc.pid for w in self.workers if w.proc is not None}
        return "\n".join([f"table {table_id} store {rows} workers {pids}", *lines[-80:]])

    def forked(self) -> list[str]:
        """Tables whose log is not gap-free: count != max(seq) - base + 1."""
        rows = self.query(
            "SELECT t.id, count(e.seq) AS n, max(e.seq) AS top, t.base_seq AS base"
            " FROM tables t LEFT JOIN events e ON e.table_id = t.id AND e.seq >= t.base_seq"
            " GROUP BY t.id, t.base_seq"
        )
        return [
            r["id"]
            for r in rows
            if r["n"] != (r["top"] if r["top"] is not None else -1) - r["base"] + 1
        ]


def first_start(process: Worker | Proxy, start: Callable[[], None]) -> None:
    """`start()`; when the process exits first (the port `free_port` picked was taken
    before it bound it), again on another port, PORT_TRIES in all. Only a first
    start: a restart keeps its port (HAProxy's configuration names it)."""
    for tries_left in range(PORT_TRIES - 1, -1, -1):
        try:
            start()
            return
        except Exited:
            if not tries_left:
                raise
            process.stop()
            process.port = free_port()


def start_scale(
    pg: Cluster,
    root: Path,
    names: list[str],
    url: str,
    env: dict[str, str] | None = None,
    trusted: str = "",
) -> Scale:
    """`env`: the workers' settings over the harness's; `trusted`: HAProxy's
    GIN_TRUSTED_PROXIES (a TLS proxy in front of it)."""
    workers = [Worker(n, free_port(), url, root / f"{n}.log") for n in names]
    proxy = Proxy(free_port(), root, workers, trusted=trusted)
    try:
        for w in workers:
            first_start(w, lambda w=w: w.start(env or {}))
        first_start(proxy, proxy.start)
    except BaseException:
        proxy.stop()
        for w in workers:
            w.stop()
        raise
    return Scale(pg, url, workers, proxy)


# --- players that survive reconnects ---------------------------------------------


@dataclass
class Seat:
    """One seat of one table, played through the proxy, reconnecting on any close."""

    base: str
    table_id: str
    seat: int
    token: str
    rng: Any
    versions: list[tuple[float, int]] = field(default_factory=list)
    # Each version's public facts as this seat saw them (for "never a version that
    # later disappears": two sightings of one version must agree).
    facts: dict[int, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    closes: list[int | None] = field(default_factory=list)
    sent: int = 0
    # Sockets opened through the proxy (each is a line of HAProxy's log once closed).
    connects: int = 0
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    done: bool = False

    @property
    def version(self) -> int:
        return self.versions[-1][1] if self.versions else 0

    async def run(self, pace: float = 0.0) -> None:
        while not self.stop.is_set() and not self.done:
            try:
                async with connect_seat(self.base, self.table_id, self.token) as ws:
                    self.connects += 1
                    await ws.send(
                        json.dumps({"type": "hello", "token": self.token, "version": self.version})
                    )
                    await self._play(ws, pace)
            # InvalidHandshake covers a refused upgrade (InvalidStatus) and a connection
            # HAProxy closes before any response while a worker dies (InvalidMessage).
            except (OSError, ConnectionClosed, InvalidHandshake, InvalidURI, TimeoutError) as exc:
                code = getattr(getattr(exc, "rcvd", None), "code", None)
                self.closes.append(code)
            if not self.stop.is_set() and not self.done:
                await asyncio.sleep(0.2)

    async def _play(self, ws: ClientConnection, pace: float) -> None:
        acted_on = -1
        pending: dict[str, Any] | None = None
        refused = False  # the pending action met a server_error: resend it in a lull
        while not self.stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                if pending is not None and refused:  # refused with server_error: resend it
                    await ws.send(json.dumps(pending))
                continue
            msg = json.loads(raw)
            if msg["type"] == "error":
                self.errors.append(msg["code"])
                refused = msg["code"] == "server_error"
                if not refused:
                    pending = None
                # An error does not say which action it answers, so the next state is
                # acted on even at a version acted on already (after a stale_version the
                # server sends the present). Before, a stale_version that answered an
                # earlier duplicate dropped the action in flight; when that action then
                # met the outage's server_error, nothing was left to resend: stuck.
                acted_on = -1
                continue
            if msg["type"] != "state" or msg.get("you") != self.seat:
                continue
            version = msg["version"]
            hand = msg.get("hand") or {}
            fact = json.dumps(
                [
                    hand.get("last_action"),
                    hand.get("discard_top"),
                    hand.get("stock_count"),
                    msg["sheet"]["totals"],
                ]
            )
            assert self.facts.setdefault(version, fact) == fact, (self.table_id, version)
            assert version >= self.version, (
                f"{self.table_id}: version {version} after {self.version}"
            )
            self.versions.append((time.monotonic(), version))
            pending = None
            if msg["table"]["status"] == "match_over":
                self.done = True
                return
            if playable(msg["legal"]) and version != acted_on:
                acted_on = version
                if pace:
                    await asyncio.sleep(pace)
                pending = {"type": "action", "version": version, "action": choose(msg, self.rng)}
                refused = False
                await ws.send(json.dumps(pending))
                self.sent += 1


def connect_seat(base: str, table_id: str, token: str) -> Any:
    url = base.replace("http://", "ws://") + f"/ws/tables/{table_id}"
    headers = {"Cookie": f"gin_seat_{table_id}={token}"}
    return connect(
        url, additional_headers=headers, origin=None, proxy=None, open_timeout=3, close_timeout=1
    )


def new_tables(base: str, count: int) -> list[tuple[str, str, str]]:
    return [new_table(base, rules="standard", scoring="hollywood") for _ in range(count)]


@contextlib.contextmanager
def running_scale(
    prefix: str, env: dict[str, str] | None = None, trusted: str = ""
) -> Iterator[Scale]:
    """A throwaway PostgreSQL, two workers and HAProxy, all stopped and removed after
    (kept with GIN_SCALE_KEEP set, to read the workers' and HAProxy's logs)."""
    if haproxy_bin() is None:
        if os.environ.get("CI"):
            raise RuntimeError("HAProxy is not installed (.ci/run installs it)")
        pytest.skip("HAProxy is not installed (apt-get install haproxy)")
    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o755)  # the cluster inside runs as `postgres` when we are root
    pg = start_cluster(root / "pg")
    try:
        s = start_scale(pg, root, ["w1", "w2"], pg.url, env=env, trusted=trusted)
        try:
            yield s
        finally:
            s.proxy.stop()
            for w in s.workers:
                w.stop()
    finally:
        pg.stop("immediate")
        if os.environ.get("GIN_SCALE_KEEP"):
            print(f"scale logs kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
