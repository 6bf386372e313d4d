"""The seed-set race as CSV: one line per view, scenario, row and seed, bound and reference beside.

``bench/control_quality.py --seeds ... --csv PATH`` printed its race only; a figure read from a
terminal is copied by hand.  Each line carries the row's worst window and the two yardsticks the
report reads it against on that seed: the any-window bound and the *readable* reference (the
any-window oracle at the readable trip, :mod:`thermogov.sim.compare.readable`; a reference, not
a bound), with the row's share of each.  The per-row mean and spread are the report's
(:mod:`thermogov.sim.compare.seedrace`); the CSV keeps the seeds so that any statistic can be
taken again.  Empty where there is no figure (an open load has no bound, a stopped run no window).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from thermogov.exitstatus import writing
from thermogov.sim.compare.seedrace import Block

COLUMNS = (
    "view",
    "scenario",
    "policy",
    "seed",
    "setting",
    "worst_ips",
    "sustained_ips",
    "above_trip_s",
    "hard_limit_s",
    "anywindow_ips",
    "pct_anywindow",
    "readable_ips",
    "pct_readable",
)


def _pct(v: float | None, ref: float | None) -> float | None:
    return None if v is None or not ref else 100.0 * v / ref


def seed_csv_rows(blocks: dict[str, Block], view: str) -> list[dict[str, object]]:
    """Every row of every scenario of one view, seed by seed, with its bound and reference."""
    out: list[dict[str, object]] = []
    for scen, (rows, bound, readable) in blocks.items():
        for name, r in rows.items():
            for seed in sorted(r.rows):
                row, worst = r.rows[seed], r.worst.get(seed)
                b, ref = bound.get(seed), readable.get(seed)
                out.append(
                    {
                        "view": view,
                        "scenario": scen,
                        "policy": name,
                        "seed": seed,
                        "setting": r.setting or "",
                        "worst_ips": worst,
                        "sustained_ips": row.sustained_ips,
                        "above_trip_s": row.above_trip_s,
                        "hard_limit_s": row.hard_limit_s,
                        "anywindow_ips": b,
                        "pct_anywindow": _pct(worst, b),
                        "readable_ips": ref,
                        "pct_readable": _pct(worst, ref),
                    }
                )
    return out


def _cell(v: object) -> object:
    """Empty for a missing figure, a float to 4 decimals as the bench's rows CSV writes it."""
    if v is None:
        return ""
    return round(v, 4) if isinstance(v, float) else v


def write_seed_csv(rows: Iterable[dict[str, object]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with writing(path), path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow([_cell(r.get(c)) for c in COLUMNS])


__all__ = ["COLUMNS", "seed_csv_rows", "write_seed_csv"]
