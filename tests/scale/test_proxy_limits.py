"""The shipped `deploy/haproxy.cfg` bounds its clients
(docs/scale-out.md "What the proxy bounds"): a real HAProxy in
front of two workers and a throwaway PostgreSQL, HAProxy told that 127.0.0.1 is a
TLS proxy in front of it (GIN_TRUSTED_PROXIES), as on a host behind Caddy or nginx.
Clients from 127.0.0.1 are players behind that proxy (X-Forwarded-For names them);
clients from 127.0.0.2 and 127.0.0.3 reach HAProxy directly.

The workers run with their default request rates (20 a second per address), so a
crowd counted as one address would meet 429s.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.test_socket_play import new_table
from tests.scale.cluster import Scale, running_scale

pytestmark = pytest.mark.timeout(120)

DIRECT = "127.0.0.2"
DIRECT_2 = "127.0.0.3"


@pytest.fixture(scope="module")
def scale() -> Iterator[Scale]:
    env = {
        "HOLLYWOOD_GIN_HTTP_BURST": "20",
        "HOLLYWOOD_GIN_METRICS": "true",
        "HOLLYWOOD_GIN_TABLES_PER_HOUR_PER_ADDRESS": "100000",
    }
    with running_scale("gin-limits-", env=env, trusted="127.0.0.1") as s:
        yield s


def client(base: str, local: str = "127.0.0.1", **kw: object) -> httpx.Client:
    transport = httpx.HTTPTransport(local_address=local, retries=0)
    return httpx.Client(base_url=base, transport=transport, timeout=15, **kw)  # type: ignore[arg-type]


def encoded(table_id: str) -> str:
    """The id with its first character percent-encoded (the same id to the app)."""
    return f"%{ord(table_id[0]):02X}{table_id[1:]}"


def epoch(scale: Scale, table_id: str) -> int:
    return int(
        scale.query("SELECT owner_epoch FROM tables WHERE id = $1", table_id)[0]["owner_epoch"]
    )


def test_an_encoded_table_id_is_refused_and_never_moves_the_table(scale: Scale) -> None:
    base = scale.proxy.base
    table_id, _, _ = new_table(base)
    with client(base) as http:
        assert http.get(f"/api/tables/{table_id}").status_code == 200
        before = epoch(scale, table_id)
        for path in (
            f"/api/tables/{encoded(table_id)}",
            f"/t/{encoded(table_id)}",
            f"/api/tables/{table_id}%2F",
            f"/api/tables/{table_id[:-1]}%{ord(table_id[-1]):02x}/seats",
        ):
            for _ in range(5):
                r = http.get(path)
                assert r.status_code == 404, (path, r.status_code)
                assert r.json()["error"] == "unknown_table"
        r = http.post(f"/api/tables/{encoded(table_id)}/seats", json={})
        assert r.status_code == 404
        assert http.get(f"/api/tables/{table_id}").status_code == 200
    # Nobody claimed it: the same owner at the same epoch.
    assert epoch(scale, table_id) == before
    # The workers refuse it too, when reached without the proxy.
    for w in scale.workers:
        r = httpx.get(f"{w.base}/api/tables/{encoded(table_id)}", timeout=5)
        assert r.status_code == 404 and r.json()["error"] == "unknown_table"
    assert epoch(scale, table_id) == before


def test_players_behind_the_tls_proxy_are_counted_one_by_one(scale: Scale) -> None:
    """40 players load a table page and its assets through the TLS proxy (127.0.0.1):
    each is counted by its forwarded address, by HAProxy and by the workers."""
    base = scale.proxy.base
    table_id, _, _ = new_table(base)
    statuses: list[int] = []
    for n in range(40):
        headers = {"X-Forwarded-For": f"198.51.100.{n + 1}"}
        with client(base, headers=headers) as http:
            for _ in range(3):
                statuses.append(http.get(f"/t/{table_id}").status_code)
                statuses.append(http.get(f"/api/tables/{table_id}").status_code)
                statuses.append(http.get("/").status_code)
    assert statuses.count(429) == 0 and all(s < 400 for s in statuses)
    # One player alone still meets the workers' rate.
    with client(base, headers={"X-Forwarded-For": "198.51.100.200"}) as http:
        alone = [http.get(f"/api/tables/{table_id}").status_code for _ in range(60)]
    assert 429 in alone


def test_new_tables_count_the_forwarded_client_and_a_direct_client_cannot_forge_it(
    scale: Scale,
) -> None:
    base = scale.proxy.base
    body = {"name": "Ann"}

    def paced(http: httpx.Client, headers: dict[str, str] | None = None) -> int:
        # Under the workers' own request rate (20 a second each, HTTP_BURST 20 here):
        # this test is about HAProxy's count of new tables, which that rate would
        # otherwise cut short on a fast machine ("too many requests" at the 40th-58th).
        time.sleep(0.06)
        return http.post("/api/tables", json=body, headers=headers).status_code

    with client(base, headers={"X-Forwarded-For": "203.0.113.7"}) as http:
        answers = [paced(http) for _ in range(61)]
    assert answers[:60] == [201] * 60 and answers[60] == 429
    # Another player behind the same TLS proxy is not held by the first one's count.
    with client(base, headers={"X-Forwarded-For": "203.0.113.8"}) as http:
        assert http.post("/api/tables", json=body).status_code == 201
    # A direct client's own X-Forwarded-For is dropped: it is counted as itself, so
    # naming a fresh address each time does not get round the count.
    with client(base, local=DIRECT) as http:
        direct = [paced(http, {"X-Forwarded-For": f"192.0.2.{n}"}) for n in range(61)]
    assert direct[:60] == [201] * 60 and direct[60] == 429


def test_the_access_log_holds_no_seat_token_and_no_whole_table_id(scale: Scale) -> None:
    base = scale.proxy.base
    with client(base) as http:
        made = http.post("/api/tables", json={"name": "Ann"}).json()
        table_id, token = made["table_id"], made["token"]
        assert http.get(f"/t/{table_id}/seat/{token}").status_code == 200
        r = http.post(f"/t/{table_id}/seat/{token}", follow_redirects=False)
        assert r.status_code == 303
    seat = f"/t/{table_id[:8]}.../seat"
    log = scale.proxy.logged(f'"POST {seat}')
    assert f'"GET {seat}' in log and f'"POST {seat}' in log
    assert token not in log and token[:16] not in log
    assert table_id not in log


def test_metrics_stay_inside(scale: Scale) -> None:
    base = scale.proxy.base
    with client(base) as http:
        for path in ("/metrics", "/%6Detrics", "/metrics/"):
            assert http.get(path).status_code == 404, path
    # The workers' own network still reads them.
    assert httpx.get(scale.workers[0].base + "/metrics", timeout=5).status_code == 200
    # Through the proxy (X-Forwarded-For from a trusted peer) a worker refuses too.
    r = httpx.get(
        scale.workers[0].base + "/metrics", headers={"X-Forwarded-For": "1.2.3.4"}, timeout=5
    )
    assert r.status_code == 404


def test_a_body_over_the_limit_is_refused_at_the_proxy(scale: Scale) -> None:
    with client(scale.proxy.base, local=DIRECT) as http:
        r = http.post(
            "/api/tables",
            content=b"{" + b" " * 5000 + b"}",
            headers={"content-type": "application/json"},
        )
    assert r.status_code == 413 and r.json()["error"] == "too_large"


def raw_connect(port: int, local: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(local, 0))
    return s


def test_one_source_holds_at_most_100_connections(scale: Scale) -> None:
    port = scale.proxy.port
    held: list[socket.socket] = []
    try:
        for _ in range(100):
            s = raw_connect(port, DIRECT)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # never finished
            held.append(s)
        time.sleep(0.3)
        assert len(held) == 100
        answer = b""
        with contextlib.suppress(ConnectionResetError, BrokenPipeError):
            extra = raw_connect(port, DIRECT)
            extra.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = extra.recv(100)
            extra.close()
        assert answer == b""  # closed (or reset), never answered
        # Another client is served meanwhile.
        with client(scale.proxy.base, local=DIRECT_2) as http:
            assert http.get("/healthz").status_code == 200
    finally:
        for s in held:
            s.close()


def test_a_slow_body_is_cut_by_the_request_timeout(scale: Scale) -> None:
    """`timeout http-request` with `option http-buffer-request`: a body sent a byte
    every second is cut with 408 (the test gives up after 40 s)."""
    s = raw_connect(scale.proxy.port, DIRECT_2)
    answer = b""
    try:
        s.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        s.settimeout(1)
        for _ in range(40):
            try:
                answer = s.recv(4096)
                break
            except TimeoutError:
                s.sendall(b" ")
    except OSError:
        pass
    finally:
        s.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:80]


def test_haproxy_drops_root_inside_its_chroot(scale: Scale) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can chroot and change user")
    assert scale.proxy.proc is not None
    status = Path(f"/proc/{scale.proxy.proc.pid}/status").read_text()
    uids = next(line for line in status.splitlines() if line.startswith("Uid:")).split()[1:]
    assert {int(u) for u in uids} == {pwd.getpwnam("haproxy").pw_uid}
    root = Path(f"/proc/{scale.proxy.proc.pid}/root")
    assert os.readlink(root) == "/var/lib/haproxy"


def test_sockets_still_play_through_the_limits(scale: Scale) -> None:
    from tests.scale.cluster import Seat

    base = scale.proxy.base
    table_id, token0, token1 = new_table(base)
    import random

    seats = [
        Seat(base, table_id, 0, token0, random.Random(1)),
        Seat(base, table_id, 1, token1, random.Random(2)),
    ]

    async def play() -> None:
        tasks = [asyncio.create_task(s.run(0.0)) for s in seats]
        await asyncio.sleep(2.0)
        for s in seats:
            s.stop.set()
        await asyncio.gather(*tasks)

    asyncio.run(play())
    assert max(s.version for s in seats) > 5
