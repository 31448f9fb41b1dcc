"""The ladder of computer opponents as the site shows it: `GET /api/computers` and the
home page's picker (names and styles translated, ratings from the arena's file)."""

from __future__ import annotations

import functools

from hollywood_gin.bots import ratings
from hollywood_gin.bots.ladder import LADDER
from hollywood_gin.web.http.bodies import ComputerEntry
from hollywood_gin.web.http.i18n import N_, Catalogs

# Each rung's name and style line, marked here for the catalogs (the web layer's
# strings are extracted); the same English as `bots.ladder` (a test holds them equal).
TEXTS: dict[str, tuple[str, str]] = {
    "rookie": (
        N_("Rookie"),
        N_("Learning the game: holds on to high cards and grabs only cards that make a meld."),
    ),
    "easy": (
        N_("Easy"),
        N_("A beginner: takes only cards that complete a meld and knocks as soon as it may."),
    ),
    "knocker": (
        N_("Knocker"),
        N_("Knocks at the first chance: the earliest knocks on the ladder, and often undercut."),
    ),
    "gin": (
        N_("Gin hunter"),
        N_("Holds out for gin: goes gin far more often than the others, and knocks late."),
    ),
    "magpie": (
        N_("Magpie"),
        N_("Cannot resist the discard pile: picks up from it more than anyone."),
    ),
    "normal": (
        N_("Normal"),
        N_("Plays sound, simple gin: keeps its hand low, watches your pickups, knocks low."),
    ),
    "cautious": (
        N_("Cautious"),
        N_("Plays it safe: throws the cards you are least likely to want, and knocks only low."),
    ),
    "hard": (
        N_("Hard"),
        N_("Thinks before every move: plays the hand out hundreds of times and picks the best."),
    ),
}


@functools.cache
def _ratings() -> dict[str, int]:
    # measured by `hollywood-gin ratings` (docs/bots.md "The ladder"); read once
    return ratings.load()


def computer_entries(catalogs: Catalogs, lang: str) -> list[ComputerEntry]:
    """Each rung of the ladder, weakest first, its name and style in `lang`."""
    rated = _ratings()
    return [
        ComputerEntry(
            id=p.id,
            name=catalogs.gettext(lang, TEXTS[p.id][0]),
            level=p.level,
            rating=rated.get(p.id, 0),
            style=catalogs.gettext(lang, TEXTS[p.id][1]),
        )
        for p in LADDER
    ]
