"""Scoring: the points of one hand (RULES.md §5) and the score sheet (§8).

One sheet model serves all three scoring choices: a sheet is a list of games,
each with both seats' entries. `hand` and `game` have one game, `hollywood`
three. Only `record` changes a sheet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hollywood_gin.engine.vocabulary import HandKind

GIN_BONUS = 25
UNDERCUT_BONUS = 25
GAME_BONUS = 100
SHUTOUT_BONUS = 200
LINE_BONUS = 25
HOLLYWOOD_GAMES = 3


@dataclass(frozen=True, slots=True)
class HandScore:
    kind: HandKind
    knocker_wins: bool
    points: int


def score_hand(knocker_deadwood: int, defender_deadwood: int) -> HandScore:
    """Score a knock with the knocker's K and the defender's D after lay-offs.

    Gin (K = 0): the knocker gets D + 25, even when D is 0. Knock with K < D:
    the knocker gets D - K. Otherwise an undercut: the defender gets
    K - D + 25. Every won hand is worth at least 1 point.
    """
    k, d = knocker_deadwood, defender_deadwood
    if k == 0:
        return HandScore("gin", True, max(1, d + GIN_BONUS))
    if k < d:
        return HandScore("knock", True, max(1, d - k))
    return HandScore("undercut", False, max(1, k - d + UNDERCUT_BONUS))


def hand_bonus(kind: HandKind) -> int:
    """The bonus inside a hand's points: 25 for gin or an undercut, else 0."""
    return {"gin": GIN_BONUS, "undercut": UNDERCUT_BONUS}.get(kind, 0)


@dataclass(slots=True)
class Game:
    """One game's columns: both seats' entries, and its bonuses once finished."""

    entries: tuple[list[int], list[int]] = field(default_factory=lambda: ([], []))
    bonus: list[int] = field(default_factory=lambda: [0, 0])
    # The part of `bonus` that is the game bonus (100, or 200 for a shutout); the
    # rest is the line bonus, 25 per won hand.
    game_bonus: list[int] = field(default_factory=lambda: [0, 0])
    finished: bool = False
    winner: int | None = None

    def points(self, seat: int) -> int:
        return sum(self.entries[seat])


@dataclass(slots=True)
class Sheet:
    """The score sheet of one match.

    - `hand`: one game that one won hand finishes; no game bonuses.
    - `game`: one game to `target`, then game and line bonuses.
    - `hollywood`: three games; a seat's n-th won hand goes into games
      1..min(n, 3) that are still open.

    Match winner: under `hand` and `game` the winner of the single game (the
    seat whose hand points reached the target, even if the other seat's total
    with line bonuses is higher: the rules give the game to the points);
    under `hollywood` the seat that won two of the three games, known once all
    three are finished (three games, each with a winner, cannot tie).
    """

    scoring: str
    target: int
    games: list[Game] = field(default_factory=list)
    wins: list[int] = field(default_factory=lambda: [0, 0])

    def __post_init__(self) -> None:
        if not self.games:
            count = HOLLYWOOD_GAMES if self.scoring == "hollywood" else 1
            self.games = [Game() for _ in range(count)]

    def record(self, winner: int, points: int) -> list[int]:
        """Record a won hand; return the indices of the games its points went into.

        A Hollywood win whose games are all finished is recorded nowhere (an
        empty list) but still counts as one of the winner's won hands.
        """
        if self.match_over:
            raise ValueError("the match is over; start a new sheet")
        self.wins[winner] += 1
        if self.scoring == "hollywood":
            reach = min(self.wins[winner], HOLLYWOOD_GAMES)
            into = [g for g in range(reach) if not self.games[g].finished]
        else:
            into = [0]
        for g in into:
            game = self.games[g]
            game.entries[winner].append(points)
            if self.scoring == "hand":
                # The hand is the whole game: no target, no game bonuses.
                game.finished, game.winner = True, winner
            elif game.points(winner) >= self.target:
                self._finish(game, winner)
        return into

    def _finish(self, game: Game, winner: int) -> None:
        loser = 1 - winner
        game.finished, game.winner = True, winner
        game.game_bonus[winner] = SHUTOUT_BONUS if game.points(loser) == 0 else GAME_BONUS
        game.bonus[winner] += game.game_bonus[winner]
        for seat in (0, 1):
            game.bonus[seat] += LINE_BONUS * len(game.entries[seat])

    def to_state(self) -> dict[str, Any]:
        """Everything of the sheet, for a snapshot (`from_state` reads it back)."""
        return {
            "wins": list(self.wins),
            "games": [
                {
                    "entries": [list(g.entries[0]), list(g.entries[1])],
                    "bonus": list(g.bonus),
                    "game_bonus": list(g.game_bonus),
                    "finished": g.finished,
                    "winner": g.winner,
                }
                for g in self.games
            ],
        }

    @classmethod
    def from_state(cls, state: Any, scoring: str, target: int) -> Sheet:
        """The sheet `to_state` described; ValueError when it is no such sheet."""
        try:
            games = [
                Game(
                    entries=([int(p) for p in g["entries"][0]], [int(p) for p in g["entries"][1]]),
                    bonus=[int(b) for b in g["bonus"]],
                    game_bonus=[int(b) for b in g["game_bonus"]],
                    finished=bool(g["finished"]),
                    winner=None if g["winner"] is None else int(g["winner"]),
                )
                for g in state["games"]
            ]
            wins = [int(w) for w in state["wins"]]
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"not a sheet: {exc}") from None
        expected = HOLLYWOOD_GAMES if scoring == "hollywood" else 1
        if len(games) != expected or len(wins) != 2:
            raise ValueError("not a sheet of these options")
        return cls(scoring, target, games, wins)

    @property
    def match_over(self) -> bool:
        return all(g.finished for g in self.games)

    @property
    def match_winner(self) -> int | None:
        if not self.match_over:
            return None
        won = [sum(1 for g in self.games if g.winner == s) for s in (0, 1)]
        return 0 if won[0] > won[1] else 1

    def totals(self) -> list[int]:
        return [sum(g.points(s) + g.bonus[s] for g in self.games) for s in (0, 1)]
