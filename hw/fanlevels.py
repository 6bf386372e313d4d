"""Another writer of a cooling-device fan's ``pwm1``, told apart by the device tree's duties.

Why (session 22a): a pwm-fan governed through its thermal cooling device's ``cur_state`` (Pi 5,
Orin's pwm-fan with its cooling device) has two legitimate writers of that state, thermogov and
the kernel's ``step_wise``, so a changed state says nothing.  What tells a ``pwm1`` writer (jtop,
fancontrol, a user's ``echo``) apart is the duty: mainline ``drivers/hwmon/pwm-fan.c`` writes the
state's ``cooling-levels`` duty on every state change (``pwm_fan_set_cur_state``), while a ``pwm1``
write keeps the duty written and moves the state to the highest level not above it
(``pwm_fan_update_state``).  Session 21d learnt each state's duty from the read-back right after
thermogov's write; a driver that updates ``pwm1`` after the write returns (the emulator's does)
then taught it the previous state's duty, the next look took the driver's own update for a rival
and the fan was left unrestored (withdrawn by the lead).

Both ways the lead named, each for what the other lacks:

* the duties come from the device tree, never from a read-back: ``cooling-levels``, the property
  the driver itself reads at probe (``pwm_fan_get_cooling_data``; binding
  Documentation/devicetree/bindings/hwmon/pwm-fan.yaml: a uint32 array, each at most 255), shown
  by the kernel as big-endian u32 cells under the fan's ``of_node``
  (``/sys/class/hwmon/hwmonN/of_node``, the link ``device_add_class_symlinks`` makes, or the
  platform device's ``device/of_node``).  A rival's duty can then never be learnt as a state's;
* a state's duty is trusted only once a look confirms the driver keeps it (``pwm1`` reading that
  level while ``cur_state`` reads that state): a device tree that does not describe this driver
  (another build's levels, NVIDIA's fan profiles) never confirms, and is never judged by.

A look at a confirmed state reading another duty is another writer, except the duty of the last
confirmed look (the driver not yet caught up with a state change: a late driver, by any number of
looks, keeps the previous state's duty; no real pwm-fan writer leaves it there at another state,
since a ``pwm1`` write moves the state with it).  Missed: a ``pwm1`` write landing on a state no
look confirmed yet, or of exactly a state's level, or of the previous level (docs/hardware.md,
Session 22a).
"""

from __future__ import annotations

import contextlib

from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

PWM_MAX = 255
CELL = 4  # a device-tree u32 cell, big-endian
NODE_LINKS = ("of_node", "device/of_node")
PROPERTY = "cooling-levels"


def cooling_levels(tree: SysfsTree, hwmon_rel: str | None, max_state: int | None) -> tuple[int, ...] | None:
    """The duty of each cooling state (``cooling-levels``), or None when it cannot be read as the
    driver's: no ``of_node`` (an ACPI or emulated board without one), a length other than one
    cell per state 0..``max_state``, or a duty above 255 (the driver refuses such a table)."""
    if hwmon_rel is None or max_state is None:
        return None
    for link in NODE_LINKS:
        rel = f"{hwmon_rel}/{link}/{PROPERTY}"
        if not tree.exists(rel):
            continue
        with contextlib.suppress(SensorError):
            raw = tree.read_bytes(rel)
            if len(raw) != CELL * (max_state + 1):
                return None
            levels = tuple(int.from_bytes(raw[i : i + CELL], "big") for i in range(0, len(raw), CELL))
            return levels if all(v <= PWM_MAX for v in levels) else None
        return None
    return None


class CoolingDuties:
    """The per-look rule of the module doc: :meth:`stray` says why ``pwm1`` is another writer's."""

    def __init__(self, levels: tuple[int, ...]) -> None:
        self.levels = levels
        self.confirmed: set[int] = set()  # states a look saw the driver keep their level at
        self._agreed: int | None = None  # the duty of the last confirming look

    def stray(self, state: int, duty: int) -> str:
        """Empty when ``duty`` at ``state`` is the driver's (or cannot be judged), else the
        expected duty, for the line that leaves the fan."""
        if not 0 <= state < len(self.levels):
            return ""
        level = self.levels[state]
        if duty == level:
            self.confirmed.add(state)
            self._agreed = duty
            return ""
        if state not in self.confirmed or duty == self._agreed:
            return ""
        return f"{level}, the duty of cur_state {state} in the device tree's {PROPERTY}"
