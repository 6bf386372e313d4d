"""A stated constant judged on logs it was not chosen on: leave-one-log-out over a grid of values.

A profile constant that no data sheet gives (a benchmark's activity factor, ``workload_activity``)
may only be derived from the logs if the derivation survives a held-out check.  Choosing the value
that minimises the summed held-out RMSE of every log and then reporting that sum scores the value
on the logs that chose it.  Here each log in turn is left out, the value is chosen on the others
(the lowest summed RMSE over the grid), and the left-out log is scored at that value: the figure a
log the profile has never seen would get.  Compared with every log at the profile's own value, it
says whether the derived constant generalises (docs/calibration.md, *Twentieth session*).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class LooRow:
    """One left-out log: the value chosen on the others, its held-out RMSE there, and at the profile's."""

    log: str
    chosen: float
    rmse_c: float
    rmse_profile_c: float


def leave_one_out(rmse: Mapping[float, Mapping[str, float]], profile_value: float) -> list[LooRow]:
    """Per log, the grid value the other logs choose and the log's RMSE at it.

    ``rmse[value][log]`` is the log's held-out RMSE with the constant at ``value``; a log missing
    from a value's row, or with a non-finite RMSE there, makes that value ineligible for every
    fold (a fit that failed is not a low score).  Ties go to the value nearest ``profile_value``."""
    if profile_value not in rmse:
        raise ValueError(f"the profile's value {profile_value:g} is not in the grid")
    logs = sorted(rmse[profile_value])
    usable = [v for v, row in rmse.items() if all(math.isfinite(row.get(n, math.nan)) for n in logs)]
    out = []
    for log in logs:

        def others(v: float, left: str = log) -> tuple[float, float]:
            return sum(rmse[v][n] for n in logs if n != left), abs(v - profile_value)

        chosen = min(usable, key=others)
        out.append(LooRow(log, chosen, rmse[chosen][log], rmse[profile_value][log]))
    return out
