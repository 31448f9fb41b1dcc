"""`hollywood-gin check` against a real PostgreSQL that asks for a password the way
Debian's default `pg_hba.conf` does on TCP (`scram-sha-256`), and the two ways
docs/scale-out.md gives the password: in the URL, or in a `.pgpass` file.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hollywood_gin.cli import main
from tests.postgres import Cluster, start_cluster

PASSWORD = "Correct-Horse-7"


@pytest.fixture(scope="module")
def scram() -> Iterator[Cluster]:
    asyncpg = pytest.importorskip("asyncpg")
    root = Path(tempfile.mkdtemp(prefix="gin-pg-scram-"))
    try:
        cluster = start_cluster(root)
        try:

            async def set_password() -> None:
                con = await asyncpg.connect(cluster.url)
                await con.execute("SET password_encryption = 'scram-sha-256'")
                await con.execute(f"ALTER ROLE gin PASSWORD '{PASSWORD}'")
                await con.close()

            asyncio.run(set_password())
            # Debian's default for TCP connections, as its postgresql package writes it.
            hba = cluster.data / "pg_hba.conf"
            hba.write_text("host all all 127.0.0.1/32 scram-sha-256\n")
            cluster.run(str(cluster.bindir / "pg_ctl"), "-D", str(cluster.data), "reload")
            yield cluster
        finally:
            cluster.stop("immediate")
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith(("HOLLYWOOD_GIN_", "PG")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))  # no ~/.pgpass but the test's own
    return tmp_path


def check(url: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("HOLLYWOOD_GIN_DATABASE_URL", url)
    return main(["check"])


def test_without_a_password_check_says_unreachable(
    scram: Cluster,
    clean_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = f"postgresql://gin@127.0.0.1:{scram.port}/gin"
    # Until the hba reload is in force a password-less login may still get through.
    for _ in range(50):
        if check(url, monkeypatch) == 1:
            break
        capsys.readouterr()
        time.sleep(0.1)
    out = capsys.readouterr().out
    assert "unreachable" in out and "password" in out.lower(), out


def test_a_password_in_the_url_or_in_pgpass_gets_in(
    scram: Cluster,
    clean_env: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with_password = f"postgresql://gin:{PASSWORD}@127.0.0.1:{scram.port}/gin"
    assert check(with_password, monkeypatch) == 0
    out = capsys.readouterr().out
    assert f"postgresql://gin:***@127.0.0.1:{scram.port}/gin: reachable" in out
    assert PASSWORD not in out
    # docs/scale-out.md: the line in the service user's ~/.pgpass, mode 0600.
    pgpass = clean_env / ".pgpass"
    pgpass.write_text(f"127.0.0.1:{scram.port}:gin:gin:{PASSWORD}\n")
    pgpass.chmod(0o600)
    assert check(f"postgresql://gin@127.0.0.1:{scram.port}/gin", monkeypatch) == 0
    assert "reachable, PostgreSQL" in capsys.readouterr().out
