"""``bench/control_quality.py --config-b FILE``: the candidate under a second config beside the
race, paired per world and seed (:mod:`thermogov.sim.compare.configbrace`).  A bad FILE is one
line naming it and the field, exit 2, before anything is simulated; a config against itself
differs by exactly zero on every paired figure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.compare.test_lead import _row as lead_row  # the lead table's fake rows
from thermogov.sim.compare import configb, configbrace
from thermogov.sim.compare.compare import RunRow

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "control_quality.py"
_SHORT = ("--scenario", "orin-steady-25", "--policy", "stepped", "--duration", "120", "--no-iso-limit")
_SHORT += ("--extend", "1", "--jobs", "1")


def _bench(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    cmd = [sys.executable, str(BENCH), *_SHORT, *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=300, check=False)


@pytest.mark.parametrize(
    ("kind", "needle"),
    [
        ("missing", "cannot read config"),
        ("[governor]\nstale_periods = nan\n", "governor.stale_periods"),
        ("[sensors.cpu]\nweight = inf\n", "sensors.cpu.weight"),
        ("[governor]\nturbo = 1\n", "governor.turbo: unknown key"),
        ("[sensors.no_such_sensor]\nweight = 1.0\n", "sensors.no_such_sensor"),
        ("directory", "b.toml"),
        ("fifo", "b.toml"),
    ],
)
def test_bad_config_b_is_one_line_exit_2_nothing_run(tmp_path: Path, kind: str, needle: str) -> None:
    conf = tmp_path / "b.toml"
    if kind == "directory":
        conf.mkdir()
    elif kind == "fifo":
        os.mkfifo(conf)
    elif kind != "missing":
        conf.write_text(kind)
    p = _bench("--config-b", str(conf), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert lines[0].startswith(f"control_quality.py: --config-b: {conf}") and needle in lines[0], lines[0]
    assert p.stdout == "" and not (tmp_path / "out").exists()


def test_config_b_with_generated_worlds_is_refused(tmp_path: Path) -> None:
    conf = tmp_path / "b.toml"
    conf.write_text("[sensors.cpu]\nweight = 1.2\n")
    p = _bench("--config-b", str(conf), "--families", "--no-suite", cwd=tmp_path)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().startswith("control_quality.py: --config-b:") and "--families" in p.stderr


def test_defaults_against_themselves_differ_by_exactly_zero(tmp_path: Path) -> None:
    """An empty FILE is the defaults, the race's own config: every paired figure is 0 on every seed."""
    conf = tmp_path / "same.toml"
    conf.write_text("")
    p = _bench("--config-b", str(conf), "--seeds", "1,2", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    block = p.stdout[p.stdout.index("config B, candidate only:") :].splitlines()
    (ips,) = [ln for ln in block if ln.strip().startswith("orin-steady-25 ") and "A-B" in ln]
    assert "A-B +0.00 ±0.00 [+0.00..+0.00] (+0.00 %)  seeds 1,2" in ips
    for label in ("s above trip", "mJ/inference"):
        (line,) = [ln for ln in block if ln.strip().startswith(label)]
        assert "A-B +0.00 ±0.00 [+0.00..+0.00]" in line, line


def _row(world: str, seed: int, ips: float, trip_s: float, energy: float | None) -> RunRow:
    return lead_row(
        "stepped",
        ips,
        bound=2 * ips,
        scenario=f"{world}-s{seed}",
        seed=seed,
        above_trip_s=trip_s,
        energy_per_inference_j=energy,
    )


def test_block_pairs_every_figure_and_reads_both_arms_against_the_baseline() -> None:
    """Per seed A - B of throughput, seconds above the trip and energy (a seed without an energy
    figure is left out of that figure alone), and each arm's lead over the table's baseline."""
    worlds = {"w-s1": ("w", 1), "w-s2": ("w", 2)}
    rows_a = [_row("w", 1, 100.0, 3.0, 0.030), _row("w", 2, 102.0, 1.0, 0.032)]
    rows_b = [_row("w", 1, 98.0, 1.0, 0.029), _row("w", 2, 101.0, 0.0, None)]
    arms = configbrace.Arms(configb.paired(rows_a, rows_b, worlds), rows_a, rows_b, worlds)
    (pair,) = arms.pairs
    assert pair.diff.low == 1.0 and pair.diff.high == 2.0 and pair.seeds == (1, 2)
    assert pair.others["above_trip_s"] is not None and pair.others["above_trip_s"].diff.mean == 1.5
    energy = pair.others["energy_per_inference_j"]
    assert energy is not None and energy.seeds == (1,) and energy.diff.half_width is None
    text = configbrace.lines(arms, ("defaults", "b.toml"), {"w": ("step_wise@iso", 95.0)})
    assert any("step_wise@iso 95.00" in ln and "A +6.32 %" in ln and "B +4.74 %" in ln for ln in text)
    assert any(ln.strip().startswith("mJ/inference") and "seeds 1" in ln for ln in text)
    assert any("A 50.0 %" in ln and "B 50.0 %" in ln for ln in text)
