"""The scenario suite as data: coverage, strict parsing and the merge with a base config."""

from __future__ import annotations

import dataclasses

import pytest

from thermogov.config import SUPPLY_EVENTS, Config, SensorOverride, SimEvent
from thermogov.interfaces import ConfigError
from thermogov.sim.scenarios import load_scenario, scenario_from_data, scenario_info, scenario_names

SUITE = {n: load_scenario(n) for n in scenario_names()}


def _events(kind: str) -> list[SimEvent]:
    return [e for c in SUITE.values() for e in c.sim.events if e.kind == kind]


def test_suite_covers_the_issue_list() -> None:
    cfgs = list(SUITE.values())
    assert len(cfgs) >= 8
    assert {c.board for c in cfgs} >= {"jetson-orin-nano", "rpi5"}
    assert all(scenario_info(n).description for n in SUITE)
    plain = [c for c in cfgs if not c.sim.events and c.sim.workload.kind == "saturating"]
    assert {c.board for c in plain if c.sim.ambient_c == 25.0} >= {"jetson-orin-nano", "rpi5"}
    assert any(c.sim.ambient_c >= 40.0 for c in cfgs)
    assert any(c.sim.workload.kind == "bursty" and c.sim.workload.burst_factor > 1 for c in cfgs)
    assert _events("ambient")
    assert any(0 < e.value < 1 for e in _events("ambient_link"))  # a conductance drop
    assert any(e.duration_s == 20.0 for e in _events("sensor_dropout"))
    assert _events("sensor_stuck")
    assert any(e.value == 40.0 for e in _events("sensor_spike"))
    assert any(c.sim.duration_s >= 3600.0 for c in cfgs)


@pytest.mark.parametrize("name", sorted(SUITE))
def test_plant_events_happen_before_the_sustained_window(name: str) -> None:
    cfg = SUITE[name]
    window_start = cfg.sim.duration_s * (1 - cfg.sim.steady_fraction)
    for e in cfg.sim.events:
        if e.kind in ("ambient", "ambient_link"):
            assert e.at_s <= window_start / 2, "the plant needs time to settle before the window"
        elif e.kind in SUPPLY_EVENTS:
            continue  # a charging schedule is the world's story, from the start (battery scenarios)
        else:
            assert window_start <= e.at_s < cfg.sim.duration_s, "faults belong inside the window"


def test_the_scenario_sets_the_world_and_the_base_keeps_the_rest() -> None:
    base = dataclasses.replace(
        Config(),
        policy="stepped",
        seed=7,
        board_file="calibrated-orin.toml",
        policies={"stepped": {"margin_c": 1.0}},
        sensors={"battery": SensorOverride(enabled=False)},
        sim=dataclasses.replace(Config().sim, ambient_c=33.0, duration_s=60.0),
    )
    cfg = load_scenario("rpi5-steady-25", base)
    assert (cfg.policy, cfg.seed, cfg.policies) == ("stepped", 7, {"stepped": {"margin_c": 1.0}})
    assert cfg.board == "rpi5" and cfg.board_file == ""  # the scenario's board, not the file
    assert (cfg.sim.ambient_c, cfg.sim.duration_s, cfg.sim.scenario) == (25.0, 1800.0, "rpi5-steady-25")
    assert cfg.sensors["battery"].enabled is False


def test_unknown_scenario_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="unknown scenario 'nope'; choose one of orin-"):
        load_scenario("nope")


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (
            {"scenario": {"description": "x", "owner": "me"}},
            "scenarios/bad.toml: scenario.owner: unknown key",
        ),
        ({"sim": {"ambient": 30}}, "scenarios/bad.toml: sim.ambient: unknown key"),
        ({"sim": {"workload": {"kind": "steady"}}}, "scenarios/bad.toml: sim.workload.kind"),
        ({"run": {"policy": "turbo"}}, "unknown policy"),
    ],
)
def test_scenario_files_are_validated_strictly(data: dict[str, object], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment.replace(".", r"\.")):
        scenario_from_data("bad", data)
