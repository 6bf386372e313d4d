"""A log whose input column starts late is fitted on the rows that have it, or refused saying so.

A temperature logger extended mid-run with a load column (the 39-day Pi 4 CSV: load only in its
last 307 rows) used to be fitted as if the first load value had held all along; block-averaged
to 4000 rows, its few loaded rows then collapsed into one reading and the cause said only
"no load change".  Synthetic logs, no real data needed."""

from __future__ import annotations

import numpy as np
import pytest

from thermogov.board import load_board
from thermogov.interfaces import LogFormatError
from thermogov.sim.calibration.checks import checked_log
from thermogov.sim.calibration.data import LogData, decimate
from thermogov.sim.calibration.fit import calibrate


def _late_load(n_before: int, n_after: int, shared_time: bool = False) -> LogData:
    """Temperature throughout; a load column (a step half way) only in the last ``n_after`` rows."""
    n = n_before + n_after
    t = np.arange(float(n))
    if shared_time:
        t[n_before:] = float(n_before)
    load = np.full(n, np.nan)
    k = np.arange(n_after)
    load[n_before:] = np.where(k >= n_after // 2, 1.0, 0.0)
    temp = 45.0 + 0.001 * np.arange(n)
    on = n_before + n_after // 2
    temp[on:] += 10.0 * (1.0 - np.exp(-(np.arange(n - on)) / 30.0))
    return LogData(t, {"cpu": temp}, {"cpu": np.full(n, 1.5e9)}, {"cpu": load}, None, "late.csv")


def test_the_fit_uses_the_rows_where_the_input_is_logged() -> None:
    data, notes = checked_log(_late_load(900, 300))
    assert len(data.t_s) == 300 and data.t_s[0] == 900.0
    assert np.isfinite(data.load["cpu"]).all()
    assert any("covers only the last 300 of 1200 rows" in n for n in notes)
    r = calibrate(_late_load(900, 300), load_board("rpi4"), holdout=0.3)
    assert r.t_s[0] == 900.0 and any("covers only the last 300" in n for n in r.notes)


def test_one_missing_first_value_is_no_late_column() -> None:
    """sbc-bench drops the first %cpu of a section: one row without load stays in the fit."""
    data = _late_load(1, 299)
    out, notes = checked_log(data)
    assert len(out.t_s) == 300 and not any("covers only" in n for n in notes)


def test_rows_sharing_one_time_in_the_covered_part_are_refused_naming_both() -> None:
    with pytest.raises(LogFormatError, match=r"covers only the last 300 of 1200 rows.*300 rows share one"):
        checked_log(_late_load(900, 300, shared_time=True))


def test_block_averaging_keeps_a_column_present_in_some_rows() -> None:
    """Each block averages the rows that have a value; a block without any stays a gap."""
    n = 9000
    t = np.arange(float(n))
    load = np.full(n, np.nan)
    load[1::3] = np.where(np.arange(n // 3) % 2 == 0, 0.2, 0.8)  # every third row, alternating
    data = LogData(t, {"cpu": np.full(n, 50.0)}, {}, {"cpu": load}, None, "x")
    out = decimate(data, max_samples=1500)  # blocks of 6 rows: two readings each, 0.2 and 0.8
    assert np.allclose(out.load["cpu"], 0.5)
    load[: n // 2] = np.nan
    out = decimate(data, max_samples=1500)
    assert np.isnan(out.load["cpu"][: 1500 // 2]).all() and np.allclose(out.load["cpu"][1500 // 2 :], 0.5)
