"""The host's commands on its data: `backup FILE`, `check` (settings, store, every table
of the data file) and `migrate --to URL` (the data file into an empty PostgreSQL)."""

from __future__ import annotations

import asyncio
import glob
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path
from urllib.parse import unquote

from hollywood_gin.cli.output import say
from hollywood_gin.config import (
    ENV_PREFIX,
    Settings,
    masked_url,
    resource_dir,
    unknown_variables,
)
from hollywood_gin.tables.push import key_file
from hollywood_gin.tables.sqlite_file import (
    NewerSchema,
    OlderSchema,
    UnusableFile,
    backup,
    open_for_reading,
    read_tables,
    set_aside_in,
)
from hollywood_gin.tables.table import rebuild_match
from hollywood_gin.web.guard.connections import connection_limit, open_file_limit
from hollywood_gin.web.guard.security import AllowedHosts

PG_DUMP = (
    "pg_dump --format=custom --no-owner --no-privileges --file=FILE"
    ' --dbname="$HOLLYWOOD_GIN_DATABASE_URL"'
)
PG_RESTORE = (
    "pg_restore --clean --if-exists --no-owner --no-privileges"
    ' --dbname="$HOLLYWOOD_GIN_DATABASE_URL" FILE'
)


def pg_dump_program() -> str | None:
    """`pg_dump` on the PATH (Debian's postgresql-client), else the newest server's."""
    found = shutil.which("pg_dump")
    if found is not None:
        return found
    installed = glob.glob("/usr/lib/postgresql/*/bin/pg_dump")
    installed.sort(key=lambda p: int(p.split("/")[-3]) if p.split("/")[-3].isdigit() else 0)
    return installed[-1] if installed else None


def without_password(url: str) -> tuple[str, str | None]:
    """postgresql://gin:s%40cret@db/gin -> (postgresql://gin@db/gin, "s@cret"): the
    password goes to pg_dump in its environment (PGPASSWORD), never on its command line,
    which other processes of the machine may read."""
    scheme, sep, rest = url.partition("://")
    place, slash, tail = rest.partition("/")
    credentials, at, hosts = place.rpartition("@")
    if not at or ":" not in credentials:
        return url, None
    user, _, password = credentials.partition(":")
    return f"{scheme}{sep}{user}@{hosts}{slash}{tail}", unquote(password)


def backup_postgres(url: str, target: Path) -> int:
    """`pg_dump` of the whole database into `target`, readable by this user alone; a
    failed dump leaves no file behind (it is written beside it, then renamed)."""
    where = masked_url(url)
    program = pg_dump_program()
    if program is None:
        say(
            "backup: the tables are in PostgreSQL and pg_dump is not installed (Debian:"
            f" apt-get install postgresql-client); or run\n  {PG_DUMP}"
        )
        return 1
    dsn, password = without_password(url)
    env = dict(os.environ)
    if password is not None:
        env["PGPASSWORD"] = password
    partial = target.with_name(target.name + ".partial")
    command = [
        program,
        "--format=custom",
        "--no-owner",
        "--no-privileges",
        f"--file={partial}",
        f"--dbname={dsn}",
    ]
    mask = os.umask(0o077)  # the dump holds every running hand's deck
    try:
        done = subprocess.run(
            command,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        os.umask(mask)
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        said = done.stderr.strip().splitlines() or [f"exit {done.returncode}"]
        say(f"backup: pg_dump of PostgreSQL at {where} failed: {said[-1].replace(url, where)}")
        return 1
    partial.chmod(0o600)
    partial.replace(target)
    print(f"backed up PostgreSQL at {where} to {target} (restore: {PG_RESTORE})")
    return 0


def run_backup(settings: Settings, target: Path) -> int:
    if settings.database_url:
        # The tables are in PostgreSQL: its own tool copies them consistently.
        return backup_postgres(settings.database_url, target)
    if target.resolve() == settings.data_file.resolve():
        say("the backup must go to another file than the data file")
        return 2
    try:
        backup(settings.data_file, target)
    except UnusableFile as exc:
        say(str(exc))
        return 2
    except (OSError, sqlite3.Error) as exc:
        say(f"backup failed: {exc}")
        return 1
    print(f"backed up {settings.data_file} to {target}")
    # The Web Push key beside the file: the browsers' subscriptions are bound to it.
    key = key_file(settings.data_file)
    if key.exists():
        try:
            copy_private(key, key_file(target))
        except OSError as exc:
            say(f"backup of the Web Push key failed: {exc}")
            return 1
        print(f"and its Web Push key to {key_file(target)}")
    return 0


def copy_private(source: Path, target: Path) -> None:
    """`source` copied to `target`, readable by this user only from the start."""
    data = source.read_bytes()
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def push_line(settings: Settings) -> str:
    """Whether notifications go out, and why not (docs/protocol-guide.md "Notifications")."""
    subject = settings.push_subject
    if subject is None:
        return (
            "notifications (Web Push): off: set HOLLYWOOD_GIN_VAPID_SUBJECT (mailto: or"
            " https:) or an https HOLLYWOOD_GIN_PUBLIC_URL"
        )
    if settings.vapid_private_key:
        key = "the key of HOLLYWOOD_GIN_VAPID_PRIVATE_KEY"
    elif settings.database_url:
        key = "its key kept in the database (made on first start)"
    else:
        key = f"its key kept in {key_file(settings.data_file)} (made on first start)"
    return (
        f"notifications (Web Push): on, subject {subject}, {key};"
        f" push services: {', '.join(settings.push_services)}"
    )


def describe(settings: Settings) -> list[str]:
    """The effective settings, as the server will use them (no secret printed)."""
    hosts = AllowedHosts(settings)
    names = ", ".join(sorted(hosts.names)) or "none"
    lines = [
        f"listen: {settings.host}:{settings.port}",
        "public URL: "
        + (
            settings.public_url
            or "none (links from each request's Host; cookies not Secure behind TLS)"
        ),
        f"hosts answered: {names}" + (", any IP address" if hosts.ip_literals else ""),
        "trusted proxies: "
        + (", ".join(settings.trusted_proxies) or "none (X-Forwarded-* headers ignored)"),
        "allowed origins: " + (", ".join(settings.allowed_origins) or "this host only"),
        push_line(settings),
    ]
    shown = {
        "host",
        "port",
        "public_url",
        "allowed_hosts",
        "trusted_proxies",
        "allowed_origins",
        "database_url",
        "data_file",
        "commit",
        "vapid_private_key",  # a secret: never printed
        "vapid_subject",
        "push_services",
    }
    lines.append("limits and switches:")
    for name in Settings.model_fields:
        if name in shown:
            continue
        line = f"  {ENV_PREFIX}{name.upper()}={getattr(settings, name)}"
        if name == "max_connections":
            # What the server will hold, not the setting's 0 ("from the file limit").
            files = open_file_limit(raised=True)
            bound = connection_limit(settings.max_connections, files)
            line = f"  {ENV_PREFIX}MAX_CONNECTIONS={bound}" + (
                f" (from the open-file limit, {files} here; the unit's LimitNOFILE sets it)"
                if bound != settings.max_connections
                else ""
            )
        lines.append(line)
    return lines


def postgres_status(url: str) -> tuple[int, str]:
    """Whether the server can use the PostgreSQL at `url`: (exit code, one line).
    0 reachable; 1 no driver (the postgres extra) or unreachable; 2 a database of a
    newer version. `check` prints the line, `serve` stops with it."""
    try:
        from hollywood_gin.tables.postgres_store import NewerDatabase, probe
    except ImportError:
        extra = "pip install 'hollywood-gin[postgres]'"
        return 1, f"store: PostgreSQL needs the postgres extra: {extra}"
    where = masked_url(url)
    try:
        found = asyncio.run(asyncio.wait_for(probe(url), 10))
    except NewerDatabase as exc:
        return 2, f"store: PostgreSQL at {where}: {exc}"
    except Exception as exc:  # every way a connection fails: refused, DNS, auth, timeout
        reason = str(exc).replace(url, where) or type(exc).__name__
        return 1, f"store: PostgreSQL at {where}: unreachable ({type(exc).__name__}: {reason})"
    return 0, f"store: PostgreSQL at {where}: reachable, {found}"


def data_folder_problem(path: Path) -> str | None:
    """Why the data file could not be made where the setting says, or None; changes
    nothing (the server makes the folder at its first start)."""
    if path.is_dir():
        return f"data file: {path} is a folder: {ENV_PREFIX}DATA_FILE names a file"
    if path.exists():
        return None
    folder = path.absolute().parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir():
        return f"data file: cannot be made in {path.parent}: {folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"data file: cannot be made in {path.parent}: {folder} is not writable by this user"
    return None


def run_check(settings: Settings) -> int:
    """Settings, assets, the store and every table of the data file; exit 2 on a bad
    setting or an unusable file, 1 on damage or an unreachable store."""
    problems = 0
    bad_settings = 0
    for warning in unknown_variables():
        print(f"warning: {warning}")
        bad_settings += 1
    print("settings: " + ("ok" if not bad_settings else f"{bad_settings} unknown"))
    for line in describe(settings):
        print(line)
    for name in ("static", "templates"):
        folder = resource_dir(name)
        if not folder.is_dir():
            print(f"{name}: missing ({folder})")
            problems += 1
    if settings.database_url:
        code, line = postgres_status(settings.database_url)
        print(line)
        return 2 if bad_settings or code == 2 else 1 if problems or code else 0
    print(f"store: SQLite file {settings.data_file.resolve()}")
    outcome = check_file(settings.data_file)
    if bad_settings or outcome == 2:
        return 2
    return 1 if problems or outcome else 0


def check_file(path: Path) -> int:
    problem = data_folder_problem(path)
    if problem is not None:
        print(problem)
        return 2
    if not path.exists():
        print("data file: none yet (made at the first start)")
        return 0
    try:
        db = open_for_reading(path)
    except (NewerSchema, UnusableFile) as exc:
        say(str(exc))
        return 2
    except OlderSchema as exc:
        print(f"data file: {exc}")
        return 0
    except (OSError, sqlite3.Error) as exc:
        say(f"cannot read the data file: {exc}")
        return 1
    problems = 0
    try:
        (verdict,) = db.execute("PRAGMA quick_check").fetchone()
        print(f"data file: integrity {verdict}")
        problems += verdict != "ok"
        records, damaged = read_tables(db)
        aside = set_aside_in(db)
    finally:
        db.close()
    for record in records:
        try:
            rebuild_match(record)
        except Exception as exc:
            damaged[record.table_id] = f"{type(exc).__name__}: {exc}"
    for table_id, reason in damaged.items():
        print(f"table {table_id[:8]}: damaged ({reason}); the server sets it aside")
    for table_id, reason in aside.items():
        print(f"table {table_id[:8]}: set aside earlier ({reason})")
    loading = sum(1 for r in records if r.table_id not in damaged)
    print(f"tables: {loading} load, {len(damaged)} damaged, {len(aside)} set aside earlier")
    return 1 if problems or damaged else 0


def run_migrate(settings: Settings, url: str) -> int:
    """`migrate --to URL`; exit 1 when the copy is refused or does not verify."""
    try:
        from hollywood_gin.tables.migrate import MigrationError, migrate
    except ImportError:
        say("migrate needs the postgres extra: pip install 'hollywood-gin[postgres]'")
        return 2
    if not url.startswith(("postgresql://", "postgres://")):
        say(f"migrate: --to must be a postgresql:// URL, not {masked_url(url)[:80]}")
        return 2
    try:
        done = asyncio.run(migrate(settings.data_file, url))
    except MigrationError as exc:
        say(f"migrate: {exc}")
        return 1
    except Exception as exc:  # the driver's own refusals (a bad URL's parts, auth): one line
        reason = str(exc).replace(url, masked_url(url)) or type(exc).__name__
        say(f"migrate: {type(exc).__name__}: {reason}")
        return 1
    counts = ", ".join(f"{n} {c}" for n, c in done.rows.items())
    print(f"copied {counts}; {done.verified} tables verified (same seats and version)")
    for table_id, reason in done.damaged.items():
        print(f"table {table_id[:8]}: copied as it is, does not load ({reason})")
    print("next: set HOLLYWOOD_GIN_DATABASE_URL to that database and start the workers")
    return 0
