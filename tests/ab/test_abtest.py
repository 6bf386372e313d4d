"""The A/B statistics: a balanced randomised schedule and an interval that covers what it should."""

from __future__ import annotations

import math
import random

import pytest

from thermogov.abtest import (
    Block,
    block_schedule,
    bootstrap_interval,
    pair_differences,
    summarise,
)
from thermogov.interfaces import ConfigError


def test_the_schedule_is_balanced_pairs_in_random_order_reproducible_from_the_seed() -> None:
    order = block_schedule("A", "B", 40, seed=7)
    assert len(order) == 80
    pairs = [tuple(order[i : i + 2]) for i in range(0, 80, 2)]
    assert set(pairs) == {("A", "B"), ("B", "A")}  # both orders occur: A is not always first
    assert all(set(p) == {"A", "B"} for p in pairs)
    assert order == block_schedule("A", "B", 40, seed=7)
    assert order != block_schedule("A", "B", 40, seed=8)


@pytest.mark.parametrize("pairs", [0, 1, 1001])
def test_too_few_or_too_many_pairs_is_a_config_error(pairs: int) -> None:
    with pytest.raises(ConfigError, match="--pairs"):
        block_schedule("A", "B", pairs, seed=1)


@pytest.mark.parametrize("level", [math.nan, math.inf, 0.2, 1.0])
def test_a_bad_confidence_is_a_config_error(level: float) -> None:
    blocks = [Block(i, p, 1.0, None) for i, p in enumerate("ABAB")]
    with pytest.raises(ConfigError, match="--confidence"):
        summarise(blocks, "A", "B", level)


def _blocks(
    schedule: list[str], true_diff: float, noise: float, drift: float, rng: random.Random
) -> list[Block]:
    out = []
    for i, p in enumerate(schedule):
        base = 100.0 - drift * i  # the board slowly warms: later blocks are slower for both
        out.append(Block(i, p, base + (true_diff if p == "A" else 0.0) + rng.gauss(0, noise), 80.0 + i))
    return out


def test_the_interval_covers_the_true_difference_at_about_its_level_despite_a_drift() -> None:
    rng = random.Random(3)
    covered = 0
    trials = 200
    for t in range(trials):
        sched = block_schedule("A", "B", 12, seed=t)
        res = summarise(_blocks(sched, 2.0, 1.0, 0.5, rng), "A", "B", 0.9, seed=t)
        covered += res.ci_low_ips <= 2.0 <= res.ci_high_ips
    # A percentile bootstrap on 12 pairs is a little narrow; far from 90 % would be a bug.
    assert 0.75 <= covered / trials <= 0.97, covered


def test_a_clear_difference_is_resolved_and_named_and_a_null_one_is_not() -> None:
    rng = random.Random(5)
    res = summarise(_blocks(block_schedule("A", "B", 8, 1), 10.0, 0.5, 0.3, rng), "A", "B")
    assert res.ci_low_ips > 0 and res.verdict == "A sustains more"
    assert res.diff_pct == pytest.approx(100 * res.diff_ips / res.mean_b_ips)
    assert res.max_fused_a_c is not None and res.max_fused_b_c is not None
    res = summarise(_blocks(block_schedule("A", "B", 8, 1), -10.0, 0.5, 0.3, rng), "A", "B")
    assert res.ci_high_ips < 0 and res.verdict == "B sustains more"
    flat = [Block(i, p, 50.0, None) for i, p in enumerate(block_schedule("A", "B", 4, 2))]
    res = summarise(flat, "A", "B")
    assert (res.diff_ips, res.ci_low_ips, res.ci_high_ips) == (0.0, 0.0, 0.0)
    assert res.verdict == "no difference resolved"


def test_pairs_must_hold_one_block_of_each_policy() -> None:
    with pytest.raises(ValueError, match="pair"):
        pair_differences([Block(0, "A", 1.0, None), Block(1, "A", 1.0, None)], "A", "B")


def test_the_bootstrap_interval_brackets_the_mean_and_narrows_with_more_data() -> None:
    rng = random.Random(1)
    small = [rng.gauss(0, 1) for _ in range(5)]
    big = [rng.gauss(0, 1) for _ in range(200)]
    lo_s, hi_s = bootstrap_interval(small, 0.95, 1)
    lo_b, hi_b = bootstrap_interval(big, 0.95, 1)
    assert lo_s <= sum(small) / 5 <= hi_s and lo_b <= sum(big) / 200 <= hi_b
    assert hi_b - lo_b < hi_s - lo_s
