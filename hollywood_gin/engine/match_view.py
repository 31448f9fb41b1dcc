"""What a match shows: `Match.view(seat)` and `Match.hand_record(n)`.

`view` is asked for every seat on every change: the parts a change leaves alone
are kept on the match (`_groupings`, `_sheet_view`, `_shared_table`,
`_shared_hand`) and built again only when what they are of changes. Plain
functions on the `Match`; the only place where hidden information is decided.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.dealer import check_seat
from hollywood_gin.engine.events import ActionTaken, Deal, Reshuffle
from hollywood_gin.engine.hand import Hand
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.views import (
    HandView,
    Mine,
    Outcome,
    SheetView,
    TableView,
    View,
    sheet_view,
)

if TYPE_CHECKING:
    from hollywood_gin.engine.match import Match


def outcome(match: Match, hand: Hand) -> Outcome | None:
    if hand.result is None:
        return None
    games = tuple(match.hand_games) if hand is match.hand else ()
    secret, entropy = match._dealt_from
    return Outcome(hand.result, tuple(str(c) for c in hand.deck), hand.salt, games, secret, entropy)


def view(match: Match, seat: int | None) -> View:
    """`Match.view`: what `seat` may see now (None: a spectator).

    Never contains the other seat's cards before the result, any stock
    card, or the card the other seat drew from the stock.
    """
    if seat is not None:
        seat = check_seat(seat)
    hand = match.hand
    mine: Mine | None = None
    legal: tuple[Action, ...] = ()
    knock_deadwood: tuple[int, ...] = ()
    if hand is not None and seat is not None:
        melds, deadwood = _grouping(match, hand, seat)
        cards = hand.cards[seat]
        mine = Mine(tuple([c.text for c in cards]), len(hand.cards[1 - seat]), melds, deadwood)
    if seat is not None:
        legal = tuple(match.legal(seat))
        if legal and (legal[-1].kind == "knock" or any(a.kind == "knock" for a in legal)):
            assert hand is not None
            left = hand.discard_deadwoods(seat)
            # `legal` lists the knocks after the discards (Hand.legal), each with
            # its discard, then the end actions.
            knock_deadwood = tuple(
                [left[a.card] for a in legal if a.kind == "knock" and a.card is not None]
            )
    return View(
        version=match.version,
        you=seat,
        table=_table_view(match),
        hand=None if hand is None else _hand_view(match, hand),
        mine=mine,
        legal=legal,
        sheet=_sheet(match),
        ready=(match.ready[0], match.ready[1]),
        knock_deadwood=knock_deadwood,
        next_deal=match.next_deal,
    )


def _table_view(match: Match) -> TableView:
    known = match._shared_table
    if known is None or known.status != match.status or known.ended is not match.ended:
        o = match.options
        known = match._shared_table = TableView(
            o.rules, o.scoring, o.target, match.status, match.ended
        )
    return known


def _hand_view(match: Match, hand: Hand) -> HandView:
    """The public part of the hand, built once per change for every seat's view."""
    key = (hand, match.version)
    known = match._shared_hand
    if known is not None and known[0] == key:
        return known[1]
    built = HandView(
        number=hand.number,
        dealer=hand.dealer,
        turn=hand.turn,
        phase=hand.phase,
        knock_limit=hand.knock_limit,
        stock_count=len(hand.stock),
        discard_top=hand.discard[-1].text if hand.discard else None,
        discard_count=len(hand.discard),
        card_counts=(len(hand.cards[0]), len(hand.cards[1])),
        deck_commitment=hand.commitment,
        last_action=hand.last_action,
        events=tuple(hand.events),
        outcome=outcome(match, hand) if hand.phase == "over" else None,
    )
    match._shared_hand = (key, built)
    return built


def _grouping(match: Match, hand: Hand, seat: int) -> tuple[tuple[tuple[str, ...], ...], int]:
    # Everything `Hand.grouping` reads: the hand, the seat's cards in order and,
    # holding eleven, the card it may not discard.
    cards = hand.cards[seat]
    key = (hand, tuple(cards), hand.taken_from_discard if len(cards) == 11 else None)
    known = match._groupings.get(seat)
    if known is not None and known[0] == key:
        return known[1]
    melds, deadwood = hand.grouping(seat)
    found = (tuple([tuple([c.text for c in meld]) for meld in melds]), deadwood)
    match._groupings[seat] = (key, found)
    return found


def _sheet(match: Match) -> SheetView:
    """The sheet's view, built once per change of the sheet: every view shares it."""
    # `Sheet.record` is its only change and always counts a won hand; a new
    # match is a new sheet.
    key = (match.sheet, *match.sheet.wins, id(match.ended))
    known = match._sheet_view
    if known is None or known[0] != key:
        built = sheet_view(match.sheet)
        if match.ended is not None:
            built = dataclasses.replace(built, match_winner=match.match_winner)
        known = (key, built)
        match._sheet_view = known
    return known[1]


def hand_record(match: Match, n: int) -> JsonObject | None:
    """`Match.hand_record`: the full record of finished hand `n`, or None."""
    known = match._records.get(n)
    if known is None:
        return None
    start, end, result = known
    events = match.log[start:end]
    deal = events[0]
    assert isinstance(deal, Deal)  # a hand's events start with its deal
    source = deal.source
    return {
        "options": match.options.to_dict(),
        "number": n,
        "dealer": deal.dealer,
        "deck": [c.text for c in deal.deck],
        "salt": deal.salt,
        "server_secret": None if source is None else source.server_secret,
        "entropy": [None, None] if source is None else list(source.entropy),
        "actions": [
            {"seat": e.seat, "action": e.action.to_dict()}
            for e in events
            if isinstance(e, ActionTaken)
        ],
        "reshuffles": [
            {"after": e.after, "stock": [c.text for c in e.stock]}
            for e in events
            if isinstance(e, Reshuffle)
        ],
        "result": None if result is None else result.wire(),
    }
