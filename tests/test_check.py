"""`hollywood-gin check` checks what the server will use: it connects to the
store, names every unknown `HOLLYWOOD_GIN_*` variable with the nearest setting, prints
the effective public URL, hosts, proxies, store and limits, and exits non-zero on any
problem. An empty or foreign data file is refused, by `check` and by `serve`, untouched.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from hollywood_gin.cli import main
from hollywood_gin.config import Settings, unknown_variables
from hollywood_gin.main import create_app
from hollywood_gin.tables.push import keep_in_file, key_file, new_private_key
from hollywood_gin.tables.sqlite_file import UnusableFile
from hollywood_gin.tables.sqlite_store import SqliteStore
from tests.conftest import REPO, closed_port, free_port, run_gin, serving
from tests.tables.test_store_damage import make_tables


@pytest.fixture
def data_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("HOLLYWOOD_GIN_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no .env of the repository's
    path = tmp_path / "tables.sqlite3"
    monkeypatch.setenv("HOLLYWOOD_GIN_DATA_FILE", str(path))
    return path


def test_check_prints_the_effective_settings(
    data_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOLLYWOOD_GIN_PUBLIC_URL", "https://gin.example.org/")
    monkeypatch.setenv("HOLLYWOOD_GIN_ALLOWED_HOSTS", "gin.example.net")
    monkeypatch.setenv("HOLLYWOOD_GIN_TRUSTED_PROXIES", "10.0.0.0/8")
    monkeypatch.setenv("HOLLYWOOD_GIN_MAX_SPECTATORS", "7")
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert "settings: ok" in out
    assert "public URL: https://gin.example.org\n" in out
    assert "hosts answered: gin.example.net, gin.example.org\n" in out  # no IP literals
    assert "trusted proxies: 10.0.0.0/8" in out
    assert f"store: SQLite file {data_file}" in out
    assert "HOLLYWOOD_GIN_MAX_SPECTATORS=7" in out and "HOLLYWOOD_GIN_WS_BURST=30" in out


def test_check_says_whether_push_is_on_and_never_prints_its_key(
    data_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check"]) == 0
    assert "notifications (Web Push): off: set HOLLYWOOD_GIN_VAPID_SUBJECT" in (
        capsys.readouterr().out
    )
    monkeypatch.setenv("HOLLYWOOD_GIN_PUBLIC_URL", "https://gin.example.org/")
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert "notifications (Web Push): on, subject https://gin.example.org," in out
    assert f"{data_file}.vapid (made on first start)" in out
    secret = "c2VjcmV0LWtleS1ub3QtdG8tYmUtcHJpbnRlZC1ldmVy"
    monkeypatch.setenv("HOLLYWOOD_GIN_VAPID_PRIVATE_KEY", secret)
    monkeypatch.setenv("HOLLYWOOD_GIN_VAPID_SUBJECT", "mailto:ops@example.org")
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert "on, subject mailto:ops@example.org, the key of HOLLYWOOD_GIN_VAPID_PRIVATE_KEY" in out
    assert secret not in out


def test_check_names_a_misspelled_variable_and_fails(
    data_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOLLYWOOD_GIN_PUBLIC_ULR", "https://gin.example.org")
    assert main(["check"]) == 2
    out = capsys.readouterr().out
    assert (
        "unknown setting HOLLYWOOD_GIN_PUBLIC_ULR (ignored): did you mean HOLLYWOOD_GIN_PUBLIC_URL?"
        in out
    )
    assert "public URL: none" in out  # the misspelled one really is ignored
    monkeypatch.delenv("HOLLYWOOD_GIN_PUBLIC_ULR")
    # In .env as well, where a typo is as easy.
    (data_file.parent / ".env").write_text("HOLLYWOOD_GIN_TRUSTED_PROXY=127.0.0.1\n")
    assert main(["check"]) == 2
    assert "did you mean HOLLYWOOD_GIN_TRUSTED_PROXIES?" in capsys.readouterr().out


def test_unknown_variables_spares_the_settings_and_the_test_tools() -> None:
    env = {
        "HOLLYWOOD_GIN_PORT": "1",
        "hollywood_gin_log_level": "info",  # settings are read case-blind
        "HOLLYWOOD_GIN_CHROMIUM": "/usr/bin/chromium",
        "HOLLYWOOD_GIN_NONSENSE_WORD": "x",
        "OTHER": "y",
    }
    [warning] = unknown_variables(env, env_file=None)
    assert "HOLLYWOOD_GIN_NONSENSE_WORD" in warning and "did you mean" not in warning


def test_check_fails_on_an_unreachable_database(
    data_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("asyncpg")
    with closed_port() as port:  # nothing listens there
        monkeypatch.setenv(
            "HOLLYWOOD_GIN_DATABASE_URL", f"postgresql://gin:s3cret@127.0.0.1:{port}/gin"
        )
        assert main(["check"]) == 1
    out = capsys.readouterr().out
    assert f"store: PostgreSQL at postgresql://gin:***@127.0.0.1:{port}/gin: unreachable" in out
    assert "s3cret" not in out


def test_backup_of_an_unreachable_postgresql_fails_without_the_password(
    data_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It runs pg_dump itself (tests/test_backup_postgres.py); here the host is unknown.
    monkeypatch.setenv("HOLLYWOOD_GIN_DATABASE_URL", "postgresql://gin:s3cret@db.invalid/gin")
    assert main(["backup", "copy.dump"]) == 1
    err = capsys.readouterr().err
    assert "pg_dump" in err and "s3cret" not in err
    assert not Path("copy.dump").exists() and not Path("copy.dump.partial").exists()


def sqlite_of_something_else(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        db.execute("INSERT INTO invoices (total) VALUES (12.5)")
    sqlite3.connect(path).close()


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.write_bytes(b""), "is empty (0 bytes)"),
        (lambda p: p.write_text("name,score\nAnn,12\n"), "is not an SQLite file"),
        (sqlite_of_something_else, "an SQLite file of something else (tables: invoices)"),
    ],
    ids=["empty", "text", "other-sqlite"],
)
def test_an_empty_or_foreign_data_file_is_refused_untouched(
    data_file: Path, capsys: pytest.CaptureFixture[str], make: object, said: str
) -> None:
    make(data_file)  # type: ignore[operator]
    before = data_file.read_bytes()
    assert main(["check"]) == 2
    assert said in capsys.readouterr().err
    assert main(["backup", str(data_file.parent / "copy.sqlite3")]) == 2
    with pytest.raises(UnusableFile, match="left untouched"):
        asyncio.run(SqliteStore(data_file).open())
    assert data_file.read_bytes() == before


def test_serve_refuses_a_zero_byte_data_file(tmp_path: Path) -> None:
    empty = tmp_path / "tables.sqlite3"
    empty.write_bytes(b"")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLLYWOOD_GIN_")}
    env |= {"HOLLYWOOD_GIN_DATA_FILE": str(empty), "HOLLYWOOD_GIN_PORT": str(free_port())}
    out = run_gin("serve", env=env)
    assert out.returncode == 2, out.stderr
    assert "is empty (0 bytes)" in out.stderr and "Traceback" not in out.stderr
    assert empty.read_bytes() == b""
    assert not (tmp_path / "tables.sqlite3-wal").exists()


def test_a_sound_file_still_checks_and_backs_up(data_file: Path) -> None:
    asyncio.run(make_tables(data_file))
    assert main(["check"]) == 0
    assert main(["backup", str(data_file.parent / "copy.sqlite3")]) == 0


def test_a_backup_takes_the_web_push_key_along(data_file: Path) -> None:
    asyncio.run(make_tables(data_file))
    key = keep_in_file(key_file(data_file), new_private_key())
    copy = data_file.parent / "copy.sqlite3"
    assert main(["backup", str(copy)]) == 0
    assert key_file(copy).read_text().strip() == key
    assert key_file(copy).stat().st_mode & 0o077 == 0


def test_serve_logs_the_unknown_variable_at_start(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLLYWOOD_GIN_")}
    env |= {
        "HOLLYWOOD_GIN_DATA_FILE": str(tmp_path / "t.sqlite3"),
        "HOLLYWOOD_GIN_MAX_SPECTATOR": "3",
    }
    log = tmp_path / "server.log"

    def start(port: int) -> subprocess.Popen[bytes]:
        # A fresh log each start: one that could not bind its port is not this one's.
        with log.open("w") as sink:
            served = {**env, "HOLLYWOOD_GIN_PORT": str(port)}
            return subprocess.Popen(
                [sys.executable, "-m", "hollywood_gin", "serve"], cwd=REPO, env=served, stderr=sink
            )

    with serving(start):
        pass  # started: the warning is in the log before it answers
    text = log.read_text()
    assert "WARNING" in text
    assert (
        "unknown setting HOLLYWOOD_GIN_MAX_SPECTATOR (ignored):"
        " did you mean HOLLYWOOD_GIN_MAX_SPECTATORS?" in text
    )


@pytest.mark.anyio
async def test_an_unknown_host_is_logged_once_with_the_setting_to_change(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(
        Settings(data_file=tmp_path / "t.sqlite3", public_url="https://gin.example.org")
    )
    transport = httpx.ASGITransport(app=app)
    caplog.set_level(logging.WARNING, logger="hollywood_gin.security")
    async with httpx.AsyncClient(transport=transport, base_url="http://new.example.org") as c:
        for _ in range(3):
            assert (await c.get("/en/rules")).status_code == 400
        ok = await c.get("/en/rules", headers={"Host": "gin.example.org"})
        assert ok.status_code == 200
    told = [r.getMessage() for r in caplog.records if "bad_host" in r.getMessage()]
    assert len(told) == 1, told
    assert "'new.example.org'" in told[0] and "HOLLYWOOD_GIN_ALLOWED_HOSTS" in told[0]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_check_prints_the_connection_bound_the_server_will_hold(tmp_path: Path) -> None:
    # Not `MAX_CONNECTIONS=0`: the bound from the open-file limit the server raises to
    # (the hard one), less an eighth.
    import resource

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (1000, 2000))

    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLLYWOOD_GIN_")}
    env["PYTHONPATH"] = str(REPO)
    env["HOLLYWOOD_GIN_DATA_FILE"] = str(tmp_path / "t.sqlite3")
    for setting, shown in [
        (None, "HOLLYWOOD_GIN_MAX_CONNECTIONS=1750 (from the open-file limit, 2000 here"),
        ("5000", "HOLLYWOOD_GIN_MAX_CONNECTIONS=1750 (from the open-file limit, 2000 here"),
        ("300", "HOLLYWOOD_GIN_MAX_CONNECTIONS=300\n"),
    ]:
        if setting is not None:
            env["HOLLYWOOD_GIN_MAX_CONNECTIONS"] = setting
        out = run_gin("check", cwd=tmp_path, env=env, preexec_fn=limits)
        assert out.returncode == 0, out.stdout + out.stderr
        assert shown in out.stdout
