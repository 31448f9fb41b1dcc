"""The rules engine: pure Gin Rummy, no I/O, no asyncio, no web imports.

Glossary: a *meld* is a set (3 or 4 cards of one rank) or a run (3 or more
cards of one suit in sequence, ace low); *deadwood* is the value of the cards
in no meld; the *stock* is the face-down pile, the *discard pile* the face-up
one whose first card is the *upcard*; to *knock* is to end the hand with
deadwood within the *knock limit*, *gin* with none; the *defender* may *lay
off* cards onto the knocker's melds; an *undercut* is a defender's win; the
*sheet* holds the scores of one match.

`docs/engine-api.md` is the contract for the layers above.
"""

from hollywood_gin.engine.actions import Action, parse_action
from hollywood_gin.engine.cards import Card
from hollywood_gin.engine.errors import (
    BadAction,
    BadCard,
    IllegalAction,
    NotSeated,
    NotYourTurn,
    Refusal,
    RuleError,
    StaleVersion,
)
from hollywood_gin.engine.layoffs import defender_deadwood
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.melds import arrange, best_discards, deadwood
from hollywood_gin.engine.options import Options

replay = Match.replay

__all__ = [
    "Action",
    "BadAction",
    "BadCard",
    "Card",
    "IllegalAction",
    "Match",
    "NotSeated",
    "NotYourTurn",
    "Options",
    "Refusal",
    "RuleError",
    "StaleVersion",
    "arrange",
    "best_discards",
    "deadwood",
    "defender_deadwood",
    "parse_action",
    "replay",
]
