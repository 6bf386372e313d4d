"""Why the board has no input rail to read, in one phrase for ``doctor`` and ``run`` alike.

The board's input rail (``VDD_IN``, a Jetson Nano's ``POM_5V_IN``: ``hw/mapping.py``
``TOTAL_POWER_RAILS``) is the trace's ``power_w``, the run ledger's ``energy_j`` and
``inferences_per_joule`` and a power-aware policy's input.  ``doctor`` said when it was not
found; ``run`` said nothing, so a run on a board whose input rail's label failed to read (EIO,
session 21c) or whose monitor names other rails only ended with no power figures and no one
told (safe21c's leftover).  One phrase here, so both commands say the same thing.

``run`` says it only where a power monitor shows (a rail of another name, a rail label that
failed to read, or a chip of the INA family, drivers/hwmon/ina*.c, the monitors Jetson carriers
carry): a board with no power monitor at all (a Raspberry Pi) has no input rail to miss, and a
line at every start there would say nothing the user can act on; ``doctor`` still shows it.
"""

from __future__ import annotations

from thermogov.hw.discovery import Inventory, PowerRail
from thermogov.hw.mapping import TOTAL_POWER_RAILS, BoardMap
from thermogov.hw.sysfs import SysfsTree

# What a run loses without the rail (the trace's column, the ledger's, the policies' input).
LOST = "the trace's power_w, the run's energy_j and inferences_per_joule"


def _rails(inv: Inventory) -> list[PowerRail]:
    return [*(r for h in inv.hwmons for r in h.rails), *inv.iio_rails]


def _monitor_chips(inv: Inventory) -> list[str]:
    return [h.name for h in inv.hwmons if h.chip.strip().lower().startswith("ina")]


def absent_rail(tree: SysfsTree, inv: Inventory) -> str:
    """Why no input rail was mapped: one phrase naming the file or folder where it can be told."""
    names = "/".join(TOTAL_POWER_RAILS)
    rails = _rails(inv)
    named = [r for r in rails if r.label.upper() in TOTAL_POWER_RAILS]
    if named:  # labelled, but neither a power input nor a voltage with its current beside it
        r = named[0]
        return f"rail {r.label} on {r.hwmon} has no power input and no voltage/current pair to read"
    if inv.rail_problems:
        return f"no {names} rail found; a rail label could not be read: {inv.rail_problems[0]}"
    if rails:
        labels = ", ".join(dict.fromkeys(f"{r.label} on {r.hwmon}" for r in rails))  # found order
        return f"no {names} rail found among the power monitor's rails ({labels})"
    chips = _monitor_chips(inv)
    if chips:
        where = tree.show(next(h.rel for h in inv.hwmons if h.name == chips[0]))
        return f"no {names} rail found: {where} ({chips[0]}, a power monitor) names no rail"
    return f"no {names} rail found"


def monitored(inv: Inventory) -> bool:
    """The board shows a power monitor (see the module's docstring): a missing rail is news."""
    return bool(_rails(inv) or inv.rail_problems or _monitor_chips(inv))


def absent_rail_warning(tree: SysfsTree, inv: Inventory, bmap: BoardMap) -> list[str]:
    """``run``'s one start line when the input rail is missing on a board with a power monitor."""
    if bmap.power is not None or not monitored(inv):
        return []
    return [f"warning: board power: {absent_rail(tree, inv)}; {LOST} stay empty this run"]
