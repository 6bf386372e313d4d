"""The bound's tightness where the candidate misses the 98 %: a real schedule found beside it.

Where the candidate's worst window is under the target share of the any-window bound, the miss
is either throughput the policy leaves or the bound's looseness (it may use foresight: when the
run ends, when a fan fails).  A schedule found by search (:mod:`.levelsearch`: fractional rungs
per segment, fixed before the run, held to the candidate's own trip readings) is a real
schedule, so the bound minus it is at most the looseness plus the search's miss, and the
candidate's share *of the schedule* is what a fixed plan with the same foresight as the bound
beat it by.  Both are printed beside the bound; the target itself stays judged on the bound
(``bench/control_quality.py --schedule-search``).
"""

from __future__ import annotations

from dataclasses import dataclass

from thermogov.config import Config
from thermogov.sim.compare.levelsearch import LevelResult, level_search


@dataclass(frozen=True, slots=True)
class Witness:
    scenario: str
    bound_ips: float
    candidate_ips: float
    reads_max: int  # the candidate's own trip readings, the schedule's limit
    found: LevelResult


def reads_of(above_trip_s: float, config: Config) -> int:
    """Control ticks a run's seconds above the trip stand for (the bench meters whole ticks)."""
    return round(above_trip_s * 1000.0 / config.governor.control_period_ms)


def misses(shares: dict[str, tuple[float | None, float | None]], target_pct: float) -> list[str]:
    """Scenarios whose (candidate worst window, any-window bound) share is under ``target_pct``."""
    return [s for s, (c, b) in shares.items() if c is not None and b and 100.0 * c / b < target_pct]


def find_witness(job: tuple[str, Config, float, float, int, float, int]) -> Witness:
    """One search (a process-pool job): scenario, world, bound, candidate, readings, segment, sweeps."""
    name, cfg, bound, cand, reads, segment_s, sweeps = job
    return Witness(name, bound, cand, reads, level_search(cfg, segment_s, reads, sweeps=sweeps))


def witness_lines(witnesses: list[Witness], candidate: str, target_pct: float, segment_s: float) -> list[str]:
    """The block the bench prints: per missed scenario, the bound, the schedule and both shares."""
    out = [
        f"tightness by search where {candidate} misses {target_pct:g} % of the any-window bound: the best "
        f"fixed schedule of fractional rungs found ({segment_s:g}-s segments, decided before the run, "
        f"held to {candidate}'s trip readings); the target stays judged on the bound",
        f"  {'scenario':<24} {'bound':>7} {'schedule':>8} {'/bound':>6} {candidate:>8} {'/bound':>6} "
        f"{'/sched':>6} {'reads':>5} {'runs':>4}",
    ]
    for w in witnesses:
        s = w.found.best
        within = s.trip_reads <= w.reads_max
        out.append(
            f"  {w.scenario:<24} {w.bound_ips:7.2f} {s.worst_ips:8.2f} {100.0 * s.worst_ips / w.bound_ips:5.1f}% "
            f"{w.candidate_ips:8.2f} {100.0 * w.candidate_ips / w.bound_ips:5.1f}% "
            f"{100.0 * w.candidate_ips / s.worst_ips:5.1f}% {s.trip_reads:>2}/{w.reads_max:<2} {w.found.runs:>4}"
            + ("" if within else "  (no level kept the readings: the schedule is the slowest, not a witness)")
        )
    return out
