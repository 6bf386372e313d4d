"""The board's power on a board with no input-rail monitor: the sum of the rails its profile names.

A Jetson AGX Orin's INA3221s meter the module's rails (VDD_GPU_SOC, VDD_CPU_CV, VIN_SYS_5V0),
no carrier input; its profile says ``input_rail = "none"`` and ``summed_rails`` (session 22b).
Their sum is what the trace's ``power_w``, the ledger's ``energy_j`` and a power-aware policy get
there (session 22d), named as a sum in the run's summary (``power_summed_rails``), never as the
input.  The sum is all the rails or nothing: a rail that fails at a tick (EIO, a reading out of
its range) makes that tick's power unknown, never a partial sum passed off as the whole.

The sum costs two files per rail (voltage and current): read every 100 ms tick it was 60 file
reads a second on an AGX Orin, for consumers that need it once a second (session 22's review,
mended in 23a): the trace row and the ledger's energy take the last value read, the settled model of
``stepped`` updates once a second (``UPDATE_S``).  Only a ``[power]`` budget integrates power
every tick (:class:`thermogov.budget.BudgetController`): while one applies the sum is read
every tick, else once a second, the rows in between carrying the last sum read (a held value,
docs/trace-format.md).  Since session 24b the same rule (hw/powerread.py) decides for an input
rail too, and counts only a budget that applies in the current power state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from thermogov.hw.discovery import PowerRail
from thermogov.hw.railwatch import RailWatch
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.telemetry import rail_files, rail_max_w, rail_reader
from thermogov.interfaces import SensorError


def summed_label(rails: Sequence[PowerRail]) -> str:
    """``VDD_GPU_SOC+VDD_CPU_CV+VIN_SYS_5V0``: the sum's name in messages."""
    return "+".join(r.label for r in rails)


def summed_files(tree: SysfsTree, rails: Sequence[PowerRail]) -> str:
    """The rails' files as the board shows them, for messages."""
    return ", ".join(rail_files(tree, r) for r in rails)


def summed_max_w(rails: Sequence[PowerRail]) -> float:
    """The most the sum can plausibly read: the sum of each rail's bound (telemetry.rail_max_w)."""
    return sum(rail_max_w(r) for r in rails)


def zero_sum_why(labels: Sequence[str], total: float) -> str:
    """Why a sum is no power a running module draws ("" when it is one).

    Each rail alone may read 0 (an idle CV engine), but a running module always draws on its
    SoC and 5 V rails: every rail at 0 is a monitor that measures nothing (channels disabled, no
    shunt value), as an input rail reading 0 W is (telemetry.implausible_why).  Before (session
    30t) such a sum went into power_w and energy_j as 0.00 W."""
    if total > 0.0:
        return ""
    return f"{' + '.join(labels)} = {total:.2f} W: every rail reads 0, no power a running module draws"


def summed_reader(tree: SysfsTree, rails: Sequence[PowerRail]) -> Callable[[], float]:
    """The rails' sum in W as a function (each rail's readers made once); raises SensorError
    naming the rail's file(s) when one gives no value or one outside 0..its bound (an idle
    rail may read 0; one reading more than its chip's full scale is a wrong file)."""
    reads = [(rail_reader(tree, r), rail_max_w(r), r) for r in rails]

    def read() -> float:
        total = 0.0
        for fn, top, rail in reads:
            w = fn()
            if not 0.0 <= w <= top:
                raise SensorError(
                    f"{rail_files(tree, rail)}: {w:.2f} W is no power for {rail.label} "
                    f"(expected 0 to {top:g} W)"
                )
            total += w
        why = zero_sum_why([r.label for r in rails], total)
        if why:
            raise SensorError(f"{summed_files(tree, rails)}: {why}")
        return total

    return read


def summed_summary(rails: Sequence[PowerRail]) -> dict[str, Any]:
    """The run summary's note that ``power_w`` is a sum of named rails, not the board's input."""
    if not rails:
        return {}
    return {
        "power_summed_rails": [r.label for r in rails],
        "power_source": f"sum of {' + '.join(r.label for r in rails)} (the module's rails, not the board's input)",
    }


def rail_watch(
    tree: SysfsTree,
    rail: PowerRail | None,
    summed: Sequence[PowerRail],
    log: Callable[[str], None],
    clock: Callable[[], float],
) -> RailWatch | None:
    """The watch of what ``power_w`` is read from (the input rail, else the summed rails)."""
    if rail is not None:
        return RailWatch(rail.label, rail_files(tree, rail), log, clock)
    if summed:
        return RailWatch(summed_label(summed), summed_files(tree, summed), log, clock)
    return None
