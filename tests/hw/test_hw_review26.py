"""Session 26r: an outside safety review of session 25's root-daemon merges (docs/hardware.md).

Every exit path after a late charger and a late battery joined and went away, and after boost
switches; races (a supply gone between the listing and the read, a boost switch that cannot be
read mid-run, a charger flapping every poll for a minute); two boost switches between two looks
(25r's Left).  Each compares the whole fake tree before and after, byte for byte.
"""

from __future__ import annotations

import errno
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil
from tests.hw.test_hw_boost24 import P0, _boosted_pi5, _switch
from tests.hw.test_hw_late_chargers import TCPM, _power_by_second, _unplug, _usb
from thermogov.hw.discovery import POWER_SUPPLY, discover
from thermogov.hw.limitwatch import SAY_EACH_RESET_UP_TO
from thermogov.hw.power import PowerSupplyReader
from thermogov.hw.sysfs import SysfsTree

EXITS = ["sigterm", "sigint", "sighup-then-sigterm", "kill9-then-restore"]
PSY_DEVICES = "sys/devices/platform/fake-psy/power_supply"
CUR = f"{P0}/scaling_cur_freq"  # the fake kernel's switch lowers it (bench/board_shapes.py): no daemon's


def _but(snap: dict[str, bytes | str], *rels: str) -> dict[str, bytes | str]:
    return {k: v for k, v in snap.items() if k not in rels}


def _exit(proc: subprocess.Popen[bytes], tmp: Path, how: str) -> str:
    """End the daemon by ``how``; its stderr (and restore's output after ``kill -9``)."""
    if how == "sighup-then-sigterm":
        proc.send_signal(signal.SIGHUP)
        procutil.wait_line(proc, "reloaded", stream="stderr")
    if how == "kill9-then-restore":
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=procutil.DEADLINE_S)
        r = procutil.run_cli("restore", *procutil.paths(tmp))
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        return r.stdout + r.stderr
    proc.send_signal(signal.SIGINT if how == "sigint" else signal.SIGTERM)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0 and "Traceback" not in err.decode(), err.decode()[-1500:]
    return err.decode()


@pytest.mark.parametrize("how", EXITS)
def test_every_exit_after_late_supplies_came_and_went_leaves_the_tree_as_found(
    tmp_path: Path, how: str
) -> None:
    """A hot Orin Nano (caps written) with no battery and an AC adapter offline: a USB-C source
    appears and goes (25c), a pack the profile does not name appears (25l) and goes, a second
    source appears and goes.  Then each exit path: every file of the tree as before the run,
    owned limits included (nothing written outside them, none left capped)."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=0", kind="Mains")
    before = t.snapshot()
    # the devkit's profile names no battery (session 27r: the supplies reader is the one owner of a
    # late pack under any profile; tests/hw/test_hw_review27.py drives the battery profile)
    proc = procutil.start_run(tmp_path, "--duration", "120s", "--board", "jetson-orin-nano-devkit")
    procutil.wait_line(proc, "thermogov: started")
    assert t.snapshot() != before  # capped: the restore has something to put back
    _usb(t)
    procutil.wait_line(proc, f"power supply {TCPM} (USB) appeared", stream="stderr")
    _unplug(t, TCPM)
    procutil.wait_line(proc, f"power supply {TCPM} (USB) went away", stream="stderr")
    t.supply("BAT1", "POWER_SUPPLY_NAME=BAT1\nPOWER_SUPPLY_STATUS=Discharging\nPOWER_SUPPLY_CAPACITY=50")
    procutil.wait_line(proc, "power supply BAT1 (Battery) appeared", stream="stderr")
    _unplug(t, "BAT1")
    _usb(t, "ucsi-source-psy-usbc000:001")  # seen at a look that reads the gone battery too
    procutil.wait_line(proc, "power supply ucsi-source-psy-usbc000:001 (USB) appeared", stream="stderr")
    _unplug(t, "ucsi-source-psy-usbc000:001")
    procutil.wait_line(proc, "ucsi-source-psy-usbc000:001 (USB) went away", stream="stderr")
    said = _exit(proc, tmp_path, how)
    after = t.snapshot()
    # the supply folders the test made stay (empty), as the kernel's class folder does
    made = {k for k in after if k not in before and k.startswith(PSY_DEVICES) and after[k] == "dir"}
    assert {k: v for k, v in after.items() if k not in made} == before, said[-1500:]


@pytest.mark.parametrize("how", EXITS)
def test_every_exit_after_boost_switched_leaves_the_tree_as_found(tmp_path: Path, how: str) -> None:
    """A hot Pi 5 with boost OPPs, boost on at start: switched off (the kernel resets the cap to
    the listed top), on (to the boost OPP) and off and on again between two looks, each re-capped.
    With boost back on as found, every exit path leaves every file as before the run."""
    bs, tops, _top, boost = _boosted_pi5(tmp_path / "root", "per-policy", on=True, cpu_mc=92000)
    t = fakesys.FakeTree(tmp_path / "root")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    cap = t.read_int(f"{P0}/scaling_max_freq")
    assert cap < boost
    for on in (False, True):
        _switch(bs, t.root, tops, "per-policy", on)
        procutil.wait_line(proc, "cap written again", stream="stderr")
    _switch(bs, t.root, tops, "per-policy", False)
    _switch(bs, t.root, tops, "per-policy", True)
    procutil.wait_line(proc, "cap written again", stream="stderr")
    assert t.read_int(f"{P0}/scaling_max_freq") == cap
    said = _exit(proc, tmp_path, how)
    assert _but(t.snapshot(), CUR) == _but(before, CUR), said[-1500:]


@pytest.mark.parametrize("kernel", ["global", "per-policy"])
def test_boost_switched_off_and_on_between_two_looks_never_leaves_the_cap(
    tmp_path: Path, kernel: str
) -> None:
    """25r's Left: boost on at start, a cool board (thermogov's cap is the listed top), boost
    switched off and straight back on, five times, each pair between two looks of the limit
    watch.  Each pair leaves the max at the boost OPP with the switch reading as last seen; main
    took each as a rival's raise and the fourth left policy0 to "another writer" (uncapped for
    the rest of the run).  A raise to exactly the top of the state the switch reads is now the
    kernel's (hw/boostrule.py, switched_to): capped again, never left."""
    bs, tops, top, boost = _boosted_pi5(tmp_path / "root", kernel, on=True, cpu_mc=55000)
    t = fakesys.FakeTree(tmp_path / "root")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(f"{P0}/scaling_max_freq") == top
    for k in range(5):
        _switch(bs, t.root, tops, kernel, False)
        _switch(bs, t.root, tops, kernel, True)
        assert t.read_int(f"{P0}/scaling_max_freq") == boost
        line = procutil.wait_line(proc, "restore now puts back", stream="stderr")
        assert "left to it" not in line and "another writer set" not in line, f"pair {k + 1}: {line}"
        assert t.read_int(f"{P0}/scaling_max_freq") == top
    err = procutil.stopped(proc)
    assert "left to it" not in err and "another writer" not in err, err
    assert _but(t.snapshot(), CUR) == _but(before, CUR)  # boost left on: its top, as found


def test_a_rival_raise_to_another_value_still_counts_on_a_boost_policy(tmp_path: Path) -> None:
    """The rule above is no blanket pass: a writer that raises the cap of a boost policy to a
    value that is not the top of the switch's state (the boost OPP written with boost off) is
    still another writer, left the file after MAX_REAPPLY raises, and the exit restores as found."""
    _bs, _tops, top, boost = _boosted_pi5(tmp_path / "root", "global", on=False, cpu_mc=92000)
    t = fakesys.FakeTree(tmp_path / "root")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(f"{P0}/scaling_max_freq") < top
    for _ in range(3):
        t.write(f"{P0}/scaling_max_freq", f"{boost}\n")  # the kernel accepts it (cpuinfo_max_freq)
        procutil.wait_line(proc, "cap written again (", stream="stderr")
    t.write(f"{P0}/scaling_max_freq", f"{boost}\n")
    procutil.wait_line(proc, "left to it", stream="stderr")
    procutil.stopped(proc)
    after = t.snapshot()
    assert after.pop(f"{P0}/scaling_max_freq") == f"{boost}\n".encode()  # left to that writer
    assert after == {k: v for k, v in before.items() if k != f"{P0}/scaling_max_freq"}


@pytest.mark.parametrize("how", ["sigterm", "kill9-then-restore"])
def test_a_boost_switch_that_cannot_be_read_mid_run_is_no_switch(
    tmp_path: Path, shim: Path, how: str
) -> None:
    """Both boost files answer EACCES for a while mid-run (a security module, a driver's show()
    failing): the watch keeps the state last seen (no line of a switch, no traceback) and a raise
    to the boost OPP is then another writer's (no state to judge it by: the fault shim is what
    makes it so), and when they read again the run goes on; every exit path leaves the tree."""
    rules = tmp_path / "faults"
    env = faultshim.env(shim, rules, tmp_path / "root")
    _bs, _tops, top, boost = _boosted_pi5(tmp_path / "root", "per-policy", on=True, cpu_mc=92000)
    t = fakesys.FakeTree(tmp_path / "root")
    before = t.snapshot()
    proc = procutil.start_run(
        tmp_path, "--duration", "120s", "--state-file", str(tmp_path / "s.json"), env=env
    )
    procutil.wait_line(proc, "thermogov: started")
    cap = t.read_int(f"{P0}/scaling_max_freq")
    assert cap < top
    faultshim.write_rules(rules, [("policy0/boost", "r", errno.EACCES), ("cpufreq/boost", "r", errno.EACCES)])
    # the boost OPP while the switch cannot be read: readable, it would be the top of the state
    # last seen (a switch and back, the kernel's); unread, no state is known: a rival's raise
    t.write(f"{P0}/scaling_max_freq", f"{boost}\n")
    procutil.wait_line(proc, "another writer set", stream="stderr")
    faultshim.write_rules(rules, [])
    t.write(f"{P0}/scaling_max_freq", f"{top + 1}\n")  # a later look, the switch readable again
    procutil.wait_line(proc, "(2 of 3)", stream="stderr")
    said = _exit(proc, tmp_path, how)
    assert "boost switched" not in said and "Traceback" not in said, said
    after = t.snapshot()
    assert after.pop(f"{P0}/scaling_max_freq") == f"{top + 1}\n".encode()  # the writer's, adopted
    assert after == {k: v for k, v in before.items() if k != f"{P0}/scaling_max_freq"}


def test_a_supply_gone_between_the_listing_and_its_reads_is_no_error(tmp_path: Path) -> None:
    """The kernel unregisters a supply after the reader listed the folder: its ``type`` and
    ``online`` then fail to open.  Its look says nothing and raises nothing, the entry is
    looked at again while it is listed, and a charger that left that way is forgotten."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=1", kind="Mains")
    tree = SysfsTree(t.root)
    said: list[str] = []
    r = PowerSupplyReader(tree, discover(tree).supplies, rescan=True, log=said.append)
    listdir = tree.listdir

    def racing(rel: str) -> list[str]:
        names = listdir(rel)
        if rel == POWER_SUPPLY:
            for name in names:  # every entry goes right after the listing
                _unplug(t, name)
        return names

    tree.listdir = racing  # type: ignore[method-assign]
    _usb(t)
    r.read()  # raised nothing
    assert said == []  # the new entry gone before its type was read: looked at again, not said
    tree.listdir = listdir  # type: ignore[method-assign]
    r.read()
    assert len(said) == 1 and said[0].startswith("power supply AC (Mains) went away"), said
    assert r.supplies_now() == []


def test_a_charger_flapping_every_poll_for_a_minute_costs_bounded_work_and_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A USB-C source that comes and goes every second for 60 s (a port driver in a probe loop):
    said once each way, not 60 times; the published chargers never more than the two there are;
    the power state follows it; the run's stderr stays a handful of lines."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=60000, gpu_mc=60000)
    t.supply("BAT0", "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_STATUS=Unknown\nPOWER_SUPPLY_CAPACITY=80")
    t.supply("AC", "POWER_SUPPLY_NAME=AC\nPOWER_SUPPLY_ONLINE=0", kind="Mains")
    flips = [0]

    def flap(el: float) -> None:
        there = (t.root / "sys/class/power_supply" / TCPM).is_symlink()
        if int(el) % 2 == 0 and not there:
            _usb(t)
            flips[0] += 1
        elif int(el) % 2 == 1 and there:
            _unplug(t, TCPM)
            flips[0] += 1

    power, err = _power_by_second(tmp_path, monkeypatch, 60.0, flap)
    assert flips[0] >= 50
    lines = [x for x in err.splitlines() if TCPM in x]
    assert len(lines) == 2, lines
    assert max(len(p.get("supplies", [])) for p in power.values()) <= 2
    states = {p.get("state") for p in power.values()}
    assert {"mains", "discharging"} <= states, states
    assert "Traceback" not in err and len(err.splitlines()) < 30, err


@pytest.mark.parametrize("kernel", ["global", "per-policy"])
def test_a_look_between_the_switch_and_the_kernel_s_reset_is_no_rival(tmp_path: Path, kernel: str) -> None:
    """The boost store sets the switch's state, then ``cpufreq_boost_set_sw`` resets the max: a
    look between the two says the switch and the next look reads the reset with the switch as last
    seen.  Main counted that raise as a rival's ("another writer set policy0 to ..."), and four
    left the file; now it is the kernel's (the top of the state the switch reads), re-capped.
    Then the switch back off at once; SIGTERM leaves every file as found but what the test's fake
    kernel owns (``cpuinfo_max_freq`` stays at the boost OPP, 3c55e94c0ade; ``scaling_cur_freq``)."""
    import random
    import threading

    bs, tops, _top, boost = _boosted_pi5(tmp_path / "root", kernel, on=False, cpu_mc=92000)
    t = fakesys.FakeTree(tmp_path / "root")
    flag = t.root / (f"{P0}/boost" if kernel == "per-policy" else "sys/devices/system/cpu/cpufreq/boost")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    cap = t.read_int(f"{P0}/scaling_max_freq")
    resets = 0

    def recapped(k: int) -> None:
        """The cap written again after a reset: its line while every kind of it is still said
        (which of the two boost kinds a reset is counted as depends on whether the limit watch
        looked between the switch and the reset, and each kind goes quiet after
        SAY_EACH_RESET_UP_TO, so only the first that many resets are sure to be said), then
        the file back at the cap (a flake of the shared build machine, session 30)."""
        nonlocal resets
        resets += 1
        if resets <= SAY_EACH_RESET_UP_TO:
            line = procutil.wait_line(proc, "restore now puts back", stream="stderr")
            assert "another writer" not in line and "left to it" not in line, f"switch {k + 1}: {line}"
        deadline = time.monotonic() + procutil.DEADLINE_S
        while t.read_int(f"{P0}/scaling_max_freq") != cap and time.monotonic() < deadline:
            time.sleep(0.05)  # the daemon's next look (1 s cadence) re-writes it
        assert t.read_int(f"{P0}/scaling_max_freq") == cap, f"switch {k + 1}: not re-capped"

    for k in range(4):
        bs._rewrite(flag, 1)  # the store's first half: the state
        procutil.wait_line(proc, "boost switched on for policy0", stream="stderr")
        run = bs.FakeRun(t, threading.Event(), random.Random(1))
        bs._switch_boost(run, tops, dict.fromkeys(tops, False), "policy0", True)  # its second: the reset
        assert t.read_int(f"{P0}/scaling_max_freq") in (boost, cap)  # the daemon may re-cap at once
        recapped(k)
        _switch(bs, t.root, tops, kernel, False)
        recapped(k)
    err = procutil.stopped(proc)
    assert "another writer" not in err and "left to it" not in err, err
    kernel_owned = (CUR, f"{P0}/cpuinfo_max_freq")
    assert _but(t.snapshot(), *kernel_owned) == _but(before, *kernel_owned)


@pytest.mark.parametrize("how", EXITS)
def test_every_exit_after_a_fan_rival_was_seen_leaves_the_rest_as_found(tmp_path: Path, how: str) -> None:
    """A hot Orin Nano governing its hwmon pwm-fan: a user's ``echo 100 > pwm1`` mid-run leaves
    the fan to that writer (21d/24c).  Each exit path then leaves the fan as that writer set it
    (``pwm1`` 100 with the manual mode it found in force) and every other file as before the run,
    the caps put back: nothing written outside the owned attributes."""
    from tests.hw.test_hw_hwmon_fan_rival import LEFT, REAL_ENABLE, REAL_PWM, _orin

    t = _orin(tmp_path / "root")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s", run_lines='fan = "governor"\n')
    procutil.wait_line(proc, "thermogov: started")
    t.write(REAL_PWM, 100)
    procutil.wait_line(proc, LEFT, "stderr")
    said = _exit(proc, tmp_path, how)
    after = t.snapshot()
    assert (after.pop(REAL_PWM), after.pop(REAL_ENABLE)) == (b"100\n", b"1\n"), said[-1500:]
    assert after == _but(before, REAL_PWM, REAL_ENABLE), said[-1500:]
