"""Board-tree shapes from the robust7a campaign (bench/board_shapes.py), through the installed script.

Each test builds a fake tree in a shape real kernels produce, runs the ``thermogov`` console
script in a subprocess (with ``tests/hw/faultshim.c`` preloaded where an attribute must answer
with an errno, as a driver's ``store()`` does), and checks the promises: every byte of the tree
back as it was, the exit status, one line on stderr for a refusal.
"""

from __future__ import annotations

import errno
import json
import signal
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil
from tests.hw.fakesys import KernelTree
from thermogov.board import load_board
from thermogov.hw.devices import open_sensor
from thermogov.hw.discovery import discover
from thermogov.hw.fan import HwFan, require_fan
from thermogov.hw.idle import IdleInjector
from thermogov.hw.mapping import map_board
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError, SensorError
from thermogov.trace import load_trace

FAN_STATE = "sys/devices/virtual/thermal/cooling_device0/cur_state"
IDLE = "sys/devices/virtual/thermal/cooling_device2"
P0 = "sys/devices/system/cpu/cpufreq/policy0"


def _run(tmp: Path, shim: Path, rules: list[tuple[str, str, int]], config: str, *extra: str):
    faultshim.write_rules(tmp / "faults", rules)
    cfg = tmp / "cfg.toml"
    cfg.write_text(config)
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), *extra]
    return subprocess.Popen(
        [*procutil.script(), "run", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=faultshim.env(shim, tmp / "faults", tmp / "root"),
    )


def _fan_and_idle_board(tmp: Path) -> fakesys.FakeTree:
    t = fakesys.rpi5(tmp / "root", cpu_mc=95000)
    fakesys.pwm_fan(t, state=1, pwm=75)
    t.write(f"{IDLE}/type", "thermal-idle\n")
    t.write(f"{IDLE}/max_state", 100)
    t.write(f"{IDLE}/cur_state", 0)
    t.link("sys/class/thermal/cooling_device2", IDLE)
    return t


FAN_AND_IDLE = '[run]\npolicy = "hysteresis"\nfan = "governor"\n[lever]\nenabled = true\n'


@pytest.mark.parametrize("path", ["duration", "sigterm", "kill-9 then restore"])
def test_a_fan_and_idle_state_that_refuse_every_write_but_hold_their_originals_restore_cleanly(
    tmp_path: Path, shim: Path, path: str
) -> None:
    # The fan driver and the idle-injection device refuse every write (EPERM, EBUSY): nothing
    # of theirs ever changes, so their restore has nothing left changed.  Before, the restore
    # reported the refused write as "left changed": exit 1, journal kept, every later start
    # failing the same way.
    t = _fan_and_idle_board(tmp_path)
    before = t.snapshot()
    rules = [(FAN_STATE, "w", errno.EPERM), (f"{IDLE}/cur_state", "w", errno.EBUSY)]
    duration = "1.5s" if path == "duration" else "60s"
    proc = _run(tmp_path, shim, rules, FAN_AND_IDLE, "--duration", duration)
    if path != "duration":
        procutil.wait_line(proc, "thermogov: started")
        if path == "sigterm":
            proc.send_signal(signal.SIGTERM)
        else:
            proc.kill()
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    if path == "kill-9 then restore":
        r = subprocess.run(
            [*procutil.script(), "restore", *procutil.paths(tmp_path)],
            capture_output=True,
            text=True,
            timeout=procutil.DEADLINE_S,
            env=faultshim.env(shim, tmp_path / "faults", tmp_path / "root"),
        )
        assert r.returncode == 0, r.stderr
    else:
        assert proc.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()
    assert t.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()


def test_a_fan_write_refused_after_the_fan_was_moved_is_still_reported(tmp_path: Path) -> None:
    # The other side of the rule: the fan took the governor's level, then refuses the restore;
    # it does not hold its original, so the restore fails naming the attribute.
    t = _fan_and_idle_board(tmp_path)
    kt = KernelTree(t.root)
    fan = HwFan(kt, require_fan(kt))
    fan.apply(fan.levels - 1)
    kt.write_faults[FAN_STATE] = errno.EPERM
    with pytest.raises(ActuatorError, match="cur_state"):
        fan.restore()
    idle = IdleInjector.open(kt)
    assert idle is not None
    idle.set_load(None, 0.5)
    kt.write_faults[f"{IDLE}/cur_state"] = errno.EBUSY
    with pytest.raises(ActuatorError, match="cur_state"):
        idle.restore()


def _cli(tmp: Path, *args: str, shim: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = faultshim.env(shim, tmp / "faults", tmp / "root") if shim is not None else None
    return procutil.run_cli(*args, env=env)


def _run_briefly(tmp: Path, *extra: str, shim: Path | None = None) -> subprocess.CompletedProcess[str]:
    cfg = tmp / "hysteresis.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [
        "run",
        *procutil.paths(tmp),
        "--out",
        str(tmp / "out"),
        "--config",
        str(cfg),
        "--duration",
        "1.5s",
    ]
    return _cli(tmp, *args, *extra, shim=shim)


def _disjoint_clusters(tmp: Path) -> fakesys.FakeTree:
    """An Orin Nano tree whose second cluster has a table of its own, sharing no OPP (big.LITTLE)."""
    t = fakesys.orin_nano(tmp / "root", jetpack=6, cpu_mc=92000, gpu_mc=92000)
    own = [f + 9600 for f in fakesys.ORIN_NANO_CPU_KHZ]
    rel = "sys/devices/system/cpu/cpufreq/policy4"
    t.write(f"{rel}/scaling_available_frequencies", " ".join(map(str, own)) + " \n")
    for name, value in (("cpuinfo_min_freq", own[0]), ("cpuinfo_max_freq", own[-1])):
        t.write(f"{rel}/{name}", value)
    for name in ("scaling_min_freq", "scaling_max_freq", "scaling_cur_freq"):
        t.write(f"{rel}/{name}", own[-1] if name != "scaling_min_freq" else own[0])
    return t


def test_clusters_that_share_no_opp_leave_the_domain_ungoverned_with_the_reason(tmp_path: Path) -> None:
    # Before: doctor and run ended in "internal error: IndexError" (an empty governed table).
    t = _disjoint_clusters(tmp_path)
    before = t.snapshot()
    doc = _cli(tmp_path, "doctor", "--sysfs-root", str(tmp_path / "root"))
    assert doc.returncode == 0, doc.stderr
    assert "policy0+policy4 share no OPP" in doc.stdout
    r = _run_briefly(tmp_path)
    assert r.returncode == 0, r.stderr
    assert "domain cpu is not governed (policy0+policy4 share no OPP" in r.stderr
    assert "Traceback" not in r.stderr
    assert t.snapshot() == before


def test_a_read_only_limit_is_refused_before_anything_is_written(tmp_path: Path, shim: Path) -> None:
    # sysfs refuses a 0444 attribute's write even to root (kernfs_fop_open, EACCES).  Before, the
    # daemon started, failed the write mid-run and ended in FAILSAFE; now the device is not
    # governable, and a Pi 5 whose only domain it is refuses to start: exit 2, one line.
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    limit = f"{P0}/scaling_max_freq"
    (t.root / limit).chmod(0o444)
    faultshim.write_rules(tmp_path / "faults", [(limit, "w", errno.EACCES)])
    before = t.snapshot()
    r = _run_briefly(tmp_path, shim=shim)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "scaling_max_freq: read-only (mode 444)" in lines[0], r.stderr
    assert t.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()
    doc = _cli(tmp_path, "doctor", "--sysfs-root", str(tmp_path / "root"))
    assert "read-only" in doc.stdout


@pytest.mark.parametrize(("twin_mc", "disabled"), [(-40000, False), (45000, True)])
def test_a_dead_twin_zone_ahead_of_the_live_one_does_not_hide_the_heat(
    tmp_path: Path, twin_mc: int, disabled: bool
) -> None:
    # Before: the first zone of the name was bound; a twin reading its -40 °C floor (or a
    # disabled zone's 45 °C) stood for the CPU and the 92 °C board ran at full CPU clocks.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=92000, gpu_mc=92000)
    fakesys.zone_ahead(t, "cpu-thermal", twin_mc, disabled=disabled)
    before = t.snapshot()
    doc = _cli(tmp_path, "doctor", "--sysfs-root", str(tmp_path / "root"))
    assert "thermal_zone0 (cpu-thermal) + thermal_zone1, the hottest" in doc.stdout, doc.stdout
    r = _run_briefly(tmp_path)
    assert r.returncode == 0, r.stderr
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    tr = load_trace(run_dir)
    assert {v for v in tr["cpu_c"] if v is not None} == {92.0}
    lowest_khz = min(fakesys.ORIN_NANO_CPU_KHZ)
    assert tr["cpu_cap_hz"][-1] < max(fakesys.ORIN_NANO_CPU_KHZ) * 1000, "the hot CPU must be capped"
    assert min(v for v in tr["cpu_cap_hz"] if v is not None) >= lowest_khz * 1000
    assert t.snapshot() == before


def test_twin_zones_read_the_hottest_valid_value_and_fail_only_when_all_fail(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=50000)
    fakesys.zone_ahead(t, "cpu-thermal", -256000)  # Tegra's offline marker: no reading
    tree = SysfsTree(t.root)
    (b,) = [x for x in map_board(discover(tree), load_board("rpi5")).sensors if x.sensor.name == "cpu"]
    assert b.twins, "both zones named cpu-thermal are read"
    sensor = open_sensor(tree, b)
    assert sensor.read().value_c == 50.0
    t.write("sys/devices/virtual/thermal/thermal_zone1/temp", 200000)  # out of range: no reading
    with pytest.raises(SensorError, match="offline"):
        sensor.read()


def test_a_read_only_cluster_is_left_alone_and_the_other_clusters_are_governed(
    tmp_path: Path, shim: Path
) -> None:
    # AGX Orin, policy4's max read-only: policy0 and policy8 are still capped (leaving the whole
    # CPU domain free would run a hot board's other clusters at full clock), policy4 is never
    # owned, and everything is back after a kill -9 and `thermogov restore`.
    t = fakesys.agx_orin(tmp_path / "root", cpu_mc=92000, gpu_mc=92000)
    limit = "sys/devices/system/cpu/cpufreq/policy4/scaling_max_freq"
    (t.root / limit).chmod(0o444)
    before = t.snapshot()
    proc = _run(
        tmp_path, shim, [(limit, "w", errno.EACCES)], '[run]\npolicy = "hysteresis"\n', "--duration", "60s"
    )
    procutil.wait_line(proc, "thermogov: started")
    proc.kill()
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert "policy4/scaling_max_freq: read-only (mode 444)" in err.decode()
    body = json.loads((tmp_path / "state" / "journal.json").read_text())
    assert sorted(e["label"] for e in body["entries"] if "policy" in e["label"]) == ["policy0", "policy8"]
    r = _cli(tmp_path, "restore", *procutil.paths(tmp_path), shim=shim)
    assert r.returncode == 0, r.stderr
    assert t.snapshot() == before
