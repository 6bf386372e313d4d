"""Session 26t: sysfs mounted read-only (a container, a systemd sandbox), through the installed script.

Such a mount keeps every attribute's 0644 mode and fails the first write with EROFS; before,
discovery looked only at the mode bits, so the daemon started, logged one failed write, held the
failsafe it could not apply and ended with exit 0 on a hot board it never capped.  Now a limit on
a read-only mount (statvfs ``ST_RDONLY``; tests/hw/faultshim.c reports it for a file whose writes
fail EROFS) makes its device not governable at discovery, as a mode-0444 limit does.  Each test
failed on the code of before (said per test).
"""

from __future__ import annotations

import csv
import errno
import json
import subprocess
from pathlib import Path

from tests.hw import fakesys, faultshim, procutil

HOT = 92000
CPUF = "sys/devices/system/cpu/cpufreq"
GPU = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu"


def _run(tmp: Path, shim: Path, rules: list[tuple[str, str, int]]) -> subprocess.CompletedProcess[str]:
    faultshim.write_rules(tmp / "faults", rules)
    cfg = tmp / "hysteresis.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [*procutil.paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), "--duration", "2s"]
    return subprocess.run(
        [*procutil.script(), "run", *args],
        capture_output=True,
        text=True,
        timeout=procutil.DEADLINE_S,
        env=faultshim.env(shim, tmp / "faults", tmp / "root"),
    )


def _ro(names: tuple[str, ...]) -> list[tuple[str, str, int]]:
    return [(f"/{n}", "w", errno.EROFS) for n in names]


def test_a_hot_pi5_on_a_read_only_sysfs_is_refused_up_front(tmp_path: Path, shim: Path) -> None:
    """Every limit on a read-only mount: one line naming the file, the mount and the fix, exit 2,
    nothing written (before: started, "write of 1500000 failed (EROFS ...)", exit 0)."""
    t = fakesys.rpi5(tmp_path / "root", cpu_mc=HOT)
    before = t.snapshot()
    r = _run(tmp_path, shim, _ro(("scaling_min_freq", "scaling_max_freq")))
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr[-800:]
    assert f"{CPUF}/policy0/scaling_" in r.stderr and "read-only mount" in r.stderr, r.stderr
    assert "/sys read-write" in r.stderr
    assert t.snapshot() == before


def test_doctor_says_a_policy_on_a_read_only_mount_is_not_governable(tmp_path: Path, shim: Path) -> None:
    """``doctor`` (exit 0) marks the policy, as it does a mode-0444 limit (before: listed as governable)."""
    fakesys.rpi5(tmp_path / "root", cpu_mc=HOT)
    faultshim.write_rules(tmp_path / "faults", _ro(("scaling_max_freq",)))
    d = subprocess.run(
        [*procutil.script(), "doctor", "--sysfs-root", str(tmp_path / "root")],
        capture_output=True,
        text=True,
        timeout=procutil.DEADLINE_S,
        env=faultshim.env(shim, tmp_path / "faults", tmp_path / "root"),
    )
    assert d.returncode == 0 and "Traceback" not in d.stderr, d.stderr[-800:]
    assert "NOT GOVERNABLE" in d.stdout and "read-only mount" in d.stdout, d.stdout


def test_only_the_gpu_read_only_leaves_the_cpu_governed_and_never_writes_the_gpu(
    tmp_path: Path, shim: Path
) -> None:
    """A sandbox that leaves cpufreq writable but mounts the GPU's devfreq read-only: the GPU is
    said not governable and never written, the CPU is governed and restored, exit 0 (before: the
    GPU's writes failed EROFS every tick and the failsafe held)."""
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=HOT, gpu_mc=HOT)
    before = t.snapshot()
    rules = [(f"{GPU}/{n}", "w", errno.EROFS) for n in ("min_freq", "max_freq")]
    r = _run(tmp_path, shim, rules)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-800:]
    assert "EROFS" not in r.stderr and "read-only mount" in r.stderr, r.stderr
    assert "failsafe" not in r.stderr, r.stderr
    assert t.snapshot() == before
    run_dir = next((tmp_path / "out").glob("*/"))
    summary = json.loads((run_dir / "summary.json").read_text())
    assert "read-only mount" in summary["missing_domains"]["gpu"], summary["missing_domains"]
    caps = [int(row["cpu_cap_hz"]) for row in csv.DictReader((run_dir / "trace.csv").open())]
    assert caps and min(caps) < max(fakesys.ORIN_NANO_CPU_KHZ) * 1000, caps  # the hot CPU was capped
