"""A/B of two policies on one board: the block schedule and the statistics of ``thermogov ab``.

A board is never the same twice: the room warms, the heatsink keeps heat from the last run,
the inference load drifts.  Comparing policy A run in the morning with policy B run after it
confounds the policy with all of that.  So A and B run in short *blocks* on the same workload,
in pairs whose order is drawn at random (AB or BA, a balanced randomised alternation), with a
cool-down at the lowest caps before every block so each starts from a similar board; a slow
drift then hits A and B alike, and the order cannot favour either.  This is the design of a
randomised crossover trial (e.g. Senn, *Cross-over Trials in Clinical Research*, ch. 3) and of
the blocked, interleaved benchmark runs the team uses in ``bench/`` (never two timings far apart).

The unit of the statistics is the *pair*: ``d_i`` = A's minus B's sustained throughput in pair
``i``, both measured over their block's steady window.  The report is the mean of ``d`` with a
percentile bootstrap interval over pairs (resampling whole pairs keeps the within-pair
pairing; Efron & Tibshirani, *An Introduction to the Bootstrap*, ch. 13), which assumes no more
than pairs being exchangeable, plus the same as a percentage of B.  Pure Python and seeded: the
daemon's import path stays lean and a report is reproducible from its blocks.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from thermogov.interfaces import ConfigError

#: Bootstrap resamples: the percentile interval's Monte Carlo error is well under its width.
RESAMPLES = 4000
MAX_PAIRS = 1000


def block_schedule(a: str, b: str, pairs: int, seed: int) -> list[str]:
    """``2 * pairs`` policy names: each pair is AB or BA at random (seeded)."""
    check_pairs(pairs)
    rng = random.Random(seed)
    order: list[str] = []
    for _ in range(pairs):
        order.extend((a, b) if rng.random() < 0.5 else (b, a))
    return order


def check_pairs(pairs: int) -> None:
    if not 2 <= pairs <= MAX_PAIRS:
        raise ConfigError(
            f"--pairs: {pairs} is out of range; give 2..{MAX_PAIRS} pairs of blocks (an interval needs at least 2)"
        )


def check_confidence(confidence: float) -> None:
    if not (math.isfinite(confidence) and 0.5 <= confidence < 1.0):
        raise ConfigError(f"--confidence: {confidence!r} is out of range; give 0.5 <= confidence < 1")


@dataclass(frozen=True, slots=True)
class Block:
    """One block as measured: its policy, place in the schedule and what the board did."""

    index: int
    policy: str
    throughput_ips: float
    max_fused_c: float | None
    run_id: str = ""
    # What the board's restores before and after this block left to another writer (a max set
    # below the value of before, kept by the daemon's race rule, hw/limits.py RaceRule): the
    # block ran on a board someone else also limits, which a comparison must show (32r).
    restore_notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AbResult:
    a: str
    b: str
    mean_a_ips: float
    mean_b_ips: float
    diff_ips: float  # mean over pairs of A - B
    ci_low_ips: float
    ci_high_ips: float
    confidence: float
    pairs: int
    max_fused_a_c: float | None
    max_fused_b_c: float | None

    @property
    def diff_pct(self) -> float | None:
        return None if not self.mean_b_ips else 100.0 * self.diff_ips / self.mean_b_ips

    @property
    def ci_pct(self) -> tuple[float, float] | None:
        if not self.mean_b_ips:
            return None
        return 100.0 * self.ci_low_ips / self.mean_b_ips, 100.0 * self.ci_high_ips / self.mean_b_ips

    @property
    def verdict(self) -> str:
        """Which policy is faster, or that the interval cannot tell."""
        if self.ci_low_ips > 0:
            return f"{self.a} sustains more"
        if self.ci_high_ips < 0:
            return f"{self.b} sustains more"
        return "no difference resolved"


def pair_differences(blocks: Sequence[Block], a: str, b: str) -> list[float]:
    """A minus B in each consecutive pair of blocks (the schedule's pairs)."""
    if len(blocks) % 2:
        raise ValueError("blocks come in pairs")
    diffs = []
    for first, second in zip(blocks[::2], blocks[1::2], strict=True):
        by = {first.policy: first, second.policy: second}
        if set(by) != {a, b}:
            raise ValueError(f"pair {first.index // 2} does not hold one block of each policy")
        diffs.append(by[a].throughput_ips - by[b].throughput_ips)
    return diffs


def bootstrap_interval(values: Sequence[float], confidence: float, seed: int) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of ``values`` (resampled with replacement)."""
    n = len(values)
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(RESAMPLES))
    tail = (1.0 - confidence) / 2.0
    lo = means[min(math.floor(tail * RESAMPLES), RESAMPLES - 1)]
    hi = means[min(math.ceil((1.0 - tail) * RESAMPLES) - 1, RESAMPLES - 1)]
    return lo, hi


def summarise(blocks: Sequence[Block], a: str, b: str, confidence: float = 0.95, seed: int = 1) -> AbResult:
    check_confidence(confidence)
    diffs = pair_differences(blocks, a, b)
    if len(diffs) < 2:
        raise ValueError("at least two pairs are needed for an interval")
    lo, hi = bootstrap_interval(diffs, confidence, seed)

    def of(p: str) -> list[Block]:
        return [x for x in blocks if x.policy == p]

    def hottest(bs: list[Block]) -> float | None:
        vals = [x.max_fused_c for x in bs if x.max_fused_c is not None]
        return max(vals) if vals else None

    return AbResult(
        a=a,
        b=b,
        mean_a_ips=sum(x.throughput_ips for x in of(a)) / len(of(a)),
        mean_b_ips=sum(x.throughput_ips for x in of(b)) / len(of(b)),
        diff_ips=sum(diffs) / len(diffs),
        ci_low_ips=lo,
        ci_high_ips=hi,
        confidence=confidence,
        pairs=len(diffs),
        max_fused_a_c=hottest(of(a)),
        max_fused_b_c=hottest(of(b)),
    )


__all__ = [
    "AbResult",
    "Block",
    "block_schedule",
    "bootstrap_interval",
    "check_confidence",
    "check_pairs",
    "pair_differences",
    "summarise",
]
