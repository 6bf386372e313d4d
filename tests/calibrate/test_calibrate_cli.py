"""``thermogov calibrate``: a profile is written that ``thermogov sim --board FILE`` accepts;
bad input costs one line on stderr, exit 2, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from tests.cliutil import run_cli
from thermogov.board import load_board, load_board_file
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.calibrate import LogData, derive_inputs, infer_step
from thermogov.sim.calibration.steptest import step_log, with_thermal


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    truth = with_thermal(load_board("rpi4"), {"board": 90.0}, {}, {"board": 0.22})
    log = step_log(truth, idle_s=120, load_s=600, cool_s=300)
    return write_run_folder(log, tmp_path_factory.mktemp("runs")).run_dir


def test_calibrate_writes_a_profile_that_sim_accepts(
    run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "profiles"
    code, stdout, err = run_cli(["calibrate", str(run_dir), "--board", "rpi4", "--out", str(folder)], capsys)
    assert code == 0
    assert "RMSE held-out tail" in stdout and "G[board-ambient]" in stdout
    out = folder / "rpi4-calibrated.toml"  # --out is a folder, as in every command
    written = load_board_file(out)
    assert written.name == "rpi4-calibrated"
    # the board's identity is the base profile's: its device-tree models and SoC family
    assert (written.dt_models, written.dt_socs) == (load_board("rpi4").dt_models, load_board("rpi4").dt_socs)
    # progress on stderr, one line per stage, the fit's starts among them
    stages = [ln for ln in err.splitlines() if ln.startswith("calibrate [")]
    assert any("fit pass 1/2: start 1/3" in ln for ln in stages)
    assert any("fit pass 2/2" in ln for ln in stages) and any("steady state" in ln for ln in stages)
    code, stdout, _ = run_cli(
        ["sim", "--board", str(out), "--duration", "3", "--out", str(tmp_path / "t")], capsys
    )
    assert code == 0 and "rpi4-calibrated" in stdout


def test_json_output_and_default_location(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, err = run_cli(
        ["calibrate", str(run_dir), "--board", "rpi4", "--json", "--holdout", "0.25"], capsys
    )
    assert code == 0
    assert "calibrate [" not in err  # --json: no progress lines
    doc = json.loads(stdout)
    assert Path(doc["profile"]) == run_dir / "rpi4-calibrated.toml"
    assert doc["holdout_from_s"] == pytest.approx(0.75 * 1019, abs=1.0)
    names = {p["name"] for p in doc["params"]}
    assert {"C[board]", "G[board-ambient]", "dyn_scale[cpu]", "ambient"} <= names
    assert doc["rmse_holdout_c"] < 0.6


def test_json_carries_the_held_out_forecast_beside_the_readings(
    run_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The series is what the RMSE was computed from: every held-out reading once, none before the split."""
    code, stdout, _ = run_cli(
        ["calibrate", str(run_dir), "--board", "rpi4", "--json", "--holdout", "0.25"], capsys
    )
    assert code == 0
    doc = json.loads(stdout)
    held = doc["held_out"]
    t, measured, predicted = (np.array(held[k]) for k in ("t_s", "measured_c", "predicted_c"))
    assert len(t) == len(measured) == len(predicted) > 10
    assert t.min() > doc["holdout_from_s"] and np.all(np.diff(t) > 0)
    trace = np.genfromtxt(run_dir / "trace.csv", delimiter=",", names=True)
    since = trace["t_s"] - trace["t_s"][0]
    assert len(t) == int(np.sum(since > doc["holdout_from_s"]))  # the log's held-out rows, all of them
    rmse = float(np.sqrt(np.mean((predicted - measured) ** 2)))
    assert rmse == pytest.approx(doc["rmse_holdout_c"], abs=2e-3)
    assert not np.allclose(predicted, measured)  # a forecast, not the readings echoed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["calibrate", "/nonexistent/run", "--board", "rpi4"], "no such run folder"),
        (["calibrate", "{run}", "--board", "nosuchboard"], "unknown board"),
        (["calibrate", "{run}", "--board", "rpi4", "--holdout", "1.5"], "--holdout"),
        (["calibrate", "{run}", "--board", "rpi4", "--ambient", "120"], "--ambient"),
        (
            ["calibrate", "{run}", "--board", "rpi4", "--out", "{run}/summary.json/sub"],
            "--out: cannot create",
        ),
        (["calibrate", "{run}", "--board", "rpi4", "--out", "{run}/b.toml"], "--out names a folder"),
        (["calibrate", "{run}", "--board", "{run}/trace.csv"], "not a board profile TOML"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(p.name for p in run_dir.iterdir())
    code, _, err = run_cli([a.replace("{run}", str(run_dir)) for a in args], capsys)
    assert code == 2
    assert err.count("\n") == 1 and message in err
    assert sorted(p.name for p in run_dir.iterdir()) == before


def test_missing_load_is_inferred_from_the_clock() -> None:
    board = load_board("rpi4")
    t = np.arange(100.0)
    f = np.where((t >= 30) & (t < 70), 1.5e9, 0.6e9)
    data = LogData(t, {"cpu": np.full(100, 50.0)}, {"cpu": f}, {}, None, "x")
    inputs = derive_inputs(data, board)
    assert inputs.load["cpu"].tolist() == ((t >= 30) & (t < 70)).astype(float).tolist()
    assert inputs.varying == ("cpu",)


def test_step_inference_finds_edges_and_refuses_a_flat_trace() -> None:
    t = np.arange(0.0, 600.0, 2.0)
    temp = 40.0 + np.where(t >= 150, 8.0 * (1 - np.exp(-(t - 150) / 5.0)), 0.0)
    temp -= np.where(t >= 450, 8.0 * (1 - np.exp(-(t - 450) / 5.0)), 0.0)
    on, off = infer_step(t, temp) or (0.0, 0.0)
    assert on == pytest.approx(150.0, abs=2.0) and off == pytest.approx(450.0, abs=2.0)
    assert infer_step(t, np.full(len(t), 40.0) + 0.1 * np.sin(t)) is None


def test_a_log_whose_sensors_the_board_lacks_is_refused() -> None:
    from thermogov.interfaces import ConfigError
    from thermogov.sim.calibration.calibrate import sensor_nodes

    t = np.arange(20.0)
    data = LogData(t, {"soc9": np.full(20, 40.0), "aux": np.full(20, 41.0)}, {}, {}, None, "x.log")
    with pytest.raises(ConfigError, match="none of the log's sensors"):
        sensor_nodes(data, load_board("jetson-orin-nano"))
    # zone-type aliases match: CPU-therm is the profile's cpu sensor
    data = LogData(t, {"cpu_therm": np.full(20, 40.0), "aux": np.full(20, 41.0)}, {}, {}, None, "x.log")
    assert sensor_nodes(data, load_board("jetson-orin-nano")) == {"cpu_therm": "cpu"}
