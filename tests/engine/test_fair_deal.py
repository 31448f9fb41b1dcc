"""docs/protocol-guide.md "Deals nobody can choose": the deck derived from the server
secret and the seats' entropy, against a reference written from the protocol text
alone."""

from __future__ import annotations

import hashlib
import random
import struct
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hollywood_gin.engine import Match, Options
from hollywood_gin.engine.actions import Action
from hollywood_gin.engine.cards import full_deck
from hollywood_gin.engine.dealer import Dealer, derive_deck, secret_commitment
from hollywood_gin.engine.errors import BadAction, IllegalAction
from hollywood_gin.engine.events import Entropy, NextDeal, log_from_json

# --- the reference: docs/protocol-guide.md "Deals nobody can choose", read literally -------------


def reference_stream(seed: bytes) -> Iterator[int]:
    """SHA-256(seed || k), k = 0, 1, ... as 8-byte big-endian, read as 4-byte big-endian
    unsigned integers."""
    k = 0
    while True:
        block = hashlib.sha256(seed + struct.pack(">Q", k)).digest()
        yield from struct.unpack(">8I", block)
        k += 1


def reference_shuffle(stream: Iterator[int]) -> list[str]:
    cards = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"]  # AC 2C ... KS
    for i in range(51, 0, -1):
        while True:
            x = next(stream)
            if x < 2**32 - (2**32 % (i + 1)):
                break
        j = x % (i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def reference_deck(secret: bytes, entropy0: bytes | None, entropy1: bytes | None) -> list[str]:
    seed = hashlib.sha256(secret + (entropy0 or b"") + (entropy1 or b"")).digest()
    return reference_shuffle(reference_stream(seed))


SECRET = bytes(range(32))
E0 = bytes.fromhex("00112233445566778899aabbccddeeff")
E1 = bytes.fromhex("ff" * 16)

# Fixed vectors, computed once with the reference above and written down: a change of
# either the code or the reference shows here.
VECTOR_BOTH = [
    "9S",
    "TS",
    "8D",
    "8S",
    "TH",
    "TD",
    "QS",
    "9C",
    "AH",
    "8C",
    "3S",
    "3D",
    "6S",
    "KH",
    "JH",
    "7C",
    "4H",
    "JS",
    "JC",
    "TC",
    "7S",
    "4C",
    "5S",
    "6D",
    "9H",
    "2C",
    "2S",
    "4D",
    "8H",
    "9D",
    "AS",
    "QH",
    "QD",
    "6H",
    "5H",
    "QC",
    "6C",
    "7D",
    "KD",
    "3C",
    "4S",
    "KC",
    "7H",
    "AC",
    "5D",
    "2H",
    "3H",
    "2D",
    "5C",
    "KS",
    "AD",
    "JD",
]
VECTOR_SEAT1_MISSING = [
    "6D",
    "4D",
    "5D",
    "5H",
    "JC",
    "QS",
    "7D",
    "3C",
    "8D",
    "QH",
    "KC",
    "4S",
    "8H",
    "5C",
    "7C",
    "AH",
    "KH",
    "JD",
    "2H",
    "AC",
    "KD",
    "5S",
    "TD",
    "7H",
    "8C",
    "6C",
    "9H",
    "6S",
    "TC",
    "TH",
    "2D",
    "JH",
    "3D",
    "QC",
    "3H",
    "9D",
    "2S",
    "AS",
    "7S",
    "4H",
    "3S",
    "4C",
    "KS",
    "9C",
    "JS",
    "TS",
    "AD",
    "6H",
    "8S",
    "2C",
    "QD",
    "9S",
]
VECTOR_ZERO_SECRET_NO_ENTROPY = [
    "8S",
    "8H",
    "4C",
    "QD",
    "2C",
    "5C",
    "3C",
    "JS",
    "JD",
    "7C",
    "6C",
    "JC",
    "6D",
    "4S",
    "8C",
    "KH",
    "5S",
    "7S",
    "6S",
    "3H",
    "JH",
    "QS",
    "TD",
    "9H",
    "TS",
    "3S",
    "9D",
    "7H",
    "KC",
    "TH",
    "8D",
    "2D",
    "AD",
    "AH",
    "9S",
    "2H",
    "4D",
    "QC",
    "4H",
    "3D",
    "7D",
    "9C",
    "TC",
    "QH",
    "AC",
    "5H",
    "KD",
    "6H",
    "AS",
    "5D",
    "KS",
    "2S",
]


def texts(cards: list[object]) -> list[str]:
    return [str(c) for c in cards]


@pytest.mark.parametrize(
    ("secret", "entropy", "expected"),
    [
        (SECRET, [E0, E1], VECTOR_BOTH),
        (SECRET, [E0, None], VECTOR_SEAT1_MISSING),
        (bytes(32), [None, None], VECTOR_ZERO_SECRET_NO_ENTROPY),
    ],
)
def test_fixed_vectors(secret: bytes, entropy: list[bytes | None], expected: list[str]) -> None:
    assert reference_deck(secret, entropy[0], entropy[1]) == expected
    assert texts(list(derive_deck(secret, entropy))) == expected


def test_a_missing_entropy_is_empty_bytes_not_zeros() -> None:
    # Raw concatenation: seat 0 missing and seat 1 given is the same seed as the reverse.
    assert texts(list(derive_deck(SECRET, [None, E1]))) == texts(
        list(derive_deck(SECRET, [E1, None]))
    )
    assert derive_deck(SECRET, [E0, None]) != derive_deck(SECRET, [E0, bytes(16)])


def test_a_rejected_integer_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rejection rule, which random streams almost never reach: a stream whose
    first integers are 2**32 - 1 (above every limit but that of a power of two)."""
    real = hashlib.sha256
    first_block = bytes([0xFF] * 32)

    class Fake:
        def __init__(self, data: bytes) -> None:
            self.data = data

        def digest(self) -> bytes:
            if self.data.endswith(struct.pack(">Q", 0)) and len(self.data) == 40:
                return first_block
            return real(self.data).digest()

    seed = real(SECRET + E0 + E1).digest()

    def stream() -> Iterator[int]:
        yield from struct.unpack(">8I", first_block)
        rest = reference_stream(seed)
        next(iter(range(8)))
        for _ in range(8):  # block 0 replaced by the fake one
            next(rest)
        yield from rest

    expected = reference_shuffle(stream())
    monkeypatch.setattr("hollywood_gin.engine.dealer.hashlib.sha256", Fake)
    got = texts(list(derive_deck(SECRET, [E0, E1])))
    assert got == expected
    assert sorted(got) == sorted(texts(list(full_deck())))


@given(
    st.binary(min_size=32, max_size=32),
    st.one_of(st.none(), st.binary(min_size=16, max_size=16)),
    st.one_of(st.none(), st.binary(min_size=16, max_size=16)),
)
def test_the_derivation_is_a_permutation_and_the_reference(
    secret: bytes, e0: bytes | None, e1: bytes | None
) -> None:
    deck = derive_deck(secret, [e0, e1])
    assert sorted(deck) == full_deck()
    assert texts(list(deck)) == reference_deck(secret, e0, e1)


@given(st.binary(min_size=32, max_size=32), st.binary(min_size=16, max_size=16))
def test_a_seats_entropy_changes_the_deck(secret: bytes, entropy: bytes) -> None:
    other = bytes([entropy[0] ^ 1]) + entropy[1:]
    assert derive_deck(secret, [entropy, None]) != derive_deck(secret, [other, None])
    assert derive_deck(secret, [None, entropy]) != derive_deck(secret, [None, other])
    assert derive_deck(secret, [None, entropy]) != derive_deck(secret, [None, None])


# --- the match: commitment first, entropy recorded once, the deal derived ---------------


GAME = Options("standard", "game", 250)


def fair_match(first_dealer: int = 0) -> Match:
    return Match(GAME, dealer=Dealer(random.Random(1), first_dealer=first_dealer, fair=True))


def secret_of(match: Match) -> bytes:
    event = [e for e in match.log if isinstance(e, NextDeal)][-1]
    return bytes.fromhex(event.secret)


def test_the_commitment_is_there_before_any_entropy_and_the_deal_follows() -> None:
    match = fair_match()
    commitment = match.view(None).next_deal
    assert commitment is not None and match.view(0).wire()["next_deal"] == {
        "commitment": commitment
    }
    secret = secret_of(match)
    assert secret_commitment(secret) == commitment == hashlib.sha256(secret).hexdigest()
    match.contribute(0, E0.hex())
    match.contribute(1, E1.hex().upper())  # hex in either case; kept lower case
    match.start()
    assert match.view(0).next_deal is None  # no deal is open while a hand is played
    assert texts(list(match.hand.deck)) == reference_deck(secret, E0, E1)  # type: ignore[union-attr]


def test_entropy_is_recorded_once_and_malformed_entropy_changes_nothing() -> None:
    match = fair_match()
    match.contribute(0, E0.hex())
    before = list(match.log)
    for bad in ("ab" * 15, "zz" * 16, "ab" * 17, 12, None):
        with pytest.raises(BadAction):
            match.contribute(1, bad)
    with pytest.raises(IllegalAction):
        match.contribute(0, E1.hex())  # a second one for the same deal is refused
    assert match.log == before
    match.start()
    with pytest.raises(IllegalAction):
        match.contribute(1, E1.hex())  # the deal is made


def finish_hand(match: Match) -> None:
    """Play until the hand is over (draws and discards of the first legal kind)."""
    while match.status == "playing":
        seat = next(s for s in (0, 1) if match.legal(s))
        legal = match.legal(seat)
        knocks = [a for a in legal if a.kind == "knock"]
        match.apply(seat, knocks[0] if knocks else legal[0])


def test_next_hand_carries_entropy_and_a_replay_deals_the_same() -> None:
    match = fair_match()
    match.start()
    finish_hand(match)
    result = match.view(0).hand.outcome  # type: ignore[union-attr]
    assert result is not None and result.entropy == (None, None)
    assert result.server_secret is not None
    commitment = match.view(1).next_deal
    secret = secret_of(match)
    assert secret_commitment(secret) == commitment
    before = list(match.log)
    with pytest.raises(BadAction):
        match.apply(0, Action.of("next_hand"), entropy="not hex")
    with pytest.raises(BadAction):
        match.apply(0, Action.of("draw_stock"), entropy=E0.hex())
    assert match.log == before
    match.apply(0, Action.of("next_hand"), entropy=E0.hex())
    match.apply(1, Action.of("next_hand"))  # seat 1 adds nothing (the computer's way)
    assert texts(list(match.hand.deck)) == reference_deck(secret, E0, None)  # type: ignore[union-attr]
    finish_hand(match)
    outcome = match.view(None).hand.outcome  # type: ignore[union-attr]
    assert outcome is not None
    assert outcome.server_secret == secret.hex() and outcome.entropy == (E0.hex(), None)
    reveal = outcome.wire()["deck_reveal"]
    assert reveal["server_secret"] == secret.hex() and reveal["entropy"] == [E0.hex(), None]
    record = match.hand_record(2)
    assert record is not None
    assert record["server_secret"] == secret.hex() and record["entropy"] == [E0.hex(), None]
    # A replay (a restart) gives the same decks, views and next commitment.
    again = Match.replay(GAME, match.log, fair=True)
    assert again.log == match.log
    assert again.view(0) == match.view(0)
    assert again.next_deal == match.next_deal is not None
    # A log whose deck is not the one its secrets give is refused.
    forged = [e.to_json() for e in match.log]
    deal = next(e for e in forged if e["event"] == "deal" and e["hand"] == 2)
    deal["deck"] = list(reversed(deal["deck"]))  # type: ignore[arg-type]
    with pytest.raises(BadAction):
        Match.replay(GAME, log_from_json(forged), fair=True)


def test_a_compacted_log_keeps_what_its_deal_came_from() -> None:
    match = fair_match()
    match.contribute(0, E0.hex())
    match.start()
    finish_hand(match)
    match.apply(0, Action.of("next_hand"), entropy=E1.hex())
    match.apply(1, Action.of("next_hand"), entropy=E0.hex())
    match.compact()
    again = Match.replay(GAME, match.log, fair=True)
    finish_hand(match)
    finish_hand(again)
    # Equal but for the next deal's commitment: each drew its own secret after the replay.
    assert again.view(0)._replace(next_deal=None) == match.view(0)._replace(next_deal=None)
    outcome = again.view(0).hand.outcome  # type: ignore[union-attr]
    assert outcome is not None and outcome.entropy == (E1.hex(), E0.hex())


def test_stacked_decks_are_not_derived_and_old_logs_still_load() -> None:
    deck = texts(list(full_deck()))
    match = Match(Options(), dealer=Dealer(random.Random(2), [deck], first_dealer=0, fair=True))
    assert match.next_deal is None and match.log == []
    match.contribute(1, E1.hex())
    match.start()
    assert texts(list(match.hand.deck)) == deck  # type: ignore[union-attr]
    # An unfair match's log has no secrets: the shape of logs written before them.
    plain = Match(Options(), rng=random.Random(3))
    plain.start()
    finish_hand(plain)
    assert not any(isinstance(e, NextDeal | Entropy) for e in plain.log)
    assert all("server_secret" not in e.to_json() for e in plain.log)
    again = Match.replay(Options(), plain.log, fair=True)
    assert again.view(0) == plain.view(0)
    assert plain.hand_record(1)["server_secret"] is None  # type: ignore[index]
