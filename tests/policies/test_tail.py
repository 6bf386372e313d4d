"""The tail estimate (``policies/tail.py``): it finds a widened tail and a wandering level from counts."""

from __future__ import annotations

import random
from statistics import NormalDist

from thermogov.policies.tail import TailRate

TRIP_EDGE = 84.975  # a Pi 5's trip code (85.25 °C) starts here
CODE = 0.55
SIGMA = 0.3
BUDGET = 1.0 * 0.1 / 3600.0  # one trip reading an hour from a 100 ms sensor
K = NormalDist().inv_cdf(1.0 - BUDGET)  # 4.03 sigmas


def _coded(value: float) -> float:
    return round(value / CODE) * CODE


def _held(
    seconds: float,
    true_sigma: float,
    level_c: float,
    wander_c: float = 0.0,
    prior_n: float = 20.0,
    seed: int = 3,
    tail: TailRate | None = None,
) -> TailRate:
    """Readings of a die at ``level_c`` (+- ``wander_c`` in slow steps) with noise ``true_sigma``,
    fed as a held ramp would, with the measured sigma ``SIGMA`` and the set point at ``level_c``
    (to ``tail``, to go on feeding one, else to a new estimate)."""
    rng = random.Random(seed)
    if tail is None:
        tail = TailRate(TRIP_EDGE, CODE, 2, prior_n, BUDGET, 600.0 / 0.1)
    level = level_c
    for i in range(int(seconds / 0.1)):
        if i % 300 == 0:  # every 30 s the die moves to another point around its mean
            level = level_c + rng.uniform(-wander_c, wander_c)
        tail.observe(_coded(level + rng.gauss(0.0, true_sigma)), level, SIGMA, 0.1, level_c)
    return tail


def test_a_gaussian_as_measured_leaves_the_sigma_and_the_margin() -> None:
    tail = _held(7200.0, SIGMA, 83.7)
    seen, expected = tail.counts()
    assert seen > 200  # the code under the trip's is read hundreds of times in two hours
    assert abs(seen / expected - 1.0) < 0.15
    assert abs(tail.rho - 1.0) < 0.05
    assert abs(tail.margin_z - K * tail.rho) < 0.05  # a level at the set point: k sigmas


def test_a_tail_wider_than_the_measured_sigma_is_found() -> None:
    tail = _held(7200.0, 1.2 * SIGMA, 83.7)
    assert 1.1 < tail.rho < 1.3
    assert tail.margin_z > K * 1.1


def test_few_readings_stay_near_the_measured_sigma() -> None:
    """A minute held sees a few dozen readings near the trip: the prior pulls the factor toward 1."""
    short = _held(60.0, 1.3 * SIGMA, 83.3)
    long = _held(7200.0, 1.3 * SIGMA, 83.3)
    assert 1.2 < long.rho < 1.4
    assert 1.0 <= short.rho < long.rho - 0.05  # shrunk toward the measured sigma


def test_a_level_wandering_about_the_set_point_widens_the_margin() -> None:
    still = _held(3600.0, SIGMA, 83.7)
    wandering = _held(3600.0, SIGMA, 83.7, wander_c=0.5)
    assert wandering.margin_z > still.margin_z + 0.3


def test_nothing_is_fitted_before_the_first_refit() -> None:
    tail = _held(5.0, SIGMA, 83.7)
    assert tail.rho == 1.0 and tail.margin_z == float("inf")


def _rate(budget_p: float = BUDGET, **options: float) -> TailRate:
    return TailRate(TRIP_EDGE, CODE, 2, 20.0, budget_p, 600.0 / 0.1, **options)


def test_a_forgetting_wander_gives_the_margin_back_once_the_wander_shrinks() -> None:
    """An hour of wide wander, then an hour still: the histogram that never forgets keeps most of
    the widening; one with a 10-min memory comes back to the still level's margin."""
    kept, forgetting = _rate(), _rate(forget_ticks=600.0 / 0.1)
    for tail in (kept, forgetting):
        _held(3600.0, SIGMA, 83.7, wander_c=0.8, tail=tail)
    wide = forgetting.margin_z
    still = _held(3600.0, SIGMA, 83.7, seed=4).margin_z
    assert min(wide, kept.margin_z) > still + 0.5  # both see the wander
    for tail in (kept, forgetting):
        _held(3600.0, SIGMA, 83.7, seed=4, tail=tail)
    assert kept.margin_z > still + 0.3
    assert forgetting.margin_z < wide - 0.3
    assert abs(forgetting.margin_z - still) < 0.15


def test_a_forgetting_histogram_falls_back_to_its_prior_not_to_nothing() -> None:
    """A memory far shorter than the refit leaves the prior: the level at the set point, k sigmas."""
    tail = _held(1800.0, SIGMA, 83.7, wander_c=0.8, tail=_rate(forget_ticks=1.0))
    assert abs(tail.margin_z - K * tail.rho) < 0.05


def test_a_budget_per_run_of_unknown_length_tightens_only_after_an_hour_held() -> None:
    """One reading per run is one an hour for the first hour, then that one over the held time."""
    for seconds, tighter in ((1800.0, False), (3 * 3600.0, True)):
        hourly = _held(seconds, SIGMA, 83.7, wander_c=0.3)
        per_run = _held(seconds, SIGMA, 83.7, wander_c=0.3, tail=_rate(run_reads=1.0))
        if tighter:
            assert per_run.margin_z > hourly.margin_z + 0.1
        else:
            assert per_run.margin_z == hourly.margin_z


def test_a_budget_per_run_of_known_length_is_spread_over_that_run() -> None:
    """Half an hour known: the run's one reading over its 18000 readings (the hourly budget is
    not kept, it is the caller's per-run rate); a world that outlasts it tightens with held time."""
    run = 1800.0 / 0.1
    short = _held(1200.0, SIGMA, 83.7, tail=_rate(run_reads=1.0, run_ticks=run, budget_p=1.0 / run))
    hourly = _held(1200.0, SIGMA, 83.7)
    assert short.margin_z < hourly.margin_z - 0.1
    outlasted = _held(3 * 3600.0, SIGMA, 83.7, tail=_rate(run_reads=1.0, run_ticks=run, budget_p=1.0 / run))
    assert outlasted.margin_z > _held(3 * 3600.0, SIGMA, 83.7).margin_z + 0.1
