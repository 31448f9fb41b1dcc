"""The state's wire table (`engine.views.STATE_KEYS` and its parts) is the one
description of the `state` body: every field of the view types is shown by one key,
the views' wire parts write the keys in the table's order, `view_from_wire` reads
them back, and the wire models name the same keys in the same order."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from hollywood_gin.bots import Bot
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.views import (
    HAND_BACK,
    HAND_FRONT,
    MINE_KEYS,
    PER_SEAT,
    STATE_KEYS,
    TABLE_KEYS,
    TAIL_KEYS,
    HandView,
    Key,
    Mine,
    TableView,
    View,
    hand_back,
    hand_front,
    mine_wire,
    table_wire,
    tail_wire,
    view_from_wire,
)
from hollywood_gin.web.socket.state_bodies import HandBody, StateMessage, TableBody


def shown(keys: Sequence[Key]) -> list[str]:
    return [k.field for k in keys if k.field is not None]


def test_every_field_of_the_view_types_is_shown_by_one_key() -> None:
    assert sorted(shown(TABLE_KEYS)) == sorted(TableView._fields)
    assert sorted(shown(MINE_KEYS)) == sorted(Mine._fields)
    assert sorted(shown(HAND_FRONT) + shown(HAND_BACK)) == sorted(HandView._fields)
    # `mine` goes into the hand object, `knock_deadwood` into `legal`.
    assert sorted([*shown(STATE_KEYS), "mine", "knock_deadwood"]) == sorted(View._fields)
    assert set(PER_SEAT) <= set(View._fields)


def test_the_wire_models_name_the_tables_keys_in_order() -> None:
    assert list(TableBody.model_fields) == [k.name for k in TABLE_KEYS]
    hand = [k.name for k in (*HAND_FRONT, *MINE_KEYS, *HAND_BACK)]
    assert list(HandBody.model_fields) == hand
    assert list(StateMessage.model_fields) == [k.name for k in STATE_KEYS]


def by_the_table(keys: Sequence[Key], part: object, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The object as the table reads, key by key: the plain meaning the written
    parts must have."""
    out: dict[str, Any] = {}
    for key in keys:
        if key.field is None:
            if key.name in facts:
                out[key.name] = facts[key.name]
            continue
        value = getattr(part, key.field)
        if key.omitted and value is None:
            continue
        out[key.name] = value if key.put is None else key.put(value)
    return out


def check(view: View) -> None:
    player = {"seat": 0, "name": "Ann", "connected": True, "computer": None}
    facts = {"id": "abc", "players": [player]}
    assert table_wire(view, **facts) == by_the_table(TABLE_KEYS, view.table, facts)
    assert list(table_wire(view, **facts)) == list(by_the_table(TABLE_KEYS, view.table, facts))
    assert list(tail_wire(view).items()) == list(by_the_table(TAIL_KEYS, view, {}).items())
    if view.hand is not None:
        front = by_the_table(HAND_FRONT, view.hand, {})
        back = by_the_table(HAND_BACK, view.hand, {})
        assert list(hand_front(view.hand).items()) == list(front.items())
        assert list(hand_back(view.hand).items()) == list(back.items())
    if view.mine is not None:
        mine = by_the_table(MINE_KEYS, view.mine, {})
        assert list(mine_wire(view.mine).items()) == list(mine.items())
    wire = view.wire({"type": "state"}, **facts)
    order = [k.name for k in STATE_KEYS]
    assert list(wire) == [name for name in order if name in wire]
    body = orjson.loads(orjson.dumps(wire))
    assert orjson.dumps(view_from_wire(body).wire({"type": "state"}, **facts)) == orjson.dumps(wire)
    StateMessage.model_validate(body)


def test_the_views_wire_parts_write_the_table_over_whole_matches() -> None:
    seen: set[str] = set()
    for seed in range(3):
        bots = (Bot("easy", random.Random(seed + 1)), Bot("easy", random.Random(seed + 2)))
        match = Match(Options("standard", "hand", 100), rng=random.Random(seed + 100))
        match.start()
        for _ in range(300):
            for seat in (0, 1, None):
                view = match.view(seat)
                check(view)
                if view.next_deal is None:  # these matches deal without a server secret
                    check(view._replace(next_deal="00ff"))
                hand = view.wire()
                seen.update(hand.get("hand", {}))  # type: ignore[arg-type]
                seen.update(hand)
                seen.update(view._replace(next_deal="00ff").wire())
            if match.status == "match_over":
                break
            seat = next((s for s in (0, 1) if match.playable(s)), None)
            if seat is None:
                break
            if match.status == "playing":
                match.apply(seat, bots[seat].choose(match.view(seat)))
            else:
                match.apply(seat, match.playable(seat)[0])
    # The keys left out while None were there too, some of the time.
    assert {"result", "my_drawn", "my_cards", "next_deal", "hand"} <= seen
