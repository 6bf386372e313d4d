"""The emulated board's fan: pwm-fan's sysfs files, the kernel's own fan curve, and the daemon's writes.

For a board whose profile has a ``[fan]``, the tree gets what the pwm-fan driver shows on a
Raspberry Pi 5 (Documentation/hwmon/pwm-fan.rst, bcm2712-rpi-5-b.dts): a thermal cooling device
of ``type`` ``pwm-fan`` with ``cur_state`` 0..``max_state``, and a hwmon ``pwmfan`` with
``pwm1`` (the level's duty), ``pwm1_enable`` and ``fan1_input`` (RPM).

Each emulator step plays the kernel: its step_wise curve (the profile's default curve, on the
curve node's temperature) writes ``cur_state`` only when its own target changes, as
``thermal_cdev_update`` does; between those moments whatever the daemon wrote to ``cur_state``
holds and drives the simulated fan.  So a governed fan on an emulated Pi 5 meets the same
contest as on a real one.
"""

from __future__ import annotations

import os
from pathlib import Path

from thermogov.fanprofile import FanProfile
from thermogov.sim.model.fan import SimFan

CDEV = "sys/class/thermal/cooling_device0"


def _put(root: Path, rel: str, text: str, *, in_place: bool = False) -> None:
    """Replace a read-only file atomically; rewrite a writable attribute in place.

    A writable attribute keeps its inode, as a kernel's does: the daemon owns exactly the file
    it found (:mod:`thermogov.hw.confine`) and would refuse a swapped one.
    """
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if in_place:
        if not p.exists() or p.read_text(encoding="utf-8") != text:
            p.write_text(text, encoding="utf-8")
        return
    tmp = p.with_name(f".{p.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, p)


class EmulatedFan:
    def __init__(self, root: Path, fan: SimFan, hwmon_index: int) -> None:
        self.root = root
        self.fan = fan
        self.profile: FanProfile = fan.profile
        self.hwmon = f"sys/class/hwmon/hwmon{hwmon_index}"
        self._kernel_target = fan.level
        _put(root, f"{CDEV}/type", "pwm-fan\n")
        _put(root, f"{CDEV}/max_state", f"{fan.levels - 1}\n")
        _put(root, f"{self.hwmon}/name", "pwmfan\n")
        _put(root, f"{self.hwmon}/pwm1_enable", "1\n", in_place=True)
        self._publish()

    def _publish(self) -> None:
        _put(self.root, f"{CDEV}/cur_state", f"{self.fan.level}\n", in_place=True)
        _put(self.root, f"{self.hwmon}/pwm1", f"{self.profile.duty[self.fan.level]}\n", in_place=True)
        _put(self.root, f"{self.hwmon}/fan1_input", f"{self.fan.rpm()}\n")

    def _written(self) -> int | None:
        try:
            v = int((self.root / CDEV / "cur_state").read_text().strip())
        except (OSError, ValueError):
            return None  # mid-write or garbage: the kernel keeps the state it had
        return v if 0 <= v < self.fan.levels else None

    def step(self) -> None:
        """The kernel's curve first (it wins when its target changes), else the daemon's write."""
        temp = self.fan.plant.temp_c(self.profile.curve_node)
        target = self.profile.default_curve.target(temp, self._kernel_target)
        if target != self._kernel_target:
            self._kernel_target = target
            self.fan.apply(target)
        else:
            written = self._written()
            if written is not None and written != self.fan.level:
                self.fan.apply(written)
        self._publish()
