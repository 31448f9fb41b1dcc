"""The arena's result: duplicate deals of A against B, A's shares and their 95 %
intervals (a seeded percentile bootstrap over the deals), and the lines
`hollywood-gin arena` prints. Played by `arena.duplicate`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(slots=True)
class ArenaResult:
    """Duplicate deals of A against B. Per deal (both seatings): A's and B's points,
    and A's and B's hands won."""

    a: str
    b: str
    points: list[tuple[int, int]] = field(default_factory=list)
    wins: list[tuple[int, int]] = field(default_factory=list)
    draws: int = 0
    stalled: int = 0  # hands that hit the action bound (counted as draws)
    # per side (A, B): how it played, summed over its hands (see `figures`)
    styles: tuple[Style, Style] = field(default_factory=lambda: (Style(), Style()))

    @property
    def deals(self) -> int:
        return len(self.points)

    @property
    def hands(self) -> int:
        return 2 * len(self.points)

    def points_share(self) -> float:
        """A's share of all points won (0.5 when nobody scored)."""
        return _share(self.points)

    def hands_share(self) -> float:
        """A's share of the hands won by either side (draws left out)."""
        return _share(self.wins)

    def points_interval(self) -> tuple[float, float]:
        """95 % interval of `points_share`: a bootstrap over the deals (seeded)."""
        return _bootstrap(self.points)

    def hands_interval(self) -> tuple[float, float]:
        """95 % interval of `hands_share`: a bootstrap over the deals (seeded)."""
        return _bootstrap(self.wins)

    def merge(self, other: ArenaResult) -> None:
        self.points += other.points
        self.wins += other.wins
        self.draws += other.draws
        self.stalled += other.stalled
        for mine, theirs in zip(self.styles, other.styles, strict=True):
            mine.merge(theirs)

    def side(self, which: int) -> dict[str, object]:
        """One side's object of `--json` (0: A, 1: B): shares, intervals and figures."""
        p, (pl, ph) = self.points_share(), self.points_interval()
        h, (hl, hh) = self.hands_share(), self.hands_interval()
        if which:
            p, pl, ph, h, hl, hh = 1 - p, 1 - ph, 1 - pl, 1 - h, 1 - hh, 1 - hl
        return {
            "points": round(p, 4),
            "points_ci": [round(pl, 4), round(ph, 4)],
            "hands": round(h, 4),
            "hands_ci": [round(hl, 4), round(hh, 4)],
            **self.styles[which].figures(),
        }

    def to_json(self) -> dict[str, object]:
        """`hollywood-gin arena --json`: `{"a": side, "b": side, "deals": n}`."""
        return {"a": self.side(0), "b": self.side(1), "deals": self.deals}

    def report(self) -> str:
        """The lines `hollywood-gin arena` prints."""
        pl, ph = self.points_interval()
        hl, hh = self.hands_interval()
        width = max(len(self.a), len(self.b))
        lines = [
            f"{self.a} vs {self.b}: {self.deals} duplicate deals, {self.hands} hands"
            f" ({self.draws} drawn{f', {self.stalled} stalled' if self.stalled else ''})",
            f"{'side':<{width}}  points share (95 % interval)  hands won share (95 % interval)",
        ]
        for name, p, lo, hi, h, hlo, hhi in (
            (self.a, self.points_share(), pl, ph, self.hands_share(), hl, hh),
            (
                self.b,
                1 - self.points_share(),
                1 - ph,
                1 - pl,
                1 - self.hands_share(),
                1 - hh,
                1 - hl,
            ),
        ):
            lines.append(
                f"{name:<{width}}  {p:6.1%} ({lo:.1%}–{hi:.1%})"
                f"          {h:6.1%} ({hlo:.1%}–{hhi:.1%})"
            )
        return "\n".join(lines)


@dataclass(slots=True)
class Style:
    """How one side played its hands: what the style lines of the ladder name."""

    hands: int = 0
    knocks: int = 0  # its knocks, gins included
    gins: int = 0
    undercuts: int = 0  # its knocks that were undercut
    knock_turns: int = 0  # the sum over its knocks of its draws before them
    pickups: int = 0  # its discard-pile draws (the upcard taken included)
    # the opponent's draws after the upcard, and those that took this side's discard:
    # `feeds`, the share a cautious discarder keeps low
    offers: int = 0
    feeds: int = 0

    def merge(self, other: Style) -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def figures(self) -> dict[str, float]:
        knocks = self.knocks or 1
        return {
            "gin_rate": round(self.gins / (self.hands or 1), 4),
            "undercut_rate": round(self.undercuts / knocks, 4),
            "knock_turn": round(self.knock_turns / knocks, 3),
            "pickups": round(self.pickups / (self.hands or 1), 4),
            "feeds": round(self.feeds / (self.offers or 1), 4),
        }


def _share(pairs: Sequence[tuple[int, int]]) -> float:
    a = sum(x for x, _ in pairs)
    b = sum(y for _, y in pairs)
    return a / (a + b) if a + b else 0.5


def _bootstrap(pairs: Sequence[tuple[int, int]], rounds: int = 2000) -> tuple[float, float]:
    """Percentile bootstrap of A's share, resampling the deals (a fixed seed: the same
    result gives the same interval)."""
    n = len(pairs)
    if n == 0:
        return (0.0, 1.0)
    rng = random.Random(n)
    xs = [x for x, _ in pairs]
    ys = [y for _, y in pairs]
    shares = []
    for _ in range(rounds):
        a = b = 0
        for k in rng.choices(range(n), k=n):
            a += xs[k]
            b += ys[k]
        shares.append(a / (a + b) if a + b else 0.5)
    shares.sort()
    return shares[int(0.025 * rounds)], shares[int(0.975 * rounds) - 1]
