"""bench/board_shapes.py counted the daemon's session-30 rule as a finding: a tree whose governed
limit refuses every write ends the run with exit 1 after the restore and one line naming the file
(hw/unwritten.py), and the bench wanted exit 0 (seed 32 tree 4: a GPU ``max_freq`` answering
EPERM, `exit-status` and `kill9-next-start`).  The bench now takes that line, for a file the
trial's own fault rules refuse, as the right answer; any other exit 1 is still a finding."""

from __future__ import annotations

from tests.hw.test_hw_board_shapes_harness import _bench

GPU = "sys/devices/platform/17000000.ga10b/devfreq/17000000.ga10b/max_freq"
LINE = (
    "thermogov: error: gpu: its latest cap write failed (/tmp/x/root/sys/class/devfreq/17000000.ga10b/max_freq: write of 306000000 "
    "failed (EPERM: Operation not permitted); operation not permitted: run as root), so the run did "
    "not govern it to the end; only the kernel's and firmware's own thermal limits held it; the limits were restored"
)


def test_the_unwritten_line_for_a_refused_file_is_the_right_answer() -> None:
    bs = _bench()
    tr = bs.Trial(board="jetson-agx-orin", fault_rules=[(GPU, "w", 1)])
    assert bs.unwritable_by_design(f"thermogov: started\n{LINE}\n", tr)


def test_any_other_exit_1_is_still_a_finding() -> None:
    bs = _bench()
    line = LINE
    no_rule = bs.Trial(board="jetson-agx-orin")
    other_file = bs.Trial(
        board="jetson-agx-orin",
        fault_rules=[("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", "w", 1)],
    )
    read_rule = bs.Trial(board="jetson-agx-orin", fault_rules=[(GPU, "r", 5)])
    for tr in (no_rule, other_file, read_rule):
        assert not bs.unwritable_by_design(line, tr)
    ruled = bs.Trial(board="jetson-agx-orin", fault_rules=[(GPU, "w", 1)])
    assert not bs.unwritable_by_design(
        "thermogov: error: a cluster went away; run thermogov restore\n", ruled
    )
    assert not bs.unwritable_by_design(f"{line}\nthermogov: error: something after it\n", ruled)
