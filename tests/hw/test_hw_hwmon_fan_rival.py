"""Session 21d: another writer of a hwmon fan's ``pwm1`` is a rival too (hw/fan.py's one rule).

jtop, fancontrol or a user's ``echo`` writing ``pwm1``/``pwm1_enable`` of a fan thermogov
governs through the hwmon (Orin's ``pwm-fan`` without a cooling device): read back other than
thermogov last wrote, the fan is left to that writer (said once, dropped from the journal, not
restored), never fought.  The driver's read-back of our own write is ours, whatever it is.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

from tests.hw import fakesys, procutil
from tests.hw.fakesys import FakeTree
from thermogov.hw.fan import HwFan, discover_fan
from thermogov.hw.sysfs import SysfsTree

HWMON = "sys/class/hwmon/hwmon2"
PWM = f"{HWMON}/pwm1"
ENABLE = f"{HWMON}/pwm1_enable"
REAL_PWM = "sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1"
REAL_ENABLE = "sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1_enable"
LEFT = "another writer drives the fan"


def _orin(root: Path, *, enable: int | None = 2) -> FakeTree:
    """A hot Orin Nano whose pwm-fan only the hwmon controls (no cooling device)."""
    t = fakesys.orin_nano(root, cpu_mc=92000, gpu_mc=92000)
    fakesys.pwm_fan(t, board="orin", cdev=None, pwm=40, enable=2 if enable is None else enable)
    if enable is None:  # a kernel before pwm-fan's pwm1_enable (5.10/5.15: JetPack 5, 6)
        (t.root / REAL_ENABLE).unlink()
    return t


def _clocked(t: FakeTree) -> tuple[HwFan, list[float]]:
    """The tree's fan, on a clock the test moves (``now[0]``): one read-back per instant."""
    tree = SysfsTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None
    now = [0.0]
    return HwFan(tree, dev, clock=lambda: now[0]), now


def _start(tmp: Path) -> subprocess.Popen[bytes]:
    proc = procutil.start_run(tmp, run_lines='fan = "governor"\n')
    procutil.wait_line(proc, "thermogov: started")
    return proc


def _journal_fan(tmp: Path) -> dict[str, int]:
    body = json.loads((tmp / "state/journal.json").read_text())
    return {a["rel"].rsplit("/", 1)[-1]: a["value"] for a in body.get("attrs") or []}


def _stop(proc: subprocess.Popen[bytes]) -> str:
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()
    return err.decode()


def test_a_pwm1_written_by_another_leaves_the_fan_to_it(tmp_path: Path) -> None:
    """A user's ``echo 100 > pwm1`` mid-run: on main thermogov wrote 255 over it every tick."""
    t = _orin(tmp_path / "root")
    proc = _start(tmp_path)
    assert (t.read_int(PWM), t.read_int(ENABLE)) == (255, 1)
    assert _journal_fan(tmp_path) == {"pwm1_enable": 2, "pwm1": 40}
    t.write(REAL_PWM, 100)
    line = procutil.wait_line(proc, LEFT, "stderr")
    assert "pwm1 reads 100, not 255 as thermogov last wrote" in line
    assert _journal_fan(tmp_path) == {}
    err = _stop(proc)
    assert LEFT not in err  # said once
    assert (t.read_int(PWM), t.read_int(ENABLE)) == (100, 1)  # left as that writer set it
    summaries = list((tmp_path / "out").rglob("summary.json"))
    assert [json.loads(p.read_text())["fan_owner"] for p in summaries] == ["another writer"]


def test_pwm1_enable_set_by_another_leaves_the_fan(tmp_path: Path) -> None:
    """Someone hands the fan back to automatic (2) mid-run: not written back to 1."""
    t = _orin(tmp_path / "root")
    proc = _start(tmp_path)
    t.write(REAL_ENABLE, 2)
    line = procutil.wait_line(proc, LEFT, "stderr")
    assert "pwm1_enable reads 2, not 1" in line
    _stop(proc)
    assert t.read_int(ENABLE) == 2


def test_kill_9_after_the_fan_was_left_then_restore_does_not_write_it(tmp_path: Path) -> None:
    t = _orin(tmp_path / "root", enable=None)
    proc = _start(tmp_path)
    t.write(REAL_PWM, 90)
    procutil.wait_line(proc, LEFT, "stderr")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    done = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert done.returncode == 0, done.stderr
    assert t.read_int(PWM) == 90


def test_an_undisturbed_hwmon_fan_is_restored_as_found(tmp_path: Path) -> None:
    t = _orin(tmp_path / "root")
    before = t.snapshot()
    proc = _start(tmp_path)
    err = _stop(proc)
    assert LEFT not in err and t.snapshot() == before


def test_the_drivers_read_back_of_our_write_is_ours(tmp_path: Path) -> None:
    """A driver keeping a duty of its own steps (here: multiples of 4) reads back other than
    written: what it kept after our write is ours, never a rival."""
    t = _orin(tmp_path / "root")
    tree = SysfsTree(t.root)
    dev = discover_fan(tree)
    assert dev is not None and dev.cdev_rel is None
    fan = HwFan(tree, dev)
    raw = fan.io.write_int

    def driver(rel: str, value: int) -> None:
        raw(rel, value // 4 * 4 if rel == dev.pwm_rel else value)

    fan.io.write_int = driver  # type: ignore[method-assign]
    for level in (fan.levels - 1, 1, 2):
        fan.apply(level)
        assert fan.level == level and not fan.left
    fan.restore()
    assert (t.read_int(PWM), t.read_int(ENABLE)) == (40, 2)


def test_the_kernels_automatic_control_before_the_first_write_is_not_a_rival(tmp_path: Path) -> None:
    """pwm1_enable 2 as found: pwm1 moving before thermogov's first write is not another writer;
    after it (pwm1_enable 1, ours) a move is."""
    t = _orin(tmp_path / "root")
    fan, now = _clocked(t)
    t.write(REAL_PWM, 128)
    now[0] = 0.1
    assert fan.level == 2 and not fan.left
    fan.apply(fan.levels - 1)
    assert (t.read_int(PWM), t.read_int(ENABLE)) == (255, 1)
    t.write(REAL_PWM, 64)
    now[0] = 0.2
    assert fan.level == 1 and "reads 64, not 255 as thermogov last wrote" in fan.left
    assert fan.apply(fan.levels - 1) == 1 and t.read_int(PWM) == 64  # never written over
    fan.restore()
    assert (t.read_int(PWM), t.read_int(ENABLE)) == (64, 1)
