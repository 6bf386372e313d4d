"""Fleet priors: leave-one-out pooling of other logs' fits, applied to every housing of a profile."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from thermogov.board import BoardProfile, ThermalNode, load_board, with_enclosure
from thermogov.importers.runfolder import write_run_folder
from thermogov.sim.calibration.calibrate import calibrate, load_log_data
from thermogov.sim.calibration.fit import FittedParam
from thermogov.sim.calibration.fleet import (
    FleetFit,
    board_side_nodes,
    fleet_fit,
    loo_ratios,
    product_of,
    with_ratios,
)
from thermogov.sim.calibration.steptest import step_log, with_thermal


def _node(board: BoardProfile, name: str) -> ThermalNode:
    return next(n for n in board.thermal.nodes if n.name == name)


def test_leave_one_out_never_uses_the_log_under_test() -> None:
    fits = [
        FleetFit("a.log", "rpi4", "bare", {"C[board]": math.log(50.0)}),  # the log under test: wild
        FleetFit("b.log", "rpi4", "bare", {"C[board]": math.log(2.0)}),
        FleetFit("c.log", "rpi5", "bare", {"C[board]": math.log(0.1)}),  # another board
    ]
    got = loo_ratios(fits, "rpi4", leave_out="a.log")
    assert got == {"C[board]": (pytest.approx(math.log(2.0) / 2), 1)}  # b only, shrunk half way
    assert loo_ratios(fits[:1], "rpi4", leave_out="a.log") == {}  # alone: the profile's priors
    # the same log twice in the fleet (two copies of one file) is left out both times
    assert loo_ratios([fits[0], fits[0]], "rpi4", leave_out="a.log") == {}


def test_the_profile_counts_as_one_more_observation() -> None:
    fits = [FleetFit(f"{i}.log", "rpi4", "bare", {"dyn_scale[cpu]": math.log(0.5)}) for i in range(4)]
    mean, n = loo_ratios(fits, "rpi4", leave_out="x.log")["dyn_scale[cpu]"]
    assert n == 4 and mean == pytest.approx(4 * math.log(0.5) / 5)


def test_paths_to_ambient_are_pooled_per_housing() -> None:
    fits = [
        FleetFit("a", "rpi4", "bare", {"G[board-ambient]": math.log(2.0)}),
        FleetFit("b", "rpi4", "fan-heatsink", {"G[board-ambient]": math.log(0.5)}),
    ]
    board = with_ratios(load_board("rpi4"), loo_ratios(fits, "rpi4", leave_out="x"))
    base = load_board("rpi4")
    for housing, factor in (("bare", math.sqrt(2.0)), ("fan-heatsink", math.sqrt(0.5)), ("case", 1.0)):
        new = _node(with_enclosure(board, housing), "board").to_ambient_w_per_k
        old = _node(with_enclosure(base, housing), "board").to_ambient_w_per_k
        assert new == pytest.approx(old * factor), housing


def test_with_ratios_scales_capacitance_power_and_idle_in_every_housing() -> None:
    base = load_board("rpi4")
    ratios = {
        "C[board]": (math.log(2.0), 3),
        "dyn_scale[cpu]": (math.log(0.5), 3),
        "static_scale": (math.log(1.5), 3),
    }
    board = with_ratios(base, ratios)
    for housing in [base.enclosure, *(e.name for e in base.enclosures)]:
        new, old = with_enclosure(board, housing), with_enclosure(base, housing)
        assert _node(new, "board").capacitance_j_per_k == pytest.approx(
            2.0 * _node(old, "board").capacitance_j_per_k
        )
        assert _node(new, "package").capacitance_j_per_k == _node(old, "package").capacitance_j_per_k
    assert board.domain("cpu").c_dyn_uw_per_mhz_v2 == pytest.approx(
        0.5 * base.domain("cpu").c_dyn_uw_per_mhz_v2
    )
    assert board.domain("cpu").idle_w == pytest.approx(1.5 * base.domain("cpu").idle_w)
    assert board.thermal.rest_of_board_w == pytest.approx(1.5 * base.thermal.rest_of_board_w)


def test_only_parameters_the_data_determined_are_pooled() -> None:
    params = [
        FittedParam("C[board]", "J/K", 100.0, 50.0, 5.0, "data"),
        FittedParam("C[package]", "J/K", 1.5, 3.0, 3.0, "prior"),
        FittedParam("ambient", "°C", 25.0, 27.0, 0.5, "data"),  # one run's, never pooled
    ]
    assert fleet_fit("a.log", "rpi4", "bare", params).ratios == {"C[board]": pytest.approx(math.log(0.5))}


def test_a_fleet_moves_a_wrong_prior_toward_the_truth(tmp_path: Path) -> None:
    """Two logs of a board whose profile overstates the board's heat capacity by 2.5x: their
    pooled correction moves the prior toward the truth before any fit of a third log."""
    prior = with_enclosure(load_board("rpi4"), "bare")
    true_cap = 0.4 * _node(prior, "board").capacitance_j_per_k
    truth = with_thermal(prior, {"board": true_cap}, {}, {})
    fits = []
    for seed in (1, 2):
        log = step_log(truth, idle_s=120.0, load_s=600.0, cool_s=400.0, seed=seed)
        run = write_run_folder(log, tmp_path / f"runs{seed}")
        r = calibrate(load_log_data(run.run_dir), prior, holdout=0.0, select=False)
        fits.append(fleet_fit(f"log{seed}", prior.name, prior.enclosure, r.params))
    corrected = with_ratios(prior, loo_ratios(fits, prior.name, leave_out="log3"))
    before = abs(math.log(_node(prior, "board").capacitance_j_per_k / true_cap))
    after = abs(math.log(_node(corrected, "board").capacitance_j_per_k / true_cap))
    assert after < 0.5 * before  # two logs and the profile: two thirds of the way


def test_another_product_on_the_same_soc_shares_the_chip_not_the_board() -> None:
    """A Pi 400 on the rpi4 profile: its die and package pool with the Pi 4 B logs; its board
    mass, board links, paths to air and power scales (wall readings of one board) do not."""
    nodes = board_side_nodes(load_board("rpi4"))
    assert "board" in nodes and "package" not in nodes
    chip = {"C[package]": math.log(2.0), "G[cpu-package]": math.log(0.5), "C[cpu]": math.log(1.1)}
    board_side = {
        "C[board]": math.log(0.5),
        "G[package-board]": math.log(3.0),
        "dyn_scale[cpu]": math.log(1.2),
        "static_scale": math.log(1.5),
    }
    pi4b = FleetFit("b.log", "rpi4", "metal-case", {**chip, **board_side}, "rpi4")
    pi400 = FleetFit("p.log", "rpi4", "metal-case", {**chip, "G[board-ambient]": math.log(4.0)}, "rpi400")
    for_400 = loo_ratios([pi4b, pi400], "rpi4", leave_out="p.log", product="rpi400", board_nodes=nodes)
    assert set(for_400) == set(chip)  # the Pi 4 B's board says nothing of the Pi 400's
    for_4b = loo_ratios([pi4b, pi400], "rpi4", leave_out="b.log", product="rpi4", board_nodes=nodes)
    assert set(for_4b) == set(chip)  # nor the other way (G[board-ambient]@metal-case included)
    # two logs of one product pool everything, as before
    twin = FleetFit("q.log", "rpi4", "metal-case", board_side, "rpi400")
    assert set(loo_ratios([twin, pi400], "rpi4", "p.log", "rpi400", nodes)) == set(board_side)
    # without a product (every log the profile's own board) nothing is held apart
    assert set(loo_ratios([pi4b], "rpi4", leave_out="x.log")) == set(chip) | set(board_side)


def test_the_product_a_log_names() -> None:
    assert product_of("Raspberry Pi 400 Rev 1.0", "rpi4") == "rpi400"
    assert product_of("RPi 4 Model B Rev 1.4 / BCM2711 rev B0", "rpi4") == "rpi4"
    assert product_of("", "rpi4") == "rpi4"  # names none: the profile's own board
    assert product_of("Raspberry Pi Compute Module 5 Rev 1.0", "rpi5") == "rpi-cm5"
    assert product_of("Raspberry Pi 400 Rev 1.0", "rpi5") == "rpi5"  # not a product that profile serves
    assert fleet_fit("a.log", "rpi4", "bare", []).product == "rpi4"
