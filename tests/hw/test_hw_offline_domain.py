"""A cpufreq domain whose every policy is offline at start, governed once one comes online.

Session 17 governed a late cluster of a domain that had another one online; a domain with none
was named missing and stayed at the kernel's limits until a restart.  Each case starts a hot
Orin Nano whose ``policy0`` and ``policy4`` (its whole ``cpu`` domain) answer EBUSY from every
attribute through the fault shim, then takes the faults away (its CPUs back online) and waits on
the daemon's own stderr line, never on a sleep.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.hw import fakesys, procutil
from tests.hw.test_hw_late_cluster import _max, back_online, hot_orin_offline, killed_then_restored

CPUFREQ = "sys/devices/system/cpu/cpufreq"
POLICIES = (f"{CPUFREQ}/policy0", f"{CPUFREQ}/policy4")
HOT_MC = 92000


def _hot_orin_cpu_offline(tmp: Path, shim: Path) -> tuple[fakesys.FakeTree, dict[str, str]]:
    return hot_orin_offline(tmp, shim, *POLICIES)


def _journal(tmp: Path) -> dict[str, int]:
    entries = json.loads((tmp / "state" / "journal.json").read_text())["entries"]
    return {e["label"]: e["max"] for e in entries}


def _started_then_online(tmp: Path, t: fakesys.FakeTree, env: dict[str, str]) -> subprocess.Popen[bytes]:
    proc = procutil.start_run(tmp, "--duration", "120s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    assert not {"policy0", "policy4"} & set(_journal(tmp))
    back_online(tmp, proc, "policy0", "policy4")
    return proc


def test_a_domain_offline_at_start_is_journaled_capped_and_restored_once_it_comes_online(
    tmp_path: Path, shim: Path
) -> None:
    # Before: "warning: domain cpu is not governed (... inactive ...)", and both clusters kept
    # the kernel's 1510.4 MHz at 92 °C once online, for the rest of the run.
    t, env = _hot_orin_cpu_offline(tmp_path, shim)
    before = t.snapshot()
    found = {p: _max(t, p) for p in POLICIES}
    proc = _started_then_online(tmp_path, t, env)
    journal = _journal(tmp_path)
    assert journal["policy0"] == found[POLICIES[0]] and journal["policy4"] == found[POLICIES[1]]
    assert all(_max(t, p) < found[p] for p in POLICIES), "capped with the decision held meanwhile"
    err = procutil.stopped(proc)
    assert "limits restored" in err
    assert "Traceback" not in err
    assert t.snapshot() == before


def test_after_kill_9_a_restore_puts_back_the_domain_that_came_online(tmp_path: Path, shim: Path) -> None:
    t, env = _hot_orin_cpu_offline(tmp_path, shim)
    before = t.snapshot()
    proc = _started_then_online(tmp_path, t, env)
    assert _max(t, POLICIES[1]) < int((t.root / POLICIES[1] / "cpuinfo_max_freq").read_text())
    killed_then_restored(tmp_path, proc, env)
    assert t.snapshot() == before


def test_a_domain_offline_for_the_whole_run_is_no_failure(tmp_path: Path, shim: Path) -> None:
    t, env = _hot_orin_cpu_offline(tmp_path, shim)
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--duration", "120s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    err = procutil.stopped(proc)
    assert "domain cpu: every policy of it (policy0, policy4) is offline; governed once" in err
    assert "limits restored" in err and "Traceback" not in err
    assert t.snapshot() == before
