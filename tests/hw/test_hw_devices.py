"""Real sensors and cap actuators against fake trees and a kernel double."""

from __future__ import annotations

import errno
import itertools
from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.fakesys import FakeTree, KernelTree
from thermogov.board import load_board
from thermogov.hw.devices import CapActuator, TempFileSensor, open_sensor
from thermogov.hw.discovery import discover
from thermogov.hw.limits import DryRunIO, window_writes
from thermogov.hw.mapping import map_board
from thermogov.hw.sysfs import SysfsTree
from thermogov.hw.telemetry import HwTelemetry
from thermogov.interfaces import ActuatorError, FrequencyActuator, SensorError, SensorSource

ZONE = "sys/devices/virtual/thermal/thermal_zone0/temp"
POLICY = "sys/devices/system/cpu/cpufreq/policy0"


def _cpu_actuator(tree: SysfsTree, board: str = "rpi5", *, dry_run: bool = False) -> CapActuator:
    bmap = map_board(discover(tree), load_board(board))
    return CapActuator.open(tree, bmap.domains[0], dry_run=dry_run)


# -- sensors ---------------------------------------------------------------------------------------
def test_thermal_zone_sensor_converts_millidegrees_and_reads_fresh(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path, cpu_mc=47712)
    tree = SysfsTree(tmp_path)
    bmap = map_board(discover(tree), load_board("rpi5"))
    s = open_sensor(tree, bmap.sensors[0], clock=lambda: 12.5)
    assert isinstance(s, SensorSource)
    r = s.read()
    assert (r.sensor, r.value_c, r.t_s) == ("cpu", 47.712, 12.5)
    t.write(ZONE, 80123)
    assert s.read().value_c == pytest.approx(80.123)


def test_battery_sensor_converts_tenths(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path, battery_decic=312)
    tree = SysfsTree(tmp_path)
    bmap = map_board(discover(tree), load_board("jetson-orin-nano"))
    bat = next(b for b in bmap.sensors if b.sensor.name == "battery")
    assert open_sensor(tree, bat).read().value_c == pytest.approx(31.2)


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("", "empty"),
        ("garbage\n", "not a whole number"),
        ("-256000\n", "offline"),
        ("151000\n", "outside"),
        ("-41000\n", "outside"),
        ("2147483647\n", "outside"),
    ],
)
def test_values_that_mean_no_reading_raise(tmp_path: Path, content: str, needle: str) -> None:
    t = FakeTree(tmp_path)
    t.zone(0, "cpu-thermal")
    t.write(ZONE, content)
    s = TempFileSensor(SysfsTree(tmp_path), "cpu", "sys/class/thermal/thermal_zone0/temp", 1000.0)
    with pytest.raises(SensorError, match=needle):
        s.read()


@pytest.mark.parametrize("code", [errno.EIO, errno.ENODATA])
def test_read_errors_raise_sensor_error(tmp_path: Path, code: int) -> None:
    FakeTree(tmp_path).zone(0, "cpu-thermal")
    kt = KernelTree(tmp_path)
    kt.faults["sys/class/thermal/thermal_zone0/temp"] = code
    with pytest.raises(SensorError, match=errno.errorcode[code]):
        TempFileSensor(kt, "cpu", "sys/class/thermal/thermal_zone0/temp", 1000.0).read()


def test_edges_of_the_valid_range_are_readings(tmp_path: Path) -> None:
    t = FakeTree(tmp_path)
    t.zone(0, "cpu-thermal")
    s = TempFileSensor(SysfsTree(tmp_path), "cpu", "sys/class/thermal/thermal_zone0/temp", 1000.0)
    for mc in (-40000, 150000):
        t.write(ZONE, mc)
        assert s.read().value_c == mc / 1000


# -- write order ----------------------------------------------------------------------------------
def test_window_writes_are_valid_on_pre_54_kernels_for_every_transition() -> None:
    """Exhaustive over a small grid: no intermediate state ever has min > max."""
    values = range(1, 6)
    for cmin, cmax, nmin, nmax in itertools.product(values, repeat=4):
        if cmin > cmax or nmin > nmax:
            continue
        lo, hi = cmin, cmax
        for which, v in window_writes(cmin, cmax, nmin, nmax, force=True):
            if which == "min":
                assert v <= hi, (cmin, cmax, nmin, nmax)
                lo = v
            else:
                assert v >= lo, (cmin, cmax, nmin, nmax)
                hi = v
        assert (lo, hi) == (nmin, nmax)


def test_unchanged_limits_are_not_rewritten_unless_forced() -> None:
    assert window_writes(600, 1500, 600, 1000, force=False) == [("max", 1000)]
    assert window_writes(600, 1500, 600, 1500, force=True) == [("min", 600), ("max", 1500)]


# -- actuators ------------------------------------------------------------------------------------
def test_actuator_contract_and_table(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path)
    a = _cpu_actuator(SysfsTree(tmp_path))
    assert isinstance(a, FrequencyActuator)
    assert a.table_hz == tuple(k * 1000 for k in fakesys.RPI5_CPU_KHZ)
    assert a.cap_hz == 2_400_000_000


def test_apply_writes_table_members_in_khz_and_reads_back(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path)
    kt = KernelTree(tmp_path, "new")
    a = _cpu_actuator(kt)
    assert a.apply(1_800_000_000) == 1_800_000_000
    assert t.read_int(f"{POLICY}/scaling_max_freq") == 1800000
    for _, value in kt.writes:
        assert value * 1000 in a.table_hz


def test_non_table_cap_is_refused_and_nothing_written(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path)
    kt = KernelTree(tmp_path)
    a = _cpu_actuator(kt)
    before = t.snapshot()
    for bad in (1_850_000_000, 1_000_000_000, 2_500_000_000):  # between OPPs, below the floor, above
        with pytest.raises(ActuatorError, match="not an OPP"):
            a.apply(bad)
    assert kt.writes == [] and t.snapshot() == before


def test_old_kernel_lowering_below_current_min_lowers_min_first(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path)  # scaling_min_freq is 729.6 MHz as nvpmodel sets it
    t.write(f"{POLICY}/scaling_min_freq", 1344000)
    t.write("sys/devices/system/cpu/cpufreq/policy4/scaling_min_freq", 1344000)
    kt = KernelTree(tmp_path, "old")  # EINVAL if max < min at any moment
    a = _cpu_actuator(kt, "jetson-orin-nano")
    assert a.apply(806_400_000) == 806_400_000
    p0 = [(p.rsplit("/", 1)[1], v) for p, v in kt.writes if "policy0" in p]
    assert p0 == [("scaling_min_freq", 806400), ("scaling_max_freq", 806400)]
    # raising again: max first, and min goes back to what it was
    kt.writes.clear()
    assert a.apply(1_510_400_000) == 1_510_400_000
    p0 = [(p.rsplit("/", 1)[1], v) for p, v in kt.writes if "policy0" in p]
    assert p0 == [("scaling_max_freq", 1510400), ("scaling_min_freq", 1344000)]
    assert t.read_int(f"{POLICY}/scaling_min_freq") == 1344000


def test_new_kernel_silent_clamp_is_read_back(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path)
    kt = KernelTree(tmp_path, "new")
    kt.thermal_cap[POLICY] = 2_000_000  # a kernel trip holds the QoS max at 2.0 GHz
    a = _cpu_actuator(kt)
    assert a.apply(2_200_000_000) == 2_000_000_000
    assert a.cap_hz == 2_000_000_000


def test_multi_policy_domain_writes_every_policy_and_reports_the_highest(tmp_path: Path) -> None:
    t = fakesys.agx_orin(tmp_path)
    kt = KernelTree(tmp_path, "new")
    kt.thermal_cap["sys/devices/system/cpu/cpufreq/policy8"] = 729600  # one cluster held low
    a = _cpu_actuator(kt, "jetson-agx-orin")
    assert a.apply(1_497_600_000) == 1_497_600_000
    for p in (0, 4):
        assert t.read_int(f"sys/devices/system/cpu/cpufreq/policy{p}/scaling_max_freq") == 1497600
    assert t.read_int("sys/devices/system/cpu/cpufreq/policy8/scaling_max_freq") == 729600


def test_devfreq_actuator_writes_hz(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path)
    tree = KernelTree(tmp_path, "new")
    bmap = map_board(discover(tree), load_board("jetson-orin-nano"))
    gpu = CapActuator.open(tree, bmap.domains[1])
    assert gpu.table_hz == fakesys.ORIN_NANO_GPU_HZ
    assert gpu.apply(408_000_000) == 408_000_000
    assert t.read_int("sys/devices/17000000.ga10b/devfreq/17000000.ga10b/max_freq") == 408000000
    assert gpu.effective_hz() == 306_000_000


def test_restore_puts_back_exactly_the_originals(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path)
    before = t.snapshot()
    kt = KernelTree(tmp_path, "old")
    a = _cpu_actuator(kt, "jetson-orin-nano")
    a.apply(729_600_000)
    assert t.snapshot() != before
    a.restore()
    assert t.snapshot() == before


def test_write_error_is_an_actuator_error_naming_errno(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path)
    kt = KernelTree(tmp_path)
    a = _cpu_actuator(kt)
    kt.write_faults[f"{POLICY}/scaling_max_freq"] = errno.EBUSY
    with pytest.raises(ActuatorError, match="EBUSY"):
        a.apply(1_500_000_000)


def test_unreadable_current_freq_is_none_not_a_number(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path)
    kt = KernelTree(tmp_path)
    a = _cpu_actuator(kt)
    kt.faults[f"{POLICY}/scaling_cur_freq"] = errno.EIO
    assert a.effective_hz() is None


def test_dry_run_actuator_owns_nothing_and_records_writes(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path)
    before = t.snapshot()
    tree = SysfsTree(tmp_path)
    a = _cpu_actuator(tree, dry_run=True)
    assert isinstance(a.io, DryRunIO)
    assert a.apply(1_500_000_000) == 1_500_000_000
    assert a.io.drain() == [f"{tmp_path}/{POLICY}/scaling_max_freq=1500000"]
    a.restore()
    assert tree.owned() == frozenset() and t.snapshot() == before


def test_table_stops_at_the_limit_in_force(tmp_path: Path) -> None:
    fakesys.xavier_nx(tmp_path)
    t = FakeTree(tmp_path)
    t.write(f"{POLICY}/scaling_max_freq", 1190400)  # nvpmodel 10W mode
    a = _cpu_actuator(SysfsTree(tmp_path), "jetson-xavier-nx")
    assert a.table_hz[0] == 729_600_000 and a.table_hz[-1] == 1_190_400_000


# -- telemetry ------------------------------------------------------------------------------------
def test_power_from_ina3221_read_once_per_tick(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path)
    tree = SysfsTree(tmp_path)
    bmap = map_board(discover(tree), load_board("jetson-orin-nano"))
    tel = HwTelemetry(tree, bmap.power, lambda: 7)
    assert tel.power_w() == pytest.approx(4.99 * 0.968)
    t.write("sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1/curr1_input", 2000)
    assert tel.power_w() == pytest.approx(4.99 * 0.968)  # same tick
    tel.new_tick()
    assert tel.power_w() == pytest.approx(4.99 * 2.0)
    assert tel.inferences_total() == 7


def test_no_rail_and_no_workload_mean_unknown_not_zero(tmp_path: Path) -> None:
    tel = HwTelemetry(SysfsTree(tmp_path))
    assert tel.power_w() is None and tel.inferences_total() is None
