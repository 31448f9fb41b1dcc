"""Logs stored before the log was typed load, replay and write the same bytes again.

`stored/` holds logs written by the code before `hollywood_gin.engine.events`
(commit 8a707c9), each entry as the stores keep it (`orjson.dumps` of the entry):

- `wire_matches.jsonl.gz`: the `events` rows of the three matches of
  tests/e2e/test_wire_recording.py, read from the server's SQLite file after the
  recording script ran (one line per table: its options and its whole log, seq 0 on).
- `engine_matches.jsonl.gz`: 59 logs of engine matches with every kind of entry:
  fair deals with `next_deal` and `entropy`, `action` with `by` (`timeout`,
  `stand_in`), `resign`, `claim`, `stand_in`, `back`, `reshuffle` (`hand`
  scoring), knocks naming melds, compacted logs (starting at a snapshot) and one
  `arrange` entry of the oldest logs.

Nothing stored migrates: an entry read into its event writes the same bytes, and
the log replays to a match whose own log writes them all again.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from hollywood_gin.engine.errors import BadAction
from hollywood_gin.engine.events import (
    ActionTaken,
    Arranged,
    Back,
    Deal,
    Entropy,
    NextDeal,
    Reshuffle,
    Snapshot,
    Start,
    event_from_json,
    log_from_json,
)
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options

STORED = Path(__file__).resolve().parent / "stored"


def stored(name: str) -> list[dict[str, Any]]:
    lines = gzip.decompress((STORED / name).read_bytes()).decode().splitlines()
    return [json.loads(line) for line in lines if line]


MATCHES = stored("wire_matches.jsonl.gz") + stored("engine_matches.jsonl.gz")


def test_the_stored_logs_hold_every_kind_of_entry() -> None:
    kinds = {
        type(event_from_json(orjson.loads(entry))) for match in MATCHES for entry in match["log"]
    }
    every = {Start, NextDeal, Entropy, Snapshot, Deal, ActionTaken, Reshuffle, Back, Arranged}
    assert kinds == every
    assert len(stored("wire_matches.jsonl.gz")) == 3


@pytest.mark.parametrize("number", range(len(MATCHES)))
def test_a_stored_log_reads_writes_and_replays_byte_for_byte(number: int) -> None:
    match = MATCHES[number]
    entries: list[str] = match["log"]
    events = log_from_json([orjson.loads(e) for e in entries])
    # Each event writes exactly the bytes it was read from.
    assert [orjson.dumps(e.to_json()).decode() for e in events] == entries
    replayed = Match.replay(Options.from_dict(match["options"]), events, endings=match["endings"])
    # The replay's own log is the stored one, byte for byte.
    assert [orjson.dumps(e.to_json()).decode() for e in replayed.log] == entries


@pytest.mark.parametrize(
    "entry",
    [
        {"event": "start", "extra": 1},
        {"event": "back"},
        {"event": "back", "seat": True},
        {"event": "back", "seat": 2},
        {"event": "nothing"},
        {"seat": 0},
        {"event": "action", "seat": 0, "action": {"kind": "pass"}, "by": "ghost"},
        {"event": "action", "seat": 0, "action": {"kind": "discard"}},
        {"event": "action", "seat": 0, "action": {"kind": "knock", "discard": "7H", "deadwood": 3}},
        {"event": "entropy", "hand": 1, "seat": 0, "entropy": "AB" * 16},
        {"event": "next_deal", "hand": 1, "secret": 5},
        {"event": "reshuffle", "hand": 1, "after": -1, "stock": []},
        {"event": "reshuffle", "hand": 1, "after": 3, "stock": ["ZZ"]},
        {"event": "snapshot", "hands_dealt": 0, "version": 0, "sheet": {"wins": [0, 0]}},
        {
            "event": "snapshot",
            "hands_dealt": 0,
            "version": 0,
            "sheet": {"wins": [0, 0], "games": []},
            "stand_in": [1, 0],
        },
        {"event": "deal", "hand": 1, "dealer": 0, "deck": "AC", "salt": "s"},
        {"event": "deal", "hand": 1, "dealer": 0, "deck": [], "salt": "s", "entropy": [None]},
        "start",
        None,
    ],
)
def test_an_entry_no_event_writes_is_refused_with_a_typed_error(entry: object) -> None:
    with pytest.raises(BadAction):
        event_from_json(entry)
