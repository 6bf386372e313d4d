"""`thermogov compare --config-b`: the installed script refuses a bad file with one line (exit 2,
nothing run or written), and a config paired against itself differs by exactly zero."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov

_RUN = ("compare", "--scenario", "orin-steady-25", "--policy", "stepped", "--no-oracle", "--duration", "60")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (None, "cannot read config"),
        ("x = [\n", "malformed TOML"),
        ("[governor]\nstale_periods = nan\n", "governor.stale_periods"),
        ("[governor]\nturbo = 1\n", "governor.turbo: unknown key"),
        ("[sensors.cpu]\nweight = inf\n", "sensors.cpu.weight"),
    ],
)
def test_bad_config_b_is_one_line_exit_2_nothing_run(tmp_path: Path, text: str | None, needle: str) -> None:
    conf = tmp_path / "b.toml"
    if text is not None:
        conf.write_text(text)
    p = thermogov(*_RUN, "--config-b", str(conf), "--out", str(tmp_path / "out"), cwd=tmp_path)
    line = one_line_error(p, needle)
    assert f"--config-b: {conf}" in line
    assert p.stdout == "" and not (tmp_path / "out").exists() and not (tmp_path / "compare.csv").exists()


def test_config_b_with_a_sensor_the_world_lacks_is_refused(tmp_path: Path) -> None:
    """A sensor the scenario's board lacks: resolved against the world before anything runs."""
    conf = tmp_path / "b.toml"
    conf.write_text("[sensors.no_such_sensor]\nweight = 1.0\n")
    p = thermogov(*_RUN, "--config-b", str(conf), "--out", str(tmp_path / "out"), cwd=tmp_path)
    one_line_error(p, "sensors.no_such_sensor")
    assert not (tmp_path / "out").exists()


def test_config_against_itself_differs_by_exactly_zero(tmp_path: Path) -> None:
    conf = tmp_path / "a.toml"
    conf.write_text("[sensors.cpu]\nweight = 1.2\n")
    p = thermogov(
        *_RUN, "--seed", "1,2", "--config", str(conf), "--config-b", str(conf), "--json", cwd=tmp_path
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    (pair,) = doc["paired"]["rows"]
    assert pair["seeds"] == [1, 2] and pair["mean_a_ips"] > 0
    assert pair["diff_ips"] == 0.0 and pair["half_width_ips"] == 0.0
    assert pair["min_diff_ips"] == pair["max_diff_ips"] == 0.0
    assert len(doc["rows"]) == 4  # each seed's A row and its B row
    for key in ("above_trip_s", "energy_per_inference_j"):  # paired like the throughput
        other = pair[key]
        assert other["seeds"] == [1, 2] and other["mean_a"] == other["mean_b"], key
        assert other["diff"] == other["half_width"] == other["min_diff"] == other["max_diff"] == 0.0, key
    assert pair["energy_per_inference_j"]["mean_a"] > 0


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_config_b_that_is_not_a_file_is_one_line_exit_2(tmp_path: Path, kind: str) -> None:
    conf = tmp_path / "b.toml"
    if kind == "directory":
        conf.mkdir()
    else:
        os.mkfifo(conf)
    p = thermogov(*_RUN, "--config-b", str(conf), "--out", str(tmp_path / "out"), cwd=tmp_path, timeout=60)
    line = one_line_error(p, "b.toml")
    assert "--config-b" in line
    assert p.stdout == "" and not (tmp_path / "out").exists() and not (tmp_path / "compare.csv").exists()


def test_config_b_table_shows_each_pair_and_its_interval(tmp_path: Path) -> None:
    conf = tmp_path / "b.toml"
    conf.write_text("[sensors.cpu]\nweight = 1.8\n")
    p = thermogov(*_RUN, "--seed", "1,2", "--config-b", str(conf), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "stepped [defaults]" in p.stdout and "stepped [b.toml]" in p.stdout
    (line,) = [ln for ln in p.stdout.splitlines() if ln.strip().startswith("orin-steady-25 ")]
    assert "A-B " in line and "±" in line and "seeds 1,2" in line
    trip, energy = (ln.split() for ln in p.stdout.splitlines()[-3:-1])
    assert trip[:3] == ["s", "above", "trip"] and "A-B" in trip and "±" in " ".join(trip)
    assert energy[0] == "mJ/inference" and "A-B" in energy and "±" in " ".join(energy)
