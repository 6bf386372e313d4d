"""Session 20c: the fan of L4T 32 (JetPack 4: Nano, TX1, TX2, Xavier) is governable.

Its driver exposes ``/sys/devices/pwm-fan/target_pwm`` (0..255) and ``temp_control`` (1: the
kernel's curve drives it), no hwmon ``pwm1`` (hw/l4tfan.py).  Before this session
``fan = "governor"`` on such a board was refused ("no controllable fan").  Now both files are
journaled, ``temp_control`` is set to 0 before the first duty, and every exit puts them back,
the duty before ``temp_control``; bad contents are refused at start with one line.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.fakesys import FakeTree
from thermogov.hw.fan import HwFan, discover_fan
from thermogov.hw.sysfs import SysfsTree

FAN = "sys/devices/pwm-fan"
TARGET = f"{FAN}/target_pwm"
CONTROL = f"{FAN}/temp_control"
GOVERNED = '[run]\npolicy = "hysteresis"\nfan = "governor"\n'


def _nano_jp4(root: Path, *, target: object = 0, control: object = 1, cap: object = None) -> FakeTree:
    """A hot Nano with L4T 32's fan files (values as jetson_clocks --store lists them)."""
    t = fakesys.jetson_nano(root, cpu_mc=92000)
    t.write(TARGET, target)
    t.write(f"{FAN}/cur_pwm", 0)
    t.write(CONTROL, control)
    if cap is not None:
        t.write(f"{FAN}/pwm_cap", cap)
    return t


def _args(tmp: Path, config: str = GOVERNED) -> list[str]:
    cfg = tmp / "fan.toml"
    cfg.write_text(config)
    return [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg)]


def _start(args: list[str]) -> subprocess.Popen[bytes]:
    """``thermogov run`` through the installed script, once it said it started."""
    proc = subprocess.Popen(
        [*procutil.script(), "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    procutil.wait_line(proc, "thermogov: started")
    return proc


def test_a_nano_jp4_fan_is_governed_journaled_and_restored(tmp_path: Path) -> None:
    t = _nano_jp4(tmp_path / "root", target=37)
    before = t.snapshot()
    proc = _start(_args(tmp_path))
    body = json.loads((tmp_path / "state/journal.json").read_text())
    assert {a["rel"]: a["value"] for a in body["attrs"]} == {CONTROL: 1, TARGET: 37}
    assert t.read_int(CONTROL) == 0 and t.read_int(TARGET) == 255  # 92 °C: the curve's top
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert t.snapshot() == before


def test_kill_9_then_restore_puts_the_l4t_fan_back(tmp_path: Path) -> None:
    t = _nano_jp4(tmp_path / "root", target=80)
    before = t.snapshot()
    proc = _start(_args(tmp_path))
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert t.read_int(CONTROL) == 0  # left as the dead daemon set it
    done = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "2 fan setting(s)" in done.stdout + done.stderr
    assert t.snapshot() == before


def test_the_duty_is_restored_before_the_kernel_curve_is_handed_back(tmp_path: Path) -> None:
    """With temp_control back at 1 first, the kernel could set a fresh duty that the late
    target_pwm write would overwrite with the old one: the order is target, then control."""
    t = _nano_jp4(tmp_path / "root", target=37)
    tree = SysfsTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None and dev.target_rel == TARGET
    fan = HwFan(tree, dev)
    fan.apply(fan.levels - 1)
    order: list[str] = []
    real_write = fan.io.write_int

    def spy(rel: str, value: int) -> None:
        order.append(rel)
        real_write(rel, value)

    fan.io.write_int = spy  # type: ignore[method-assign]
    fan.restore()
    assert order == [TARGET, CONTROL]
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (37, 1)


def test_levels_stay_under_the_drivers_pwm_cap(tmp_path: Path) -> None:
    t = _nano_jp4(tmp_path / "root", cap=200)
    tree = SysfsTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None
    fan = HwFan(tree, dev)
    assert fan.apply(fan.levels - 1) == fan.levels - 1 and t.read_int(TARGET) == 200


@pytest.mark.parametrize(
    ("target", "control", "named"),
    [
        ("garbage\n", 1, "target_pwm"),
        (300, 1, "target_pwm"),
        (-1, 1, "target_pwm"),
        ("nan\n", 1, "target_pwm"),
        (0, 2, "temp_control"),
        (0, "\x00\n", "temp_control"),
    ],
)
def test_bad_fan_contents_are_refused_at_start_with_one_line(
    tmp_path: Path, target: object, control: object, named: str
) -> None:
    t = _nano_jp4(tmp_path / "root", target=target, control=control)
    before = t.snapshot()
    done = procutil.run_cli("run", *_args(tmp_path), "--duration", "1s")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and named in done.stderr and "Traceback" not in done.stderr
    assert t.snapshot() == before


def test_a_linked_target_pwm_is_refused_at_start(tmp_path: Path) -> None:
    t = _nano_jp4(tmp_path / "root")
    t.write("elsewhere/target_pwm", 0)
    (t.root / TARGET).unlink()
    t.link(TARGET, "elsewhere/target_pwm")
    before = t.snapshot()
    done = procutil.run_cli("run", *_args(tmp_path), "--duration", "1s")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "pwm-fan/target_pwm: is a symlink" in done.stderr
    assert t.snapshot() == before


def test_doctor_says_what_it_found_on_the_l4t_fan(tmp_path: Path) -> None:
    _nano_jp4(tmp_path / "root", target=300)
    done = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert done.returncode == 0, done.stderr
    assert "target_pwm 300, cur_pwm 0, temp_control 1 (the kernel's curve drives it)" in done.stdout
    assert "not governable as found" in done.stdout and "outside 0..255" in done.stdout


def test_without_the_opt_in_the_l4t_fan_is_left_alone(tmp_path: Path) -> None:
    t = _nano_jp4(tmp_path / "root", target=37)
    proc = _start(_args(tmp_path, '[run]\npolicy = "hysteresis"\n'))
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (37, 1)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0


@pytest.mark.parametrize(("pwm", "enable"), [(300, 1), (0, 7), ("x\n", 1)])
def test_a_hwmon_fan_reading_outside_its_range_is_refused_at_start(
    tmp_path: Path, pwm: object, enable: int
) -> None:
    """The same rule for the hwmon fan: on main such a pwm1 was journaled, and after kill -9
    the journal restore refused it (outside 0..255), leaving the fan where thermogov put it."""
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    fakesys.pwm_fan(t, board="jetson", cdev=None, pwm=0, enable=enable)
    t.write("sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1", pwm)  # type: ignore[arg-type]
    before = t.snapshot()
    done = procutil.run_cli("run", *_args(tmp_path), "--duration", "1s")
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "hwmon2/pwm1" in done.stderr
    assert t.snapshot() == before
