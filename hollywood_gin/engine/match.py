"""A table's match: options, hands in sequence, who deals, the sheet, `view(seat)`.

`Match` is the engine's one stateful object. The tables layer creates it,
calls `start()` once both seats are taken, then `apply(seat, action)` for
every move and `view(seat)` for every connection.

Everything random (deck shuffles, salts, the first dealer, the `hand`-scoring
reshuffle) comes from the injected dealer (`hollywood_gin.engine.dealer`) and is written
to `log`, so `Match.replay(options, log)` rebuilds the same state without it.

The match owns three helpers that know nothing of it: its `DealBook` (`deals`: the
next deal's secret, the seats' entropy, each deal's deck), its `History`
(`history`: the log, hand records, compaction) and its `Presence` (`presence`: who
is away, who is stood in for). Two modules know it only by a protocol: `seat_views`
builds each seat's view from its public state (the only place where hidden
information is decided), and `replay` reads a log back through its moves.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from hollywood_gin.engine.actions import END_KINDS, Action
from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.dealer import Dealer, Deals, Replayed, check_entropy, check_seat
from hollywood_gin.engine.deals import DealBook
from hollywood_gin.engine.errors import BadAction, IllegalAction, StaleVersion
from hollywood_gin.engine.events import (
    START,
    ActionTaken,
    Arranged,
    Back,
    Deal,
    Event,
    Reshuffle,
    Snapshot,
)
from hollywood_gin.engine.hand import Hand
from hollywood_gin.engine.history import History
from hollywood_gin.engine.jsonvalue import JsonObject
from hollywood_gin.engine.options import Options, Order
from hollywood_gin.engine.own import Own
from hollywood_gin.engine.presence import Presence
from hollywood_gin.engine.replay import redo
from hollywood_gin.engine.scoring import Sheet
from hollywood_gin.engine.seat_views import SeatViews
from hollywood_gin.engine.views import Ended, Outcome, View
from hollywood_gin.engine.vocabulary import Mover, Status, walled

_NEXT_HAND, _NEW_MATCH = Action.of("next_hand"), Action.of("new_match")
_RESIGN = Action.of("resign")
_READY = frozenset({"next_hand", "new_match"})
_RESIGN_ONLY = (_RESIGN,)
# Ready signals carry no version (docs/protocol-guide.md "Actions"): they mean the same
# whatever happened meanwhile, so they are taken at any version while open, and a second
# one is nothing.
_ANY_VERSION = frozenset({"next_hand", "new_match", "resign"})


class Match:
    """A match at one table: hands dealt in turn, scored on one sheet.

    Statuses: `waiting` (before `start`), `playing`, `hand_over` (both seats
    send `next_hand`; the second one deals) and `match_over` (both send
    `new_match`: a fresh sheet, the last hand's winner deals).
    """

    def __init__(
        self,
        options: Options,
        rng: random.Random | None = None,
        deck_orders: Iterable[Sequence[Card | str]] | None = None,
        first_dealer: int | None = None,
        *,
        dealer: Deals | None = None,
    ) -> None:
        """`dealer` decides every deal and reshuffle; `rng`, `deck_orders` and
        `first_dealer` are short for `dealer=Dealer(rng, deck_orders, first_dealer)`."""
        self.options = options
        self._deals = DealBook(
            dealer if dealer is not None else Dealer(rng, deck_orders or (), first_dealer)
        )
        self._history = History(options)
        self.version = 0
        self.status: Status = "waiting"
        self.hand: Hand | None = None
        self.hand_games: list[int] = []  # sheet games the last result went into
        self.sheet = Sheet(options.scoring, options.target)
        self.ready = [False, False]
        self._hands_dealt = 0
        self._next_dealer: int | None = None
        self._views = SeatViews(options)
        # Ending a match early (docs/protocol-guide.md "Around the match"). `endings`: whether
        # `resign`, `claim` and `stand_in` are open at all (the tables layer turns
        # them on; engine users such as the arena play matches out).
        self.endings = False
        self.presence = Presence()
        # How a match that did not play out ended (by `resign` or `claim`, and whom).
        self.ended: Ended | None = None
        # The matches each seat has won at this table, rematches included (the record
        # between the two seats); carried by each deal's snapshot, so a replay of a
        # compacted log has it.
        self.matches_won: tuple[int, int] = (0, 0)
        self._open_deal(1)

    # -- moves: start, then apply for each --------------------------------------

    def start(self) -> None:
        """Both seats are taken: choose the first dealer and deal hand 1.

        :raises IllegalAction: the match has already started.
        """
        if self.status != "waiting":
            raise IllegalAction("the match has already started")
        hand = self._new_hand(self._deals.first_dealer())
        self._history.append(START)
        self._deal(hand)
        self.version += 1

    def apply(
        self,
        seat: int,
        action: Action,
        version: int | None = None,
        *,
        by: str | None = None,
        entropy: object = None,
    ) -> Match:
        """Apply one action for `seat`; on success `version` goes up by one.

        `entropy` (32 hex characters) goes with `next_hand` or `new_match`: the seat's
        part of the next deal (`contribute`), recorded only when the action is.

        Returns the match itself, now in its new state (`view(seat)` gives
        each seat's body of it). `by`: who moved for the seat (`timeout`: the
        turn clock ran out; `stand_in`: the computer standing in); None: the
        seat itself, which resets its timeouts and ends a stand-in.

        `next_hand`, `new_match` and `resign` are taken at any `version` while they are
        open to the seat, and one the seat has sent already changes nothing (no error,
        `version` stays): two players who press "Next hand" at once both count.

        :raises StaleVersion: `version` is given and is not the current one
            (checked before anything else), for any other action, or a ready
            signal that is neither open nor sent already.
        :raises NotSeated: `seat` is not 0 or 1.
        :raises BadAction: the action's shape is wrong (`BadCard`: a card twice in a meld).
        :raises NotYourTurn: a play action out of turn.
        :raises IllegalAction: well formed, but not open now.
        """
        if version is not None and version != self.version and not self._late_ok(seat, action):
            raise StaleVersion(f"the state is at version {self.version}, not {version}")
        seat = check_seat(seat)
        mover = None if by is None else self.presence.mover(seat, by)
        if mover is not None and action.kind in END_KINDS:
            raise IllegalAction(f"only the seat itself may {action.kind}")
        if mover == "timeout" and self.status != "playing" and action.kind not in _READY:
            # Between hands the clock times only the ready signals (issue 41).
            raise IllegalAction("the turn clock runs only while a hand is played")
        if action.kind in END_KINDS:
            self._end_early(seat, action)
        elif entropy is not None and action.kind not in ("next_hand", "new_match"):
            raise BadAction("only next_hand and new_match carry entropy")
        elif action.kind in ("next_hand", "new_match"):
            self._ready(seat, action, mover, None if entropy is None else check_entropy(entropy))
        else:
            self._play(seat, action, mover)
        return self

    def _late_ok(self, seat: object, action: Action) -> bool:
        """Whether a ready signal chosen on an older version is taken: it is open to
        the seat now, or the seat has sent it already (a no-op)."""
        kind = action.kind
        if kind not in _ANY_VERSION or (seat != 0 and seat != 1) or seat.__class__ is not int:
            return False
        return self._sent_already(seat, kind) or any(a.kind == kind for a in self.actions(seat))

    def _sent_already(self, seat: int, kind: str) -> bool:
        """Whether `seat` sent this ready signal for the present moment already: its
        `next_hand` or `new_match` counts, or its `resign` ended this match."""
        if kind == "resign":
            return self.status == "match_over" and self.ended == Ended("resign", seat)
        wanted = {"hand_over": "next_hand", "match_over": "new_match"}.get(self.status)
        return kind == wanted and self.ready[seat]

    def _play(self, seat: int, action: Action, by: Mover | None) -> None:
        """A move of the hand being played (`Hand.validate` checks it; nothing
        changes before it has)."""
        if self.status != "playing" or self.hand is None:
            raise IllegalAction("no hand is being played")
        hand = self.hand
        plan = hand.validate(seat, action)
        if hand.needs_reshuffle(plan):
            self._reshuffle(hand)
        self._log_action(seat, action, by)
        hand.commit(plan, by)
        self.version += 1
        if hand.phase == "over":
            self._end_hand(hand)

    def _ready(self, seat: int, action: Action, by: Mover | None, entropy: str | None) -> None:
        """`next_hand` or `new_match` (with the seat's entropy for the next deal, if
        any): the second seat to send it deals."""
        wanted = {"hand_over": "next_hand", "match_over": "new_match"}.get(self.status)
        if action.kind != wanted:
            raise IllegalAction(f"{action.kind} is not open now")
        if self.ready[seat]:
            return  # a second press: it counts already (docs/protocol-guide.md "Actions")
        added = None
        if entropy is not None and self._deals.pending:
            added = self._deals.add(seat, entropy)
        dealt: Hand | None = None
        if self.ready[1 - seat]:
            # Build the hand first, so that a bad deck order raises before anything
            # has changed (the entropy just added is taken back).
            assert self._next_dealer is not None
            try:
                dealt = self._new_hand(self._next_dealer)
            except BaseException:
                if added is not None:
                    self._deals.withdraw(seat)
                raise
        if added is not None:
            self._history.append(added)
        self._log_action(seat, action, by)
        self.ready[seat] = True
        if dealt is not None:
            if action.kind == "new_match":
                self.sheet = Sheet(self.options.scoring, self.options.target)
                self.ended = None
            self._deal(dealt)
        self.version += 1

    def _end_early(self, seat: int, act: Action) -> None:
        """`resign`, `claim` or `stand_in` by `seat`
        (docs/protocol-guide.md "Around the match"); a second `resign` of the seat that
        ended the match by it changes nothing."""
        if act.kind == "resign" and self._sent_already(seat, "resign"):
            return
        under_way = self.endings and self.status in ("playing", "hand_over")
        if not under_way or act.kind not in {a.kind for a in self._endings(seat)}:
            raise IllegalAction(f"{act.kind} is not open now")
        self._log_action(seat, act, None)
        self.version += 1
        if act.kind == "stand_in":
            self.presence.stand_in[1 - seat] = True
            return
        hand = self.hand
        if self.status == "playing" and hand is not None:
            # The hand is left unplayed: no result, the same dealer deals again, from
            # a deal committed to now (as at the end of a hand).
            self._next_dealer = hand.dealer
            self._open_deal(hand.number + 1)
        self.ended = Ended("resign" if act.kind == "resign" else "claim", seat)
        self.status = "match_over"
        self.ready = [False, False]
        self._won(self.ended.winner)

    def _log_action(self, seat: int, act: Action, by: Mover | None) -> None:
        """The action into the log (with `by` when the seat did not move itself), and
        to the presence: a timeout counts, the seat's own move ends a stand-in."""
        self._history.append(ActionTaken(seat, act, by))
        self.presence.moved(seat, by)

    # -- hands ---------------------------------------------------------------

    def _new_hand(self, dealer: int) -> Hand:
        """The next hand, dealt but not yet in play (raises before any change)."""
        number = self._hands_dealt + 1
        deck, salt = self._deals.deck(number, dealer)
        return Hand(
            number=number,
            dealer=dealer,
            deck=deck,
            salt=salt,
            rules=self.options.rules,
            wall=walled(self.options.scoring),
        )

    def _deal(self, hand: Hand) -> None:
        # Each hand starts from a snapshot of what the hands before it left (the sheet,
        # the version): the log before it can then go (`compact`), and a replay starts
        # there.
        stored = self._history.stored_snapshot(hand.number)
        if stored is not None and stored.matches_won is None:
            # A log written before the record was kept: the record starts from here.
            self.matches_won = (0, 0)
        snapshot = self._snapshot(hand.number - 1)
        source = self._deals.dealt(hand.number)
        self._history.dealt(snapshot, Deal(hand.number, hand.dealer, hand.deck, hand.salt, source))
        self._hands_dealt = hand.number
        self.hand = hand
        self.hand_games = []
        self.status = "playing"
        self.ready = [False, False]

    def _reshuffle(self, hand: Hand) -> None:
        order = self._deals.reshuffle(hand.number, hand.discard[:-1])
        after = hand.moves
        hand.reshuffle(order)
        self._history.append(Reshuffle(hand.number, after, tuple(order)))

    def _end_hand(self, hand: Hand) -> None:
        result = hand.result
        assert result is not None
        if result.winner is None:
            self.hand_games = []
            self._next_dealer = hand.dealer  # a drawn hand: the same dealer again
        else:
            self.hand_games = self.sheet.record(result.winner, result.points)
            self._next_dealer = result.winner  # the winner deals next
        self.status = "match_over" if self.sheet.match_over else "hand_over"
        self.ready = [False, False]
        winner = self.sheet.match_winner
        if winner is not None:
            self._won(winner)
        # The record keeps the sheet as it stands now, the view's own value.
        sheet = self._views.sheet(self.sheet, self.ended)
        self._history.finished(hand.number, self.outcome(hand), sheet)
        self._open_deal(hand.number + 1)

    def _won(self, seat: int) -> None:
        """A match is over and `seat` won it: one more to its record at this table."""
        won = self.matches_won
        self.matches_won = (won[0] + 1, won[1]) if seat == 0 else (won[0], won[1] + 1)

    def _open_deal(self, number: int) -> None:
        """Commit to deal `number`'s server secret, before any seat can add entropy."""
        commitment = self._deals.open(number)
        if commitment is not None:
            self._history.append(commitment)

    def contribute(self, seat: int, entropy: object) -> None:
        """Record `seat`'s entropy (32 hex characters) for the next deal; once per
        seat and deal. Not an action: `version` stays (the table's creation and a
        join carry it; `apply` takes it with `next_hand` and `new_match`).

        :raises BadAction: not 32 hex characters.
        :raises IllegalAction: a hand is being played, the seat has already sent
            `next_hand` / `new_match`, or its entropy for this deal is recorded already.
        """
        seat = check_seat(seat)
        text = check_entropy(entropy)
        if self.status == "playing" or not self._deals.pending:
            raise IllegalAction("entropy is added between hands, before the deal")
        if self.ready[seat]:
            raise IllegalAction("you have already sent your part for this deal")
        self._history.append(self._deals.add(seat, text))

    @property
    def next_deal(self) -> str | None:
        """The commitment (hex) to the next deal's server secret, between hands."""
        return None if self.status == "playing" else self._deals.commitment

    # -- seats ---------------------------------------------------------------

    def _endings(self, seat: int) -> tuple[Action, ...]:
        """The end actions open to `seat` while a match is under way (`playing` or
        `hand_over`, with `endings` on), after its other actions in `legal`."""
        opened = self.presence.against(seat)
        return (_RESIGN, *opened) if opened else _RESIGN_ONLY

    def back(self, seat: int) -> bool:
        """A connection of `seat` said hello: the stand-in stops. Not an action (the
        version stays), but in the log, so a replay knows. True: it was standing in."""
        seat = check_seat(seat)
        if not self.presence.back(seat):
            return False
        self._history.append(Back(seat))
        return True

    @property
    def match_winner(self) -> int | None:
        """The sheet's winner, or the winner of a match ended by `resign` or `claim`."""
        return self.sheet.match_winner if self.ended is None else self.ended.winner

    def arrange(self, seat: int, cards: Sequence[object]) -> None:
        """Keep `seat`'s cards in this order. Not an action: `version` stays.

        :raises BadAction: no hand yet, or not a permutation of the seat's cards.
        """
        seat = check_seat(seat)
        if self.hand is None:
            raise BadAction("no cards have been dealt yet")
        self.hand.arrange(seat, cards)
        # Kept with where in the log it was made, so a replay puts it back exactly there.
        self._history.arranged(seat, self.hand.number, tuple(str(c) for c in cards))

    def keep_arranged(self, event: Arranged) -> None:
        """An `Arranged` of a replayed log written before orders were kept apart:
        applied, and kept, so the log stays the stored one entry for entry."""
        self.arrange(event.seat, event.cards)
        self._history.append(event)

    # -- queries -----------------------------------------------------------

    def legal(self, seat: int) -> list[Action]:
        """Exactly the actions open to `seat` now (`view` shows them as they are sent)."""
        return list(self.actions(check_seat(seat)))

    def actions(self, seat: int, own: Own | None = None) -> tuple[Action, ...]:
        """`legal` of a seat already checked, as a tuple of the shared actions (what a
        view holds); `own`: the seat's `Hand.own`, when the caller has it."""
        status = self.status
        if status == "playing":
            hand = self.hand
            if hand is None:
                return ()
            plays = hand.plays(seat, own)
            return plays + self._endings(seat) if self.endings else plays
        if status == "hand_over":
            ends = self._endings(seat) if self.endings else ()
            return ends if self.ready[seat] else (_NEXT_HAND, *ends)
        if status == "match_over" and not self.ready[seat]:
            return (_NEW_MATCH,)
        return ()

    def playable(self, seat: int) -> list[Action]:
        """`legal` without the end actions: what a computer or a stand-in may choose from."""
        return [a for a in self.legal(seat) if a.kind not in END_KINDS]

    def view(self, seat: int | None) -> View:
        """What `seat` may see now (None: a spectator; `hollywood_gin.engine.seat_views`);
        `View.wire()` is the `state` body (docs/protocol-guide.md "The state").

        Never contains the other seat's cards before the result, any stock
        card, or the card the other seat drew from the stock.
        """
        if seat is not None and (seat.__class__ is not int or (seat != 0 and seat != 1)):
            seat = check_seat(seat)  # raises, or a 0 or 1 of another type
        return self._views.view(self, seat)

    def outcome(self, hand: Hand) -> Outcome | None:
        """`hand`'s result as shown (None: not over): the deck revealed, what it was
        derived from and, for the latest hand, the sheet's games its points went into."""
        if hand.result is None:
            return None
        games = tuple(self.hand_games) if hand is self.hand else ()
        secret, entropy = self._deals.revealed
        return Outcome(
            hand.result, tuple(str(c) for c in hand.deck), hand.salt, games, secret, entropy
        )

    # -- the log -------------------------------------------------------------

    @property
    def log(self) -> list[Event]:
        """Every event of the match since the last `compact`, in order."""
        return self._history.log

    @property
    def orders(self) -> dict[int, Order]:
        """Each seat's latest card order (`arrange`): not in the log, kept beside it."""
        return self._history.orders

    def hand_record(self, n: int) -> JsonObject | None:
        """The full record of finished hand `n` (`History.hand_record`), or None."""
        return self._history.hand_record(n)

    def compaction(self) -> tuple[int, dict[int, JsonObject]]:
        """What `compact` would drop: how many entries, and the records of those hands."""
        return self._history.compaction()

    def compact(self) -> int:
        """Drop the log before the last snapshot (the records of its hands are the
        caller's to keep: `compaction`); return how many entries went."""
        return self._history.compact()

    def _snapshot(self, hands_dealt: int) -> Snapshot:
        """What the next deal starts from: everything earlier hands leave behind."""
        sheet = self.sheet.to_state()
        won = self.matches_won if any(self.matches_won) else None
        return Snapshot(hands_dealt, self.version, sheet, *self.presence.carried(), won)

    # -- replay --------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        options: Options,
        log: Iterable[Event],
        rng: random.Random | None = None,
        orders: Mapping[int, Order] | None = None,
        *,
        endings: bool = False,
        fair: bool = False,
    ) -> Match:
        """Rebuild a match from its `log` (`hollywood_gin.engine.replay.redo`): the same
        state, views and version. `rng` serves only the hands dealt after the replay;
        `orders` (a match's `orders`) puts the seats' card orders back.

        :raises RuleError: the log does not describe a possible match.
        """
        events = list(log)
        dealer = Replayed(events, then=Dealer(rng, fair=fair))
        match = cls(options, dealer=dealer)
        match.endings = endings
        match.presence.trusted = True
        match._history.replaying(events)
        redo(match, events, orders or {})
        dealer.done()
        match._history.replayed(events)
        match.presence.trusted = False
        return match

    def resume(self, snapshot: Snapshot, deal: Deal) -> None:
        """Go on from a compacted log's start (in a replay): the state `snapshot`
        describes, then its `deal` dealt again.

        :raises IllegalAction: the match has already started.
        :raises BadAction: the snapshot's sheet is not one of these options.
        """
        if self.status != "waiting":
            raise IllegalAction("the match has already started")
        try:
            self.sheet = Sheet.from_state(snapshot.sheet, self.options.scoring, self.options.target)
        except ValueError as exc:
            raise BadAction(f"a snapshot's sheet: {exc}") from None
        self._hands_dealt = snapshot.hands_dealt
        self.version = snapshot.version
        self.presence.restore(snapshot)
        self.matches_won = snapshot.matches_won or (0, 0)
        self._deals.resume(deal)
        self._deal(self._new_hand(deal.dealer))
        self.version += 1
