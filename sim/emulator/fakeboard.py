"""Build a sysfs tree shaped like a real board from its profile, under any root folder.

The tree is what the board daemon expects on a Jetson or a Pi (kernel ABI: thermal zones in
m°C with their ``trip_point_N_{type,temp,hyst}``, battery temperature in 0.1 °C, cpufreq in
kHz, devfreq in Hz, hwmon in mV/mA/m°C; kernel Documentation/ABI/testing/sysfs-class-thermal,
sysfs-class-power, sysfs-class-devfreq, Documentation/admin-guide/pm/cpufreq.rst and
Documentation/hwmon/sysfs-interface.rst), so ``thermogov run --sysfs-root DIR`` can govern an
emulated board with no hardware.  The layout comes from the profile's sysfs names and the
board's tree shape (:mod:`thermogov.sim.emulator.trees`), not from the ``hw`` package: sim and hw never
import each other.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from thermogov.board import BoardProfile, DomainProfile
from thermogov.interfaces import ConfigError
from thermogov.sim.emulator.trees import Chip, Rail, TreeShape, tree_shape

POWERED_OFF = "POWERED_OFF"  # root-level marker of a dead tree (thermogov.hw.discovery reads it)
SENSOR_DIRS = ("sys/class/thermal", "sys/class/hwmon", "sys/class/power_supply")


@dataclass
class FakeBoardLayout:
    """Where the emulator reads caps and writes readings, root-relative."""

    temp_files: dict[str, tuple[str, float]] = field(default_factory=dict)  # sensor -> (path, scale)
    cap_files: dict[str, list[tuple[str, float]]] = field(
        default_factory=dict
    )  # domain -> [(path, Hz per unit)]
    cur_files: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    # hwmon temp1_input mirrors of a sensor: (path, sensor)
    temp_mirrors: list[tuple[str, str]] = field(default_factory=list)
    rails: list[tuple[str, Rail]] = field(default_factory=list)  # (currN_input path, rail)
    rail_powers: list[tuple[str, Rail]] = field(default_factory=list)  # (in_powerN_input path, rail), mW


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _cpufreq(root: Path, d: DomainProfile, layout: FakeBoardLayout, shape: TreeShape) -> None:
    governor, shape_cpus = shape.cpufreq_governor, shape.policy_cpus
    names = list(d.sysfs_names) or ["policy0"]
    per = max(d.cores // len(names), 1)
    khz = [f // 1000 for f in d.kernel_table_hz]
    layout.cap_files[d.name] = []
    layout.cur_files[d.name] = []
    for i, pol in enumerate(names):
        base = f"sys/devices/system/cpu/cpufreq/{pol}"
        first = i * per
        cpus = " ".join(str(c) for c in shape_cpus.get(pol, range(first, first + per)))
        files = {
            "related_cpus": cpus,
            "affected_cpus": cpus,
            "scaling_available_frequencies": " ".join(str(k) for k in khz) + " ",
            "cpuinfo_min_freq": str(khz[0]),
            "cpuinfo_max_freq": str(khz[-1]),
            "scaling_min_freq": str(khz[0]),
            "scaling_max_freq": str(khz[-1]),
            "scaling_cur_freq": str(khz[-1]),
            "scaling_governor": governor,
            "scaling_available_governors": "performance powersave userspace schedutil",
            "scaling_driver": "thermogov-emulated",
        }
        for name, value in files.items():
            _write(root, f"{base}/{name}", value + "\n")
        layout.cap_files[d.name].append((f"{base}/scaling_max_freq", 1000.0))
        layout.cur_files[d.name].append((f"{base}/scaling_cur_freq", 1000.0))


def _devfreq(root: Path, d: DomainProfile, layout: FakeBoardLayout) -> None:
    of_node = (d.sysfs_names or ("gpu",))[0]
    base = f"sys/class/devfreq/17000000.{of_node}"
    table = d.kernel_table_hz
    files = {
        "available_frequencies": " ".join(str(f) for f in table),
        "min_freq": str(table[0]),
        "max_freq": str(table[-1]),
        "cur_freq": str(table[-1]),
        "target_freq": str(table[-1]),
        "governor": "nvhost_podgov",
        "available_governors": "nvhost_podgov userspace performance simple_ondemand",
        "device/of_node/name": of_node,
    }
    for name, value in files.items():
        _write(root, f"{base}/{name}", value + "\n")
    layout.cap_files[d.name] = [(f"{base}/max_freq", 1.0)]
    layout.cur_files[d.name] = [(f"{base}/cur_freq", 1.0), (f"{base}/target_freq", 1.0)]


def _check_root(root: Path) -> None:
    """Never build over a live sysfs (``--sysfs-root /`` as root would rewrite the real board)."""
    sys_dir = root / "sys"
    if os.path.ismount(sys_dir) or os.path.realpath(root) == "/":
        raise ConfigError(
            f"--sysfs-root: {root} holds a live sysfs; give an empty folder for the emulated tree"
        )


def _zone(root: Path, base: str, ztype: str, temp_c: float, shape: TreeShape, sensor: str) -> None:
    _write(root, f"{base}/type", ztype + "\n")
    _write(root, f"{base}/temp", str(round(temp_c * 1000)) + "\n")
    _write(root, f"{base}/mode", "enabled\n")
    _write(root, f"{base}/policy", "step_wise\n")
    for k, trip in enumerate(shape.trips.get(sensor, ())):
        _write(root, f"{base}/trip_point_{k}_type", trip.type + "\n")
        _write(root, f"{base}/trip_point_{k}_temp", f"{round(trip.temp_c * 1000)}\n")
        _write(root, f"{base}/trip_point_{k}_hyst", f"{round(trip.hyst_c * 1000)}\n")


def _chips(
    root: Path, shape: TreeShape, temps_c: dict[str, float], first: int, layout: FakeBoardLayout
) -> None:
    """hwmon chips of the tree shape: INA3221 rails (mV, mA), ADC inputs, temperature mirrors, fans;
    then its L4T 28 ``iio_device`` chips (:func:`_iio_chip`)."""
    for chip in shape.chips:
        if chip.i2c_device:
            _iio_chip(root, chip, layout)
    for i, chip in enumerate((c for c in shape.chips if not c.i2c_device), start=first):
        base = f"sys/class/hwmon/hwmon{i}"
        _write(root, f"{base}/name", chip.name + "\n")
        for n, rail in enumerate(chip.rails, start=1):
            _write(root, f"{base}/in{n}_label", rail.label + "\n")
            _write(root, f"{base}/in{n}_input", f"{round(rail.volt_v * 1000)}\n")
            _write(root, f"{base}/curr{n}_input", "0\n")
            layout.rails.append((f"{base}/curr{n}_input", rail))
        for n, mv in enumerate(chip.in_mv, start=1):
            _write(root, f"{base}/in{n}_input", f"{mv}\n")
        if chip.temp_of:
            _write(root, f"{base}/temp1_input", f"{round(temps_c[chip.temp_of] * 1000)}\n")
            layout.temp_mirrors.append((f"{base}/temp1_input", chip.temp_of))
        if chip.fan_rpm is not None:
            _write(root, f"{base}/fan1_input", f"{chip.fan_rpm}\n")
        for alarm in chip.alarms:
            _write(root, f"{base}/{alarm}", "0\n")


def _iio_chip(root: Path, chip: Chip, layout: FakeBoardLayout) -> None:
    """An INA3221 as L4T 28 shows it (``tx2_sysfs_power.h`` of
    github.com/JonghoKim-Harry/tx2-power-measurement: a TX2's
    ``/sys/devices/3160000.i2c/i2c-0/0-0041/iio_device/in_power0_input``): channels from 0."""
    dev = f"sys/devices/{chip.i2c_device}"
    base = f"{dev}/iio_device"
    _write(root, f"{base}/name", chip.name + "\n")
    for n, rail in enumerate(chip.rails):
        _write(root, f"{base}/rail_name_{n}", rail.label + "\n")
        _write(root, f"{base}/in_voltage{n}_input", f"{round(rail.volt_v * 1000)}\n")
        _write(root, f"{base}/in_current{n}_input", "0\n")
        _write(root, f"{base}/in_power{n}_input", "0\n")
        layout.rails.append((f"{base}/in_current{n}_input", rail))
        layout.rail_powers.append((f"{base}/in_power{n}_input", rail))
    link = root / "sys/bus/i2c/devices" / chip.i2c_device.rsplit("/", 1)[-1]
    if not link.is_symlink():
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(root / dev, link.parent))


def build_fake_board(
    board: BoardProfile, root: Path, temps_c: dict[str, float], shape: TreeShape | None = None
) -> FakeBoardLayout:
    """Create (or rebuild) the tree for ``board`` under ``root`` with the given readings.

    A rebuild clears what a previous emulator left: its ``POWERED_OFF`` marker and its sensors.
    """
    _check_root(root)
    shape = tree_shape(board) if shape is None else shape
    root.mkdir(parents=True, exist_ok=True)
    (root / POWERED_OFF).unlink(missing_ok=True)
    for rel in SENSOR_DIRS:
        shutil.rmtree(root / rel, ignore_errors=True)
    layout = FakeBoardLayout()
    model = board.dt_models[0] if board.dt_models else board.description
    _write(root, "proc/device-tree/model", model + "\0")
    zone = 0
    hwmon = 0
    for s in board.sensors:
        t = temps_c[s.name]
        if s.kind == "battery":
            base = "sys/class/power_supply/BAT0"
            for name, value in {
                "type": "Battery",
                "status": "Discharging",
                "present": "1",
                "capacity": "100",
                "temp": str(round(t * 10)),
            }.items():
                _write(root, f"{base}/{name}", value + "\n")
            layout.temp_files[s.name] = (f"{base}/temp", 10.0)
        elif s.kind == "hwmon":
            base = f"sys/class/hwmon/hwmon{hwmon}"
            _write(root, f"{base}/name", ((s.sysfs_names or (s.name,))[0]) + "\n")
            _write(root, f"{base}/temp1_input", str(round(t * 1000)) + "\n")
            layout.temp_files[s.name] = (f"{base}/temp1_input", 1000.0)
            hwmon += 1
        else:
            base = f"sys/class/thermal/thermal_zone{zone}"
            _zone(root, base, (s.sysfs_names or (s.name,))[0], t, shape, s.name)
            layout.temp_files[s.name] = (f"{base}/temp", 1000.0)
            zone += 1
    _chips(root, shape, temps_c, hwmon, layout)
    for d in board.domains:
        if d.kind == "cpufreq":
            _cpufreq(root, d, layout, shape)
        else:
            _devfreq(root, d, layout)
    return layout


def power_off(root: Path, why: str) -> None:
    """A dead board: the marker first (a reader never sees sensors vanish unexplained), then no sensors.

    The cpufreq/devfreq files stay, so a daemon still running can put its limits back.
    """
    tmp = root / f".{POWERED_OFF}.tmp"
    tmp.write_text(f"{why}\n", encoding="utf-8")
    os.replace(tmp, root / POWERED_OFF)
    for rel in SENSOR_DIRS:
        shutil.rmtree(root / rel, ignore_errors=True)
