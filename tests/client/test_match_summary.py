"""What `hollywood-gin bot` prints as each match ends, from the bot's seat."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from hollywood_gin.client import match_summary
from hollywood_gin.engine.views import Ended, View


def view(you: int, totals: tuple[int, int], winner: int | None, ended: Any = None) -> View:
    return cast(
        View,
        SimpleNamespace(
            you=you,
            table=SimpleNamespace(ended=ended),
            sheet=SimpleNamespace(totals=totals, match_winner=winner),
        ),
    )


@pytest.mark.parametrize(
    ("seen", "said"),
    [
        (view(0, (112, 45), 0), "won, 112 to 45"),
        (view(1, (112, 45), 0), "lost, 45 to 112"),
        (view(1, (0, 30), None, Ended("resign", 0)), "won (the opponent resigned), 30 to 0"),
        (view(0, (0, 30), None, Ended("resign", 0)), "lost (resigned), 0 to 30"),
        (
            view(0, (10, 0), None, Ended("claim", 0)),
            "won (claimed: the opponent was away), 10 to 0",
        ),
        (view(1, (10, 0), None, Ended("claim", 0)), "lost (claimed by the opponent), 0 to 10"),
    ],
)
def test_the_result_is_said_from_the_bots_seat(seen: View, said: str) -> None:
    assert match_summary(seen) == said
