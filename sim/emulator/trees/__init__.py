"""Tree shapes: what an emulated board's sysfs tree holds beyond its profile (``*.toml`` here).

A board profile says what the governor needs (sensors, domains, the OPPs the kernel lists).  A
real tree has more, and the daemon and ``doctor`` read it: trip points on the thermal zones,
hwmon chips with power rails, fans, ADCs.  Those facts live here, one file per built-in board,
strictly validated; a board without a file (a calibrated or hand-written profile) gets zones
without trips and no extra chips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from thermogov import tomlread
from thermogov.board import BoardProfile
from thermogov.interfaces import ConfigError
from thermogov.tomlcheck import Table

_PACKAGE = "thermogov.sim.emulator.trees"
TRIP_TYPES = ("active", "passive", "hot", "critical")
# an alarm attribute of Documentation/hwmon/sysfs-interface.rst (in0_lcrit_alarm, temp1_crit_alarm)
ALARM = re.compile(r"(?:in|curr|power|temp|fan)\d+_(?:(?:lcrit|crit|min|max)_)?alarm")
I2C_DEVICE = re.compile(r"(?:[\w.@-]+/)*i2c-(\d+)/\1-[0-9a-f]{4}")  # .../i2c-0/0-0041


@dataclass(frozen=True, slots=True)
class Trip:
    type: str
    temp_c: float
    hyst_c: float


@dataclass(frozen=True, slots=True)
class Rail:
    """An INA3221-style channel; its power is ``input`` (the whole board), some domains, a rest share."""

    label: str
    volt_v: float
    input: bool = False
    domains: tuple[str, ...] = ()
    rest_share: float = 0.0


@dataclass(frozen=True, slots=True)
class Chip:
    name: str
    rails: tuple[Rail, ...] = ()
    in_mv: tuple[int, ...] = ()  # unlabelled static voltage inputs (an ADC)
    temp_of: str = ""  # a profile sensor whose reading temp1_input mirrors
    fan_rpm: int | None = None
    # An ``[[iio_device]]`` chip (L4T 28's INA3221, NVIDIA's ``ina3221x`` iio driver): its i2c
    # device folder under sys/devices (``3160000.i2c/i2c-0/0-0041``), channels under
    # ``iio_device`` (``rail_name_N``, ``in_voltageN_input`` mV, ``in_currentN_input`` mA,
    # ``in_powerN_input`` mW, N from 0), linked from sys/bus/i2c/devices.  Empty: a hwmon chip.
    i2c_device: str = ""
    # Alarm attributes the chip shows, each reading 0 (the emulated supply never sags): the Pi's
    # ``rpi_volt`` chip has only ``in0_lcrit_alarm`` (drivers/hwmon/raspberrypi-hwmon.c).
    alarms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TreeShape:
    trips: dict[str, tuple[Trip, ...]] = field(default_factory=dict)  # sensor -> trips
    chips: tuple[Chip, ...] = ()
    cpufreq_governor: str = "schedutil"  # the distribution's default scaling_governor
    # A policy's CPUs where the board does not split its cores in order (a TX2's A57 policy0
    # holds CPUs 0, 3-5, its Denver policy1 CPUs 1-2); a policy not named here: in order.
    policy_cpus: dict[str, tuple[int, ...]] = field(default_factory=dict)


def _rail(t: Table, domains: set[str]) -> Rail:
    r = Rail(
        label=t.string("label"),
        volt_v=t.number("volt_v", minimum=0.0, maximum=60.0),
        input=t.boolean("input", False),
        domains=tuple(t.strings("domains", [])),
        rest_share=t.number("rest_share", 0.0, minimum=0.0, maximum=1.0),
    )
    for d in r.domains:
        if d not in domains:
            raise ConfigError(f"{t.where}.domains: unknown domain {d!r}; known: {sorted(domains)}")
    t.done()
    return r


def parse_tree_shape(data: dict[str, Any], where: str, board: BoardProfile) -> TreeShape:
    top = Table(data, where)
    sensors = {s.name for s in board.sensors}
    domains = {d.name for d in board.domains}
    trips: dict[str, tuple[Trip, ...]] = {}
    for name, z in top.tables("zones"):
        if name not in sensors:
            raise ConfigError(f"{z.where}: {name!r} is not a sensor of {board.name}")
        out = []
        for t in z.table_list("trips"):
            out.append(
                Trip(
                    t.choice("type", TRIP_TYPES),
                    t.number("temp_c", minimum=-40.0, maximum=200.0),
                    t.number("hyst_c", 0.0, minimum=0.0, maximum=50.0),
                )
            )
            t.done()
        z.done()
        trips[name] = tuple(out)
    chips = []
    for c in top.table_list("hwmon"):
        rails = tuple(_rail(r, domains) for r in c.table_list("rails"))
        in_mv = tuple(int(v) for v in c.numbers("in_mv", []))
        temp_of = c.string("temp_of", "")
        if temp_of and temp_of not in sensors:
            raise ConfigError(f"{c.where}.temp_of: {temp_of!r} is not a sensor of {board.name}")
        fan = c.integer("fan_rpm", -1, minimum=-1)
        alarms = tuple(c.strings("alarms", []))
        for a in alarms:
            if not ALARM.fullmatch(a):
                raise ConfigError(
                    f"{c.where}.alarms: {a!r} is no hwmon alarm attribute; write it as in0_lcrit_alarm"
                )
        chips.append(Chip(c.string("name"), rails, in_mv, temp_of, None if fan < 0 else fan, alarms=alarms))
        c.done()
    for c in top.table_list("iio_device"):
        device = c.string("device")
        if not I2C_DEVICE.fullmatch(device):
            raise ConfigError(
                f"{c.where}.device: {device!r} is no i2c device folder; write it as the kernel "
                'shows it under sys/devices, e.g. "3160000.i2c/i2c-0/0-0041"'
            )
        rails = tuple(_rail(r, domains) for r in c.table_list("rails"))
        chips.append(Chip(c.string("name", "ina3221x"), rails, i2c_device=device))
        c.done()
    governor = top.string("cpufreq_governor", "schedutil")
    policies = {n for d in board.domains if d.kind == "cpufreq" for n in d.sysfs_names}
    policy_cpus: dict[str, tuple[int, ...]] = {}
    for name, pol in top.tables("cpufreq"):
        if name not in policies:
            raise ConfigError(
                f"{pol.where}: {name!r} is no cpufreq policy of {board.name}; known: {sorted(policies)}"
            )
        cpus = pol.numbers("cpus")
        policy_cpus[name] = tuple(int(c) for c in cpus)
        whole = all(c == int(c) and 0 <= c < 1024 for c in cpus)
        if not cpus or not whole or len(set(policy_cpus[name])) != len(cpus):
            raise ConfigError(f"{pol.where}.cpus: list each CPU of the policy once, e.g. [0, 3, 4, 5]")
        pol.done()
    top.done()
    return TreeShape(trips, tuple(chips), governor, policy_cpus)


def tree_shape(board: BoardProfile) -> TreeShape:
    """The shape file of a built-in board by its name; an empty shape for any other board."""
    res = resources.files(_PACKAGE).joinpath(f"{board.name}.toml")
    if not res.is_file():
        return TreeShape()
    where = f"sim/emulator/trees/{board.name}.toml"
    try:
        data = tomlread.loads(res.read_text(encoding="utf-8"))
    except tomlread.TOMLDecodeError as e:
        raise ConfigError(f"{where}: malformed TOML ({e})") from e
    return parse_tree_shape(data, where, board)
