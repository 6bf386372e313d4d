"""Session 24a: since when a sensor is waited for (hw/waitedsince.py), in `status` and `doctor`;
and a battery that joins late brings its power state (hw/power.py ``_late_battery``, the one owner of a late pack since session 27r).

Main published what a waiting sensor is looked for as, not since when: a zone waited for 2 s and
one waited for days read the same.  The daemon runs on tests/hw/test_hw_late_zones.py's virtual
clock (its seconds); the wall-clock start is the real clock's.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from tests.hw.test_hw_waiting_sensors import BAT, _run, kept_state_without_gpu
from thermogov.hw.waitedsince import line


def _fresh(kept: Path) -> None:
    """The kept state published now: a slow machine must not make it stale before doctor reads it."""
    procutil.restamp(kept)


def test_status_and_doctor_say_since_when_the_gpu_zone_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    began = time.time()
    root, kept = kept_state_without_gpu(tmp_path, monkeypatch, 40.0)
    gpu = json.loads(kept.read_text())["temperature_c"]["waiting"]["gpu"]
    assert "gpu-thermal" in gpu["looked_for"]
    assert 38.0 <= gpu["waited_s"] <= 41.0, gpu
    assert began - 1.0 <= gpu["since_unix"] <= time.time(), gpu
    p = procutil.status_cli("--state", str(kept), refresh=lambda: _fresh(kept))
    assert p.returncode == 0, p.stdout + p.stderr
    since = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(gpu["since_unix"]))
    said = f"waiting for gpu (a thermal zone of type gpu-thermal/GPU-therm in /sys/class/thermal) for {gpu['waited_s']:.0f} s, since {since}"
    assert said in p.stdout, p.stdout
    # doctor reads the running daemon's state (this test process's pid, live) for the same.
    _fresh(kept)
    p = procutil.run_cli("doctor", "--sysfs-root", str(root), "--state", str(kept))
    assert p.returncode == 0, p.stderr
    assert f"waits for it for {gpu['waited_s']:.0f} s, since {since}" in p.stdout, p.stdout
    _fresh(kept)
    p = procutil.run_cli("doctor", "--json", "--sysfs-root", str(root), "--state", str(kept))
    entry = {s["name"]: s for s in json.loads(p.stdout)["mapping"]["sensors"]}["gpu"]
    assert entry["waited_s"] == gpu["waited_s"] and entry["waiting_since_unix"] == gpu["since_unix"], entry


def test_an_older_daemon_s_waiting_entry_still_shows() -> None:
    # Session 23b's daemon published the string alone.
    assert line("gpu", "a thermal zone") == "waiting for gpu (a thermal zone)"
    assert line("gpu", {"looked_for": "x", "waited_s": float("nan")}) == "waiting for gpu (x)"
    assert line("gpu", 5) is None


def test_a_battery_that_joins_late_brings_its_power_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Main: the supplies found at start only; with none there, "mains" for the whole run.
    t = fakesys.orin_nano(tmp_path / "root", jetpack=6, cpu_mc=60000, gpu_mc=60000)
    root = t.root
    kept: dict[int, dict[str, object]] = {}

    def plug_in(el: float) -> None:
        if el >= 5.0 and not (root / "sys/class/power_supply/BAT0").exists():
            t.supply("BAT0", BAT, temp_decic=305)
        state = tmp_path / "run" / "state.json"
        if state.exists():
            doc = json.loads(state.read_text())
            kept[round(el)] = doc["power"]
            if el < 5.0:
                assert doc["power"]["state"] == "mains"

    _run(tmp_path, monkeypatch, 15.0, plug_in)
    late = [p for t, p in kept.items() if t >= 10]
    assert late and all(p["state"] == "discharging" and p["capacity_pct"] == 80.0 for p in late), kept
