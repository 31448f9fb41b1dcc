"""The tables of this process by id, and what the web layer asks of them.

Each change (taking a seat, a move, a card order, a seat coming back) is a few
lines around `Writer.change` (`hollywood_gin.tables.writer`), the one path of
every change: lock, apply, store, then show. Whether this worker writes its store
alone or claims its tables from a shared one is the `Ownership`
(`hollywood_gin.tables.ownership`), chosen once here; start-up and shut-down are
`hollywood_gin.tables.lifecycle`. A table itself is `hollywood_gin.tables.table`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.dealer import Dealer, check_entropy
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.options import Options
from hollywood_gin.tables.computer import Computer, Policy
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.orders import Orders
from hollywood_gin.tables.ownership import ownership_for, worker_name
from hollywood_gin.tables.presence import Presence
from hollywood_gin.tables.reviews import Reviews, hand_record
from hollywood_gin.tables.store import FailureEpisode, TableRecord, TableStore
from hollywood_gin.tables.table import (
    NoBots,
    SeatHolder,
    StoreUnavailable,
    Table,
    TableFull,
    UnknownTable,
    computer_seat,
    hash_token,
    new_table,
    new_token,
    possible_table_id,
    rebuild_table,
    short,
)
from hollywood_gin.tables.thinking import Thinkers
from hollywood_gin.tables.writer import Observer, Undo, Writer

log = logging.getLogger("hollywood_gin.tables")

DEFAULT_NAMES = ("Player 1", "Player 2")


class Registry:
    """All live tables of this process, by id."""

    def __init__(
        self,
        store: TableStore,
        hub: Hub,
        *,
        expiry_seconds: float,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        policy: Policy | None = None,
        computer_delay: float = 0.8,
        computer_rng: random.Random | None = None,
        thinkers: Thinkers | None = None,
        owner: str | None = None,
        watch_seconds: float = 2.0,
        claim_after: float = 120.0,
    ) -> None:
        self.store = store
        self.hub = hub
        self.expiry_seconds = expiry_seconds
        self.clock = clock
        self.rng = rng
        self.thinkers = thinkers
        self.owner = owner or worker_name()
        # A seat with no connection for this long is away
        # (docs/protocol-guide.md "Around the match").
        self.claim_after = claim_after
        self.tables: dict[str, Table] = {}
        self.store_episode = FailureEpisode(log, "storing a change")
        # Chosen once: this worker writes its store alone, or shares it
        # (docs/architecture.md "One owner per table").
        self.ownership = ownership_for(self, watch_seconds)
        self.writer = Writer(
            store, hub, self.ownership, self.store_episode, clock=self._now, rng=rng
        )
        # Who is there, who is away, the turn clocks (`presence`): what the hub's
        # states say of the players, told of the hub's comings and goings.
        self.presence = Presence(
            clock=self._now, claim_after=claim_after, broadcast=hub.broadcast, held=self.get
        )
        hub.seating = self.presence
        # Told of every change, as the hub is: the computer seats.
        self.computer = Computer(
            self, policy=policy, delay=computer_delay, rng=computer_rng, thinkers=thinkers
        )
        self.presence.hands(
            act=self.act,
            choose=self.computer.choose_for,
            change=self.writer.change,
            start=self.writer.start,
        )
        # Card orders are written with the next change, or within seconds (`orders`).
        self.orders = Orders(self.writer, lambda t: self.tables.get(t.id) is t)
        # The presence first: the deadline of the action due is in the hub's states.
        self.writer.listeners += [self.presence, hub, self.computer]
        # The coach's reviews of finished hands, computed in a pool of their own.
        self.reviews = Reviews(store)

    def _now(self) -> float:  # the clock as it is now: tests replace `clock`
        return self.clock()

    @property
    def observer(self) -> Observer:
        return self.writer.observer  # `Metrics.watch` replaces it there

    # --- the tables held here -------------------------------------------------------
    def get(self, table_id: str) -> Table | None:
        """The table if this worker holds it (it never claims: see `find`)."""
        return self.tables.get(table_id)

    async def find(self, table_id: str) -> Table | None:
        """The table, claimed from a shared store on its first request; None: no such table.

        Raises `StoreUnavailable` when the store cannot be asked (nothing is known).
        """
        if not possible_table_id(table_id):
            return None  # never asked of the store: a NUL byte made PostgreSQL fail
        return await self.ownership.find(table_id)

    async def _require(self, table_id: str) -> Table:
        table = await self.find(table_id)
        if table is None:
            raise UnknownTable("no such table")
        return table

    def seat_for_token(self, table_id: str, token: str) -> int | None:
        table = self.tables.get(table_id)
        return table.seat_for_token(token) if table else None

    def __len__(self) -> int:
        return len(self.tables)

    def rebuild(self, record: TableRecord) -> Table:
        return rebuild_table(record, rng=self.rng)

    def hold(self, table: Table) -> None:
        """Hold `table` here (created, loaded or claimed): the computer may move."""
        self.tables[table.id] = table
        self.presence.hold(table)
        self.writer.tell(table)

    async def load(self) -> int:
        """The tables held from the start (all of a store this worker alone writes)."""
        return await self.ownership.load()

    async def close(self) -> None:
        """Stop the tables' tasks; the changes under way end first."""
        await self.presence.close()
        tasks = self.computer.tasks() + self.ownership.tasks()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.orders.close()
        await self.writer.close()

    # --- creating and seating -------------------------------------------------------
    async def create(
        self,
        options: Options | Mapping[str, object],
        name: str | None,
        *,
        computer: str | None = None,
        test_decks: Sequence[Sequence[str]] | None = None,
        first_dealer: int | None = None,
        lang: str | None = None,
        entropy: str | None = None,
        test_secrets: Sequence[bytes] = (),
        bot: bool = False,
        bots: bool = True,
    ) -> tuple[Table, str]:
        """A new table with its creator at seat 0; returns it and the creator's token.
        `lang` is the creator's page language, kept for the link preview; `entropy` the
        creator's part of the first deal (`table.next_deal` its commitment); `bot`: the
        creator is a program; `bots` False: the table refuses a bot's join."""
        opts = options if isinstance(options, Options) else Options.from_dict(options)
        token = new_token()
        seats = [
            SeatHolder(
                name or DEFAULT_NAMES[0], hash_token(token), lang=lang, bot=bot, no_bots=not bots
            )
        ]
        if computer is not None:
            seats.append(computer_seat(computer))
        # Fair: every deal after the test decks is derived from a fresh secret and the
        # seats' entropy (docs/protocol-guide.md "Deals nobody can choose").
        dealer = Dealer(
            self.rng, test_decks or (), first_dealer, fair=True, chosen_secrets=test_secrets
        )
        table = new_table(opts, seats, dealer, entropy, clock=self._now)
        await self.writer.stored(self.store.create(table.record()))
        table.logged = len(table.match.log)
        made = f"{opts.rules}/{opts.scoring}/{opts.target}"
        made += f", computer {computer}" if computer else ""
        log.info("table %s created: %s", short(table.id), made)
        self.hold(table)
        return table, token

    async def join(
        self, table_id: str, name: str | None, *, entropy: str | None = None, bot: bool = False
    ) -> tuple[int, str]:
        """Seat a person (or, `bot`, a program: `NoBots` where bots are refused) in the
        free seat and start the match; return (seat, token). `entropy`: the joiner's
        part of the first deal."""
        if entropy is not None:
            check_entropy(entropy)  # refused before anything changes
        table = await self._require(table_id)
        if bot and not table.bots_welcome:
            raise NoBots("this table does not take bots")
        token = new_token()
        holder = SeatHolder(name or DEFAULT_NAMES[1], hash_token(token), bot=bot)
        await self._sit(table, holder, entropy)
        return 1, token

    async def seat_computer(self, table_id: str, strength: str) -> int:
        holder = computer_seat(strength)
        await self._sit(await self._require(table_id), holder)
        return 1

    async def _sit(self, table: Table, holder: SeatHolder, entropy: str | None = None) -> None:
        """`holder` takes the free seat and the match starts: seats and deal stored."""

        def sit() -> Undo:
            seat = len(table.seats)
            if seat >= 2:
                raise TableFull("both seats are taken")
            if entropy is not None:
                table.match.contribute(seat, entropy)
            table.match.start()
            table.seats.append(holder)
            self.presence.sat_down(table, seat)
            # Undone, nobody sat down: the seat is free again (were the seats stored
            # but not the deal, the next one to sit stores them anew: `rebuild_table`).
            return table.seats.pop

        await self.writer.change(table, sit, seats=True)
        by = f" by the computer ({holder.computer})" if holder.computer else ""
        log.info("table %s seat %d taken%s", short(table.id), len(table.seats) - 1, by)

    # --- playing --------------------------------------------------------------------
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

        def move() -> Undo:
            # A claim is judged by the presence of this moment, not of the last tick.
            self.presence.refresh_away(table, broadcast=False)
            before = table.status
            table.match.apply(seat, action, version, by=by, entropy=entropy)
            if table.status != before and table.status in ("hand_over", "match_over"):
                hand = table.match.hand
                number = None if hand is None else hand.number
                over = ", match over" if table.status == "match_over" else ""
                log.info("table %s hand %s over%s", short(table.id), number, over)
            return None

        await self.writer.change(table, move, in_caller=in_caller)
        self.observer.action(action.kind, time.perf_counter() - began)

    async def arrange(self, table: Table, seat: int, cards: Sequence[str]) -> None:
        """Keep the seat's card order; only that seat's connections get a new state.

        Not written at once (`hollywood_gin.tables.orders`): with the table's next
        stored change, or within `ORDER_SECONDS`, or at shut-down. When written, the
        order is kept with the seat, overwritten (`save_seats`), not appended to the
        log: a table's stored size does not grow with arranging, however often.
        """
        async with table.lock:  # not while a change of the table is being stored
            table.arrange(seat, cards)
            table.orders_unsaved = True
        self.writer.tell(table, [seat])
        self.orders.later(table)

    def public(self, table: Table) -> dict[str, object]:
        """The table's public facts (`GET /api/tables/{id}`), its players as shown now."""
        return table.public(self.presence.players(table))

    async def touch(self, table: Table) -> None:
        """Mark the table as looked at; a failure to store that only makes it look older."""
        table.last_active = self.clock()
        with contextlib.suppress(StoreUnavailable):
            await self.writer.stored(self.store.touch(table.id, table.last_active))

    # --- finished hands ----------------------------------------------------------------
    async def hand_record(self, table_id: str, number: int) -> JsonObject:
        """A finished hand's record (`reviews.hand_record`)."""
        return await hand_record(await self._require(table_id), self.store, number)
