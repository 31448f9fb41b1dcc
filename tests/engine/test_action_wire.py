"""Each action kind's wire form is one line of `vocabulary.ACTION_WIRE`, and every
reader of an action frame takes its tables from there: the socket's fast path
(`web.inbound`), the wire models (`web.messages`) and the engine (`parse_action`)
read each kind alike."""

from __future__ import annotations

import orjson
import pytest

from hollywood_gin.engine.actions import ACTION_KINDS, parse_action
from hollywood_gin.engine.vocabulary import ACTION_WIRE
from hollywood_gin.web.socket import inbound
from hollywood_gin.web.socket.messages import CLIENT_MESSAGE, ActionMessage


def test_every_kind_has_its_wire_form_in_order() -> None:
    assert tuple(ACTION_WIRE) == ACTION_KINDS


@pytest.mark.parametrize("kind", ACTION_KINDS)
def test_each_kind_is_read_alike_by_the_fast_path_the_models_and_the_engine(kind: str) -> None:
    wire = ACTION_WIRE[kind]  # type: ignore[index]
    body: dict[str, object] = {"kind": kind}
    if wire.card is not None:
        body[wire.card] = "7H"
    frame = orjson.dumps({"type": "action", "version": 3, "action": body})
    fast = inbound.fast(frame)
    assert isinstance(fast, inbound.ActionFrame), "the fast path takes every kind's plain form"
    model = CLIENT_MESSAGE.validate_json(frame)
    assert isinstance(model, ActionMessage)
    engine = parse_action(body)
    assert fast.action is model.action.to_action() is engine
    assert engine.to_dict() == body
    if wire.entropy is not None:
        entropy = "ab" * 16
        frame = orjson.dumps(
            {"type": "action", "version": 3, "action": {**body, "entropy": entropy}}
        )
        fast = inbound.fast(frame)
        assert isinstance(fast, inbound.ActionFrame) and fast.entropy == entropy
        model = CLIENT_MESSAGE.validate_json(frame)
        assert isinstance(model, ActionMessage)
        assert getattr(model.action, "entropy", None) == entropy
