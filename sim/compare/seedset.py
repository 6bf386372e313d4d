"""Baselines tuned once over a set of seeds, as a user deploys them, and rows judged over seeds.

The ``@iso`` search of :mod:`thermogov.sim.compare.isolimit` tunes a kernel baseline on the very
scenario *and seed* it is then compared on.  The seed fixes the sensor noise, and on the Pi 5,
whose firmware holds the die within a sensor step or two of the trip, whether a trip just under
85 °C reads 85 °C once or three times in an hour is mostly that noise: a setting tuned on one
seed broke the bound on 3 of 4 other seeds (docs/policies.md, session 10).  A user tunes a
governor once and deploys that setting without knowing the noise of the run it will face.

So here one setting is tuned per baseline and scenario over the whole seed set: a probe keeps
the bound only if it keeps it on *every* seed (no more time above the trip than ``hysteresis``
on that seed, and no more at a hard limit), and among those the best is the one with the best
*mean worst window* over the seeds (the any-window score).  A probe stops at its first seed
that breaks the bound, and the seeds that broke earlier probes run first, so a failing probe
usually costs minutes of one run.  Every policy row, tuned or not, is then a set of per-seed
rows (:class:`SeedRows`) reported by its mean and spread.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thermogov.config import MAX_SEED, Config
from thermogov.sim.compare import isolimit
from thermogov.sim.compare.anywindow import worst_window_ips
from thermogov.sim.compare.compare import RunRow, run_policy, safe_name

#: Student's t at 97.5 % for 1-9 degrees of freedom (two-sided 95 % interval); standard tables.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262)
#: Most seeds one call may ask for (each costs a whole race).
MAX_SEEDS = 50


def parse_seeds(text: str) -> list[int]:
    """``"1-5"``, ``"1,3,7"`` or a mix (``"1-3,9"``) as a list of distinct seeds in order.

    Raises ValueError with a one-line message naming the fix on anything else: an empty list,
    a seed below 1 (0 is the simulator's own default elsewhere; a race's seeds count from 1),
    a non-integer, a reversed range.
    """
    fix = "give seeds >= 1 as a range or a comma list, e.g. --seeds 1-5 or --seeds 1,3,7"
    seeds: list[int] = []
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or not all(parts):
        raise ValueError(f"--seeds {text!r}: empty, or an empty item between commas; {fix}")
    for part in parts:
        lo_txt, sep, hi_txt = part.partition("-")
        try:
            lo = int(lo_txt)
            hi = int(hi_txt) if sep else lo
        except ValueError:
            raise ValueError(f"--seeds {text!r}: {part!r} is not a seed or a range; {fix}") from None
        if lo < 1 or hi < 1 or hi > MAX_SEED:
            raise ValueError(f"--seeds {text!r}: {part!r} is out of range 1..{MAX_SEED}; {fix}")
        if hi < lo:
            raise ValueError(f"--seeds {text!r}: range {part!r} is reversed; write {hi}-{lo}")
        seeds.extend(s for s in range(lo, hi + 1) if s not in seeds)
        if len(seeds) > MAX_SEEDS:
            raise ValueError(f"--seeds {text!r}: more than {MAX_SEEDS} seeds; {fix}")
    return seeds


def with_seed(config: Config, seed: int) -> Config:
    return dataclasses.replace(config, seed=seed)


@dataclass(frozen=True, slots=True)
class Spread:
    """Mean, extremes and a two-sided 95 % Student-t half-width (None with one value)."""

    mean: float
    low: float
    high: float
    half_width: float | None

    @staticmethod
    def of(values: Sequence[float]) -> Spread | None:
        vals = [float(v) for v in values]
        if not vals:
            return None
        n = len(vals)
        hw = None
        if n >= 2:
            t = _T975[n - 2] if n - 2 < len(_T975) else 1.96  # df = n - 1; normal beyond the table
            hw = t * statistics.stdev(vals) / math.sqrt(n)
        return Spread(statistics.fmean(vals), min(vals), max(vals), hw)

    def text(self, digits: int = 2) -> str:
        hw = "" if self.half_width is None else f" ±{self.half_width:.{digits}f}"
        return f"{self.mean:.{digits}f}{hw} [{self.low:.{digits}f}..{self.high:.{digits}f}]"


@dataclass
class SeedRows:
    """One policy (or tuned setting) on every seed of the set: its per-seed rows and scores."""

    scenario: str
    policy: str
    rows: dict[int, RunRow] = field(default_factory=dict)
    #: Worst window (inf/s) per seed, None where the run was stopped or too short.
    worst: dict[int, float | None] = field(default_factory=dict)
    #: Tuned rows only: the setting chosen, as ``trip=..,k=v``, and how many settings were probed.
    setting: str | None = None
    trip_c: float | None = None
    params: dict[str, Any] = field(default_factory=dict)
    probes: int | None = None
    #: Tuned rows only: False when no setting kept the bound on every seed.
    met: bool = True
    #: Tuned rows only: every probe simulated, in order, and what became of it.
    log: list[str] = field(default_factory=list)

    def steady(self) -> Spread | None:
        return Spread.of([r.sustained_ips for r in self.rows.values() if r.sustained_ips is not None])

    def worst_spread(self) -> Spread | None:
        return Spread.of([w for w in self.worst.values() if w is not None])

    def above_s(self) -> dict[int, float]:
        return {s: r.above_trip_s for s, r in self.rows.items()}

    def limit_s(self) -> dict[int, float]:
        return {s: r.hard_limit_s for s, r in self.rows.items()}


@dataclass(frozen=True, slots=True)
class Bounds:
    """Per seed, the seconds above the trip and at a hard limit a baseline may spend."""

    above_s: dict[int, float]
    limit_s: dict[int, float]

    @staticmethod
    def from_hysteresis(hyst: SeedRows | None, seeds: Sequence[int]) -> Bounds:
        if hyst is None:
            return Bounds({s: isolimit.DEFAULT_BOUND_S for s in seeds}, {s: 0.0 for s in seeds})
        return Bounds(
            {s: hyst.rows[s].above_trip_s for s in seeds}, {s: hyst.rows[s].hard_limit_s for s in seeds}
        )


@dataclass
class SetProbe:
    """A setting run over the seed set, shaped for :func:`isolimit.search` (bound 0 on both).

    ``above_trip_s`` / ``hard_limit_s`` are the worst *excess* over any seed's own bound (0 when
    it kept every one), ``sustained_ips`` the mean worst window over the seeds: the search keeps
    only probes that kept the bound on every seed and picks the best by that score.
    """

    runs: dict[int, RunRow]
    worst: dict[int, float | None]
    above_trip_s: float
    hard_limit_s: float
    sustained_ips: float | None
    stopped: bool


def run_set(
    run: Callable[[int], RunRow],
    seeds: Sequence[int],
    bounds: Bounds,
    score: Callable[[int, RunRow], float | None],
) -> SetProbe:
    """Run one setting on ``seeds`` in order, stopping at the first seed that breaks its bound.

    ``run(seed)`` simulates the setting on that seed (it may stop early itself);
    ``score(seed, row)`` is the row's worst window.
    """
    runs: dict[int, RunRow] = {}
    worst: dict[int, float | None] = {}
    above = limit = 0.0
    for s in seeds:
        row = run(s)
        runs[s] = row
        above = max(above, row.above_trip_s - bounds.above_s[s])
        limit = max(limit, row.hard_limit_s - bounds.limit_s[s])
        kept = isolimit.passes(row, bounds.above_s[s], bounds.limit_s[s])
        worst[s] = score(s, row) if kept else None
        if not kept or worst[s] is None:
            # Broke the bound (or left no whole run to score): later seeds cannot rescue it.
            return SetProbe(runs, worst, max(above, 1e-3), limit, None, True)
    scores = [w for w in worst.values() if w is not None]
    return SetProbe(runs, worst, max(above, 0.0), max(limit, 0.0), statistics.fmean(scores), False)


def tune_over_seeds(
    config: Config,
    policy: str,
    seeds: Sequence[int],
    bounds: Bounds,
    out_dir: Path,
    label: str,
    plain: SeedRows | None = None,
) -> SeedRows:
    """``policy`` tuned once over ``seeds`` at the iso limit, as a ``<policy>@iso`` :class:`SeedRows`.

    Each probe runs under ``out_dir/seed-<s>/<policy>-iso-<n>``, stopping as soon as it
    passes that seed's bound.  ``plain`` (the untuned policy on every seed, when its trip is the
    grid's top) stands in for the 85 °C probe.
    """
    failures = {s: 0 for s in seeds}
    count = [0]
    log: list[str] = []

    def score(seed: int, row: RunRow) -> float | None:
        return worst_window_ips(with_seed(config, seed), Path(row.run_dir)) if row.run_dir else None

    def probe(trip_c: float, knobs: dict[str, Any]) -> SetProbe:
        cfg = isolimit.with_knobs(config, policy, trip_c, knobs)
        count[0] += 1
        n = count[0]
        order = sorted(seeds, key=lambda s: -failures[s])  # the seeds that broke probes before first

        def run(seed: int) -> RunRow:
            return run_policy(
                with_seed(cfg, seed),
                policy,
                out_dir / f"seed-{seed}",
                None,
                label,
                f"{safe_name(policy)}-iso-{n}",
                stop_above_s=bounds.above_s[seed],
                stop_limit_s=bounds.limit_s[seed],
            )

        res = run_set(run, order, bounds, score)
        text = ",".join([f"trip={trip_c:g}", *(f"{k}={v}" for k, v in sorted(knobs.items()))])
        if res.stopped:
            bad = list(res.runs)[-1]
            failures[bad] += 1
            row = res.runs[bad]
            log.append(
                f"{text}: broke seed {bad} ({row.above_trip_s:g} s above the trip, {row.hard_limit_s:g} s at a "
                f"limit; bound {bounds.above_s[bad]:g} / {bounds.limit_s[bad]:g})"
            )
        else:
            log.append(f"{text}: kept every seed, mean worst {res.sustained_ips:.3f}")
        return res

    cache: dict[float, Any] = {}
    if plain is not None and isolimit.current_trip(config, policy) == isolimit.HIGH_C:
        top = cache[isolimit.HIGH_C] = run_set(lambda s: plain.rows[s], seeds, bounds, score)
        bad = [s for s, r in top.runs.items() if not isolimit.passes(r, bounds.above_s[s], bounds.limit_s[s])]
        log.append(
            f"trip={isolimit.HIGH_C:g} (the plain runs): "
            + (f"broke seed {bad[0]}" if bad else "kept every seed")
        )
    res = isolimit.search(probe, policy, config, config.load_board(), 0.0, 0.0, cache=cache)
    setting = ",".join([f"trip={res.trip_c:g}", *(f"{k}={v}" for k, v in sorted(res.params.items()))])
    out = SeedRows(
        label,
        isolimit.iso_label(policy),
        setting=setting,
        trip_c=res.trip_c,
        params=dict(res.params),
        probes=len(res.probes),
        met=res.met,
        log=log,
    )
    chosen: SetProbe = res.row
    if res.met:
        out.rows, out.worst = dict(chosen.runs), dict(chosen.worst)
        return out
    # Nothing kept the bound on every seed: show the lowest trip's whole runs, marked missed.
    cfg = isolimit.with_knobs(config, policy, res.trip_c, res.params)
    for s in seeds:
        row = run_policy(
            with_seed(cfg, s), policy, out_dir / f"seed-{s}", None, label, f"{safe_name(policy)}-iso-missed"
        )
        out.rows[s], out.worst[s] = row, score(s, row)
    return out


def plain_rows(config: Config, policy: str, seeds: Sequence[int], out_dir: Path, label: str) -> SeedRows:
    """``policy`` as configured, on every seed (run folders under ``out_dir/seed-<s>/``)."""
    out = SeedRows(label, policy)
    for s in seeds:
        cfg = with_seed(config, s)
        row = run_policy(cfg, policy, out_dir / f"seed-{s}", None, label)
        out.rows[s] = row
        out.worst[s] = worst_window_ips(cfg, Path(row.run_dir)) if row.run_dir else None
    return out


__all__ = [
    "MAX_SEEDS",
    "Bounds",
    "SeedRows",
    "SetProbe",
    "Spread",
    "parse_seeds",
    "plain_rows",
    "run_set",
    "tune_over_seeds",
    "with_seed",
]
