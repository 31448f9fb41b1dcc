"""Every frame and answer of the wire recording is described by the models, field for
field: the views are the truth of the state's shape, and the pydantic mirror in
`hollywood_gin/web/socket/messages.py`, `state_bodies.py` and
`hollywood_gin/web/http/bodies.py` (what
docs/protocol.md is generated from) must name every field they send. Outbound models
allow extra fields (clients ignore what they do not know), so here each validated model
must have none left over: an undocumented field fails."""

from __future__ import annotations

import gzip
import json

import orjson
import pytest
from pydantic import BaseModel

from hollywood_gin.engine.errors import RuleError
from hollywood_gin.engine.events import log_from_json
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.web.http import bodies as http_bodies
from hollywood_gin.web.socket import messages, state_bodies
from tests.conftest import REPO
from tests.engine.test_stored_logs import stored

RECORDING = REPO / "tests" / "e2e" / "wire" / "recording.jsonl.gz"

SERVER_FRAMES: dict[str, type[BaseModel]] = {
    "state": state_bodies.StateMessage,
    "error": messages.ErrorMessage,
    "pong": messages.Pong,
    "reaction": messages.ReactionMessage,
}
HTTP_ANSWERS: dict[str, type[BaseModel]] = {
    "create 201": http_bodies.TableCreated,
    "join 201": http_bodies.SeatTaken,
    "public 200": http_bodies.TablePublic,
    "hand 1 200": http_bodies.HandRecord,
    "hand 99 404": http_bodies.ErrorBody,
}


def undocumented(value: object, path: str = "") -> list[str]:
    """The dotted paths of every field a validated model kept as an extra."""
    found: list[str] = []
    if isinstance(value, BaseModel):
        found += [f"{path}.{key}".lstrip(".") for key in value.model_extra or {}]
        for name in type(value).model_fields:
            found += undocumented(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found += undocumented(item, f"{path}[{i}]")
    return found


def strictly(model: type[BaseModel], data: object) -> None:
    """Validate `data` as `model` and fail on any field the models do not name."""
    extra = undocumented(model.model_validate(data))
    assert not extra, f"fields no model documents: {extra}"


def frames() -> list[tuple[str, str]]:
    lines = gzip.decompress(RECORDING.read_bytes()).decode().splitlines()
    out = []
    for line in lines:
        who, _, text = line.partition(" ")
        # The recording's placeholders are strings, but for the seconds a seat was away.
        out.append((who, text.replace('"away_seconds":SECONDS', '"away_seconds":0')))
    return out


def test_every_recorded_server_frame_is_documented_field_for_field() -> None:
    kinds: set[str] = set()
    for who, text in frames():
        if not who.endswith("<"):
            continue
        body = json.loads(text)
        kinds.add(body["type"])
        strictly(SERVER_FRAMES[body["type"]], body)
    assert kinds >= {"state", "error"}


def test_every_recorded_http_answer_is_documented_field_for_field() -> None:
    seen = set()
    for who, text in frames():
        if who != "http":
            continue
        key, _, body = text.partition(" {")  # "create 201 {...}"
        seen.add(key)
        strictly(HTTP_ANSWERS[key], json.loads("{" + body))
    assert seen == set(HTTP_ANSWERS)


@pytest.mark.parametrize("where", ["table", "hand", "sheet"])
def test_an_undocumented_field_fails(where: str) -> None:
    body = next(
        json.loads(text)
        for who, text in frames()
        if who == "0<" and '"type":"state"' in text and '"hand"' in text
    )
    body[where]["surprise"] = 1
    with pytest.raises(AssertionError, match=f"{where}.surprise"):
        strictly(state_bodies.StateMessage, body)


def test_every_state_of_stored_matches_is_documented_field_for_field() -> None:
    """States the recording does not reach: fair deals (`next_deal`, `deck_reveal`'s
    secret and entropy), matches ended by resign or claim (`ended`), stand-ins, the
    turn clock's stamps, `hand` scoring's reshuffles, knocks with lay-offs: replayed
    from the stored engine matches, at several points of each, for both seats and a
    spectator."""
    matches = stored("engine_matches.jsonl.gz")[:12]
    states = 0
    for match in matches:
        options = Options.from_dict(match["options"])
        log = log_from_json([orjson.loads(e) for e in match["log"]])
        for cut in range(1, len(log) + 1, max(1, len(log) // 12)):
            try:
                replayed = Match.replay(options, log[:cut], endings=match["endings"])
            except RuleError:
                continue  # a cut between a snapshot and its deal
            for seat in (0, 1, None):
                players = [player(s, clocked=options.turn_seconds is not None) for s in (0, 1)]
                body = replayed.view(seat).wire({"type": "state"}, id="t", players=players)
                if options.turn_seconds is not None:
                    body["server_time"] = 1
                    if "hand" in body:
                        body["hand"]["turn_deadline"] = None  # type: ignore[index]
                strictly(state_bodies.StateMessage, orjson.loads(orjson.dumps(body)))
                states += 1
    assert states > 300


def player(seat: int, *, clocked: bool) -> dict[str, object]:
    """A player as the table lists it (`Table.players`)."""
    out: dict[str, object] = {
        "seat": seat,
        "name": "Ann",
        "connected": True,
        "computer": None,
        "bot": False,
        "away_seconds": None,
        "stand_in": False,
    }
    if clocked:
        out["timeouts"] = 0
    return out
