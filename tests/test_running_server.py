"""`running_server` (tests/conftest.py) starts the server on a port `free_port` picked
and closed again: another process may take the port before the server binds it. The
server that cannot bind exits, and it is started again on another port; an answer on
the port from the process that took it is never taken for the server's."""

from __future__ import annotations

import errno
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest

import tests.conftest
from tests.conftest import closed_port, listens, running_server


class Impostor(BaseHTTPRequestHandler):
    """Answers /healthz as the server would, with a body the server never sends."""

    def do_GET(self) -> None:
        body = b'{"ok":true,"impostor":true}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port another process's server holds (here, a thread's)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Impostor)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


def test_a_port_taken_before_the_server_binds_it_is_given_up_for_another(
    tmp_path: Path, taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    picks = iter([taken_port])
    real = tests.conftest.free_port
    monkeypatch.setattr(tests.conftest, "free_port", lambda: next(picks, None) or real())
    with running_server(tmp_path / "t.sqlite3") as (base, proc):
        assert base != f"http://127.0.0.1:{taken_port}"
        assert "impostor" not in httpx.get(base + "/healthz", timeout=5).text
        port = int(base.rsplit(":", 1)[1])
        assert listens(proc.pid, port) and not listens(proc.pid, taken_port)


def test_the_test_clusters_port_taken_before_it_binds_is_given_up_for_another(
    taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for the throwaway PostgreSQL cluster (`tests.postgres`)."""
    import tests.postgres

    picks = iter([taken_port])
    real = tests.conftest.free_port
    monkeypatch.setattr(tests.postgres, "free_port", lambda: next(picks, None) or real())
    root = Path(tempfile.mkdtemp(prefix="gin-pg-"))  # the cluster's user may enter it
    try:
        cluster = tests.postgres.start_cluster(root)
        try:
            assert cluster.port != taken_port and str(cluster.port) in cluster.url
            pid = int((cluster.data / "postmaster.pid").read_text().split()[0])
            assert listens(pid, cluster.port)
        finally:
            cluster.stop("immediate")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_a_closed_port_refuses_connections_and_cannot_be_taken_meanwhile() -> None:
    """`closed_port`: where the tests point a client at "nothing listens there"."""
    with closed_port() as port:
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=5)
        with pytest.raises(OSError) as taken:
            socket.create_server(("127.0.0.1", port))  # as a server binds (SO_REUSEADDR)
        assert taken.value.errno == errno.EADDRINUSE
