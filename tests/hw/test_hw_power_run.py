"""The daemon with a battery: a found battery in fusion, the power state, Li-ion limits, budgets."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path
from typing import Any

from tests.hw import fakesys
from tests.hw.fakesys import KernelTree
from thermogov.config import Config
from thermogov.hw.daemon import RunOptions, run
from thermogov.powerconfig import PowerConfig
from thermogov.trace import load_trace

BAT = "POWER_SUPPLY_NAME=BAT0\nPOWER_SUPPLY_TYPE=Battery\nPOWER_SUPPLY_STATUS={status}\nPOWER_SUPPLY_CAPACITY=74"


def _run(tmp: Path, config: Config, duration_s: float = 0.6) -> dict[str, Any]:
    opts = RunOptions(
        config=config,
        sysfs_root=tmp / "root",
        duration_s=duration_s,
        out=tmp / "out",
        state_dir=tmp / "state",
        lock_file=tmp / "run" / "thermogov.lock",
    )
    return run(opts, out=io.StringIO(), err=io.StringIO(), tree=KernelTree(tmp / "root"))


def test_agx_orin_robot_governs_with_its_battery_and_reports_the_state(tmp_path: Path) -> None:
    t = fakesys.agx_orin(tmp_path / "root")
    t.supply("BAT0", BAT.format(status="Discharging"), temp_decic=312)
    summary = _run(tmp_path, Config(policy="hysteresis"))
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert "battery_c" in trace and trace["battery_c"][-1] == 31.2
    assert "battery" in trace["sensors_used"][-1]
    assert "power:discharging" in trace["event"][0]
    assert summary["missing_sensors"] == {}


def test_charging_a_hot_pack_holds_the_lowest_caps_and_says_so(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=50000, gpu_mc=48000)
    t.supply("BAT0", BAT.format(status="Charging"), temp_decic=470)  # 47 °C > 45 °C charging limit
    summary = _run(tmp_path, Config(policy="hysteresis"))
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert "liion_limit:charging_hot" in trace["event"][0]
    assert trace["cpu_cap_hz"][0] == 729_600_000 and trace["gpu_cap_hz"][0] == 306_000_000
    assert summary["liion_limit_crossings"] == {"charging_hot": 1}


def test_the_same_pack_discharging_is_not_capped(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=50000, gpu_mc=48000)
    t.supply("BAT0", BAT.format(status="Discharging"), temp_decic=470)  # within -20..60 °C
    summary = _run(tmp_path, Config(policy="hysteresis"))
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert "liion_limit" not in " ".join(e or "" for e in trace["event"])
    assert trace["cpu_cap_hz"][0] > 729_600_000
    assert summary["liion_limit_crossings"] == {}


def test_a_budget_below_the_rail_reading_lowers_the_caps(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path / "root", cpu_mc=50000, gpu_mc=48000)
    base = Config(policy="hysteresis")
    cfg = dataclasses.replace(base, power=PowerConfig(mains_w=1.0))  # the fake VDD_IN reads more
    summary = _run(tmp_path, cfg)
    trace = load_trace(tmp_path / "out" / summary["run_id"])
    assert "budget:1W" in trace["event"][0]
    assert trace["cpu_cap_hz"][-1] == 729_600_000
    assert summary["budget_s"] > 0.0
