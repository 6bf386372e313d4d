"""The readable trip (:mod:`thermogov.sim.compare.readable`): its terms from the profile, the exact
per-reading chance it stands for, and the oracle held under it never above the bound.

The oracle at the readable trip is a reference for a policy that must not read the trip code;
the bound a policy is tested against stays the oracle at 85 °C (``test_oracle_bound.py``).
"""

from __future__ import annotations

import dataclasses
import math
from statistics import NormalDist

import pytest

from tests.compare.short import short
from thermogov.board import SensorProfile, load_board
from thermogov.config import Config, SensorOverride, SimConfig
from thermogov.interfaces import ConfigError
from thermogov.sim.compare.oracle import oracle
from thermogov.sim.compare.readable import (
    fused_edge_c,
    fused_sensors,
    fused_sigma_c,
    read_chance,
    readable_trip,
    trip_quantile_z,
)


def _board_config(board: str, duration_s: float = 7200.0) -> Config:
    return dataclasses.replace(Config(), board=board, sim=SimConfig(duration_s=duration_s))


def test_z_is_one_reading_per_run() -> None:
    z = trip_quantile_z(0.1, 7200.0)
    assert z == pytest.approx(4.19, abs=0.01)  # docs/policies.md 18c: "about 4.2 sigmas"
    assert 1.0 - NormalDist().cdf(z) == pytest.approx(0.1 / 7200.0, rel=1e-6)
    # A longer run, or a faster read, allows a smaller chance per reading: a larger z.
    assert trip_quantile_z(0.1, 14400.0) > z > trip_quantile_z(0.1, 1800.0) > trip_quantile_z(1.0, 1800.0)
    # Two periods or less: one reading is allowed anyway, no margin under the edge.
    assert trip_quantile_z(1.0, 2.0) == 0.0 == trip_quantile_z(1.0, 1.0)


@pytest.mark.parametrize("period_s, run_s", [(0.0, 10.0), (0.1, math.nan), (0.1, math.inf), (-0.1, 10.0)])
def test_z_refuses_bad_input(period_s: float, run_s: float) -> None:
    with pytest.raises(ConfigError, match="readable trip"):
        trip_quantile_z(period_s, run_s)


@pytest.mark.parametrize(
    "board, edge_c",
    [
        ("jetson-xavier-nx", 0.25),  # 0.5 °C codes: the 85.0 code from 84.75
        ("jetson-agx-xavier", 0.25),
        ("jetson-nano", 0.25),
        ("rpi5", 0.025),  # 0.55 °C codes: the 85.25 code from 84.975
        ("rpi4", 85.0 - (175 * 0.487 - 0.487 / 2)),  # 0.487: the 85.225 code from 84.9815
        ("rpi3", 85.0 - (158 * 0.538 - 0.538 / 2)),  # 0.538: the 85.004 code from 84.735
        ("jetson-agx-orin", 0.0),  # no code declared
        ("jetson-orin-nano", 0.0),  # the battery's 0.1 °C code cannot read the trip (limit 60)
    ],
)
def test_code_edge_per_board(board: str, edge_c: float) -> None:
    cfg = _board_config(board)
    assert fused_edge_c(fused_sensors(cfg, load_board(board))) == pytest.approx(edge_c, abs=1e-9)


def test_sigma_from_weights() -> None:
    cpu = SensorProfile("cpu", 0.6, 100, 95.0, "cpu", noise_c=0.15, quant_c=0.5)
    gpu = SensorProfile("gpu", 0.3, 150, 95.0, "gpu", noise_c=0.15, quant_c=0.5)
    # Shares 2/3 and 1/3 of independent 0.15-°C noise: 0.15 * sqrt(5) / 3.
    assert fused_sigma_c([cpu, gpu]) == pytest.approx(0.15 * math.sqrt(5.0) / 3.0)
    assert fused_sigma_c([cpu]) == pytest.approx(0.15)
    # Weights are shares: scaling them all changes nothing; a noisier sensor adds by its share.
    assert fused_sigma_c([dataclasses.replace(cpu, weight=6.0), dataclasses.replace(gpu, weight=3.0)]) == (
        pytest.approx(fused_sigma_c([cpu, gpu]))
    )
    loud = dataclasses.replace(gpu, noise_c=0.45)
    assert fused_sigma_c([cpu, loud]) == pytest.approx(math.hypot(2 / 3 * 0.15, 1 / 3 * 0.45))


def test_config_weights_and_the_run_set_the_level() -> None:
    cfg = _board_config("jetson-xavier-nx", 4553.0)
    lv = readable_trip(cfg)
    assert (lv.edge_c, lv.period_s, lv.run_s) == (0.25, 0.1, 4553.0)
    assert lv.level_c == pytest.approx(
        85.0 - 0.25 - trip_quantile_z(0.1, 4553.0) * 0.15 * math.sqrt(5.0) / 3.0
    )
    # A config that fuses the GPU alone: its own sigma.
    gpu_only = dataclasses.replace(cfg, sensors={"cpu": SensorOverride(enabled=False)})
    assert readable_trip(gpu_only).sigma_c == pytest.approx(0.15)


@pytest.mark.parametrize("board", ["rpi5", "rpi4", "jetson-agx-orin"])
def test_the_level_is_exact_where_the_formula_is(board: str) -> None:
    """One coded sensor (a Pi) or uncoded ones (an Orin): one reading per run at the level."""
    cfg = _board_config(board)
    lv = readable_trip(cfg)
    sensors = fused_sensors(cfg, load_board(board))
    chance = read_chance(sensors, [lv.level_c] * len(sensors))
    assert chance == pytest.approx(lv.period_s / lv.run_s, rel=1e-4)


@pytest.mark.parametrize("gpu_over_cpu_c", [0.0, 0.3, 0.6, 1.0, -0.3])
def test_on_coarse_fused_codes_the_level_is_on_the_safe_side(gpu_over_cpu_c: float) -> None:
    """Xavier NX: the fused reading reads the trip only on combinations of codes, rarer than the
    one-edge formula says, so holding the level reads the trip less than once per run."""
    cfg = _board_config("jetson-xavier-nx")
    lv = readable_trip(cfg)
    sensors = fused_sensors(cfg, load_board("jetson-xavier-nx"))
    d = gpu_over_cpu_c
    levels = [lv.level_c - d / 3.0, lv.level_c + 2.0 * d / 3.0]  # fused true value at the level
    assert read_chance(sensors, levels) < lv.period_s / lv.run_s


def _xavier_world() -> Config:
    sim = SimConfig(duration_s=600.0, ambient_c=70.0, scenario="xavier-hot")
    return dataclasses.replace(Config(), board="jetson-xavier-nx", sim=sim)


@pytest.mark.parametrize(
    "world, binds", [("rpi5-steady-25", False), ("orin-steady-25", True), ("xavier", True)]
)
def test_the_readable_bound_is_at_most_the_free_bound(world: str, binds: bool) -> None:
    """Where the trip binds (the Orin, a 70 °C Xavier NX) the readable one is strictly lower."""
    cfg = _xavier_world() if world == "xavier" else short(world, 600.0)
    lv = readable_trip(cfg)
    assert lv.level_c < 85.0
    free = oracle(cfg).throughput_ips
    held = oracle(cfg, trip_c=lv.level_c).throughput_ips
    assert free is not None and held is not None
    assert held <= free + 1e-9
    if binds:
        assert held < free - 1e-3
