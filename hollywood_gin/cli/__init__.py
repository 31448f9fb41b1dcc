"""`hollywood-gin`: the host's commands (`serve`, `backup FILE`, `check`, `migrate`:
`cli/host.py`), a program's (`bot URL`, `arena A B`: `cli/programs.py`), and `verify
FILE` (`cli/verify.py`), which checks a downloaded hand record's deal for anyone. This
module holds the command line and sends each command to its module.

`python -m hollywood_gin` is the same program; with no command it serves.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path

from hollywood_gin import __version__
from hollywood_gin.cli.host import run_backup, run_check, run_migrate
from hollywood_gin.cli.output import say
from hollywood_gin.cli.programs import run_arena, run_bot, run_ratings
from hollywood_gin.cli.verify import run_verify
from hollywood_gin.config import ENV_PREFIX, Settings, SettingsError, source_commit
from hollywood_gin.engine.vocabulary import RULES


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
        " seats' entropy (docs/protocol-guide.md, 'Deals nobody can choose') and compare."
        " Exit 0: the deck is the derived one (and matches what --commitment and --entropy name);"
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
        " easy, normal, hard, random, computer:ID (a rung of the ladder, GET /api/computers),"
        " openspiel:simple (the bots extra) or module:factory, where factory() returns a"
        " bot (docs/bots.md).",
    )
    arena.add_argument("a", metavar="A")
    arena.add_argument("b", metavar="B")
    arena.add_argument("--deals", type=_positive, default=200, metavar="N")
    arena.add_argument("--seed", type=int, default=0, metavar="S", help="the first deal's number")
    arena.add_argument("--jobs", type=_positive, default=1, metavar="J", help="processes")
    arena.add_argument("--rules", choices=RULES, default="standard")
    arena.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: each side's shares, intervals and style figures",
    )
    rate = commands.add_parser(
        "ratings",
        help="measure the ladder's Elo ratings in the arena and write the ratings file",
        description="Plays each rung of the computer ladder against the next and against"
        " the rung three above on duplicate deals (fresh deals from --seed), fits an Elo"
        " per rung (normal fixed at 1500) with 95 %% bootstrap intervals and writes"
        " hollywood_gin/bots/ratings.json, which GET /api/computers reads (docs/bots.md).",
    )
    rate.add_argument("--deals", type=_positive, default=30, metavar="N")
    rate.add_argument(
        "--search-deals",
        type=_positive,
        default=8,
        metavar="N",
        help="deals of a pairing where a searching rung plays (its moves cost most)",
    )
    rate.add_argument("--seed", type=int, default=910_000, metavar="S")
    rate.add_argument("--jobs", type=_positive, default=1, metavar="J", help="processes")
    rate.add_argument("--out", type=Path, default=None, metavar="FILE")
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


def settings_or_none() -> Settings | None:
    try:
        return Settings.from_env()
    except SettingsError as exc:
        say(str(exc))
        return None


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command in (None, "serve"):
        from hollywood_gin.serve import main as serve  # uvicorn, only when serving

        return serve()
    if args.command == "verify":  # no settings needed: anyone may check a hand
        return run_verify(args.file, args.commitment, args.entropy)
    if args.command == "arena":
        return run_arena(args)
    if args.command == "ratings":
        return run_ratings(args)
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
