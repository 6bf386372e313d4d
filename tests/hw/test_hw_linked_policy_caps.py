"""A policy folder that is a link to another policy, over many cap changes (safe21c's leftover).

Session 21c left: ``policy4`` a link to ``policy0`` was governed as a second member of the same
files, restored right but every cap change said as "another writer (nvpmodel?)" lowered
policy4.  Session 21a's own-folder rule (``read_policy``'s ``not_own``: the kernel makes a
policy as the directory ``cpufreq/policyN``, never a link) covers it: these tests drive the
installed script on an Orin Nano whose zones swing between hot and cool, so the caps change
back and forth, with the link there at start and made after start.  One member, no rival line,
the tree back byte for byte.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil

HOT_MC, COOL_MC = 92000, 40000
CPUFREQ = "sys/devices/system/cpu/cpufreq"
P0, P4 = f"{CPUFREQ}/policy0", f"{CPUFREQ}/policy4"
DEADLINE_S = 30.0


def _set_zones(t: fakesys.FakeTree, mc: int) -> None:
    for z in sorted((t.root / "sys/class/thermal").glob("thermal_zone*")):
        (z / "temp").write_text(f"{mc}\n")


def _cap_becomes(t: fakesys.FakeTree, proc: subprocess.Popen[bytes], lowest: str, low: bool) -> None:
    """Poll policy0's max until the daemon moved it (a condition with a deadline, no fixed wait)."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the daemon exited"
        if ((t.root / P0 / "scaling_max_freq").read_text().strip() == lowest) == low:
            return
        time.sleep(0.05)
    raise AssertionError(f"policy0's cap never became {'lowest' if low else 'higher'}")


def _swing(t: fakesys.FakeTree, proc: subprocess.Popen[bytes]) -> None:
    """Cool, then hot again, twice: four cap changes (hot at start: the lowest cap is in force)."""
    lowest = (t.root / P0 / "scaling_max_freq").read_text().strip()
    for _ in range(2):
        _set_zones(t, COOL_MC)
        _cap_becomes(t, proc, lowest, low=False)
        _set_zones(t, HOT_MC)
        _cap_becomes(t, proc, lowest, low=True)


def _labels(tmp: Path) -> list[str]:
    return [e["label"] for e in json.loads((tmp / "state" / "journal.json").read_text())["entries"]]


def _ours(snap: dict[str, bytes | str]) -> dict[str, bytes | str]:
    """The tree but the link's own entries and the zones' ``temp`` (the test wrote those)."""
    return {k: v for k, v in snap.items() if not k.startswith(P4) and not k.endswith("/temp")}


@pytest.mark.parametrize("when", ["at-start", "after-start"])
def test_a_policy_linked_to_another_is_one_member_over_many_cap_changes(tmp_path: Path, when: str) -> None:
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    shutil.rmtree(t.root / P4)
    if when == "at-start":
        (t.root / P4).symlink_to("policy0")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    if when == "after-start":
        (t.root / P4).symlink_to("policy0")  # a late cluster that is no folder of its own
        line = procutil.wait_line(proc, "policy4", stream="stderr")
        assert "left alone" in line and "its own folder" in line, line
    _swing(t, proc)
    assert _labels(tmp_path).count("policy0") == 1 and "policy4" not in _labels(tmp_path)
    err = procutil.stopped(proc)
    assert "another writer" not in err and "nvpmodel" not in err, err
    # said once: at start in the rest of stderr, after start by the line read above
    assert err.count("its own folder") == (1 if when == "at-start" else 0), err
    assert "limits restored" in err
    assert _ours(t.snapshot()) == _ours(before)
    assert (t.root / P4).is_symlink(), "the link itself left alone"


def test_doctor_names_the_linked_policy_and_governs_the_other(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    shutil.rmtree(t.root / P4)
    (t.root / P4).symlink_to("policy0")
    res = procutil.run_cli("doctor", "--sysfs-root", str(t.root), "--json")
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr
    assert "not_own" in res.stdout and "its own folder" in res.stdout
