"""The best fixed cap *schedule* found by search: a real schedule beside the oracle's bound.

The oracle (:mod:`.oracle`, :mod:`.anywindow`) is an upper bound on what any schedule completes;
its tightness needs a schedule that really runs.  The best single cap (``best_fixed_ips``) is the
wrong one on a board whose firmware throttles (the Raspberry Pi: the firmware's own modulation
beats every single cap by 2-3 %, session 21b).  Here the run is cut into segments of ``segment_s``
and each segment holds one operating point's caps, decided before the run (open loop, so it may
know when the run ends, as the bound does); the board's own protections act under it exactly as
the simulator has them (the Pi firmware's ramp lowers the clock under the cap).  Every schedule
is simulated on the exact world and scored as a policy is: the least completions over the
any-window windows (:func:`.anywindow.window_starts`), with the trip readings counted.

The search is coordinate ascent from the all-fastest schedule (the board's protections alone):
for each segment in turn, every other point is tried and the best kept if
it raises the worst window without reading the trip more often than the start did.  Its result is
a *lower* bound on the best schedule (``pairs`` adds passes that move one segment a rung slower
and another a rung faster at once, where single moves stall on the max-min objective) (a feasible witness), so ``bound - found`` is at most the
bound's looseness plus what the search missed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.policies.base import Decision, Policy, PolicyInput
from thermogov.sim.compare.anywindow import window_starts
from thermogov.sim.compare.oracle import TRIP_C, operating_points
from thermogov.sim.model import runner


class ScheduleCaps:
    """A policy that plays caps decided before the run: segment ``i`` holds ``caps[i]``."""

    name = "schedule"

    def __init__(self, segment_s: float, caps: Sequence[Mapping[str, int]]) -> None:
        if not (math.isfinite(segment_s) and segment_s > 0.0):
            raise ConfigError(f"schedule: segment_s must be a positive number of seconds, got {segment_s!r}")
        if not caps:
            raise ConfigError("schedule: needs at least one segment's caps")
        self.segment_s = segment_s
        self.caps = [dict(c) for c in caps]
        self.state = "SCHED"

    def decide(self, inp: PolicyInput) -> Decision:
        i = min(max(int(inp.t_s // self.segment_s), 0), len(self.caps) - 1)
        return Decision(self.caps[i], self.state)


@dataclass(frozen=True, slots=True)
class ScheduleScore:
    worst_ips: float  # least completions per second over the any-window windows
    last_ips: float  # the steady (last) window's
    trip_reads: int  # control ticks whose fused reading was at or above the trip


@dataclass(frozen=True, slots=True)
class SearchResult:
    segment_s: float
    points: tuple[dict[str, int], ...]  # candidate caps, fastest first
    schedule: tuple[int, ...]  # index into ``points`` per segment
    start: ScheduleScore  # all-fastest (the board's protections alone), or the safe uniform start
    best: ScheduleScore
    runs: int  # simulations made


@contextmanager
def _policy(policy: Policy) -> Iterator[None]:
    # The runner builds the configured policy by name; a schedule is not a configurable policy,
    # so it is put in place of that one for the length of a run.
    saved = runner.build_policy
    runner.build_policy = lambda config, board: policy
    try:
        yield
    finally:
        runner.build_policy = saved


def schedule_points(board: BoardProfile) -> list[dict[str, int]]:
    """The caps a segment may hold: the oracle's operating points (dominated ones dropped), fastest first."""
    pts = sorted(operating_points(board, saturating=True), key=lambda p: -p.throughput_ips)
    return [dict(p.caps_hz) for p in pts]


def score_schedule(
    config: Config, board: BoardProfile, segment_s: float, caps: Sequence[Mapping[str, int]]
) -> ScheduleScore:
    """Simulate one schedule on ``config``'s world and score it as a policy is scored."""
    with _policy(ScheduleCaps(segment_s, caps)):
        return score_with(config, board)


def score_with(config: Config, board: BoardProfile) -> ScheduleScore:
    """Simulate ``config``'s world under the policy the runner builds and score its worst window.

    Shared with :mod:`.levelsearch`, whose schedules are put in place the same way (:func:`_policy`).
    """
    times: list[float] = []
    totals: list[int] = []
    reads = 0

    def on_tick(rec: runner.TickRecord) -> None:
        nonlocal reads
        times.append(rec.t_s)
        totals.append(rec.inferences_total or 0)
        if rec.fused_c is not None and rec.fused_c >= TRIP_C:
            reads += 1

    runner.simulate(config, board, None, on_tick=on_tick)
    starts, length = window_starts(config)
    t = np.asarray(times)
    c = np.asarray(totals)

    def count_at(x: np.ndarray) -> np.ndarray:
        return c[np.searchsorted(t, x + 1e-9, side="right") - 1]

    done = (count_at(starts + length) - count_at(starts)) / length
    return ScheduleScore(float(done.min()), float(done[-1]), reads)


def search(
    config: Config,
    segment_s: float,
    *,
    board: BoardProfile | None = None,
    sweeps: int = 2,
    pairs: bool = False,
    trip_reads_max: int | None = None,
    progress: Callable[[int, SearchResult], None] | None = None,
) -> SearchResult:
    """Coordinate ascent over the segments' caps (see the module doc); ``sweeps`` passes at most.

    With ``pairs``, then up to ``sweeps`` passes of pair moves: one segment a rung slower and
    another a rung faster at once (single moves stall once two windows both bind the least).

    ``trip_reads_max``: every schedule kept reads the trip at most this often, and the search
    starts from the fastest *uniform* schedule that does (see :func:`safe_start`).  Needed where
    the board's own protections let the die sit at the trip (a Jetson: full clocks read it for
    most of the run), so "no more often than the start" would admit any exposure; a witness for a
    policy held to ``hysteresis``'s time above the trip is held to the same count.  ``None``: no
    more often than the all-fastest start (the Pi, where the firmware alone reads it 0-3 times).
    """
    if config.sim.workload.kind != "saturating":
        raise ConfigError("schedule search: needs a saturating load (an open load's bound is its arrivals)")
    board = board or config.load_board()
    n = math.ceil(config.sim.duration_s / segment_s - 1e-9)
    points = schedule_points(board)
    runs = 0

    def run(s: Sequence[int]) -> ScheduleScore:
        nonlocal runs
        runs += 1
        return score_schedule(config, board, segment_s, [points[k] for k in s])

    if trip_reads_max is None:
        sched = [0] * n
        start = best = run(sched)
        allowed = start.trip_reads
    else:
        k0, start = safe_start(len(points), lambda k: run([k] * n), trip_reads_max)
        sched, best, allowed = [k0] * n, start, trip_reads_max

    def result() -> SearchResult:
        return SearchResult(segment_s, tuple(points), tuple(sched), start, best, runs)

    def singles(i: int) -> Iterator[list[int]]:
        for k in range(len(points)):
            if k != sched[i]:
                cand = sched.copy()
                cand[i] = k
                yield cand

    def pair_moves(i: int) -> Iterator[list[int]]:
        for j in range(n):
            if i != j and sched[i] + 1 < len(points) and sched[j] > 0:
                cand = sched.copy()
                cand[i] += 1
                cand[j] -= 1
                yield cand

    for moves in (singles, pair_moves) if pairs else (singles,):
        for _ in range(sweeps):
            improved = False
            for i in range(n):
                for cand in moves(i):
                    sc = run(cand)
                    if sc.trip_reads <= allowed and sc.worst_ips > best.worst_ips + 1e-9:
                        best, sched, improved = sc, cand, True
                if progress is not None:
                    progress(i, result())
            if not improved:
                break
    return result()


def safe_start(
    n_points: int, uniform: Callable[[int], ScheduleScore], trip_reads_max: int
) -> tuple[int, ScheduleScore]:
    """The fastest point whose uniform schedule (``uniform(k)``: point ``k`` all run) reads the
    trip at most ``trip_reads_max`` times, tried fastest first; the slowest point if none does
    (a start, not a claim: its score is printed with its trip reads)."""
    sc = uniform(0)
    for k in range(n_points):
        if k:
            sc = uniform(k)
        if sc.trip_reads <= trip_reads_max:
            return k, sc
    return n_points - 1, sc
