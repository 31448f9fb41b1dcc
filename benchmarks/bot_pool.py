"""Opponents of different styles for `bench_bots.py --pool`: the in-house styles of
`hollywood_gin.bots.styles` (`eager`, `gin`, `greedy`, `easy`, `normal`), and
`openspiel`, OpenSpiel's `SimpleGinRummyBot` (`benchmarks/openspiel_bot.py`; the
`bench` extra), a bot from outside this project: takes the upcard when it melds or
allows a knock, throws its highest deadwood card, knocks as soon as it may. It plays
only walled scorings (`--scoring game`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hollywood_gin.bots.arena import Player
from hollywood_gin.bots.styles import GIN_LOW, POOL
from hollywood_gin.bots.styles import STYLES as IN_HOUSE

__all__ = ["GIN_LOW", "POOL", "STYLES"]


def _openspiel(rng: random.Random) -> Player:
    from benchmarks.openspiel_bot import OpenSpielSimple  # the optional `bench` extra

    return OpenSpielSimple(rng)


STYLES: dict[str, Callable[[random.Random], Player]] = {**IN_HOUSE, "openspiel": _openspiel}
