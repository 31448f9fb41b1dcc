"""`hollywood-gin`: the host's commands (`serve`, `backup FILE`, `check`, `migrate`),
and a program's (`bot URL`, `arena A B`).

`python -m hollywood_gin` is the same program; with no command it serves.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from hollywood_gin import __version__
from hollywood_gin.config import Settings, SettingsError, resource_dir
from hollywood_gin.engine.match import Options
from hollywood_gin.engine.vocabulary import RULES
from hollywood_gin.tables.sqlite_store import (
    NewerSchema,
    OlderSchema,
    backup,
    open_for_reading,
    read_tables,
    set_aside_in,
)
from hollywood_gin.tables.table import rebuild_match


def say(message: str) -> None:
    print(f"hollywood-gin: {message}", file=sys.stderr)


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="hollywood-gin",
        description="Two-player Gin Rummy in the browser. Settings come from"
        " HOLLYWOOD_GIN_* environment variables and a .env file (README).",
    )
    top.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
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
        help="check the settings and the data file without changing anything",
    )
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


def run_backup(settings: Settings, target: Path) -> int:
    if target.resolve() == settings.data_file.resolve():
        say("the backup must go to another file than the data file")
        return 2
    try:
        backup(settings.data_file, target)
    except (OSError, sqlite3.Error) as exc:
        say(f"backup failed: {exc}")
        return 1
    print(f"backed up {settings.data_file} to {target}")
    return 0


def run_check(settings: Settings) -> int:
    """Settings, assets and every table of the data file; exit 1 on any damage."""
    problems = 0
    print(f"settings: ok (port {settings.port}, data file {settings.data_file})")
    for name in ("static", "templates"):
        folder = resource_dir(name)
        if not folder.is_dir():
            print(f"{name}: missing ({folder})")
            problems += 1
    if not settings.data_file.exists():
        print("data file: none yet (made at the first start)")
        return 1 if problems else 0
    try:
        db = open_for_reading(settings.data_file)
    except NewerSchema as exc:
        say(str(exc))
        return 2
    except OlderSchema as exc:
        print(f"data file: {exc}")
        return 1 if problems else 0
    except (OSError, sqlite3.Error) as exc:
        say(f"cannot read the data file: {exc}")
        return 1
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


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command in (None, "serve"):
        from hollywood_gin.__main__ import main as serve  # uvicorn, only when serving

        return serve()
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
