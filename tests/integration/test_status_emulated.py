"""``thermogov status`` of the real daemon governing the emulated board (a live plant).

Unlike the fake trees of ``tests/hw`` (fixed temperatures), the emulator heats the board under
the caps the daemon writes, so the published state must move: publication after publication the
uptime grows, the temperatures follow the plant, and what ``status`` prints matches the caps the
daemon wrote into the tree.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.hw.procutil import DEADLINE_S, script, status_cli, wait_line
from tests.hw.test_hw_status_live import poll
from tests.integration.loop import THERMOGOV, wait_for_line

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the daemon writes caps only as root")

POLICY0_TABLE = "sys/devices/system/cpu/cpufreq/policy0/scaling_available_frequencies"


def test_status_follows_the_emulated_board(tmp_path: Path) -> None:
    root, state = tmp_path / "board", tmp_path / "run" / "state.json"
    emu = subprocess.Popen(
        [*THERMOGOV, "emulate", "--board", "jetson-orin-nano", "--sysfs-root", str(root), "--speed", "10"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_line(emu, "ready")
        daemon = subprocess.Popen(
            [
                *script(),
                "run",
                "--sysfs-root",
                str(root),
                "--board",
                "jetson-orin-nano",
                "--out",
                str(tmp_path / "out"),
                "--state-dir",
                str(tmp_path / "state"),
                "--lock-file",
                str(tmp_path / "lock"),
                "--state-file",
                str(state),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
        )
        try:
            wait_line(daemon, "thermogov: started")

            def doc() -> dict[str, object] | None:
                try:
                    return json.loads(state.read_text())
                except (OSError, ValueError):
                    return None

            first = poll(doc, "the first publication")
            later = poll(
                lambda: (d := doc()) and d["uptime_s"] >= first["uptime_s"] + 2.0 and d,  # type: ignore[operator,index]
                "two more publications",
            )
            assert later["temperature_c"]["sensors"] != first["temperature_c"]["sensors"]  # a live plant
            r = status_cli("--json", "--state", str(state))  # asked again while only aged (30i)
            assert r.returncode == 0, r.stderr
            shown = json.loads(r.stdout)
            assert shown["stale"] is None and shown["pid"] == daemon.pid
            table_khz = (root / POLICY0_TABLE).read_text().split()
            # The cap in force at that publication: an OPP of the tree, at most its limit at start
            # (the daemon may have moved a rung since, so no equality with one instant's file).
            cap_hz = shown["domains"]["cpu"]["cap_hz"]
            assert str(cap_hz // 1000) in table_khz and cap_hz // 1000 <= max(map(int, table_khz))
            assert shown["temperature_c"]["fused"] is not None
        finally:
            daemon.send_signal(signal.SIGTERM)
            _, err = daemon.communicate(timeout=DEADLINE_S)
        assert daemon.returncode == 0, err.decode()
        assert not state.exists()
    finally:
        emu.terminate()
        emu.wait(timeout=30)
