"""A network parameter a fleet log's fit left on its hard bound is not pooled (fleetbound.py)."""

from __future__ import annotations

import math

import pytest

from thermogov.sim.calibration.fit import FittedParam
from thermogov.sim.calibration.fleet import fleet_fit, loo_ratios
from thermogov.sim.calibration.fleetbound import on_network_bound
from thermogov.sim.calibration.model import POWER_BOUND, THERMAL_BOUND


def _param(name: str, factor: float, prior: float = 2.0) -> FittedParam:
    return FittedParam(name, "", prior, prior * factor, 0.01 * prior, "data")


@pytest.mark.parametrize("name", ["C[package]", "G[cpu-package]", "G[heatsink-ambient]"])
@pytest.mark.parametrize("factor", [THERMAL_BOUND, 1.0 / THERMAL_BOUND])
def test_either_side_of_a_network_bound_is_on_it(name: str, factor: float) -> None:
    assert on_network_bound(_param(name, factor))


@pytest.mark.parametrize("factor", [1.0, 3.0, 1.0 / 3.0, 0.9 * THERMAL_BOUND, 1.1 / THERMAL_BOUND])
def test_inside_the_bounds_is_not_on_them(factor: float) -> None:
    assert not on_network_bound(_param("G[cpu-package]", factor))


@pytest.mark.parametrize("name", ["static_scale", "dyn_scale[cpu]"])
def test_power_scales_are_not_checked(name: str) -> None:
    assert not on_network_bound(_param(name, POWER_BOUND))
    assert not on_network_bound(_param(name, THERMAL_BOUND))


def test_a_pinned_network_parameter_leaves_the_fleet_and_the_rest_stays() -> None:
    params = [
        _param("C[package]", THERMAL_BOUND),  # on its bound: the bound set it
        _param("G[cpu-package]", 1.0 / THERMAL_BOUND),
        _param("G[gpu-package]", 1.6),  # determined by the data
        _param("static_scale", POWER_BOUND),  # a power scale: not this rule's
    ]
    got = fleet_fit("pinned.csv", "jetson-agx-orin", "default", params)
    assert set(got.ratios) == {"G[gpu-package]", "static_scale"}
    assert got.ratios["G[gpu-package]"] == pytest.approx(math.log(1.6))


def test_another_log_keeps_its_profile_prior_where_the_only_evidence_was_pinned() -> None:
    pinned = fleet_fit("pinned.csv", "jetson-agx-orin", "default", [_param("C[package]", THERMAL_BOUND)])
    fine = fleet_fit("fine.log", "jetson-agx-orin", "default", [_param("C[package]", 2.0)])
    assert loo_ratios([pinned], "jetson-agx-orin", leave_out="other.log") == {}
    got = loo_ratios([pinned, fine], "jetson-agx-orin", leave_out="other.log")
    assert got == {"C[package]": (pytest.approx(math.log(2.0) / 2), 1)}
