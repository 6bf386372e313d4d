"""``restore`` does not trust the journal: checksum, root, owned kinds, hardware ranges, devices.

And one unreadable limit file (``kill -9`` between the truncate and the write) neither blocks
restoring the rest nor every later start.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.journal import Journal, JournalData, JournalEntry, checksum

CPU = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPU}/policy0"
P4 = f"{CPU}/policy4"
GPU = "sys/class/devfreq/17000000.ga10b"
ZONE_TEMP = "sys/class/thermal/thermal_zone0/temp"


def _cpu(policy: str, lo: int, hi: int) -> JournalEntry:
    return JournalEntry(
        "cpu",
        policy.rsplit("/", 1)[-1],
        f"{policy}/scaling_min_freq",
        f"{policy}/scaling_max_freq",
        1000,
        lo,
        hi,
    )


def _journal(tmp: Path, *entries: JournalEntry, root: str | None = None) -> Journal:
    j = Journal(tmp / "state")
    j.write(JournalData(fakesys.dead_pid(), "", root or str(tmp / "root"), 0.0, entries))
    return j


def _restore(tmp: Path) -> subprocess.CompletedProcess[str]:
    return procutil.run_cli("restore", *procutil.paths(tmp))


def _one_line(r: subprocess.CompletedProcess[str], code: int) -> str:
    assert r.returncode == code, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


TAMPERED = {
    "out-of-range min": (_cpu(P0, 999999999, 1510400), "outside its hardware range 115200..1510400"),
    "out-of-range max": (_cpu(P0, 729600, 1510401), "outside its hardware range"),
    "min above max": (_cpu(P0, 1497600, 729600), "above max"),
    "thermal zone temp": (
        JournalEntry("cpu", "tz", ZONE_TEMP, f"{P0}/scaling_max_freq", 1000, 115200, 115200),
        "not an attribute thermogov owns",
    ),
    "swapped ends": (
        JournalEntry(
            "cpu", "policy0", f"{P0}/scaling_max_freq", f"{P0}/scaling_min_freq", 1000, 729600, 1510400
        ),
        "is not a min limit",
    ),
    "devfreq in kHz": (
        JournalEntry("gpu", "gpu", f"{GPU}/min_freq", f"{GPU}/max_freq", 1000, 306000, 625000),
        "unit 1000 Hz",
    ),
    "devfreq off its OPP range": (
        JournalEntry("gpu", "gpu", f"{GPU}/min_freq", f"{GPU}/max_freq", 1, 306000000, 999000000),
        "outside its hardware range 306000000..625000000",
    ),
}


@pytest.mark.parametrize("case", list(TAMPERED))
def test_a_tampered_journal_entry_is_refused_with_exit_2_and_nothing_written(
    tmp_path: Path, case: str
) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    entry, why = TAMPERED[case]
    _journal(tmp_path, _cpu(P4, 729600, 1510400), entry)
    t.write(f"{P4}/scaling_max_freq", 729600)  # a valid entry that must not be written either
    before = t.snapshot()
    line = _one_line(_restore(tmp_path), 2)
    assert why in line and "refused" in line
    assert t.snapshot() == before and Journal(tmp_path / "state").exists()


def test_an_edited_journal_fails_its_checksum(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    j = _journal(tmp_path, _cpu(P0, 729600, 1510400))
    body = json.loads(j.path.read_text())
    body["entries"][0]["max"] = 1497600  # in range, owned: only the checksum tells
    j.path.write_text(json.dumps(body))
    before = t.snapshot()
    line = _one_line(_restore(tmp_path), 2)
    assert "checksum" in line
    assert t.snapshot() == before


def test_a_re_signed_journal_is_still_range_checked(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    j = _journal(tmp_path, _cpu(P0, 729600, 1510400))
    body = json.loads(j.path.read_text())
    body["entries"][0]["min"] = 999999999
    body["sha256"] = checksum(body)
    j.path.write_text(json.dumps(body))
    before = t.snapshot()
    assert "outside its hardware range" in _one_line(_restore(tmp_path), 2)
    assert t.snapshot() == before


def test_a_journal_for_another_root_is_refused(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    fakesys.orin_nano(tmp_path / "other")
    _journal(tmp_path, _cpu(P0, 729600, 1510400), root=str(tmp_path / "other"))
    before = t.snapshot()
    r = _restore(tmp_path)
    # the other root named as the journal's claim, never as a command to run (session 29h)
    assert r.returncode != 0 and repr(str(tmp_path / "other")) in r.stderr
    assert f"--sysfs-root {tmp_path / 'other'}" not in r.stderr
    assert t.snapshot() == before


def test_a_device_missing_now_is_skipped_and_reported_the_rest_restored(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    _journal(tmp_path, _cpu(P0, 729600, 1510400), _cpu(f"{CPU}/policy8", 729600, 1510400))
    t.write(f"{P0}/scaling_max_freq", 115200)
    line = _one_line(_restore(tmp_path), 1)
    assert "policy8" in line and "on this board now" in line and "thermogov restore" in line
    assert t.read_int(f"{P0}/scaling_max_freq") == 1510400
    assert not (tmp_path / "root" / CPU / "policy8").exists()  # nothing created


def test_an_empty_min_file_after_kill_9_is_rewritten_and_the_next_start_proceeds(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()
    proc = procutil.start_run(tmp_path)
    procutil.wait_line(proc, "thermogov: started")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    (t.root / P0 / "scaling_min_freq").write_text("")  # killed between truncate and write
    r = procutil.run_cli(
        "run", *procutil.paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "0.3s"
    )
    assert r.returncode == 0, r.stderr
    assert "restored" in r.stderr
    assert t.snapshot() == before


def test_one_unwritable_attribute_does_not_block_the_rest_and_exits_1(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    _journal(
        tmp_path,
        _cpu(P0, 729600, 1510400),
        _cpu(P4, 729600, 1510400),
        JournalEntry("gpu", "17000000.ga10b", f"{GPU}/min_freq", f"{GPU}/max_freq", 1, 306000000, 625000000),
    )
    for p in (P0, P4):
        t.write(f"{p}/scaling_min_freq", 115200)
        t.write(f"{p}/scaling_max_freq", 115200)
    t.write("sys/devices/17000000.ga10b/devfreq/17000000.ga10b/max_freq", 306000000)
    bad = t.root / P0 / "scaling_max_freq"  # planted as a symlink inside the tree: never followed
    bad.unlink()
    bad.symlink_to("scaling_min_freq")
    line = _one_line(_restore(tmp_path), 1)
    assert "restore incomplete" in line and "policy0/scaling_max_freq" in line and "thermogov restore" in line
    assert t.read_int(f"{P0}/scaling_min_freq") == 729600  # the other limit of the same policy
    assert (t.read_int(f"{P4}/scaling_min_freq"), t.read_int(f"{P4}/scaling_max_freq")) == (729600, 1510400)
    assert t.read_int("sys/devices/17000000.ga10b/devfreq/17000000.ga10b/max_freq") == 625000000
    assert Journal(tmp_path / "state").exists()
