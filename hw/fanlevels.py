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
since a ``pwm1`` write moves the state with it).  Missed by that rule (Session 22a): a ``pwm1`` write
landing on a state no look confirmed yet, or of exactly a state's level, or of the previous level.

Session 23c adds the two cases that are certain without a confirmed state (docs/hardware.md):

* **pwm1 moved while cur_state did not.**  The driver writes ``pwm1`` only in
  ``pwm_fan_set_cur_state``, and only when the state changes (``state == ctx->pwm_fan_state``
  returns early), so between two looks reading the same state the driver moves ``pwm1`` at most
  once: a late driver catching up with the state change before those looks.  A second move at
  a held state (or a first one after the driver's move was seen with the state change) is
  another writer's, whatever the table says; this needs no ``cooling-levels`` at all.  (A
  step_wise round trip s -> t -> s between two looks puts back the driver's duty of s: it can
  only undo a move, so a second move still means somebody wrote ``pwm1`` at some point.)
* **a duty no state has, once the table is proven.**  When looks confirmed two states of
  distinct non-zero duties, the device tree's table is the one the driver read at probe (a
  table of another build matches at 0, rarely at two duties); the driver then only ever writes
  one of its levels, so a ``pwm1`` reading none of them, at any state, is another writer's.

Still indistinguishable (Left): a ``pwm1`` write of exactly a state's level moves the state
there (``pwm_fan_update_state``), which is what the driver shows after step_wise set that
state; nothing in sysfs tells the two apart.
"""

from __future__ import annotations

import contextlib

from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import SensorError

PWM_MAX = 255
CELL = 4  # a device-tree u32 cell, big-endian
# A state held this long has its duty: mainline pwm-fan writes it inside the state write, the
# emulator's driver 20 ms later; 5 s leaves a loaded CI machine's starved emulator room.
SETTLE_S = 5.0
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
    """The per-look rules of the module doc: :meth:`stray` says why ``pwm1`` is another writer's.

    ``levels`` None: no readable ``cooling-levels``; only the held-state rule judges then."""

    def __init__(self, levels: tuple[int, ...] | None) -> None:
        self.levels = levels or ()
        self.confirmed: set[int] = set()  # states a look saw the driver keep their level at
        self._agreed: int | None = None  # the duty of the last confirming look
        self._last: tuple[int, int] | None = None  # (state, duty) of the last look
        self._settled = False  # the driver's one move of pwm1 at the held state is spent
        self._since: float | None = None  # the clock of the first look at the held state

    def stray(self, state: int, duty: int, now: float | None = None) -> str:
        """Empty when ``duty`` at ``state`` is the driver's (or cannot be judged), else the
        expected duty and why, for the line that leaves the fan.  ``now``: the look's clock
        (seconds), which lets a state held :data:`SETTLE_S` settle; None: moves alone settle."""
        moved = self._moved_again(state, duty, now)
        by_table = self._by_levels(state, duty)
        self._last = (state, duty)
        return by_table or moved

    def confirmed_duties(self) -> tuple[int, ...]:
        """The duties the driver was seen keeping (a restore after ``kill -9`` judges by them)."""
        return tuple(sorted({self.levels[k] for k in self.confirmed}))

    def _moved_again(self, state: int, duty: int, now: float | None) -> str:
        last = self._last
        if last is None or state != last[0]:  # a new state (or the first look)
            self._since = now
            # pwm1 moving with the state spends the driver's move (the first look: it may be due)
            self._settled = last is not None and duty != last[1]
            return ""
        if duty == last[1]:
            return ""
        held = now is not None and self._since is not None and now - self._since >= SETTLE_S
        if not self._settled and not held:  # the late driver's one move at the held state
            self._settled = True
            return ""
        return (
            f"{last[1]}, which it read a look before at the same cur_state {state} (pwm-fan writes "
            "pwm1 only when the state changes, pwm_fan_set_cur_state, and it did not)"
        )

    def _by_levels(self, state: int, duty: int) -> str:
        if not 0 <= state < len(self.levels):
            return ""
        level = self.levels[state]
        if duty == level:
            self.confirmed.add(state)
            self._agreed = duty
            return ""
        if state in self.confirmed and duty != self._agreed:
            return f"{level}, the duty of cur_state {state} in the device tree's {PROPERTY}"
        if proven(self.levels, self.confirmed_duties()) and duty not in self.levels:
            return (
                f"{level} nor any duty of the device tree's {PROPERTY} "
                f"({'/'.join(map(str, self.levels))}, which the driver was seen keeping)"
            )
        return ""


def proven(levels: tuple[int, ...], confirmed: tuple[int, ...]) -> bool:
    """The table is the driver's: looks confirmed two of its distinct non-zero duties."""
    return len({d for d in confirmed if d > 0 and d in levels}) >= 2
