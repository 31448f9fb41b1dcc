"""`legal`'s encoded actions are kept by the hub (one per app), shared by its tables:
one `LegalBytes` over whole matches gives the plain encoding every time, and a
hub's tables encode through their hub's, not a module's."""

from __future__ import annotations

import random

import orjson

from hollywood_gin.bots import Bot
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.tables.frames import LegalBytes
from hollywood_gin.tables.hub import Hub


def test_one_legal_bytes_over_whole_matches_is_the_plain_encoding() -> None:
    kept = LegalBytes()
    knocks = 0
    for seed in range(4):
        bots = (Bot("easy", random.Random(seed + 1)), Bot("easy", random.Random(seed + 2)))
        match = Match(Options("standard", "game", 100), rng=random.Random(seed + 100))
        match.start()
        for _ in range(300):
            for seat in (0, 1, None):
                view = match.view(seat)
                assert kept.encode(view) == orjson.dumps(view.legal_wire()), (seed, seat)
                knocks += len(view.knock_deadwood)
            seat = next((s for s in (0, 1) if match.playable(s)), None)
            if match.status == "match_over" or seat is None:
                break
            if match.status == "playing":
                match.apply(seat, bots[seat].choose(match.view(seat)))
            else:
                match.apply(seat, match.playable(seat)[0])
    assert knocks, "knocks with their deadwood were encoded too"


def test_each_hub_keeps_its_own() -> None:
    a = Hub(max_tabs_per_seat=2, max_spectators=2)
    b = Hub(max_tabs_per_seat=2, max_spectators=2)
    assert a.legal is not b.legal
    match = Match(Options("standard", "hand", 100), rng=random.Random(1))
    match.start()
    for seat in (0, 1):
        a.legal.encode(match.view(seat))
    assert a.legal._encoded and not b.legal._encoded
