"""Session 23a: the range memo seeded from discovery (tidy22's left item).

The start's limit check (``check_limits_in_force`` -> ``limits_range``) read each governed
policy's ``cpuinfo_min/max_freq`` and the GPU's ``available_frequencies`` a moment after
discovery had read them.  ``prepare`` now keeps discovery's values as the run's ranges
(hw/hwrange.py ``seed_ranges``), by the same rules as a read: each seeded range must be the one
a fresh read gives, and what discovery could not judge is left to be read as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.test_hw_start_discovers_once import _run
from thermogov.hw import hwrange, limits
from thermogov.hw.discovery import discover
from thermogov.hw.hwrange import limits_range, seed_ranges
from thermogov.hw.sysfs import SysfsTree


def test_run_reads_no_range_discovery_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's start reads no policy's or device's range again (main: 3 reads of ranges,
    each repeating discovery's: policy0, policy4 and the GPU)."""
    fakesys.orin_nano(tmp_path / "root", cpu_mc=60000, gpu_mc=60000)
    read: list[str] = []
    real = hwrange._read_range

    def counted(tree: SysfsTree, folder: str, scale_hz: int) -> tuple[int, int, str] | None:
        read.append(folder)
        return real(tree, folder, scale_hz)

    checked: list[str] = []
    check = limits.limits_range

    def asked(tree: SysfsTree, min_rel: str, scale_hz: int, **k: bool) -> tuple[int, int, str] | None:
        checked.append(min_rel)
        return check(tree, min_rel, scale_hz, **k)

    monkeypatch.setattr(hwrange, "_read_range", counted)
    monkeypatch.setattr(limits, "limits_range", asked)
    _run(tmp_path, monkeypatch)  # a short dry run of the command in process, exit 0
    assert len(checked) >= 3  # the check still ran for both policies and the GPU
    assert read == []


def _shapes(root: Path) -> fakesys.FakeTree:
    """An Orin Nano whose policies show each way a range is found (or not)."""
    t = fakesys.orin_nano(root)
    cpu = "sys/devices/system/cpu"
    t.policy(1, [11], (500000, 1000000))  # plain: cpuinfo_min..max
    t.policy(2, [12], (500000, 1000000))
    t.write(f"{cpu}/cpufreq/policy2/cpuinfo_min_freq", 0)  # not a range: the OPP list's ends
    t.policy(3, [13], (500000, 1000000))
    (t.root / f"{cpu}/cpufreq/policy3/cpuinfo_max_freq").unlink()  # unreadable: the list's ends
    t.policy(5, [15], (500000, 1000000), listed=False)  # no OPP list: cpuinfo_min..max
    t.policy(6, [16], (500000, 1000000), listed=False)
    t.write(f"{cpu}/cpufreq/policy6/cpuinfo_max_freq", 100)  # max below min, no list: none
    t.policy(7, [17], (5_000_000_000, 9_000_000_000))  # a list wholly outside cpuinfo: refused
    t.write(f"{cpu}/cpufreq/policy7/cpuinfo_min_freq", 500000)
    t.write(f"{cpu}/cpufreq/policy7/cpuinfo_max_freq", 1000000)
    return t


def test_every_seeded_range_is_the_one_a_read_gives(tmp_path: Path) -> None:
    t = _shapes(tmp_path / "root")
    tree = SysfsTree(t.root)
    inv = discover(tree)
    seed_ranges(tree, inv)
    fresh = SysfsTree(t.root)
    kept = {rel.rsplit("/", 1)[-1]: span for rel, span in tree.ranges.items()}
    for p in inv.policies:
        read = limits_range(fresh, f"{p.rel}/scaling_min_freq", 1000)
        if p.name in kept:
            assert kept[p.name] == read, p.name
    for d in inv.devfreqs:
        assert kept[d.name] == limits_range(fresh, f"{d.rel}/min_freq", 1)
    assert kept["policy1"] == (500000, 1000000, "cpuinfo_min_freq..cpuinfo_max_freq")
    assert kept["policy2"] == kept["policy3"] == (500000, 1000000, "scaling_available_frequencies")
    assert kept["policy5"] == (500000, 1000000, "cpuinfo_min_freq..cpuinfo_max_freq")
    assert "policy6" not in kept and "policy7" not in kept  # left to the reader, as before
    assert limits_range(tree, "sys/devices/system/cpu/cpufreq/policy7/scaling_min_freq", 1000) == (
        500000,
        1000000,
        "cpuinfo_min_freq..cpuinfo_max_freq",
    )


def test_a_range_kept_earlier_in_the_run_stays(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    tree = SysfsTree(t.root)
    rel = "sys/devices/system/cpu/cpufreq/policy0"
    tree.ranges[rel] = (1, 2, "cpuinfo_min_freq..cpuinfo_max_freq")
    seed_ranges(tree, discover(tree))
    assert tree.ranges[rel] == (1, 2, "cpuinfo_min_freq..cpuinfo_max_freq")
