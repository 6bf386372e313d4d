"""Limits that change under a running daemon (hw/limitwatch.py), through the installed script.

A cluster going offline and coming back with the kernel's fresh limits, and another agent
(jetson_clocks raising the max, nvpmodel lowering it) writing an owned limit mid-run.  Each
waits on the daemon's own stderr line, never on a sleep.
"""

from __future__ import annotations

import errno
import subprocess
from pathlib import Path

from tests.hw import fakesys, faultshim, procutil

P0 = "sys/devices/system/cpu/cpufreq/policy0"
START_MAX = 2000000  # a power mode below the top OPP (2.4 GHz): what restore must give back
HYSTERESIS = '[run]\npolicy = "hysteresis"\n'


def _pi5(tmp: Path, cpu_mc: int) -> fakesys.FakeTree:
    t = fakesys.rpi5(tmp / "root", cpu_mc=cpu_mc)
    t.write(f"{P0}/scaling_max_freq", START_MAX)
    return t


def _start(tmp: Path, shim: Path) -> subprocess.Popen[bytes]:
    faultshim.write_rules(tmp / "faults", [])
    cfg = tmp / "cfg.toml"
    cfg.write_text(HYSTERESIS)
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), "--duration", "60s"]
    proc = subprocess.Popen(
        [*procutil.script(), "run", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=faultshim.env(shim, tmp / "faults", tmp / "root"),
    )
    procutil.wait_line(proc, "thermogov: started")
    return proc


def _max(t: fakesys.FakeTree) -> int:
    return int((t.root / P0 / "scaling_max_freq").read_text())


def test_a_cluster_back_online_with_fresh_limits_gets_its_cap_again_and_restore_gives_the_originals(
    tmp_path: Path, shim: Path
) -> None:
    # Before, the governor wrote a cap only when it decided a new one: the kernel's fresh
    # 2.4 GHz stayed in force on a 95 °C board for the rest of the run.
    t = _pi5(tmp_path, 95000)
    before = t.snapshot()
    proc = _start(tmp_path, shim)
    capped = _max(t)
    assert capped < START_MAX
    names = ("scaling_min_freq", "scaling_max_freq", "scaling_cur_freq")
    faultshim.write_rules(tmp_path / "faults", [(f"{P0}/{n}", "rw", errno.EBUSY) for n in names])
    procutil.wait_line(proc, "limits unreadable", stream="stderr")
    for limit, info in (("scaling_min_freq", "cpuinfo_min_freq"), ("scaling_max_freq", "cpuinfo_max_freq")):
        t.write(f"{P0}/{limit}", int((t.root / P0 / info).read_text()))
    faultshim.write_rules(tmp_path / "faults", [])
    procutil.wait_line(proc, "policy0 came back", stream="stderr")
    assert _max(t) == capped
    procutil.stopped(proc)
    assert t.snapshot() == before


def test_another_writer_raising_the_max_is_capped_again_and_its_value_is_what_restore_gives_back(
    tmp_path: Path, shim: Path
) -> None:
    # jetson_clocks-like: the max raised to the top mid-run.  The cap is written again (a hot
    # board), and at exit the agent's later choice stands, not the value at start.
    t = _pi5(tmp_path, 95000)
    proc = _start(tmp_path, shim)
    capped = _max(t)
    top = int((t.root / P0 / "cpuinfo_max_freq").read_text())
    t.write(f"{P0}/scaling_max_freq", top)
    procutil.wait_line(proc, "cap written again", stream="stderr")
    assert _max(t) == capped
    err = procutil.stopped(proc)
    assert _max(t) == top, err
    assert not (tmp_path / "state" / "journal.json").exists()


def test_a_writer_that_keeps_raising_the_max_is_left_the_file_and_not_fought_forever(
    tmp_path: Path, shim: Path
) -> None:
    t = _pi5(tmp_path, 95000)
    proc = _start(tmp_path, shim)
    top = int((t.root / P0 / "cpuinfo_max_freq").read_text())
    for _ in range(3):
        t.write(f"{P0}/scaling_max_freq", top)
        procutil.wait_line(proc, "cap written again", stream="stderr")
    t.write(f"{P0}/scaling_max_freq", top)
    procutil.wait_line(proc, "is left to it", stream="stderr")
    err = procutil.stopped(proc)
    assert _max(t) == top, err


def test_a_max_lowered_by_another_writer_is_not_written_over_while_running_and_restore_says_so(
    tmp_path: Path, shim: Path
) -> None:
    # nvpmodel-like on a cool board (no cap needed): the max lowered under the daemon stays
    # as that writer left it; restore puts the value of before back and says so.
    t = _pi5(tmp_path, 50000)
    before = t.snapshot()
    proc = _start(tmp_path, shim)
    lower = 1800000
    t.write(f"{P0}/scaling_max_freq", lower)
    procutil.wait_line(proc, "not written over while it stands", stream="stderr")
    assert _max(t) == lower
    err = procutil.stopped(proc)
    assert "restoring the value of before over it" in err
    assert t.snapshot() == before
