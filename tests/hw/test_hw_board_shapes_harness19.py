"""Session 19: four harness findings of bench/board_shapes.py seeds 4-8, each the bench's, not the daemon's.

* seed 4 tree 12, seed 8 tree 14: the fake rounding kernel rounded a policy without an OPP list
  to its two ``cpuinfo`` ends (no kernel does: its limits are QoS requests kept as written);
* seed 8 tree 12: messy OPP lists wrote a two-entry list for a policy that had none;
* seed 7 tree 14: a rival's one write, drawn for a random instant, landed after the daemon had
  restored, and was reported as a limit the daemon left changed;
* seed 5 tree 18: a stop that lands while the interpreter itself starts (before any line of
  thermogov) cannot be answered by any program; it is counted apart, not as a finding.
"""

from __future__ import annotations

import random
import threading
from pathlib import Path

from tests.hw import fakesys
from tests.hw.test_hw_board_shapes_harness import _bench

P0 = "sys/devices/system/cpu/cpufreq/policy0"


def test_the_rounding_kernel_keeps_a_table_less_cap_inside_the_cpuinfo_range(tmp_path: Path) -> None:
    bs = _bench()
    t = fakesys.rpi5(tmp_path)
    (tmp_path / P0 / "scaling_available_frequencies").unlink()
    t.write(f"{P0}/scaling_max_freq", 1700000)
    bs._round_in_place(
        tmp_path / P0, "scaling_min_freq", "scaling_max_freq", bs.table_of(t, "policy0"), clamp_only=True
    )
    assert t.read_int(f"{P0}/scaling_max_freq") == 1700000
    bs._round_in_place(tmp_path / P0, "scaling_min_freq", "scaling_max_freq", [1500000, 1800000, 2400000])
    assert t.read_int(f"{P0}/scaling_max_freq") == 1500000  # a table: rounded down to an OPP


def test_messy_tables_leave_a_policy_without_a_list_without_one(tmp_path: Path) -> None:
    bs = _bench()
    t = fakesys.rpi5(tmp_path)
    (tmp_path / P0 / "scaling_available_frequencies").unlink()
    bs.messy_tables(t, random.Random(1), bs.Trial("rpi5"))
    assert not (tmp_path / P0 / "scaling_available_frequencies").exists()


def test_an_agents_one_action_after_the_stop_began_is_skipped(tmp_path: Path) -> None:
    bs = _bench()
    run = bs.FakeRun(fakesys.rpi5(tmp_path), threading.Event(), random.Random(1))
    done: list[str] = []
    run.once(lambda: done.append("before"))
    run.begin_stop()
    run.once(lambda: done.append("after"))
    assert done == ["before"]


def test_a_stop_before_thermogovs_first_line_is_told_from_one_in_its_code() -> None:
    bs = _bench()
    site = (
        "Traceback (most recent call last):\n"
        '  File "<frozen site>", line 626, in <module>\n'
        '  File "/venv/lib/python3.11/site-packages/__editable___thermogov_0_1_0_finder.py", line 3\n'
        "KeyboardInterrupt\n"
    )
    ours = site.replace("<frozen site>", str(Path(bs._package_dirs()[0]) / "cli.py"))
    assert bs.before_thermogov(1, site)
    assert bs.before_thermogov(-15, "")
    assert not bs.before_thermogov(1, ours)
    assert not bs.before_thermogov(-15, "thermogov: started\n")
    assert not bs.before_thermogov(130, "thermogov: interrupted\n")
