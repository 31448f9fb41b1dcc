"""A throwaway PostgreSQL cluster for the tests: `initdb` and `pg_ctl` in a temp folder.

Debian's `postgresql` package puts the server's programs under
/usr/lib/postgresql/N/bin (not on PATH). As root, `initdb` refuses to run: the
cluster then belongs to the `postgres` user the package made, and runs as it.
Without the programs the tests that need them are skipped, except in CI
(`CI=true`), where `.ci/run` installs them and a missing server is a failure.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import PORT_TRIES, free_port


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=_version)
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path else None


def _version(path: str) -> int:
    try:
        return int(Path(path).parts[-3])
    except ValueError:
        return 0


class Cluster:
    """One PostgreSQL server on a loopback port, its data in a temp folder."""

    def __init__(self, bindir: Path, root: Path, port: int) -> None:
        self.bindir = bindir
        self.root = root
        self.data = root / "data"
        self.port = port
        self.url = f"postgresql://gin@127.0.0.1:{port}/gin"
        self._as: list[str] = []
        root.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            self._as = ["runuser", "-u", "postgres", "--"]
            owner = pwd.getpwnam("postgres")
            os.chown(root, owner.pw_uid, owner.pw_gid)

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self._as, *args], capture_output=True, text=True, check=check, timeout=60
        )

    def init(self, *, fsync: bool = False) -> None:
        self.run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "gin",
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
        )
        conf = [
            "listen_addresses = '127.0.0.1'",
            f"port = {self.port}",
            f"unix_socket_directories = '{self.root}'",
            # The tests prove fencing and recovery, not the disk: fsync off makes them
            # fast. The benchmark's cluster keeps it on (`fsync=True`).
            f"fsync = {'on' if fsync else 'off'}",
            "max_connections = 100",
            "shared_buffers = 64MB",
        ]
        with (self.data / "postgresql.conf").open("a") as f:
            f.write("\n".join(conf) + "\n")

    def move_to(self, port: int) -> None:
        """Listen on `port` from the next start (the configuration's last line wins)."""
        self.port = port
        self.url = f"postgresql://gin@127.0.0.1:{port}/gin"
        with (self.data / "postgresql.conf").open("a") as f:
            f.write(f"port = {port}\n")

    def start(self) -> None:
        self.run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "log"),
            "-w",
            "-t",
            "30",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self.run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def create_database(self) -> None:
        self.run(
            str(self.bindir / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "gin",
            "gin",
        )


def start_cluster(root: Path, *, fsync: bool = False) -> Cluster:
    bindir = pg_bin()
    if bindir is None:
        if os.environ.get("CI"):
            raise RuntimeError("PostgreSQL is not installed (.ci/run installs it)")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    cluster = Cluster(bindir, root, free_port())
    cluster.init(fsync=fsync)
    for tries_left in range(PORT_TRIES - 1, -1, -1):
        try:
            cluster.start()
            break
        except subprocess.CalledProcessError:
            # The port picked was taken before the server bound it: another one.
            log = (root / "log").read_text(errors="replace")
            if not tries_left or "Address already in use" not in log:
                raise
            cluster.move_to(free_port())
    cluster.create_database()
    return cluster


@pytest.fixture(scope="session")
def postgres() -> Iterator[Cluster]:
    """One cluster for the whole session; each test makes its own database in it."""
    root = Path(tempfile.mkdtemp(prefix="gin-pg-"))
    try:
        cluster = start_cluster(root)
        try:
            yield cluster
        finally:
            cluster.stop("immediate")
    finally:
        shutil.rmtree(root, ignore_errors=True)


_counter = iter(range(1_000_000))


@pytest.fixture
def pg_url(postgres: Cluster) -> str:
    """A fresh, empty database in the session's cluster."""
    name = f"t{os.getpid()}_{next(_counter)}"
    postgres.run(
        str(postgres.bindir / "createdb"),
        "-h",
        "127.0.0.1",
        "-p",
        str(postgres.port),
        "-U",
        "gin",
        name,
    )
    return f"postgresql://gin@127.0.0.1:{postgres.port}/{name}"
