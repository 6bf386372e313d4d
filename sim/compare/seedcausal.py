"""The causal targets over a seed set: each seed judged on the tightest bound its own past allows.

The single-seed bench judges the 98 % on the tightest bound a causal candidate is held to
(:func:`.causal.tightest`: the causal open-ended bound on a world with an event, the open-ended
one without).  The seed race (:mod:`.seedrace`, ``--seeds``) and ``bench/stepped_seeds.py``
judged the any-window bound only.  Here each seed gets its own :class:`.causal.Yardsticks`:

* the any-window bound is the race's own per seed (the world's random draws differ by seed);
* the causal bound forces *that seed's* candidate run's past before the event
  (:func:`.causal.causal_bound`), since each seed's run has its own past;
* the open-ended and causal open-ended ones come from the race's open-ended view (the same
  seeds on the world continued past its end, the candidate run there).

The targets are read as the seed report reads the any-window bound: the candidate's share of
its tightest bound **per seed**, shown as the mean over the seeds with a 95 % t half-width and
extremes, and judged per seed: a MISS names every seed under 98 % (the mean is never judged,
so a good seed does not pay for a bad one).  The tightest bound is chosen per seed, so a seed
whose open-ended run was stopped falls back to its run's-end bound and says so.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from thermogov.config import Config
from thermogov.sim.compare.causal import Yardsticks, causal_bound, event_instant_s, tightest
from thermogov.sim.compare.causalview import CLASSES, CSV_COLUMNS, write_table, yard_cells
from thermogov.sim.compare.seedset import SeedRows, Spread, with_seed
from thermogov.sim.sweep.executors import pool_context

#: One label's (scenario's, or variant's) yardsticks per seed.
SeedYards = dict[int, Yardsticks]

#: The per-seed CSV: the seed after the candidate, then the single-seed block's columns.
SEED_CSV_COLUMNS = (*CSV_COLUMNS[:2], "seed", *CSV_COLUMNS[2:])


def _causal_job(job: tuple[Config, Path]) -> float | None:
    return causal_bound(*job)


def causal_per_seed(
    config: Config, cand: SeedRows | None, bound: dict[int, float | None], jobs: list[tuple[Config, Path]]
) -> list[int]:
    """Queue (in ``jobs``) the causal solve of each seed's candidate run; returns those seeds.

    Only where the world has an event, a bound and a finished run (else the causal bound is the
    any-window one, or nothing): the seeds in the order their jobs were appended.
    """
    if cand is None or event_instant_s(config) is None:
        return []
    queued = []
    for s, row in sorted(cand.rows.items()):
        if bound.get(s) is not None and row.run_dir and row.sustained_ips is not None and not row.stopped:
            jobs.append((with_seed(config, s), Path(row.run_dir)))
            queued.append(s)
    return queued


def seed_yardsticks(
    config: Config,
    end: tuple[SeedRows | None, dict[int, float | None]],
    open_view: tuple[Config, SeedRows | None, dict[int, float | None]] | None,
    jobs: int = 1,
) -> SeedYards:
    """Per seed the candidate's worst windows and every bound beside them (one label).

    ``end`` is the candidate's rows at the run's end and the any-window bound per seed;
    ``open_view`` the same on the longer world (its config first), or None where that view was
    skipped.  The causal bounds of both views are solved here, ``jobs`` at a time.
    """
    return many_seed_yardsticks({"": (config, end, open_view)}, jobs)[""]


def many_seed_yardsticks(
    views: dict[
        str,
        tuple[
            Config,
            tuple[SeedRows | None, dict[int, float | None]],
            tuple[Config, SeedRows | None, dict[int, float | None]] | None,
        ],
    ],
    jobs: int = 1,
) -> dict[str, SeedYards]:
    """:func:`seed_yardsticks` for several labels, every causal solve in one pool."""
    todo: list[tuple[Config, Path]] = []
    where: list[tuple[str, str, int]] = []
    for label, (cfg, (cand, bound), open_view) in views.items():
        where += [(label, "end", s) for s in causal_per_seed(cfg, cand, bound, todo)]
        if open_view is not None:
            ocfg, ocand, obound = open_view
            where += [(label, "open", s) for s in causal_per_seed(ocfg, ocand, obound, todo)]
    with ProcessPoolExecutor(max(jobs, 1), mp_context=pool_context()) as ex:
        solved = list(ex.map(_causal_job, todo)) if todo else []
    causal = {key: v for key, v in zip(where, solved, strict=True)}
    out: dict[str, SeedYards] = {}
    for label, (cfg, (cand, bound), open_view) in views.items():
        event = event_instant_s(cfg)
        ocand, obound = (open_view[1], open_view[2]) if open_view is not None else (None, {})
        per: SeedYards = {}
        for s in sorted(bound):
            per[s] = Yardsticks(
                event_s=event,
                worst_ips=None if cand is None else cand.worst.get(s),
                anywindow_ips=bound.get(s),
                causal_ips=causal.get((label, "end", s)),
                open_worst_ips=None if ocand is None else ocand.worst.get(s),
                open_ips=obound.get(s),
                causal_open_ips=causal.get((label, "open", s)),
            )
        out[label] = per
    return out


#: Each bound's value in a :class:`.causal.Yardsticks`, by the name :func:`.causal.tightest` gives.
_BOUND = {
    "anywindow": lambda y: y.anywindow_ips,
    "causal": lambda y: y.causal_ips,
    "open": lambda y: y.open_ips,
    "causal_open": lambda y: y.causal_open_ips,
}


def seed_causal_lines(yards: dict[str, SeedYards], candidate: str, target_pct: float) -> list[str]:
    """Per label the candidate's share of its tightest bound per seed, judged seed by seed."""
    out = [
        f"causal targets over the seeds: {candidate}'s worst window as % of the tightest bound computed "
        f"on each seed (its own past forced up to the first event; the open-ended view's where it ran); "
        f"mean ±95% t half-width [min..max] over the seeds, {target_pct:g} % judged per seed"
    ]
    missed: list[str] = []
    for label, per in yards.items():
        best = {s: tightest(y) for s, y in per.items()}
        judged = {s: b for s, b in best.items() if b is not None}
        event = next((y.event_s for y in per.values()), None)
        head = f"  {label:<24} [{'no event' if event is None else f'event {event:g} s'}]"
        if not judged:
            out.append(f"{head} n/a (no bound: an open load, or no finished run)")
            continue
        share = Spread.of([v for _, v in judged.values()])
        assert share is not None
        names = sorted({n for n, _ in judged.values()})
        bad = [s for s, (_, v) in judged.items() if v < target_pct]
        seeds = " ".join(
            f"{s}:{'n/a' if b is None else f'{b[1]:.1f}%'}{'' if b is None or b[0] == names[0] else f'({b[0]})'}"
            for s, b in best.items()
        )
        values = Spread.of([v for s, (n, _) in judged.items() if (v := _BOUND[n](per[s])) is not None])
        any_share = Spread.of([v for y in per.values() if (v := y.shares()["anywindow"]) is not None])
        of = "" if values is None else f" of {values.text(2)} inf/s"
        text = f"{head} tightest ({'/'.join(names)}) {share.text(1)}{of}; per seed {seeds}" + (
            f"; any-window {any_share.text(1)}" if any_share is not None else ""
        )
        if bad:
            text += f" | MISS on seed {','.join(map(str, bad))}"
            missed.append(f"{label} seed {','.join(map(str, bad))}")
        out.append(text)
    out.append(f"causal misses: {len(missed)}" + (f" ({'; '.join(missed)})" if missed else ""))
    out.extend(f"  {k}: a bound on {v}" for k, v in CLASSES.items())
    return out


def write_seed_causal_csv(yards: dict[str, SeedYards], candidate: str, path: Path) -> None:
    """One row per label and seed: worst windows, every bound, the shares and the tightest."""
    rows = ([label, candidate, s, *yard_cells(y)] for label, per in yards.items() for s, y in per.items())
    write_table(path, SEED_CSV_COLUMNS, rows)


def misses(yards: dict[str, SeedYards], target_pct: float) -> dict[str, list[int]]:
    """Per label the seeds whose tightest share is under ``target_pct`` (labels with none left out)."""
    out: dict[str, list[int]] = {}
    for label, per in yards.items():
        bad = [s for s, y in per.items() if (b := tightest(y)) is not None and b[1] < target_pct]
        if bad:
            out[label] = bad
    return out


__all__ = [
    "SEED_CSV_COLUMNS",
    "SeedYards",
    "causal_per_seed",
    "many_seed_yardsticks",
    "misses",
    "seed_causal_lines",
    "seed_yardsticks",
    "write_seed_causal_csv",
]
