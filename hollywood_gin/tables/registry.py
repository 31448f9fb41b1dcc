"""The tables of this process by id, and what the web layer asks of them.

Each change (taking a seat, a move, a card order, a seat coming back) is a few
lines around `Writer.change` (`hollywood_gin.tables.writer`), the one path of
every change: lock, apply, store, then show. Whether this worker writes its store
alone or claims its tables from a shared one is the `Ownership`
(`hollywood_gin.tables.ownership`); who is there and the turn clocks are the
`Presence` (`hollywood_gin.tables.presence`). All of them are made and wired in
`hollywood_gin.tables.lifecycle.assemble`, which also starts and stops them. A
table itself is `hollywood_gin.tables.table`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable, Mapping, Sequence

from hollywood_gin.engine.dealer import Dealer, check_entropy
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.options import Options
from hollywood_gin.tables.computer import Computer
from hollywood_gin.tables.held import Held
from hollywood_gin.tables.hub import Hub
from hollywood_gin.tables.idle import Idle
from hollywood_gin.tables.moves import Moves
from hollywood_gin.tables.orders import Orders
from hollywood_gin.tables.ownership import Ownership
from hollywood_gin.tables.presence import Presence
from hollywood_gin.tables.reviews import Reviews, hand_record
from hollywood_gin.tables.store import FailureEpisode, TableStore
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
    short,
)
from hollywood_gin.tables.thinking import Thinkers
from hollywood_gin.tables.writer import Observer, Undo, Writer

log = logging.getLogger("hollywood_gin.tables")

DEFAULT_NAMES = ("Player 1", "Player 2")


class Registry:
    """All live tables of this process, by id, and what the web layer asks of them.

    Made by `lifecycle.assemble` from the collaborators it hands each what they need;
    nothing here builds one, and none of them knows the registry."""

    def __init__(
        self,
        *,
        store: TableStore,
        hub: Hub,
        held: Held,
        writer: Writer,
        ownership: Ownership,
        presence: Presence,
        computer: Computer,
        moves: Moves,
        orders: Orders,
        reviews: Reviews,
        episode: FailureEpisode,
        thinkers: Thinkers | None,
        expiry_seconds: float,
        owner: str,
        clock: Callable[[], float],
        rng: random.Random | None,
    ) -> None:
        self.store = store
        self.hub = hub
        self.held = held
        self.writer = writer
        self.ownership = ownership
        self.presence = presence
        self.computer = computer
        self.orders = orders
        self.reviews = reviews
        self.store_episode = episode
        self.thinkers = thinkers
        self.expiry_seconds = expiry_seconds
        self.owner = owner
        # The clock of every collaborator (`assemble` hands them `now`): tests replace it.
        self.clock = clock
        self.rng = rng
        # A move, the same path for everybody (`Moves.act`): no frame of its own here.
        self.act = moves.act
        # Idle tables leaving memory (set by `assemble`; None: every table stays).
        self.idle: Idle | None = None

    @property
    def tables(self) -> dict[str, Table]:
        return self.held.tables

    @property
    def observer(self) -> Observer:
        return self.writer.observer  # `Metrics.watch` replaces it there

    # --- the tables held here -------------------------------------------------------
    def get(self, table_id: str) -> Table | None:
        """The table if this worker holds it (it never claims: see `find`)."""
        return self.held.get(table_id)

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
        table = self.held.get(table_id)
        return table.seat_for_token(token) if table else None

    def __len__(self) -> int:
        return len(self.held)

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
        await self.ownership.close()

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
        table = new_table(opts, seats, dealer, entropy, clock=self.clock)
        await self.writer.stored(self.store.create(table.record()))
        made = f"{opts.rules}/{opts.scoring}/{opts.target}"
        made += f", computer {computer}" if computer else ""
        log.info("table %s created: %s", short(table.id), made)
        self.ownership.created(table)
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
    async def arrange(self, table: Table, seat: int, cards: Sequence[str]) -> None:
        """Keep the seat's card order; only that seat's connections get a new state.

        Not written at once (`hollywood_gin.tables.orders`): with the table's next
        stored change, or within `ORDER_SECONDS`, or at shut-down. When written, the
        order is kept with the seat, overwritten (`save_seats`), not appended to the
        log: a table's stored size does not grow with arranging, however often.
        """
        async with table.lock:  # not while a change of the table is being stored
            table.arrange(seat, cards)
            self.writer.arranged(table)
        self.writer.tell(table, [seat])
        self.orders.later(table)

    def public(self, table: Table) -> dict[str, object]:
        """The table's public facts (`GET /api/tables/{id}`), its players as shown now."""
        facts = table.public(self.presence.players(table))
        if table.options.move_days is not None:  # a table played over days: its deadlines
            facts["move_days"] = table.options.move_days
            facts["server_time"] = int(self.clock() * 1000)
        return facts

    async def touch(self, table: Table) -> None:
        """Mark the table as looked at; a failure to store that only makes it look older."""
        table.last_active = self.clock()
        with contextlib.suppress(StoreUnavailable):
            await self.writer.stored(self.store.touch(table.id, table.last_active))

    # --- finished hands ----------------------------------------------------------------
    async def hand_record(self, table_id: str, number: int) -> JsonObject:
        """A finished hand's record (`reviews.hand_record`)."""
        return await hand_record(await self._require(table_id), self.store, number)
