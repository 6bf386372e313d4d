"""The generated scenario families are the worlds they claim to be, on the boards they claim."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest

from thermogov.board import builtin_board_names, load_board
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.sim.compare.compare import run_policy
from thermogov.sim.model.runner import validate_events
from thermogov.sim.scenarios import families as fam


def test_every_family_generates_valid_worlds_with_unique_names() -> None:
    worlds = fam.all_family_scenarios(time_scale=0.05)
    assert {g.family for g in worlds} == set(fam.FAMILIES)
    assert len({g.name for g in worlds}) == len(worlds)
    for g in worlds:
        validate_events(g.config, g.config.load_board())
        assert g.config.sim.scenario == g.name
        assert all(e.at_s <= g.config.sim.duration_s for e in g.config.sim.events)
        # Holdable: at the world's warmest ambient the lowest caps settle under the trip.
        board = load_board(g.config.board)
        if g.family == "fan-failure":
            board = fam.fan_stopped(board)
        warmest = max(
            [g.config.sim.ambient_c, *(e.value for e in g.config.sim.events if e.kind == "ambient")]
        )
        assert fam.lowest_clocks_fused_c(board, Config(), warmest) <= fam.TRIP_C - fam.HOLD_MARGIN_C + 1e-9, (
            g.name
        )


def test_fan_failure_covers_every_board_with_a_fan_and_only_those() -> None:
    fan_boards = {n for n in builtin_board_names() if fam.has_fan(load_board(n))}
    assert fan_boards, "no profile has a fan: the family would be empty"
    worlds = fam.family_scenarios("fan-failure", time_scale=0.05)
    assert {g.config.board for g in worlds} == fan_boards
    kinds = set()
    for g in worlds:
        (ev,) = g.config.sim.events
        board = load_board(g.config.board)
        kinds.add(ev.kind)
        if board.fan is not None:  # a modelled fan stalls (the simulator's fan model)
            assert ev.kind == "fan_stall"
            assert fam.fan_stopped(board) is board
        else:  # a fan folded into a conductance: that conductance falls to its still-air share
            assert ev.kind == "ambient_link" and ev.value == fam.FAN_OFF_FACTOR
            assert ev.target == fam.fan_node(board)
        # Once the fan stops, full clocks must reach the trip at that ambient.
        assert fam.full_clocks_fused_c(fam.fan_stopped(board), Config(), g.config.sim.ambient_c) >= fam.TRIP_C
    assert kinds == {"fan_stall", "ambient_link"}  # both kinds of fan among the built-in profiles


def test_has_fan_reads_the_profile_not_a_list() -> None:
    orin = load_board("jetson-orin-nano")
    assert not fam.has_fan(dataclasses.replace(orin, description="sealed box, no fan"))
    assert not fam.has_fan(dataclasses.replace(orin, description="closed case without cooler or fan"))
    assert fam.has_fan(dataclasses.replace(orin, description="devkit, heatsink + fan"))


def test_board_at_trip_worlds_reach_the_trip_at_full_clocks() -> None:
    worlds = fam.family_scenarios("board-at-trip", time_scale=0.05)
    assert len(worlds) >= 3
    for g in worlds:
        board = load_board(g.config.board)
        amb = g.config.sim.ambient_c
        full = fam.full_clocks_fused_c(board, Config(), amb)
        # OVER_TRIP_C above the trip, unless that needs an ambient where the lowest caps no longer
        # hold it (the world is then shifted down to the warmest one they hold, as every family
        # is): full clocks must still reach the trip there (session 14's rpi4: 89.4 °C at 57 °C).
        if amb == fam.holdable_ambient_c(board, Config()):
            assert full >= fam.TRIP_C
        else:
            assert full >= fam.TRIP_C + fam.OVER_TRIP_C
    left_out = set(builtin_board_names()) - {g.config.board for g in worlds}
    for name in left_out:  # only boards that cannot reach it at any ambient considered
        assert fam.trip_ambient_c(load_board(name), Config()) is None


@pytest.mark.parametrize("family", ["ambient-ramp-up", "ambient-ramp-down", "day-night"])
def test_ambient_paths_move_in_small_steps_between_their_ends(family: str) -> None:
    for g in fam.family_scenarios(family, time_scale=0.5):
        temps = [g.config.sim.ambient_c, *(e.value for e in g.config.sim.events)]
        steps = [b - a for a, b in itertools.pairwise(temps)]
        assert max(abs(s) for s in steps) <= 1.1 * fam.AMBIENT_STEP_C
        span = max(temps) - min(temps)
        if family == "day-night":
            assert span == pytest.approx(fam.DAY_HIGH_C - fam.DAY_LOW_C, abs=0.5)
            assert abs(temps[-1] - temps[0]) <= 1.0  # back to night
        else:
            assert span == pytest.approx(fam.RAMP_HIGH_C - fam.RAMP_LOW_C, abs=1e-6)
            assert all(s > 0 for s in steps) if family.endswith("up") else all(s < 0 for s in steps)


def test_load_switch_alternates_saturation_and_a_light_poisson_load() -> None:
    from thermogov import costmodel

    for g in fam.family_scenarios("load-switch", time_scale=0.1):
        w = g.config.sim.workload
        board = load_board(g.config.board)
        cap = 1.0 / costmodel.inference_time_s(board.model, {d.name: d.opp_hz[-1] for d in board.domains})
        assert w.kind == "bursty" and w.burst_duty == 0.5
        assert w.rate_ips < cap < w.rate_ips * w.burst_factor  # Poisson below, saturated above


def test_bad_family_or_scale_is_one_config_error() -> None:
    with pytest.raises(ConfigError, match="family"):
        fam.family_scenarios("nope")
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ConfigError, match="time_scale"):
            fam.family_scenarios("day-night", time_scale=bad)


def test_a_generated_world_runs_and_heats_the_board_to_the_trip(tmp_path) -> None:
    (g,) = fam.family_scenarios("board-at-trip", time_scale=0.2, boards=["jetson-orin-nano"])
    row = run_policy(g.config, "performance", tmp_path, label=g.name)
    assert row.scenario == g.name and row.max_fused_c is not None and row.max_fused_c >= fam.TRIP_C
