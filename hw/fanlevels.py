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

A look at a confirmed state reading a duty that is none of the table's levels is another writer
at once.  (Session 22a also took any level but the last confirmed look's at once; session 24c
found that one look can read such a pair from the driver alone -- the state before a state
change, ``pwm1`` after it; and the emulator's late driver, after a state change of the
kernel's that no look saw, shows that state's level at a confirmed state for a look or two --
so a level is now judged only when held, below.)

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

Session 24c: **another state's level held past the settle.**  Where the table is trusted at
the state read (the state confirmed, or the table proven), ``pwm1`` reading anything but that
state's level -- another state's level included, the previous confirmed duty included -- is
the driver's only while it has not caught up with a state change: mainline writes the duty
inside the state write (``pwm_fan_set_cur_state``: ``set_pwm`` then ``pwm_fan_state``, so one
look reading the state, then ``pwm1``, can see the old state with the new duty), the
emulator's driver at its next step.  The same (state, duty) pair read by looks
:data:`SETTLE_S` apart is then no driver's: a ``pwm1`` write of exactly another state's level
that did not move the state (a driver without ``pwm_fan_update_state``), or a write at a held
state that the driver's late move would have replaced.  Each new pair restarts the wait, so
step_wise changing the state (the pair changes at the next look) is never one; for the same
reason a level read at a trusted state no longer counts as 23c's move at a held state.

Still indistinguishable (Left): on a driver with ``pwm_fan_update_state`` (mainline, the
emulator) a ``pwm1`` write of exactly a state's level moves the state there, which is what the
driver shows after step_wise set that state; nothing in sysfs tells the two apart.
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
        self._last: tuple[int, int] | None = None  # (state, duty) of the last look
        self._settled = False  # the driver's one move of pwm1 at the held state is spent
        self._since: float | None = None  # the clock of the first look at the held state
        self._off: tuple[int, int, float] | None = None  # (state, duty, since) off the trusted level

    def stray(self, state: int, duty: int, now: float | None = None) -> str:
        """Empty when ``duty`` at ``state`` is the driver's (or cannot be judged), else the
        expected duty and why, for the line that leaves the fan.  ``now``: the look's clock
        (seconds), which lets a state held :data:`SETTLE_S` settle; None: moves alone settle."""
        moved = self._moved_again(state, duty, now)
        by_table = self._by_levels(state, duty)
        held = self._held_off_level(state, duty, now)
        self._last = (state, duty)
        return by_table or moved or held

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
        if self._torn(state, duty):  # maybe a torn look: the held rule judges it (24c)
            return ""
        if not self._settled and not held:  # the late driver's one move at the held state
            self._settled = True
            return ""
        return (
            f"{last[1]}, which it read a look before at the same cur_state {state} (pwm-fan writes "
            "pwm1 only when the state changes, pwm_fan_set_cur_state, and it did not)"
        )

    def _trusted(self, state: int) -> bool:
        """The device tree's level of ``state`` is the driver's: confirmed, or the table proven."""
        return 0 <= state < len(self.levels) and (
            state in self.confirmed or proven(self.levels, self.confirmed_duties())
        )

    def _torn(self, state: int, duty: int) -> bool:
        """A look could read this from the driver alone: another state's level at a trusted
        state (the state read before a state change, ``pwm1`` after it; a late driver after a
        state change no look saw).  Judged only held."""
        return duty in self.levels and self._trusted(state)

    def _held_off_level(self, state: int, duty: int, now: float | None) -> str:
        """Session 24c: the same duty off the trusted level of the same state for :data:`SETTLE_S`."""
        if not self._trusted(state) or now is None or duty == self.levels[state]:
            self._off = None
            return ""
        if self._off is None or self._off[:2] != (state, duty):
            self._off = (state, duty, now)  # a new pair: the driver may still be catching up
            return ""
        if now - self._off[2] < SETTLE_S:
            return ""
        return (
            f"{self.levels[state]}, the duty of cur_state {state} in the device tree's {PROPERTY}, "
            f"for {now - self._off[2]:.1f} s (pwm-fan writes a state's duty with the state, "
            "pwm_fan_set_cur_state; a pwm1 left off it is another writer's)"
        )

    def _by_levels(self, state: int, duty: int) -> str:
        if not 0 <= state < len(self.levels):
            return ""
        level = self.levels[state]
        if duty == level:
            self.confirmed.add(state)
            return ""
        if state in self.confirmed and duty not in self.levels:
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
