"""Cards against docs/rules.md "Cards": notation rank+suit (`A23456789TJQK`, `CDHS`),
ace low, values.

Lowercase is refused (`7h` is not a card): the notation is exact everywhere,
in code, tests and on the wire, so one card has one spelling.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hollywood_gin.engine.cards import (
    CARDS,
    Card,
    cards_of,
    format_cards,
    full_deck,
    mask_of,
    parse_cards,
)
from hollywood_gin.engine.errors import BadCard, RuleError


def test_all_52_round_trip() -> None:
    texts = [r + s for s in "CDHS" for r in "A23456789TJQK"]
    assert len(set(texts)) == 52
    for text in texts:
        card = Card.parse(text)
        assert str(card) == text
        assert Card.parse(str(card)) is card  # interned
    assert format_cards(parse_cards(texts)) == texts
    assert full_deck() == list(CARDS) == parse_cards(texts)


def test_index_rank_suit() -> None:
    # index = suit*13 + rank-1 with suits C D H S
    assert Card.parse("AC").index == 0
    assert Card.parse("KC").index == 12
    assert Card.parse("AD").index == 13
    assert Card.parse("7H").index == 2 * 13 + 6  # 32
    assert Card.parse("KS").index == 51
    seven = Card.parse("7H")
    assert (seven.rank, seven.suit, seven.bit) == (7, "H", 1 << 32)
    assert Card.of(7, "H") is seven
    assert Card.parse("AS").rank == 1  # ace low
    assert Card.parse("TD").rank == 10


@pytest.mark.parametrize(
    ("text", "value"),
    [("AS", 1), ("2C", 2), ("5D", 5), ("9H", 9), ("TC", 10), ("JD", 10), ("QH", 10), ("KS", 10)],
)
def test_values(text: str, value: int) -> None:
    assert Card.parse(text).value == value


def test_the_deck_is_worth_340() -> None:
    # per suit 1+2+...+9 = 45, plus T J Q K = 40: 85; four suits: 340
    assert sum(c.value for c in CARDS) == 340


@pytest.mark.parametrize(
    "text",
    ["1H", "7X", "", "7h", "as", "Th", "10H", "7", "H7", " 7H", "7H ", "7HH", "AC,", "♥7"],
)
def test_bad_notation_is_refused(text: str) -> None:
    with pytest.raises(BadCard) as caught:
        Card.parse(text)
    assert caught.value.code == "bad_message"
    assert isinstance(caught.value, RuleError)


@pytest.mark.parametrize("thing", [7, None, b"7H", ["7H"], 7.0])
def test_a_card_is_a_string(thing: object) -> None:
    with pytest.raises(BadCard):
        Card.parse(thing)


@pytest.mark.parametrize(("rank", "suit"), [(0, "H"), (14, "H"), (7, "X"), (7, "h"), (7, "HS")])
def test_card_of_refuses(rank: int, suit: str) -> None:
    with pytest.raises(BadCard):
        Card.of(rank, suit)


def test_parse_cards_refuses_duplicates_and_bad_cards() -> None:
    with pytest.raises(BadCard):
        parse_cards(["7H", "8H", "7H"])
    with pytest.raises(BadCard):
        parse_cards(["7H", "8h"])


def test_order_is_by_index() -> None:
    assert sorted(parse_cards(["AS", "KC", "2D"])) == parse_cards(["KC", "2D", "AS"])


@given(st.sets(st.sampled_from(CARDS)))
def test_mask_round_trip(held: set[Card]) -> None:
    mask = mask_of(held)
    assert mask.bit_count() == len(held)
    assert cards_of(mask) == sorted(held)
