"""Scoring: the points of one hand (docs/rules.md "Scoring a hand") and the score sheet
(docs/rules.md "Scoring the match").

One sheet model serves all three scoring choices: a sheet is a list of games,
each with both seats' entries. `hand` and `game` have one game, `hollywood`
three. Only `record` changes a sheet.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from hollywood_gin.engine.errors import BadAction
from hollywood_gin.engine.jsonvalue import JsonObject
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

    def to_state(self) -> SheetState:
        """Everything of the sheet, for a snapshot (`from_state` reads it back)."""
        return SheetState(
            wins=(self.wins[0], self.wins[1]),
            games=tuple(
                GameState(
                    entries=(tuple(g.entries[0]), tuple(g.entries[1])),
                    bonus=(g.bonus[0], g.bonus[1]),
                    game_bonus=(g.game_bonus[0], g.game_bonus[1]),
                    finished=g.finished,
                    winner=g.winner,
                )
                for g in self.games
            ),
        )

    @classmethod
    def from_state(cls, state: SheetState, scoring: str, target: int) -> Sheet:
        """The sheet `to_state` described; ValueError when it is not one of these options."""
        expected = HOLLYWOOD_GAMES if scoring == "hollywood" else 1
        if len(state.games) != expected:
            raise ValueError("not a sheet of these options")
        games = [
            Game(
                entries=(list(g.entries[0]), list(g.entries[1])),
                bonus=list(g.bonus),
                game_bonus=list(g.game_bonus),
                finished=g.finished,
                winner=g.winner,
            )
            for g in state.games
        ]
        return cls(scoring, target, games, list(state.wins))

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


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadAction(f"a sheet's {what} is not a count")
    return value


def _pair(value: object, what: str) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise BadAction(f"a sheet's {what} is not two seats' numbers")
    return _count(value[0], what), _count(value[1], what)


def _fields(obj: object, names: tuple[str, ...], what: str) -> Mapping[str, object]:
    if not isinstance(obj, Mapping) or set(obj) != set(names):
        raise BadAction(f"{what} has the fields {', '.join(names)}")
    return obj


@dataclass(frozen=True, slots=True)
class GameState:
    """One game of a sheet as a snapshot keeps it."""

    entries: tuple[tuple[int, ...], tuple[int, ...]]
    bonus: tuple[int, int]
    game_bonus: tuple[int, int]
    finished: bool
    winner: int | None

    def to_json(self) -> JsonObject:
        return {
            "entries": [list(self.entries[0]), list(self.entries[1])],
            "bonus": list(self.bonus),
            "game_bonus": list(self.game_bonus),
            "finished": self.finished,
            "winner": self.winner,
        }

    @classmethod
    def from_json(cls, obj: object) -> GameState:
        """:raises BadAction: not a game as `to_json` writes one."""
        g = _fields(obj, ("entries", "bonus", "game_bonus", "finished", "winner"), "a game")
        entries = g["entries"]
        if (
            not isinstance(entries, list)
            or len(entries) != 2
            or not all(isinstance(column, list) for column in entries)
        ):
            raise BadAction("a game's entries are two seats' lists")
        finished, winner = g["finished"], g["winner"]
        if not isinstance(finished, bool):
            raise BadAction("a game's `finished` is true or false")
        if (winner is not None and winner not in (0, 1)) or isinstance(winner, bool):
            raise BadAction("a game's winner is a seat or null")
        return cls(
            (
                tuple(_count(p, "entry") for p in entries[0]),
                tuple(_count(p, "entry") for p in entries[1]),
            ),
            _pair(g["bonus"], "bonus"),
            _pair(g["game_bonus"], "game bonus"),
            finished,
            winner,
        )


@dataclass(frozen=True, slots=True)
class SheetState:
    """A sheet as a snapshot keeps it (`Sheet.to_state`, `Sheet.from_state`)."""

    wins: tuple[int, int]
    games: tuple[GameState, ...]

    def to_json(self) -> JsonObject:
        return {"wins": list(self.wins), "games": [g.to_json() for g in self.games]}

    @classmethod
    def from_json(cls, obj: object) -> SheetState:
        """:raises BadAction: not a sheet as `to_json` writes one."""
        state = _fields(obj, ("wins", "games"), "a sheet")
        games = state["games"]
        if not isinstance(games, list):
            raise BadAction("a sheet's games are a list")
        return cls(_pair(state["wins"], "wins"), tuple(GameState.from_json(g) for g in games))
