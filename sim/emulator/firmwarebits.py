"""The Raspberry Pi firmware's ``get_throttled`` file in an emulated tree, from the simulated throttle.

On a Pi the firmware's own thermal throttle (invisible to cpufreq) shows in
``/sys/devices/platform/soc/soc:firmware/get_throttled`` (``drivers/firmware/raspberrypi.c``,
printed ``%x``): bit 2 "currently throttled" while it acts, bit 18 "throttling has occurred" from
then on.  Writing it from the simulated protection lets the real daemon's reader
(``thermogov.hw.throttle``) count an emulated Pi's throttling as it would a real one's.  Only Pi
profiles (a device-tree model naming a Raspberry Pi) get the file; Jetson passive trips already
show as the emulated zones' trip points.
"""

from __future__ import annotations

import os
from pathlib import Path

from thermogov.board import BoardProfile

GET_THROTTLED = "sys/devices/platform/soc/soc:firmware/get_throttled"
THROTTLED_NOW = 1 << 2
THROTTLED_SINCE = 1 << 18


class FirmwareBits:
    def __init__(self, board: BoardProfile, root: Path) -> None:
        self.path: Path | None = None
        if any("raspberry pi" in m.lower() for m in board.dt_models):
            self.path = root / GET_THROTTLED
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._value: int | None = None

    def update(self, throttling: bool) -> None:
        """Write the field when it changes (atomically: a reader sees the old or the new value)."""
        if self.path is None:
            return
        value = (self._value or 0) & THROTTLED_SINCE
        if throttling:
            value |= THROTTLED_NOW | THROTTLED_SINCE
        if value == self._value:
            return
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        tmp.write_text(f"{value:x}\n", encoding="utf-8")
        os.replace(tmp, self.path)
        self._value = value
