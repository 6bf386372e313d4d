"""A board with no input-rail monitor gets the sum of its profile's rails as its power (session 22d).

Before: on a Jetson AGX Orin (``input_rail = "none"``, ``summed_rails``, session 22b) ``doctor``
showed the sum but the trace's ``power_w``, the ledger and power-aware policies got nothing.
Now the sum is the power, named as a sum in the run's summary; a summed rail that goes EIO
mid-run makes that tick's power missing (never a partial sum), said once, no traceback.
Also: a zone showing more trip points than any kernel registers is read up to the cap only.
Through the installed script.
"""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from tests.hw import fakesys, faultshim, procutil
from tests.hw.test_hostile_power_rail import _powers
from tests.hw.test_hw_status_live import poll

# 19.98 V x 240 mA + 19.98 V x 80 mA + 5.06 V x 740 mA (tests/hw/fakesys.py AGX_ORIN_RAILS)
SUM_W = 19.98 * 0.240 + 19.98 * 0.080 + 5.06 * 0.740
MAX_TRIPS = 31  # the kernel's limit per zone since Linux 6.1 (hw/discovery.py MAX_TRIPS)


def _summary(tmp: Path) -> dict[str, object]:
    return json.loads(next((tmp / "out").rglob("summary.json")).read_text())


def test_an_agx_orin_trace_has_the_sum_of_its_rails_as_power(tmp_path: Path) -> None:
    fakesys.agx_orin(tmp_path / "root")
    cfg = tmp_path / "c.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    args = [
        *procutil.paths(tmp_path),
        "--out",
        str(tmp_path / "out"),
        "--config",
        str(cfg),
        "--duration",
        "1",
    ]
    done = procutil.run_cli("run", *args)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    powers = _powers(tmp_path)
    assert powers and all(p for p in powers), powers  # main: every power_w empty
    assert all(float(p) == pytest.approx(SUM_W, abs=1e-3) for p in powers), powers
    summary = _summary(tmp_path)
    assert summary["power_rail"] is None  # not the board's input
    assert summary["power_summed_rails"] == ["VDD_GPU_SOC", "VDD_CPU_CV", "VIN_SYS_5V0"]
    assert "not the board's input" in str(summary["power_source"])


def test_a_summed_rail_going_eio_mid_run_leaves_power_missing_not_partial(tmp_path: Path, shim: Path) -> None:
    fakesys.agx_orin(tmp_path / "root", cpu_mc=92000, gpu_mc=92000)
    rules = tmp_path / "faults"
    env = faultshim.env(shim, rules, tmp_path / "root")
    proc = procutil.start_run(tmp_path, "--duration", "120s", env=env)
    procutil.wait_line(proc, "thermogov: started")
    poll(lambda: [p for p in _powers(tmp_path) if p], "a recorded power")
    faultshim.write_rules(rules, [("hwmon3/curr2_input", "r", errno.EIO)])  # VDD_CPU_CV
    line = procutil.wait_line(proc, "board power is unreadable", stream="stderr")
    assert "curr2_input" in line and "EIO" in line, line
    n = len(_powers(tmp_path))
    poll(lambda: _powers(tmp_path)[n:].count("") >= 3, "three empty power_w rows")
    err = procutil.stopped(proc)
    assert "board power is unreadable" not in err, "said once, not once per tick"
    powers = _powers(tmp_path)
    assert powers[0] and float(powers[0]) == pytest.approx(SUM_W, abs=1e-3)
    # every recorded value is the whole sum: no tick recorded two rails of three
    assert all(float(p) == pytest.approx(SUM_W, abs=1e-3) for p in powers if p), powers


def test_trip_points_beyond_the_kernels_limit_are_ignored_and_said_once(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root")
    zone = t.root / "sys/devices/virtual/thermal/thermal_zone0"
    for k in range(2000):
        (zone / f"trip_point_{k}_type").write_text("passive\n")
        (zone / f"trip_point_{k}_temp").write_text(f"{50000 + k}\n")
    done = procutil.run_cli("doctor", "--json", "--sysfs-root", str(tmp_path / "root"))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    first = next(z for z in report["thermal_zones"] if z["trips"])
    assert len(first["trips"]) == MAX_TRIPS  # main: 2000
    said = [p for p in report["problems"] if "trip points" in p]
    assert len(said) == 1 and f"trip_point_{MAX_TRIPS}_* and above are ignored" in said[0], said
