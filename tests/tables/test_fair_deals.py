"""Deals nobody can choose, in the tables layer: the commitment shown is durable (a
restart shows the same one and deals from it), the computer adds nothing, and a table
stored before deals were derived loads and goes on to derived deals."""

from __future__ import annotations

import random
from typing import Any

import pytest

from hollywood_gin.engine import Match, Options
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.dealer import secret_commitment
from hollywood_gin.engine.events import Deal, Entropy, NextDeal
from hollywood_gin.tables.store import SeatRecord, TableRecord
from hollywood_gin.tables.table import Table, hash_token
from tests.engine.test_fair_deal import finish_hand, reference_deck
from tests.tables.memory_store import MemoryStore
from tests.tables.test_registry import make_registry

E0 = "0123456789abcdef0123456789abcdef"
E1 = "fedcba9876543210fedcba9876543210"


async def finish(registry: Any, table: Table) -> None:
    """Play the hand out through the registry (the first legal action, knocks first)."""
    while table.status == "playing":
        seat = next(s for s in (0, 1) if table.match.playable(s))
        legal = table.match.playable(seat)
        knocks = [a for a in legal if a.kind == "knock"]
        await registry.act(table, seat, (knocks or legal)[0], table.version)


@pytest.mark.anyio
async def test_a_restart_keeps_the_commitment_and_deals_from_it() -> None:
    store = MemoryStore()
    registry = make_registry(store)
    table, _ = await registry.create({"scoring": "game"}, "Ann", entropy=E0)
    commitment = table.next_deal
    assert commitment is not None and table.match.next_deal == commitment
    again = make_registry(store)
    await again.load()
    rebuilt = again.get(table.id)
    assert rebuilt is not None and rebuilt.match.next_deal == commitment
    await again.join(table.id, "Bob", entropy=E1)
    deal = rebuilt.match.hand
    assert deal is not None
    secret = next(e for e in rebuilt.match.log if isinstance(e, NextDeal)).secret
    assert secret_commitment(bytes.fromhex(secret)) == commitment
    order = reference_deck(bytes.fromhex(secret), bytes.fromhex(E0), bytes.fromhex(E1))
    assert [str(c) for c in deal.deck] == order
    # Between hands too: the next commitment survives a restart, and so does the
    # entropy sent with one seat's next_hand.
    await finish(again, rebuilt)
    second = rebuilt.match.next_deal
    assert second is not None
    await again.act(rebuilt, 0, parse_action({"kind": "next_hand"}), rebuilt.version, entropy=E1)
    third = make_registry(store)
    await third.load()
    once_more = third.get(table.id)
    assert once_more is not None and once_more.match.next_deal == second
    await third.act(once_more, 1, parse_action({"kind": "next_hand"}), once_more.version)
    await finish(third, once_more)
    record = await third.hand_record(table.id, 2)
    assert record["entropy"] == [E1, None]
    assert secret_commitment(bytes.fromhex(record["server_secret"])) == second


@pytest.mark.anyio
async def test_the_computer_adds_nothing() -> None:
    registry = make_registry()
    table, _ = await registry.create({"scoring": "game"}, "Ann", computer="easy", entropy=E0)
    assert table.next_deal is not None  # the answer's commitment to the first deal
    assert table.match.next_deal is None  # dealt at once
    deal = next(e for e in table.match.log if isinstance(e, Deal)).to_json()
    assert deal["entropy"] == [E0, None]
    assert secret_commitment(bytes.fromhex(str(deal["server_secret"]))) == table.next_deal


@pytest.mark.anyio
async def test_a_table_stored_before_secrets_loads_and_goes_on_to_derived_deals() -> None:
    # A log as written before this change: no secrets, deals shuffled by the rng.
    options = Options("standard", "game", 250)
    old = Match(options, rng=random.Random(9), first_dealer=0)
    old.start()
    finish_hand(old)
    old.endings = True  # as a table's match has them (resign in `legal`)
    assert old.status == "hand_over" and old.next_deal is None
    assert not any(isinstance(e, NextDeal | Entropy) for e in old.log)
    store = MemoryStore()
    seats = [SeatRecord("Ann", hash_token("a")), SeatRecord("Bob", hash_token("b"))]
    store.records["old"] = TableRecord(
        "old", options.to_dict(), seats, 1.0, 1.0, [e.to_json() for e in old.log]
    )
    registry = make_registry(store)
    assert await registry.load() == 1
    table = registry.get("old")
    assert table is not None and table.match.view(0) == old.view(0)
    assert table.match.hand_record(1)["server_secret"] is None  # type: ignore[index]
    # The deal after the old one was never committed to: it is not derived...
    await registry.act(table, 0, parse_action({"kind": "next_hand"}), table.version)
    await registry.act(table, 1, parse_action({"kind": "next_hand"}), table.version)
    await finish(registry, table)
    assert table.match.hand_record(2)["server_secret"] is None  # type: ignore[index]
    # ...every one after it is.
    assert table.match.next_deal is not None
