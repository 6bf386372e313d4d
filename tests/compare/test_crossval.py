"""Leave-one-family-out selection judges every choice on a family it was not chosen on."""

from __future__ import annotations

import pytest

from thermogov.sim.compare.crossval import Outcome, leave_one_family_out, scores


def _o(
    world: str, family: str, cand: str, ips: float | None, above: float = 0.0, limit: float = 0.0
) -> Outcome:
    return Outcome(world, family, cand, ips, above, limit)


def test_a_candidate_that_breaks_a_worlds_bound_scores_zero_there_and_the_rest_are_relative() -> None:
    outs = [_o("w", "f", "a", 100.0), _o("w", "f", "b", 120.0, above=5.0), _o("w", "f", "c", 50.0)]
    s = scores(outs, {"w": (1.0, 0.0)})
    assert s[("w", "b")] == 0.0  # faster, but bought with time above the trip
    assert s[("w", "a")] == 1.0 and s[("w", "c")] == 0.5


def test_a_candidate_fit_to_one_family_is_caught_when_that_family_is_held_out() -> None:
    # "fit" is best on family F1 only; "general" is a close second everywhere.
    outs = []
    for fam, n in (("F1", 3), ("F2", 3), ("F3", 3)):
        for i in range(n):
            w = f"{fam}-{i}"
            outs.append(_o(w, fam, "general", 98.0))
            outs.append(_o(w, fam, "fit", 100.0 if fam == "F1" else 80.0))
    folds, pick = leave_one_family_out(outs, {})
    by = {fd.held_out: fd for fd in folds}
    assert by["F1"].chosen == "general"  # chosen on F2+F3, where "fit" is poor
    assert by["F1"].best_on_held_out == "fit"
    assert by["F1"].regret == pytest.approx(0.02)
    assert by["F2"].chosen == "general" and by["F2"].regret == 0.0
    assert pick == "general"


def test_ties_keep_the_first_listed_candidate_the_current_defaults() -> None:
    outs = [_o(f"{f}-w", f, c, 10.0) for f in ("A", "B") for c in ("defaults", "other")]
    folds, pick = leave_one_family_out(outs, {})
    assert pick == "defaults" and all(fd.chosen == "defaults" for fd in folds)


def test_one_family_cannot_be_cross_validated() -> None:
    with pytest.raises(ValueError, match="two families"):
        leave_one_family_out([_o("w", "A", "x", 1.0)], {})


def test_a_world_no_candidate_can_hold_is_left_out_of_the_means() -> None:
    outs = [
        _o("a1", "A", "x", 10.0),
        _o("a1", "A", "y", 9.0),
        _o("b1", "B", "x", 5.0),
        _o("b1", "B", "y", 6.0),
    ]
    outs += [_o("a2", "A", "x", 10.0, above=99.0), _o("a2", "A", "y", 9.0, above=99.0)]
    folds, _ = leave_one_family_out(outs, {"a2": (1.0, 0.0)})
    (fa,) = [fd for fd in folds if fd.held_out == "A"]
    assert fa.best_score == 1.0  # a1 alone: a2 (unholdable by everyone) does not halve it
