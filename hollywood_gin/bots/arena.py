"""Bots against each other through the real engine (`Match`): tests, benchmarks and
the arena (`duplicate`, the command `hollywood-gin arena`).

Every player sees only `match.view(seat)`: each view goes to `observe`, and
the seat with a legal action is asked to `choose`. `RandomPlayer` plays a
uniformly random legal action (the benchmark's floor).
"""

from __future__ import annotations

import importlib
import multiprocessing
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from hollywood_gin.bots import Bot
from hollywood_gin.bots.arena_result import ArenaResult, Style
from hollywood_gin.bots.ladder import personality
from hollywood_gin.engine.actions import MATCH_KINDS, PLAY_KINDS, Action
from hollywood_gin.engine.cards import Card, full_deck
from hollywood_gin.engine.hand import HandResult
from hollywood_gin.engine.match import Match
from hollywood_gin.engine.options import Options
from hollywood_gin.engine.views import View


class Player(Protocol):
    def observe(self, view: View) -> None: ...

    def choose(self, view: View) -> Action: ...


class RandomPlayer:
    """Any legal action, uniformly at random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def observe(self, view: View) -> None:
        return None

    def choose(self, view: View) -> Action:
        # never `resign`, `claim` or `stand_in`: the floor plays the game out
        open_ = [a for a in view.legal if a.kind in PLAY_KINDS or a.kind in MATCH_KINDS]
        return self.rng.choice(open_ or view.legal)


@dataclass(slots=True)
class HandOutcome:
    winner: int | None
    points: int
    kind: str
    actions: int
    result: HandResult


class TooLong(RuntimeError):
    """A hand or match went past its action bound (a stuck policy)."""


def _step(match: Match, players: tuple[Player, Player]) -> bool:
    """Show both seats their views; the seat that may act does. False: nobody may."""
    views = [match.view(0), match.view(1)]
    for seat in (0, 1):
        players[seat].observe(views[seat])
    for seat in (0, 1):
        if views[seat].legal:
            match.apply(seat, players[seat].choose(views[seat]), views[seat].version)
            return True
    return False


def play_hand(
    match: Match, players: tuple[Player, Player], *, max_actions: int = 2000
) -> HandOutcome:
    """Play the current hand of a started match to its end.

    :raises TooLong: more than `max_actions` actions.
    """
    actions = 0
    while match.status == "playing":
        if actions >= max_actions or not _step(match, players):
            raise TooLong(f"the hand did not end within {actions} actions")
        actions += 1
    for seat in (0, 1):
        players[seat].observe(match.view(seat))
    assert match.hand is not None and match.hand.result is not None
    result = match.hand.result
    return HandOutcome(result.winner, result.points, result.kind, actions, result)


def next_hand(match: Match, players: tuple[Player, Player]) -> None:
    """Both seats send `next_hand` (through their own `choose`)."""
    while match.status == "hand_over":
        if not _step(match, players):
            raise TooLong("nobody could send next_hand")


# -- bots written for the client, and the duplicate-deal arena -------------------------


class ClientBot(Protocol):
    """A bot as `hollywood_gin.client` plays it: `choose(view, legal)` returns one of
    `legal`. Optional hooks, called when the bot has them: `observe(view)` with every
    view of its seat, `hand_over(view)` once per finished hand (the view shows the
    result), `match_over(view)` once per finished match."""

    def choose(self, view: View, legal: tuple[Action, ...]) -> Action: ...


class Seated:
    """A client bot in a seat: calls its hooks at the right moments, once each, and
    asks it to choose. The client (on a socket) and the arena (in process) both
    drive a bot through this, so a bot behaves the same in both."""

    def __init__(self, bot: ClientBot) -> None:
        self.bot = bot
        self._hand_seen: tuple[int, str] | None = None  # the last hand whose end was told
        self._match_told = False

    def observe(self, view: View) -> None:
        look = getattr(self.bot, "observe", None)
        if look is not None:
            look(view)
        hand = view.hand
        key = None if hand is None else (hand.number, hand.deck_commitment)
        if hand is not None and hand.outcome is not None and self._hand_seen != key:
            self._hand_seen = key
            hook = getattr(self.bot, "hand_over", None)
            if hook is not None:
                hook(view)
        if view.table.status == "match_over":
            if not self._match_told:
                self._match_told = True
                hook = getattr(self.bot, "match_over", None)
                if hook is not None:
                    hook(view)
        else:
            self._match_told = False

    def decide(self, view: View) -> Action | None:
        """What this seat sends now, or None (nothing to do). A play decision is the
        bot's, asked with the play actions open (`take_upcard` … `knock`), and checked;
        `next_hand` and `new_match` are sent for it; anything else (`resign`,
        `claim`, …) is never chosen for a bot.

        :raises IllegalChoice: the bot answered something that is not open.
        """
        play = tuple(a for a in view.legal if a.kind in PLAY_KINDS)
        if play:
            action = self.bot.choose(view, play)
            if not is_one_of(action, play):
                raise IllegalChoice(f"the bot chose {action!r}, not one of the legal actions")
            return action
        for action in view.legal:
            if action.kind in MATCH_KINDS:
                return action
        return None

    def choose(self, view: View) -> Action:
        """`decide` for the arena, where some seat always has a move.

        :raises IllegalChoice: the bot answered something that is not open, or
            nothing is open to it.
        """
        action = self.decide(view)
        if action is None:
            raise IllegalChoice("nothing this bot may do in this view")
        return action


def is_one_of(action: object, legal: tuple[Action, ...]) -> bool:
    """`action` is one of `legal`, a knock naming its own melds counting as the knock
    of the same discard (the server checks the melds)."""
    if not isinstance(action, Action):
        return False
    if action.kind == "knock" and action.melds is not None:
        return Action.of("knock", action.card) in legal if action.card else False
    return action in legal


class IllegalChoice(ValueError):
    """A bot returned an action that is not one of the legal ones."""


class _ServerBot:
    """One of the computer's strengths as a client bot (`hollywood_gin.client` uses it
    too): `choose(view, legal)`, `observe(view)`."""

    def __init__(self, strength: str, rng: random.Random | None = None) -> None:
        self.inner = Bot(strength, rng)

    def observe(self, view: View) -> None:
        self.inner.observe(view)

    def choose(self, view: View, legal: tuple[Action, ...]) -> Action:
        return self.inner.choose(view)


def computer(strength: str, rng: random.Random | None = None) -> ClientBot:
    """The server's computer at `strength` (`easy`, `normal`, `hard`) as a client bot."""
    return _ServerBot(strength, rng)


Factory = Callable[[random.Random], Player]
"""Makes a fresh player for one hand of the arena, from that hand's randomness."""

BUILT_IN = ("random", "easy", "normal", "hard")
ALIASES = {
    "openspiel:simple": "hollywood_gin.client.openspiel:simple",
    "openspiel:ismcts": "hollywood_gin.client.openspiel:ismcts",
}
"""Short names for bots that live above this layer, found by import like any
`module:factory` (so this layer never imports them)."""


def import_factory(name: str) -> Callable[[], Any]:
    """The callable `module:factory` (or a short name in `ALIASES`) stands for.

    :raises ValueError: not of that form, or a module or factory that is not there.
    """
    target = ALIASES.get(name, name)
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(
            f"unknown bot {name!r}: one of {', '.join(BUILT_IN)}, computer:ID, "
            f"{', '.join(ALIASES)} or module:factory"
        )
    try:
        made = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        hint = ""
        if isinstance(exc, ImportError) and exc.name in ("pyspiel", "rlcard", "numpy"):
            hint = " (pip install 'hollywood-gin[bots]')"
        raise ValueError(f"cannot load bot {name!r}: {exc}{hint}") from None
    if not callable(made):
        raise ValueError(f"{target} is not callable")
    return made  # type: ignore[no-any-return]


def factory(name: str) -> Factory:
    """The player maker a name stands for: `random`, `easy`, `normal`, `hard`,
    `computer:ID` (a rung of the ladder, `bots.ladder`),
    `openspiel:simple`, or `module:factory` where `factory()` returns a client bot
    (called with no argument, once per hand).

    :raises ValueError: an unknown name, or a module or factory that is not there.
    """
    if name == "random":
        return RandomPlayer
    if name in BUILT_IN:
        return lambda rng: Bot(name, rng)
    if name.startswith("computer:"):
        who = personality(name.removeprefix("computer:"))
        return who.bot
    made = import_factory(name)
    return lambda rng: Seated(made())


class Counted:
    """A player whose draws and pile pickups are counted (the arena's style figures)."""

    def __init__(self, inner: Player) -> None:
        self.inner = inner
        self.draws = 0
        self.pickups = 0
        self.taken = 0  # the opponent's discards it drew (the upcard not counted)
        self.offers = 0  # its draws after the upcard: each a choice on a discard

    def observe(self, view: View) -> None:
        self.inner.observe(view)

    def choose(self, view: View) -> Action:
        action = self.inner.choose(view)
        if action.kind in ("take_upcard", "draw_discard", "draw_stock"):
            self.draws += 1
        if action.kind in ("take_upcard", "draw_discard"):
            self.pickups += 1
        if action.kind in ("draw_discard", "draw_stock"):
            self.offers += 1
            self.taken += action.kind == "draw_discard"
        return action


def _tally(style: Style, me: Counted, opp: Counted, seat: int, result: HandResult) -> None:
    style.hands += 1
    style.pickups += me.pickups
    style.feeds += opp.taken
    style.offers += opp.offers
    if result.knocker != seat:
        return
    style.knocks += 1
    style.knock_turns += me.draws
    style.gins += result.kind == "gin"
    style.undercuts += result.kind == "undercut"


def deal_deck(deal: int) -> list[Card]:
    """The deck order of arena deal number `deal` (the same for every pairing)."""
    deck = full_deck()
    random.Random(deal).shuffle(deck)
    return deck


def _duplicate_part(
    a: str | Factory, b: str | Factory, first: int, count: int, options: Options
) -> ArenaResult:
    make_a = factory(a) if isinstance(a, str) else a
    make_b = factory(b) if isinstance(b, str) else b
    result = ArenaResult(_name(a), _name(b))
    for d in range(first, first + count):
        deck = deal_deck(d)
        points = [0, 0]
        wins = [0, 0]
        for swap in (0, 1):
            pa = Counted(make_a(random.Random(d * 7919 + 1 + 2 * swap)))
            pb = Counted(make_b(random.Random(d * 7919 + 2 + 2 * swap)))
            players: tuple[Counted, Counted] = (pb, pa) if swap else (pa, pb)
            match = Match(options, rng=random.Random(d), deck_orders=[deck], first_dealer=0)
            match.start()
            try:
                outcome = play_hand(match, players, max_actions=1000)
            except TooLong:
                result.stalled += 1
                result.draws += 1
                continue
            _tally(result.styles[0], pa, pb, swap, outcome.result)
            _tally(result.styles[1], pb, pa, 1 - swap, outcome.result)
            if outcome.winner is None:
                result.draws += 1
                continue
            side = outcome.winner ^ swap  # 0: A won, 1: B won
            points[side] += outcome.points
            wins[side] += 1
        result.points.append((points[0], points[1]))
        result.wins.append((wins[0], wins[1]))
    return result


def _name(bot: str | Factory) -> str:
    return bot if isinstance(bot, str) else getattr(bot, "__name__", repr(bot))


def _part(job: tuple[str | Factory, str | Factory, int, int, Options]) -> ArenaResult:
    return _duplicate_part(*job)


def duplicate(
    a: str | Factory,
    b: str | Factory,
    deals: int,
    seed: int = 0,
    *,
    jobs: int = 1,
    options: Options | None = None,
) -> ArenaResult:
    """A against B on `deals` duplicate deals: deal `seed + k` (deck `deal_deck`,
    dealer seat 0, one hand scored alone) is played twice, A in seat 0 then in
    seat 1, each time by fresh players. `a`, `b`: a name for `factory`, or a
    `Factory` (with `jobs` > 1 it must be picklable: a module-level function).
    `jobs` > 1 splits the deals over that many processes; the result is the same.

    :raises ValueError: an unknown bot name.
    :raises IllegalChoice: a client bot chose an action that is not legal.
    """
    options = options if options is not None else Options("standard", "hand", 100)
    for bot in (a, b):
        if isinstance(bot, str):
            factory(bot)  # fail here, not in a worker
    jobs = max(1, min(jobs, deals))
    if jobs == 1:
        return _duplicate_part(a, b, seed, deals, options)
    cuts = [deals * k // jobs for k in range(jobs + 1)]
    parts = [(a, b, seed + cuts[k], cuts[k + 1] - cuts[k], options) for k in range(jobs)]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        results = pool.map(_part, parts)
    total = ArenaResult(_name(a), _name(b))
    for r in results:
        total.merge(r)
    return total
