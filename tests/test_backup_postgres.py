"""`hollywood-gin backup FILE` with the tables in PostgreSQL runs pg_dump itself (issue
45): a custom-format dump that pg_restore reads back, mode 0600 whatever the caller's
umask, no file left by a failed dump, the password never on pg_dump's command line.
The backup unit does the same daily (`tables-DATE.pgdump`, 14 days kept). A throwaway
cluster (tests/postgres.py)."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("asyncpg")

from hollywood_gin.cli.host import pg_dump_program, without_password
from hollywood_gin.tables.migrate import migrate
from tests.conftest import REPO, closed_port, run_gin
from tests.postgres import Cluster, pg_url, postgres  # noqa: F401 (fixtures)
from tests.tables.test_store_damage import make_tables
from tests.test_units import directives, systemd_command

needs_pg_dump = pytest.mark.skipif(pg_dump_program() is None, reason="pg_dump not installed")


def env_for(url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HOLLYWOOD_GIN_", "PG"))}
    env |= {"PYTHONPATH": str(REPO), "HOLLYWOOD_GIN_DATABASE_URL": url}
    return env


def a_site_in(url: str, tmp_path: Path) -> None:
    data = tmp_path / "site.sqlite3"
    asyncio.run(make_tables(data))
    asyncio.run(migrate(data, url))


def restored_tables(postgres: Cluster, dump: Path) -> int:  # noqa: F811
    """Restore the dump into a new database; how many tables it holds."""
    name = f"restored{os.getpid()}{dump.stat().st_ino}"
    host = ["-h", "127.0.0.1", "-p", str(postgres.port), "-U", "gin"]
    postgres.run(str(postgres.bindir / "createdb"), *host, name)
    # The cluster's programs run as `postgres` here (tests/postgres.py), who may not
    # read the 0600 dump: it comes on stdin.
    with dump.open("rb") as given:
        subprocess.run(
            [*postgres._as, str(postgres.bindir / "pg_restore"), *host, f"--dbname={name}"],
            stdin=given,
            capture_output=True,
            check=True,
            timeout=120,
        )
    out = postgres.run(
        str(postgres.bindir / "psql"), *host, "-At", "-c", "SELECT count(*) FROM tables", name
    )
    return int(out.stdout.strip())


def test_the_password_goes_to_the_environment_not_the_command_line() -> None:
    assert without_password("postgresql://gin:s%40cret@db:5432/gin?sslmode=require") == (
        "postgresql://gin@db:5432/gin?sslmode=require",
        "s@cret",
    )
    assert without_password("postgresql://gin@db/gin") == ("postgresql://gin@db/gin", None)


@needs_pg_dump
def test_backup_dumps_postgresql_for_this_user_alone(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
    postgres: Cluster,  # noqa: F811
) -> None:
    a_site_in(pg_url, tmp_path)
    target = tmp_path / "copies" / "tables.pgdump"
    target.parent.mkdir()
    os.chmod(target.parent, 0o777)  # the folder would let anyone read: the file must not
    done = run_gin(
        "backup",
        str(target),
        cwd=tmp_path,
        env=env_for(pg_url),
        timeout=300,
        preexec_fn=lambda: os.umask(0),  # a careless shell's umask
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("backed up PostgreSQL at ") and done.stdout.count("\n") == 1
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["tables.pgdump"]
    assert restored_tables(postgres, target) == 3


@needs_pg_dump
def test_a_failed_dump_is_one_line_and_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "tables.pgdump"
    with closed_port() as port:  # nothing listens there
        url = f"postgresql://gin:Sekret-9@127.0.0.1:{port}/gin"
        done = run_gin("backup", str(target), cwd=tmp_path, env=env_for(url), timeout=300)
    assert done.returncode == 1
    [line] = done.stderr.splitlines()
    assert "pg_dump of PostgreSQL at postgresql://gin:***@127.0.0.1" in line
    assert "Sekret-9" not in done.stderr + done.stdout
    assert list(tmp_path.iterdir()) == []


@needs_pg_dump
def test_the_backup_unit_dumps_postgresql_too(
    tmp_path: Path,
    pg_url: str,  # noqa: F811
    postgres: Cluster,  # noqa: F811
) -> None:
    a_site_in(pg_url, tmp_path)
    backup = directives("hollywood-gin-backup.service")
    [folder] = backup["StateDirectory"]
    copies = tmp_path / folder
    copies.mkdir(mode=0o700)  # systemd's StateDirectory=
    [line] = backup["ExecStart"]
    done = subprocess.run(
        systemd_command(line, tmp_path),
        env=env_for(pg_url),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    [made] = copies.iterdir()
    assert made.name.startswith("tables-") and made.name.endswith(".pgdump")
    assert stat.S_IMODE(made.stat().st_mode) == 0o600
    assert restored_tables(postgres, made) == 3
