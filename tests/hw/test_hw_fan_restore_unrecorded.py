"""Session 22a: safe21f's two leftovers of the fan's journal restore (hw/fanrival.py).

* A duty the L4T driver clamped to a ``pwm_cap`` lowered mid-run is thermogov's own (the
  driver's ``pwm_cap_store`` clamps the duty in force, ``target_pwm_store`` every write): the
  daemon does not take it for a rival, and a restore after a ``kill -9`` puts the fan back.
* ``thermogov restore`` without a record of the run (missing or torn): the L4T fan found under
  the kernel's curve gets the curve back (``temp_control`` 1 only); a fan without an automatic
  mode known safe (a hwmon ``pwm1`` fan) is left as it reads, said with what thermogov found.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path

from tests.hw import fakesys, procutil
from tests.hw.fakesys import FakeTree
from tests.hw.test_hw_hwmon_fan_rival import _clocked
from thermogov.hw.boardlock import board_lock_path
from thermogov.hw.lastcaps import last_caps_path

FAN = fakesys.L4T_FAN
TARGET = f"{FAN}/target_pwm"
CONTROL = f"{FAN}/temp_control"
CAP = f"{FAN}/pwm_cap"
PWM = "sys/devices/platform/pwm-fan/hwmon/hwmon2/pwm1"
ENABLE = f"{PWM}_enable"
LEFT = "another writer drives the fan"
UNRECORDED = "no record of thermogov's run"


def _nano(root: Path) -> FakeTree:
    t = fakesys.jetson_nano(root, cpu_mc=92000)
    for name, value in (("target_pwm", 37), ("cur_pwm", 0), ("temp_control", 1), ("pwm_cap", 255)):
        t.write(f"{FAN}/{name}", value)
    return t


def _locks(tmp: Path) -> list[str]:
    return ["--lock-dir", str(tmp / "locks")]


def _killed(tmp: Path) -> None:
    """A hot board's run with the fan governed, then ``kill -9`` (the fan journaled, recorded)."""
    proc = procutil.start_run(tmp, *_locks(tmp), run_lines='fan = "governor"\n')
    procutil.wait_line(proc, "thermogov: started")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=procutil.DEADLINE_S)


def _restore(tmp: Path) -> str:
    done = procutil.run_cli("restore", *procutil.paths(tmp), *_locks(tmp))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp / "state/journal.json").exists()
    return done.stdout + done.stderr


def _record(tmp: Path) -> Path:
    return last_caps_path(board_lock_path(tmp / "root", tmp / "locks"))


def test_the_daemon_takes_a_duty_clamped_to_a_lowered_pwm_cap_for_its_own(tmp_path: Path) -> None:
    """Mid-run someone lowers ``pwm_cap`` to 200: the driver clamps thermogov's 255 to 200.  On
    main that read as another writer and the fan was left at 200, curve off, never restored."""
    t = _nano(tmp_path / "root")
    fan, now = _clocked(t)
    dev = fan.dev
    wrote: list[tuple[str, tuple[int, ...]]] = []
    fan.on_wrote = lambda rel, values: wrote.append((rel, values))
    fan.apply(fan.levels - 1)
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (255, 0)
    t.write(CAP, 200)
    t.write(TARGET, 200)  # pwm_cap_store: min(cap, the duty in force)
    now[0] = 0.1
    _ = fan.level
    assert not fan.left
    assert wrote[-1] == (dev.target_rel, (255, 200))  # the record holds the clamp as ours
    t.write(TARGET, 150)  # a real other writer is still one
    now[0] = 0.2
    _ = fan.level
    assert "target_pwm reads 150, not 200 as thermogov last wrote" in fan.left


def test_restore_after_a_cap_lowered_behind_a_kill_9_puts_the_fan_back(tmp_path: Path) -> None:
    """The run recorded 255; killed, then the cap lowered to 200 clamps the duty in force (the
    same file as a ``kill -9`` between thermogov's write over a new cap and its read-back's
    record).  On main: "target_pwm reads 200, not 255", the fan left at 200 with the curve off."""
    t = _nano(tmp_path / "root")
    _killed(tmp_path)
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (255, 0)
    t.write(CAP, 200)
    t.write(TARGET, 200)
    said = _restore(tmp_path)
    assert "2 fan setting(s)" in said and LEFT not in said
    assert (t.read_int(TARGET), t.read_int(CONTROL)) == (37, 1)


def test_restore_without_a_record_gives_the_l4t_fan_back_to_the_kernels_curve(tmp_path: Path) -> None:
    """The record is gone (or torn): nothing tells another writer from thermogov's 255, so the
    duty is not written; the kernel's curve, on at start, is (it drives the duty from there).
    On main the journaled 37 was written whoever had set the duty since."""
    for torn in (False, True):
        tmp = tmp_path / str(torn)
        t = _nano(tmp / "root")
        _killed(tmp)
        record = _record(tmp)
        assert record.is_file()
        if torn:
            record.write_bytes(record.read_bytes()[:-5])
        else:
            record.unlink()
        said = _restore(tmp)
        assert UNRECORDED in said and "put back to the kernel's curve" in said
        assert "1 fan setting(s)" in said
        assert (t.read_int(TARGET), t.read_int(CONTROL)) == (255, 1)


def test_restore_without_a_record_leaves_a_pwm1_fan_and_says_how_to_put_it_back(tmp_path: Path) -> None:
    """Orin's pwm-fan without a cooling device has no kernel automatic mode (pwm1_enable only
    chooses what a duty of 0 does): left as it reads, said with the values found.  On main the
    journaled 40/2 was written over whoever set 100 since."""
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=92000, gpu_mc=92000)
    fakesys.pwm_fan(t, board="orin", cdev=None, pwm=40, enable=2)
    _killed(tmp_path)
    body = json.loads((tmp_path / "state/journal.json").read_text())
    assert {a["rel"].rsplit("/", 1)[-1]: a["value"] for a in body["attrs"]} == {"pwm1_enable": 2, "pwm1": 40}
    _record(tmp_path).unlink()
    t.write(PWM, 100)
    said = _restore(tmp_path)
    assert UNRECORDED in said and "no automatic mode known safe" in said
    assert "left as it reads (pwm1_enable 1, pwm1 100)" in said
    assert "thermogov found pwm1_enable 2, pwm1 40" in said and "echo 40 >" in said
    assert "fan setting" not in said
    assert (t.read_int(PWM), t.read_int(ENABLE)) == (100, 1)


def _unrecorded_pwm_fan(tmp: Path, found: tuple[int, int], since: tuple[int, int]) -> tuple[FakeTree, str]:
    """Orin's pwm-fan (no cooling device) at ``found`` (pwm1, pwm1_enable), a governed run killed,
    its record lost, the fan set to ``since``; then restore: the tree and what it said."""
    t = fakesys.orin_nano(tmp / "root", cpu_mc=92000, gpu_mc=92000)
    fakesys.pwm_fan(t, board="orin", cdev=None, pwm=found[0], enable=found[1])
    _killed(tmp)
    _record(tmp).unlink()
    t.write(PWM, since[0])
    t.write(ENABLE, since[1])
    return t, _restore(tmp)


def test_restore_without_a_record_of_a_fan_reading_as_found_puts_it_back_unsaid(tmp_path: Path) -> None:
    """Every attribute reads as journaled: writing it back changes nothing, nothing to say."""
    t, said = _unrecorded_pwm_fan(tmp_path, found=(40, 2), since=(40, 2))
    assert UNRECORDED not in said and "2 fan setting(s)" in said
    assert (t.read_int(PWM), t.read_int(ENABLE)) == (40, 2)


def test_restore_without_a_record_never_leaves_a_fan_slower_than_found(tmp_path: Path) -> None:
    """A speed below the value at start is put back whole: whoever wrote it, the fan as found
    cools more, and a restore must not leave the board with less cooling than thermogov found."""
    t, said = _unrecorded_pwm_fan(tmp_path, found=(120, 2), since=(30, 1))
    assert UNRECORDED in said and "reads below the 120 found at start" in said
    assert "2 fan setting(s)" in said
    assert (t.read_int(PWM), t.read_int(ENABLE)) == (120, 2)
