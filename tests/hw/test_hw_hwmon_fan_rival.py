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


PI5_LEVELS = (0, 75, 125, 175, 250)  # bcm2712-rpi-5-b.dts cooling-levels
PI5_STATE = "sys/devices/virtual/thermal/cooling_device0/cur_state"
PI5_PWM = "sys/devices/platform/cooling_fan/hwmon/hwmon2/pwm1"


def _pi5(root: Path) -> FakeTree:
    t = fakesys.rpi5(root, cpu_mc=88000)
    fakesys.pwm_fan(t, board="rpi5", hwmon=2, cdev=0, pwm=75, state=1)
    return t


class _PwmFanDriver:
    """mainline pwm-fan's two writers of one fan (drivers/hwmon/pwm-fan.c): a cur_state change
    writes that state's cooling level to pwm1 (``pwm_fan_set_cur_state``, a no-op for the state
    it is in); a pwm1 write keeps the duty and moves the state (``pwm_fan_update_state``)."""

    def __init__(self, t: FakeTree) -> None:
        self.t = t

    def set_state(self, state: int) -> None:
        if state != self.t.read_int(PI5_STATE):
            self.t.write(PI5_PWM, PI5_LEVELS[state])
        self.t.write(PI5_STATE, state)

    def set_pwm(self, pwm: int) -> None:
        self.t.write(PI5_PWM, pwm)
        self.t.write(PI5_STATE, max(i for i, level in enumerate(PI5_LEVELS) if pwm >= level))


def test_on_a_cooling_device_fan_step_wise_is_not_a_rival_a_pwm1_write_is(tmp_path: Path) -> None:
    """Pi 5: step_wise moving cur_state is the kernel's (re-asserted after the dwell); a user's
    ``echo 255 > pwm1`` (state 4 kept, duty not its level 250) is another writer.  At probe the
    driver reads 255 at state 4: thermogov writing 4 there moves nothing and learns nothing."""
    t = _pi5(tmp_path / "root")
    drv = _PwmFanDriver(t)
    fan, now = _clocked(t)
    assert fan.dev.state_rel is not None
    fan.io.write_int = lambda rel, value: drv.set_state(value)  # type: ignore[method-assign]
    t.write(PI5_PWM, 255)
    t.write(PI5_STATE, 4)  # as probed
    fan.apply(4)
    drv.set_pwm(255)  # a no-op write would read back 255 at state 4: never a rival
    now[0] = 0.1
    assert fan.level == 4 and not fan.left
    fan.apply(2)
    fan.apply(4)  # moved: the driver wrote 250, learnt
    drv.set_state(2)  # step_wise
    now[0] = 0.2
    assert fan.level == 2 and not fan.left
    fan.apply(4)
    drv.set_pwm(255)
    now[0] = 0.3
    assert fan.level == 4 and "pwm1 reads 255, not 250, the duty the driver keeps for cur_state 4" in fan.left
    assert fan.apply(1) == 4 and t.read_int(PI5_PWM) == 255  # never written over
    fan.restore()
    assert (t.read_int(PI5_STATE), t.read_int(PI5_PWM)) == (4, 255)


def test_a_pi5_pwm1_written_by_another_leaves_the_fan(tmp_path: Path) -> None:
    """Through the installed script: a hot Pi 5, thermogov moves the fan off its state 1, then a
    user writes pwm1 at that state (the fake tree has no driver: the duty thermogov learnt is the
    75 it keeps reading).  On main thermogov went on writing cur_state over it."""
    t = _pi5(tmp_path / "root")
    proc = _start(tmp_path)
    state = t.read_int(PI5_STATE)
    assert state != 1
    t.write(PI5_PWM, 200)
    line = procutil.wait_line(proc, LEFT, "stderr")
    assert f"pwm1 reads 200, not 75, the duty the driver keeps for cur_state {state}" in line
    _stop(proc)
    assert (t.read_int(PI5_STATE), t.read_int(PI5_PWM)) == (state, 200)  # not restored to 1
