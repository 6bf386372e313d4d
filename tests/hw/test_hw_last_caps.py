"""thermogov's last caps on the runtime tmpfs (hw/lastcaps.py), through the installed script.

Session 15's journal restore under a new power mode left every window as it read, because a
value below the journaled one could be the mode's or thermogov's last cap.  The run now keeps
its last written window per max attribute in ``<lock-dir>/caps-<hash>``; a window reading exactly
that value after a ``kill -9`` and ``nvpmodel -m`` is thermogov's and gets its value of before
back, any other is the mode's and stays.  A record of another boot, run or root, or a torn one,
is no record: the restore is then session 15's.
"""

from __future__ import annotations

import json
import subprocess
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw import lastcaps
from thermogov.hw.boardlock import board_lock_path
from thermogov.hw.journal import Journal, checksum, recover
from thermogov.hw.lastcaps import last_caps_path, read_record
from thermogov.hw.powermode import STATUS_REL
from thermogov.hw.sysfs import SysfsTree

CPU = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPU}/policy0"
P4 = f"{CPU}/policy4"
GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"  # the JetPack 5 Orin Nano's
MODE_MAX = 652800  # the new mode's CPU max: below thermogov's lowest cap on the hot board
BOOT = "proc/sys/kernel/random/boot_id"


def _locks(tmp: Path) -> list[str]:
    return ["--lock-dir", str(tmp / "locks")]


def _record(tmp: Path) -> Path:
    return last_caps_path(board_lock_path(tmp / "root", tmp / "locks"))


def _killed(tmp: Path) -> tuple[fakesys.FakeTree, dict]:
    """A hot Orin Nano under mode 0, governed to its lowest caps, then ``kill -9``."""
    t = fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)
    t.write(STATUS_REL, "pmode:0000 fmode:quiet\n")
    before = t.snapshot()
    proc = procutil.start_run(tmp, "--duration", "60s", *_locks(tmp))
    procutil.wait_line(proc, "thermogov: started")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert Journal(tmp / "state").exists()
    assert t.read_int(f"{GPU}/max_freq") < int(before[f"{GPU}/max_freq"])  # a cap a restore must lift
    return t, before


def _mode_2_on_the_cpu_only(t: fakesys.FakeTree) -> None:
    """``nvpmodel -m 2`` writing the CPU clusters' max, not the GPU's."""
    t.write(STATUS_REL, "pmode:0002 fmode:quiet\n")
    t.write(f"{P0}/scaling_max_freq", MODE_MAX)
    t.write(f"{P4}/scaling_max_freq", MODE_MAX)


def _restore(tmp: Path, command: str) -> subprocess.CompletedProcess[str]:
    extra = ["--out", str(tmp / "out"), "--duration", "0.3s"] if command == "run" else []
    return procutil.run_cli(command, *procutil.paths(tmp), *_locks(tmp), *extra)


def test_a_kill_9_leaves_the_caps_in_force_recorded_and_a_restore_removes_the_record(tmp_path: Path) -> None:
    t, _before = _killed(tmp_path)
    journal = json.loads((tmp_path / "state" / "journal.json").read_text())
    boot = (t.root / BOOT).read_text().strip()
    record = read_record(_record(tmp_path), boot_id=boot, pid=journal["pid"], root=t.root)
    assert record is not None
    caps = record[0]
    assert sorted(caps) == sorted(e["max_rel"] for e in journal["entries"])  # every governed window
    for e in journal["entries"]:  # each as it reads: the cap thermogov left in force
        assert caps[e["max_rel"]] == (t.read_int(e["min_rel"]), t.read_int(e["max_rel"]))
        assert caps[e["max_rel"]][1] < e["max"]
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    assert not _record(tmp_path).exists()


def test_a_clean_exit_leaves_no_record(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    proc = procutil.start_run(tmp_path, "--duration", "0.5s", *_locks(tmp_path))
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0, err
    assert not _record(tmp_path).exists()


@pytest.mark.parametrize("command", ["restore", "run"])
def test_thermogovs_cap_in_a_window_the_mode_did_not_write_is_lifted_the_modes_stay(
    tmp_path: Path, command: str
) -> None:
    t, before = _killed(tmp_path)
    capped = t.read_int(f"{GPU}/max_freq")
    _mode_2_on_the_cpu_only(t)
    r = _restore(tmp_path, command)
    assert r.returncode == 0, r.stderr
    out = r.stdout + r.stderr
    gpu_before = int(before[f"{GPU}/max_freq"])
    assert f"17000000.ga10b {capped} Hz -> {gpu_before}: thermogov's last cap" in out
    assert f"policy0 {MODE_MAX}..{MODE_MAX} kHz (journaled" in out
    want = dict(before)
    for p in (P0, P4):  # the mode's max; the min of before (above it) lowered to it
        want[f"{p}/scaling_max_freq"] = f"{MODE_MAX}\n".encode()
        want[f"{p}/scaling_min_freq"] = f"{MODE_MAX}\n".encode()
    want[STATUS_REL] = b"pmode:0002 fmode:quiet\n"
    assert t.snapshot() == want  # the GPU (and every other limit) as before


def test_a_table_the_mode_shrank_bounds_the_value_of_before(tmp_path: Path) -> None:
    """The mode dropped the GPU's top OPPs without writing its max: the value of before is put
    back clamped into today's table, never above what the mode's table allows."""
    t, _before = _killed(tmp_path)
    shrunk = fakesys.ORIN_NANO_GPU_HZ[:3]
    assert t.read_int(f"{GPU}/max_freq") < shrunk[-1]  # thermogov's cap, inside the new table
    t.write(f"{GPU}/available_frequencies", " ".join(map(str, shrunk)) + "\n")
    _mode_2_on_the_cpu_only(t)
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    assert t.read_int(f"{GPU}/max_freq") == shrunk[-1]


def test_a_restore_asking_for_caps_and_fan_values_reads_the_record_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Session 22t: a restore under a new power mode with the fan journaled asks the run's
    record for its caps and for its fan values (the rival rule); session 21 walked the record
    paths and read the file once for each, now one read serves both."""
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    fan = fakesys.L4T_FAN
    for name, value in (("target_pwm", 37), ("cur_pwm", 0), ("temp_control", 1), ("pwm_cap", 255)):
        t.write(f"{fan}/{name}", value)
    fakesys.l4t_fan_twin(t, hwmon=9)
    t.write(STATUS_REL, "pmode:0000 fmode:quiet\n")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, *_locks(tmp_path), run_lines='fan = "governor"\n')
    procutil.wait_line(proc, "thermogov: started")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert t.read_int(f"{fan}/target_pwm") == 255  # the fan journaled, thermogov's speed in force
    # the GPU cap the run would have written next (the fan goes first): in force and recorded
    capped = fakesys.ORIN_NANO_GPU_HZ[1]
    t.write(f"{GPU}/max_freq", capped)
    journal = json.loads((tmp_path / "state" / "journal.json").read_text())
    gpu = next(e for e in journal["entries"] if e["domain"] == "gpu")
    path = _record(tmp_path)
    body = path.read_text().partition("\nend ")[0] + f"\nw {gpu['min']} {capped} {gpu['max_rel']}\n"
    path.write_text(f"{body}end {zlib.crc32(body.encode()):08x}\n")
    t.write(STATUS_REL, "pmode:0001 fmode:quiet\n")  # a mode that wrote no window
    reads: list[Path] = []
    real = lastcaps.read_record

    def counted(path: Path, **kw: object) -> object:
        reads.append(path)
        return real(path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(lastcaps, "read_record", counted)
    said = recover(SysfsTree(t.root), Journal(tmp_path / "state"), _record(tmp_path)) or ""
    assert reads == [_record(tmp_path)]
    assert f"17000000.ga10b {capped} Hz -> {before[f'{GPU}/max_freq'].decode().strip()}: thermogov's" in said
    assert "2 fan setting(s)" in said  # its fan values: no rival, the fan put back
    assert t.snapshot() == {**before, STATUS_REL: b"pmode:0001 fmode:quiet\n"}


def _edit_record(field: str) -> Callable[[Path], None]:
    """Rewrite one header line of the record, its CRC made whole again (another boot, run, root)."""

    def edit(path: Path) -> None:
        body, _sep, _rest = path.read_text().partition("\nend ")
        lines = [
            f"{field} x{ln.split(' ', 1)[1]}" if ln.startswith(f"{field} ") else ln for ln in body.split("\n")
        ]
        body = "\n".join(lines) + "\n"
        path.write_text(f"{body}end {zlib.crc32(body.encode()):08x}\n")

    return edit


def _torn(path: Path) -> None:
    text = path.read_bytes()
    path.write_bytes(text[: len(text) - 12])  # cut inside the end line, as a write killed midway


STALE = {
    "another-boot": _edit_record("boot"),
    "another-run": _edit_record("pid"),
    "another-root": _edit_record("root"),
    "torn": _torn,
    "missing": lambda path: path.unlink(),
}


@pytest.mark.parametrize("stale", sorted(STALE))
def test_without_a_whole_record_of_that_run_each_window_is_left_as_it_reads(
    tmp_path: Path, stale: str
) -> None:
    t, _before = _killed(tmp_path)
    capped = t.read_int(f"{GPU}/max_freq")
    STALE[stale](_record(tmp_path))
    _mode_2_on_the_cpu_only(t)
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    assert "no record of its caps" in r.stdout + r.stderr
    assert t.read_int(f"{GPU}/max_freq") == capped  # session 15's rule: it cannot be told apart
    assert t.read_int(f"{P0}/scaling_max_freq") == MODE_MAX


def test_a_record_with_an_older_tail_after_its_end_line_is_read_whole(tmp_path: Path) -> None:
    """A shorter record written over a longer one before its ftruncate: the tail is ignored."""
    t, _before = _killed(tmp_path)
    path = _record(tmp_path)
    path.write_bytes(path.read_bytes() + b"w 1 2 sys/old/max_freq\nend 00000000\n")
    capped = t.read_int(f"{GPU}/max_freq")
    _mode_2_on_the_cpu_only(t)
    r = _restore(tmp_path, "restore")
    assert r.returncode == 0, r.stderr
    assert t.read_int(f"{GPU}/max_freq") > capped


@pytest.mark.parametrize("command", ["restore", "run"])
def test_a_restore_given_another_lock_dir_reads_the_record_the_journal_names(
    tmp_path: Path, command: str
) -> None:
    # Before: ``run --lock-dir A`` then ``restore --lock-dir B`` found no record under B and
    # left the GPU at thermogov's cap ("no record of its caps").
    t, before = _killed(tmp_path)
    named = json.loads((tmp_path / "state" / "journal.json").read_text()).get("caps_record")
    capped = t.read_int(f"{GPU}/max_freq")
    _mode_2_on_the_cpu_only(t)
    extra = ["--out", str(tmp_path / "out"), "--duration", "0.3s"] if command == "run" else []
    other = ["--lock-dir", str(tmp_path / "other-locks")]
    r = procutil.run_cli(command, *procutil.paths(tmp_path), *other, *extra)
    assert r.returncode == 0, r.stderr
    assert (
        f"17000000.ga10b {capped} Hz -> {before[f'{GPU}/max_freq'].decode().strip()}" in r.stdout + r.stderr
    )
    assert t.read_int(f"{GPU}/max_freq") == int(before[f"{GPU}/max_freq"])
    assert not _record(tmp_path).exists(), "the run's record goes with its journal"
    assert named == str(_record(tmp_path))


def test_a_journal_naming_a_record_that_is_not_this_boards_is_not_read(tmp_path: Path) -> None:
    """Only a file with this board's record name is read: a journal cannot point a restore at
    another file (here the record moved to another name, as another board's would be)."""
    t, _before = _killed(tmp_path)
    moved = _record(tmp_path).with_name("caps-0000000000000000")
    _record(tmp_path).rename(moved)
    body = json.loads((tmp_path / "state" / "journal.json").read_text())
    body["caps_record"] = str(moved)
    body["sha256"] = checksum(body)
    (tmp_path / "state" / "journal.json").write_text(json.dumps(body))
    _mode_2_on_the_cpu_only(t)
    r = procutil.run_cli("restore", *procutil.paths(tmp_path), "--lock-dir", str(tmp_path / "other-locks"))
    assert r.returncode == 0, r.stderr
    assert "no record of its caps" in r.stdout + r.stderr
    assert moved.exists()
