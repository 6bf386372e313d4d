"""Session 22: the ``cpufreq/`` folder's other entries (bench/board_shapes.py ``cpufreq_globals``).

Next to ``policyN`` the kernel keeps ``boost`` (drivers with boost OPPs) and, for a driver without
a governor per policy, the governor's tunables folder (a Raspberry Pi's ``cpufreq/ondemand/``).
The bench's own helpers took every entry there for a policy (``int("boost"[6:])``: a harness
crash); the daemon reads ``policy\\d+`` only and, with boost on, must cap below a limit that lies
above every listed OPP and put that limit back.
"""

from __future__ import annotations

import random
import signal
import threading
from pathlib import Path

from tests.hw import fakesys, procutil
from tests.hw.test_hw_board_shapes_harness import _bench

CPUFREQ = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPUFREQ}/policy0"


def _with_boost(t: fakesys.FakeTree, boost_khz: int) -> None:
    """A Pi 5 whose driver lists a boost OPP and has boost on, with global ondemand tunables."""
    t.write(f"{CPUFREQ}/boost", "1\n")
    t.write(f"{CPUFREQ}/ondemand/up_threshold", 50)
    t.write(f"{CPUFREQ}/ondemand/sampling_rate", 100000)
    t.write(f"{P0}/scaling_governor", "ondemand\n")
    t.write(f"{P0}/scaling_boost_frequencies", f"{boost_khz} \n")
    for name in ("cpuinfo_max_freq", "scaling_max_freq", "scaling_cur_freq"):
        t.write(f"{P0}/{name}", boost_khz)


def test_the_benchs_helpers_read_policy_folders_only_and_boost_opps_while_boost_is_on(
    tmp_path: Path,
) -> None:
    bs = _bench()
    t = fakesys.rpi5(tmp_path)
    top = max(bs.table_of(t, "policy0"))
    _with_boost(t, top + 200000)
    assert bs.policies(t) == ["policy0"]
    assert max(bs.table_of(t, "policy0")) == top + 200000
    t.write(f"{CPUFREQ}/boost", "0\n")
    assert max(bs.table_of(t, "policy0")) == top


def assert_late_families_keep_earlier_draws(tmp: Path, seed: int, families: set[str], marker: str) -> None:
    """Each tree of ``seed`` built with ``families`` forced: the same board, the same shapes of
    the families before the late ones, the family's own shape (``marker``) on at least one, and
    the trial's later draws."""
    bs = _bench()
    seen = False
    for k in range(8):
        plain_rng, forced_rng = random.Random(f"{seed}/0/{k}"), random.Random(f"{seed}/0/{k}")
        _, plain = bs.build(tmp / f"plain{k}", plain_rng)
        bs.FORCED.update(families)
        try:
            _, forced = bs.build(tmp / f"forced{k}", forced_rng)
        finally:
            bs.FORCED.clear()
        assert forced.board == plain.board
        # the early families' shapes as they were (a late family may see another's files: boost)
        early = [s for s in plain.shapes if not any(s in v for v in plain.late.values())]
        assert forced.shapes[: len(early)] == early
        seen |= any(marker in s for s in forced.shapes)
        assert forced_rng.random() == plain_rng.random(), "the trial's later draws must not move"
    assert seen


def test_a_late_shape_family_leaves_every_earlier_draw_of_the_seed_as_it_was(tmp_path: Path) -> None:
    assert_late_families_keep_earlier_draws(tmp_path, 3, {"cpufreq_globals"}, "cpufreq-")


def test_a_hot_board_with_boost_on_is_capped_below_the_listed_top_and_gets_its_boost_limit_back(
    tmp_path: Path,
) -> None:
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    listed = sorted(int(x) for x in t.read(f"{P0}/scaling_available_frequencies").split())
    boost = listed[-1] + 200000
    _with_boost(t, boost)
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "60s")
    procutil.wait_line(proc, "thermogov: started")
    cap = t.read_int(f"{P0}/scaling_max_freq")
    assert cap in listed and cap < listed[-1], "a 92 °C board runs capped, at a listed OPP"
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert "Traceback" not in err.decode()
    assert t.snapshot() == before  # the boost limit, the boost file and the tunables as they were


def test_a_min_the_kernel_clamped_under_a_rivals_lower_max_is_the_rivals_doing(tmp_path: Path) -> None:
    # Seed 13 tree 10 (Xavier NX, rounding kernel, a rival on policy0): the rival wrote max
    # 1036800 under min 1190400, the kernel held min at 1036800, and the bench called that min a
    # limit the daemon left changed on 7 exit paths.
    bs = _bench()
    run = bs.FakeRun(fakesys.rpi5(tmp_path), threading.Event(), random.Random(1))
    lo, hi = f"{P0}/scaling_min_freq", f"{P0}/scaling_max_freq"
    run.wrote[hi] = (1036800, 115200)
    before = {lo: (b"1190400\n", 0o644), hi: (b"1907200\n", 0o644)}
    after = {lo: (b"1036800\n", 0o644), hi: (b"1036800\n", 0o644)}
    tr = bs.Trial("jetson-xavier-nx", rivals={hi})
    assert bs.Runner._agents_choice(lo, tr, run, {lo, hi}, before, after)
    after[lo] = (b"960000\n", 0o644)  # below the rival's max: no kernel did that
    assert not bs.Runner._agents_choice(lo, tr, run, {lo, hi}, before, after)
    del run.wrote[hi]
    after[lo] = (b"1036800\n", 0o644)  # no agent wrote the max: the daemon's to put back
    assert not bs.Runner._agents_choice(lo, tr, run, {lo, hi}, before, after)
