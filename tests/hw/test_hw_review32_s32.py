"""Session 32r: root-daemon safety, the items review 31r left (docs/hardware.md, "Session 32r").

The rules are driven in process on tmp trees (tests/hw/fakesys.py), a change under a running
daemon through the IO's hooks, never a sleep; an exit status through the installed script
(tests/hw/procutil.py) only where the status is the thing tested.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.hw import fakesys

P0 = "sys/devices/system/cpu/cpufreq/policy0"


# -- (1) an owned limit removed between the actuator's read and its own: exit 1, nothing owned -------
class _GoesAfterRead:
    """A SysfsTree whose ``victim`` file is removed right after its first read: the window
    between :meth:`CapActuator.open`'s read of the limits and its ``own``."""

    @staticmethod
    def make(root: Path, victim: str):  # type: ignore[no-untyped-def]
        from thermogov.hw.sysfs import SysfsTree

        class Tree(SysfsTree):
            def read_int(self, rel, error=None):  # type: ignore[no-untyped-def,override]
                value = super().read_int(rel, error) if error else super().read_int(rel)
                if rel == victim and (root / victim).exists():
                    os.remove(root / victim)
                return value

        return Tree(root)


def test_a_limit_removed_between_the_read_and_own_is_a_runtime_failure_nothing_owned(tmp_path: Path) -> None:
    """The GPU's ``max_freq`` goes after the actuator read it and before it is owned (a device
    unbound during start-up): a runtime failure naming the file, nothing owned (the CPU domain
    opened before it let go too), nothing written, no journal.  BASE f31071c: ActuatorError
    "no such attribute to own" (exit 2, bad input), the CPU's limits left owned."""
    from thermogov.board import load_board
    from thermogov.hw.daemon import open_actuators
    from thermogov.hw.discovery import discover
    from thermogov.hw.mapping import map_board
    from thermogov.interfaces import RuntimeFailure

    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    probe = _GoesAfterRead.make(t.root, "-")
    bindings = list(map_board(discover(probe), load_board("jetson-orin-nano")).domains)
    assert [b.domain.name for b in bindings][-1] == "gpu", "the GPU opens after the CPU"
    victim = bindings[-1].files[0].max_rel
    tree = _GoesAfterRead.make(t.root, victim)
    bindings = list(map_board(discover(tree), load_board("jetson-orin-nano")).domains)
    before = t.snapshot()
    with pytest.raises(RuntimeFailure, match=r"max_freq: went away between the read .*nothing was changed"):
        open_actuators(tree, bindings, dry_run=False)
    assert tree.owned() == frozenset()
    after = t.snapshot()
    (gone,) = set(before) - set(after)
    assert gone.endswith("17000000.gpu/max_freq") and {k: before[k] for k in after} == after


# -- (3) `thermogov ab`: a block's restore that leaves another writer's value says so, once ----------
def test_ab_says_once_when_a_blocks_restore_leaves_another_writers_max_and_keeps_it_in_the_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer sets the Pi 5's policy0 max to 1.8 GHz (above thermogov's cap, below the
    value of before, 2.4) just as block 1's restore begins: the restore leaves it (RaceRule),
    and ``ab`` now says so in one line of its log and in that block's ``restore_notes`` (its
    JSON); the later blocks, whose restores met no one, carry none.  BASE f31071c: the rule was
    followed without a word in ab's output or JSON."""
    import dataclasses

    from tests.hw.cliargs import run_options
    from thermogov.hw import ab, daemon, devices

    t = fakesys.rpi5(tmp_path / "root", cpu_mc=85000)
    real_restore = devices.restore_window
    acted: list[int] = []

    def other_writer_then_restore(io, f, *args, **kw):  # type: ignore[no-untyped-def]
        if f.max_rel == f"{P0}/scaling_max_freq" and not acted:
            acted.append(1)
            t.write(f.max_rel, 1_800_000)
        return real_restore(io, f, *args, **kw)

    monkeypatch.setattr(devices, "restore_window", other_writer_then_restore)
    monkeypatch.setattr(daemon, "check_privileges", lambda dry: None)
    base = run_options(tmp_path, workload="builtin")
    opts = ab.AbOptions(base, "fixed:0%", "hysteresis", pairs=2, block_s=0.5, cool_down_s=0.0)
    said: list[str] = []
    _result, blocks = ab.run_ab(opts, log=said.append)
    lines = [ln for ln in said if "the restore met another writer's limit" in ln]
    assert len(lines) == 1 and lines[0].startswith("block 1 (") and "1800000" in lines[0], said
    first, *rest = (dataclasses.asdict(b) for b in blocks)
    assert len(first["restore_notes"]) == 1 and "1800000" in first["restore_notes"][0]
    assert [b["restore_notes"] for b in rest] == [()] * 3
    assert int((t.root / P0 / "scaling_max_freq").read_text()) == 1_800_000, "left as it reads"


# -- (4) the emulated Pi 4 has the firmware's rpi_volt chip, as the Pi 3 -----------------------------
def test_the_emulated_pi4_has_the_firmwares_rpi_volt_alarm_and_the_daemon_reads_it(tmp_path: Path) -> None:
    """drivers/firmware/raspberrypi.c registers raspberrypi-hwmon on every Pi whose firmware
    answers GET_THROTTLED, the Pi 4's included (sim/emulator/trees/rpi4.toml cites it): the
    emulated Pi 4 has ``rpi_volt`` with ``in0_lcrit_alarm`` reading 0 beside ``cpu_thermal``,
    and the daemon's throttle reader takes it as a source.  BASE f31071c: no such chip."""
    from thermogov.board import load_board
    from thermogov.hw.sysfs import SysfsTree
    from thermogov.hw.throttle import find_sources
    from thermogov.sim.emulator.fakeboard import build_fake_board

    profile = load_board("rpi4")
    build_fake_board(profile, tmp_path / "root", {s.name: 50.0 for s in profile.sensors})
    chips = {
        (p / "name").read_text().strip(): p for p in (tmp_path / "root" / "sys/class/hwmon").glob("hwmon*")
    }
    assert set(chips) == {"cpu_thermal", "rpi_volt"}
    assert (chips["rpi_volt"] / "in0_lcrit_alarm").read_text() == "0\n"
    assert "rpi_volt" in [s.name for s in find_sources(SysfsTree(tmp_path / "root"), ())]


# -- (2) an OPP list that changes under the running daemon: never a cap above the new top, said once --
def _run_with_list_change(
    tmp: Path, monkeypatch: pytest.MonkeyPatch, new_list: str
) -> tuple[dict[str, int], str, fakesys.FakeTree]:
    """A hot Pi 5 governed for 12 s on the virtual clock (hysteresis: its lowest cap, 1.5 GHz);
    at 3 s its cpufreq driver comes back listing ``new_list``.  Returns policy0's max as read at
    8 s and at the end (kHz), stderr, the tree."""
    import io

    from tests.hw import virtualclock
    from tests.hw.cliargs import run_options
    from thermogov.hw import daemon

    t = fakesys.rpi5(tmp / "root", cpu_mc=85000)
    seen: dict[str, int] = {}

    def script(s: float) -> None:
        if s >= 3.0 and "changed" not in seen:
            seen["changed"] = 1
            t.write(f"{P0}/scaling_available_frequencies", new_list)
        if s >= 8.0 and "at_8s" not in seen:
            seen["at_8s"] = t.read_int(f"{P0}/scaling_max_freq")

    virtualclock.install(monkeypatch, script)
    monkeypatch.setattr(daemon, "check_privileges", lambda dry: None)
    err = io.StringIO()
    daemon.run(run_options(tmp, duration_s=12.0), out=io.StringIO(), err=err)
    seen["end"] = t.read_int(f"{P0}/scaling_max_freq")
    return seen, err.getvalue(), t


def test_a_list_that_shrinks_below_the_cap_mid_run_gets_the_new_top_written_and_said_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The driver comes back at 3 s listing 0.6..1.2 GHz, a 0 and a repeated entry among them;
    thermogov's cap, 1.5 GHz, is above the new top: 1.2 GHz is written at the next look (5 s),
    one line names the file, the old and new range and what was ignored; the value of before
    goes back at exit.  BASE f31071c: 1.5 GHz stayed written, nothing said."""
    seen, err, _t = _run_with_list_change(tmp_path, monkeypatch, "600000 1000000 0 1200000 1200000\n")
    lines = [ln for ln in err.splitlines() if "the OPP list changed mid-run" in ln]
    assert len(lines) == 1, err
    assert "policy0/scaling_available_frequencies" in lines[0] and "3 OPPs 600000..1200000 kHz" in lines[0]
    assert "(was 10 OPPs 1500000..2400000 kHz)" in lines[0], lines[0]
    assert "ignored 0 kHz" in lines[0] and "1200000 kHz listed more than once" in lines[0]
    assert "was 1500000 kHz, now 1200000 kHz" in lines[0]
    assert seen["at_8s"] == 1_200_000
    assert seen["end"] == 2_400_000 and "Traceback" not in err


def test_a_list_emptied_of_opps_mid_run_keeps_the_cap_and_says_so_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A list reading only ``0`` mid-run (a driver bug, no table): nothing to bound the cap by,
    so the cap stays as written and one line says the list holds no OPP.  BASE f31071c: nothing
    said."""
    seen, err, _t = _run_with_list_change(tmp_path, monkeypatch, "0\n")
    lines = [ln for ln in err.splitlines() if "lists no OPP now" in ln]
    assert len(lines) == 1 and "policy0/scaling_available_frequencies" in lines[0], err
    assert seen["at_8s"] == 1_500_000 and seen["end"] == 2_400_000


def test_caps_after_a_list_change_are_the_highest_listed_at_or_below_never_above_the_top(
    tmp_path: Path,
) -> None:
    """In process: after the list changed to 1.5, 1.8, 2.0 GHz, the governor's 2.4 GHz ask is
    written as 2.0 (the new top), 1.9 as 1.8 (not listed: the highest below), and a cap below
    every entry is written as it is (the lowest entry would raise it).  BASE f31071c: no such
    bound (the asks written as they are)."""
    from tests.hw.limitrig import watched_policy0
    from thermogov.hw.oppwatch import OppWatch

    t, act, _watch, _said = watched_policy0(tmp_path, cpu_mc=85000)
    now = [0.0]
    opps = OppWatch(act.io.tree, [act], lambda: now[0])
    t.write(f"{P0}/scaling_available_frequencies", "1500000 1800000 2000000\n")
    now[0] = 5.0
    assert len(opps.look()) == 1
    now[0] = 10.0
    assert opps.look() == [], "said once"
    for ask_hz, written_khz in ((2_400_000_000, 2_000_000), (1_900_000_000, 1_800_000)):
        act.apply(ask_hz)
        assert t.read_int(f"{P0}/scaling_max_freq") == written_khz
    act._listed["policy0"] = (1_600_000, 1_800_000)  # a cap below every entry: written as it is
    act.apply(1_500_000_000)
    assert t.read_int(f"{P0}/scaling_max_freq") == 1_500_000


# -- (5) exit paths on one Jetson and one Pi emulated tree: every setting back, nothing else written --
def _emulated(tmp: Path, board: str) -> fakesys.FakeTree:
    """The emulator's stock tree of ``board`` (sim/emulator/trees), every die sensor at 92 °C."""
    from thermogov.board import load_board
    from thermogov.sim.emulator.fakeboard import build_fake_board

    profile = load_board(board)
    build_fake_board(profile, tmp / "root", {s.name: 92.0 for s in profile.sensors})
    return fakesys.FakeTree(tmp / "root")


@pytest.mark.parametrize("board", ["jetson-orin-nano", "rpi4"])
def test_term_hup_term_in_a_burst_restores_everything_and_exits_0(tmp_path: Path, board: str) -> None:
    """SIGTERM, SIGHUP and SIGTERM again back to back once the run started (a reload asked while
    the stop's restore runs, a second stop during it): exit 0, no traceback, the tree byte for
    byte as before, no journal left.  A guard (so on BASE f31071c too): the handlers only set a
    flag, the reload runs between ticks, and the held signals after the restore are dropped."""
    import signal

    from tests.hw import procutil

    t = _emulated(tmp_path, board)
    before = t.snapshot()
    proc = procutil.start_run(tmp_path)
    procutil.wait_line(proc, "thermogov: started")
    assert t.snapshot() != before, "the first tick capped the hot board"
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGTERM):
        proc.send_signal(sig)
    _out, raw = proc.communicate(timeout=procutil.DEADLINE_S)
    err = raw.decode()
    assert proc.returncode == 0 and "Traceback" not in err, err[-800:]
    assert t.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()


def test_kill_9_then_restore_on_the_emulated_orin_puts_every_setting_back(tmp_path: Path) -> None:
    """``kill -9`` once the run started, then ``thermogov restore``: exit 0 and the emulated Orin
    Nano's tree byte for byte as before (its CPU and GPU limits; nothing else was written).  A
    guard (so on BASE f31071c too)."""
    import signal

    from tests.hw import procutil

    t = _emulated(tmp_path, "jetson-orin-nano")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path)
    procutil.wait_line(proc, "thermogov: started")
    assert t.snapshot() != before, "the first tick capped the hot board"
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=procutil.DEADLINE_S)
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-800:]
    assert t.snapshot() == before


def test_a_list_gaining_only_entries_that_are_no_opp_mid_run_is_said_once_and_the_cap_stays(
    tmp_path: Path,
) -> None:
    """The same OPPs plus a ``0``, a ``-5`` and one listed twice, mid-run: one line names them as
    ignored, the cap stays as written (it is still listed), nothing is written.  BASE f31071c:
    such entries were judged at start only."""
    from tests.hw.limitrig import watched_policy0
    from thermogov.hw.oppwatch import OppWatch

    t, act, _watch, _said = watched_policy0(tmp_path, cpu_mc=85000)
    act.apply(1_800_000_000)
    now = [0.0]
    opps = OppWatch(act.io.tree, [act], lambda: now[0])
    listed = t.read(f"{P0}/scaling_available_frequencies").split()
    t.write(f"{P0}/scaling_available_frequencies", " ".join(["0", "-5", *listed, listed[0]]) + "\n")
    before = t.snapshot()
    now[0] = 5.0
    (line,) = opps.look()
    assert "ignored 0, -5 kHz" in line and f"{listed[0]} kHz listed more than once" in line, line
    assert "1800000 kHz, stays as written" in line
    assert t.snapshot() == before
    now[0] = 10.0
    assert opps.look() == []
