"""An overclocked or overvolted Pi's firmware settings reach the power model (sim/calibration/overvolt.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from thermogov.board import BoardProfile, builtin_board_data, load_board, parse_board
from thermogov.interfaces import ConfigError
from thermogov.sim.calibration.data import load_log_data
from thermogov.sim.calibration.inputs import derive_inputs
from thermogov.sim.calibration.overvolt import STEP_V, STEPS_MAX, firmware_voltage

# A Pi 4 report at 1800 MHz: the firmware's settings block, then one monitor section
REPORT = """sbc-bench v0.9.8 Raspberry Pi 4 Model B Rev 1.4 (Fri, 07 Jan 2022 19:48:26 +1000)

Actual ThreadX settings:
arm_64bit=1
{settings}gpu_freq=500

System health while running 7-zip multi core benchmark:

Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp    VCore
19:48:39: 1800/1800MHz  0.34  77%   9%  28%  39%   0%   0%  50.9°C  0.8938V
19:49:09: 1800/1800MHz  0.87  27%   0%  26%   0%   0%   0%  52.8°C  0.8938V
19:49:39: 1800/1800MHz  3.10  98%   0%  97%   0%   0%   0%  58.8°C  0.8938V
19:50:09: 1800/1800MHz  3.90  99%   0%  98%   0%   0%   0%  61.3°C  0.8938V
"""


def _dynamic(path: Path) -> np.ndarray:
    """The load proxy's dynamic part, u·V²·f, that the fit scales by C_dyn."""
    inp = derive_inputs(load_log_data(path), load_board("rpi4"))
    return inp.load["cpu"] * inp.volt_v["cpu"] ** 2 * inp.freq_hz["cpu"]


def _report(tmp_path: Path, name: str, settings: str) -> Path:
    p = tmp_path / name
    p.write_text(REPORT.format(settings=settings), encoding="utf-8")
    return p


def test_the_settings_reach_the_summary_and_the_calibration(tmp_path: Path) -> None:
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder
    from thermogov.runs import SUMMARY_FILE

    log = _report(tmp_path, "oc.txt", "arm_freq=1800\nover_voltage=2\nover_voltage_delta=0x61a8\n")
    run = write_run_folder(parse_log(log), tmp_path / "runs")
    summary = json.loads((run.run_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
    assert summary["firmware"] == {"arm_freq": 1800, "over_voltage": 2, "over_voltage_delta": 25000}
    assert dict(load_log_data(run.run_dir).firmware) == summary["firmware"]  # the folder and the file agree
    assert dict(load_log_data(log).firmware) == summary["firmware"]


def test_overvolting_raises_the_dynamic_power_at_the_same_clock(tmp_path: Path) -> None:
    plain = _dynamic(_report(tmp_path, "plain.txt", "arm_freq=1800\n"))
    over = _dynamic(_report(tmp_path, "over.txt", "arm_freq=1800\nover_voltage=2\n"))
    volt = load_board("rpi4").domains[0].volt_v
    # without over_voltage the firmware's own scaling is undocumented in size: the table's top is
    # held; over_voltage=2 fixes the voltage at the table's top + 2 steps of 25 mV
    v_auto = volt[-1]
    v_fixed = volt[-1] + 2 * STEP_V
    busy = plain > 0
    assert busy.any() and np.all(over[busy] > plain[busy])
    assert over[busy] / plain[busy] == pytest.approx((v_fixed / v_auto) ** 2)


def test_a_report_without_settings_keeps_the_table_voltage(tmp_path: Path) -> None:
    text = REPORT.format(settings="arm_freq=1800\nover_voltage=2\n")
    no_block = text.replace("Actual ThreadX settings:\n", "")  # the same lines, not the firmware's block
    p = tmp_path / "none.txt"
    p.write_text(no_block, encoding="utf-8")
    data = load_log_data(p)
    assert not data.firmware
    inp = derive_inputs(data, load_board("rpi4"))
    board = load_board("rpi4")
    assert np.all(inp.volt_v["cpu"] == board.domains[0].volt_v[-1])  # held at the table's top, as before


def test_the_rule_by_the_documentation() -> None:
    hz = np.array([600e6, 1500e6])
    volt = np.array([0.80, 0.86])
    at = np.array([1000e6, 1500e6, 2000e6])
    same, notes = firmware_voltage(at, hz, volt, {})
    assert np.allclose(same, np.interp(at, hz, volt)) and notes == ()
    stock, _ = firmware_voltage(at[:2], hz, volt, {"arm_freq": 1500})
    assert np.allclose(stock, np.interp(at[:2], hz, volt))  # within the table: nothing to apply
    fixed, _ = firmware_voltage(at, hz, volt, {"over_voltage": 4})
    assert np.allclose(fixed, np.interp(at, hz, volt) + 4 * STEP_V)  # no automatic scaling with it set
    auto, notes = firmware_voltage(at, hz, volt, {"arm_freq": 2000})
    assert np.allclose(auto, np.interp(at, hz, volt)) and notes == ()  # automatic scaling: size undocumented
    delta, _ = firmware_voltage(at, hz, volt, {"over_voltage_delta": 50000})
    assert np.allclose(delta, np.interp(at, hz, volt) + 0.05)
    both, _ = firmware_voltage(at, hz, volt, {"over_voltage": -2, "over_voltage_delta": 100000})
    assert np.allclose(both, np.interp(at, hz, volt) - 2 * STEP_V + 0.1)
    clamped, notes = firmware_voltage(at, hz, volt, {"over_voltage": 15})
    assert np.allclose(clamped, np.interp(at, hz, volt) + STEPS_MAX * STEP_V) and "outside" in notes[0]
    ignored, notes = firmware_voltage(at[:2], hz, volt, {"over_voltage": 70000})
    assert np.allclose(ignored, np.interp(at[:2], hz, volt)) and "not a step count" in notes[0]


def test_other_formats_state_no_settings(tmp_path: Path) -> None:
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder
    from thermogov.runs import SUMMARY_FILE

    excerpt = (
        Path(__file__).resolve().parents[1]
        / "data"
        / "logs"
        / "tegrastats_agxorin_powergui-style_excerpt.csv"
    )
    run = write_run_folder(parse_log(excerpt), tmp_path / "runs")
    assert json.loads((run.run_dir / SUMMARY_FILE).read_text(encoding="utf-8"))["firmware"] == {}
    assert not load_log_data(run.run_dir).firmware


# A Pi 4 table that goes on above the board's default clock with the firmware's automatic
# scaling, as sbc-bench measures it (report 3N94: flat to 1500 MHz, then 1600-1800)
MEASURED_HZ = np.array([600e6, 1500e6, 1600e6, 1700e6, 1800e6])
MEASURED_V = np.array([0.86, 0.86, 0.882, 0.904, 0.926])


def test_over_voltage_offsets_the_stock_range_not_the_overclock() -> None:
    at = np.array([600e6, 1500e6, 1700e6, 1800e6, 2000e6])
    stock = 1500e6
    fixed, notes = firmware_voltage(at, MEASURED_HZ, MEASURED_V, {"over_voltage": 2}, stock)
    # dvfs=2: the stock range's voltage plus two steps, held at every clock above the stock one
    # (the over_voltage=2 reports log one voltage from 600 to 1800 MHz)
    assert np.allclose(fixed, 0.86 + 2 * STEP_V)
    assert "stock clock" in notes[-1]
    # without over_voltage the automatic scaling's voltages stand where the table lists them
    auto, notes = firmware_voltage(at, MEASURED_HZ, MEASURED_V, {"arm_freq": 1800}, stock)
    assert np.allclose(auto, np.interp(at, MEASURED_HZ, MEASURED_V)) and notes == ()
    assert auto[3] == pytest.approx(0.926)
    # over_voltage_delta adds to what the DVFS computes, the automatic scaling included
    delta, _ = firmware_voltage(at, MEASURED_HZ, MEASURED_V, {"over_voltage_delta": 25000}, stock)
    assert np.allclose(delta, auto + 0.025)
    # no stock clock given: the table's top is the stock clock, as for a table that ends there
    top, _ = firmware_voltage(at, MEASURED_HZ, MEASURED_V, {"over_voltage": 2})
    assert np.allclose(top, np.interp(at, MEASURED_HZ, MEASURED_V) + 2 * STEP_V)


def test_below_the_stock_clock_over_voltage_follows_the_table() -> None:
    hz = np.array([600e6, 1000e6, 1500e6, 1800e6])
    volt = np.array([0.80, 0.83, 0.86, 0.93])
    at = np.array([600e6, 1000e6, 1800e6])
    fixed, _ = firmware_voltage(at, hz, volt, {"over_voltage": -2}, 1500e6)
    assert np.allclose(fixed, np.array([0.80, 0.83, 0.86]) - 2 * STEP_V)


def _rpi4_with(**domain: object) -> BoardProfile:
    """The rpi4 profile with the measured table (to 1800 MHz) and the given [domains.cpu] keys."""
    data = copy.deepcopy(builtin_board_data("rpi4"))
    cpu = data["domains"]["cpu"]
    cpu["opp_mhz"], cpu["volt_v"] = [600, 1500, 1600, 1700, 1800], [0.86, 0.86, 0.882, 0.904, 0.926]
    cpu.update(domain)
    return parse_board(data, "rpi4-measured.toml")


def test_the_profile_names_its_stock_clock_and_the_fit_uses_it(tmp_path: Path) -> None:
    board = _rpi4_with(stock_mhz=1500)
    assert board.domains[0].stock_clock_hz == 1500_000_000
    over = derive_inputs(
        load_log_data(_report(tmp_path, "over.txt", "arm_freq=1800\nover_voltage=2\n")), board
    )
    busy = over.load["cpu"] > 0
    # 0.91 V as the reports log it (0.894 on their AVS-offset board), not 0.926 + 0.05
    assert np.allclose(over.volt_v["cpu"][busy], 0.86 + 2 * STEP_V)
    plain = derive_inputs(load_log_data(_report(tmp_path, "plain.txt", "arm_freq=1800\n")), board)
    assert np.allclose(plain.volt_v["cpu"][busy], 0.926)
    assert _rpi4_with().domains[0].stock_clock_hz == 1800_000_000


def test_a_stock_clock_off_the_table_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"cpu\.stock_mhz: 1550 MHz is not in opp_mhz"):
        _rpi4_with(stock_mhz=1550)
