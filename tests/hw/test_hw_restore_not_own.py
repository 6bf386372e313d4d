"""A journal restore never writes a window through a policy folder that is not its own (review 21r).

Session 21a made a policy folder that resolves anywhere but ``cpufreq/policyN`` itself (a link:
the kernel makes a policy as that directory, never a link) ``not_own``: left alone by ``run``,
late clusters and ``doctor``.  The journal restore's allow-list (hw/owned.py ``owned_windows``)
still took such a policy as a writable window, its range read through the link: after a
``kill -9``, ``policy4`` made a link to ``policy0`` had policy4's journaled window written into
policy0's files, "restored", exit 0.  Driven through the installed script on a hot Orin Nano.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.hw import fakesys, procutil

HOT_MC = 92000
CPUFREQ = "sys/devices/system/cpu/cpufreq"
P0, P4 = f"{CPUFREQ}/policy0", f"{CPUFREQ}/policy4"


def test_restore_writes_nothing_through_a_policy_linked_to_another(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=HOT_MC, gpu_mc=HOT_MC)
    (t.root / P4 / "scaling_max_freq").write_text("960000\n")  # a window unlike policy0's
    before = {k: v for k, v in t.snapshot().items() if not k.startswith(P4)}
    proc = procutil.start_run(tmp_path, "--duration", "120s")
    procutil.wait_line(proc, "thermogov: started")
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert int((t.root / P0 / "scaling_max_freq").read_text()) < 960000  # the hot board's caps
    shutil.rmtree(t.root / P4)
    (t.root / P4).symlink_to("policy0")  # made again as a link to policy0's folder
    r = procutil.run_cli("restore", *procutil.paths(tmp_path))
    # Before: exit 0, "restored 3 limit window(s)", policy0's max left at policy4's 960000.
    assert "Traceback" not in r.stderr
    assert r.returncode == 1, r.stdout + r.stderr
    assert "policy4" in r.stderr and "not its own folder" in r.stderr, r.stderr
    after = {k: v for k, v in t.snapshot().items() if not k.startswith(P4)}
    assert after == before  # policy0 and the GPU put back, nothing of policy4's written there
    assert (tmp_path / "state" / "journal.json").exists()  # policy4's window is still owed
