"""Confinement: writes reach only the regular files owned at start-up, never a planted link."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw import confine
from thermogov.hw.journal import InstanceLock, Journal, new_journal_data
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ThermogovError
from thermogov.trace import load_trace

POLICY = "sys/devices/system/cpu/cpufreq/policy0"
MAX = f"{POLICY}/scaling_max_freq"


def _outside(tmp: Path) -> Path:
    p = tmp / "outside.txt"
    p.write_text("precious\n")
    return p


def _swap_for_link(path: Path, target: Path) -> None:
    """Replace ``path`` atomically by a symlink to ``target`` (what an attacker would do)."""
    tmp_link = path.with_name(path.name + ".swap")
    tmp_link.symlink_to(target)
    os.replace(tmp_link, path)


def test_a_cap_file_swapped_for_a_symlink_after_owning_is_refused(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    outside = _outside(tmp_path)
    tree = SysfsTree(t.root)
    tree.own(MAX)
    tree.write_int(MAX, 2000000)
    assert t.read_int(MAX) == 2000000
    _swap_for_link(t.root / MAX, outside)
    with pytest.raises(confine.ConfinementError, match="became a symlink"):
        tree.write_int(MAX, 1500000)
    assert outside.read_text() == "precious\n"


def test_a_directory_swapped_for_a_symlink_is_refused(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "scaling_max_freq").write_text("precious\n")
    tree = SysfsTree(t.root)
    tree.own(MAX)
    (t.root / POLICY).rename(tmp_path / "old-policy0")
    (t.root / POLICY).symlink_to(elsewhere)
    with pytest.raises(confine.ConfinementError, match="replaced by another file"):
        tree.write_int(MAX, 1500000)
    assert (elsewhere / "scaling_max_freq").read_text() == "precious\n"


def test_the_descriptor_check_refuses_even_when_the_path_check_is_raced(tmp_path: Path) -> None:
    # The path check passes, then the file is swapped before the open: the fstat check catches it.
    t = fakesys.rpi5(tmp_path / "root")
    outside = _outside(tmp_path)
    tree = SysfsTree(t.root)
    tree.own(MAX)
    real = tree.resolve(MAX)
    ident = tree._owned[real]
    new = t.root / POLICY / "new"
    new.write_text("2400000\n")
    os.replace(new, t.root / MAX)  # same name, another inode
    with pytest.raises(confine.ConfinementError, match="replaced"):
        confine.write_confined(real, ident, b"1500000\n", MAX)
    _swap_for_link(t.root / MAX, outside)
    with pytest.raises(confine.ConfinementError, match="symlink"):
        confine.write_confined(real, ident, b"1500000\n", MAX)
    assert outside.read_text() == "precious\n"


def test_a_shorter_value_replaces_the_whole_file(tmp_path: Path) -> None:
    t = fakesys.rpi5(tmp_path / "root")
    tree = SysfsTree(t.root)
    tree.own(MAX)
    tree.write_int(MAX, 99)
    assert (t.root / MAX).read_text() == "99\n"


def test_a_planted_lock_file_symlink_is_refused(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    lock = tmp_path / "thermogov.lock"
    lock.symlink_to(outside)
    with pytest.raises(ThermogovError, match="planted"):
        InstanceLock(lock).acquire()
    assert outside.read_text() == "precious\n"


def test_a_planted_lock_file_hard_link_is_refused(tmp_path: Path) -> None:
    outside = _outside(tmp_path)
    lock = tmp_path / "thermogov.lock"
    os.link(outside, lock)
    with pytest.raises(ThermogovError, match="planted"):
        InstanceLock(lock).acquire()
    assert outside.read_text() == "precious\n"


def test_a_planted_journal_tmp_symlink_is_not_followed(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    outside = _outside(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    (state / "journal.json.tmp").symlink_to(outside)
    j = Journal(state)
    data = new_journal_data(SysfsTree(tmp_path / "root"), [])
    j.write(data)
    assert outside.read_text() == "precious\n"
    assert j.load() == data and not (state / "journal.json.tmp").exists()


def test_daemon_goes_failsafe_at_once_when_a_cap_file_is_swapped_after_start(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    outside = _outside(tmp_path)
    proc = procutil.start_run(tmp_path)
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(MAX) == 729600  # hot: lowest caps
    _swap_for_link(t.root / MAX, outside)
    for zone in range(6):  # cool down: the policy releases the caps, which needs a write
        t.write(f"sys/devices/virtual/thermal/thermal_zone{zone}/temp", 40000)
    procutil.wait_line(proc, "became a symlink", stream="stderr")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert outside.read_text() == "precious\n"
    assert proc.returncode == 1 and "restore incomplete" in err.decode()
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    trace = load_trace(run_dir)
    first = next(i for i, e in enumerate(trace["event"]) if e and "write_failed:cpu" in str(e))
    assert "failsafe" in str(trace["event"][first])
    assert trace["policy_state"][first] == "FAILSAFE"
    assert all(c == 306000000 for c in trace["gpu_cap_hz"][first:])  # the others held at their lowest
