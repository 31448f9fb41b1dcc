"""`hollywood-gin`: the host's commands (`serve`, `backup FILE`, `check`, `migrate`),
a program's (`bot URL`, `arena A B`), and `verify FILE`, which checks a downloaded
hand record's deal for anyone.

`python -m hollywood_gin` is the same program; with no command it serves.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from hollywood_gin import __version__
from hollywood_gin.config import (
    ENV_PREFIX,
    Settings,
    SettingsError,
    masked_url,
    resource_dir,
    source_commit,
    unknown_variables,
)
from hollywood_gin.engine.dealer import check_entropy, derive_deck, secret_commitment
from hollywood_gin.engine.errors import BadAction
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.vocabulary import RULES
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
from hollywood_gin.web.security import AllowedHosts


def say(message: str) -> None:
    print(f"hollywood-gin: {message}", file=sys.stderr)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="hollywood-gin",
        description="Two-player Gin Rummy in the browser. Settings come from"
        " HOLLYWOOD_GIN_* environment variables and a .env file (README).",
    )
    commit = os.environ.get(f"{ENV_PREFIX}COMMIT") or source_commit() or "unknown"
    top.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} (commit {commit[:12]})"
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("serve", help="serve the site (the default)")
    copy = commands.add_parser(
        "backup",
        help="copy the data file to FILE, consistent while the server runs",
        description="A consistent copy of the data file, taken with SQLite's online backup"
        " API while the server goes on serving. Restore: stop the server, put FILE in"
        " place of the data file (removing its -wal and -shm files), start it.",
    )
    copy.add_argument("file", type=Path, metavar="FILE")
    commands.add_parser(
        "check",
        help="check the settings, the store and the data file without changing anything",
        description="Prints the effective settings (public URL, hosts, proxies, store,"
        " limits), warns on every unknown HOLLYWOOD_GIN_* variable, connects to the store"
        " and reads every table. Exit 0: all well; 1: damage or the store unreachable;"
        " 2: a bad or unknown setting, or a data file that is not usable.",
    )
    verify = commands.add_parser(
        "verify",
        help="check a downloaded hand record's deal (GET /api/tables/{id}/hands/{n})",
        description="Recompute the deck of a hand record from its server secret and the"
        " seats' entropy (PROTOCOL.md, Deals nobody can choose) and compare. Exit 0: the"
        " deck is the derived one (and matches what --commitment and --entropy name);"
        " 1: it is not; 2: the file is no hand record, or its deal was not derived.",
    )
    verify.add_argument("file", type=Path, metavar="FILE")
    verify.add_argument(
        "--commitment", help="the next_deal commitment you saw before the deal (hex)"
    )
    verify.add_argument("--entropy", help="the entropy you sent for this deal (32 hex)")
    arena = commands.add_parser(
        "arena",
        help="two bots on duplicate deals, in this process",
        description="Plays duplicate deals (each deal twice, the seats swapped; one hand"
        " each, standard rules unless --rules) between A and B and prints each side's"
        " share of the points and of the hands won, with 95 %% intervals. A and B:"
        " easy, normal, hard, random, openspiel:simple (the bots extra) or"
        " module:factory, where factory() returns a bot (docs/bots.md).",
    )
    arena.add_argument("a", metavar="A")
    arena.add_argument("b", metavar="B")
    arena.add_argument("--deals", type=_positive, default=200, metavar="N")
    arena.add_argument("--seed", type=int, default=0, metavar="S", help="the first deal's number")
    arena.add_argument("--jobs", type=_positive, default=1, metavar="J", help="processes")
    arena.add_argument("--rules", choices=RULES, default="standard")
    bot = commands.add_parser(
        "bot",
        help="play a table's free seat (or a seat link's seat) with a bot",
        description="Joins the table at URL as a bot (a share link takes the free seat;"
        " a seat link plays that seat) and plays until the matches end. --bot:"
        " module:factory where factory() returns a bot (docs/bots.md), or easy, normal,"
        " hard, random, openspiel:simple.",
    )
    bot.add_argument("url", metavar="URL")
    bot.add_argument("--bot", required=True, metavar="module:factory", dest="bot_spec")
    bot.add_argument("--name", default=None, metavar="NAME")
    bot.add_argument("--matches", type=_positive, default=1, metavar="N")
    move = commands.add_parser(
        "migrate",
        help="copy every table from the data file into an empty PostgreSQL database",
        description="Copies every table of the SQLite data file (seats, logs, hand records,"
        " the set-aside list) into an empty PostgreSQL database in one transaction, then"
        " checks the row counts and each table's replayed version on both sides. Stop the"
        " server first. The data file is not changed.",
    )
    move.add_argument("--to", required=True, metavar="URL", help="postgresql://…")
    return top


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return value


def run_arena(args: argparse.Namespace) -> int:
    from hollywood_gin.bots.arena import IllegalChoice, duplicate

    try:
        result = duplicate(
            args.a,
            args.b,
            args.deals,
            args.seed,
            jobs=args.jobs,
            options=Options(args.rules, "hand", 100),
        )
    except (ValueError, IllegalChoice) as exc:
        say(str(exc))
        return 2
    print(result.report())
    return 0


def run_bot(args: argparse.Namespace) -> int:
    from hollywood_gin.client import ClientError, IllegalChoice, load_bot, play

    try:
        make = load_bot(args.bot_spec)
        played = play(args.url, make(), name=args.name, matches=args.matches)
    except (ClientError, IllegalChoice) as exc:
        say(str(exc))
        return 1
    except KeyboardInterrupt:
        return 130
    print(f"played {played} match{'' if played == 1 else 'es'}")
    return 0


def settings_or_none() -> Settings | None:
    try:
        return Settings.from_env()
    except SettingsError as exc:
        say(str(exc))
        return None


PG_DUMP = (
    "pg_dump --format=custom --no-owner --no-privileges --file=FILE"
    ' --dbname="$HOLLYWOOD_GIN_DATABASE_URL"'
)
PG_RESTORE = (
    "pg_restore --clean --if-exists --no-owner --no-privileges"
    ' --dbname="$HOLLYWOOD_GIN_DATABASE_URL" FILE'
)


def run_backup(settings: Settings, target: Path) -> int:
    if settings.database_url:
        # The tables are in PostgreSQL: its own tool copies them consistently.
        say(
            "the tables are in PostgreSQL (HOLLYWOOD_GIN_DATABASE_URL), not in a file: back"
            f" them up with\n  {PG_DUMP}\nand restore (servers stopped) with\n  {PG_RESTORE}"
        )
        return 2
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
    return 0


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
    }
    lines.append("limits and switches:")
    lines += [
        f"  {ENV_PREFIX}{name.upper()}={getattr(settings, name)}"
        for name in Settings.model_fields
        if name not in shown
    ]
    return lines


def check_postgres(url: str) -> int:
    try:
        from hollywood_gin.tables.postgres_store import probe
    except ImportError:
        print("store: PostgreSQL needs the postgres extra: pip install 'hollywood-gin[postgres]'")
        return 1
    where = masked_url(url)
    try:
        found = asyncio.run(asyncio.wait_for(probe(url), 10))
    except Exception as exc:  # every way a connection fails: refused, DNS, auth, timeout
        reason = str(exc).replace(url, where) or type(exc).__name__
        print(f"store: PostgreSQL at {where}: unreachable ({type(exc).__name__}: {reason})")
        return 1
    print(f"store: PostgreSQL at {where}: reachable, {found}")
    return 0


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
        problems += check_postgres(settings.database_url)
        return 2 if bad_settings else 1 if problems else 0
    print(f"store: SQLite file {settings.data_file.resolve()}")
    outcome = check_file(settings.data_file)
    if bad_settings or outcome == 2:
        return 2
    return 1 if problems or outcome else 0


def check_file(path: Path) -> int:
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


def run_verify(file: Path, commitment: str | None, entropy: str | None) -> int:
    """Check a hand record's deck against the documented derivation; print what holds."""
    try:
        record = json.loads(file.read_text(encoding="utf-8"))
        deck = [str(c) for c in record["deck"]]
        salt = str(record["salt"])
        secret_hex = record.get("server_secret")
        seats = record.get("entropy") or [None, None]
        number = record.get("number", "?")
        given = [None if e is None else bytes.fromhex(check_entropy(e)) for e in seats[:2]]
        secret = None if secret_hex is None else bytes.fromhex(secret_hex)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, BadAction) as exc:
        say(f"{file}: not a hand record ({type(exc).__name__}: {exc})")
        return 2
    fingerprint = hashlib.sha256(f"{salt}:{','.join(deck)}".encode()).hexdigest()
    print(f"hand {number}")
    print(f"deck fingerprint (deck_commitment): {fingerprint}")
    if secret is None or len(secret) != 32:
        print("server secret: none (a test deck or a deal made before secrets): not derived")
        return 2
    failed = 0
    derived = [str(c) for c in derive_deck(secret, given)]
    print(f"server secret commitment (next_deal): {secret_commitment(secret)}")
    for seat, e in enumerate(seats[:2]):
        print(f"seat {seat} entropy: {e or 'none'}")
    ok = derived == deck
    failed += not ok
    print(f"deck derived from the secrets: {'ok' if ok else 'DIFFERENT'}")
    if commitment is not None:
        ok = commitment.strip().lower() == secret_commitment(secret)
        failed += not ok
        print(f"commitment you saw: {'ok' if ok else 'DIFFERENT'}")
    if entropy is not None:
        ok = entropy.strip().lower() in [e.lower() for e in seats[:2] if e]
        failed += not ok
        print(f"your entropy used: {'ok' if ok else 'NOT FOUND'}")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command in (None, "serve"):
        from hollywood_gin.serve import main as serve  # uvicorn, only when serving

        return serve()
    if args.command == "verify":  # no settings needed: anyone may check a hand
        return run_verify(args.file, args.commitment, args.entropy)
    if args.command == "arena":
        return run_arena(args)
    if args.command == "bot":
        return run_bot(args)
    settings = settings_or_none()
    if settings is None:
        return 2
    if args.command == "backup":
        return run_backup(settings, args.file)
    if args.command == "migrate":
        return run_migrate(settings, args.to)
    return run_check(settings)


def run_migrate(settings: Settings, url: str) -> int:
    """`migrate --to URL`; exit 1 when the copy is refused or does not verify."""
    try:
        from hollywood_gin.tables.migrate import MigrationError, migrate
    except ImportError:
        say("migrate needs the postgres extra: pip install 'hollywood-gin[postgres]'")
        return 2
    try:
        done = asyncio.run(migrate(settings.data_file, url))
    except MigrationError as exc:
        say(f"migrate: {exc}")
        return 1
    counts = ", ".join(f"{n} {c}" for n, c in done.rows.items())
    print(f"copied {counts}; {done.verified} tables verified (same seats and version)")
    for table_id, reason in done.damaged.items():
        print(f"table {table_id[:8]}: copied as it is, does not load ({reason})")
    print("next: set HOLLYWOOD_GIN_DATABASE_URL to that database and start the workers")
    return 0
