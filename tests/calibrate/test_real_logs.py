"""Calibration targets on the real Raspberry Pi 4 step logs (read from
``$THERMOGOV_REAL_DATA``, never copied: they carry no licence or GPL; see docs/real-logs.md).
Skipped when the logs are absent.

Targets: open-loop RMSE on the held-out last 30 % of each log (which holds the end of the load
and the cool-down the fit never saw) <= 1.5 °C, and on the one log long enough to settle
(unitB, 4.3 h under load) the predicted steady state within 2 °C of the mean of the last 10
minutes under load.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.realdata import REAL_DATA, absent
from thermogov.board import load_board
from thermogov.sim.calibration.calibrate import CalibrationResult, calibrate, load_log_data

REAL = REAL_DATA

TARGET_HOLDOUT_C = 1.5
LOGS = (
    "rpi_4b_stress_cpu4_unitA.csv",
    "rpi_4b_stress_cpu4_unitB.csv",
    "rpi_4b_stressberry_nocase.dat",
    "rpi_4b_stressberry_armor-case.dat",
    "rpi_4b_stressberry_icetower-fan-on.dat",
    "rpi_4b_stressberry_icetower-fan-off.dat",
    "rpi_4b_stressberry_fans-off.dat",
    "rpi_4b_stressberry_argon-one-oc1950.dat",
)
CLOCKED = tuple(n for n in LOGS if "stressberry" in n and "fans-off" not in n)  # stressberry >= 0.2

_cache: dict[str, CalibrationResult] = {}


def fit(name: str) -> CalibrationResult:
    if not REAL.is_dir():
        pytest.skip(absent(REAL))
    if name not in _cache:
        _cache[name] = calibrate(load_log_data(REAL / name), load_board("rpi4"), holdout=0.3)
    return _cache[name]


@pytest.mark.parametrize("name", LOGS)
def test_held_out_tail_rmse(name: str) -> None:
    r = fit(name)
    assert r.rmse_holdout_c is not None
    assert r.rmse_holdout_c <= TARGET_HOLDOUT_C
    assert r.rmse_train_c <= 1.0


@pytest.mark.parametrize("name", CLOCKED)
def test_samples_beside_a_load_edge_are_predicted(name: str) -> None:
    """The die jumps 3-8 K within one 2 s sample when stress starts or stops.  A model that puts
    the change at the wrong sample misses most of that jump on the samples beside the edge (an
    earlier version: 3-7 K, on the held-out load-off edge too); placing it where it can have
    happened keeps them within the sensor's 1 °C steps plus the jump's uncertainty."""
    r = fit(name)
    f = load_log_data(REAL / name).freq_hz["cpu"]
    edges = np.flatnonzero(np.abs(np.diff(f)) > 0.5 * np.ptp(f)) + 1
    assert len(edges) == 2  # stress on, stress off
    err = r.predicted_c - r.measured_c
    for k in edges:
        jump = abs(r.measured_c[k + 1] - r.measured_c[k - 1])
        assert jump >= 3.0
        assert np.max(np.abs(err[k - 1 : k + 2])) < 2.0


def test_long_log_steady_state_within_two_degrees() -> None:
    r = fit("rpi_4b_stress_cpu4_unitB.csv")
    s = r.steady
    assert s is not None and s.measured_c is not None
    assert s.window_s[1] - s.window_s[0] == pytest.approx(600.0, abs=10.0)
    assert 15_000 < s.window_s[1] < 15_500  # the end of the 4.3 h load segment
    assert abs(s.error_c or 99.0) <= 2.0


def test_short_logs_report_no_measured_steady_state() -> None:
    r = fit("rpi_4b_stressberry_nocase.dat")
    assert r.steady is not None and r.steady.measured_c is None
    assert any("steady state not reached" in n for n in r.notes)
    assert any("busy (u=1) while the clock" in n for n in r.notes)


def test_log_without_load_or_clock_infers_the_step_from_temperature() -> None:
    r = fit("rpi_4b_stressberry_fans-off.dat")
    note = next(n for n in r.notes if "inferred from the temperature" in n)
    # stressberry's protocol: ~150 s idle, then 300 s of stress
    on, off = (
        float(x) for x in note.split("from the temperature from ")[1].removesuffix(" s").split(" s to ")
    )
    assert 140 < on < 160 and 440 < off < 460
