"""`thermogov sim` and `thermogov boards` through the real entry point (exit codes, one-line errors)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cliutil import run_cli


def test_sim_writes_a_run_folder_and_prints_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(["sim", "--duration", "30s", "--out", str(tmp_path)], capsys)
    assert code == 0
    assert "sustained throughput" in out and "run folder" in out
    (run_dir,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert {p.name for p in run_dir.iterdir()} == {"trace.csv", "samples.csv", "summary.json", "config.toml"}
    assert (tmp_path / "runs.csv").exists()


def test_sim_json_and_overrides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["sim", "--board", "rpi5", "--duration", "1m", "--ambient", "35", "--policy", "fixed:1800"]
    code, out, _ = run_cli([*args, "--seed", "4", "--out", str(tmp_path), "--json"], capsys)
    assert code == 0
    s = json.loads(out)
    assert (s["board"], s["policy"], s["seed"], s["duration_s"], s["ambient_c"]) == (
        "rpi5",
        "fixed:1800",
        4,
        60.0,
        35.0,
    )
    assert list(s["max_sensor_c"]) == ["cpu"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--board", "jetson-tx9"], "--board: unknown board 'jetson-tx9'"),
        (["--duration", "-10"], "--duration:"),
        (["--duration", "10 fortnights"], "--duration:"),
        (["--policy", "turbo"], "--policy: unknown policy 'turbo'"),
        (["--policy", "fixed:fast"], "fixed: cannot read"),
        (["--policy", "fixed:gpu=333"], "not an OPP of gpu"),
        (["--ambient", "400"], "--ambient"),
    ],
)
def test_bad_cli_input_is_one_line_and_exit_2(
    args: list[str], fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _out, err = run_cli(["sim", *args, "--out", str(tmp_path)], capsys)
    assert code == 2
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert not any(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize(
    ("toml", "fragment"),
    [
        ("[run\nboard='x'", "malformed TOML"),
        ("[run]\nbored = 'rpi5'\n", "run.bored: unknown key"),
        ("[policies.hysteresis]\ntrip_c = 70\nrelease_c = 75\n", "release_c"),
        ("[sensors.cpu]\nweight = 0\n", "sensors.cpu.weight"),
        ("[sensors.cpu]\nweight = -0.5\n", "sensors.cpu.weight"),
        ("[run]\nboard = 'nosuch'\n", "unknown board 'nosuch'"),
    ],
)
def test_bad_config_files_are_one_line_and_exit_2(
    toml: str, fragment: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(toml)
    out_dir = tmp_path / "out"
    code, _, err = run_cli(["sim", "--config", str(cfg), "--duration", "5s", "--out", str(out_dir)], capsys)
    assert code == 2, err
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert not out_dir.exists()


def test_boards_lists_profiles_with_sensors_domains_and_opps(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["boards", "--json"], capsys)
    assert code == 0
    boards = {b["name"]: b for b in json.loads(out)}
    assert {"jetson-orin-nano", "rpi5"} <= set(boards)
    orin = boards["jetson-orin-nano"]
    assert [(s["name"], s["weight"], s["period_ms"]) for s in orin["sensors"]] == [
        ("cpu", 0.6, 100),
        ("gpu", 0.3, 150),
        ("battery", 0.1, 200),
    ]
    assert boards["rpi5"]["domains"][0]["opp_mhz"] == [1500.0 + 100 * i for i in range(10)]


def test_console_script_exit_status(tmp_path: Path) -> None:
    p = subprocess.run(
        [sys.executable, "-m", "thermogov.cli", "sim", "--board", "x", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    assert p.stderr.startswith("thermogov: error: --board")
