"""Closed loop without a board: the real daemon governs the emulated plant through a fake tree.

The emulator (``thermogov emulate``) advances the simulator's plant in accelerated real time
from the caps the daemon writes and writes temperatures back; ``thermogov run`` governs it for
a few wall seconds.  Started near the trip, the loop must trip, obey the 85/70 hysteresis,
never reach a hard limit, and leave every cap exactly as it found it.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.loop import wait_for_line

EMU = [sys.executable, "-m", "thermogov.cli", "emulate"]
RUN = [sys.executable, "-m", "thermogov.cli", "run"]

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the daemon writes caps only as root")


def cap_files(root: Path) -> dict[str, str]:
    files = sorted(root.glob("sys/devices/system/cpu/cpufreq/policy*/scaling_*_freq"))
    files += sorted(root.glob("sys/class/devfreq/*/m*_freq"))
    return {str(p.relative_to(root)): p.read_text() for p in files if "cur" not in p.name}


def test_daemon_governs_the_emulated_board_and_restores(tmp_path: Path) -> None:
    root, out, state = tmp_path / "board", tmp_path / "out", tmp_path / "state"
    # 10x, not faster: a loaded machine can stall the daemon for a second, which at 25x was
    # 25 s of board time at full clocks and pushed a sensor past its 95 °C hard limit.
    emu = subprocess.Popen(
        [*EMU, "--sysfs-root", str(root), "--speed", "10", "--initial-temp", "84", "--wall-duration", "40s"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_line(emu, "ready")
        before = cap_files(root)
        cfg = tmp_path / "hysteresis.toml"
        cfg.write_text('[run]\npolicy = "hysteresis"\n')
        run = subprocess.run(
            [*RUN, "--sysfs-root", str(root), "--duration", "6s", "--out", str(out),
             "--state-dir", str(state), "--lock-file", str(tmp_path / "lock"), "--board", "jetson-orin-nano", "--config", str(cfg)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        after = cap_files(root)
    finally:
        emu.terminate()
        emu.wait(timeout=10)
    assert after == before  # restored exactly, byte for byte
    (run_dir,) = [p for p in out.iterdir() if p.is_dir()]
    with (run_dir / "trace.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) > 30
    state_now = "HIGH"
    trips = 0
    for r in rows:
        fused = float(r["fused_c"])
        # Hysteresis logic against the fused value the daemon itself recorded.
        if state_now == "HIGH" and fused >= 85.0:
            assert r["policy_state"] == "LOW", r
            trips += 1
        elif state_now == "LOW" and fused <= 70.0:
            assert r["policy_state"] == "HIGH", r
        else:
            assert r["policy_state"] == state_now, r
        state_now = r["policy_state"]
        for s in ("cpu", "gpu"):
            assert float(r[f"{s}_c"]) < 95.0
        if state_now == "LOW":
            assert int(r["gpu_cap_hz"]) == 306_000_000
    assert trips >= 1
