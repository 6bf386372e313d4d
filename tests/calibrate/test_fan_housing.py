"""A fan the firmware switches with temperature (the Pi 5 Active Cooler) inside the calibration model."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from thermogov.board import load_board, with_enclosure
from thermogov.fan import FanCurve
from thermogov.sim.calibration.data import LogData, load_log_data
from thermogov.sim.calibration.enclosure import housing_with_fan
from thermogov.sim.calibration.fanpath import levels_from_log, switched_response
from thermogov.sim.calibration.inputs import derive_inputs
from thermogov.sim.calibration.model import free_run, make_grid, network
from thermogov.sim.model.plant import ThermalPlant

REPORT = """sbc-bench v0.9.68 Raspberry Pi 5 Model B Rev 1.1 (Thu, 09 Jan 2025 02:06:18 -0600)

Hardware sensors:

pwmfan-isa-0000
fan1:        {before} RPM

##########################################################################

Hardware sensors:

pwmfan-isa-0000
fan1:        9999 RPM

##########################################################################

System health while running 7-zip multi core benchmark:

Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp    VCore
02:10:05: 2400/2400MHz  1.00   5%   0%   5%   0%   0%   0%  49.6°C  0.8768V
02:10:18: 2400/2400MHz  1.73  95%   0%  95%   0%   0%   0%  54.5°C  0.8749V
02:10:28: 2400/2400MHz  2.08  93%   0%  93%   0%   0%   0%  54.0°C  0.8749V
"""


def active_cooler():
    return with_enclosure(load_board("rpi5"), "active-cooler")


def test_the_housing_is_the_rpi5_fan_profile_heat_path() -> None:
    """One fan table and one set of cited values: the housing must not drift from rpi5-fan."""
    housing, fan_profile = active_cooler(), load_board("rpi5-fan")
    assert housing.fan == fan_profile.fan
    assert housing.fan is not None and housing.fan.default_curve.on_c == (50.0, 60.0, 67.5, 75.0)
    assert housing.thermal.nodes == fan_profile.thermal.nodes
    assert load_board("rpi5").fan is None  # only the housing brings the fan


def test_only_the_tachometer_before_the_run_is_read(tmp_path: Path) -> None:
    """The second sensor block is printed after every monitor reading: it must not choose the housing."""
    log = tmp_path / "report.txt"
    log.write_text(REPORT.format(before=0), encoding="utf-8")
    assert load_log_data(log).fan_rpm == (0.0,)
    log.write_text(REPORT.format(before=2804), encoding="utf-8")
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder

    run = write_run_folder(parse_log(log), tmp_path / "runs")
    assert load_log_data(log).fan_rpm == load_log_data(run.run_dir).fan_rpm == (2804.0,)


def test_a_turning_fan_names_the_one_fan_housing() -> None:
    rpi5 = load_board("rpi5")
    assert housing_with_fan(rpi5, (2804.0,)) == "active-cooler"
    assert housing_with_fan(rpi5, (0.0,)) is None  # a speed of 0 alone says nothing ...
    assert housing_with_fan(rpi5, (0.0,), "a fan tachometer") == "active-cooler"  # ... the fan's line does
    assert housing_with_fan(rpi5, ()) is None
    assert (
        housing_with_fan(load_board("jetson-xavier-nx"), (2804.0,), "a fan") is None
    )  # no housing with a fan


def test_switched_response_is_the_plant_with_the_fan_switched() -> None:
    board = active_cooler()
    cap, g = network(board.thermal)
    node = board.thermal.node_names().index("package")
    rng = np.random.default_rng(3)
    n, h = 400, 0.5
    power = rng.uniform(0.5, 6.0, size=(n, len(cap)))
    g_fan = np.repeat([0.0, 0.06, 0.11, 0.06, 0.16], n // 5)
    x0 = np.array([20.0, 19.0, 12.0])
    got = switched_response(cap, g, node, g_fan, power, h, x0)
    plant = ThermalPlant.from_profile(board.thermal, 25.0)
    plant.x = x0.copy()
    current = 0.0
    for k in range(n - 1):
        assert np.allclose(got[k], plant.x, atol=1e-9)
        plant.add_ambient_link("package", g_fan[k] - current)
        current = g_fan[k]
        plant.advance(h, power[k])
    assert np.allclose(got[n - 1], plant.x, atol=1e-9)


def sparse_log(temps: np.ndarray, t: np.ndarray) -> LogData:
    n = len(t)
    return LogData(t, {"cpu": temps}, {"cpu": np.full(n, 2.4e9)}, {"cpu": np.full(n, 1.0)}, None, "synthetic")


def test_levels_follow_the_curve_with_hysteresis_and_never_read_the_held_out_part() -> None:
    board = active_cooler()
    t = np.arange(0.0, 100.0, 10.0)
    temps = np.array([45.0, 51.0, 58.0, 61.0, 56.0, 54.0, 49.0, 44.0, 70.0, 80.0])
    train = t <= 70.0
    grid = make_grid(t)
    levels = levels_from_log(board, sparse_log(temps, t), {"cpu": "cpu"}, grid, train)
    assert levels is not None
    at = {float(tt): int(levels[int(np.searchsorted(grid.t, tt))]) for tt in (0.0, 10.0, 30.0, 50.0, 70.0)}
    # 51 °C: level 1; 61: level 2; 54 holds level 2 (off below 55); 49: level 1 (off below 45)
    assert at[0.0] == 0 and at[10.0] == 1 and at[30.0] == 2 and at[50.0] == 1 and at[70.0] <= 1
    assert levels[int(np.searchsorted(grid.t, 70.0)) :].max() <= 1  # 70 and 80 °C are held out
    changed = temps.copy()
    changed[~train] = 20.0
    again = levels_from_log(board, sparse_log(changed, t), {"cpu": "cpu"}, grid, train)
    assert again is not None and np.array_equal(levels, again)


def test_the_forecast_falls_under_full_load_when_the_fan_steps_up() -> None:
    """What the Pi 5 reports show: the temperature falling under constant load at the 60 °C step."""
    board = active_cooler()
    t = np.arange(0.0, 1200.0, 10.0)
    data = sparse_log(np.full(len(t), 50.0), t)
    inputs = derive_inputs(data, board)
    grid = make_grid(t)
    x0 = np.full(len(board.thermal.nodes), 27.0)  # 52 °C at 25 °C ambient: the fan at level 1
    with_fan = free_run(board, inputs, grid, x0, 25.0, fan_level=1)[:, 0] + 25.0
    peak = int(np.argmax(with_fan))
    assert 60.0 <= with_fan[peak] < 62.0  # it climbs to the step ...
    assert with_fan[-1] < with_fan[peak] - 1.0  # ... and falls once the fan is at level 2
    # the same heat path with the fan held at level 1 (a curve whose second step is never reached)
    # rises monotonically and settles above the switched fan
    stuck = dataclasses.replace(board.fan, default_curve=FanCurve((50.0, 150.0, 150.0, 150.0), 5.0))
    held = free_run(dataclasses.replace(board, fan=stuck), inputs, grid, x0, 25.0, fan_level=1)[:, 0] + 25.0
    assert held[-1] > with_fan[-1] + 1.0 and held[-1] > 60.0
    assert np.all(np.diff(held[1:]) > -1e-6)


def test_the_steady_state_has_the_fan_at_the_level_its_curve_climbs_to() -> None:
    from thermogov.sim.calibration.steady import steady_state_c

    board = active_cooler()
    t = np.arange(0.0, 100.0, 10.0)
    data = sparse_log(np.full(len(t), 50.0), t)
    inputs = derive_inputs(data, board)
    rows = np.arange(len(t))
    cpu = board.thermal.node_names().index("cpu")
    switched = steady_state_c(board, inputs, rows, 25.0)[cpu]
    without = steady_state_c(dataclasses.replace(board, fan=None), inputs, rows, 25.0)[cpu]
    assert without > 60.0 and 50.0 < switched < 60.0  # level 2 holds below its 60 °C step
