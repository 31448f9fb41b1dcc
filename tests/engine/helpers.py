"""Helpers for engine tests: hand-built deck orders and short ways to play.

`deck_order` places cards exactly where docs/rules.md "The deal" says they leave the
deck: positions 0-19 alternate, the non-dealer taking the even ones; 20 is
the upcard; 21 onward the stock, 21 on top. The rest of the stock is filled
with the unused cards in index order, so a test only names what matters.
"""

from __future__ import annotations

import random
from typing import Any

import orjson

from hollywood_gin.engine import Match, Options
from hollywood_gin.engine.actions import parse_action
from hollywood_gin.engine.cards import CARDS
from hollywood_gin.engine.events import Event, log_from_json


def through_json(log: list[Event]) -> list[Event]:
    """A log as a store writes it (JSON text) and reads it back."""
    return log_from_json(orjson.loads(orjson.dumps([e.to_json() for e in log])))


def cards(text: str) -> list[str]:
    return text.split()


def deck_order(*, dealer: str, non_dealer: str, upcard: str, stock: str = "") -> list[str]:
    """A 52-card deck order from the dealer's and non-dealer's ten cards, the
    upcard and the top of the stock (first named = drawn first)."""
    d, n, top = cards(dealer), cards(non_dealer), cards(stock)
    assert len(d) == 10 and len(n) == 10, "ten cards each"
    order: list[str] = []
    for i in range(10):
        order += [n[i], d[i]]  # the non-dealer gets the even positions
    order.append(upcard)
    order += top
    used = set(order)
    assert len(used) == len(order), "a card named twice"
    order += [str(c) for c in CARDS if str(c) not in used]
    assert len(order) == 52
    return order


def new_match(
    *,
    dealer: int,
    deck: list[str] | list[list[str]],
    rules: str = "standard",
    scoring: str = "hand",
    target: int = 100,
    seed: int = 0,
) -> Match:
    """A started match whose first dealer is `dealer`, dealt from `deck`
    (one deck order, or a list of orders for consecutive hands)."""
    orders = deck if deck and isinstance(deck[0], list) else [deck]
    m = Match(
        Options(rules, scoring, target),
        rng=random.Random(seed),
        deck_orders=orders,  # type: ignore[arg-type]
        first_dealer=dealer,
    )
    m.start()
    return m


def act(m: Match, seat: int, kind: str, **fields: Any) -> None:
    """Apply one action at the current version."""
    m.apply(seat, parse_action({"kind": kind, **fields}), version=m.version)


def first_draw(m: Match) -> None:
    """Seat 1 dealing: both pass the upcard, then seat 0 draws the stock's top."""
    act(m, 0, "pass")
    act(m, 1, "pass")
    act(m, 0, "draw_stock")


def snapshot(m: Match) -> tuple[Any, ...]:
    """Everything observable about a match, to check that a refusal changed nothing."""
    return (m.version, m.status, len(m.log), m.view(0), m.view(1), m.view(None))
