"""A program's commands: `arena A B` (two bots on duplicate deals, in this process) and
`bot URL` (a bot plays a table's seat over the wire). Each imports its own part only when
run."""

from __future__ import annotations

import argparse
import json
import os
import sys

from hollywood_gin.cli.output import say
from hollywood_gin.engine.options import Options


def bots_from_here() -> None:
    """The working folder first on the import path, as `python -m` puts it: a console
    script's `sys.path[0]` is its own `bin/`, so `--bot greedy:Greedy` run beside
    `greedy.py` (docs/bots.md) could not import it. Worker processes (`--jobs`) are
    given the parent's path."""
    here = os.getcwd()
    if not any(entry in ("", ".", here) for entry in sys.path[:1]):
        sys.path.insert(0, here)


def run_arena(args: argparse.Namespace) -> int:
    from hollywood_gin.bots.arena import IllegalChoice, duplicate

    bots_from_here()
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
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(result.report())
    return 0


def run_ratings(args: argparse.Namespace) -> int:
    from hollywood_gin.bots import ratings

    played = ratings.measure(args.deals, args.search_deals, args.seed, jobs=args.jobs)
    command = (
        f"hollywood-gin ratings --deals {args.deals} --search-deals {args.search_deals}"
        f" --seed {args.seed} --jobs {args.jobs}"
    )
    data = ratings.write(played, command, args.seed, args.out or ratings.PATH)
    for r in data["ratings"]:
        lo, hi = r["elo_ci"]
        print(f"L{r['level']} {r['id']:<9} {r['elo']:>5}  ({lo}-{hi})")
    return 0


def run_bot(args: argparse.Namespace) -> int:
    from hollywood_gin.client import ClientError, IllegalChoice, load_bot, match_summary, play
    from hollywood_gin.engine.views import View

    bots_from_here()
    ended = 0

    def report(view: View) -> None:
        nonlocal ended
        ended += 1
        print(f"match {ended}: {match_summary(view)}", flush=True)

    try:
        make = load_bot(args.bot_spec)
        played = play(args.url, make(), name=args.name, matches=args.matches, on_match=report)
    except (ClientError, IllegalChoice) as exc:
        say(str(exc))
        return 1
    except KeyboardInterrupt:
        return 130
    print(f"played {played} match{'' if played == 1 else 'es'}")
    return 0
