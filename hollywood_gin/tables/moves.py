"""A move at a table, the one way every player makes one: a person's socket, a bot,
the computer seat, a stand-in, the turn clock
(docs/architecture.md "The path of a move").

The move is a `Writer.change` that first asks the presence who is away at this
moment (a claim is judged by the presence of now, not of the last tick), then
applies the action to the match.
"""

from __future__ import annotations

import logging
import time

from hollywood_gin.engine.actions import Action
from hollywood_gin.tables.presence import Presence
from hollywood_gin.tables.table import Table, short
from hollywood_gin.tables.writer import Undo, Writer

log = logging.getLogger("hollywood_gin.tables")


class Moves:
    """Moves at the tables held here, through their one writer."""

    def __init__(self, writer: Writer, presence: Presence) -> None:
        self.writer = writer
        self.presence = presence

    async def act(
        self,
        table: Table,
        seat: int,
        action: Action,
        version: int | None,
        *,
        by: str | None = None,
        entropy: str | None = None,
        in_caller: bool = False,
    ) -> None:
        """Apply one action for `seat`; raise `RuleError` (nothing changed) when refused.
        `by`: who moves for the seat (`timeout`, `stand_in`; None: the seat itself).
        `entropy` goes with `next_hand` / `new_match` (the seat's part of the next deal).
        `in_caller`: the change runs in the caller's task, which nothing cancels
        meanwhile (`Writer.change`)."""
        began = time.perf_counter()
        refresh_away = self.presence.refresh_away

        def move() -> Undo:
            # A claim is judged by the presence of this moment, not of the last tick.
            refresh_away(table, broadcast=False)
            match = table.match  # (its status read directly: `Table.status` is a call)
            before = match.status
            match.apply(seat, action, version, by=by, entropy=entropy)
            status = match.status
            if status != before and status in ("hand_over", "match_over"):
                hand = match.hand
                number = None if hand is None else hand.number
                over = ", match over" if status == "match_over" else ""
                log.info("table %s hand %s over%s", short(table.id), number, over)
            return None

        await self.writer.change(table, move, in_caller=in_caller)
        self.writer.observer.action(action.kind, time.perf_counter() - began)
