"""Session 28r: the root daemon's safety items session 27 left, and a review of its merges
(docs/hardware.md, "Session 28r").

(1) A cpufreq policy whose folder is absent at start (its CPU hotplugged out on a kernel that
removes the folder, a cpufreq driver loaded late) and that appears mid-run: one the profile names
was waited for; one it names not (a policy per CPU under a profile naming clusters) was never
looked at, and its CPU ran at full clock on a hot board.  Now both are capped with the domain when
they appear, journaled, and put back on every exit path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.test_hw_review26 import EXITS, _exit
from tests.hw.test_hw_trees26 import CPUF, HOT, PER_CORE_KHZ


def _per_core_orin(root: Path, cores: int, absent: tuple[int, ...]) -> fakesys.FakeTree:
    """tests/hw/test_hw_trees26.py's T234-class board with a policy per CPU, the CPUs of
    ``absent`` without a policy folder (a kernel that removes it with the CPU, a late driver)."""
    t = fakesys.FakeTree(root)
    t.model("Acme T234 box", ("acme,box", "nvidia,tegra234"))
    t.zone(0, "cpu-thermal", HOT)
    t.zone(1, "gpu-thermal", HOT)
    for c in range(cores):
        if c not in absent:
            t.policy(c, [c], PER_CORE_KHZ)
    return t


def _without(snap: dict[str, bytes | str], prefixes: tuple[str, ...]) -> dict[str, bytes | str]:
    return {k: v for k, v in snap.items() if not k.startswith(prefixes)}


def _only(snap: dict[str, bytes | str], prefixes: tuple[str, ...]) -> dict[str, bytes | str]:
    return {k: v for k, v in snap.items() if k.startswith(prefixes)}


@pytest.mark.parametrize("how", EXITS)
def test_a_policy_absent_at_start_named_or_not_is_capped_when_it_appears_and_restored(
    tmp_path: Path, how: str
) -> None:
    """Eight per-CPU policies under ``--board jetson-orin-nano`` (its cpu domain names policy0 and
    policy4); policy4 (named) and policy5 (named by no domain) have no folder at start.  Both
    appear mid-run: each is capped with the domain, then every exit path leaves each policy's files
    as they were when it appeared.  Main: policy5 is never looked at (its line never comes, its
    max stays the kernel's top)."""
    late = (4, 5)
    t = _per_core_orin(tmp_path / "root", 8, absent=late)
    before_start = t.snapshot()
    proc = procutil.start_run(tmp_path, "--board", "jetson-orin-nano", "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    top = max(PER_CORE_KHZ)
    cap = t.read_int(f"{CPUF}/policy1/scaling_max_freq")
    assert cap < top
    for c in late:
        t.policy(c, [c], PER_CORE_KHZ)
    before = t.snapshot()  # the late policies as they appeared: what restore puts back for them
    for c in late:
        procutil.wait_line(proc, f"policy{c} appeared", stream="stderr")
    for c in late:
        assert (
            t.read_int(f"{CPUF}/policy{c}/scaling_max_freq")
            == t.read_int(f"{CPUF}/policy1/scaling_max_freq")
            < top
        )
    said = _exit(proc, tmp_path, how)
    assert "Traceback" not in said, said[-1500:]
    late_rels = tuple(f"{CPUF}/policy{c}" for c in late) + tuple(
        f"sys/devices/system/cpu/cpu{c}" for c in late
    )
    after = t.snapshot()
    assert _only(after, late_rels) == _only(before, late_rels), said[-1500:]  # as they appeared
    assert _without(after, late_rels) == _without(before_start, late_rels), said[-1500:]
