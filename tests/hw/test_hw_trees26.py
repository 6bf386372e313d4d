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
    run_dir = next(p for p in (tmp_path / "out").iterdir() if p.is_dir())  # 3.10's glob("*/") lists files too
    summary = json.loads((run_dir / "summary.json").read_text())
    assert "read-only mount" in summary["missing_domains"]["gpu"], summary["missing_domains"]
    caps = [int(row["cpu_cap_hz"]) for row in csv.DictReader((run_dir / "trace.csv").open())]
    assert caps and min(caps) < max(fakesys.ORIN_NANO_CPU_KHZ) * 1000, caps  # the hot CPU was capped


# -- a policy per CPU under a profile that names cluster policies -----------------------------------
PER_CORE_KHZ = fakesys.khz_grid(729600, 76800, 1497600)


def _per_core_orin(root: Path, cores: int, table: tuple[int, ...] = PER_CORE_KHZ) -> fakesys.FakeTree:
    """A T234-class board whose kernel gives each CPU its own policy (cppc_cpufreq on an SBSA
    layout, as JetPack 7 boards are; a cpufreq-dt table without ``opp-shared``), no profile
    naming it: run with ``--board jetson-orin-nano``, whose cpu domain names policy0 and policy4."""
    t = fakesys.FakeTree(root)
    t.model("Acme T234 box", ("acme,box", "nvidia,tegra234"))
    t.zone(0, "cpu-thermal", HOT)
    t.zone(1, "gpu-thermal", HOT)
    for c in range(cores):
        t.policy(c, [c], table)
    return t


def test_a_policy_per_cpu_is_governed_whole_under_a_profile_naming_clusters(tmp_path: Path) -> None:
    """Every CPU's policy capped mid-run, all restored at SIGTERM (before: only policy0 and policy4,
    the profile's names, were capped; the other six CPUs ran at full clock on a hot board)."""
    t = _per_core_orin(tmp_path / "root", 8)
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--board", "jetson-orin-nano")
    procutil.wait_line(proc, "thermogov: started")
    tops = {c: t.read_int(f"{CPUF}/policy{c}/scaling_max_freq") for c in range(8)}
    assert all(v < max(PER_CORE_KHZ) for v in tops.values()), tops
    procutil.stopped_as_before(proc, t, before, "Traceback")


def test_doctor_lists_the_unnamed_policies_in_the_cpu_domain(tmp_path: Path) -> None:
    """``doctor --board`` shows the cpu domain over all eight policies (before: policy0+policy4)."""
    _per_core_orin(tmp_path / "root", 8)
    d = procutil.run_cli("doctor", "--sysfs-root", str(tmp_path / "root"), "--board", "jetson-orin-nano")
    assert d.returncode == 0 and "Traceback" not in d.stderr, d.stderr[-800:]
    line = next(ln for ln in d.stdout.splitlines() if ln.strip().startswith("domain cpu"))
    assert all(f"policy{c}" in line for c in range(8)), line


def test_an_unnamed_policy_sharing_no_cap_is_said_and_left_alone(tmp_path: Path) -> None:
    """A leftover policy whose table shares no cap with the domain is warned of at start and never
    written; the named ones are governed (the domain is not lost for it)."""
    t = _per_core_orin(tmp_path / "root", 4)
    t.write(f"{CPUF}/policy6/related_cpus", "6\n")  # a policy with a table of its own, above every cap
    for rel, v in (("scaling_available_frequencies", "2600000 2700000 \n"), ("cpuinfo_min_freq", 2600000)):
        t.write(f"{CPUF}/policy6/{rel}", v)
    for rel in (
        "affected_cpus",
        "cpuinfo_max_freq",
        "scaling_min_freq",
        "scaling_max_freq",
        "scaling_cur_freq",
    ):
        t.write(f"{CPUF}/policy6/{rel}", "6\n" if rel == "affected_cpus" else "2700000\n")
    t.write(f"{CPUF}/policy6/scaling_min_freq", 2600000)
    t.write(f"{CPUF}/policy6/scaling_governor", "schedutil\n")
    before = t.snapshot()
    proc = procutil.start_run(tmp_path, "--board", "jetson-orin-nano")
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(f"{CPUF}/policy1/scaling_max_freq") < max(PER_CORE_KHZ)
    assert t.read_int(f"{CPUF}/policy6/scaling_max_freq") == 2700000
    err = procutil.stopped_as_before(proc, t, before)
    assert "policy6 (cpus 6), named by no domain of the profile, is left ungoverned" in err, err


def test_the_lifecycle_bench_names_a_policy_left_at_its_top(tmp_path: Path) -> None:
    """bench/tree_lifecycle.py's check: a writable policy with CPUs still at its top mid-run on a
    capped hot board is named; one capped, one already at its floor and one a fault rule covers
    are not (new in session 26t: main's bench had no such check)."""
    from bench.board_shapes import snapshot
    from bench.tree_lifecycle import policies_left_at_top

    t = _per_core_orin(tmp_path / "root", 4)
    before = snapshot(t.root)
    t.write(f"{CPUF}/policy0/scaling_max_freq", min(PER_CORE_KHZ))
    t.write(f"{CPUF}/policy2/scaling_max_freq", min(PER_CORE_KHZ))
    mid = snapshot(t.root)
    rules = [(f"{CPUF}/policy3/scaling_max_freq", "r", errno.EBUSY)]
    assert policies_left_at_top(before, mid, rules) == ["policy1"]
    assert policies_left_at_top(mid, mid, rules) == ["policy1"]  # policy0/2 already at their floor
