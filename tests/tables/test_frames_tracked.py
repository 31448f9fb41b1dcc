"""What a change's state frames leave alive for the garbage collector.

At human pace a table's objects from one move live until its next move, seconds
later, so every young collection walks each tracked object a move leaves behind
(docs/research/performance-log.md "The seats' views for the collector"). The views and frames of
one change may leave what every seat's view shares (the hand's public view, kept
for the other views of that change, and what it holds), but nothing per seat: a
seat's own keys and its `legal` are encoded for its frame and not kept, so no
`Mine` or tuple of a seat outlives its frame for a collection to walk.
"""

from __future__ import annotations

import gc
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace

import orjson

from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.tables.frames import EncodedParts, LegalBytes, Seat, StateFrames

PLAYERS: list[dict[str, object]] = [{"name": "Ann"}, {"name": "Bob"}]


@contextmanager
def young_only() -> Iterator[None]:
    """Everything alive now frozen (out of the young generation) and no collection
    running meanwhile: `gc.get_objects(0)` is then what was made since and is alive."""
    enabled = gc.isenabled()
    gc.disable()
    gc.freeze()  # (no collection: a cycle left over is frozen too, and counts for none)
    try:
        yield
    finally:
        gc.unfreeze()
        if enabled:
            gc.enable()


def held_by(legal_bytes: LegalBytes) -> set[int]:
    """The ids of the app's encoded actions' containers (`LegalBytes`: its dicts,
    tracked from the first container put in them, and its knocks' keys, at most
    one per card and deadwood for the app's life)."""
    knocks = legal_bytes._knocks
    return {id(o) for o in (legal_bytes._encoded, knocks, *knocks)}


def left_by_frames(match: Match, parts: EncodedParts, seats: tuple[Seat, ...]) -> Counter[str]:
    """The types of the tracked objects that `seats`' frames of the match's present
    change leave alive, each frame checked against the plain encoding (the app's
    encoded actions not counted: `held_by`)."""
    table = SimpleNamespace(id="t1", view=match.view)
    hand = match.hand
    if hand is not None:
        # The seats' own cards are worked out by the engine (`Hand.own`) whether or
        # not a seat is sent a frame: not counted here.
        hand.own(0)
        hand.own(1)
    with young_only():
        frames = StateFrames(table, PLAYERS, parts, lambda: None)
        sent = [frames.frame(seat) for seat in seats]
        del frames
        held = held_by(parts.legal_bytes)
        left = Counter(type(o).__qualname__ for o in gc.get_objects(0) if id(o) not in held)
    for seat, frame in zip(seats, sent, strict=True):  # and the frames stay right
        body = match.view(seat).wire({"type": "state"}, id="t1", players=PLAYERS)
        assert frame == orjson.dumps(body)
    return left


def test_a_change_leaves_no_tracked_object_per_seat() -> None:
    """Two tables play the same moves (two matches' draws, discards, knocks, hands
    over, new hands, the end actions in `legal`): one sends each change's frame to a
    spectator alone, the other to both seats as well. The seats' frames leave
    nothing more alive than the spectator's: no tracked object per seat."""
    options = Options("standard", "hollywood", 100)
    matches = [Match(options, rng=random.Random(7)), Match(options, rng=random.Random(7))]
    parts = [EncodedParts(LegalBytes()), EncodedParts(LegalBytes())]
    for match in matches:
        match.endings = True  # `legal` holds the end actions: a new tuple each view
        match.start()
    rng = random.Random(8)
    changes = 0
    ended = 0
    extra: Counter[str] = Counter()
    while ended < 2 and changes < 600:
        alone = left_by_frames(matches[0], parts[0], (None,))
        seated = left_by_frames(matches[1], parts[1], (0, 1, None))
        extra += seated - alone
        changes += 1
        match = matches[0]
        seat = next((s for s in (0, 1) if match.playable(s)), None)
        if seat is None:
            break
        moves = match.playable(seat)
        knocks = [a for a in moves if a.kind == "knock"]
        action = rng.choice(knocks if knocks and rng.random() < 0.5 else moves)
        for m in matches:
            m.apply(seat, action)
        if match.status == "match_over":
            ended += 1
            for s in (0, 1):
                for m in matches:
                    m.apply(s, m.playable(s)[0])  # a new match
    assert changes > 100
    assert not extra, f"left per seat over {changes} changes: {dict(extra)}"
