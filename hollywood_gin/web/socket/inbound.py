"""A socket's frames parsed without pydantic on the hot path, with pydantic's answers.

Nearly every frame a table receives is an action of one of a few plain shapes
(`{"type": "action", "version": 7, "action": {"kind": "discard", "card": "7H"}}`).
`parse` reads those with `orjson` and a few exact checks and gives the engine's
`Action` at once; a frame it does not recognise as exactly such a shape, valid, is
handed whole to the pydantic models of `hollywood_gin.web.socket.messages`, which accept or
refuse it as they always have (so every typed error, `bad_message` and its text, is
theirs: `tests/web/test_ws_fuzz.py`). Accepting here is therefore only ever a
shortcut for a frame pydantic would accept with the same meaning:

- the keys exactly those of the model (`extra="forbid"`; an optional field left
  out or, for `entropy`, null), the values of the strict types (`version` an `int`
  and not a `bool`, at least 0; `kind` one of the model's literals);
- a card one of the 52 texts of `^[A2-9TJQK][CDHS]$`; entropy 32 hex digits;
- a duplicate key is read as both parsers read it: the last one wins.

Before even `orjson`, an action frame exactly as the page and the bots write it
(compact JSON, the keys in the page's order) is recognised by its text: the head,
the version's digits, and the action object looked up whole among the 113
exact texts of the shapes above (`_EXACT`, built by reading each through `_action`
itself, so both ways give the same frame).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import CARDS, Card
from hollywood_gin.engine.vocabulary import ACTION_WIRE
from hollywood_gin.web.socket.messages import CLIENT_MESSAGE, Ping

# The fast path's tables, from each kind's wire form (`vocabulary.ACTION_WIRE`):
# the kinds that are their kind alone, those that name a card (and its field), and
# those that may carry the seat's entropy for the next deal.
_PLAIN = frozenset(k for k, w in ACTION_WIRE.items() if w.card is None and w.entropy is None)
_CARDED: dict[str, str] = {k: w.card for k, w in ACTION_WIRE.items() if w.card is not None}
_DEALING = frozenset(k for k, w in ACTION_WIRE.items() if w.entropy is not None)
_BY_TEXT: dict[str, Card] = {card.text: card for card in CARDS}
_HEX = frozenset("0123456789abcdefABCDEF")
_ACTION_KEYS = frozenset({"type", "version", "action"})
_PING = Ping(type="ping")


def _exact() -> dict[str, tuple[Action, str | None]]:
    """Every plain action object's compact text, with its closing brace (the
    frame's), and what `fast` reads of it: the action and its (absent) entropy."""
    bodies: list[dict[str, object]] = [{"kind": k} for k in ACTION_WIRE]
    bodies += [{"kind": k, f: card.text} for k, f in _CARDED.items() for card in CARDS]
    exact: dict[str, tuple[Action, str | None]] = {}
    for body in bodies:
        read = _action(body)
        if isinstance(read, Action):
            exact[orjson.dumps(body).decode() + "}"] = (read, None)
        elif read is not None:
            kind: Any = body["kind"]
            exact[orjson.dumps(body).decode() + "}"] = (Action.of(kind), read[0])
    return exact


# An action frame's text up to its version's digits, between those and its action,
# a leading zero, and the action objects' texts: as `str` (what uvicorn hands over)
# and as `bytes` (a binary frame, `bench_stages`).
_HEAD = '{"type":"action","version":'
_MIDDLE = ',"action":'
_START = len(_HEAD)
_LAST = _START + 15  # a version of up to 15 digits
_SKIP = len(_MIDDLE)


class ActionFrame(NamedTuple):
    """An `action` message, read: the version it was chosen on, the engine's action,
    and the entropy of a `next_hand` / `new_match` (None: none sent)."""

    version: int
    action: Action
    entropy: str | None = None


def _entropy(value: object) -> tuple[bool, str | None]:
    """(valid, value) of an `entropy` field as the `Entropy` type reads it."""
    if value is None:
        return True, None
    if type(value) is str and len(value) == 32 and all(ch in _HEX for ch in value):
        return True, value
    return False, None


def _action(body: dict[str, object]) -> Action | tuple[str | None] | None:
    """The engine's action of a recognised `action` object; for `next_hand` and
    `new_match` a 1-tuple of the entropy (the caller builds the action); None:
    not recognised here."""
    kind = body.get("kind")
    if type(kind) is not str:
        return None
    size = len(body)
    if kind in _PLAIN:
        return Action.of(kind) if size == 1 else None
    field = _CARDED.get(kind)
    if field is not None:
        if size != 2:
            return None  # a knock's melds or deadwood: the models read them
        card = body.get(field)
        found = _BY_TEXT.get(card) if type(card) is str else None
        return None if found is None else Action.of(kind, found)  # type: ignore[arg-type]
    if kind in _DEALING:
        if size == 1:
            return (None,)
        if size == 2 and "entropy" in body:
            valid, entropy = _entropy(body["entropy"])
            return (entropy,) if valid else None
    return None


def fast(data: str | bytes) -> ActionFrame | Ping | None:
    """The frame read without pydantic, or None: not one of the shapes read here."""
    texts: Any = _TEXTS.get(data.__class__)
    if texts is not None and data.startswith(texts[0]):
        # By its text: less than half of orjson's reading and the checks below.
        middle = data.find(texts[1], _START)
        if _START < middle <= _LAST:
            read = texts[3].get(data[middle + _SKIP :])
            digits = data[_START:middle]
            # JSON's integer: ASCII digits, no leading zero (orjson refuses one).
            if (
                read is not None
                and digits.isascii()
                and digits.isdigit()
                and (middle == _START + 1 or not digits.startswith(texts[2]))
            ):
                return _frame(ActionFrame, (int(digits), *read))  # (no `__new__` frame)
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if type(message) is not dict:
        return None
    kind = message.get("type")
    if kind == "action":
        if len(message) != 3 or message.keys() != _ACTION_KEYS:
            return None
        version = message["version"]
        body = message["action"]
        if type(version) is not int or version < 0 or type(body) is not dict:
            return None
        action = _action(body)
        if action is None:
            return None
        if type(action) is tuple:
            return ActionFrame(version, Action.of(body["kind"]), action[0])
        assert isinstance(action, Action)
        return ActionFrame(version, action)
    if kind == "ping" and len(message) == 1:
        return _PING
    return None


_EXACT = _exact()
_TEXTS: dict[type, tuple[Any, Any, Any, dict[Any, tuple[Action, str | None]]]] = {
    str: (_HEAD, _MIDDLE, "0", _EXACT),
    bytes: (_HEAD.encode(), _MIDDLE.encode(), b"0", {k.encode(): v for k, v in _EXACT.items()}),
}
_frame = tuple.__new__


def parse(data: str | bytes) -> Any:
    """A client's frame as a typed message: an `ActionFrame`, or one of the models of
    `CLIENT_MESSAGE`; raises pydantic's `ValidationError` as `CLIENT_MESSAGE` does."""
    message = fast(data)
    if message is not None:
        return message
    return CLIENT_MESSAGE.validate_json(data)
