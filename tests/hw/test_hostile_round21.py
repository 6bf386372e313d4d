"""Session 21c's hostile round: sysfs contents and board trees session 20c did not try.

Each case failed on main (docs/hardware.md, "Session 21c"), driven through the installed script:

* a ``related_cpus`` range no kernel prints (``0-999999``) was expanded in full: ``doctor``
  listed a million CPUs, and ``0-99999999`` kept ``doctor`` and ``run`` busy for minutes;
* a ``scaling_available_frequencies`` in Hz (1000 times the driver's ``cpuinfo`` range) was
  governed: its lowest cap lay above every limit, so a hot Pi 5 ran at its top clock all run;
* an INA3221 input rail reading a negative voltage and a negative current was taken as the
  board's power (their positive product);
* a zone whose ``type`` failed to read (EIO) made ``doctor`` say "no board here" and ``run``
  "zones: none", naming no file;
* a pwm-fan cooling device with ``max_state`` 10^11 ended ``run`` with ``fan = "governor"`` in an
  internal error (MemoryError, exit 1) instead of a refusal naming the file;
* the input rail's ``in1_label`` failing to read (EIO) left "no VDD_IN rail found", the file
  named nowhere.
"""

from __future__ import annotations

import csv
import errno
from pathlib import Path

from tests.hw import fakesys, faultshim, procutil

POLICY0 = "sys/devices/system/cpu/cpufreq/policy0"
RAIL = "sys/devices/platform/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1"
CDEV = "sys/devices/virtual/thermal/cooling_device0"


def _run(tmp: Path, *extra: str, fan: bool = False, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    cfg = tmp / "c.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n' + ('fan = "governor"\n' if fan else ""))
    return procutil.run_cli(
        "run", *procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), *extra, env=env
    )


def _trace(tmp: Path) -> list[dict[str, str]]:
    path = next((tmp / "out").rglob("trace.csv"))
    with path.open() as fh:
        return list(csv.DictReader(fh))


def _one_line_refusal(done, *needles: str) -> None:  # type: ignore[no-untyped-def]
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert all(n in last for n in needles), last


def test_a_related_cpus_range_no_kernel_prints_is_not_expanded(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    t.write(f"{POLICY0}/related_cpus", "0-999999\n")
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    line = next(ln for ln in done.stdout.splitlines() if ln.strip().startswith("policy0"))
    assert "cpus ?" in line and "999999" not in line  # main listed 0,1,...,999999
    assert len(done.stdout) < 20000


def test_a_related_cpus_list_a_kernel_prints_is_still_read(tmp_path: Path) -> None:
    """A guard: ranges and lists within NR_CPUS read as before."""
    t = fakesys.rpi5(tmp_path / "root")
    t.write(f"{POLICY0}/related_cpus", "0-2,3\n")
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert "cpus 0,1,2,3 " in done.stdout


def test_an_opp_list_in_hz_is_refused_not_governed_uncapped(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    hz = " ".join(str(k * 1000) for k in fakesys.RPI5_CPU_KHZ)
    t.write(f"{POLICY0}/scaling_available_frequencies", hz + " \n")
    before = t.snapshot()
    done = _run(tmp_path, "--duration", "1")
    # main: exit 0, the hot board's cap "lowest" in the trace and scaling_max_freq at its top
    _one_line_refusal(done, "scaling_available_frequencies", "cpuinfo_min_freq..cpuinfo_max_freq")
    assert t.snapshot() == before


def test_an_opp_list_partly_inside_the_cpuinfo_range_is_governed(tmp_path: Path) -> None:
    """A guard: a list with one OPP past ``cpuinfo_max_freq`` (a vendor driver's binning) is
    governed on its OPPs within the limits, as before."""
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    t.write(f"{POLICY0}/scaling_available_frequencies", "1500000 1800000 2400000 2600000 \n")
    done = _run(tmp_path, "--duration", "1")
    assert done.returncode == 0, done.stderr
    assert {r["cpu_cap_hz"] for r in _trace(tmp_path)[1:]} == {"1500000000"}


def test_a_rail_of_negative_volts_and_amps_is_no_power(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    t.write(f"{RAIL}/in1_input", "-4990\n")
    t.write(f"{RAIL}/curr1_input", "-968\n")
    doctor = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert "board power is unreadable" in doctor.stderr and "in1_input: -4990 mV" in doctor.stderr
    done = _run(tmp_path, "--duration", "1")
    assert done.returncode == 0, done.stderr
    assert {r["power_w"] for r in _trace(tmp_path)} == {""}  # main: 4.8303 W every tick


def _doctor_with_eio(tmp: Path, shim: Path, suffix: str):  # type: ignore[no-untyped-def]
    """``doctor`` on the tree under ``tmp/root`` with ``suffix`` answering EIO to reads; (its
    result, the fault shim's environment for further commands)."""
    rules = tmp / "faults"
    faultshim.write_rules(rules, [(suffix, "r", errno.EIO)])
    env = faultshim.env(shim, rules, tmp / "root")
    return procutil.run_cli("doctor", "--sysfs-root", str(tmp / "root"), env=env), env


def test_a_zone_whose_type_fails_to_read_is_named(tmp_path: Path, shim: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    doctor, env = _doctor_with_eio(tmp_path, shim, "thermal_zone0/type")
    assert doctor.returncode == 1 and "thermal_zone0/type: read failed (EIO" in doctor.stderr
    done = _run(tmp_path, "--duration", "1", env=env)
    _one_line_refusal(done, "thermal_zone0/type: read failed (EIO")


def test_a_fan_of_more_states_than_duties_is_refused(tmp_path: Path) -> None:
    t = fakesys.pwm_fan(fakesys.rpi5(tmp_path / "root", cpu_mc=70000))
    t.write(f"{CDEV}/max_state", "99999999999\n")
    before = t.snapshot()
    done = _run(tmp_path, "--duration", "1", fan=True)
    _one_line_refusal(done, "cooling_device0/max_state reads 99999999999", 'fan = "board"')
    assert t.snapshot() == before


def test_a_rail_label_that_fails_to_read_is_named(tmp_path: Path, shim: Path) -> None:
    fakesys.orin_nano(tmp_path / "root")
    doctor, _env = _doctor_with_eio(tmp_path, shim, "hwmon1/in1_label")
    assert doctor.returncode == 0, doctor.stderr
    problems = doctor.stdout.split("problems:")[-1]  # main: no problems section at all
    assert "hwmon1/in1_label: read failed (EIO" in problems
