"""The L4T fan's hwmon twin: the same fan under a second interface, found to be left alone.

From L4T 32.4 (JetPack 4.4) NVIDIA's ``drivers/thermal/pwm_fan.c`` registers its platform
device's attribute group a second time as a hwmon device, as a child of that device
(``devm_hwmon_device_register_with_groups(&pdev->dev, "tegra_pwmfan", fan_data,
pwm_fan_groups)`` at the end of ``pwm_fan_probe``; the L4T kernel copy in
150balbes/Jetson-Nano, ``drivers/thermal/pwm_fan.c``).  Both folders' ``target_pwm`` and
``temp_control`` read and write the same ``fan_data``: ``/sys/devices/pwm-fan/target_pwm`` and
``/sys/class/hwmon/hwmonN/target_pwm`` (-> ``/sys/devices/pwm-fan/hwmon/hwmonN``) are one
setting.  jtop 4 drives the fan through the twin: it lists every ``/sys/class/hwmon`` folder
holding ``pwmN`` or ``target_pwm`` as a fan, and skips ``/sys/devices/pwm-fan`` when that folder
has a ``hwmon`` child ("Check if this fan is already listed", rbonghi/jetson_stats,
``jtop/core/fan.py``, ``get_all_cooling_system``/``get_all_legacy_fan``).

thermogov governs the platform device's files only: their path does not depend on probe order
(``hwmonN`` does, and a journal restored after a reboot-less driver reload would name another
chip), it exists on every L4T 32 release (the twin only from 32.4), and it is what
``jetson_clocks --store`` saves.  A twin is any hwmon class entry whose folder resolves inside
the fan's platform device, whatever its ``name`` (``tegra_pwmfan``, or a build exposing
``pwm1``): it is never journaled, written or restored, and ``doctor`` names it.  A write
through it by another agent reads back in the platform file, where the rival rule of
:class:`thermogov.hw.fan.HwFan` sees it.
"""

from __future__ import annotations

import os

from thermogov.hw.discovery import hwmon_chips
from thermogov.hw.sysfs import SysfsTree


def hwmon_twins(tree: SysfsTree, base: str) -> tuple[tuple[str, str], ...]:
    """``(class entry, chip name)`` of each hwmon device registered under the folder ``base``.

    Structure only: links are resolved, nothing is written or opened for writing."""
    own = os.path.realpath(tree.path(base))
    found = []
    for _, rel, chip in hwmon_chips(tree):
        if os.path.realpath(tree.path(rel)).startswith(own + os.sep):
            found.append((rel, chip))
    return tuple(found)
