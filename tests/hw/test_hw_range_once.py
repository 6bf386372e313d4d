"""A device's hardware range is read once a run (hw/hwrange.py, session 21's review finding 1).

The start's check (``check_limits_in_force``) reads it; the journal's first write and every
rewrite of a window left as it was take it from there instead of reading the device's files
again.  It is read afresh for a window whose values changed (another writer's value adopted:
today's range holds it) and for a member whose folder the kernel made again (``release_member``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

from tests.hw import fakesys
from thermogov.hw.hwrange import limits_range
from thermogov.hw.journal import JournalEntry, RecordedRanges
from thermogov.hw.sysfs import SysfsTree

P0 = "sys/devices/system/cpu/cpufreq/policy0"
MIN = f"{P0}/scaling_min_freq"


class CountingTree(SysfsTree):
    """Counts the reads that reach a file, by attribute name."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.reads: Counter[str] = Counter()

    def _read_bytes(self, real: str) -> bytes:
        self.reads[real.rsplit("/", 1)[-1]] += 1
        return super()._read_bytes(real)


def _rig(tmp: Path) -> tuple[fakesys.FakeTree, CountingTree, tuple[int, int]]:
    t = fakesys.rpi5(tmp / "root")
    return (
        t,
        CountingTree(t.root),
        (t.read_int(f"{P0}/cpuinfo_min_freq"), t.read_int(f"{P0}/cpuinfo_max_freq")),
    )


def _entry(lo: int, hi: int) -> JournalEntry:
    return JournalEntry("cpu", "policy0", MIN, f"{P0}/scaling_max_freq", 1000, lo, hi)


def test_the_range_is_read_once_and_again_for_a_folder_forgotten_or_when_asked_fresh(tmp_path: Path) -> None:
    t, tree, (lo, hi) = _rig(tmp_path)
    assert limits_range(tree, MIN, 1000) == (lo, hi, "cpuinfo_min_freq..cpuinfo_max_freq")
    first = sum(tree.reads.values())
    t.write(f"{P0}/cpuinfo_max_freq", hi + 100000)  # what a re-probed policy might read
    assert limits_range(tree, MIN, 1000)[:2] == (lo, hi)  # kept for the run
    assert sum(tree.reads.values()) == first
    assert limits_range(tree, MIN, 1000, fresh=True)[:2] == (lo, hi + 100000)
    t.write(f"{P0}/cpuinfo_max_freq", hi)
    tree.release_member(f"{P0}/scaling_cur_freq")  # the member departed: its folder's memos go
    assert limits_range(tree, MIN, 1000)[:2] == (lo, hi)


def test_a_range_not_known_is_not_kept(tmp_path: Path) -> None:
    t, tree, (lo, hi) = _rig(tmp_path)
    t.write(f"{P0}/cpuinfo_min_freq", "garbage")
    t.write(f"{P0}/cpuinfo_max_freq", "garbage")
    (t.root / P0 / "scaling_available_frequencies").unlink()
    assert limits_range(tree, MIN, 1000) is None
    t.write(f"{P0}/cpuinfo_min_freq", lo)
    t.write(f"{P0}/cpuinfo_max_freq", hi)
    assert limits_range(tree, MIN, 1000)[:2] == (lo, hi)


def test_a_rewrite_reads_the_range_of_a_changed_window_only(tmp_path: Path) -> None:
    t, tree, (lo, hi) = _rig(tmp_path)
    ranges = RecordedRanges()
    start = _entry(lo, hi)
    assert ranges.stamp(tree, [start])[0].recorded_range() == (lo, hi)
    before = sum(tree.reads.values())
    t.write(f"{P0}/cpuinfo_max_freq", hi + 100000)
    assert ranges.stamp(tree, [start])[0].recorded_range() == (lo, hi)  # left as it was: no read
    assert sum(tree.reads.values()) == before
    # Another writer's value adopted in the range of today: recorded with it (never narrower).
    adopted = replace(start, max=hi + 100000)
    assert ranges.stamp(tree, [adopted])[0].recorded_range() == (lo, hi + 100000)
    assert tree.reads["cpuinfo_max_freq"] == 2
