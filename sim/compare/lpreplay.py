"""The any-window bound's own optimum, replayed as a real schedule: a witness of its tightness.

The level search (:mod:`.levelsearch`) looks for a good fixed schedule by simulation, one
150-s segment at a time, and stops where single moves stop paying; on orin-fan-failure it
found 97.5 % of the any-window bound (session 30b), which leaves open whether the bound or the
search is loose.  The programme already says what a schedule with the bound's foresight should
do: its optimum ``w`` is a time share of every operating point in every grid interval.  Here
that plan is *run*: :class:`MixSchedule` spends each interval's control ticks on the points in
those shares (largest accumulated credit first, so the ticks track the shares to within one
tick), open loop, on the exact simulated world (leakage at real temperatures, the board's
protections, read noise).

The programme holds the *true* fused value to the trip; a schedule judged on its readings
must stay a read-noise margin under it.  So the programme is solved at ``trip - margin`` and
the least margin (bisection over ``[0, MARGIN_HI_C]``) whose replay reads the trip at most
``trip_reads_max`` times is kept.  Every replay is a real schedule, so its worst window is a
*lower* bound on the best schedule: ``bound - replay`` is at most the bound's looseness (and
``replay / bound`` a floor on its tightness) without any search over segments.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.policies.base import Decision, PolicyInput
from thermogov.sim.compare.oracle import TRIP_C, OracleResult, oracle
from thermogov.sim.compare.schedsearch import ScheduleScore, _policy, score_with

#: Margins under the trip tried (°C): 0, this, then bisection between the two.  The margin is
#: picked on the judged world and seed, the foresight the level search's readings also had.
MARGIN_HI_C = 2.0
MARGIN_BISECTIONS = 5  # resolution 2 / 32 = 0.0625 °C


class MixSchedule:
    """A policy running, in grid interval ``i``, the points in the shares ``shares[i]``.

    Each tick adds the interval's shares to a credit per point and runs the point with the most
    credit, which then pays one tick: over any run of ticks each point's count is within one of
    its share (a multi-point sigma-delta).  The credit carries over interval edges.
    """

    name = "lp-replay"

    def __init__(self, step_s: float, points: Sequence[Mapping[str, int]], shares: np.ndarray) -> None:
        shares = np.asarray(shares, dtype=float)
        if not (np.isfinite(step_s) and step_s > 0.0):
            raise ConfigError(f"lp replay: step_s must be a positive number of seconds, got {step_s!r}")
        if shares.ndim != 2 or shares.shape[1] != len(points) or shares.shape[0] == 0:
            raise ConfigError(
                f"lp replay: shares must be (intervals, {len(points)} points), got shape {shares.shape}"
            )
        if not np.all(np.isfinite(shares)) or float(shares.min()) < -1e-9:
            raise ConfigError("lp replay: shares must be finite and non-negative")
        sums = shares.sum(axis=1, keepdims=True)
        if float(np.abs(sums - 1.0).max()) > 1e-3:
            raise ConfigError("lp replay: each interval's shares must sum to 1")
        self.step_s = float(step_s)
        self.points = [dict(p) for p in points]
        self.shares = np.clip(shares, 0.0, None) / sums
        self.state = "LP-REPLAY"
        self._credit = np.zeros(len(points))

    def decide(self, inp: PolicyInput) -> Decision:
        i = min(max(int(inp.t_s // self.step_s), 0), len(self.shares) - 1)
        self._credit += self.shares[i]
        k = int(np.argmax(self._credit))
        self._credit[k] -= 1.0
        return Decision(self.points[k], self.state)


@dataclass(frozen=True, slots=True)
class Replay:
    margin_c: float  # the programme was solved at trip - margin
    bound_ips: float | None  # that programme's optimum (a bound only at margin 0)
    score: ScheduleScore  # the replay, scored as a policy is (worst window, trip readings)


@dataclass(frozen=True, slots=True)
class ReplayResult:
    bound_ips: float  # the any-window bound (margin 0)
    best: Replay | None  # the best replay within the readings; None if none kept them
    tried: tuple[Replay, ...]


def replay(config: Config, board: BoardProfile, result: OracleResult) -> ScheduleScore:
    """Run ``result``'s optimum (see :class:`MixSchedule`) on ``config``'s world and score it."""
    if result.shares is None or not result.points:
        raise ConfigError("lp replay: the oracle found no schedule that holds the trip")
    step = (result.window_s[1]) / result.shares.shape[0]
    with _policy(MixSchedule(step, result.points, result.shares)):
        return score_with(config, board)


def lp_replay(
    config: Config,
    trip_reads_max: int,
    *,
    board: BoardProfile | None = None,
    margin_hi_c: float = MARGIN_HI_C,
    bisections: int = MARGIN_BISECTIONS,
    solve: Callable[[Config, BoardProfile, float], OracleResult] | None = None,
) -> ReplayResult:
    """The least margin whose replay reads the trip at most ``trip_reads_max`` times (module doc).

    Assumes a larger margin reads no more often (bisection); every replay tried is reported and
    the one with the highest worst window within the readings is kept.
    """
    if config.sim.workload.kind != "saturating":
        raise ConfigError("lp replay: needs a saturating load (an open load's bound is its arrivals)")
    if trip_reads_max < 0:
        raise ConfigError(f"lp replay: trip_reads_max must be >= 0, got {trip_reads_max}")
    board = board or config.load_board()
    if solve is None:

        def solve(cfg: Config, brd: BoardProfile, trip_c: float) -> OracleResult:
            return oracle(cfg, brd, trip_c=trip_c, any_window=True)

    tried: list[Replay] = []

    def attempt(margin: float) -> Replay | None:
        """The replay at ``margin``; None where no schedule holds ``trip - margin`` (then none
        holds a larger margin either: the programme's feasible set only shrinks)."""
        res = solve(config, board, TRIP_C - margin)
        if res.throughput_ips is None:
            return None
        r = Replay(margin, res.throughput_ips, replay(config, board, res))
        tried.append(r)
        return r

    first = attempt(0.0)
    if first is None or first.bound_ips is None:
        raise ConfigError(
            "lp replay: no schedule holds the trip on this world, so there is no bound to replay"
        )
    if first.score.trip_reads > trip_reads_max:
        lo, hi = 0.0, margin_hi_c
        top = attempt(hi)
        if top is not None and top.score.trip_reads <= trip_reads_max:
            for _ in range(bisections):
                mid = 0.5 * (lo + hi)
                got = attempt(mid)
                if got is not None and got.score.trip_reads <= trip_reads_max:
                    hi = mid
                else:
                    lo = mid
    within = [r for r in tried if r.score.trip_reads <= trip_reads_max]
    best = max(within, key=lambda r: r.score.worst_ips) if within else None
    return ReplayResult(float(first.bound_ips), best, tuple(tried))


def replay_job(job: tuple[str, Config, int]) -> tuple[str, ReplayResult]:
    """One scenario's replay (a process-pool job): name, world, the readings allowed."""
    name, cfg, reads = job
    return name, lp_replay(cfg, reads)


def verdict(candidate_ips: float, bound_ips: float, replay_ips: float | None, target_pct: float) -> str:
    """The target judged on the bound, and what no bound can change.

    Every valid bound on schedules with these readings is at least the replay's worst window (the
    replay is one of them), so a candidate under the target share of the replay misses it
    against *every* bound; one that misses only against this bound may pass a tighter one.
    """
    if 100.0 * candidate_ips / bound_ips >= target_pct:
        return "meets"
    if replay_ips is not None and 100.0 * candidate_ips / replay_ips < target_pct:
        return "MISS against every bound"
    return "MISS here; a tighter bound may clear it"


def replay_lines(
    results: Mapping[str, ReplayResult],
    candidate_ips: Mapping[str, float],
    reads: Mapping[str, int],
    candidate: str,
    target_pct: float,
) -> list[str]:
    """The block the bench prints: per scenario the bound, the replay of its optimum, the candidate."""
    out = [
        f"tightness by replay: the any-window bound's own optimum run on the world at the least margin "
        f"under the trip whose run reads it no more often than {candidate} did; a real schedule, so "
        f"every valid bound is at least it (the target stays judged on the bound)",
        f"  {'scenario':<24} {'bound':>7} {'replay':>7} {'/bound':>6} {'margin':>6} {'reads':>5} "
        f"{candidate:>8} {'/bound':>6} {'/replay':>7}  verdict",
    ]
    for name, res in results.items():
        c = candidate_ips.get(name)
        best = res.best
        rep = best.score.worst_ips if best is not None else None
        rep_s = (
            f"{rep:7.2f} {100.0 * rep / res.bound_ips:5.1f}%" if rep is not None else f"{'none':>7} {'':>6}"
        )
        marg = (
            f"{best.margin_c:6.3f} {best.score.trip_reads:>2}/{reads.get(name, 0):<2}"
            if best
            else f"{'':>6} {'':>5}"
        )
        if c is None:
            out.append(f"  {name:<24} {res.bound_ips:7.2f} {rep_s} {marg}")
            continue
        shares = f"{c:8.2f} {100.0 * c / res.bound_ips:5.1f}% " + (
            f"{100.0 * c / rep:6.1f}%" if rep is not None else f"{'':>7}"
        )
        out.append(
            f"  {name:<24} {res.bound_ips:7.2f} {rep_s} {marg} {shares}  "
            + verdict(c, res.bound_ips, rep, target_pct)
        )
    return out
