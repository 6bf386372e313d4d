"""Session 21f: a journal restore never writes the L4T fan over another writer.

The fan left to a rival mid-run (session 21b) is dropped from the journal by a rewrite; a
``kill -9`` before that rewrite (or a failed one) left it journaled, and ``thermogov restore``
wrote the board's earlier settings over the rival (rev21's finding (d)).  The run now records
what the fan may read as its own (hw/lastcaps.py), and the restore leaves the fan, said, when it
reads anything else (hw/fanrival.py).  A journal copied before the hand-off stands for the kill
before the rewrite.
"""

from __future__ import annotations

import shutil
import signal
from pathlib import Path

from tests.hw import fakesys, procutil
from tests.hw.fakesys import FakeTree

FAN = fakesys.L4T_FAN
TARGET = f"{FAN}/target_pwm"
CONTROL = f"{FAN}/temp_control"
TWIN = f"{FAN}/hwmon/hwmon9"
LEFT = "another writer drives the fan"


def _nano(root: Path) -> FakeTree:
    t = fakesys.jetson_nano(root, cpu_mc=92000)
    for name, value in (("target_pwm", 37), ("cur_pwm", 0), ("temp_control", 1), ("pwm_cap", 255)):
        t.write(f"{FAN}/{name}", value)
    fakesys.l4t_fan_twin(t, hwmon=9)
    return t


def _killed_with_fan_journaled(tmp: Path, t: FakeTree, rival: tuple[str, int] | None) -> None:
    """Run, keep the journal as it was before any hand-off, (a rival writes,) kill -9, put the
    kept journal back: the fan is journaled whatever happened since."""
    proc = procutil.start_run(tmp, run_lines='fan = "governor"\n')
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(TARGET) == 255 and t.read_int(CONTROL) == 0
    journal = tmp / "state/journal.json"
    shutil.copy(journal, tmp / "kept.json")
    if rival is not None:
        t.write(rival[0], rival[1])
        procutil.wait_line(proc, LEFT, "stderr")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=procutil.DEADLINE_S)
    shutil.copy(tmp / "kept.json", journal)


def test_restore_after_kill_9_before_the_rewrite_leaves_the_rivals_speed(tmp_path: Path) -> None:
    t = _nano(tmp_path / "root")
    _killed_with_fan_journaled(tmp_path, t, (f"{TWIN}/target_pwm", 127))
    done = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "target_pwm reads 127, not 255 as thermogov last wrote" in said and LEFT in said
    assert "fan setting" not in said
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (127, 0)  # jtop's manual speed kept
    assert not (tmp_path / "state/journal.json").exists()


def test_restore_after_kill_9_leaves_a_rivals_profile(tmp_path: Path) -> None:
    t = _nano(tmp_path / "root")
    _killed_with_fan_journaled(tmp_path, t, (f"{TWIN}/temp_control", 1))
    t.write(TARGET, 90)  # the kernel's curve, back on, moves the speed
    done = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "temp_control reads 1, not 0 as thermogov last wrote" in done.stdout + done.stderr
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (90, 1)


def test_restore_after_kill_9_without_a_rival_puts_the_fan_back(tmp_path: Path) -> None:
    t = _nano(tmp_path / "root")
    _killed_with_fan_journaled(tmp_path, t, None)
    done = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert done.returncode == 0, done.stderr
    said = done.stdout + done.stderr
    assert "2 fan setting(s)" in said and LEFT not in said
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (37, 1)


def test_restore_after_kill_9_leaves_a_rivals_pwm1(tmp_path: Path) -> None:
    """21d's rule for a hwmon ``pwm1`` fan (Orin's pwm-fan without a cooling device), at restore."""
    pwm = "sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1"
    enable = f"{pwm}_enable"
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=92000, gpu_mc=92000)
    fakesys.pwm_fan(t, board="orin", cdev=None, pwm=40, enable=2)
    proc = procutil.start_run(tmp_path, run_lines='fan = "governor"\n')
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(enable) == 1 and t.read_int(pwm) != 100
    shutil.copy(tmp_path / "state/journal.json", tmp_path / "kept.json")
    t.write(pwm, 100)  # fancontrol, an echo
    procutil.wait_line(proc, LEFT, "stderr")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=procutil.DEADLINE_S)
    shutil.copy(tmp_path / "kept.json", tmp_path / "state/journal.json")
    done = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "pwm1 reads 100, not" in done.stdout + done.stderr
    assert (t.read_int(pwm), t.read_int(enable)) == (100, 1)
