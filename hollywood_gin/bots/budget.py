"""How much the hard policy thinks per decision (`Budget`): read by the search
(`search.hard_decide`) and by the determinisation (`worlds.sample_opponent`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Budget:
    """How much the hard policy thinks per decision: a count of playouts, not time."""

    # per searched decision, at most (fewer after a clear halving round, see `stop`, or at
    # the safety cap). 480 before round 3: four times that costs about 0.25 s
    # of CPU a move on average, inside the 0.8 s the table waits anyway, and halves the
    # standard error that keeps normal's choice (docs/research/bots-log.md "Round 3").
    playouts: int = 1920
    # a safety cap in wall time per move, counted from the moment the bot is asked;
    # a quiet machine never reaches it (None: no cap)
    seconds: float | None = 4.0
    discards: int = 3  # plain discards tried besides normal's choice (its next best)
    prune: float = 3.0  # ... only those within this much of normal's best score
    takes: bool = True  # search the upcard offer and the draw too
    # The opponent's sampled hand "plays" shaping turns (see `_shape`): `shape_base` +
    # `shape_scale` x its turns played (a patient style, normal or gin, `patient_scale` x:
    # it takes more from the pile and keeps a lower hand), at most `shape_turns`.
    # Measured: with 1 x (at most 8), sampled hands held 5-14 points more deadwood than
    # the real opponents' at the same point of the hand
    # (docs/research/bots-log.md "Round 2").
    shape_turns: int = 40
    shape_scale: float = 1.5
    shape_base: int = 1
    patient_scale: float = 2.5
    # points a knock must beat waiting by (see `hard_decide`; 4 when only the knock
    # was searched; 8 and the confidence of 2 were chosen on the screening deals
    # 300000 onward: docs/research/bots-log.md "What was screened in the first round")
    knock_margin: float = 8.0
    # the knock margin in worlds whose opponent style is eager (it knocks as soon as it
    # may, so playing on, which the margin credits, is worth less there); None: the same
    # as `knock_margin`. A knock's penalty is the weighted mean over the worlds of the
    # margin of each world's style (`margin`; docs/research/bots-log.md "Round 5").
    eager_margin: float | None = None
    # leave normal's choice only for a candidate better by this many standard errors
    confidence: float = 2.0
    # stop after a halving round once every candidate left is worse than normal's
    # choice by this many standard errors (0: always spend the whole budget); the
    # count still depends only on the seed and the view, never on the clock
    stop: float = 1.0
    # a world's weight is multiplied by this for each choice of the opponent that
    # would have been odd with the hand dealt to it (see `evidence_weight`)
    evidence: float = 0.5
    # The opponent's style in the playouts, drawn per deal with these prior weights
    # and kept only if it agrees with what the opponent did (see `sample_opponent`):
    # normal's low, late knock; knocking as soon as legal; gin only until the stock is low.
    styles: tuple[tuple[str, float], ...] = (("normal", 0.4), ("eager", 0.4), ("gin", 0.2))
    # Check the drawn (hand, style) pair against every earlier plain discard of the
    # opponent too, not only its last: its hand then is the one dealt minus what it
    # took since (the stock draws at random) plus what it threw since, and a style
    # that would have knocked with it there is drawn again (`worlds.knocked_before`).
    # Off: it moved the worlds' deadwood by at most 0.4 points against OpenSpiel's bot,
    # eager, normal and gin alike (the last discard is the one that binds;
    # docs/research/bots-log.md "Round 5: the style prior and the hand's evidence").
    history: bool = False
    # The playouts' player (`lean.rollout`): my first `looks` discards in each playout
    # are normal's (its one-draw look at the live cards), and my first `look_takes`
    # draws; the lean count after. The opponent's first `opp_looks` discards too when
    # its style is a patient one (normal, gin); an eager one keeps the lean count.
    # Off: `looks=2,look_width=4` at 960 playouts scored 5.7 and 6.8 points of share
    # below the all-lean 1920 against OpenSpiel's bot and eager
    # (docs/research/bots-log.md "Round 4").
    looks: int = 0
    look_takes: int = 0
    opp_looks: int = 0
    # normal's look in the playouts at only this many discards, those leaving the
    # least deadwood (0: all of them, as normal)
    look_width: int = 0

    def margin(self, style: str) -> float:
        """The knock margin in a world whose opponent plays `style`."""
        if style == "eager" and self.eager_margin is not None:
            return self.eager_margin
        return self.knock_margin
