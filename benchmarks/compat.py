"""What benchmarks read of a view, for this checkout and older ones (`bench_versions`
runs both): before the typed views, `Match.view` returned the wire dict itself."""

from __future__ import annotations

import random
from typing import Any

import orjson

# Open to a seated player whenever a match is under way
# (docs/protocol-guide.md "Around the match"): never a move of the game, so a benchmark
# never picks one.
END_KINDS = frozenset({"resign", "claim", "stand_in"})


def playable(legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`legal` without the end actions: non-empty only when the seat must act."""
    return [a for a in legal if a["kind"] not in END_KINDS]


def legal(view: Any) -> list[dict[str, Any]]:
    """A view's `legal` as sent (wire dicts), without the end actions."""
    if isinstance(view, dict):
        return playable(list(view["legal"]))
    return playable(list(view.legal_wire()))


def state(view: Any) -> dict[str, Any]:
    """A view as sent: the `state` body without the table's id and players."""
    if isinstance(view, dict):
        return view
    body: dict[str, Any] = orjson.loads(orjson.dumps(view.wire()))
    return body


def next_actions(table: Any, rng: random.Random) -> list[tuple[int, dict[str, Any]]]:
    """The actions a random player sends next at `table`, by seat (wire dicts as
    `legal` shows them): a legal move of the seat to act, a knock half the time one
    is offered; at a hand's or a match's end, Next hand (or New match) for both seats."""
    match = table.match
    legal_now: list[dict[str, Any]] = []
    seat = 0
    for seat in (0, 1):
        legal_now = legal(match.view(seat))
        if legal_now:
            break
    if not legal_now:
        kind = "new_match" if table.status == "match_over" else "next_hand"
        return [(0, {"kind": kind}), (1, {"kind": kind})]
    knocks = [a for a in legal_now if a["kind"] == "knock"]
    others = [a for a in legal_now if a["kind"] != "knock"] or legal_now
    return [(seat, rng.choice(knocks if knocks and rng.random() < 0.5 else others))]


async def played_tables(registry: Any, count: int, moves: int, rng: random.Random) -> list[Any]:
    """`count` tables made on `registry`, Ann's with Bob joined, `moves` random legal
    moves into each (never a knock: the first hand goes on)."""
    from hollywood_gin.engine.actions import parse_action

    tables = []
    for _ in range(count):
        table, _token = await registry.create({}, "Ann")
        await registry.join(table.id, "Bob")
        for _ in range(moves):
            seat = next(s for s in (0, 1) if legal(table.match.view(s)))
            kept = [a for a in legal(table.match.view(seat)) if a["kind"] != "knock"]
            await registry.act(table, seat, parse_action(rng.choice(kept)), table.version)
        tables.append(table)
    return tables
