"""Session 23: boost switched mid-run and one-policy boards (bench/board_shapes.py).

``boost_switched`` (the global ``cpufreq/boost``) and ``policy_boost`` (``policyN/boost``, Linux
6.11+) switch a policy's boost mid-run; the kernel then re-issues the max request at the new top
(session 24's reading of the source, hw/boostrule.py), so a limit found at its boost OPP comes
back as the listed top once boost is off, which the bench must excuse and nothing else.  On a Pi (one policy, CPUs 0-3) the ``online`` path now offlines a CPU
under the one policy, and ``appear``/``reprobe`` take the one policy when nothing else is there.
"""

from __future__ import annotations

import random
import signal
import threading
from pathlib import Path
from types import ModuleType

from tests.hw import fakesys, procutil
from tests.hw.test_hw_board_shapes22 import assert_late_families_keep_earlier_draws
from tests.hw.test_hw_board_shapes_harness import _bench

CPUFREQ = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPUFREQ}/policy0"


def _run(bs: ModuleType, t: fakesys.FakeTree) -> object:
    return bs.FakeRun(t, threading.Event(), random.Random(1))


def test_boost_turned_off_leaves_the_listed_top_and_only_that_is_excused(tmp_path: Path) -> None:
    """The switch as shipped kernels make it (session 24, hw/boostrule.py): the max request is
    re-issued at the new top, ``cpuinfo_max_freq`` stays at the boost OPP once boost is off."""
    bs = _bench()
    t = fakesys.rpi5(tmp_path)
    tops = bs._boost_opps(t, random.Random(2), True)
    t.write(f"{CPUFREQ}/boost", "1\n")
    top, boost = tops["policy0"]
    assert t.read_int(f"{P0}/scaling_max_freq") == t.read_int(f"{P0}/cpuinfo_max_freq") == boost
    before = bs.snapshot(t.root)
    state = dict.fromkeys(tops, True)
    bs._rewrite(t.root / CPUFREQ / "boost", 0)
    bs._switch_boost(_run(bs, t), tops, state, "policy0", False)
    assert t.read_int(f"{P0}/scaling_max_freq") == top
    assert t.read_int(f"{P0}/cpuinfo_max_freq") == boost
    after = bs.snapshot(t.root)
    assert bs._held_under_boost_off(f"{P0}/scaling_max_freq", before, after)
    (t.root / P0 / "scaling_max_freq").write_text(f"{top - 1}\n")  # held lower: the daemon's cap left
    assert not bs._held_under_boost_off(f"{P0}/scaling_max_freq", before, bs.snapshot(t.root))
    bs._rewrite(t.root / CPUFREQ / "boost", 1)
    bs._switch_boost(_run(bs, t), tops, state, "policy0", True)  # on again: the cap replaced too
    assert t.read_int(f"{P0}/scaling_max_freq") == t.read_int(f"{P0}/cpuinfo_max_freq") == boost


def test_the_new_late_families_leave_every_earlier_draw_of_the_seed_as_it_was(tmp_path: Path) -> None:
    assert_late_families_keep_earlier_draws(tmp_path, 5, {"boost_switched", "policy_boost"}, "boost")


def test_a_pi_gets_a_cpu_offlined_under_its_one_policy(tmp_path: Path) -> None:
    bs = _bench()
    t = fakesys.rpi5(tmp_path)
    runner = bs.Runner(None)
    assert runner._plan_cpu_offline(t, [P0]) == [P0]
    assert runner._online_variant == "cpu" and runner._online_cpu == "3"
    assert t.read("sys/devices/system/cpu/cpu3/online").strip() == "1"


def test_a_hot_pi_keeps_its_cap_and_gets_its_limits_back_when_boost_is_turned_off_mid_run(
    tmp_path: Path,
) -> None:
    """Boost on at start (the limit found is the boost OPP), turned off by another agent while
    the daemon governs: the cap stays in force, and after SIGTERM the kernel holds the limit
    found at the listed top; every other file as found but the agent's."""
    bs = _bench()
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    tops = bs._boost_opps(t, random.Random(3), True)
    t.write(f"{CPUFREQ}/boost", "1\n")
    top, _boost = tops["policy0"]
    before = bs.snapshot(t.root)
    proc = procutil.start_run(tmp_path, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    cap = t.read_int(f"{P0}/scaling_max_freq")
    assert cap < top
    run, state = _run(bs, t), dict.fromkeys(tops, True)
    kernel = threading.Thread(target=bs._boost_kernel, args=(run, tops, state), daemon=True)
    kernel.start()
    bs._rewrite(t.root / CPUFREQ / "boost", 0)
    bs._switch_boost(run, tops, state, "policy0", False)  # the kernel replaces the cap (session 24)
    procutil.wait_line(proc, "boost switched", stream="stderr")
    assert t.read_int(f"{P0}/scaling_max_freq") == cap
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    run.stop.set()
    kernel.join()
    assert proc.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()
    after = bs.snapshot(t.root)
    agents = {f"{CPUFREQ}/boost", f"{P0}/cpuinfo_max_freq", f"{P0}/scaling_cur_freq"}
    left = [
        k
        for k in bs.changed(before, after)
        if k not in agents and not bs._held_under_boost_off(k, before, after)
    ]
    assert left == []
    assert t.read_int(f"{P0}/scaling_max_freq") == top
