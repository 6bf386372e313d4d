"""Session 31r: root-daemon safety, the items review 30r left (docs/hardware.md, "Session 31r").

Exit statuses and one-line errors are driven through the installed ``thermogov`` script (one
subprocess per case, a short run); the rules themselves in process on tmp trees
(tests/hw/fakesys.py), never a sleep.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil


def _one_second_run(tmp: Path, shim: Path, rules: list[tuple[str, str, int]]) -> tuple[int, str]:
    """A hot Orin Nano's ``run --duration 1s`` with the fault ``rules``; (exit status, stderr)."""
    rules_file = tmp / "rules"
    faultshim.write_rules(rules_file, rules)
    env = faultshim.env(shim, rules_file, tmp)
    proc = procutil.start_run(tmp, "--duration", "1s", env=env)
    _out, err = proc.communicate(timeout=procutil.DEADLINE_S)
    return proc.returncode, err.decode()


# -- (2) a full disk at start is a runtime failure (1), a read-only --state-dir bad input (2) ----------
@pytest.mark.parametrize(
    ("target", "code", "status", "said"),
    [
        ("journal.json.tmp", errno.ENOSPC, 1, "journal.json: cannot write the restore journal (ENOSPC"),
        ("journal.json.tmp", errno.EROFS, 2, "journal.json: cannot write the restore journal (Read-only"),
        (
            "thermogov.lock",
            errno.ENOSPC,
            1,
            "thermogov.lock: cannot write this run's pid into the lock (ENOSPC",
        ),
    ],
)
def test_a_start_time_write_on_a_full_disk_exits_1_naming_the_file_and_writes_nothing(
    tmp_path: Path, shim: Path, target: str, code: int, status: int, said: str
) -> None:
    """ENOSPC on the journal's first write is a good --state-dir on a full disk: exit 1, "free
    space"; EROFS stays bad input (exit 2, "fix --state-dir"; a guard, as on BASE); a lock whose
    pid cannot be written names its file.  The board byte for byte as before in each case.
    BASE d5d06d5: the journal's ENOSPC exited 2 ("fix --state-dir"), the lock's said only
    "No space left on device; check the disk and the path", naming no file."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    before = t.snapshot()
    status_now, err = _one_second_run(tmp_path, shim, [(target, "w", code)])
    assert "Traceback" not in err
    assert status_now == status, err[-800:]
    lines = [ln for ln in err.splitlines() if "error:" in ln]
    assert len(lines) == 1 and said in lines[0], err[-800:]
    assert ("free space" in lines[0]) == (code == errno.ENOSPC), lines[0]
    assert t.snapshot() == before, "nothing written to the board"
    assert not (tmp_path / "state" / "journal.json").exists()


# -- (3) OPP lists holding entries that are no OPP: governed with the rest, said once ---------------
P0 = "sys/devices/system/cpu/cpufreq/policy0"
GPU = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu"


def test_zero_negative_and_repeated_opps_are_said_once_at_start_and_the_rest_governed(tmp_path: Path) -> None:
    """policy0 lists ``0 -5`` and one OPP twice, the GPU a ``0`` Hz entry: one warning each at
    start naming the file and what was ignored, the run governs (exit 0), every file put back.
    BASE d5d06d5: the entries were dropped without a word."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=95000, gpu_mc=95000)
    (t.root / P0 / "scaling_available_frequencies").write_text("1510400 0 -5 115200 729600 1510400\n")
    gpu_list = (t.root / GPU / "available_frequencies").read_text().split()
    (t.root / GPU / "available_frequencies").write_text(" ".join(["0", *gpu_list]) + "\n")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "1s")
    _out, raw = proc.communicate(timeout=procutil.DEADLINE_S)
    err = raw.decode()
    assert proc.returncode == 0 and "Traceback" not in err, err[-800:]
    cpu = [ln for ln in err.splitlines() if "policy0/scaling_available_frequencies: ignored" in ln]
    assert len(cpu) == 1 and "0, -5 kHz" in cpu[0] and "1510400 kHz listed more than once" in cpu[0], err
    assert "governed with the 3 OPPs left" in cpu[0] and "--sysfs-root" in cpu[0]
    gpu = [ln for ln in err.splitlines() if "17000000.gpu/available_frequencies: ignored 0 Hz" in ln]
    assert len(gpu) == 1, err
    assert "is not governed" not in err
    assert t.snapshot() == before


def test_an_unsorted_opp_list_is_no_fault_and_says_nothing(tmp_path: Path) -> None:
    """A descending or unsorted list is a driver's table order (freq_table.c handles both):
    the same table as the sorted list, nothing said (a guard: so on BASE too)."""
    from thermogov.hw.discovery import read_policy
    from thermogov.hw.sysfs import SysfsTree

    t = fakesys.orin_nano(tmp_path / "root", jetpack=6)
    sorted_policy = read_policy(SysfsTree(t.root), "policy0")
    listed = (t.root / P0 / "scaling_available_frequencies").read_text().split()
    (t.root / P0 / "scaling_available_frequencies").write_text(" ".join(reversed(listed)) + "\n")
    p = read_policy(SysfsTree(t.root), "policy0")
    assert p.table_hz == sorted_policy.table_hz and not p.error
    assert not getattr(p, "ignored", "")


def test_a_temperature_of_absurd_magnitude_is_no_reading() -> None:
    """Already handled (a guard): a zone or hwmon reading far outside any silicon's range is
    refused as no reading (hw/devices.py ``to_celsius``), never fused."""
    from thermogov.hw.devices import to_celsius
    from thermogov.interfaces import SensorError

    for raw in (10**12, -(10**12), 2**31 - 1):
        with pytest.raises(SensorError, match="no reading"):
            to_celsius(raw, 1000.0, "thermal_zone0/temp")
