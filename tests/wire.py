"""A view as a client gets it: the `state` body, encoded as the server sends it and
read back, so a test checks the bytes' meaning (no tuple, no dataclass left)."""

from __future__ import annotations

from typing import Any

import orjson

from hollywood_gin.engine.scoring import Sheet
from hollywood_gin.engine.views import View, sheet_view


def wire(view: View) -> dict[str, Any]:
    body: dict[str, Any] = orjson.loads(orjson.dumps(view.wire()))
    return body


def sheet(of: Sheet) -> dict[str, Any]:
    """A sheet as every view sends it."""
    body: dict[str, Any] = orjson.loads(orjson.dumps(sheet_view(of)))
    return body


def playable(legal: list[Any]) -> list[Any]:
    """`legal` without the end actions (`resign`, `claim`, `stand_in`), which a seat has
    whenever a match is under way: what is left is non-empty only when the seat must act.
    Takes wire dicts or engine actions."""
    from hollywood_gin.engine.actions import END_KINDS

    return [a for a in legal if (a["kind"] if isinstance(a, dict) else a.kind) not in END_KINDS]
