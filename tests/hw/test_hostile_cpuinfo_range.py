"""A journal restore on a board whose ``cpuinfo_min/max_freq`` is not a range, through the
installed script.

Before, a parsable 0 or negative ``cpuinfo_max_freq`` was taken as the policy's hardware range,
so every journaled window of it was refused as "outside its hardware range 115200..-1" and the
whole journal with it (exit 2), for a range that was the file's fault.  Now the bad file is
named as such: with an OPP list the list judges the values (as when the file cannot be read);
without one that policy's window is left unwritten, one line naming the file, and the rest is
restored.  docs/hardware.md, "Session 17b".
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.journal import Journal, JournalData, JournalEntry

CPU = "sys/devices/system/cpu/cpufreq"
P0 = f"{CPU}/policy0"
P4 = f"{CPU}/policy4"
P0_RANGE = (115200, 1510400)  # the fake Orin Nano's policy0, kHz


def _cpu(policy: str, lo: int, hi: int) -> JournalEntry:
    name = policy.rsplit("/", 1)[-1]
    return JournalEntry("cpu", name, f"{policy}/scaling_min_freq", f"{policy}/scaling_max_freq", 1000, lo, hi)


def _capped_board_with_journal(tmp: Path) -> fakesys.FakeTree:
    """A board a killed daemon left capped, its journal naming both CPU policies' windows."""
    t = fakesys.orin_nano(tmp / "root")
    Journal(tmp / "state").write(
        JournalData(
            fakesys.dead_pid(), "", str(tmp / "root"), 0.0, (_cpu(P0, *P0_RANGE), _cpu(P4, *P0_RANGE))
        )
    )
    for p in (P0, P4):
        t.write(f"{p}/scaling_max_freq", 729600)
    return t


def _restore(tmp: Path) -> subprocess.CompletedProcess[str]:
    return procutil.run_cli("restore", *procutil.paths(tmp))


@pytest.mark.parametrize(
    ("rel", "value"), [("cpuinfo_max_freq", "-1"), ("cpuinfo_max_freq", "0"), ("cpuinfo_min_freq", "0")]
)
def test_with_an_opp_list_a_cpuinfo_that_is_no_range_does_not_block_the_restore(
    tmp_path: Path, rel: str, value: str
) -> None:
    t = _capped_board_with_journal(tmp_path)
    t.write(f"{P0}/{rel}", f"{value}\n")
    r = _restore(tmp_path)
    assert r.returncode == 0, r.stderr
    for p in (P0, P4):
        assert t.read_int(f"{p}/scaling_max_freq") == P0_RANGE[1]
    assert not Journal(tmp_path / "state").exists()


def test_without_an_opp_list_the_bad_cpuinfo_is_named_and_the_rest_restored(tmp_path: Path) -> None:
    t = _capped_board_with_journal(tmp_path)
    (t.root / P0 / "scaling_available_frequencies").unlink()  # its OPPs are cpuinfo_min..max
    t.write(f"{P0}/cpuinfo_max_freq", "-1\n")
    r = _restore(tmp_path)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr  # incomplete, journal kept
    said = [ln for ln in r.stderr.splitlines() if "policy0" in ln]
    assert len(said) == 1, r.stderr
    assert "cpuinfo_max_freq: 115200..-1 kHz" in said[0] and "not a hardware range" in said[0]
    assert "outside its hardware range" not in r.stderr and "policy0: policy0" not in r.stderr
    assert t.read_int(f"{P4}/scaling_max_freq") == P0_RANGE[1]  # the rest restored
    assert t.read_int(f"{P0}/scaling_max_freq") == 729600  # nothing written where no range is known
