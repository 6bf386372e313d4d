"""A fixed cap schedule of *fractional* rungs found by search: a tighter witness beside the bound.

:mod:`.schedsearch` holds one whole rung per segment.  On a Jetson that witness is weak: after a
fan failure or an ambient step the rate the trip allows lies between two rungs, a segment of the
faster rung climbs past the trip within seconds and one of the slower rung gives away the
difference (session 30b: orin-fan-failure's best whole-rung schedule at 150 s and 0 trip readings
scores 150.49 inf/s, under ``stepped``'s 151.26).  The oracle's bound mixes operating points
freely, so its witness must too.

Here segment ``i`` holds a *level* ``u_i`` in ``[0, n-1]`` over the operating points (0 the
fastest): the ticks alternate between points ``floor(u)`` and ``floor(u)+1`` by first-order
sigma-delta, ``frac(u)`` of them at the slower, so the mix is as fine as the control tick, fixed
before the run (open loop: it may know when the run ends and, simulated on the exact world and
seed, even the read noise; it cannot react).  The board's protections act under it as the
simulator has them.  Scored as a policy is (:func:`.schedsearch.score_schedule`'s rule: the least
window over :func:`.anywindow.window_starts`, trip readings counted).

Search: the fastest uniform level whose run reads the trip at most ``trip_reads_max`` times
(bisection) or a slower whole rung held all run if its worst window is higher, then passes from the last segment back, each segment tried faster and then slower by
halving steps, keeping only moves that raise the worst window within the readings (slower can
raise it: a Pi's run may end before its slowest mode settles).  The result is a real schedule, a *lower* bound on the best
one, so ``bound - found`` is at most the bound's looseness plus what the search missed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.policies.base import Decision, PolicyInput
from thermogov.sim.compare.schedsearch import ScheduleScore, _policy, schedule_points, score_with

STEPS = (1.0, 0.5, 0.25, 0.125, 0.0625)  # rungs tried per move, coarse to fine
UNIFORM_BISECTIONS = 8  # resolution (n-1)/256 of a rung on the uniform start


class LevelSchedule:
    """A policy holding level ``levels[i]`` over ``points`` in segment ``i`` (see the module doc)."""

    name = "levels"

    def __init__(
        self, segment_s: float, points: Sequence[Mapping[str, int]], levels: Sequence[float]
    ) -> None:
        if not (math.isfinite(segment_s) and segment_s > 0.0):
            raise ConfigError(f"levels: segment_s must be a positive number of seconds, got {segment_s!r}")
        if not points or not levels:
            raise ConfigError("levels: needs at least one operating point and one segment")
        top = len(points) - 1
        for u in levels:
            if not (math.isfinite(u) and 0.0 <= u <= top):
                raise ConfigError(f"levels: each level must lie in [0, {top}], got {u!r}")
        self.segment_s = segment_s
        self.points = [dict(p) for p in points]
        self.levels = list(levels)
        self.state = "LEVELS"
        self._acc = 0.0

    def decide(self, inp: PolicyInput) -> Decision:
        i = min(max(int(inp.t_s // self.segment_s), 0), len(self.levels) - 1)
        u = self.levels[i]
        k = min(int(u), len(self.points) - 1)
        frac = u - k
        self._acc += frac
        if self._acc >= 1.0 - 1e-12 and k + 1 < len(self.points):
            self._acc -= 1.0
            k += 1
        return Decision(self.points[k], self.state)


@dataclass(frozen=True, slots=True)
class LevelResult:
    segment_s: float
    points: tuple[dict[str, int], ...]  # fastest first
    levels: tuple[float, ...]  # per segment
    start: ScheduleScore  # the fastest uniform level within the readings
    start_level: float
    best: ScheduleScore
    runs: int


def score_levels(
    config: Config,
    board: BoardProfile,
    segment_s: float,
    points: Sequence[Mapping[str, int]],
    levels: Sequence[float],
) -> ScheduleScore:
    """Simulate one level schedule on ``config``'s world and score it as a policy is scored."""
    policy = LevelSchedule(segment_s, points, levels)
    with _policy(policy):
        return score_with(config, board)


def uniform_start(
    top: float, uniform: Callable[[float], ScheduleScore], trip_reads_max: int, bisections: int
) -> tuple[float, ScheduleScore]:
    """The fastest uniform level in ``[0, top]`` reading the trip at most ``trip_reads_max`` times
    (bisection, assuming slower reads no more often); ``top`` itself when nothing faster does."""
    sc = uniform(0.0)
    if sc.trip_reads <= trip_reads_max:
        return 0.0, sc
    lo, hi = 0.0, top
    best = uniform(hi)
    for _ in range(bisections):
        mid = 0.5 * (lo + hi)
        sc = uniform(mid)
        if sc.trip_reads <= trip_reads_max:
            hi, best = mid, sc
        else:
            lo = mid
    return hi, best


def level_search(
    config: Config,
    segment_s: float,
    trip_reads_max: int,
    *,
    board: BoardProfile | None = None,
    sweeps: int = 2,
    progress: Callable[[int, LevelResult], None] | None = None,
) -> LevelResult:
    """The search of the module doc; ``sweeps`` passes over the segments at most."""
    if config.sim.workload.kind != "saturating":
        raise ConfigError("level search: needs a saturating load (an open load's bound is its arrivals)")
    if trip_reads_max < 0:
        raise ConfigError(f"level search: trip_reads_max must be >= 0, got {trip_reads_max}")
    board = board or config.load_board()
    n = math.ceil(config.sim.duration_s / segment_s - 1e-9)
    points = schedule_points(board)
    top = float(len(points) - 1)
    runs = 0

    def run(levels: Sequence[float]) -> ScheduleScore:
        nonlocal runs
        runs += 1
        return score_levels(config, board, segment_s, points, levels)

    u0, start = uniform_start(top, lambda u: run([u] * n), trip_reads_max, UNIFORM_BISECTIONS)
    # Slower whole rungs too: the worst window is not monotone in speed where the run ends before
    # the slowest mode settles (rpi5-steady-25: 1.8 GHz all run beats the fastest level within
    # the readings by 1.2 %, session 30b), so the start is the best uniform level seen.
    for k in range(math.ceil(u0), len(points)):
        if k > u0:
            sc = run([float(k)] * n)
            if sc.trip_reads <= trip_reads_max and sc.worst_ips > start.worst_ips + 1e-9:
                u0, start = float(k), sc
    levels, best = [u0] * n, start

    def result() -> LevelResult:
        return LevelResult(segment_s, tuple(points), tuple(levels), start, u0, best, runs)

    for _ in range(sweeps):
        # From the last segment back (a late segment's heat touches no earlier window), each
        # segment tried faster, then slower: where the run ends before the slowest thermal mode
        # settles (a Pi under its firmware), a slower early segment banks headroom for the last
        # window, so the worst window is not monotone in speed.  Only moves that raise the worst
        # window are kept: a flat move that runs faster (tried first, session 30b) heats the
        # plant for nothing and blocked later gains (orin-ambient-step 205.03 against 206.00).
        improved = False
        for i in reversed(range(n)):
            for sign in (-1.0, 1.0):
                for step in STEPS:
                    while (sign < 0.0 and levels[i] > 0.0) or (sign > 0.0 and levels[i] + step <= top):
                        cand = levels.copy()
                        cand[i] = min(max(levels[i] + sign * step, 0.0), top)
                        sc = run(cand)
                        if sc.trip_reads <= trip_reads_max and sc.worst_ips > best.worst_ips + 1e-9:
                            levels, best, improved = cand, sc, True
                        else:
                            break
            if progress is not None:
                progress(i, result())
        if not improved:
            break
    return result()
