"""The causal targets block and its CSV: the candidate's share of every bound, tightest judged.

:mod:`.causal` builds the bounds; this prints them side by side per scenario, checks the 98 %
against the tightest one computed (:func:`.causal.tightest`: the causal open-ended bound where
the open-ended view ran) and writes one CSV row per scenario, so a reader sees what each
yardstick removes from the any-window bound's knowledge of the future.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from thermogov.exitstatus import writing
from thermogov.sim.compare.causal import Yardsticks, tightest

#: What each bound is a bound for (printed under the block, so a figure is never read as more).
CLASSES = {
    "anywindow": "every schedule (it knows the world's whole future)",
    "causal": "every schedule with the candidate's past before the event (run's end known)",
    "open": "every schedule on the world continued past its end (event instants known)",
    "causal_open": "every schedule with the candidate's past before the event, run's end unknown",
}

CSV_COLUMNS = (
    "scenario",
    "candidate",
    "event_s",
    "worst_ips",
    "anywindow_ips",
    "pct_anywindow",
    "causal_ips",
    "pct_causal",
    "open_worst_ips",
    "open_ips",
    "pct_open",
    "causal_open_ips",
    "pct_causal_open",
    "tightest",
    "pct_tightest",
)


def causal_lines(yards: dict[str, Yardsticks], candidate: str, target_pct: float) -> list[str]:
    """Per scenario the candidate's share of each bound and the verdict on the tightest."""
    out = [
        f"causal targets: {candidate}'s worst window as % of the any-window bound, the causal-history "
        f"bound (its past forced up to the first event), the open-ended bound and both at once; "
        f"{target_pct:g} % judged on the tightest computed"
    ]
    misses = []
    for scen, y in yards.items():
        s = y.shares()
        event = "no event" if y.event_s is None else f"event {y.event_s:g} s"
        parts = [
            f"{label} {_pct(s[key])} of {'n/a' if b is None else f'{b:.2f}'}"
            for key, label, b in (
                ("anywindow", "any-window", y.anywindow_ips),
                ("causal", "causal", y.causal_ips),
                ("open", "open-ended", y.open_ips),
                ("causal_open", "causal open-ended", y.causal_open_ips),
            )
        ]
        best = tightest(y)
        verdict = "n/a"
        if best is not None:
            ok = best[1] >= target_pct
            verdict = f"tightest ({best[0]}) {best[1]:.1f}%{'' if ok else ' MISS'}"
            if not ok:
                misses.append(scen)
        out.append(f"  {scen:<24} [{event}] " + "; ".join(parts) + f" | {verdict}")
    out.append(f"causal misses: {len(misses)}" + (f" ({', '.join(misses)})" if misses else ""))
    out.extend(f"  {k}: a bound on {v}" for k, v in CLASSES.items())
    return out


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1f}%"


def write_causal_csv(yards: dict[str, Yardsticks], candidate: str, path: Path) -> None:
    """One row per scenario: the candidate's worst windows, every bound and its share of each."""
    write_table(path, CSV_COLUMNS, ([scen, candidate, *yard_cells(y)] for scen, y in yards.items()))


def write_table(path: Path, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> None:
    """A CSV of ``columns`` and ``rows`` at ``path`` (its folder made; a failed write is exit 1)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with writing(path), path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(columns)
        w.writerows(rows)


def yard_cells(y: Yardsticks) -> list[str]:
    """The CSV cells of one :class:`Yardsticks` after the label columns (``event_s`` onwards)."""
    s = y.shares()
    best = tightest(y)
    return [
        *(_cell(v) for v in (y.event_s, y.worst_ips, y.anywindow_ips, s["anywindow"])),
        *(_cell(v) for v in (y.causal_ips, s["causal"], y.open_worst_ips, y.open_ips, s["open"])),
        *(_cell(v) for v in (y.causal_open_ips, s["causal_open"])),
        "" if best is None else best[0],
        "" if best is None else _cell(best[1]),
    ]


def causal_csv_path(csv_path: Path) -> Path:
    """Where the bench writes the causal rows beside its ``--csv`` (``rows.csv`` -> ``rows-causal.csv``)."""
    return csv_path.with_name(f"{csv_path.stem}-causal{csv_path.suffix or '.csv'}")


def _cell(v: float | None) -> str:
    return "" if v is None else f"{v:.6g}"
