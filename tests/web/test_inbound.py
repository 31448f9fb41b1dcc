"""The socket's fast frame parser (`hollywood_gin.web.socket.inbound`) against the models.

The fast path is only a shortcut: whatever frame it accepts, the pydantic models
accept too, with the same version, action and entropy; whatever it does not
recognise goes to the models, so every refusal (and its text) is theirs.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from hollywood_gin.engine.cards import CARDS
from hollywood_gin.web.socket import inbound
from hollywood_gin.web.socket.messages import CLIENT_MESSAGE, ActionMessage, Ping

TEXTS = [c.text for c in CARDS]
KINDS = [
    "take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock",
    "next_hand", "new_match", "resign", "claim", "stand_in", "fold",
]  # fmt: skip

near_values = (
    st.none()
    | st.booleans()
    | st.integers(-3, 2**65)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([*TEXTS, "7h", "10H", "1C", "XX", " 7H", "7H\n", "a" * 32, "A" * 32])
    | st.sampled_from(["0123456789abcdef0123456789ABCDEF", "g" * 32, "0" * 31, "0" * 33])
    | st.text(max_size=4)
    | st.lists(st.sampled_from(TEXTS), max_size=4)
)
action_bodies = st.builds(
    lambda kind, fields: {"kind": kind, **fields},
    st.sampled_from(KINDS) | st.integers(0, 3) | st.none(),
    st.dictionaries(
        st.sampled_from(["card", "discard", "entropy", "melds", "deadwood", "kind", "x"]),
        near_values,
        max_size=2,
    ),
)
frames = st.builds(
    lambda head, extra: {**head, **extra},
    st.fixed_dictionaries(
        {"type": st.sampled_from(["action", "action", "ping", "hello", 1]), "version": near_values}
    ),
    st.dictionaries(
        st.sampled_from(["action", "x", "token"]), action_bodies | near_values, max_size=2
    ),
)


def model_reading(raw: bytes) -> Any:
    try:
        return CLIENT_MESSAGE.validate_json(raw)
    except ValidationError as exc:
        return exc


def check_same(raw: bytes) -> None:
    fast = inbound.fast(raw)
    model = model_reading(raw)
    if fast is None:
        return
    assert not isinstance(model, ValidationError), (raw, fast)
    if isinstance(fast, inbound.ActionFrame):
        assert isinstance(model, ActionMessage)
        assert fast.version == model.version
        assert fast.action == model.action.to_action()
        assert fast.entropy == getattr(model.action, "entropy", None)
    else:
        assert isinstance(fast, Ping) and isinstance(model, Ping)


@settings(max_examples=1500, deadline=None)
@given(frame=frames | action_bodies.map(lambda a: {"type": "action", "version": 3, "action": a}))
def test_what_the_fast_path_accepts_the_models_accept_alike(frame: dict[str, Any]) -> None:
    check_same(json.dumps(frame).encode())


@pytest.mark.parametrize(
    "raw",
    [
        b'{"type":"action","version":1,"version":true,"action":{"kind":"pass"}}',
        b'{"type":"action","version":true,"version":1,"action":{"kind":"pass"}}',
        b'{"type":"action","version":1,"action":{"kind":"pass","kind":"fold"}}',
        b'{"type":"action","version":1,"action":{"kind":"discard","card":"7H","card":"7h"}}',
        b'{"type":"action","version":1.0,"action":{"kind":"pass"}}',
        b'{"type":"action","version":-0,"action":{"kind":"pass"}}',
        b'{"type":"action","version":99999999999999999999999,"action":{"kind":"pass"}}',
        b'{"type":"action","version":1,"action":{"kind":"pass"}} ',
        b'\xef\xbb\xbf{"type":"ping"}',
        b'{"type":"ping","type":"ping"}',
        b'{"type":"ping"}x',
        b'{"type":"action","version":1,"action":{"kind":"discard","card":"\\u0037H"}}',
        b'{"type":"action","version":1,"action":{"kind":"next_hand","entropy":null}}',
        b'{"type":"action","version":1,"action":{"kind":"knock","discard":"TD"}}',
        b'{"type":"action","version":1,"action":{"kind":"knock","discard":"TD","melds":null}}',
        b'[{"type":"ping"}]',
        b"\xff",
        b"",
    ],
)
def test_edge_frames_read_alike(raw: bytes) -> None:
    check_same(raw)


@pytest.mark.parametrize(
    "frame",
    [
        {"type": "action", "version": 7, "action": {"kind": "draw_stock"}},
        {"type": "action", "version": 7, "action": {"kind": "discard", "card": "7H"}},
        {"type": "action", "version": 7, "action": {"kind": "knock", "discard": "KS"}},
        {"type": "action", "version": 0, "action": {"kind": "next_hand"}},
        {
            "type": "action",
            "version": 9,
            "action": {"kind": "new_match", "entropy": "0123456789abcdef0123456789ABCDEF"},
        },
        {"type": "ping"},
    ],
)
def test_the_frames_of_play_take_the_fast_path(frame: dict[str, Any]) -> None:
    raw = orjson.dumps(frame)
    assert inbound.fast(raw) is not None
    assert inbound.fast(raw.decode()) is not None
    check_same(raw)


class _NoOrjson:
    """`orjson` for `inbound`, refusing to read: a frame read by its text alone."""

    JSONDecodeError = orjson.JSONDecodeError

    @staticmethod
    def loads(data: object) -> Any:
        raise AssertionError(f"read with orjson: {data!r}")


@pytest.mark.parametrize("as_bytes", [False, True])
@pytest.mark.parametrize("version", [0, 7, 12, 123456789012345])
def test_the_page_s_action_frames_are_read_by_their_text(
    version: int, as_bytes: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every plain action as the page writes it (compact, its key order) is read
    without orjson, to the same frame as orjson's reading and the models' (a text
    frame's `str`, a binary frame's `bytes`)."""
    bodies = [{"kind": k} for k in KINDS] + [
        {"kind": k, field: t} for k, field in (("discard", "card"), ("knock", "discard"))
        for t in TEXTS
    ]  # fmt: skip
    by_orjson: dict[str | bytes, Any] = {}
    for body in bodies:
        raw = orjson.dumps({"type": "action", "version": version, "action": body})
        text: str | bytes = raw if as_bytes else raw.decode()
        check_same(text)  # type: ignore[arg-type]
        by_orjson[text] = inbound.fast(text)
    monkeypatch.setattr(inbound, "orjson", _NoOrjson)
    read = 0
    for text, expected in by_orjson.items():
        if expected is None:  # not an action (`fold`): orjson's, and then the models'
            with pytest.raises(AssertionError):
                inbound.fast(text)
            continue
        got = inbound.fast(text)
        assert type(got) is inbound.ActionFrame and got == expected, text
        read += 1
    assert read == len(KINDS) - 3 + 2 * len(TEXTS)  # not `fold`, nor a card's kind bare


@pytest.mark.parametrize(
    "text",
    [
        '{"type":"action","version":07,"action":{"kind":"pass"}}',
        '{"type":"action","version":-1,"action":{"kind":"pass"}}',
        '{"type":"action","version":1.0,"action":{"kind":"pass"}}',
        '{"type":"action","version":\u0661,"action":{"kind":"pass"}}',
        '{"type":"action","version":1 ,"action":{"kind":"pass"}}',
        '{"type":"action","version":,"action":{"kind":"pass"}}',
        '{"type":"action","version":1,"action":{"kind":"pass"}} ',
        '{"type":"action","version":1,"action":{"kind":"pass"}}}',
        '{"type":"action","version":1,"action":{"kind":"pass"},"x":1}',
        '{"type":"action","version":1,"action":{"kind":"discard","card":"7h"}}',
        '{"type":"action","version":1,"action":{"kind":"knock","card":"7H"}}',
        '{"type":"action","version":1,"action":{"kind":"fold"}}',
        '{"type":"action","version":1234567890123456,"action":{"kind":"pass"}}',
        '{"type":"action","version":1,"version":2,"action":{"kind":"pass"}}',
    ],
)
def test_near_misses_of_the_page_s_text_read_alike(text: str) -> None:
    check_same(text)  # type: ignore[arg-type]
    check_same(text.encode())
