"""Single-instance lock, restore journal and crash recovery."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hw import fakesys
from thermogov.hw.journal import (
    InstanceLock,
    Journal,
    JournalData,
    JournalEntry,
    new_journal_data,
    pid_alive,
    recover,
)
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import RuntimeFailure, ThermogovError

POLICY = "sys/devices/system/cpu/cpufreq/policy0"


def _entry(lo: int = 1500000, hi: int = 2400000) -> JournalEntry:
    return JournalEntry(
        "cpu", "policy0", f"{POLICY}/scaling_min_freq", f"{POLICY}/scaling_max_freq", 1000, lo, hi
    )


def test_journal_round_trip_and_delete(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    tree = SysfsTree(tmp_path / "root")
    j = Journal(tmp_path / "state")
    data = new_journal_data(tree, [_entry()])
    j.write(data)
    assert j.load() == data
    assert not (tmp_path / "state" / "journal.json.tmp").exists()
    j.delete()
    assert j.load() is None and not j.exists()


def test_recover_restores_a_dead_process_journal(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    tree = SysfsTree(tmp_path / "root")
    j = Journal(tmp_path / "state")
    j.write(JournalData(fakesys.dead_pid(), "", str(tree.root), 0.0, (_entry(),)))
    t.write(f"{POLICY}/scaling_max_freq", 1500000)  # what the dead daemon left
    msg = recover(tree, j)
    assert msg and "not running" in msg
    assert t.read_int(f"{POLICY}/scaling_max_freq") == 2400000
    assert not j.exists()


def test_a_journal_from_another_boot_is_discarded_without_writing(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    t.boot_id("boot-B")
    tree = SysfsTree(tmp_path / "root")
    j = Journal(tmp_path / "state")
    j.write(JournalData(fakesys.dead_pid(), "boot-A", str(tree.root), 0.0, (_entry(600000, 1000000),)))
    before = t.snapshot()
    assert "earlier boot" in (recover(tree, j) or "")
    assert t.snapshot() == before and not j.exists()


def test_a_journal_for_another_root_is_refused(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    j = Journal(tmp_path / "state")
    j.write(JournalData(1, "", "/somewhere/else", 0.0, (_entry(),)))
    # named as the journal's claim, never as a --sysfs-root to run with (session 29h)
    with pytest.raises(
        RuntimeFailure, match="journal says it was written for sysfs root '/somewhere/else'"
    ) as e:
        recover(SysfsTree(tmp_path / "root"), j)
    assert "--sysfs-root /somewhere/else" not in str(e.value)
    assert j.exists()


def test_a_failed_restore_keeps_the_journal(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    t.write(f"{POLICY}/scaling_min_freq", 1600000)  # what the dead daemon left
    t.write(f"{POLICY}/scaling_max_freq", 1600000)  # lowered: its refused write leaves it changed
    kt = fakesys.KernelTree(tmp_path / "root")
    kt.write_faults[f"{POLICY}/scaling_max_freq"] = errno.EIO
    j = Journal(tmp_path / "state")
    j.write(JournalData(fakesys.dead_pid(), "", str(tmp_path / "root"), 0.0, (_entry(),)))
    with pytest.raises(
        RuntimeFailure, match=r"restore incomplete, left changed.*EIO.*journal kept.*thermogov restore"
    ):
        recover(kt, j)
    assert j.exists()
    assert t.read_int(f"{POLICY}/scaling_min_freq") == 1500000  # the other limit still went back


def test_corrupt_journal_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "journal.json").write_text("{not json")
    with pytest.raises(ThermogovError, match="corrupt journal"):
        Journal(tmp_path / "state").load()


def test_journal_is_durable_json(tmp_path: Path) -> None:
    j = Journal(tmp_path / "state")
    j.write(JournalData(os.getpid(), "b", "/", 1.0, (_entry(),)))
    body = json.loads(j.path.read_text())
    assert body["format"] == 3 and body["entries"][0]["max"] == 2400000
    assert oct(j.path.stat().st_mode & 0o777) == "0o600"


def test_second_instance_is_refused_with_the_holder_pid(tmp_path: Path) -> None:
    lock = tmp_path / "run" / "thermogov.lock"
    with InstanceLock(lock), pytest.raises(RuntimeFailure, match=f"pid {os.getpid()}"):
        InstanceLock(lock).acquire()
    with InstanceLock(lock):  # released: can be taken again
        pass


def test_lock_of_a_killed_holder_is_free(tmp_path: Path) -> None:
    lock = tmp_path / "thermogov.lock"
    code = (
        "import sys; from thermogov.hw.journal import InstanceLock; "
        f"InstanceLock({str(lock)!r}).acquire(); print('locked', flush=True); sys.stdin.read()"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert p.stdout is not None and p.stdout.readline().strip() == "locked"
    with pytest.raises(RuntimeFailure, match=f"pid {p.pid}"):
        InstanceLock(lock).acquire()
    p.kill()
    p.wait()
    assert not pid_alive(p.pid)
    with InstanceLock(lock):
        pass
