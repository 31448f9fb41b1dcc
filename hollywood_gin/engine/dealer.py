"""Where the cards come from: the one thing `Match` asks for each deal and reshuffle.

A `Match` is given one dealer. `Dealer` shuffles with its `rng` (production:
`secrets.SystemRandom()`), after dealing any stacked deck orders first and with
a fixed first dealer if asked (tests, the server's test hooks). `Replayed` deals
what a log recorded, checking that each deal follows from the log's actions, and
hands over to another dealer once the replay is done.

A `fair` dealer (the server's) draws a 32-byte secret for each deal before any seat
can add its own entropy, and the deal is `derive_deck(secret, entropy)`
(docs/protocol-guide.md "Deals nobody can choose"), so neither side can pick the cards.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Protocol

from hollywood_gin.engine.cards import Card, full_deck
from hollywood_gin.engine.errors import BadAction, NotSeated
from hollywood_gin.engine.events import Deal, Event, NextDeal, Reshuffle

# The production shuffler, one for every dealer: it keeps no state of its own (each
# draw reads the OS), but each `Random` instance carries a Mersenne Twister's
# 2.5 KB anyway, and every table held has a dealer.
SYSTEM_RANDOM = secrets.SystemRandom()

ENTROPY_BYTES = 16
SECRET_BYTES = 32
_HEX = frozenset("0123456789abcdef")


def derive_deck(server_secret: bytes, entropy: Sequence[bytes | None]) -> list[Card]:
    """The deck order of docs/protocol-guide.md "Deals nobody can choose".

    seed = SHA-256(server_secret || entropy_0 || entropy_1), a missing entropy empty;
    the stream is SHA-256(seed || k) for k = 0, 1, ... (k as 8 bytes big-endian), read
    as 4-byte big-endian integers; Fisher-Yates from notation order (AC 2C ... KS),
    i from 51 down to 1, an integer x taken when x < 2**32 - 2**32 % (i + 1) (else
    the next one is read), swapping cards i and x % (i + 1).
    """
    seed = hashlib.sha256(server_secret + b"".join(e or b"" for e in entropy)).digest()
    deck = full_deck()
    block = b""
    at = 0
    k = 0
    for i in range(51, 0, -1):
        n = i + 1
        limit = 2**32 - 2**32 % n
        while True:
            if at == len(block):
                block = hashlib.sha256(seed + k.to_bytes(8, "big")).digest()
                k += 1
                at = 0
            x = int.from_bytes(block[at : at + 4], "big")
            at += 4
            if x < limit:
                break
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def secret_commitment(server_secret: bytes) -> str:
    """`next_deal.commitment`: hex SHA-256 of the 32 raw bytes of the server secret."""
    return hashlib.sha256(server_secret).hexdigest()


def check_entropy(entropy: object) -> str:
    """A seat's entropy: 16 bytes as 32 lower-case hex characters (upper case is
    read as lower).

    :raises BadAction: anything else.
    """
    if not isinstance(entropy, str) or len(entropy) != 2 * ENTROPY_BYTES:
        raise BadAction("entropy is 32 hex characters (16 bytes)")
    text = entropy.lower()
    if not set(text) <= _HEX:
        raise BadAction("entropy is 32 hex characters (16 bytes)")
    return text


def check_seat(seat: object) -> int:
    """A seat number, 0 or 1.

    :raises NotSeated: anything else.
    """
    if isinstance(seat, bool) or seat not in (0, 1):
        raise NotSeated("a seat is 0 or 1")
    return 0 if seat == 0 else 1


class Deals(Protocol):
    """What a match asks of its dealer."""

    def first_dealer(self) -> int:
        """Who deals the match's first hand."""
        ...

    def deal(
        self, number: int, dealer: int, fair: tuple[bytes, Sequence[bytes | None]] | None = None
    ) -> tuple[list[Card], str]:
        """Hand `number`'s deck order (52 cards) and its salt; `fair`, the deal's server
        secret and the seats' entropy when it was committed to (`secret`)."""
        ...

    def secret(self, number: int) -> bytes | None:
        """A new server secret for hand `number`, drawn before any seat adds its entropy
        (None: that deal is not derived from secrets, e.g. a stacked test deck)."""
        ...

    def reshuffle(self, number: int, under: list[Card]) -> list[Card]:
        """A new stock, top card first, from the discard pile under its top (`hand` scoring)."""
        ...


class Dealer:
    """Shuffles with `rng`; stacked `decks` are dealt first, in turn (tests)."""

    def __init__(
        self,
        rng: random.Random | None = None,
        decks: Iterable[Sequence[Card | str]] = (),
        first_dealer: int | None = None,
        *,
        fair: bool = False,
        chosen_secrets: Iterable[bytes] = (),
    ) -> None:
        """`fair`: deals after the stacked ones come from a fresh secret of `secrets`
        and the seats' entropy; otherwise `rng` shuffles them (tests, the arena).
        `chosen_secrets` are used first, in turn (the server's test hooks)."""
        self.rng: random.Random = rng if rng is not None else SYSTEM_RANDOM
        # Lists, not deques, and empty nearly always: an empty deque takes 760 bytes
        # of every held table's memory (a list 56).
        self._decks = list(decks)
        self._first = None if first_dealer is None else check_seat(first_dealer)
        self.fair = fair
        self._chosen = list(chosen_secrets)

    def first_dealer(self) -> int:
        return self._first if self._first is not None else self.rng.randrange(2)

    def secret(self, number: int) -> bytes | None:
        if not self.fair or self._decks:
            return None
        if self._chosen:
            return self._chosen.pop(0)
        return secrets.token_bytes(SECRET_BYTES)

    def deal(
        self, number: int, dealer: int, fair: tuple[bytes, Sequence[bytes | None]] | None = None
    ) -> tuple[list[Card], str]:
        if self._decks:
            order = self._decks.pop(0)
            deck = [c if isinstance(c, Card) else Card.parse(c) for c in order]
        elif fair is not None:
            deck = derive_deck(*fair)
        else:
            deck = full_deck()
            self.rng.shuffle(deck)
        return deck, f"{self.rng.getrandbits(128):032x}"

    def reshuffle(self, number: int, under: list[Card]) -> list[Card]:
        order = list(under)
        self.rng.shuffle(order)
        return order


class Replayed:
    """Deals and reshuffles as a log recorded them; then, once `done`, as `then` does.

    :raises BadAction: (from `deal`, `reshuffle`, `done`) the log's deals do not
        follow from its actions, or it has deals or reshuffles its actions never reach.
    """

    def __init__(self, events: Iterable[Event], then: Deals) -> None:
        events = list(events)
        self._deals = deque(e for e in events if isinstance(e, Deal))
        self._reshuffles = deque(e for e in events if isinstance(e, Reshuffle))
        self._secrets = deque(e for e in events if isinstance(e, NextDeal))
        self._then = then
        self._replaying = True

    def first_dealer(self) -> int:
        if not self._replaying:
            return self._then.first_dealer()
        return self._deals[0].dealer if self._deals else 0

    def secret(self, number: int) -> bytes | None:
        if not self._replaying:
            return self._then.secret(number)
        # Logs written before deals were derived have none: those deals are as recorded.
        if not self._secrets or self._secrets[0].hand != number:
            return None
        return bytes.fromhex(self._secrets.popleft().secret)

    def deal(
        self, number: int, dealer: int, fair: tuple[bytes, Sequence[bytes | None]] | None = None
    ) -> tuple[list[Card], str]:
        if not self._replaying:
            return self._then.deal(number, dealer, fair)
        if not self._deals:
            raise BadAction("the log ends before this deal")
        event = self._deals.popleft()
        if event.hand != number or event.dealer != dealer:
            raise BadAction(f"the log's deal {number} does not follow from its actions")
        deck = list(event.deck)
        if fair is not None and deck != derive_deck(*fair):
            raise BadAction(f"the log's deal {number} is not the one its secrets give")
        return deck, event.salt

    def reshuffle(self, number: int, under: list[Card]) -> list[Card]:
        if not self._replaying:
            return self._then.reshuffle(number, under)
        if not self._reshuffles:
            raise BadAction("the log lacks a reshuffle here")
        return list(self._reshuffles.popleft().stock)

    def done(self) -> None:
        """The log is replayed: every recorded deal and reshuffle must have been used."""
        if self._deals or self._reshuffles or self._secrets:
            raise BadAction("the log has deals or reshuffles that its actions do not reach")
        self._replaying = False
