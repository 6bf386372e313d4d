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

A profile names its input rail (``[board] input_rail``), or says the carrier has none
(``"none"``, a Jetson AGX Orin: its monitors meter the module's rails only) and which rails sum
to the power measured instead (``summed_rails``).  Then ``run``'s line, which could not be acted
on at every start of such a board (session 22b), is said only when a rail the profile names is
absent or unreadable (the tree is not the board the profile describes), and ``doctor`` says what
is measured instead and what it reads now.
"""

from __future__ import annotations

from thermogov.board import BoardProfile
from thermogov.hw.discovery import Inventory, PowerRail
from thermogov.hw.mapping import TOTAL_POWER_RAILS, BoardMap, input_rails
from thermogov.hw.railsum import zero_sum_why
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.telemetry import read_rail_w
from thermogov.interfaces import ThermogovError

# What a run loses without the rail (the trace's column, the ledger's, the policies' input).
LOST = "the trace's power_w, the run's energy_j and inferences_per_joule"


def _rails(inv: Inventory) -> list[PowerRail]:
    return [*(r for h in inv.hwmons for r in h.rails), *inv.iio_rails]


def _monitor_chips(inv: Inventory) -> list[str]:
    return [h.name for h in inv.hwmons if h.chip.strip().lower().startswith("ina")]


def _labels(rails: list[PowerRail]) -> str:
    return ", ".join(dict.fromkeys(f"{r.label} on {r.hwmon}" for r in rails))  # found order


def _summed(tree: SysfsTree, inv: Inventory, board: BoardProfile) -> tuple[str, float | None]:
    """Why a rail the profile sums gives nothing ("" when each reads), and the sum in W (None then)."""
    rails = _rails(inv)
    total = 0.0
    for label in board.summed_rails:
        found = [r for r in rails if r.label.upper() == label.upper()]
        if not found:
            unread = f"; a rail label could not be read: {inv.rail_problems[0]}" if inv.rail_problems else ""
            have = f" ({_labels(rails)})" if rails else ""
            why = f"rail {label}, one the {board.name} profile sums, is not among the power monitor's rails"
            return f"{why}{have}{unread}", None
        try:
            total += read_rail_w(tree, found[0])
        except ThermogovError as e:
            return f"rail {label}, one the {board.name} profile sums, cannot be read: {e}", None
    why = zero_sum_why(board.summed_rails, total)
    if why:
        return f"the rails the {board.name} profile sums read nothing: {why}", None
    return "", total


def summed_problem(tree: SysfsTree, inv: Inventory, board: BoardProfile) -> str:
    """Why the sum of the profile's ``summed_rails`` gives no power now ("" when it does)."""
    return _summed(tree, inv, board)[0]


def absent_rail(tree: SysfsTree, inv: Inventory, board: BoardProfile | None = None) -> str:
    """Why no input rail was mapped: one phrase naming the file or folder where it can be told.

    For a profile saying the board has no input-rail monitor, what is measured instead (the
    sum of its ``summed_rails``, read now) or why that sum cannot be read."""
    if board is not None and board.no_input_rail:
        why, total = _summed(tree, inv, board)
        if why or not board.summed_rails:
            return why or f"the {board.name} profile says this board has no input-rail monitor"
        return (
            f"the {board.name} profile says this board has no input-rail monitor; measured instead: "
            f"{' + '.join(board.summed_rails)} = {total:.3f} W now (the module's rails, not the carrier's "
            "input; the run's power_w)"
        )
    wanted = input_rails(board) if board is not None else TOTAL_POWER_RAILS
    names = "/".join(wanted)
    rails = _rails(inv)
    named = sorted(
        (r for r in rails if r.label.upper() in wanted), key=lambda r: wanted.index(r.label.upper())
    )
    if named:  # labelled, but neither a power input nor a voltage with its current beside it
        r = named[0]
        return f"rail {r.label} on {r.hwmon} has no power input and no voltage/current pair to read"
    if inv.rail_problems:
        return f"no {names} rail found; a rail label could not be read: {inv.rail_problems[0]}"
    if rails:
        return f"no {names} rail found among the power monitor's rails ({_labels(rails)})"
    chips = _monitor_chips(inv)
    if chips:
        where = tree.show(next(h.rel for h in inv.hwmons if h.name == chips[0]))
        return f"no {names} rail found: {where} ({chips[0]}, a power monitor) names no rail"
    return f"no {names} rail found"


def monitored(inv: Inventory) -> bool:
    """The board shows a power monitor (see the module's docstring): a missing rail is news."""
    return bool(_rails(inv) or inv.rail_problems or _monitor_chips(inv))


def absent_rail_warning(tree: SysfsTree, inv: Inventory, bmap: BoardMap) -> list[str]:
    """``run``'s one start line when the input rail is missing on a board with a power monitor,
    or, on a board whose profile says it has none, when a rail the profile sums is missing."""
    board = bmap.board
    if board.no_input_rail:
        why = _summed(tree, inv, board)[0]
        return (
            [f"warning: board power: {why}; check the profile (--board) and the monitor's driver"]
            if why
            else []
        )
    if bmap.power is not None or not monitored(inv):
        return []
    return [f"warning: board power: {absent_rail(tree, inv, board)}; {LOST} stay empty this run"]
