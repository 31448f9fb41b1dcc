"""A program's commands: `arena A B` (two bots on duplicate deals, in this process) and
`bot URL` (a bot plays a table's seat over the wire). Each imports its own part only when
run."""

from __future__ import annotations

import argparse

from hollywood_gin.cli.output import say
from hollywood_gin.engine.options import Options


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
