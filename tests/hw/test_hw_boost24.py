"""Session 24: the kernel's boost switch against thermogov's cap (hw/boostrule.py).

On every kernel the boards ship (5.10.17+, 5.15, 6.1, 6.6, 6.12) ``cpufreq_boost_set_sw``
re-issues the sysfs max request at the policy's new top when boost is switched, so the switch
replaces thermogov's cap; ``cpuinfo_max_freq`` rises to the boost OPP when boost is turned on and
stays there when it is turned off.  The global ``cpufreq/boost`` switch (5.10 .. 6.6) and the
per-policy ``policyN/boost`` (6.11+, the 6.12 of Raspberry Pi OS) are each emulated with the
bench's fake kernel (bench/board_shapes.py, ``_switch_boost``).
"""

from __future__ import annotations

import random
import signal
import threading
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.test_hw_board_shapes_harness import _bench
from thermogov.hw.discovery import discover
from thermogov.hw.owned import owned_windows
from thermogov.hw.sysfs import SysfsTree

CPUFREQ = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPUFREQ}/policy0"
KERNELS = ["global", "per-policy"]  # 5.10/5.15/6.1/6.6's switch; 6.12's own file


def _boosted_pi5(root: Path, kernel: str, *, on: bool, cpu_mc: int) -> tuple[object, dict, int, int]:
    bs = _bench()
    t = fakesys.rpi5(root, cpu_mc=cpu_mc)
    tops = bs._boost_opps(t, random.Random(3), on)
    t.write(f"{CPUFREQ}/boost", "1\n" if on or kernel == "per-policy" else "0\n")
    if kernel == "per-policy":
        t.write(f"{P0}/boost", "1\n" if on else "0\n")
    top, boost = tops["policy0"]
    return bs, tops, top, boost


def _switch(bs, t_root: Path, tops: dict, kernel: str, on: bool) -> None:
    t = fakesys.FakeTree(t_root)
    run = bs.FakeRun(t, threading.Event(), random.Random(1))
    flag = t_root / (f"{P0}/boost" if kernel == "per-policy" else f"{CPUFREQ}/boost")
    bs._rewrite(flag, int(on))
    bs._switch_boost(run, tops, dict.fromkeys(tops, not on), "policy0", on)


@pytest.mark.parametrize("kernel", KERNELS)
def test_the_kernel_rule_of_a_switch_as_emulated(tmp_path: Path, kernel: str) -> None:
    bs, tops, top, boost = _boosted_pi5(tmp_path, kernel, on=False, cpu_mc=55000)
    t = fakesys.FakeTree(tmp_path)
    t.write(f"{P0}/scaling_max_freq", str(top - 100000))  # a cap
    _switch(bs, tmp_path, tops, kernel, True)
    assert t.read_int(f"{P0}/scaling_max_freq") == t.read_int(f"{P0}/cpuinfo_max_freq") == boost
    t.write(f"{P0}/scaling_max_freq", str(top - 100000))
    _switch(bs, tmp_path, tops, kernel, False)
    assert t.read_int(f"{P0}/scaling_max_freq") == top  # the cap replaced by the listed top
    assert t.read_int(f"{P0}/cpuinfo_max_freq") == boost  # left at the boost OPP (3c55e94c0ade)
    assert bs.boost_left_on(bs.snapshot(t.root)) == []
    t.write(f"{P0}/scaling_max_freq", str(boost))
    assert bs.boost_left_on(bs.snapshot(t.root))


@pytest.mark.parametrize("kernel", KERNELS)
def test_a_restore_range_ends_at_the_listed_top_while_boost_is_off(tmp_path: Path, kernel: str) -> None:
    """``cpuinfo_max_freq`` still reads the boost OPP once boost is off: the restore's range must
    not (fails on main: the range ended at the boost OPP)."""
    bs, tops, top, boost = _boosted_pi5(tmp_path, kernel, on=True, cpu_mc=55000)
    tree = SysfsTree(tmp_path)
    w = owned_windows(tree, discover(tree))
    assert [x.hi_limit for x in w.values()] == [boost]
    _switch(bs, tmp_path, tops, kernel, False)
    w = owned_windows(tree, discover(tree))
    assert [x.hi_limit for x in w.values()] == [top]


@pytest.mark.parametrize("kernel", KERNELS)
def test_boost_turned_off_mid_run_is_not_undone_at_exit(tmp_path: Path, kernel: str) -> None:
    """Boost on at start (the limit found is the boost OPP), a cool board, boost turned off by the
    operator mid-run: the kernel sets the max to the listed top and leaves cpuinfo_max_freq at
    the boost OPP.  At exit the limit must stay at the listed top; main wrote the boost OPP back
    ("restoring the value of before"), so the CPU could run at it with boost off."""
    bs, tops, top, _boost = _boosted_pi5(tmp_path / "root", kernel, on=True, cpu_mc=55000)
    t = fakesys.FakeTree(tmp_path / "root")
    proc = procutil.start_run(tmp_path, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    _switch(bs, t.root, tops, kernel, False)
    assert t.read_int(f"{P0}/scaling_max_freq") == top
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()
    assert t.read_int(f"{P0}/scaling_max_freq") == top, err.decode()
    assert bs.boost_left_on(bs.snapshot(t.root)) == []


@pytest.mark.parametrize("kernel", KERNELS)
def test_four_boost_switches_on_a_hot_board_keep_the_cap(tmp_path: Path, kernel: str) -> None:
    """Each switch replaces the cap by the new top (the kernel's reset, not a rival): the cap is
    written again every time and the file is never left (main counted each as a rival's raise
    and gave the file up after the third: the board ran uncapped).  At exit the limit is the top
    of the state boost was left in."""
    bs, tops, top, _boost = _boosted_pi5(tmp_path / "root", kernel, on=False, cpu_mc=92000)
    t = fakesys.FakeTree(tmp_path / "root")
    proc = procutil.start_run(tmp_path, "--duration", "90s")
    procutil.wait_line(proc, "thermogov: started")
    cap = t.read_int(f"{P0}/scaling_max_freq")
    assert cap < top
    for k, on in enumerate([True, False, True, False]):
        _switch(bs, t.root, tops, kernel, on)
        line = procutil.wait_line(proc, "policy0 to ", stream="stderr")
        assert "left to it" not in line, f"switch {k + 1}: {line}"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert "left to it" not in (out + err).decode()
    assert t.read_int(f"{P0}/scaling_max_freq") == top, err.decode()
