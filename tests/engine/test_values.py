"""The engine's values cannot be built invalid, and none hands out a part another
value shares: an `Action` refuses a wrong shape at construction, its wire form is
a fresh dict each time, a result's seats are tuples."""

from __future__ import annotations

import dataclasses

import pytest

from hollywood_gin.engine.actions import ACTION_KINDS, Action, parse_action
from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.errors import BadAction, BadCard
from hollywood_gin.engine.options import Options
from tests.engine.helpers import act, new_match
from tests.engine.test_hand import A_DECK

SEVEN = Card.parse("7H")


@pytest.mark.parametrize(
    ("kind", "card", "melds", "error"),
    [
        ("pass", SEVEN, None, BadAction),  # a card on a kind without one
        ("next_hand", SEVEN, None, BadAction),
        ("discard", None, None, BadAction),  # a discard without its card
        ("knock", None, None, BadAction),
        ("discard", SEVEN, ((SEVEN,),), BadAction),  # melds on a discard
        ("fold", None, None, BadAction),  # no such kind
        ("knock", SEVEN, ((Card.parse("AC"), Card.parse("AC"), Card.parse("AD")),), BadCard),
        ("discard", "7H", None, BadCard),  # notation, not a card
    ],
)
def test_an_action_cannot_be_built_invalid(
    kind: str, card: object, melds: object, error: type[Exception]
) -> None:
    with pytest.raises(error):
        Action(kind, card, melds)  # type: ignore[arg-type]
    if melds is None and not isinstance(card, str):
        with pytest.raises(error):
            Action.of(kind, card)  # type: ignore[arg-type]


def test_every_kind_has_its_one_shared_value_and_round_trips() -> None:
    for kind in ACTION_KINDS:
        card = SEVEN if kind in ("discard", "knock") else None
        action = Action.of(kind, card)
        assert Action.of(kind, card) is action
        assert parse_action(action.to_dict()) is action


def test_the_wire_form_is_a_fresh_dict_each_time() -> None:
    action = Action.of("discard", SEVEN)
    first = action.wire()
    first["card"] = "AS"
    first["extra"] = 1
    assert action.wire() == {"kind": "discard", "card": "7H"}
    m = new_match(dealer=1, deck=A_DECK)
    view = m.view(0)
    legal = view.legal_wire()
    legal[0]["kind"] = "changed"
    assert m.view(0).legal_wire()[0]["kind"] != "changed"
    assert view.legal_wire()[0]["kind"] != "changed"


def test_one_seats_result_cannot_change_another_seats_view() -> None:
    m = new_match(dealer=1, deck=A_DECK)
    act(m, 0, "take_upcard")
    act(m, 0, "knock", discard="KD")
    outcome = m.view(0).hand.outcome  # type: ignore[union-attr]
    assert outcome is not None
    assert outcome is m.view(1).hand.outcome  # type: ignore[union-attr]
    seat = outcome.result.seats[0]
    assert isinstance(seat.melds, tuple) and all(isinstance(x, tuple) for x in seat.melds)
    assert isinstance(seat.deadwood, tuple) and isinstance(seat.layoffs, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        seat.deadwood_value = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        seat.melds.append(())  # type: ignore[attr-defined]


def test_options_hold_only_the_vocabulary() -> None:
    assert Options.from_dict({"rules": "oklahoma"}).rules == "oklahoma"
    for bad in ({"rules": "big"}, {"scoring": 3}, {"target": 100.0}, {"target": True}):
        with pytest.raises(BadAction):
            Options.from_dict(bad)
    with pytest.raises(BadAction):
        Options("big")  # type: ignore[arg-type]
