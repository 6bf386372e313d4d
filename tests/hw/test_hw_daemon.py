"""The real-time runner in-process, against fake trees and the kernel double.

Runs are bounded by ``duration_s`` (a second or two of real time); assertions are about what
was written and restored, never about how long anything took.
"""

from __future__ import annotations

import errno
import io
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys
from tests.hw.cliargs import run_options
from tests.hw.fakesys import FakeTree, KernelTree
from thermogov.config import parse_config
from thermogov.hw.daemon import RunOptions, run
from thermogov.hw.journal import Journal, JournalData, JournalEntry
from thermogov.trace import load_trace

POLICY0 = "sys/devices/system/cpu/cpufreq/policy0"
GPU = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b"


def _opts(tmp: Path, **kw: Any) -> RunOptions:
    return run_options(tmp, **kw)


def _hot_orin(tmp: Path) -> FakeTree:
    return fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)  # fused 90 °C: trips at once


def _run(tmp: Path, tree: KernelTree | None = None, **kw: Any) -> tuple[dict[str, Any], str, str]:
    out, err = io.StringIO(), io.StringIO()
    summary = run(_opts(tmp, **kw), out=out, err=err, tree=tree)
    return summary, out.getvalue(), err.getvalue()


def test_normal_end_restores_originals_and_only_table_members_were_written(tmp_path: Path) -> None:
    t = _hot_orin(tmp_path)
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root", "old")
    summary, out, _ = _run(tmp_path, kt)
    assert t.snapshot() == before
    assert not Journal(tmp_path / "state").exists()
    cpu_khz = set(fakesys.ORIN_NANO_CPU_KHZ)
    caps = [(p, v) for p, v in kt.writes if p.endswith(("scaling_max_freq", "max_freq"))]
    assert caps, "the hot board must have been capped"
    for p, v in kt.writes:
        assert (v in cpu_khz) if "cpufreq" in p else (v in fakesys.ORIN_NANO_GPU_HZ)
    assert ("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", 729600) in kt.writes
    assert (f"{GPU}/max_freq", 306000000) in kt.writes
    assert "thermogov: started" in out
    assert summary["backend"] == "hw" and summary["stopped_by"] == "duration"
    assert summary["sustained_throughput_ips"] is None and summary["inferences_total"] is None
    assert summary["tick_ms_p99"] is not None and summary["missing_sensors"] == {
        "battery": "no power_supply of type Battery"
    }
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert trace["policy_state"][0] == "LOW"
    # The profile's battery, absent, is waited for (session 23b): its column empty throughout.
    assert all(v is None for v in trace["battery_c"]), trace["battery_c"]
    assert trace["cpu_cap_hz"][0] == 729_600_000


def test_journal_is_on_disk_before_the_first_write(tmp_path: Path) -> None:
    _hot_orin(tmp_path)
    kt = KernelTree(tmp_path / "root", "new")
    seen: list[JournalData | None] = []
    kt.before_write.append(lambda real, data: seen.append(Journal(tmp_path / "state").load()))
    _run(tmp_path, kt)
    assert seen and seen[0] is not None
    originals = {(e.max_rel, e.max) for e in seen[0].entries}
    assert (f"{POLICY0}/scaling_max_freq", 1510400) in originals
    assert ("sys/class/devfreq/17000000.ga10b/max_freq", 625000000) in originals


def test_stale_journal_of_a_dead_daemon_is_restored_first(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    t.write(f"{POLICY0}/scaling_max_freq", 729600)  # left low by a crashed run
    entry = JournalEntry(
        "cpu", "policy0", f"{POLICY0}/scaling_min_freq", f"{POLICY0}/scaling_max_freq", 1000, 729600, 1510400
    )
    Journal(tmp_path / "state").write(JournalData(999999, "", str(tmp_path / "root"), 0.0, (entry,)))
    summary, _, err = _run(tmp_path)
    assert "left by pid 999999" in err
    assert t.read_int(f"{POLICY0}/scaling_max_freq") == 1510400  # and the run's ceiling was the real max
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert trace["cpu_cap_hz"][0] == 1_510_400_000


def test_hard_limit_forces_lowest_caps_at_once(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path / "root", cpu_mc=96000, gpu_mc=40000)  # fused < 85, cpu >= 95 limit
    kt = KernelTree(tmp_path / "root")
    summary, _, _ = _run(tmp_path, kt)
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert "hard_limit:cpu" in trace["event"][0]
    assert trace["cpu_cap_hz"][0] == 729_600_000 and trace["gpu_cap_hz"][0] == 306_000_000


def test_unknown_temperature_for_over_a_second_is_failsafe(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    for i in (0, 1):
        t.write(f"sys/devices/virtual/thermal/thermal_zone{i}/temp", "garbage\n")
    summary, _, err = _run(tmp_path, duration_s=1.4)
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    states = trace["policy_state"]
    t_fail = next(t for t, s in zip(trace["t_s"], states, strict=True) if s == "FAILSAFE")
    assert t_fail >= 1.0
    assert trace["cpu_cap_hz"][-1] == 729_600_000 and trace["gpu_cap_hz"][-1] == 306_000_000
    assert err.count("not a whole number") <= 2  # repeated failures are not spammed


def test_exception_mid_run_still_restores(tmp_path: Path) -> None:
    t = _hot_orin(tmp_path)
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root")
    calls = {"n": 0}

    def boom(real: str, data: bytes) -> None:
        calls["n"] += 1
        if calls["n"] == 2:  # after the first cap went in
            raise RuntimeError("injected")

    kt.before_write.append(boom)
    with pytest.raises(RuntimeError, match="injected"):
        _run(tmp_path, kt)
    assert t.snapshot() == before
    assert not Journal(tmp_path / "state").exists()


def test_dry_run_writes_nothing_anywhere_in_the_tree(tmp_path: Path) -> None:
    t = _hot_orin(tmp_path)
    before = t.snapshot()
    summary, out, err = _run(tmp_path, dry_run=True, duration_s=0.3)
    assert t.snapshot() == before
    assert not (tmp_path / "state").exists() and not (tmp_path / "run").exists()
    assert "mode=dry-run" in out
    assert f"dry-run: would write {tmp_path}/root/{POLICY0}/scaling_max_freq=729600" in err
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert "would_write:" in trace["event"][0] and trace["cpu_cap_hz"][0] == 729_600_000
    assert summary["dry_run"] is True


def test_sensor_overrides_and_disabled_sensors(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path / "root")
    cfg = parse_config({"sensors": {"gpu": {"enabled": False}, "cpu": {"period_ms": 200}}})
    summary, _, _ = _run(tmp_path, config=cfg)
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert "gpu_c" not in trace and set(trace["sensors_used"][1:]) == {"cpu"}


def test_builtin_workload_is_counted(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    summary, _, _ = _run(tmp_path, workload="builtin", duration_s=1.5)
    assert summary["workload"] == "builtin"
    assert summary["inferences_total"] and summary["inferences_total"] > 0
    assert summary["sustained_throughput_ips"] is not None


def test_command_workload_counts_matching_lines(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    script = tmp_path / "infer.py"
    script.write_text(
        "import sys\nfor i in range(50):\n    print('done' if i % 2 else 'warmup', flush=True)\n"
        "sys.stdin.read()\n"
    )
    summary, _, _ = _run(
        tmp_path, workload=f"cmd:{sys.executable} {script}", count_regex="^done", duration_s=1.5
    )
    assert summary["inferences_total"] == 25


def test_write_errors_escalate_and_a_limit_never_written_is_not_left_changed(tmp_path: Path) -> None:
    """The GPU cap is refused from the first write on: the governor goes failsafe on the others,
    and at exit the GPU limit still holds its original, so the restore is complete (no journal,
    exit 0). A limit refused after it was lowered: tests/hw/test_hw_exit_edges.py."""
    t = _hot_orin(tmp_path)
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root")
    kt.write_faults[f"{GPU}/max_freq"] = errno.EBUSY
    _, _, err = _run(tmp_path, kt, duration_s=0.5)
    assert "EBUSY" in err and "limits restored" in err
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    trace = load_trace(run_dir)
    assert "write_failed:gpu" in trace["event"][0]
    assert "FAILSAFE" in trace["policy_state"] and trace["cpu_cap_hz"][-1] == 729_600_000
    assert not Journal(tmp_path / "state").exists()
    assert t.snapshot() == before
