"""Choosing a policy's defaults by cross-validation over scenario families (leave one family out).

Defaults picked on the scenarios they are then judged on are fit to them: issue 13 found
``stepped``'s battery guard tuned on the suite losing 5 points of the oracle on a two-hour
ambient ramp the suite did not have.  The remedy is the one model selection uses: judge a
choice only on data it was not chosen on.  The unit left out is a whole *family* of worlds
(:mod:`thermogov.sim.scenarios.families`: ramps, day/night, load switching, fan failure, boards
at their trip), not one world, because worlds of one family share what a default could be fit
to (leave-one-group-out; e.g. Hastie, Tibshirani & Friedman, *The Elements of Statistical
Learning*, 2nd ed., section 7.10, on keeping whole groups out of the training folds).

The score of a candidate on a world is its sustained throughput divided by the best candidate's
on that world (so every world weighs the same whatever its board's speed), and 0 when it breaks
the world's bound: more time above the trip or at a hard limit than ``hysteresis`` spends there
(the spec's policy; a suite spike costs every policy the same).  A world where no candidate
keeps the bound says nothing about the choice and is left out.  For each family F the
candidate with the best mean score over the *other* families is chosen and its mean score on F
reported (held out), beside the best any candidate reaches on F (the regret is the difference).
The recommended default is the candidate chosen by the most folds, ties broken by the mean
held-out score.  ``bench/cross_validate.py`` runs the simulations; this module only decides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Outcome:
    """One candidate on one world, as measured."""

    world: str
    family: str
    candidate: str
    throughput_ips: float | None
    above_trip_s: float
    hard_limit_s: float


@dataclass(frozen=True, slots=True)
class Fold:
    held_out: str
    chosen: str
    held_out_score: float
    best_on_held_out: str
    best_score: float

    @property
    def regret(self) -> float:
        return self.best_score - self.held_out_score


def scores(
    outcomes: Sequence[Outcome], bounds: Mapping[str, tuple[float, float]]
) -> dict[tuple[str, str], float]:
    """(world, candidate) -> score in [0, 1]; ``bounds[world]`` = (s above trip, s at a hard limit)."""
    best: dict[str, float] = {}
    for o in outcomes:
        if o.throughput_ips is not None and _keeps(o, bounds):
            best[o.world] = max(best.get(o.world, 0.0), o.throughput_ips)
    out = {}
    for o in outcomes:
        top = best.get(o.world, 0.0)
        ok = o.throughput_ips is not None and _keeps(o, bounds) and top > 0
        out[(o.world, o.candidate)] = (o.throughput_ips or 0.0) / top if ok else 0.0
    return out


def _keeps(o: Outcome, bounds: Mapping[str, tuple[float, float]]) -> bool:
    above, limit = bounds.get(o.world, (0.0, 0.0))
    return o.above_trip_s <= above + 1e-9 and o.hard_limit_s <= limit + 1e-9


def _mean(score: Mapping[tuple[str, str], float], worlds: Sequence[str], cand: str) -> float:
    return sum(score[(w, cand)] for w in worlds) / len(worlds) if worlds else 0.0


def leave_one_family_out(
    outcomes: Sequence[Outcome], bounds: Mapping[str, tuple[float, float]]
) -> tuple[list[Fold], str]:
    """Every fold, and the recommended candidate (see the module docstring)."""
    score = scores(outcomes, bounds)
    cands = list(dict.fromkeys(o.candidate for o in outcomes))
    # A world where no candidate keeps the bound tells candidates apart by nothing: left out.
    fam_of = {o.world: o.family for o in outcomes if any(score[(o.world, c)] > 0 for c in cands)}
    families = list(dict.fromkeys(fam_of.values()))
    if len(families) < 2:
        raise ValueError("cross-validation over families needs at least two families")
    folds = []
    for f in families:
        train = [w for w, fam in fam_of.items() if fam != f]
        test = [w for w, fam in fam_of.items() if fam == f]
        # Ties go to the earlier candidate: list the current default first to keep it on a tie.
        chosen = max(cands, key=lambda c: (_mean(score, train, c), -cands.index(c)))
        best = max(cands, key=lambda c: (_mean(score, test, c), -cands.index(c)))
        folds.append(Fold(f, chosen, _mean(score, test, chosen), best, _mean(score, test, best)))
    votes = Counter(fd.chosen for fd in folds)
    held = {c: [fd.held_out_score for fd in folds if fd.chosen == c] for c in votes}
    pick = max(votes, key=lambda c: (votes[c], sum(held[c]) / len(held[c]), -cands.index(c)))
    return folds, pick


__all__ = ["Fold", "Outcome", "leave_one_family_out", "scores"]
