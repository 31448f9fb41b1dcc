"""The shipped systemd units and the compose backup, as far as this machine allows
(README.md, "Deployment"): `systemd-analyze verify` accepts them, `systemd-analyze security`
rates the server's unit at most 3.0, the backup timer's service runs as the server's user into a
folder systemd gives that user, and its commands (and the compose backup's), run here,
copy the data file and keep 14 days of copies.

No systemd runs here as PID 1: the units are verified and rated offline, and their
commands run as plain processes with the specifiers filled in as systemd would.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.tables.test_store_damage import make_tables

DEPLOY = REPO / "deploy"
INSTALLED = "/opt/hollywood-gin/bin/hollywood-gin"
UNITS = [
    "hollywood-gin.service",
    "hollywood-gin@.service",
    "hollywood-gin-backup.service",
    "hollywood-gin-backup.timer",
]
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def directives(name: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in (DEPLOY / name).read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            out.setdefault(key, []).append(value)
    return out


def runnable_copies(where: Path) -> Path:
    """The units with the installed command pointing at a real one, as on a host."""
    where.mkdir()
    command = shutil.which("hollywood-gin") or sys.executable
    for name in UNITS:
        text = (DEPLOY / name).read_text().replace(INSTALLED, command)
        (where / name).write_text(text)
    return where


@needs_analyze
def test_systemd_analyze_verify_accepts_every_unit(tmp_path: Path) -> None:
    where = runnable_copies(tmp_path / "units")
    names = [n.replace("@.", "@8001.") for n in UNITS]
    out = subprocess.run(
        [str(ANALYZE), "verify", *names], cwd=where, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and out.stderr == "", out.stderr
    # The check can fail: a misspelled directive is reported.
    broken = where / "hollywood-gin.service"
    broken.write_text(broken.read_text().replace("ProtectHome=", "ProtectHomes="))
    out = subprocess.run(
        [str(ANALYZE), "verify", broken.name], cwd=where, capture_output=True, text=True
    )
    assert "ProtectHomes" in out.stderr


@needs_analyze
@pytest.mark.parametrize("name", ["hollywood-gin.service", "hollywood-gin@.service"])
def test_the_server_units_are_rated_at_most_3(name: str) -> None:
    out = subprocess.run(
        [str(ANALYZE), "security", "--offline=true", str(DEPLOY / name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    (level,) = re.findall(r"Overall exposure level for \S+: (\d+\.\d+)", out.stdout)
    assert float(level) <= 3.0, out.stdout


def test_the_backup_runs_as_the_server_user_into_a_folder_it_owns() -> None:
    server = directives("hollywood-gin.service")
    backup = directives("hollywood-gin-backup.service")
    timer = directives("hollywood-gin-backup.timer")
    assert backup["User"] == server["User"] and backup["Group"] == server["Group"]
    assert backup["Type"] == ["oneshot"]
    # systemd makes /var/lib/<StateDirectory> and gives it to User= (mode 0700).
    [folder] = backup["StateDirectory"]
    assert backup["StateDirectoryMode"] == ["0700"] and backup["UMask"] == ["0077"]
    [start] = backup["ExecStart"]
    assert f'"%S/{folder}/tables-' in start and f"{INSTALLED} backup" in start
    [retention] = backup["ExecStartPost"]
    assert f"%S/{folder} " in retention and "-mtime +13 -delete" in retention
    # It reads the server's data file (WAL: its -shm is written too).
    data = Path(re.findall(r"HOLLYWOOD_GIN_DATA_FILE=(\S+)", "\n".join(backup["Environment"]))[0])
    assert str(data.parent) in backup["ReadWritePaths"]
    assert server["EnvironmentFile"] == backup["EnvironmentFile"]
    # The timer starts the service of its own name, daily, catching up after downtime.
    assert "Unit" not in timer and timer["OnCalendar"] and timer["Persistent"] == ["true"]
    assert not (DEPLOY / "backup.sh").exists()


def systemd_command(line: str, state: Path) -> list[str]:
    """An Exec line as systemd runs it: specifiers filled in, then split into words."""
    # Left to right, as systemd reads them: "%%S" is a "%" then an "S".
    line = re.sub(r"%(.)", lambda m: {"%": "%", "S": str(state)}[m.group(1)], line)
    line = line.replace("$$", "$")  # systemd's literal dollar, for the shell
    line = line.replace(INSTALLED, f"{sys.executable} -m hollywood_gin")
    words = shlex.split(line)
    if words[0] == "/bin/sh":
        return words
    return shlex.split(" ".join(words))  # `python -m hollywood_gin` as three words


def age(path: Path, days: float) -> None:
    then = time.time() - days * 86400
    os.utime(path, (then, then))


def test_the_backup_units_commands_copy_and_keep_14_days(tmp_path: Path) -> None:
    backup = directives("hollywood-gin-backup.service")
    [folder] = backup["StateDirectory"]
    data = tmp_path / "lib" / "tables.sqlite3"
    data.parent.mkdir()
    asyncio.run(make_tables(data))
    copies = tmp_path / folder
    copies.mkdir(mode=0o700)  # systemd's StateDirectory=
    old, recent = copies / "tables-old.sqlite3", copies / "tables-recent.sqlite3"
    for path, days in ((old, 20), (recent, 3)):
        path.write_bytes(b"x")
        age(path, days)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLLYWOOD_GIN_")}
    env |= {"HOLLYWOOD_GIN_DATA_FILE": str(data), "PYTHONPATH": str(REPO)}
    for key in ("ExecStart", "ExecStartPost"):
        [line] = backup[key]
        out = subprocess.run(
            systemd_command(line, tmp_path), env=env, capture_output=True, text=True, timeout=120
        )
        assert out.returncode == 0, out.stderr
    made = [
        p
        for p in copies.iterdir()
        if re.fullmatch(r"tables-\d{4}-\d\d-\d\dT\d{6}Z\.sqlite3", p.name)
    ]
    assert len(made) == 1 and not old.exists() and recent.exists()
    with sqlite3.connect(made[0]) as db:
        assert db.execute("SELECT COUNT(*) FROM tables").fetchone() == (3,)


def test_the_compose_backup_writes_to_a_volume_of_its_own(tmp_path: Path) -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    server, backup = compose["services"]["hollywood-gin"], compose["services"]["backup"]
    assert backup["profiles"] == ["backup"] and backup["image"] == server["image"]
    mounts = dict(reversed(m.split(":")[:2]) for m in backup["volumes"])
    data_volume = server["volumes"][0].split(":")[0]
    assert mounts["/data"] == data_volume and mounts["/backups"] != data_volume
    assert mounts["/backups"] in compose["volumes"]
    shell, flag, script = backup["entrypoint"]
    assert (shell, flag) == ("sh", "-c") and "/data" not in script.split("&&")[0].split()[-1]
    # The script as the container runs it ($$ is compose's escape for $), here.
    data = tmp_path / "data" / "tables.sqlite3"
    data.parent.mkdir()
    asyncio.run(make_tables(data))
    (tmp_path / "backups").mkdir()
    stale = tmp_path / "backups" / "tables-stale.sqlite3"
    stale.write_bytes(b"x")
    age(stale, 15)
    script = script.replace("$$", "$").replace("/backups", str(tmp_path / "backups"))
    script = script.replace("hollywood-gin backup", f"{sys.executable} -m hollywood_gin backup")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLLYWOOD_GIN_")}
    env |= {"HOLLYWOOD_GIN_DATA_FILE": str(data), "PYTHONPATH": str(REPO)}
    out = subprocess.run(
        [shell, flag, script], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    [made] = list((tmp_path / "backups").iterdir())
    assert made.name.startswith("tables-20") and not stale.exists()
    assert sorted(p.name for p in data.parent.iterdir() if p.name.startswith("tables-")) == []


def test_the_worker_template_takes_its_port_from_the_instance() -> None:
    workers = directives("hollywood-gin@.service")
    server = directives("hollywood-gin.service")
    [start] = workers["ExecStart"]
    assert start == f"/usr/bin/env HOLLYWOOD_GIN_PORT=%i {INSTALLED} serve"
    # The same hardening as the single server.
    hardening = {
        k: v for k, v in server.items() if k.startswith(("Protect", "Restrict", "Private"))
    }
    assert hardening and all(workers[k] == v for k, v in hardening.items())


def test_the_wheel_and_docker_build_carry_the_units() -> None:
    pyproject = (REPO / "pyproject.toml").read_text()
    assert '"deploy" = "hollywood_gin/deploy"' in pyproject
    ignored = (REPO / ".dockerignore").read_text().splitlines()
    assert "*" in ignored  # everything out, then ...
    copied = {
        word
        for line in (REPO / "Dockerfile").read_text().splitlines()
        if line.startswith("COPY ") and "--from" not in line
        for word in line.split()[1:-1]
    }
    for name in copied:  # ... what the Dockerfile copies back in
        assert f"!{name.rstrip('/')}" in ignored or f"!{name.rstrip('/')}/" in ignored, name
    assert ".venv" not in "".join(line for line in ignored if line.startswith("!"))


def test_the_caddy_profile_proxies_to_the_app_with_its_caddyfile() -> None:
    compose = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    caddy, app = compose["services"]["caddy"], compose["services"]["hollywood-gin"]
    assert caddy["profiles"] == ["caddy"]
    (mount,) = [m for m in caddy["volumes"] if m.endswith(":/etc/caddy/Caddyfile:ro")]
    caddyfile = (DEPLOY / mount.split(":")[0]).read_text()
    # The site is {$DOMAIN}, proxied to {$GIN_UPSTREAM}: the app's service and port.
    assert re.search(r"^\{\$DOMAIN\} \{", caddyfile, re.MULTILINE)
    assert "reverse_proxy {$GIN_UPSTREAM}" in caddyfile
    assert caddy["environment"]["GIN_UPSTREAM"] == (
        f"hollywood-gin:{app['environment']['HOLLYWOOD_GIN_PORT']}"
    )
    assert {"80:80", "443:443"} <= set(caddy["ports"])


def test_the_check_recipe_checks_the_units_own_data_file(tmp_path: Path) -> None:
    """The comment's `check` command reads the file the unit serves, from any folder it
    is typed in: a newer file there is refused (2), not a fresh ./data elsewhere (0)."""
    text = (DEPLOY / "hollywood-gin.service").read_text()
    [recipe] = re.findall(r"^#\s+(sudo -u gin sh -c .*check')$", text, re.M)
    unit = directives("hollywood-gin.service")
    [folder] = unit["WorkingDirectory"]
    data_file = next(
        e.split("=", 1)[1] for e in unit["Environment"] if e.startswith("HOLLYWOOD_GIN_DATA_FILE=")
    )
    assert f"cd {folder} " in recipe and f"HOLLYWOOD_GIN_DATA_FILE={data_file} " in recipe
    state = tmp_path / "state"
    state.mkdir()
    env_file = tmp_path / "env"
    env_file.write_text("HOLLYWOOD_GIN_MAX_SPECTATORS=7\n")
    command = (
        recipe.removeprefix("sudo -u gin ")
        .replace(folder, str(state))
        .replace("/etc/hollywood-gin/env", str(env_file))
        .replace(INSTALLED, f"{sys.executable} -m hollywood_gin")
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOLLYWOOD_GIN_")}
    env["PYTHONPATH"] = str(REPO)
    elsewhere = tmp_path / "home"  # where the host types it
    elsewhere.mkdir()

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", "-c", command.removeprefix("sh -c ").strip("'")],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    sound = run()
    assert sound.returncode == 0, sound.stdout + sound.stderr
    assert f"store: SQLite file {state}/tables.sqlite3" in sound.stdout
    assert "HOLLYWOOD_GIN_MAX_SPECTATORS=7" in sound.stdout  # the env file is read
    with sqlite3.connect(state / "tables.sqlite3") as db:
        db.execute("PRAGMA user_version = 999")
    newer = run()
    assert newer.returncode == 2 and "newer Hollywood Gin" in newer.stdout + newer.stderr
