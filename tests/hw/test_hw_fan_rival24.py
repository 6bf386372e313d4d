"""Session 24c: a ``pwm1`` of exactly another state's level, held past the settle (hw/fanlevels.py).

Where the device tree's table is trusted at the state read (confirmed, or proven), ``pwm1``
off that state's level is the driver's only until it catches up with a state change; the same
(state, duty) pair read :data:`SETTLE_S` apart is another writer's, whichever duty it is
(another state's level, the last confirmed duty: 22a/23c let both be).  Step_wise changing the
state between two reads (one look sees the old state with the new duty) changes the pair at
the next look, so it never waits long enough.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from tests.hw.test_hw_fan_levels import HWMON, PI5_LEVELS, STATE, _cells, _driven, _pi5
from tests.hw.test_hw_fan_restore_unrecorded import _record, _restore
from tests.hw.test_hw_fan_rival23 import _killed_pi5, proven_4_and_1
from thermogov.hw.fanlevels import SETTLE_S, CoolingDuties

PWM = f"{HWMON}/pwm1"


def _looks(fan: object, now: list[float], until: float, step: float = 0.5) -> None:
    while now[0] < until:
        now[0] += step
        _ = fan.level  # type: ignore[attr-defined]


def _user_after_driver(fan: object, t: object, duty: int) -> None:
    """The next state write's duty is replaced by a user's ``duty`` before thermogov's read-back
    (a driver whose state does not follow ``pwm1``: the state stays the one written)."""
    driver = fan.io.write_int  # type: ignore[attr-defined]

    def write(rel: str, value: int) -> None:
        driver(rel, value)
        t.write(PWM, duty)  # type: ignore[attr-defined]
        fan.io.write_int = driver  # type: ignore[attr-defined]

    fan.io.write_int = write  # type: ignore[attr-defined]


def test_the_last_confirmed_duty_held_at_another_state_is_a_rival_after_the_settle(tmp_path: Path) -> None:
    """State 2 confirmed (125); thermogov moves the fan to 1 and a user's ``pwm1`` 125 (state 2's
    level) lands before any look saw the driver's 75, on a driver whose state does not follow
    ``pwm1``.  Main: 125 is the last confirmed duty (a late driver's), forgiven for ever and the
    user's duty written over at the next state change."""
    t = _pi5(tmp_path / "root", _cells(PI5_LEVELS))
    fan, now = _driven(t)
    fan.apply(2)
    now[0] = 0.1
    assert fan.level == 2 and not fan.left
    _user_after_driver(fan, t, 125)
    fan.apply(1)
    _looks(fan, now, 0.1 + SETTLE_S - 0.5)
    assert not fan.left  # within the settle: a late driver could still be catching up
    _looks(fan, now, 0.1 + SETTLE_S + 1.0)
    assert (
        "pwm1 reads 125, not 75, the duty of cur_state 1 in the device tree's cooling-levels, for" in fan.left
    )
    assert fan.apply(3) == 1 and t.read_int(PWM) == 125  # never written over
    fan.restore()
    assert (t.read_int(STATE), t.read_int(PWM)) == (1, 125)


def test_another_states_level_at_an_unconfirmed_state_of_a_proven_table_is_a_rival(tmp_path: Path) -> None:
    """States 4 and 1 confirmed (250, 75: the table is the driver's); thermogov moves the fan to
    2 and a user's 250 (state 4's level) lands before the driver's 125 was seen.  Main: state 2
    unconfirmed and 250 one of the table's duties, not judged."""
    t = _pi5(tmp_path / "root", _cells(PI5_LEVELS))
    fan, now = proven_4_and_1(t)
    _user_after_driver(fan, t, 250)
    fan.apply(2)
    _looks(fan, now, 0.2 + SETTLE_S + 1.0)
    assert "pwm1 reads 250, not 125, the duty of cur_state 2" in fan.left
    fan.restore()
    assert (t.read_int(STATE), t.read_int(PWM)) == (2, 250)


def test_step_wise_and_a_late_driver_are_never_a_held_rival() -> None:
    """A state held for minutes, a look reading the old state with the new duty (mainline writes
    pwm1 before pwm_fan_state), the emulator's driver late by several looks, and the probe's 255
    at an unconfirmed state 4: never a rival.  Main took the torn look (1, 175) for one."""
    d = CoolingDuties(PI5_LEVELS)
    looks = [(4, 255, 0.0), (4, 255, 60.0), (1, 255, 60.1), (1, 75, 60.2), (1, 75, 200.0)]
    looks += [(1, 175, 200.1), (3, 175, 200.2), (3, 175, 400.0)]  # step_wise 1 -> 3, a racing look
    looks += [(2, 175, 400.1), (2, 175, 400.2), (2, 175, 400.3), (2, 125, 400.4), (2, 125, 900.0)]
    looks += [(2, 125, 900.5), (1, 125, 901.0), (1, 75, 901.0 + SETTLE_S - 0.1), (1, 75, 2000.0)]
    assert [d.stray(s, duty, now) for s, duty, now in looks] == [""] * len(looks)


def test_a_pair_held_without_a_clock_is_not_judged_by_time() -> None:
    """Without a clock (callers that pass none) the held rule never fires: only moves judge."""
    d = CoolingDuties(PI5_LEVELS)
    assert d.stray(2, 125) == "" and d.stray(1, 125) == "" and d.stray(1, 125) == ""


# --- item 3: thermogov restore after kill -9 when the run confirmed no duty (hw/fanrival.py) ---


def _unconfirmed(tmp: Path) -> object:
    """A hot Pi 5 killed in its first look: the record keeps its caps but no confirmed duty (the
    test drops the ``f`` line a first look writes, CRC and all)."""
    t = _killed_pi5(tmp)
    path = _record(tmp)
    body = path.read_text().split("\nend ", 1)[0] + "\n"
    body = "".join(line + "\n" for line in body.splitlines() if not line.startswith("f "))
    path.write_text(f"{body}end {zlib.crc32(body.encode()):08x}\n")
    assert "f " not in path.read_text()
    return t


def test_restore_without_a_confirmed_duty_leaves_a_pwm1_writers_higher_state(tmp_path: Path) -> None:
    """After the kill a user's ``pwm1`` 200 moved the driver to state 3 (175 <= 200).  Main wrote
    ``cur_state`` 1 back: the driver's 75 over the user, less cooling than the fan had."""
    t = _unconfirmed(tmp_path)
    t.write(PWM, 200)  # type: ignore[attr-defined]
    t.write(STATE, 3)  # type: ignore[attr-defined]
    said = _restore(tmp_path)
    assert "cur_state reads 3, above the 1 found, with" in said and "pwm1 200, not 175" in said
    assert "echo 1 > " in said and "fan setting" not in said
    assert (t.read_int(STATE), t.read_int(PWM)) == (3, 200)  # type: ignore[attr-defined]


def test_restore_without_a_confirmed_duty_puts_back_a_slower_or_driver_kept_state(tmp_path: Path) -> None:
    """Guard (passes on main too): below the found state (more cooling to put back), or above it
    with the driver's own duty (thermogov's last state): the found state 1 is written."""
    for k, (state, duty) in enumerate(((0, 0), (4, 250))):
        tmp = tmp_path / str(k)
        t = _unconfirmed(tmp)
        t.write(PWM, duty)  # type: ignore[attr-defined]
        t.write(STATE, state)  # type: ignore[attr-defined]
        said = _restore(tmp)
        assert "1 fan setting(s)" in said and "another writer" not in said
        assert t.read_int(STATE) == 1  # type: ignore[attr-defined]


def test_another_level_at_a_confirmed_state_is_a_rival_only_held() -> None:
    """One look reading state 1 with state 3's 175 may be a state change read half done (mainline
    sets pwm1 before the state), a few may be the emulator's late driver after a kernel move no
    look saw; held past the settle it is no driver's.  Main left the fan at the first look."""
    d = CoolingDuties(PI5_LEVELS)
    assert [d.stray(s, duty, now) for s, duty, now in ((1, 75, 0.0), (2, 125, 0.1), (1, 75, 0.2))] == [""] * 3
    assert d.stray(1, 175, 0.3) == "" and d.stray(1, 175, 0.4) == ""
    assert d.stray(1, 175, 0.3 + SETTLE_S).startswith("75, the duty of cur_state 1 in the device tree's")
