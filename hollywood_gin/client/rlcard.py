"""RLCard's `gin-rummy` encoding, both ways, so an RLCard-trained agent plays here
unchanged (`pip install 'hollywood-gin[bots]'`; this module itself needs numpy only).

The observation is RLCard's 5 × 52 array of 0/1 (`rlcard/envs/gin_rummy.py`), one
row per group of cards, built from the seat's view (and its memory of the pile):

0. the seat's own cards;
1. the discard pile's top card;
2. the other cards of the discard pile;
3. the cards the opponent took from the pile and still holds;
4. every other card (the stock and the rest of the opponent's hand).

A card's column is RLCard's card id, `rank + 13 * suit` with ranks A…K and suits
S, H, D, C. The 110 action ids:

| id | RLCard | here |
|---|---|---|
| 0, 1 | score player 0 / 1 | never asked (the server scores) |
| 2 | draw card | `draw_stock`; in the upcard offer, `pass` |
| 3 | pick up discard | `draw_discard`; in the upcard offer, `take_upcard` |
| 4 | declare dead hand | never open (the wall or the reshuffle end it here) |
| 5 | gin | the knock that goes gin (RLCard offers only this when gin is possible) |
| 6 + c | discard card c | `discard` |
| 58 + c | knock, discarding card c | `knock` (melds laid by the server, least deadwood) |

`legal_ids(view)` gives the ids open now under RLCard's own habit of forcing gin
(only id 5 when a gin knock is open); `encode(action, view)` the id of any open
action (a gin knock: 5 for the one `decode(5)` gives, `58 + c` for another gin
discard c), and `decode(id, view)` the action. Both ways agree for every open action.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
import numpy.typing as npt

from hollywood_gin.bots.knowledge import BotMemory, Seen
from hollywood_gin.engine.actions import PLAY_KINDS, Action
from hollywood_gin.engine.cards import CARDS, Card
from hollywood_gin.engine.views import View

NUM_ACTIONS = 110
SCORE_0, SCORE_1, DRAW_CARD, PICK_UP_DISCARD, DEAD_HAND, GIN = range(6)
DISCARD = 6
KNOCK = DISCARD + 52

_SUITS = "SHDC"
_RANKS = "A23456789TJQK"


def card_id(card: Card) -> int:
    """RLCard's id of a card: rank (A = 0 … K = 12) + 13 × suit (S, H, D, C)."""
    return card.rank - 1 + 13 * _SUITS.index(card.suit)


_BY_ID = {card_id(c): c for c in CARDS}


def card_of(cid: int) -> Card:
    return _BY_ID[cid]


class NotOpen(ValueError):
    """An action id that is not open in this view."""


def observation(view: View, seen: Seen) -> npt.NDArray[np.int_]:
    """RLCard's 5 × 52 observation of this seat (all zeros outside a hand in play)."""
    obs = np.zeros((5, 52), dtype=int)
    hand = view.hand
    if hand is None or view.mine is None or hand.phase == "over":
        return obs
    mine = {card_id(Card.parse(c)) for c in view.mine.cards}
    pile = [card_id(CARDS[i]) for i in seen.pile]
    top = pile[-1:] if pile else []
    dead = set(pile[:-1])
    known = {card_id(c) for c in CARDS if seen.opp_has >> c.index & 1}
    for cid in mine:
        obs[0, cid] = 1
    for cid in top:
        obs[1, cid] = 1
    for cid in dead:
        obs[2, cid] = 1
    for cid in known:
        obs[3, cid] = 1
    for cid in range(52):
        if cid not in mine and cid not in dead and cid not in known and cid not in top:
            obs[4, cid] = 1
    return obs


def _gin_knocks(view: View) -> list[Action]:
    """The open knocks that leave no deadwood, in `legal` order."""
    knocks = [a for a in view.legal if a.kind == "knock"]
    return [a for a, left in zip(knocks, view.knock_deadwood, strict=False) if left == 0]


def encode(action: Action, view: View) -> int:
    """The RLCard id of one of this view's open play actions.

    :raises NotOpen: the action is not open in this view.
    """
    if action not in view.legal or action.kind not in PLAY_KINDS:
        raise NotOpen(f"{action!r} is not open, or no play action")
    kind = action.kind
    if kind in ("draw_stock", "pass"):
        return DRAW_CARD
    if kind in ("draw_discard", "take_upcard"):
        return PICK_UP_DISCARD
    assert action.card is not None
    if kind == "discard":
        return DISCARD + card_id(action.card)
    if kind == "knock":
        gins = _gin_knocks(view)
        if gins and action == gins[0]:
            return GIN
        return KNOCK + card_id(action.card)
    raise NotOpen(f"{kind} has no RLCard id")


def decode(action_id: int, view: View) -> Action:
    """The open action an RLCard id stands for in this view.

    :raises NotOpen: the id means nothing open now (a score or dead-hand id, a card
        not in hand, a knock over the limit, …).
    """
    kinds = {a.kind for a in view.legal}
    wanted: Action | None = None
    if action_id == DRAW_CARD:
        wanted = Action.of("pass" if "pass" in kinds else "draw_stock")
    elif action_id == PICK_UP_DISCARD:
        wanted = Action.of("take_upcard" if "take_upcard" in kinds else "draw_discard")
    elif action_id == GIN:
        gins = _gin_knocks(view)
        wanted = gins[0] if gins else None
    elif DISCARD <= action_id < KNOCK:
        wanted = Action.of("discard", card_of(action_id - DISCARD))
    elif KNOCK <= action_id < NUM_ACTIONS:
        wanted = Action.of("knock", card_of(action_id - KNOCK))
    if wanted is None or wanted not in view.legal:
        raise NotOpen(f"action id {action_id} is not open")
    return wanted


def legal_ids(view: View) -> list[int]:
    """The ids open now, as RLCard's judge would list them: only `gin` (5) when a
    knock may go gin, else every open action's id."""
    play = [a for a in view.legal if a.kind in PLAY_KINDS]
    if _gin_knocks(view):
        return [GIN]
    return sorted({encode(a, view) for a in play})


def state_dict(view: View, seen: Seen) -> dict[str, Any]:
    """The `state` an RLCard agent's `step` / `eval_step` takes."""
    obs = observation(view, seen)
    ids = legal_ids(view)
    return {
        "obs": obs,
        "legal_actions": OrderedDict((i, None) for i in ids),
        "raw_obs": obs,
        "raw_legal_actions": ids,
    }


class RLCardBot:
    """A client bot that plays an RLCard agent (anything with `eval_step(state)`
    returning `(action_id, info)`, or `step(state)` returning an action id).

    `fallbacks` counts answers that were not open (then the first open id is played).
    """

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.memory = BotMemory()
        self.fallbacks = 0

    def observe(self, view: View) -> None:
        self.memory.observe(view)

    def choose(self, view: View, legal: tuple[Action, ...]) -> Action:
        self.memory.observe(view)
        seen = self.memory.seen(view)
        if seen is None:
            self.fallbacks += 1
            return legal[0]
        state = state_dict(view, seen)
        if hasattr(self.agent, "eval_step"):
            answer = self.agent.eval_step(state)
            action_id = answer[0] if isinstance(answer, tuple) else answer
        else:
            action_id = self.agent.step(state)
        try:
            return decode(int(action_id), view)
        except NotOpen:
            self.fallbacks += 1
            return decode(state["raw_legal_actions"][0], view)


def random_agent() -> RLCardBot:
    """RLCard's own `RandomAgent` through this encoding (needs the `rlcard` package)."""
    from rlcard.agents import RandomAgent

    return RLCardBot(RandomAgent(num_actions=NUM_ACTIONS))
