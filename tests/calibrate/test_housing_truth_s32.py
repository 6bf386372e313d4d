"""``bench/housing_truth.py``: a log drawn from the profile's own plant in a known housing, fitted twice.

One case (a metal case, an idle training part: where a maker's-housing prior went wrong) so the test stays cheap; the bench's
full table is docs/calibration.md's Session 32f.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench" / "housing_truth.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("housing_truth_s32", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_metal_case_plant_is_found_and_scores_its_floor(bench: ModuleType) -> None:
    case = bench.measure("rpi4", "metal-case", seed=1, idle_s=300.0, holdout=0.6)
    assert case.truth == "metal-case" and case.chosen == "metal-case"
    assert math.isfinite(case.rmse_c) and case.rmse_c == case.truth_rmse_c  # the same housing, the same fit
    assert case.rmse_c < 1.0  # the profile's own network: the sensor's noise and step, nothing else


def test_the_summary_counts_the_misses_and_their_cost(bench: ModuleType) -> None:
    hit = bench.Case("bare", 1, 60.0, "bare", 0.3, 0.3)
    miss = bench.Case("case", 1, 60.0, "bare", 0.9, 0.4)
    got = bench.summary([hit, miss])
    assert got["cases"] == 2 and got["found"] == 1
    assert got["rmse_sum_c"] == pytest.approx(1.2) and got["floor_sum_c"] == pytest.approx(0.7)


def test_housings_with_their_own_fan_are_left_out(bench: ModuleType) -> None:
    """``step_log`` draws no fan, so a fan housing's log would not be its plant."""
    assert bench.fanless_housings("rpi5") == ["case", "bare"]
    assert bench.fanless_housings("rpi4") == ["bare", "case", "metal-case", "fan-heatsink"]
