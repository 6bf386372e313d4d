"""Board power and inference count for the trace: the hardware side of ``Telemetry``.

Power comes from the board's INA3221 input rail (``VDD_IN`` on Orin Nano/NX and Xavier NX,
``POM_5V_IN`` on Nano): ``powerN_input`` in µW when the driver offers it, else
``inN_input`` mV × ``currN_input`` mA.  Boards without such a rail report ``None`` (unknown),
never 0 W.  The governor asks for power twice per tick (policy input and trace row), so the
value is read once per tick: :meth:`HwTelemetry.new_tick` marks the tick boundary.
"""

from __future__ import annotations

from collections.abc import Callable

from thermogov.governor import Telemetry
from thermogov.hw.discovery import PowerRail
from thermogov.hw.power import PowerSupplyReader
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import PowerStatus, SensorError


def read_rail_w(tree: SysfsTree, rail: PowerRail) -> float:
    """Watts on one rail; raises SensorError when the chip gives no usable value."""
    if rail.power_rel:
        return tree.read_int(rail.power_rel) / 1e6
    if rail.volt_rel and rail.curr_rel:
        return tree.read_int(rail.volt_rel) * tree.read_int(rail.curr_rel) / 1e6
    raise SensorError(f"rail {rail.label} on {rail.hwmon}: no power or voltage/current input")


def rail_reader(tree: SysfsTree, rail: PowerRail) -> Callable[[], float]:
    """:func:`read_rail_w` for one rail as a function, its files' readers made once."""
    if rail.power_rel:
        power = tree.int_reader(rail.power_rel)
        return lambda: power() / 1e6
    if rail.volt_rel and rail.curr_rel:
        volt, curr = tree.int_reader(rail.volt_rel), tree.int_reader(rail.curr_rel)
        return lambda: volt() * curr() / 1e6
    return lambda: read_rail_w(tree, rail)  # raises: no usable input


class HwTelemetry(Telemetry):
    def __init__(
        self,
        tree: SysfsTree,
        rail: PowerRail | None = None,
        inferences: Callable[[], int | None] | None = None,
        supplies: PowerSupplyReader | None = None,
    ) -> None:
        self._tree = tree
        self._rail = rail
        self._inferences = inferences
        self._power: float | None = None
        self._power_read = False
        self._supplies = supplies
        self._read_w: Callable[[], float] | None = None
        if rail is not None:
            for rel in (rail.power_rel, rail.volt_rel, rail.curr_rel):
                if rel:
                    tree.keep_open(rel)  # read every tick: pread on a kept descriptor
            self._read_w = rail_reader(tree, rail)
        # Asked every control tick: the sources themselves answer, without a frame of ours in
        # between (each costs µs on a daemon that wakes with cold caches).
        if inferences is not None:
            self.inferences_total = inferences  # type: ignore[method-assign]
        if supplies is not None:
            self.power_status = supplies.poll  # type: ignore[method-assign]

    def new_tick(self) -> None:
        self._power_read = False

    def power_w(self) -> float | None:
        if self._read_w is None:
            return None
        if not self._power_read:
            self._power_read = True
            try:
                self._power = self._read_w()
            except SensorError:
                self._power = None
        return self._power

    def inferences_total(self) -> int | None:
        return None if self._inferences is None else self._inferences()

    def power_status(self) -> PowerStatus | None:
        """The supplies' state (asked once per tick by the governor, read once per poll period
        of :class:`PowerSupplyReader`), or ``None`` if unknown."""
        return None if self._supplies is None else self._supplies.poll()
