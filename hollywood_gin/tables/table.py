"""One table: its options, its two seats and their tokens, its match, its lock.

The registry holds the tables of this process by id and is the one writer of each;
a `Table` is what it holds. The layer's errors are `hollywood_gin.tables.errors`
(the registry, the writer and the ownership import five of them from here still).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hollywood_gin.engine.dealer import Dealer
from hollywood_gin.engine.events import log_from_json
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options, Order
from hollywood_gin.engine.views import View
from hollywood_gin.engine.vocabulary import COMPUTER_IDS
from hollywood_gin.tables.errors import Moved as Moved
from hollywood_gin.tables.errors import NoBots as NoBots
from hollywood_gin.tables.errors import StoreUnavailable as StoreUnavailable
from hollywood_gin.tables.errors import TableError
from hollywood_gin.tables.errors import TableFull as TableFull
from hollywood_gin.tables.errors import UnknownTable as UnknownTable
from hollywood_gin.tables.hub import Seat
from hollywood_gin.tables.store import SeatRecord, TableRecord


def new_table_id() -> str:
    """128 random bits, URL-safe (docs/protocol-guide.md "HTTP endpoints" asks for at least 96)."""
    return secrets.token_urlsafe(16)


TABLE_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
TABLE_ID_MAX = 64


def possible_table_id(text: str) -> bool:
    """Could `text` be a table id (URL-safe letters, 1 to 64)? Anything else (a NUL
    byte, a slash, a percent sign) names no table and is never looked up in the store."""
    return 0 < len(text) <= TABLE_ID_MAX and all(ch in TABLE_ID_CHARS for ch in text)


def new_token() -> str:
    """256 random bits: the seat's secret."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def short(table_id: str) -> str:
    """Log lines name a table by a prefix: a full id is enough to watch it."""
    return table_id[:8]


@dataclass
class SeatHolder:
    name: str
    token_hash: str
    computer: str | None = None
    lang: str | None = None
    order: Order | None = None
    bot: bool = False  # a program plays this seat (docs/protocol-guide.md "Bots")
    no_bots: bool = False  # the creator's seat: the table refuses bots
    # Web Push subscriptions of this seat (`hollywood_gin.tables.push`), oldest first.
    push: list[JsonObject] = field(default_factory=list)
    # A table played over days: by when (clock seconds) the seat must act; None while
    # nothing is asked of it (`hollywood_gin.tables.presence.Days`). Stored with the seats.
    deadline: float | None = None

    def record(self) -> SeatRecord:
        return SeatRecord(
            self.name,
            self.token_hash,
            self.computer,
            self.lang,
            None if self.order is None else self.order.to_json(),
            self.bot,
            self.no_bots,
            list(self.push),
            self.deadline,
        )


class TableLock(asyncio.Lock):
    """asyncio's lock, taken and given back without its inner calls while nobody
    waits for it: a table's lock is taken once a move and hardly ever waited for, and
    `async with` on asyncio's own costs three more Python calls (`acquire`'s
    coroutine, `release`, `_wake_up_first`). Otherwise it is asyncio's lock."""

    _locked: bool  # asyncio's own attribute (typeshed leaves it out)

    async def __aenter__(self) -> None:
        if not self._locked and not self._waiters:  # `acquire`'s own first case
            self._locked = True
            return
        await self.acquire()

    async def __aexit__(self, *exc_info: object) -> None:
        if self._locked and not self._waiters:  # `release` with nobody to wake
            self._locked = False
            return
        self.release()


class Table:
    """One table: options, seats, its match, its lock. Small on purpose."""

    def __init__(
        self,
        table_id: str,
        options: Options,
        match: Match,
        seats: list[SeatHolder],
        *,
        created: float,
        last_active: float,
    ) -> None:
        self.id = table_id
        self.options = options
        self.match = match
        self.seats = seats
        self.created = created
        self.last_active = last_active
        self.lock = TableLock()
        # The first deal's commitment as the creator was answered (the match may have
        # started at once, with the computer); later ones are in the states.
        self.next_deal: str | None = match.next_deal

    @property
    def status(self) -> str:
        return str(self.match.status)

    @property
    def version(self) -> int:
        return int(self.match.version)

    @property
    def creator_language(self) -> str | None:
        """The page language of the player who created the table, if known."""
        return self.seats[0].lang if self.seats else None

    @property
    def bots_welcome(self) -> bool:
        """Whether a bot may take the free seat (the creator's choice, default yes)."""
        return not (self.seats and self.seats[0].no_bots)

    def computer_seat(self) -> int | None:
        for seat, holder in enumerate(self.seats):
            if holder.computer is not None:
                return seat
        return None

    def view(self, seat: Seat) -> View:
        """The engine's view of `seat` (the hub adds the table's id and players on the wire)."""
        return self.match.view(seat)

    def arrange(self, seat: int, cards: Sequence[str]) -> Callable[[], None]:
        """Keep the seat's cards in this order; returns how to put the order back."""
        holder, match = self.seats[seat], self.match
        before, kept = holder.order, match.orders.get(seat)
        shown = list(match.hand.cards[seat]) if match.hand is not None else []
        match.arrange(seat, list(cards))
        holder.order = match.orders.get(seat)

        def undo() -> None:  # not stored, so not made: the order shown before
            holder.order = before
            if match.hand is not None:
                match.hand.cards[seat] = shown
            if kept is None:
                match.orders.pop(seat, None)
            else:
                match.orders[seat] = kept

        return undo

    def human(self, seat: int) -> bool:
        return seat < len(self.seats) and self.seats[seat].computer is None

    def public(self, players: list[dict[str, object]]) -> dict[str, object]:
        """Public facts (the `GET /api/tables/{id}` answer) with the seats' `players`
        (`Presence.players`): never a card, never a token."""
        options = self.options.to_dict()
        return {
            "id": self.id,
            "rules": options["rules"],
            "scoring": options["scoring"],
            "target": options["target"],
            "status": self.status,
            "version": self.version,
            "players": players,
            "open_seats": [s for s in (0, 1) if s >= len(self.seats)],
            "bots": self.bots_welcome,
            # The seat to move while a hand is played (the home page's "my tables").
            "turn": self._turn(),
        } | self._record()

    def _record(self) -> dict[str, object]:
        """The matches each seat won here (the record between the two seats), once any."""
        won = self.match.matches_won
        return {"matches_won": list(won)} if any(won) else {}

    def _turn(self) -> int | None:
        hand = self.match.hand
        return hand.turn if self.match.status == "playing" and hand is not None else None

    def seat_for_token(self, token: str) -> int | None:
        digest = hash_token(token)
        found = None
        for seat, holder in enumerate(self.seats):
            # Compare every seat, in constant time, so timing tells nothing.
            if hmac.compare_digest(digest, holder.token_hash):
                found = seat
        return found

    def record(self) -> TableRecord:
        return TableRecord(
            table_id=self.id,
            options=self.options.to_dict(),
            seats=[h.record() for h in self.seats],
            created=self.created,
            last_active=self.last_active,
            log=[e.to_json() for e in self.match.log],
        )


def rebuild_match(record: TableRecord, rng: random.Random | None = None) -> tuple[Options, Match]:
    """A stored table's options and match, replayed; raises when the record is damaged."""
    options = Options.from_dict(record.options)
    orders = {i: order for i, s in enumerate(record.seats) if (order := Order.from_json(s.order))}
    log = log_from_json(record.log)
    match = Match.replay(options, log, rng=rng, orders=orders, endings=True, fair=True)
    for seat in record.seats:
        if seat.computer is not None and seat.computer not in COMPUTER_IDS:
            raise TableError(f"unknown computer {seat.computer[:20]!r}")
    if len(record.seats) < 2 and match.status != "waiting":
        raise TableError("a match under way with a seat empty")
    return options, match


def rebuild_table(
    record: TableRecord,
    *,
    rng: random.Random | None,
) -> Table:
    """A stored table as it was, its match replayed; raises when the record is damaged."""
    options, match = rebuild_match(record, rng)
    seats = [
        SeatHolder(
            s.name,
            s.token_hash,
            s.computer,
            s.lang,
            Order.from_json(s.order),
            s.bot,
            s.no_bots,
            list(s.push),
            s.deadline,
        )
        for s in record.seats
    ]
    if len(seats) == 2 and match.status == "waiting":
        seats = seats[:1]  # its seat was stored, its deal was not: nobody sat down
    return Table(
        record.table_id,
        options,
        match,
        seats,
        created=record.created,
        last_active=record.last_active,
    )


def computer_seat(computer: str) -> SeatHolder:
    """The seat of the computer opponent `computer` (an id of the ladder: easy, normal
    and hard among them); `TableError` for a computer there is not."""
    if computer not in COMPUTER_IDS:
        raise TableError(f"computer must be one of {', '.join(COMPUTER_IDS)}")
    return SeatHolder(f"Computer ({computer})", hash_token(new_token()), computer)


def new_table(
    options: Options,
    seats: list[SeatHolder],
    dealer: Dealer,
    entropy: str | None,
    *,
    clock: Callable[[], float],
) -> Table:
    """A new table: its match waits for the second seat, or starts with the computer.
    `entropy` is the creator's part of the first deal (`next_deal` its commitment)."""
    match = Match(options, dealer=dealer)
    match.endings = True
    first_deal = match.next_deal
    if entropy is not None:
        match.contribute(0, entropy)
    if len(seats) == 2:
        match.start()  # the computer's seat adds nothing
    now = clock()
    table = Table(new_table_id(), options, match, seats, created=now, last_active=now)
    table.next_deal = first_deal
    return table
