"""A thermal sensor that reads like whole degrees: said at start, never second-guessed.

The kernel ABI fixes the unit: a thermal zone's ``temp`` and an hwmon ``temp*_input`` are in
millidegrees Celsius (Documentation/ABI/testing/sysfs-class-thermal, "Unit: millidegree
Celsius"; Documentation/hwmon/sysfs-interface.rst, ``temp[1-*]_input``). So ``45`` is 0.045 °C,
and thermogov reads it so: a board can run near 0 °C (an outdoor enclosure in winter), where
scaling a value the kernel calls millidegrees by 1000 on a guess would read 0.045 °C as 45 °C.
But a driver that broke the ABI and reported whole degrees would make a 90 °C board read
0.09 °C and be governed at full clocks, so a governed sensor whose value is a plausible
temperature *in whole degrees* (a nonzero integer inside the range thermogov accepts,
-40..150) is named by ``doctor`` and at the start of ``run``, with what to check.
Power-supply temperatures are in tenths of a degree (``POWER_SUPPLY_PROP_TEMP``), where such
small values are ordinary, so they are not looked at.

Two values inside the accepted range are also what a sensor that gives no measurement
reports: exactly 0 (a zone whose driver has not read its sensor yet, a stub) and exactly
-40000 (the floor an absent or clamped sensor sits at; a dead twin zone reads it, see
:class:`~thermogov.hw.devices.HottestOfSensor`).  A governed sensor whose every zone reads one
of them at start is named too (session 16): the run believes it, and the board runs at full
clocks until the governor's stuck-sensor check (``[governor] stuck_after_s``) drops it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from thermogov.config import Config
from thermogov.hw.devices import MAX_VALID_C, MIN_VALID_C
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ConfigError, SensorError

if TYPE_CHECKING:
    from thermogov.hw.daemon import Prepared

MILLIDEGREES = 1000  # the divisor of thermal-zone and hwmon temperature files


def looks_like_whole_degrees(raw: int) -> bool:
    """A millidegree value that would also be a plausible reading in whole °C."""
    return raw != 0 and MIN_VALID_C <= raw <= MAX_VALID_C


# Exact values a sensor without a measurement reports (see the module doc): m°C -> what it is.
PLACEHOLDER_MC = {0: "0 °C exactly", -40000: "-40 °C exactly, a sensor's floor"}


def unit_warnings(tree: SysfsTree, config: Config, board_opt: str | None) -> list[str]:
    """One warning line per governed m°C sensor that reads like whole degrees or like no
    measurement at all (advisory)."""
    from thermogov.hw.daemon import RunOptions, prepare

    try:
        prep = prepare(RunOptions(config=config, sysfs_root=tree.root, board=board_opt), tree)
    except (ConfigError, SensorError):  # the run reports these itself
        return []
    return prepared_unit_warnings(prep)


def prepared_unit_warnings(prep: Prepared) -> list[str]:
    """:func:`unit_warnings` on a board already prepared (``run``'s own, hw/startlines.py)."""
    tree = prep.tree
    out = []
    for b in prep.bmap.sensors:
        if b.divisor != MILLIDEGREES:
            continue
        try:
            raw = tree.read_int(b.rel)
        except SensorError:
            continue
        raws = [raw]
        for rel in b.twins:  # a twin's value counts: the sensor reads the hottest (HottestOfSensor)
            try:
                raws.append(tree.read_int(rel))
            except SensorError:
                continue
        valid = [r for r in raws if MIN_VALID_C * MILLIDEGREES <= r <= MAX_VALID_C * MILLIDEGREES]
        if valid and max(valid) in PLACEHOLDER_MC:
            out.append(
                f"warning: sensor {b.sensor.name} ({tree.show(b.rel)}) reads {max(valid)}, "
                f"{PLACEHOLDER_MC[max(valid)]}: what an absent or not yet ready sensor reports; if it "
                "stays there the board is governed as cold until the sensor counts as stuck "
                "([governor] stuck_after_s): check it with `thermogov doctor`"
            )
        if looks_like_whole_degrees(raw):
            out.append(
                f"warning: sensor {b.sensor.name} ({tree.show(b.rel)}) reads {raw}, which the kernel ABI "
                f"makes {raw / MILLIDEGREES:g} °C (millidegrees); if its driver reports whole degrees "
                f"({raw} °C) it breaks the ABI and thermogov reads the board as cold: check the driver"
            )
    return out
