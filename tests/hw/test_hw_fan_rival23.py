"""Session 23c: the cooling-device fan's ``pwm1`` rival rule, 22a's leftovers (hw/fanlevels.py).

* ``pwm1`` moving while ``cur_state`` does not is no pwm-fan driver's (it writes ``pwm1`` only on
  a state change): another writer, with or without the device tree's ``cooling-levels``;
* a duty none of the table's once looks proved the table the driver's (two distinct non-zero
  duties confirmed): another writer, at any state, confirmed or not;
* ``thermogov restore`` after a ``kill -9`` judges ``pwm1`` as a clean exit does, by the duties
  the run recorded as confirmed (hw/fanrival.py).
"""

from __future__ import annotations

import signal
import zlib
from pathlib import Path

from tests.hw import procutil
from tests.hw.fakesys import FakeTree
from tests.hw.test_hw_fan_levels import HWMON, PI5_LEVELS, STATE, _cells, _driven, _pi5
from tests.hw.test_hw_fan_restore_unrecorded import LEFT, _locks, _record, _restore
from thermogov.hw.fan import HwFan
from thermogov.hw.fanlevels import SETTLE_S, CoolingDuties
from thermogov.hw.lastcaps import read_record

PWM = f"{HWMON}/pwm1"
PWM_CLASS = "sys/class/hwmon/hwmon2/pwm1"


def test_pwm1_moving_at_a_held_state_is_a_rival_without_any_cooling_levels(tmp_path: Path) -> None:
    """No ``of_node`` (an ACPI board, a BSP without the link): on main nothing was judged and a
    user's ``pwm1`` 200 at state 3 was written over at thermogov's next state change."""
    t = _pi5(tmp_path / "root", None)
    fan, now = _driven(t)
    fan.apply(3)  # the driver writes 175 with the state
    now[0] = 0.1
    assert fan.level == 3 and not fan.left
    t.write(PWM, 200)  # pwm_fan_update_state: 175 <= 200 keeps state 3
    now[0] = 0.2
    assert fan.level == 3 and "pwm1 reads 200, not 175, which it read a look before" in fan.left
    assert fan.apply(0) == 3 and t.read_int(PWM) == 200  # not written over
    fan.restore()
    assert (t.read_int(STATE), t.read_int(PWM)) == (3, 200)


def proven_4_and_1(t: FakeTree) -> tuple[HwFan, list[float]]:
    """The fan driven to states 4 then 1, each confirmed by a look (250, 75: the table proven)."""
    fan, now = _driven(t)
    for k, level in enumerate((4, 1)):
        fan.apply(level)
        now[0] = 0.1 * (k + 1)
        assert fan.level == level and not fan.left
    return fan, now


def test_a_duty_no_state_has_lands_on_an_unconfirmed_state_once_the_table_is_proven(tmp_path: Path) -> None:
    """States 4 and 1 confirmed (250, 75): a user's 130 moves the driver to state 2, never
    looked at; 130 is none of the table's duties.  On main: state 2 unconfirmed, not judged."""
    t = _pi5(tmp_path / "root", _cells(PI5_LEVELS))
    fan, now = proven_4_and_1(t)
    t.write(PWM, 130)
    t.write(STATE, 2)  # 125 <= 130 < 175
    now[0] = 0.5
    assert fan.level == 2 and "pwm1 reads 130, not 125 nor any duty" in fan.left
    fan.restore()
    assert (t.read_int(STATE), t.read_int(PWM)) == (2, 130)


def test_the_held_state_rule_lets_a_late_driver_and_step_wise_be() -> None:
    """Guard (passes on main too, where nothing is judged without a confirmed state): the
    driver's one late move after a state change, however many looks late within
    :data:`SETTLE_S`, and step_wise moving state and duty together, are never a rival."""
    d = CoolingDuties(None)
    looks = [(4, 250, 0.0), (2, 250, 0.1), (2, 250, 0.2), (2, 250, 0.3), (2, 125, 0.4), (2, 125, 0.5)]
    looks += [(3, 175, 0.6), (3, 175, 0.7), (1, 175, 0.8), (1, 75, 0.9), (1, 75, SETTLE_S + 1)]
    assert all(d.stray(s, duty, now) == "" for s, duty, now in looks)
    assert d.stray(1, 90, SETTLE_S + 1.1).startswith("75, which it read a look before")
    late = CoolingDuties(None)  # a state held past the settle: its first move is no driver's
    assert late.stray(4, 250, 0.0) == "" and late.stray(2, 250, 0.1) == ""
    assert late.stray(2, 140, 0.1 + SETTLE_S).startswith("250, which it read")


def _killed_pi5(tmp: Path) -> FakeTree:
    """A hot Pi 5 (states 0-4 = 0/75/125/175/250 in its ``of_node``) found at state 1, governed,
    then ``kill -9``: the run recorded the duty its first look confirmed."""
    t = _pi5(tmp / "root", _cells(PI5_LEVELS))
    proc = procutil.start_run(tmp, *_locks(tmp), run_lines='fan = "governor"\n')
    procutil.wait_line(proc, "thermogov: started")
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=procutil.DEADLINE_S)
    return t


def _fans(tmp: Path) -> dict[str, tuple[int, ...]]:
    text = _record(tmp).read_text().splitlines()
    pid = int(next(line for line in text if line.startswith("pid "))[4:])
    boot = next(line for line in text if line.startswith("boot "))[5:]
    record = read_record(_record(tmp), boot_id=boot, pid=pid, root=tmp / "root")
    assert record is not None
    return record[1]


def test_restore_after_kill_9_leaves_a_pwm1_another_writer_set_at_a_confirmed_state(tmp_path: Path) -> None:
    """The run saw the driver keep 75 at state 1 and recorded it; after the kill a user's ``pwm1``
    100 (state 1 kept: 75 <= 100 < 125).  Main: "1 fan setting(s)" (cur_state written back over
    the user, whose duty the driver would replace at the next state change)."""
    t = _killed_pi5(tmp_path)
    assert _fans(tmp_path) == {PWM_CLASS: (75,)}
    t.write(PWM, 100)
    t.write(STATE, 1)
    said = _restore(tmp_path)
    assert "pwm1 reads 100 at cur_state 1, not 75, the duty of cur_state 1" in said and LEFT in said
    assert "fan setting" not in said and said.count(LEFT) == 1
    assert (t.read_int(STATE), t.read_int(PWM)) == (1, 100)


def _seen_also(tmp: Path, duty: int) -> None:
    """The record as a run leaves it that also saw the driver keep ``duty`` (a look confirming
    another state: in the fake tree no driver moves ``pwm1``, so the test adds it, CRC and all)."""
    path = _record(tmp)
    body = path.read_text().split("\nend ", 1)[0] + "\n"
    body = body.replace(f"f 75 {PWM_CLASS}\n", f"f 75,{duty} {PWM_CLASS}\n")
    path.write_text(f"{body}end {zlib.crc32(body.encode()):08x}\n")


def test_restore_after_kill_9_leaves_a_duty_of_no_state_once_the_run_proved_the_table(tmp_path: Path) -> None:
    """Confirmed 75 and 250; after the kill the fan reads pwm1 200 at state 3 (a user's write:
    175 <= 200): no duty of the table.  Main wrote cur_state 1 (the driver's 75 over the user)."""
    t = _killed_pi5(tmp_path)
    _seen_also(tmp_path, 250)
    t.write(PWM, 200)
    t.write(STATE, 3)
    said = _restore(tmp_path)
    assert "pwm1 reads 200 at cur_state 3, not any duty of the device tree's cooling-levels" in said
    assert (t.read_int(STATE), t.read_int(PWM)) == (3, 200)


def test_restore_after_kill_9_puts_back_the_found_state_when_the_driver_keeps_its_duty(
    tmp_path: Path,
) -> None:
    """Guard (passes on main too): the fan at state 4 with the driver's 250: put back to 1."""
    t = _killed_pi5(tmp_path)
    _seen_also(tmp_path, 250)
    t.write(PWM, 250)
    t.write(STATE, 4)
    said = _restore(tmp_path)
    assert "1 fan setting(s)" in said and LEFT not in said
    assert t.read_int(STATE) == 1
