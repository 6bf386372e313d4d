"""The Jetson fans as the boards run them: the L4T kernel's trips on a Nano, nvfancontrol on an Orin Nano kit."""

from __future__ import annotations

import itertools
import math

import pytest

from thermogov.board import BoardProfile, load_board, with_enclosure
from thermogov.fan import FanCurve
from thermogov.sim.calibration.enclosure import candidates, housing_named, housing_with_fan

# The cited inputs of the Orin Nano devkit's conductance per level (jetson-orin-nano.toml).
RPM_POINTS = ((0.0, 0.0), (187.0, 4000.0), (255.0, 6000.0))  # nvfancontrol p3767 close-loop RPM column
IDLE_RPM, ANCHOR_W_PER_K, STOPPED_W_PER_K = 1756.0, 1.5, 0.35


def to_air(board: BoardProfile, node: str) -> float:
    return next(n.to_ambient_w_per_k for n in board.thermal.nodes if n.name == node)


def rpm_at(duty: float) -> float:
    for (d0, r0), (d1, r1) in itertools.pairwise(RPM_POINTS):
        if duty <= d1:
            return r0 + (r1 - r0) * (duty - d0) / (d1 - d0)
    raise AssertionError(duty)


def test_the_orin_nano_devkit_housing_is_the_devkit_profile_fan() -> None:
    """One fan table for the kit: the calibration's housing and the simulator's profile must not drift."""
    housing, kit = (
        with_enclosure(load_board("jetson-orin-nano"), "devkit"),
        load_board("jetson-orin-nano-devkit"),
    )
    assert housing.fan == kit.fan
    assert to_air(housing, "lid") == to_air(kit, "lid")
    assert load_board("jetson-orin-nano").fan is None  # the sealed default has none


def test_the_devkit_fan_conductance_rises_with_the_square_root_of_its_speed() -> None:
    fan = load_board("jetson-orin-nano-devkit").fan
    assert fan is not None
    for duty, extra in zip(fan.duty, fan.conductance_w_per_k, strict=True):
        total = max(STOPPED_W_PER_K, ANCHOR_W_PER_K * math.sqrt(rpm_at(duty) / IDLE_RPM))
        assert extra == pytest.approx(total - STOPPED_W_PER_K if duty else 0.0, abs=0.01), duty


def test_a_developer_kit_log_is_fitted_with_the_kits_fan_law() -> None:
    board = load_board("jetson-orin-nano")
    assert housing_named(board, "NVIDIA Orin Nano Developer Kit") == "devkit"
    assert housing_with_fan(board, (1756.0,)) == "devkit"
    fan = with_enclosure(board, "devkit").fan
    assert fan is not None
    # the quiet curve (pwm 0 at 35 °C rising to 187 at 74 °C): off below ~38 °C; at 52.5 °C it asks
    # pwm 84, nearest level duty 96; the top level never below 94 °C
    assert fan.default_curve.target(36.0, 0) == 0
    assert fan.duty[fan.default_curve.target(52.5, 0)] == 96
    assert fan.default_curve.target(93.0, 0) == fan.duty.index(187)


def test_the_nano_pwm_fan_is_the_l4t_kernels_law() -> None:
    nano = load_board("jetson-nano")
    housing = with_enclosure(nano, "pwm-fan")
    assert nano.fan is None  # the devkit ships without a fan
    assert housing.fan is not None
    assert housing.fan.duty == (0, 77, 130, 180, 255)  # active_pwm, quiet
    assert housing.fan.default_curve == FanCurve((51.0, 61.0, 71.0, 82.0), 12.0)
    assert housing.fan.default_period_ms == 1100  # therm_fan_est polling_period
    # stopped, the heatsink sheds what the passive board does; at full speed what the `fan` housing does
    passive, full = to_air(nano, "heatsink"), to_air(with_enclosure(nano, "fan"), "heatsink")
    assert to_air(housing, "heatsink") == passive
    assert passive + housing.fan.conductance_w_per_k[-1] == pytest.approx(full)


def test_the_nano_fan_needs_evidence() -> None:
    """The pre-fit never picks a fan (a fan fits any missing heat; the devkit ships fanless); a tachometer does."""
    nano = load_board("jetson-nano")
    assert candidates(nano) == ["passive"]  # neither the switched `pwm-fan` nor the pinned `fan`
    assert housing_with_fan(nano, (2100.0,)) == "pwm-fan"
    assert housing_with_fan(nano, ()) is None
