"""A journal rewrite that fails mid-run says what is true (session 30l).

The line of a failed journal write ended "(nothing was changed)" wherever it came from; that is
true of the first write, made before the daemon's first write to the board, and false of a
rewrite mid-run, when the caps are in force.  Through the installed script on a hot fake Orin:
its GPU leaves mid-run, so the journal is rewritten without it, while the journal's temporary
file cannot be made (a folder at its name, as a full or failing disk fails the write).
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.hw import procutil
from tests.hw.test_hw_reprobe import _journaled, _orin_started
from thermogov.hw.journal import Journal, new_journal_data
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ThermogovError


def test_a_failed_rewrite_mid_run_says_the_limits_are_in_force_and_which_journal_is_on_disk(
    tmp_path: Path,
) -> None:
    t, gpu, before, proc = _orin_started(tmp_path)
    blocker = tmp_path / "state" / "journal.json.tmp"
    blocker.mkdir()
    gpu.unbind()
    line = procutil.wait_line(proc, "could not be rewritten without the member that left", stream="stderr")
    assert "nothing was changed" not in line, line
    assert "cannot rewrite the restore journal" in line, line
    assert "this run's limits stay in force" in line and " max " in line and " MHz" in line, line
    assert "the journal on disk is the previous one" in line, line
    assert "thermogov restore" in line and "would put back the values it records" in line, line
    assert gpu.folder.name in _journaled(tmp_path), "the previous journal is the one on disk"
    blocker.rmdir()
    procutil.wait_line(proc, "the journal is rewritten", stream="stderr")
    gpu.probe()
    procutil.wait_line(proc, f"{gpu.folder.name} appeared again with", stream="stderr")
    procutil.stopped_as_before(proc, t, before, "nothing was changed")


def _data(tmp: Path) -> tuple[SysfsTree, Journal]:
    (tmp / "root").mkdir()
    return SysfsTree(tmp / "root"), Journal(tmp / "state")


def test_the_first_write_failing_still_says_nothing_was_changed(tmp_path: Path) -> None:
    tree, journal = _data(tmp_path)
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "journal.json.tmp").mkdir()
    try:
        journal.write(new_journal_data(tree, []))
    except ThermogovError as e:
        assert "nothing was changed" in str(e), e
    else:
        raise AssertionError("the write did not fail")


def test_a_rewrite_failing_after_the_rename_says_the_new_journal_may_not_be_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree, journal = _data(tmp_path)
    journal.write(new_journal_data(tree, []))

    def eio(_path: Path) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr("thermogov.hw.journal._fsync_dir", eio)
    try:
        journal.write(new_journal_data(tree, []))
    except ThermogovError as e:
        msg = str(e)
    else:
        raise AssertionError("the write did not fail")
    assert "nothing was changed" not in msg, msg
    assert "EIO" in msg and "this run's limits stay in force" in msg, msg
    assert "the new journal is at the name but its folder could not be synced" in msg, msg
    assert "\n" not in msg
