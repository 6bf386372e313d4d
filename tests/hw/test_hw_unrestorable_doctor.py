"""Session 20 (safe20a): one rule for a window thermogov could not put back, at start, for a
member that joins mid-run, and in ``doctor``.

``doctor`` said nothing of a ``scaling_max_freq`` above ``cpuinfo_max_freq`` nor of a limit file
that is a link inside the root, while ``run`` refused both (exit 2); and it named only the first
refused limit pair of a board.  It now says, for every pair ``run`` would refuse, the line
``run`` stops at (one source: :func:`thermogov.hw.limits.check_limits_in_force` and
:meth:`thermogov.hw.sysfs.SysfsTree.unownable`), with its usual exit status for a board ``run``
refuses (0: the report is the point; ``run`` exits 2).  A late join judges the same rule from
the joining device's own files: no walk of the whole tree (session 19 walked it twice a join).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.test_hostile_sysfs_contents import _run  # the same short run
from thermogov.board import load_board
from thermogov.hw import discovery
from thermogov.hw.daemon import _rewrite_journal, governed_bindings
from thermogov.hw.devices import CapActuator
from thermogov.hw.journal import Journal, RecordedRanges
from thermogov.hw.lateclusters import LateClusters
from thermogov.hw.mapping import map_board
from thermogov.hw.sysfs import SysfsTree

P0 = "sys/devices/system/cpu/cpufreq/policy0"
P4 = "sys/devices/system/cpu/cpufreq/policy4"
GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"
REFUSES = "refuses this board"


def _max_above_cpuinfo(t: fakesys.FakeTree, tmp: Path) -> str:
    t.write(f"{P0}/scaling_max_freq", 3000000)
    return "max 3000000 is outside its hardware range"


def _min_above_max(t: fakesys.FakeTree, tmp: Path) -> str:
    t.write(f"{P0}/scaling_max_freq", 1500000)
    t.write(f"{P0}/scaling_min_freq", 2400000)
    return "is above the max"


def _link_in_the_root(t: fakesys.FakeTree, tmp: Path) -> str:
    real = t.root / P0 / "max_copy"
    real.write_text((t.root / P0 / "scaling_max_freq").read_text())
    (t.root / P0 / "scaling_max_freq").unlink()
    (t.root / P0 / "scaling_max_freq").symlink_to(real)
    return "is a symlink"


def _garbage(t: fakesys.FakeTree, tmp: Path) -> str:
    t.write(f"{P0}/scaling_max_freq", "fast\n")
    return "scaling_max_freq"


@pytest.mark.parametrize("spoil", [_max_above_cpuinfo, _min_above_max, _link_in_the_root, _garbage])
def test_doctor_names_the_window_run_refuses_with_runs_own_line(tmp_path: Path, spoil) -> None:  # type: ignore[no-untyped-def]
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=92000)
    why = spoil(t, tmp_path)
    before = t.snapshot()
    run = one_line_error(thermogov(*_run(tmp_path)), why)
    assert t.snapshot() == before  # nothing written
    p = thermogov("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert p.returncode == 0, p.stderr  # doctor's convention for a board `run` refuses: said, exit 0
    assert "Traceback" not in p.stderr
    (warning,) = [ln for ln in p.stderr.splitlines() if REFUSES in ln]
    assert "policy0/scaling_m" in warning and why in warning, warning
    assert run.split("error: ", 1)[1] in warning  # the same words: one source, not two copies


def test_doctor_names_every_refused_window_not_only_the_first(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=60000)
    top = max(int(x) for x in (t.root / P4 / "cpuinfo_max_freq").read_text().split())
    t.write(f"{P4}/scaling_max_freq", top + 100000)
    gpu_top = max(int(x) for x in (t.root / GPU / "available_frequencies").read_text().split())
    t.write(f"{GPU}/max_freq", gpu_top * 2)
    p = thermogov("doctor", "--sysfs-root", str(tmp_path / "root"))
    assert p.returncode == 0, p.stderr
    warnings = [ln for ln in p.stderr.splitlines() if REFUSES in ln]
    assert len(warnings) == 2, p.stderr
    assert "policy4/scaling_max_freq" in warnings[0] and f"max {top + 100000} is outside" in warnings[0]
    assert "max_freq" in warnings[1] and f"max {gpu_top * 2} is outside" in warnings[1]
    data = thermogov("doctor", "--json", "--sysfs-root", str(tmp_path / "root"))
    assert data.returncode == 0 and data.stdout.count(REFUSES) == 2, data.stderr


def test_a_late_join_reads_its_own_policy_not_the_whole_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The join (judging the window, journaling it) lists the cpufreq folder no more: session 19's
    ``_unrestorable`` and the journal rewrite each ran ``discover`` (every zone, hwmon, supply,
    policy and devfreq device of the board) to learn one policy's range."""
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=60000)
    shutil.move(t.root / P4, tmp_path / "policy4")  # not there at start
    tree = SysfsTree(t.root)
    bmap = map_board(discovery.discover(tree), load_board("jetson-orin-nano"))
    (b,) = [x for x in governed_bindings(bmap) if x.domain.kind == "cpufreq"]
    a = CapActuator.open(tree, b, dry_run=True)
    journal = Journal(tmp_path / "state")
    rewrite = lambda: _rewrite_journal(journal, tree, [a], None, None, RecordedRanges())  # noqa: E731
    lines: list[str] = []
    late = LateClusters(tree, [(a, b)], rewrite, lines.append, dry_run=True)
    walks = []
    listed = discovery._policies
    monkeypatch.setattr(discovery, "_policies", lambda tr: walks.append(1) or listed(tr))
    shutil.move(tmp_path / "policy4", t.root / P4)
    assert late.check() == []  # appeared: judged at the next look
    assert late.check() == ["cluster_online:policy4"], lines
    data = journal.load()
    assert data is not None and "policy4" in {e.label for e in data.entries}
    assert walks == [], f"{len(walks)} walks of the whole tree for one join"
