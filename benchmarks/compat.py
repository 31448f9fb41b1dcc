"""What benchmarks read of a view, for this checkout and older ones (`bench_versions`
runs both): before the typed views, `Match.view` returned the wire dict itself."""

from __future__ import annotations

from typing import Any

import orjson

# Open to a seated player whenever a match is under way (PROTOCOL.md, "Around the
# match"): never a move of the game, so a benchmark never picks one.
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
