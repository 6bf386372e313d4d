"""The emulated board's fan: pwm-fan's sysfs files, the kernel's own fan curve, and the daemon's writes.

For a board whose profile has a ``[fan]``, the tree gets what the pwm-fan driver shows on a
Raspberry Pi 5 (Documentation/hwmon/pwm-fan.rst, bcm2712-rpi-5-b.dts): a thermal cooling device
of ``type`` ``pwm-fan`` with ``cur_state`` 0..``max_state``, and a hwmon ``pwmfan`` with
``pwm1`` (the level's duty), ``pwm1_enable`` and ``fan1_input`` (RPM).

Each emulator step plays the board's own fan control: the profile's default curve (the Pi 5
kernel's step_wise; on a Jetson devkit nvfancontrol's profile at its nearest level, where
nvfancontrol writes ``pwm1`` instead), on the curve node's temperature, writes ``cur_state``
only when its own target changes, as ``thermal_cdev_update`` does; between those moments whatever the daemon wrote to ``cur_state``
holds and drives the simulated fan.  So a governed fan on an emulated Pi 5 meets the same
contest as on a real one.

The duty follows mainline ``drivers/hwmon/pwm-fan.c``: a state change writes that state's duty
(``pwm_fan_set_cur_state``), here at the step after the write, so a reader right after it sees the
previous duty (a late driver: the case that made session 21d's rival rule misfire); a ``pwm1``
write by anyone keeps the duty written and moves the state to the highest level not above it
(``pwm_fan_update_state``).  The duties are also shown as the device tree's ``cooling-levels``
under the hwmon's ``of_node`` (big-endian u32 cells, as the kernel shows a property), which
:mod:`thermogov.hw.fanlevels` reads.
"""

from __future__ import annotations

import os
from pathlib import Path

from thermogov.fanprofile import FanProfile
from thermogov.sim.model.fan import SimFan

CDEV = "sys/class/thermal/cooling_device0"
DT_NODE = "sys/firmware/devicetree/base/pwm-fan"


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
        levels = b"".join(int(d).to_bytes(4, "big") for d in self.profile.duty)
        (root / DT_NODE).mkdir(parents=True, exist_ok=True)
        (root / DT_NODE / "cooling-levels").write_bytes(levels)
        node = root / self.hwmon / "of_node"
        if not node.is_symlink():
            node.symlink_to(os.path.relpath(root / DT_NODE, root / self.hwmon))
        self._duty = self.profile.duty[self.fan.level]
        self._publish()

    def _publish(self) -> None:
        _put(self.root, f"{CDEV}/cur_state", f"{self.fan.level}\n", in_place=True)
        _put(self.root, f"{self.hwmon}/pwm1", f"{self._duty}\n", in_place=True)
        _put(self.root, f"{self.hwmon}/fan1_input", f"{self.fan.rpm()}\n")

    def _apply(self, level: int) -> None:
        """A state written: the driver writes that state's duty if the state changes (else a no-op)."""
        if level != self.fan.level:
            self._duty = self.profile.duty[level]
        self.fan.apply(level)

    def _pwm_written(self) -> int | None:
        """A duty written to ``pwm1`` since the last step (None: none, or unreadable)."""
        try:
            v = int((self.root / self.hwmon / "pwm1").read_text().strip())
        except (OSError, ValueError):
            return None
        return v if 0 <= v <= 255 and v != self._duty else None

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
        duty = self._pwm_written()
        if target != self._kernel_target:
            self._kernel_target = target
            self._apply(target)
        elif duty is not None:  # pwm_fan_update_state: the duty stays, the state follows it
            self._duty = duty
            self.fan.apply(max(k for k, d in enumerate(self.profile.duty) if d <= duty or k == 0))
        else:
            written = self._written()
            if written is not None and written != self.fan.level:
                self._apply(written)
        self._publish()
