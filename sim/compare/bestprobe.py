"""A tuned baseline judged by its worst window: the best probe of its search on that score.

:func:`thermogov.sim.compare.isolimit.search` picks the setting with the most throughput in the
steady window (the run's last part).  The any-window race scores every policy by its *worst*
window instead, and there a careful user tuning the baseline would pick the probe best on that
score, which need not be the same one (a low trip banks heat for the last window and pays in an
earlier one).  So the baseline is given the best worst window among every probe that kept the
bound, whichever the search reported.

Which probes kept it needs no bookkeeping: a probe that breaks the bound is stopped and its
half-written folder removed (:func:`thermogov.sim.compare.compare.run_policy`), so every finished
``<policy>-iso-<n>`` folder beside the reported row kept it.  The reported row counts when it
kept its bound (it may be the plain run, reused for the grid's top), and so does the plain run
when it is the search's 85 °C probe and kept it.
"""

from __future__ import annotations

from pathlib import Path

from thermogov.config import Config
from thermogov.sim.compare import isolimit
from thermogov.sim.compare.anywindow import worst_window_ips
from thermogov.sim.compare.compare import RunRow, safe_name


def kept(row: RunRow) -> bool:
    """An ``@iso`` row that kept its bound (a ``trip!`` row, where nothing held, did not)."""
    return row.iso_bound_s is not None and row.above_trip_s <= row.iso_bound_s + 1e-9 and not row.stopped


def probe_dirs(config: Config, block: dict[str, RunRow], policy: str) -> list[Path]:
    """The run folders of every probe of ``policy@iso``'s search on ``block``'s scenario that kept the bound.

    ``block`` maps policy labels to the rows of one scenario (``hysteresis`` there gives the
    hard-limit bound for the plain run).
    """
    row = block.get(isolimit.iso_label(policy))
    if row is None or not row.run_dir:
        return []
    dirs = [Path(row.run_dir)] if kept(row) else []
    plain, hyst = block.get(policy), block.get("hysteresis")
    limit_s = hyst.hard_limit_s if hyst is not None else 0.0
    if (
        plain is not None
        and plain.run_dir
        and isolimit.current_trip(config, policy) == isolimit.HIGH_C
        and isolimit.passes(plain, row.iso_bound_s or 0.0, limit_s)
    ):
        dirs.append(Path(plain.run_dir))
    prefix = safe_name(policy) + "-iso-"
    for d in sorted(Path(row.run_dir).parent.glob(prefix + "*")):
        if d.name[len(prefix) :].isdigit() and d not in dirs:
            dirs.append(d)
    return [d for d in dirs if (d / "trace.csv").is_file()]


def best_probe_worst(config: Config, block: dict[str, RunRow], policy: str) -> float | None:
    """``policy@iso``'s best worst window over the probes of :func:`probe_dirs` (None: none kept it)."""
    found = [
        w for d in probe_dirs(config, block, policy) for w in [worst_window_ips(config, d)] if w is not None
    ]
    return max(found) if found else None


__all__ = ["best_probe_worst", "kept", "probe_dirs"]
