"""The core voltage a log records (sbc-bench's VCore) reaches the calibration as a report, not an input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from thermogov.board import load_board
from thermogov.importers import parse_log
from thermogov.importers.quantities import core_volts
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.data import load_log_data
from thermogov.sim.calibration.inputs import derive_inputs

HEADER = "Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp{vcore}\n"
ROWS = (
    ("19:48:39: 1800/1800MHz  0.34  77%   9%  28%  39%   0%   0%  50.9°C", "0.9200V"),
    ("19:49:09: 1800/1800MHz  0.87  27%   0%  26%   0%   0%   0%  52.8°C", "0.9210V"),
    ("19:49:39: 1800/1800MHz  3.10  98%   0%  97%   0%   0%   0%  58.8°C", "7.5V"),  # no core voltage
    ("19:50:09: 1800/1800MHz  3.90  99%   0%  98%   0%   0%   0%  61.3°C", "0.9190V"),
)


def _report(tmp_path: Path, with_vcore: bool) -> Path:
    lines = [
        "sbc-bench v0.9.8 Raspberry Pi 4 Model B Rev 1.4 (Fri, 07 Jan 2022 19:48:26 +1000)\n\n",
        "System health while running 7-zip multi core benchmark:\n\n",
        HEADER.format(vcore="    VCore" if with_vcore else ""),
        *(f"{row}  {v}\n" if with_vcore else f"{row}\n" for row, v in ROWS),
    ]
    p = tmp_path / f"{'vcore' if with_vcore else 'plain'}.txt"
    p.write_text("".join(lines), encoding="utf-8")
    return p


def test_core_volts_reads_volts_or_millivolts_and_refuses_other_rails() -> None:
    assert core_volts(0.8938) == pytest.approx(0.8938)
    assert core_volts(893.8) == pytest.approx(0.8938)  # a mV column, told by its value
    assert core_volts(5.1) is None and core_volts(12.0) is None  # an input rail, not a core
    assert core_volts(0.0) is None


def test_a_vcore_column_reaches_the_run_folder_and_the_calibration(tmp_path: Path) -> None:
    log = parse_log(_report(tmp_path, with_vcore=True))
    assert [s.volts_v for s in log.samples] == [{"cpu": 0.92}, {"cpu": 0.921}, {}, {"cpu": 0.919}]
    assert not any("VCore" in n and "not imported" in n for n in log.notes)
    from_folder = load_log_data(write_run_folder(log, tmp_path / "runs").run_dir)
    from_file = load_log_data(tmp_path / "vcore.txt")
    for data in (from_folder, from_file):
        np.testing.assert_allclose(data.volt_v["cpu"], [0.92, 0.921, np.nan, 0.919])


def test_the_logged_voltage_is_reported_and_the_model_inputs_are_unchanged(tmp_path: Path) -> None:
    """Feeding the logged voltage into the fit was measured and dropped (docs/calibration.md):
    the report with the column must give the fit the same inputs as the one without."""
    board = load_board("rpi4")
    plain = load_log_data(_report(tmp_path, with_vcore=False))
    logged = load_log_data(_report(tmp_path, with_vcore=True))
    assert plain.volt_v == {}
    a, b = derive_inputs(plain, board), derive_inputs(logged, board)
    for name in ("cpu",):
        np.testing.assert_array_equal(a.volt_v[name], b.volt_v[name])
        np.testing.assert_array_equal(a.load[name] * a.volt_v[name] ** 2, b.load[name] * b.volt_v[name] ** 2)
    extra = [n for n in b.notes if n not in a.notes]
    assert len(extra) == 1 and "0.919-0.921 V" in extra[0] and "3 of 4 rows" in extra[0]
