"""The state at a log's first reading from the load before it (uptime and the kernel's load averages)."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from thermogov.board import load_board
from thermogov.sim.calibration.data import LogData, load_log_data
from thermogov.sim.calibration.history import (
    LOAD_AVERAGE_TAUS_S,
    MAX_HISTORY_S,
    load_history,
    state_after,
)
from thermogov.sim.calibration.model import Modes, network
from thermogov.sim.model.plant import ThermalPlant


def kernel_load_average(tasks: list[tuple[float, float]]) -> tuple[float, float, float]:
    """The kernel's calc_load: every 5 s, avg = avg * e + n * (1 - e), e = exp(-5 / tau), from 0 at boot."""
    avg = [0.0, 0.0, 0.0]
    for dur, n in tasks:
        for _ in range(round(dur / 5.0)):
            for i, tau in enumerate(LOAD_AVERAGE_TAUS_S):
                e = math.exp(-5.0 / tau)
                avg[i] = avg[i] * e + n * (1.0 - e)
    return avg[0], avg[1], avg[2]


def test_three_averages_give_back_a_three_step_history() -> None:
    # 4 cores: busy for 2 h, idle for 4 minutes, two tasks in the last minute
    avg = kernel_load_average([(7200.0, 4.0), (240.0, 0.0), (60.0, 2.0)])
    h = load_history(7500.0, avg, 4)
    assert h is not None
    (d_old, u_old), (d_mid, u_mid), (d_new, u_new) = h.steps
    assert (d_old, d_mid, d_new) == (MAX_HISTORY_S - 300.0, 240.0, 60.0)
    assert u_old == pytest.approx(1.0, abs=0.05)
    assert u_mid == pytest.approx(0.0, abs=0.05)
    assert u_new == pytest.approx(0.5, abs=0.05)


def test_no_history_without_the_averages_or_from_a_recent_boot() -> None:
    assert load_history(None, (1.0, 1.0, 1.0), 4) is None
    assert load_history(7200.0, None, 4) is None
    assert load_history(600.0, (1.0, 0.5, 0.2), 4) is None  # booted warm or cold: the log does not say
    assert load_history(7200.0, (float("nan"), 1.0, 1.0), 4) is None


def test_the_state_after_the_history_is_the_plant_run_through_it() -> None:
    board = load_board("rpi4")
    cap, g = network(board.thermal)
    modes = Modes.of(cap, g)
    slope = np.array([0.0, 0.0, 0.0])
    cpu = board.thermal.node_names().index(board.domains[0].node)
    slope[cpu] = 3.0
    p0 = np.array([1.0, 0.5, 2.0])
    u0 = 0.25 * slope
    h = load_history(7200.0, kernel_load_average([(7200.0, 4.0), (240.0, 0.0), (60.0, 1.0)]), 4)
    assert h is not None
    got = state_after(h, modes, p0, u0, slope)
    plant = ThermalPlant.from_profile(board.thermal, 25.0)
    plant.x = modes.steady(p0 - u0 + h.steps[0][1] * slope)
    for dur, u in h.steps:
        for _ in range(int(dur)):
            plant.advance(1.0, p0 - u0 + u * slope)
    assert np.allclose(got, plant.x, atol=1e-6)


def test_the_fit_starts_where_the_history_left_the_board() -> None:
    """An hour of full load before a light benchmark: the first reading is far above the idle steady state."""
    from thermogov.sim.calibration.fit import FitProblem

    board = load_board("rpi4")
    t = np.arange(0.0, 1500.0, 90.0)
    load = np.where(t < 900.0, 0.25, 1.0)
    temps = np.full(len(t), 60.0)
    temps[t >= 900.0] = 70.0
    data = LogData(t, {"cpu": temps}, {"cpu": np.full(len(t), 1.5e9)}, {"cpu": load}, None, "synthetic")
    avg = kernel_load_average([(7200.0, 4.0), (240.0, 0.0), (60.0, 1.0)])
    told = FitProblem.build(
        dataclasses.replace(data, uptime_s=7500.0, load_average=avg), board, holdout=0.6, ambient_c=25.0
    )
    blind = FitProblem.build(data, board, holdout=0.6, ambient_c=25.0)
    assert told.history is not None and blind.history is None
    assert not told.analytic_jacobian  # the initial state's derivative is not in the sensitivities
    phi = np.zeros(len(told.specs))
    first_told = told.predict(phi)[0][0][0]
    first_blind = blind.predict(phi)[0][0][0]
    assert first_told > first_blind + 5.0  # still cooling from the hour at full load
    # an hour of idle before it starts the board at the blind (idle) start instead
    idle = kernel_load_average([(7200.0, 0.0)])
    quiet = FitProblem.build(
        dataclasses.replace(data, uptime_s=7500.0, load_average=idle), board, holdout=0.6, ambient_c=25.0
    )
    first_quiet = quiet.predict(phi)[0][0][0]
    assert first_quiet < first_blind + 0.5


REPORT = """sbc-bench v0.8.7 Raspberry Pi 4 Model B Rev 1.4 (Fri, 07 Jan 2022 19:48:26 +1000)

Uptime: 19:48:26 up {up},  5 users,  load average: {avg}

System health while running tinymembench:

Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp    VCore
19:48:39: 2147/2148MHz  0.34  77%   9%  28%  39%   0%   0%  60.9°C  1.0200V
19:50:09: 2147/2148MHz  0.87  27%   0%  26%   0%   0%   0%  62.8°C  1.0200V
"""


@pytest.mark.parametrize(
    ("up", "avg", "uptime_s", "expected"),
    [
        (" 1:05", "0.30, 1.74, 4.51", 3900.0, (0.30, 1.74, 4.51)),
        ("3 min", "0,99, 0,42, 0,16", 180.0, (0.99, 0.42, 0.16)),
        ("3 days, 18:58", "0.43, 0.12, 0.04", (3 * 1440 + 18 * 60 + 58) * 60.0, (0.43, 0.12, 0.04)),
        ("1 day, 49 min", "1.50, 0.69, 0.42", (1440 + 49) * 60.0, (1.50, 0.69, 0.42)),
    ],
)
def test_the_sbcbench_uptime_line_reaches_the_calibration(
    tmp_path: Path, up: str, avg: str, uptime_s: float, expected: tuple[float, float, float]
) -> None:
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder

    log = tmp_path / "report.txt"
    log.write_text(REPORT.format(up=up, avg=avg), encoding="utf-8")
    raw = load_log_data(log)
    assert raw.uptime_s == uptime_s and raw.load_average == pytest.approx(expected)
    run = write_run_folder(parse_log(log), tmp_path / "runs")
    imported = load_log_data(run.run_dir)
    assert imported.uptime_s == uptime_s and imported.load_average == pytest.approx(expected)
