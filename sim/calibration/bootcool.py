"""A training part that opens while the board still cools from its boot may not set the start.

The fit starts a log in the idle steady state of its first input (or the load history's state,
:mod:`history`) plus an offset along the slowest mode, fitted to the training readings.  Some
sbc-bench reports start minutes after a boot that ran the board harder than the benchmark's
first phase does (Pi 4 3InF and 3VME, up 3-4 minutes): their training readings fall at a steady
one-core load, 49.2 -> 46.3 °C in 240 s, a decay of about 100 s (docs/calibration.md,
*Fourteenth session: the start state*).  No mode of the network is that fast and that
strong, so the fit reads the decay as a warm start along the slowest mode (675 s on a Pi 4)
and carries it, with a lowered ``static_scale``, into the held-out part: 1.8-2.6 K too cool
there.  The training readings of such a log show the boot's heat leaving, not where this
board starts relative to its model, so they may fit the gains but not the start: the offsets
are held at 0 (the steady state of the first input).

The log says so before its first reading.  The kernel's 1, 5 and 15 minute load averages are
exponentially damped averages of the runnable tasks, counted from 0 at boot
(``kernel/sched/loadavg.c``, :mod:`history`).  On a board up less than :data:`BOOT_WINDOW_S`
(the 15-minute average's window: every average then counts from the boot), a 5-minute average
above the 1-minute one by :data:`BUSY_LOAD` or more says the boot ran busier than the last
minute before the log, and has stopped.  :data:`BUSY_LOAD` is sbc-bench's own line for "too
much background activity": its ``CheckLoad`` waits until the 1-minute average falls below 0.1
before benchmarking (github.com/ThomasKaiser/sbc-bench, ``sbc-bench.sh``, ``CheckLoad`` /
``CheckLoadAndDmesg``), so a fall of that size is activity sbc-bench itself waited out.
A board warming from a cold boot (the averages near 0 and rising, or the last minute the
busiest) keeps its fitted start: :mod:`coldstart` is for that case.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from thermogov.sim.calibration.model import ParamSpec

if TYPE_CHECKING:
    from thermogov.sim.calibration.data import LogData
    from thermogov.sim.calibration.fit import FitProblem

BOOT_WINDOW_S = 900.0  # the 15-minute load average's time constant (kernel/sched/loadavg.c, EXP_15)
BUSY_LOAD = 0.1  # sbc-bench CheckLoad: a 1-minute load average of 0.1 or more is background activity


def cooling_from_boot(data: LogData) -> bool:
    """Whether the log starts within :data:`BOOT_WINDOW_S` of a boot busier than its last minute."""
    up, avg = data.uptime_s, data.load_average
    if up is None or avg is None or not math.isfinite(up) or not all(math.isfinite(v) for v in avg):
        return False
    return 0.0 <= up < BOOT_WINDOW_S and avg[1] - avg[0] >= BUSY_LOAD


def start_held(prob: FitProblem) -> list[ParamSpec]:
    """``prob.specs`` with the start's offsets held at 0 on a held-out fit of a boot-cooling log.

    A whole-log fit (the fleet's) keeps its offset: there the start trades against the gains it
    pools, the reason :func:`coldstart.start_reaches_room` gives for leaving it alone too."""
    if prob.train.all() or not cooling_from_boot(prob.data):
        return prob.specs
    return [
        dataclasses.replace(s, fixed=True) if s.kind in ("offset", "fast_offset") else s for s in prob.specs
    ]


def start_note(data: LogData) -> str:
    """The note a fit with the start held carries."""
    up, avg = data.uptime_s, data.load_average
    assert up is not None and avg is not None
    return (
        f"booted {up / 60:.0f} min before the log, busier before its last minute (load averages "
        f"{avg[0]:.2f}, {avg[1]:.2f}, {avg[2]:.2f}): the training readings show the boot's heat leaving, "
        "so they fit the gains but not the start; initial offset held at 0 (sim/calibration/bootcool.py)"
    )
