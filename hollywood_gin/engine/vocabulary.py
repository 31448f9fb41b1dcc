"""The game's fixed words and numbers, each defined once and imported everywhere.

Each word list is a `Literal` (what type checkers and the wire models use) and
the tuple of its values (what run-time checks use), the tuple read from the
`Literal`, so the two cannot drift apart. docs/rules.md names them;
docs/protocol-guide.md puts them on the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple, get_args

# The table's options (docs/rules.md "Table choices"), defaults first.
Rules = Literal["standard", "straight", "oklahoma"]
Scoring = Literal["hand", "game", "hollywood"]
Target = Literal[100, 250]
RULES: tuple[Rules, ...] = get_args(Rules)
SCORINGS: tuple[Scoring, ...] = get_args(Scoring)
TARGETS: tuple[Target, ...] = get_args(Target)

# Where a table's match is, and where its hand is.
Status = Literal["waiting", "playing", "hand_over", "match_over"]
Phase = Literal["upcard_offer", "draw", "discard", "over"]
PHASES: tuple[Phase, ...] = get_args(Phase)

# How a hand ended.
HandKind = Literal["gin", "knock", "undercut", "draw"]

# What a seat may do (docs/protocol-guide.md "Actions"): the plays of a hand, the steps between
# hands and matches, and the ways to end a match early (open to a person, never chosen
# by the computer).
PlayKind = Literal["take_upcard", "pass", "draw_stock", "draw_discard", "discard", "knock"]
MatchKind = Literal["next_hand", "new_match"]
EndKind = Literal["resign", "claim", "stand_in"]
ActionKind = PlayKind | MatchKind | EndKind
PLAY_KINDS: tuple[PlayKind, ...] = get_args(PlayKind)
MATCH_KINDS: tuple[MatchKind, ...] = get_args(MatchKind)
END_KINDS: tuple[EndKind, ...] = get_args(EndKind)
ACTION_KINDS: tuple[ActionKind, ...] = (*PLAY_KINDS, *MATCH_KINDS, *END_KINDS)


class ActionWire(NamedTuple):
    """An action kind's fields on the wire besides `kind`
    (docs/protocol-guide.md "Actions"): the field naming its card, whether it may
    carry the seat's entropy for the next deal (what that entropy is for), and what
    the protocol says of it. A kind with neither is its kind alone."""

    card: str | None = None
    entropy: str | None = None
    doc: str | None = None


# Every action kind's wire form: the one table the engine's `Action`, the socket's
# fast path (`web.inbound`) and the wire models (`web.messages`) read. A new kind
# is its name in the `Literal` above and its line here; its rule is the engine's.
ACTION_WIRE: Mapping[ActionKind, ActionWire] = {
    "take_upcard": ActionWire(),
    "pass": ActionWire(),
    "draw_stock": ActionWire(),
    "draw_discard": ActionWire(),
    "discard": ActionWire(card="card"),
    # Also the knocker's own `melds` (default: the best), and the `deadwood` that
    # `legal` shows next to it, ignored when sent.
    "knock": ActionWire(card="discard"),
    "next_hand": ActionWire(entropy="the seat's part of the next deal (`next_deal`)"),
    "new_match": ActionWire(entropy="the seat's part of the next match's first deal"),
    "resign": ActionWire(
        doc="End the match at once, won by the other seat (status `playing` or `hand_over`)."
    ),
    "claim": ActionWire(doc="End the match at once, won by the claimer (the other seat is away)."),
    "stand_in": ActionWire(
        doc="The computer (normal) plays the away seat's moves until it says hello again."
    ),
}
# Who made a move that is not the seat's own (the log's `by`): the turn clock ran
# out (`timeout`), or the computer stands in for an away seat (`stand_in`).
Mover = Literal["timeout", "stand_in"]
MOVERS: tuple[Mover, ...] = get_args(Mover)

# The computer opponent's strengths.
Strength = Literal["easy", "normal", "hard"]
STRENGTHS: tuple[Strength, ...] = get_args(Strength)
# The computer opponents of the ladder (`bots.ladder`), the three strengths among them.
ComputerId = Literal["rookie", "easy", "knocker", "gin", "magpie", "normal", "cautious", "hard"]
COMPUTER_IDS: tuple[ComputerId, ...] = get_args(ComputerId)

HAND_SIZE = 10
# `game` and `hollywood` scoring: the last two stock cards are never drawn
# (docs/rules.md "The end of the stock"); a discard that leaves the stock at the wall
# ends the hand as a draw.
WALL = 2


def walled(scoring: str) -> bool:
    """Whether a hand under this scoring ends as a draw at the wall (`hand` reshuffles)."""
    return scoring != "hand"


# The optional turn clock: seconds per action, least and most
# (docs/protocol-guide.md "The turn clock").
TURN_SECONDS = (15, 600)
# Days per move of a table played over days (docs/protocol-guide.md "Correspondence tables").
MOVE_DAYS = (1, 2, 3, 5, 7, 14)
# A seat that let the turn clock run out this many times in a row is away.
AWAY_TIMEOUTS = 3

# The preset reactions a seat may send (docs/protocol-guide.md "Around the match").
Reaction = Literal["hello", "gg", "nice", "thanks", "oops", "thinking", "hurry", "rematch"]
REACTIONS: tuple[Reaction, ...] = get_args(Reaction)
# How a match that did not play out ended (`table.ended.by`).
EndedBy = Literal["resign", "claim"]
