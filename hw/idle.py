"""Kernel idle injection: the lever below the lowest clock on a board, where the kernel has it.

The cpuidle cooling device (``drivers/thermal/cpuidle_cooling.c``, built on the powercap idle
injection framework ``drivers/powercap/idle_inject.c``; device-tree binding ``thermal-idle``,
Documentation/devicetree/bindings/thermal/thermal-idle.yaml) forces the CPUs idle for a share
of each injection period: its ``cur_state`` is that share in percent of ``max_state``
(Documentation/driver-api/thermal/cpu-idle-cooling.rst).  It is a thermal cooling device
(Documentation/ABI/testing/sysfs-class-thermal: ``type``, ``max_state``, ``cur_state``), found
here by its type: ``thermal-idle``, ``idle-inject`` or an ``idle-<cpu>`` name.

:class:`IdleInjector` is the world's :class:`~thermogov.interfaces.LoadControl`: the lever's duty
cycle ``d`` becomes ``cur_state = round((1 - d) * max_state)`` on every such device.  Each
``cur_state`` it writes is owned through the tree (:meth:`SysfsTree.own`, confined writes) and
its value at start is journaled (:class:`StateEntry` in :mod:`thermogov.hw.journal`), so the
daemon's exit paths and ``thermogov restore`` after a crash put it back; only a cooling
device of an idle-injection type, with a value in ``0..max_state``, is ever written back
(:func:`thermogov.hw.owned.check_idle_state`).  The inference mode itself is not the kernel's
business: the daemon publishes it for the application.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from thermogov.hw.confine import ConfinementError
from thermogov.hw.discovery import THERMAL
from thermogov.hw.limits import DryRunIO, TreeIO, write_back
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError, SensorError

IDLE_TYPES = ("thermal-idle", "idle-inject", "idle_inject")


def is_idle_type(kind: str) -> bool:
    return kind in IDLE_TYPES or kind.startswith("idle-")


@dataclass(frozen=True, slots=True)
class IdleDevice:
    name: str  # cooling_device3
    rel: str  # root-relative directory
    type: str
    max_state: int

    @property
    def state_rel(self) -> str:
        return f"{self.rel}/cur_state"


@dataclass(frozen=True, slots=True)
class StateEntry:
    """A cooling device's ``cur_state`` as it was before thermogov touched it (journaled)."""

    device: str
    rel: str  # root-relative path of cur_state
    value: int


def find_idle_devices(tree: SysfsTree) -> list[IdleDevice]:
    """Every idle-injection cooling device with a readable type and a positive max_state."""
    out = []
    for name in tree.listdir(THERMAL, r"cooling_device\d+"):
        rel = f"{THERMAL}/{name}"
        try:
            kind = tree.read_text(f"{rel}/type")
            if not is_idle_type(kind):
                continue
            top = tree.read_int(f"{rel}/max_state")
        except SensorError:
            continue  # unreadable: not a device we could drive or restore
        if top > 0 and tree.exists(f"{rel}/cur_state"):
            out.append(IdleDevice(name, rel, kind, top))
    return out


def idle_data(tree: SysfsTree) -> list[dict[str, object]]:
    """What ``doctor`` shows of idle injection: each device, its state now, and whether it is idle.

    A ``cur_state`` above 0 at start means something else (the kernel's own thermal zone
    binding, or a run that did not restore) is already forcing idle time: the user should know
    before a run journals that value as the one to put back.
    """
    out: list[dict[str, object]] = []
    for d in find_idle_devices(tree):
        try:
            cur: int | str = tree.read_int(d.state_rel)
        except SensorError as e:
            cur = f"unreadable ({e})"
        out.append({"device": d.name, "type": d.type, "max_state": d.max_state, "cur_state": cur})
    return out


def idle_lines(tree: SysfsTree) -> list[str]:
    devices = idle_data(tree)
    if not devices:
        return ["idle injection: none (the [lever] can only lower the inference load the application reads)"]
    lines = ["idle injection (the [lever]'s duty cycle below the lowest clock):"]
    for d in devices:
        cur = d["cur_state"]
        busy = isinstance(cur, int) and cur > 0
        lines.append(
            f"  {d['device']:<15} {d['type']:<14} cur_state {cur}/{d['max_state']}"
            + ("  (already injecting idle time)" if busy else "")
        )
    return lines


def state_for_duty(duty: float, max_state: int) -> int:
    return max(0, min(max_state, round((1.0 - duty) * max_state)))


class IdleInjector:
    """Drives every idle-injection device from the lever's duty cycle; restores them at exit."""

    def __init__(
        self,
        tree: SysfsTree,
        devices: list[IdleDevice],
        *,
        dry_run: bool = False,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        self.tree = tree
        self.devices = list(devices)
        self._on_error = on_error or (lambda _msg: None)
        self._failing: set[str] = set()  # devices whose last write was refused (said once)
        self.io: TreeIO | DryRunIO = DryRunIO(tree) if dry_run else TreeIO(tree)
        self._original: dict[str, int] = {}
        for d in self.devices:
            self._original[d.state_rel] = tree.read_int(d.state_rel, ActuatorError)
            if not dry_run:
                tree.own(d.state_rel)
        self.duty = 1.0

    @classmethod
    def open(
        cls, tree: SysfsTree, *, dry_run: bool = False, on_error: Callable[[str], None] | None = None
    ) -> IdleInjector | None:
        """The injector of this board, or ``None`` when it has no idle-injection device."""
        devices = find_idle_devices(tree)
        return cls(tree, devices, dry_run=dry_run, on_error=on_error) if devices else None

    def originals(self) -> list[StateEntry]:
        return [StateEntry(d.name, d.state_rel, self._original[d.state_rel]) for d in self.devices]

    def set_load(self, mode: Any, duty: float) -> None:
        """The lever's duty cycle as forced idle; the mode is the application's (state file)."""
        self.duty = duty
        for d in self.devices:
            # A device that refuses the state (EBUSY, EPERM) is said once and retried at the next
            # change: the lever only engages with every cap at its lowest already, so a refused
            # duty cycle costs throughput, not safety, and must not stop the governing (it
            # did: the error left the loop as bad input, exit 2).  A file swapped under us is
            # tampering and still stops the run (ConfinementError, exit 1, everything restored).
            try:
                self.io.write_int(d.state_rel, state_for_duty(duty, d.max_state))
                self._failing.discard(d.state_rel)
            except ConfinementError:
                raise
            except ActuatorError as e:
                if d.state_rel not in self._failing:
                    self._failing.add(d.state_rel)
                    self._on_error(
                        f"warning: idle injection on {d.name} not set ({e}); retried at the next change"
                    )

    def restore(self) -> None:
        """Write back every captured ``cur_state``; raises listing those that failed."""
        written = (write_back(self.io, d.state_rel, self._original[d.state_rel]) for d in self.devices)
        errors = [e for e in written if e]
        if errors:
            raise ActuatorError("; ".join(errors))
