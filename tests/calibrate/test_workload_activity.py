"""The benchmark a log names weighs the load it drives (sim/calibration/activity.py, ``workload_activity``)."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from thermogov.board import BoardProfile, builtin_board_data, load_board, parse_board
from thermogov.interfaces import ConfigError
from thermogov.sim.calibration.activity import factor_per_row
from thermogov.sim.calibration.data import load_log_data
from thermogov.sim.calibration.inputs import derive_inputs

# A Pi 4 report: 7-zip on all cores, then cpuminer at the same utilisation
REPORT = """sbc-bench v0.9.8 Raspberry Pi 4 Model B Rev 1.4 (Fri, 07 Jan 2022 19:48:26 +1000)

System health while running 7-zip multi core benchmark:

Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp
19:48:39: 1800/1800MHz  0.34  77%   9%  28%  39%   0%   0%  50.9°C
19:49:09: 1800/1800MHz  3.10  97%   0%  97%   0%   0%   0%  58.8°C
19:49:39: 1800/1800MHz  3.90  97%   0%  97%   0%   0%   0%  61.3°C

System health while running cpuminer:

Time        fake/real   load %cpu %sys %usr %nice %io %irq   Temp
19:50:09: 1800/1800MHz  3.95  99%   0%  98%   0%   0%   0%  62.3°C
19:50:39: 1800/1800MHz  4.00  97%   0%  97%   0%   0%   0%  65.3°C
19:51:09: 1800/1800MHz  4.00  97%   0%  97%   0%   0%   0%  66.8°C
"""


def _report(tmp_path: Path) -> Path:
    p = tmp_path / "sbcbench_pi4.txt"
    p.write_text(REPORT, encoding="utf-8")
    return p


def _with_activity(board: BoardProfile, activity: tuple[tuple[str, float], ...]) -> BoardProfile:
    domains = tuple(dataclasses.replace(d, workload_activity=activity) for d in board.domains)
    return dataclasses.replace(board, domains=domains)


def test_the_phases_reach_the_calibration_from_the_file_and_the_run_folder(tmp_path: Path) -> None:
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder

    log = parse_log(_report(tmp_path))
    assert [name for name, _ in log.phases] == ["7-zip multi core benchmark", "cpuminer"]
    assert log.phases[1][1] == pytest.approx(90.0)  # the cpuminer section's first line, 90 s in
    run = write_run_folder(log, tmp_path / "runs")
    assert load_log_data(run.run_dir).phases == log.phases  # the folder and the file agree
    assert load_log_data(_report(tmp_path)).phases == log.phases


def test_a_named_workload_weighs_the_load_of_its_phase_only(tmp_path: Path) -> None:
    data = load_log_data(_report(tmp_path))
    board = load_board("rpi4")
    plain = derive_inputs(data, _with_activity(board, ()))
    weighed = derive_inputs(data, _with_activity(board, (("cpuminer", 1.5),)))
    ratio = weighed.load["cpu"] / plain.load["cpu"]
    cpuminer = data.t_s > data.phases[1][1]
    assert np.allclose(ratio[cpuminer], 1.5)
    # 7-zip's rows and the cpuminer section's first line (printed as it starts, with 7-zip's load) stay
    assert np.allclose(ratio[~cpuminer], 1.0)
    assert any("workload's activity" in n for n in weighed.notes)
    assert not any("workload's activity" in n for n in plain.notes)


def test_the_factor_follows_the_phase_names_case_insensitively() -> None:
    t = np.arange(6.0) * 10.0
    phases = (("tinymembench", 0.0), ("CPUminer run", 20.0), ("7-zip multi", 40.0))
    out = factor_per_row(t, phases, {"cpuminer": 1.2})
    assert out is not None
    assert list(out) == [1.0, 1.0, 1.0, 1.2, 1.2, 1.0]
    assert factor_per_row(t, phases, {"openssl": 2.0}) is None  # no phase of that name: no factor
    assert factor_per_row(t, (), {"cpuminer": 1.2}) is None


def test_a_log_without_phases_is_unchanged_by_the_profile(tmp_path: Path) -> None:
    data = dataclasses.replace(load_log_data(_report(tmp_path)), phases=())
    board = load_board("rpi4")
    a = derive_inputs(data, _with_activity(board, ()))
    b = derive_inputs(data, _with_activity(board, (("cpuminer", 1.5),)))
    assert np.array_equal(a.load["cpu"], b.load["cpu"])


def test_the_profile_key_is_checked() -> None:
    raw = copy.deepcopy(builtin_board_data("rpi4"))
    raw["domains"]["cpu"]["workload_activity"] = {"cpuminer": 1.3}
    assert dict(parse_board(raw, "rpi4").domain("cpu").workload_activity) == {"cpuminer": 1.3}
    raw["domains"]["cpu"]["workload_activity"] = {"cpuminer": -1.0}
    with pytest.raises(ConfigError, match=r"workload_activity\.cpuminer"):
        parse_board(raw, "rpi4")
    raw["domains"]["cpu"]["workload_activity"] = [1.3]
    with pytest.raises(ConfigError, match="workload_activity"):
        parse_board(raw, "rpi4")


def test_the_summary_keeps_the_phases(tmp_path: Path) -> None:
    from thermogov.importers import parse_log
    from thermogov.importers.runfolder import write_run_folder
    from thermogov.runs import SUMMARY_FILE

    run = write_run_folder(parse_log(_report(tmp_path)), tmp_path / "runs")
    summary = json.loads((run.run_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
    assert [name for name, _ in summary["phases"]] == ["7-zip multi core benchmark", "cpuminer"]
