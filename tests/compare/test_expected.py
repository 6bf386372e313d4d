"""The expected time above the trip (:mod:`thermogov.sim.compare.expected`): the trip target
judged from the true trajectory and the sensor model instead of one seed's noise draws.

Session 19c judged ``first_arrival`` with it; a count of trip readings on one seed could not
separate two rules that hold the same level.
"""

from __future__ import annotations

import csv
import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from thermogov.board import SensorProfile, load_board
from thermogov.sim.compare.compare import TRIP_C, run_policy
from thermogov.sim.compare.expected import (
    ReadLog,
    expected_above_s,
    prob_at_or_above,
    recording_reads,
    trace_ticks,
)
from thermogov.sim.model.sensors import SimSensor
from thermogov.sim.scenarios.families import all_family_scenarios


def _sensor(name: str, weight: float, noise_c: float, quant_c: float) -> SensorProfile:
    return SensorProfile(name, weight, 100, 100.0, "die", noise_c=noise_c, quant_c=quant_c)


def _normal_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2.0))


@pytest.mark.parametrize("true_c", [84.0, 84.5, 84.75, 85.1])
def test_one_coarse_sensor_reads_the_trip_code_when_value_and_noise_pass_the_codes_lower_edge(
    true_c: float,
) -> None:
    """0.5-°C codes round to the nearest: the 85.0 code starts at 84.75."""
    prof = {"cpu": _sensor("cpu", 1.0, 0.15, 0.5)}
    p = prob_at_or_above({"cpu": np.array([true_c])}, prof, 85.0)
    assert p[0] == pytest.approx(_normal_sf((84.75 - true_c) / 0.15), abs=1e-9)


def test_two_coarse_sensors_are_fused_code_by_code_with_their_weights() -> None:
    """Nearly noiseless, so each reading is its true value's code: 85.0 and 84.5 fuse at
    (0.6 * 85 + 0.3 * 84.5) / 0.9 = 84.83, under the trip; 85.0 and 85.0 reach it."""
    prof = {"cpu": _sensor("cpu", 0.6, 1e-3, 0.5), "gpu": _sensor("gpu", 0.3, 1e-3, 0.5)}
    p = prob_at_or_above({"cpu": np.array([84.8, 84.8]), "gpu": np.array([84.6, 84.8])}, prof, 85.0)
    assert p == pytest.approx([0.0, 1.0], abs=1e-9)


def test_the_exact_sum_agrees_with_the_noise_model_drawn() -> None:
    """Two 0.5-°C sensors 0.3 °C under the trip: the enumeration against 200 000 drawn reads."""
    prof = {"cpu": _sensor("cpu", 0.6, 0.15, 0.5), "gpu": _sensor("gpu", 0.3, 0.15, 0.5)}
    cpu, gpu = 84.7, 84.6
    p = prob_at_or_above({"cpu": np.array([cpu]), "gpu": np.array([gpu])}, prof, 85.0)[0]
    rng = np.random.default_rng(7)
    n = 200_000
    rc = np.round((cpu + 0.15 * rng.standard_normal(n)) / 0.5) * 0.5
    rg = np.round((gpu + 0.15 * rng.standard_normal(n)) / 0.5) * 0.5
    drawn = float(((0.6 * rc + 0.3 * rg) / 0.9 >= 85.0 - 1e-9).mean())
    assert 0.05 < p < 0.95
    assert p == pytest.approx(drawn, abs=4.0 * math.sqrt(p * (1 - p) / n))


def test_fine_codes_on_two_sensors_take_the_normal_with_the_rounding_in_its_variance() -> None:
    """Millidegree codes on two sensors are millions of combinations: the fused reading is then
    normal, each sensor's rounding a uniform term (q^2 / 12) in its variance."""
    prof = {"a": _sensor("a", 1.0, 0.2, 0.001), "b": _sensor("b", 1.0, 0.2, 0.001)}
    p = prob_at_or_above({"a": np.array([84.8]), "b": np.array([84.8])}, prof, 85.0)[0]
    sd = math.sqrt(2 * 0.25 * (0.04 + 1e-6 / 12.0))
    assert p == pytest.approx(_normal_sf(0.2 / sd), abs=1e-9)


def test_one_fine_sensor_is_still_exact_at_its_codes_edge() -> None:
    """One millidegree sensor is 2403 codes: enumerated, so the 85.000 code starts at 84.9995."""
    prof = {"soc": _sensor("soc", 1.0, 0.2, 0.001)}
    p = prob_at_or_above({"soc": np.array([84.8])}, prof, 85.0)[0]
    assert p == pytest.approx(_normal_sf((84.9995 - 84.8) / 0.2), abs=1e-9)


def test_each_tick_counts_the_time_to_the_next_from_its_latest_read() -> None:
    """Reads at 0 and 0.25 s; ticks at 0, 0.1, 0.2, 0.3 s: the first three fuse the first read
    (certain to read the trip), the last the second (never), and the last tick counts nothing."""
    board = load_board("jetson-nano")
    board = dataclasses.replace(
        board, sensors=tuple(dataclasses.replace(s, noise_c=1e-3) for s in board.sensors)
    )
    log = ReadLog()
    for name in ("cpu", "gpu"):
        log.add(name, 0.0, 85.2)
        log.add(name, 0.25, 80.0)
    ticks = [0.0, 0.1, 0.2, 0.3]
    assert expected_above_s(log, ticks, ["cpu+gpu"] * 4, board, 85.0) == pytest.approx(0.3)
    assert expected_above_s(log, ticks, ["", "", "", ""], board, 85.0) == 0.0  # no fused value


def test_a_run_recorded_gives_the_true_values_and_leaves_the_sensor_as_it_was(tmp_path: Path) -> None:
    """A Nano world at 5 % of its length: every read logged with its lagged true value, the readings within
    noise and a code of it, and ``SimSensor.read`` restored afterwards."""
    cfg = next(
        g.config for g in all_family_scenarios(time_scale=0.05) if g.name == "board-at-trip-jetson-nano"
    )
    original = SimSensor.read
    with recording_reads() as log:
        row = run_policy(cfg, "stepped", tmp_path, None, "t")
    assert SimSensor.read is original
    assert set(log.t_s) == {"cpu", "gpu"}
    with (Path(row.run_dir) / "samples.csv").open(newline="") as fh:
        read = [(float(r["t_s"]), float(r["value_c"])) for r in csv.DictReader(fh) if r["sensor"] == "cpu"]
    assert [t for t, _ in read] == pytest.approx(log.t_s["cpu"])  # one logged value per reading
    # Each reading is its true value plus the noise (0.15 °C), rounded to a 0.5 °C code.
    worst = max(abs(v - x) for (_, v), x in zip(read, log.true_c["cpu"], strict=True))
    assert 0.0 < worst <= 0.25 + 6 * 0.15
    t, used = trace_ticks(Path(row.run_dir))
    board = cfg.load_board()
    got = expected_above_s(log, t, used, board, TRIP_C)
    assert 0.0 <= got <= t[-1]
    # On a board whose full clocks settle at the trip, the expectation over the whole run is
    # that of a run far under it for the first minutes: the start, 10 °C under, counts nothing.
    early = [x for x in t if x < 20.0]
    assert expected_above_s(log, early, used[: len(early)], board, TRIP_C) == pytest.approx(0.0, abs=1e-12)
