"""Throttle sources added to a fake tree, shaped like the real ones (see hw/throttle.py for sources).

* Pi firmware: ``sys/devices/platform/soc/soc:firmware/get_throttled`` printed ``%x`` by
  ``drivers/firmware/raspberrypi.c``; the values ``0x50005`` and ``0x50000`` are the ones the
  Raspberry Pi documentation explains.  Pi 5's bus is ``soc@107c000000``.
* rpi_volt: a hwmon named ``rpi_volt`` with ``in0_lcrit_alarm`` (raspberrypi-hwmon.c).
* Jetson Orin: a hwmon named ``soctherm_oc`` under ``sys/devices/platform/soctherm-oc-event``
  with ``oc{1,2,3}_event_cnt`` and ``oc{1,2,3}_throt_en`` (NVIDIA's tegra23x_oc_event.c).
"""

from __future__ import annotations

from tests.hw.fakesys import FakeTree

PI_FW = "sys/devices/platform/soc/soc:firmware/get_throttled"
PI5_FW = "sys/devices/platform/soc@107c000000/soc@107c000000:firmware/get_throttled"


def pi_firmware(t: FakeTree, value: int | str, rel: str = PI_FW) -> str:
    t.write(rel, value if isinstance(value, str) else f"{value:x}\n")
    return rel


def rpi_volt(t: FakeTree, index: int, alarm: int | str) -> str:
    real = f"sys/devices/platform/soc/soc:firmware/raspberrypi-hwmon/hwmon/hwmon{index}"
    t.write(f"{real}/name", "rpi_volt\n")
    t.write(f"{real}/in0_lcrit_alarm", alarm if isinstance(alarm, str) else f"{alarm}\n")
    t.link(f"sys/class/hwmon/hwmon{index}", real)
    return f"{real}/in0_lcrit_alarm"


def soctherm_oc(t: FakeTree, index: int, counts: tuple[int | str, int | str, int | str]) -> str:
    real = f"sys/devices/platform/soctherm-oc-event/hwmon/hwmon{index}"
    t.write(f"{real}/name", "soctherm_oc\n")
    for n, c in enumerate(counts, start=1):
        t.write(f"{real}/oc{n}_event_cnt", c if isinstance(c, str) else f"{c}\n")
        t.write(f"{real}/oc{n}_throt_en", "1\n")
    t.link(f"sys/class/hwmon/hwmon{index}", real)
    return real


def set_oc(t: FakeTree, real: str, counts: tuple[int, int, int]) -> None:
    for n, c in enumerate(counts, start=1):
        t.write(f"{real}/oc{n}_event_cnt", c)
