"""A table's match: options, hands in sequence, who deals, the sheet, `view(seat)`.

`Match` is the engine's one stateful object. The tables layer creates it,
calls `start()` once both seats are taken, then `apply(seat, action)` for
every move and `view(seat)` for every connection. `view` is the only place
where hidden information is decided.

Everything random (deck shuffles, salts, the first dealer, the `hand`-scoring
reshuffle) comes from the injected dealer (`hollywood_gin.engine.dealer`) and is written
to `log`, so `Match.replay(options, log)` rebuilds the same state without it.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hollywood_gin.engine.actions import END_KINDS, Action, parse_action
from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.dealer import (
    Dealer,
    Deals,
    Replayed,
    check_entropy,
    check_seat,
    secret_commitment,
)
from hollywood_gin.engine.errors import BadAction, IllegalAction, RuleError, StaleVersion
from hollywood_gin.engine.hand import Hand
from hollywood_gin.engine.scoring import Sheet
from hollywood_gin.engine.views import (
    HandView,
    Mine,
    Outcome,
    SheetView,
    TableView,
    View,
    sheet_view,
)
from hollywood_gin.engine.vocabulary import (
    AWAY_TIMEOUTS,
    RULES,
    SCORINGS,
    TARGETS,
    TURN_SECONDS,
    Status,
    walled,
)


@dataclass(frozen=True, slots=True)
class Options:
    """The table choices of RULES.md §3 (defaults: standard, hand, 100)."""

    rules: str = "standard"
    scoring: str = "hand"
    target: int = 100
    # The optional turn clock (PROTOCOL.md "Around the match"): seconds per action,
    # None for none. The engine keeps no time; the tables layer runs the clock.
    turn_seconds: int | None = None

    def __post_init__(self) -> None:
        if self.rules not in RULES:
            raise BadAction(f"rules is one of {', '.join(RULES)}")
        if self.scoring not in SCORINGS:
            raise BadAction(f"scoring is one of {', '.join(SCORINGS)}")
        if isinstance(self.target, bool) or self.target not in TARGETS:
            raise BadAction("target is 100 or 250")
        seconds = self.turn_seconds
        if seconds is not None and (
            isinstance(seconds, bool)
            or not isinstance(seconds, int)
            or not TURN_SECONDS[0] <= seconds <= TURN_SECONDS[1]
        ):
            raise BadAction(f"turn_seconds is null or {TURN_SECONDS[0]} to {TURN_SECONDS[1]}")

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> Options:
        """Options from `{"rules", "scoring", "target"}`; missing keys take the defaults.

        :raises BadAction: an unknown key or a value outside RULES.md §3.
        """
        extra = set(d) - {"rules", "scoring", "target", "turn_seconds"}
        if extra:
            raise BadAction(f"unknown option {sorted(map(str, extra))[0][:20]!r}")
        rules = d.get("rules", "standard")
        scoring = d.get("scoring", "hand")
        target = d.get("target", 100)
        if not isinstance(rules, str) or not isinstance(scoring, str):
            raise BadAction("rules and scoring are strings")
        if not isinstance(target, int):
            raise BadAction("target is 100 or 250")
        turn_seconds = d.get("turn_seconds")
        if turn_seconds is not None and not isinstance(turn_seconds, int):
            raise BadAction("turn_seconds is a whole number of seconds")
        return cls(rules, scoring, target, turn_seconds)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"rules": self.rules, "scoring": self.scoring, "target": self.target}
        if self.turn_seconds is not None:  # tables without a clock stay as they were
            out["turn_seconds"] = self.turn_seconds
        return out


_NEXT_HAND, _NEW_MATCH = Action.of("next_hand"), Action.of("new_match")
_RESIGN, _CLAIM, _STAND_IN = Action.of("resign"), Action.of("claim"), Action.of("stand_in")
# Who made a move that is not the seat's own (the log's `by`): the turn clock ran
# out (`timeout`), or the computer stands in for an away seat (`stand_in`).
MOVERS = ("timeout", "stand_in")


class NextDeal:
    """The deal not yet made: its server secret (None: not derived from secrets, a
    test deck or an old log) and what each seat has added (hex, or None)."""

    __slots__ = ("commitment", "entropy", "hand", "secret")

    def __init__(self, hand: int, secret: bytes | None) -> None:
        self.hand = hand
        self.secret = secret
        self.commitment = None if secret is None else secret_commitment(secret)
        self.entropy: list[str | None] = [None, None]

    def fair(self) -> tuple[bytes, list[bytes | None]] | None:
        """What the dealer derives the deck from (None: no secret)."""
        if self.secret is None:
            return None
        return self.secret, [None if e is None else bytes.fromhex(e) for e in self.entropy]


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
        self._dealer: Deals = (
            dealer if dealer is not None else Dealer(rng, deck_orders or (), first_dealer)
        )
        self.version = 0
        self.status: Status = "waiting"
        self.hand: Hand | None = None
        self.hand_games: list[int] = []  # sheet games the last result went into
        self.sheet = Sheet(options.scoring, options.target)
        self.ready = [False, False]
        self.log: list[dict[str, Any]] = []
        # Each seat's latest card order: {"hand": n, "at": log length then, "cards": [...]}.
        # Not in the log: arranging is not a move, and the log must not grow with it.
        self.orders: dict[int, dict[str, Any]] = {}
        self._hands_dealt = 0
        self._next_dealer: int | None = None
        # Finished hands: (options, log start, log end, result) of each.
        self._records: dict[int, tuple[dict[str, Any], int, int, dict[str, Any] | None]] = {}
        self._hand_log_start = 0
        # The hands whose deal the replayed log has a snapshot before (None: not
        # replaying, every deal gets one).
        self._replay_snapshots: set[int] | None = None
        # `view` is asked for every seat on every change: what a change leaves alone
        # is kept. Per seat, the grouping with the cards it came from (only the mover's
        # cards change); the sheet's view with the sheet and won hands it is of.
        self._groupings: dict[int, tuple[object, tuple[tuple[tuple[str, ...], ...], int]]] = {}
        self._sheet_view: tuple[object, SheetView] | None = None
        # The parts every seat's view shares: the table's, and the hand's at a version.
        self._shared_table: TableView | None = None
        self._shared_hand: tuple[tuple[Hand, int], HandView] | None = None
        # Ending a match early (PROTOCOL.md "Around the match"). `endings`: whether
        # `resign`, `claim` and `stand_in` are open at all (the tables layer turns
        # them on; engine users such as the arena play matches out).
        self.endings = False
        # Seats the tables layer finds away by absence (no connection for the claim
        # time): a fact of the world, not of the log, set before each view and move.
        self.absent = [False, False]
        # Consecutive turn-clock timeouts per seat, and the seats the computer
        # stands in for: both follow from the log (`by` of its actions).
        self.timeouts = [0, 0]
        self.stand_in = [False, False]
        # How a match that did not play out ended: {"by": "resign"|"claim", "seat": s}.
        self.ended: dict[str, Any] | None = None
        # A replay applies the log's claims as they were made: absence is not in it.
        self._trusted = False
        # The next deal's secret and entropy, from the end of the hand before it (or
        # the table's creation) until it is dealt; then the dealt hand's, as revealed.
        self._next: NextDeal | None = None
        self._dealt_from: tuple[str | None, tuple[str | None, str | None]] = (None, (None, None))
        self._open_deal(1)

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> None:
        """Both seats are taken: choose the first dealer and deal hand 1.

        :raises IllegalAction: the match has already started.
        """
        if self.status != "waiting":
            raise IllegalAction("the match has already started")
        hand = self._new_hand(self._dealer.first_dealer())
        self.log.append({"event": "start"})
        self._deal(hand)
        self.version += 1

    def _open_deal(self, number: int) -> None:
        """Commit to deal `number`'s server secret, before any seat can add entropy."""
        self._next = NextDeal(number, self._dealer.secret(number))
        if self._next.secret is not None:
            self.log.append(
                {"event": "next_deal", "hand": number, "secret": self._next.secret.hex()}
            )

    def _pending(self, number: int) -> NextDeal | None:
        known = self._next
        return known if known is not None and known.hand == number else None

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
        pending = self._next
        if self.status == "playing" or pending is None:
            raise IllegalAction("entropy is added between hands, before the deal")
        if self.ready[seat]:
            raise IllegalAction("you have already sent your part for this deal")
        if pending.entropy[seat] is not None:
            raise IllegalAction("this seat's entropy for this deal is recorded already")
        pending.entropy[seat] = text
        self.log.append({"event": "entropy", "hand": pending.hand, "seat": seat, "entropy": text})

    @property
    def next_deal(self) -> str | None:
        """The commitment (hex) to the next deal's server secret, between hands."""
        known = self._next
        if known is None or self.status == "playing":
            return None
        return known.commitment

    def _new_hand(self, dealer: int) -> Hand:
        """The next hand, dealt but not yet in play (raises before any change)."""
        number = self._hands_dealt + 1
        pending = self._pending(number)
        deck, salt = self._dealer.deal(number, dealer, None if pending is None else pending.fair())
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
        # there. A replay writes one where its log has one, so it rebuilds it exactly.
        if self._replay_snapshots is None or hand.number in self._replay_snapshots:
            self.log.append(self._snapshot(hand.number - 1))
        self._hands_dealt = hand.number
        self._hand_log_start = len(self.log)  # where the deal event goes
        self.hand = hand
        self.hand_games = []
        self.status = "playing"
        self.ready = [False, False]
        pending = self._pending(hand.number)
        self._next = None
        secret = None if pending is None or pending.secret is None else pending.secret.hex()
        entropy = (None, None) if pending is None else (pending.entropy[0], pending.entropy[1])
        self._dealt_from = (secret, entropy)
        event: dict[str, Any] = {
            "event": "deal",
            "hand": hand.number,
            "dealer": hand.dealer,
            "deck": [str(c) for c in hand.deck],
            "salt": hand.salt,
        }
        if secret is not None or entropy != (None, None):
            # What the deck was derived from (PROTOCOL.md "Deals nobody can choose").
            event["server_secret"] = secret
            event["entropy"] = list(entropy)
        self.log.append(event)

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

        :raises StaleVersion: `version` is given and is not the current one
            (checked before anything else).
        :raises NotSeated: `seat` is not 0 or 1.
        :raises BadAction: the action's shape is wrong (`BadCard`: a card twice in a meld).
        :raises NotYourTurn: a play action out of turn.
        :raises IllegalAction: well formed, but not open now.
        """
        if version is not None and version != self.version:
            raise StaleVersion(f"the state is at version {self.version}, not {version}")
        seat = check_seat(seat)
        act = action
        act.check()
        if by is not None and by not in MOVERS:
            raise BadAction(f"unknown mover {str(by)[:20]!r}")
        if by == "stand_in" and not self.stand_in[seat]:
            raise IllegalAction("nobody stands in for this seat now")
        if by is not None and act.kind in END_KINDS:
            raise IllegalAction(f"only the seat itself may {act.kind}")
        if by == "timeout" and self.status != "playing":
            raise IllegalAction("the turn clock runs only while a hand is played")
        if act.kind in END_KINDS:
            self._end_early(seat, act)
            return self
        if entropy is not None and act.kind not in ("next_hand", "new_match"):
            raise BadAction("only next_hand and new_match carry entropy")
        text = None if entropy is None else check_entropy(entropy)
        if act.kind in ("next_hand", "new_match"):
            wanted = {"hand_over": "next_hand", "match_over": "new_match"}.get(self.status)
            if act.kind != wanted:
                raise IllegalAction(f"{act.kind} is not open now")
            if self.ready[seat]:
                raise IllegalAction(f"you have already sent {act.kind}; waiting for the other")
            pending = self._next
            if text is not None and pending is not None and pending.entropy[seat] is not None:
                raise IllegalAction("this seat's entropy for this deal is recorded already")
            if text is not None and pending is not None:
                pending.entropy[seat] = text
            dealt: Hand | None = None
            if self.ready[1 - seat]:
                # The second one deals; build the hand first, so that a bad
                # deck order raises before anything has changed.
                assert self._next_dealer is not None
                try:
                    dealt = self._new_hand(self._next_dealer)
                except BaseException:
                    if text is not None and pending is not None:
                        pending.entropy[seat] = None
                    raise
            if text is not None and pending is not None:
                self.log.append(
                    {"event": "entropy", "hand": pending.hand, "seat": seat, "entropy": text}
                )
            self._log_action(seat, act, by)
            self.ready[seat] = True
            if dealt is not None:
                if act.kind == "new_match":
                    self.sheet = Sheet(self.options.scoring, self.options.target)
                    self.ended = None
                self._deal(dealt)
            self.version += 1
            return self
        if self.status != "playing" or self.hand is None:
            raise IllegalAction("no hand is being played")
        hand = self.hand
        plan = hand.validate(seat, act)
        if hand.needs_reshuffle(plan):
            self._reshuffle(hand)
        self._log_action(seat, act, by)
        hand.commit(plan)
        self.version += 1
        if hand.phase == "over":
            self._end_hand(hand)
        return self

    def _log_action(self, seat: int, act: Action, by: str | None) -> None:
        """The action into the log (with `by` when the seat did not move itself), and
        what it says of the seat's presence: its timeouts and its stand-in."""
        entry: dict[str, Any] = {"event": "action", "seat": seat, "action": act.wire()}
        if by is not None:
            entry["by"] = by
        self.log.append(entry)
        if by == "timeout":
            self.timeouts[seat] += 1
        elif by is None:
            self.timeouts[seat] = 0
            self.stand_in[seat] = False  # the seat plays again itself

    def away(self, seat: int) -> bool:
        """Whether `seat` is away: absent for the claim time, or timed out 3 times running."""
        return self.absent[seat] or self.timeouts[seat] >= AWAY_TIMEOUTS

    def _endings(self, seat: int) -> list[Action]:
        """The end actions open to `seat` now (after its other actions in `legal`)."""
        if not self.endings or self.status not in ("playing", "hand_over"):
            return []
        out = [_RESIGN]
        if self.away(1 - seat):
            out.append(_CLAIM)
            if not self.stand_in[1 - seat]:
                out.append(_STAND_IN)
        return out

    def _end_early(self, seat: int, act: Action) -> None:
        """`resign`, `claim` or `stand_in` by `seat` (PROTOCOL.md "Around the match")."""
        open_now = {a.kind for a in self._endings(seat)}
        if self._trusted and self.endings and self.status in ("playing", "hand_over"):
            open_now |= {"claim", "stand_in"}  # the log says the other seat was away then
        if act.kind not in open_now:
            raise IllegalAction(f"{act.kind} is not open now")
        self._log_action(seat, act, None)
        self.version += 1
        if act.kind == "stand_in":
            self.stand_in[1 - seat] = True
            return
        hand = self.hand
        if self.status == "playing" and hand is not None:
            # The hand is left unplayed: no result, the same dealer deals again, from
            # a deal committed to now (as at the end of a hand).
            self._next_dealer = hand.dealer
            self._open_deal(hand.number + 1)
        self.ended = {"by": act.kind, "seat": seat}
        self.status = "match_over"
        self.ready = [False, False]

    @property
    def match_winner(self) -> int | None:
        """The sheet's winner, or the winner of a match ended by `resign` or `claim`."""
        ended = self.ended
        if ended is not None:
            seat = int(ended["seat"])
            return 1 - seat if ended["by"] == "resign" else seat
        return self.sheet.match_winner

    def back(self, seat: int) -> bool:
        """A connection of `seat` said hello: the stand-in stops. Not an action (the
        version stays), but in the log, so a replay knows. True: it was standing in."""
        seat = check_seat(seat)
        if not self.stand_in[seat]:
            return False
        self.stand_in[seat] = False
        self.log.append({"event": "back", "seat": seat})
        return True

    def playable(self, seat: int) -> list[Action]:
        """`legal` without the end actions: what a computer or a stand-in may choose from."""
        return [a for a in self.legal(seat) if a.kind not in END_KINDS]

    def _reshuffle(self, hand: Hand) -> None:
        order = self._dealer.reshuffle(hand.number, hand.discard[:-1])
        record = hand.reshuffle(order)
        self.log.append({"event": "reshuffle", "hand": hand.number, **record})

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
        # The deck, actions and reshuffles are in the log already: a finished hand
        # keeps only where they are (its record is built when asked for).
        self._records[hand.number] = (
            self.options.to_dict(),
            self._hand_log_start,
            len(self.log),
            None if (outcome := self._outcome(hand)) is None else outcome.wire(),
        )
        self._open_deal(hand.number + 1)

    def arrange(self, seat: int, cards: Sequence[object]) -> None:
        """Keep `seat`'s cards in this order. Not an action: `version` stays.

        :raises BadAction: no hand yet, or not a permutation of the seat's cards.
        """
        seat = check_seat(seat)
        if self.hand is None:
            raise BadAction("no cards have been dealt yet")
        self.hand.arrange(seat, cards)
        # `at`: where in the log it was made, so a replay puts it back exactly there.
        self.orders[seat] = {
            "hand": self.hand.number,
            "at": len(self.log),
            "cards": [str(c) for c in cards],
        }

    def _rearrange(self, seat: int, order: Mapping[str, Any]) -> None:
        """A stored order, in a replay: only how the cards are shown, so one that does
        not fit (another hand's) is dropped, never a reason to lose the table."""
        if self.hand is None or self.hand.number != order.get("hand"):
            return
        with contextlib.suppress(RuleError):
            self.arrange(seat, order["cards"])

    # -- queries -----------------------------------------------------------

    def legal(self, seat: int) -> list[Action]:
        """Exactly the actions open to `seat` now (`view` shows them as they are sent)."""
        seat = check_seat(seat)
        if self.status == "playing" and self.hand is not None:
            return [*self.hand.legal(seat), *self._endings(seat)]
        if self.status == "hand_over" and not self.ready[seat]:
            return [_NEXT_HAND, *self._endings(seat)]
        if self.status == "hand_over":
            return self._endings(seat)
        if self.status == "match_over" and not self.ready[seat]:
            return [_NEW_MATCH]
        return []

    def _outcome(self, hand: Hand) -> Outcome | None:
        if hand.result is None:
            return None
        games = tuple(self.hand_games) if hand is self.hand else ()
        secret, entropy = self._dealt_from
        return Outcome(
            hand.result, tuple(str(c) for c in hand.deck), hand.salt, games, secret, entropy
        )

    def view(self, seat: int | None) -> View:
        """What `seat` may see now (None: a spectator); `View.wire()` is the `state`
        body of PROTOCOL.md.

        Never contains the other seat's cards before the result, any stock
        card, or the card the other seat drew from the stock.
        """
        if seat is not None:
            seat = check_seat(seat)
        hand = self.hand
        mine: Mine | None = None
        legal: tuple[Action, ...] = ()
        knock_deadwood: tuple[int, ...] = ()
        if hand is not None and seat is not None:
            melds, deadwood = self._grouping(hand, seat)
            cards = hand.cards[seat]
            mine = Mine(tuple([c.text for c in cards]), len(hand.cards[1 - seat]), melds, deadwood)
        if seat is not None:
            legal = tuple(self.legal(seat))
            if legal and (legal[-1].kind == "knock" or any(a.kind == "knock" for a in legal)):
                assert hand is not None
                left = hand.discard_deadwoods(seat)
                # `legal` lists the knocks after the discards (Hand.legal), each with
                # its discard, then the end actions.
                knock_deadwood = tuple(
                    [left[a.card] for a in legal if a.kind == "knock" and a.card is not None]
                )
        return View(
            version=self.version,
            you=seat,
            table=self._table_view(),
            hand=None if hand is None else self._hand_view(hand),
            mine=mine,
            legal=legal,
            sheet=self._sheet(),
            ready=(self.ready[0], self.ready[1]),
            knock_deadwood=knock_deadwood,
            next_deal=self.next_deal,
        )

    def _table_view(self) -> TableView:
        known = self._shared_table
        if known is None or known.status != self.status or known.ended is not self.ended:
            o = self.options
            known = self._shared_table = TableView(
                o.rules, o.scoring, o.target, self.status, self.ended
            )
        return known

    def _hand_view(self, hand: Hand) -> HandView:
        """The public part of the hand, built once per change for every seat's view."""
        key = (hand, self.version)
        known = self._shared_hand
        if known is not None and known[0] == key:
            return known[1]
        view = HandView(
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
            outcome=self._outcome(hand) if hand.phase == "over" else None,
        )
        self._shared_hand = (key, view)
        return view

    def _grouping(self, hand: Hand, seat: int) -> tuple[tuple[tuple[str, ...], ...], int]:
        # Everything `Hand.grouping` reads: the hand, the seat's cards in order and,
        # holding eleven, the card it may not discard.
        cards = hand.cards[seat]
        key = (hand, tuple(cards), hand.taken_from_discard if len(cards) == 11 else None)
        known = self._groupings.get(seat)
        if known is not None and known[0] == key:
            return known[1]
        melds, deadwood = hand.grouping(seat)
        found = (tuple([tuple([c.text for c in meld]) for meld in melds]), deadwood)
        self._groupings[seat] = (key, found)
        return found

    def _sheet(self) -> SheetView:
        """The sheet's view, built once per change of the sheet: every view shares it."""
        # `Sheet.record` is its only change and always counts a won hand; a new
        # match is a new sheet.
        key = (self.sheet, *self.sheet.wins, id(self.ended))
        known = self._sheet_view
        if known is None or known[0] != key:
            view = sheet_view(self.sheet)
            if self.ended is not None:
                view = dataclasses.replace(view, match_winner=self.match_winner)
            known = (key, view)
            self._sheet_view = known
        return known[1]

    def hand_record(self, n: int) -> dict[str, Any] | None:
        """The full record of finished hand `n` (1-based, counted over the
        table's life), or None while it is unknown or still being played."""
        known = self._records.get(n)
        if known is None:
            return None
        options, start, end, result = known
        events = self.log[start:end]
        deal = events[0]
        record = {
            "options": options,
            "number": n,
            "dealer": deal["dealer"],
            "deck": deal["deck"],
            "salt": deal["salt"],
            "server_secret": deal.get("server_secret"),
            "entropy": deal.get("entropy", [None, None]),
            "actions": [
                {"seat": e["seat"], "action": e["action"]} for e in events if e["event"] == "action"
            ],
            "reshuffles": [
                {"after": e["after"], "stock": e["stock"]}
                for e in events
                if e["event"] == "reshuffle"
            ],
            "result": result,
        }
        # A deep copy: the caller may change what it gets without touching the log.
        return copy.deepcopy(record)

    # -- snapshots -------------------------------------------------------------

    def _snapshot(self, hands_dealt: int) -> dict[str, Any]:
        """What the next deal starts from: everything earlier hands leave behind."""
        out = {
            "event": "snapshot",
            "hands_dealt": hands_dealt,
            "version": self.version,
            "sheet": self.sheet.to_state(),
        }
        # Presence carried over from earlier hands, only when there is some (so the
        # logs of tables that never had any stay as they were).
        if any(self.timeouts):
            out["timeouts"] = list(self.timeouts)
        if any(self.stand_in):
            out["stand_in"] = list(self.stand_in)
        return out

    def _restore(self, snapshot: Mapping[str, Any]) -> None:
        """Take up the state a snapshot describes (a replay that starts with one)."""
        hands_dealt = snapshot["hands_dealt"]
        version = snapshot["version"]
        if not all(isinstance(v, int) and v >= 0 for v in (hands_dealt, version)):
            raise BadAction("a snapshot's counts are not counts")
        self._hands_dealt = hands_dealt
        self.version = version
        timeouts = snapshot.get("timeouts", [0, 0])
        stand_in = snapshot.get("stand_in", [False, False])
        if not (
            isinstance(timeouts, list)
            and len(timeouts) == 2
            and all(isinstance(n, int) and n >= 0 for n in timeouts)
            and isinstance(stand_in, list)
            and len(stand_in) == 2
            and all(isinstance(b, bool) for b in stand_in)
        ):
            raise BadAction("a snapshot's presence is not two seats' counts and flags")
        self.timeouts = list(timeouts)
        self.stand_in = list(stand_in)
        try:
            self.sheet = Sheet.from_state(
                snapshot["sheet"], self.options.scoring, self.options.target
            )
        except ValueError as exc:
            raise BadAction(f"a snapshot's sheet: {exc}") from None

    def _resume_deal(self, deal: Mapping[str, Any]) -> None:
        """A compacted log starts at a deal: what it was derived from is in its event."""
        secret = deal.get("server_secret")
        entropy = [*(deal.get("entropy") or ()), None, None][:2]
        try:
            pending = NextDeal(deal["hand"], None if secret is None else bytes.fromhex(secret))
            pending.entropy = [None if e is None else check_entropy(e) for e in entropy]
        except (ValueError, TypeError) as exc:
            raise BadAction(f"a deal's secret or entropy is not hex: {exc}") from None
        self._next = pending

    def compaction(self) -> tuple[int, dict[int, dict[str, Any]]]:
        """What `compact` would drop: how many entries, and the records of those hands."""
        last = self._last_snapshot()
        records = {}
        for n, (_options, start, _end, _result) in self._records.items():
            if start < last:
                record = self.hand_record(n)
                assert record is not None
                records[n] = record
        return last, records

    def _last_snapshot(self) -> int:
        for i in range(len(self.log) - 1, -1, -1):
            if self.log[i].get("event") == "snapshot":
                return i
        return 0

    def compact(self) -> int:
        """Drop the log before the last snapshot; return how many entries went.

        The hands before it are finished: what they left is in the snapshot, and
        their records are the caller's to keep (`compaction` gives them). So a
        table's log, and its replay, stay about one hand long.
        """
        last = self._last_snapshot()
        if last == 0:
            return 0
        del self.log[:last]
        self._hand_log_start -= last
        self.orders = {
            seat: {**order, "at": order["at"] - last}
            for seat, order in self.orders.items()
            if order["at"] >= last
        }
        self._records = {
            n: (options, start - last, end - last, result)
            for n, (options, start, end, result) in self._records.items()
            if start >= last
        }
        return last

    # -- replay --------------------------------------------------------------

    @classmethod
    def replay(
        cls,
        options: Options,
        log: Iterable[Mapping[str, Any]],
        rng: random.Random | None = None,
        orders: Mapping[int, Mapping[str, Any]] | None = None,
        *,
        endings: bool = False,
        fair: bool = False,
    ) -> Match:
        """Rebuild a match from its `log`: the same state, views and version.

        Deals and reshuffles come from the log, not from `rng`; `rng` serves
        the hands dealt after the replay. `orders` (a match's `orders`) puts each
        seat's latest card order back where in the log it was made; one that the
        log does not reach, or that no longer fits, is left out.

        :raises RuleError: the log does not describe a possible match.
        """
        events = list(log)
        dealer = Replayed(events, then=Dealer(rng, fair=fair))
        match = cls(options, dealer=dealer)
        match.endings = endings
        match._trusted = True
        match._replay_snapshots = {
            int(events[i + 1].get("hand", 0))
            for i, e in enumerate(events[:-1])
            if e.get("event") == "snapshot" and events[i + 1].get("event") == "deal"
        }
        arranged: dict[int, list[tuple[int, Mapping[str, Any]]]] = {}
        for seat, order in (orders or {}).items():
            at = order.get("at")
            if isinstance(at, int) and isinstance(order.get("cards"), list):
                arranged.setdefault(at, []).append((seat, order))
        try:
            for i, event in enumerate([*events, None]):
                for seat, order in arranged.get(i, ()):
                    match._rearrange(seat, order)
                if event is None:
                    break
                kind = event.get("event")
                if kind == "snapshot" and i == 0:
                    # A compacted log: the match goes on from here, with this hand.
                    if len(events) < 2 or events[1].get("event") != "deal":
                        raise BadAction("a snapshot is followed by its deal")
                    match._restore(event)
                    match._resume_deal(events[1])
                    match._deal(match._new_hand(check_seat(events[1].get("dealer"))))
                    match.version += 1
                elif kind == "snapshot":
                    # Written again by the deal it comes before; checked there.
                    if i + 1 >= len(events) or events[i + 1].get("event") != "deal":
                        raise BadAction("a snapshot is followed by its deal")
                elif kind == "start":
                    match.start()
                elif kind == "entropy":
                    match.contribute(event["seat"], event["entropy"])
                elif kind == "action":
                    match.apply(event["seat"], parse_action(event["action"]), by=event.get("by"))
                elif kind == "back":
                    if not match.back(event["seat"]):
                        raise BadAction("a seat came back that nobody stood in for")
                elif kind == "arrange":
                    # Logs written before orders were kept apart: apply, and keep the
                    # event, so the log stays the stored one entry for entry.
                    match.arrange(event["seat"], event["cards"])
                    match.log.append(dict(event))
                elif kind not in ("deal", "reshuffle", "next_deal"):
                    raise BadAction(f"unknown log event {str(kind)[:20]!r}")
        except (KeyError, TypeError, AttributeError) as exc:
            raise BadAction(f"a log event lacks a field or has the wrong type: {exc}") from exc
        dealer.done()
        if match.log != events:
            # Snapshots are written by the replay itself: each must be what it says.
            raise BadAction("the log's snapshots do not follow from its hands")
        match._replay_snapshots = None
        match._trusted = False
        return match
