"""The sensor's reading step, detected from the readings, and the quantisation floor it implies.

The steps are the ones seen in the real logs (docs/calibration.md, seventeenth session): 0.5 °C
tegrastats codes, whole degrees from stressberry, and the Pi 4 sensor's ~0.487 °C step printed
rounded to 0.1 °C by sbc-bench or to m°C by sysfs.  The fidelity bench carries both figures in
every row of ``--json`` (its ``measure`` run on one shipped report).
"""

from __future__ import annotations

import math
import runpy
from pathlib import Path

import numpy as np
import pytest

from thermogov.sim.calibration.resolution import printed_resolution, quantisation_floor, reading_step

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "fidelity.py"
REPORT = REPO / "tests" / "data" / "logs" / "external" / "sbcbench_rpi4_3OBF.txt"
PI4_STEP = 0.487  # the step the Pi 4 reports show (measured across the sbc-bench reports)


def _walk(n: int = 400, seed: int = 1) -> np.ndarray:
    """A board warming and cooling between 40 and 75 °C: many grid steps visited."""
    rng = np.random.default_rng(seed)
    return 57.0 + 15.0 * np.sin(np.linspace(0.0, 6.0, n)) + rng.normal(0.0, 0.4, n)


def _on_grid(t: np.ndarray, step: float, offset: float) -> np.ndarray:
    return offset + np.round((t - offset) / step) * step


def test_a_half_degree_code_is_its_own_step() -> None:
    assert reading_step(_on_grid(_walk(), 0.5, 0.0)) == pytest.approx(0.5)


def test_whole_degrees_are_a_one_degree_step() -> None:
    assert reading_step(np.round(_walk())) == pytest.approx(1.0)


@pytest.mark.parametrize("decimals", [1, 3])
def test_the_pi4_step_is_recovered_through_a_rounded_print(decimals: int) -> None:
    readings = np.round(_on_grid(_walk(), PI4_STEP, 0.21), decimals)
    got = reading_step(readings)
    assert got is not None
    assert got == pytest.approx(PI4_STEP, abs=0.003)


def test_continuous_readings_have_no_grid() -> None:
    assert reading_step(np.round(_walk(), 3)) is None


def test_a_fine_print_is_no_grid_worth_naming() -> None:
    assert reading_step(np.round(_walk(), 2)) is None


def test_a_few_distinct_readings_say_nothing() -> None:
    few = np.array([50.0, 50.5, 51.0, 52.5, 50.5, 51.0])
    assert reading_step(few) is None


def test_missing_readings_are_skipped() -> None:
    readings = _on_grid(_walk(), 0.5, 0.0)
    readings[::7] = np.nan
    assert reading_step(readings) == pytest.approx(0.5)


def test_the_printed_resolution_is_the_finest_decimal() -> None:
    assert printed_resolution(np.array([50.0, 51.0])) == 1.0
    assert printed_resolution(np.array([50.5, 51.2])) == pytest.approx(0.1)
    assert printed_resolution(np.array([50.512, 51.2])) == pytest.approx(0.001)


def test_the_floor_is_what_a_perfect_continuous_forecast_scores_against_the_readings() -> None:
    true = _walk(4000, seed=5)
    readings = _on_grid(true, 0.5, 0.0)
    rmse = float(np.sqrt(np.mean((true - readings) ** 2)))
    floor = quantisation_floor(reading_step(readings))
    assert floor == pytest.approx(0.5 / math.sqrt(12.0))
    assert rmse == pytest.approx(floor, rel=0.05)
    assert quantisation_floor(None) is None


def test_the_bench_reports_the_step_of_every_row() -> None:
    measure = runpy.run_path(str(BENCH), run_name="fidelity_under_test")["measure"]
    row = measure(REPORT, 0.6)
    assert row is not None and row.rmse_c is not None
    assert row.sensor_step_c == pytest.approx(PI4_STEP, abs=0.003)
    assert row.quantisation_floor_c == pytest.approx(row.sensor_step_c / math.sqrt(12.0))
    assert "sensor_step_c" in row.__dict__  # what --json writes for every row
