"""The lever below the lowest clock: steps the load down when the lowest caps cannot hold the trip."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import pytest

from tests.cli.script import sim_refuses_config
from thermogov import costmodel
from thermogov.config import parse_config
from thermogov.interfaces import ConfigError
from thermogov.lever import Lever, LeverConfig, build_levels
from thermogov.modes import builtin_mode_costs
from thermogov.sim.model.loadlevel import sustainable_duty
from thermogov.sim.model.runner import simulate
from thermogov.sim.scenarios import load_scenario
from thermogov.trace import load_trace

MODES = ("full", "early_exit", "multires_320")


def lever(**over: object) -> Lever:
    return Lever(dataclasses.replace(LeverConfig(enabled=True), **over), 85.0, MODES)


def test_the_ladder_runs_from_the_full_load_through_the_modes_to_standby() -> None:
    levels = build_levels(LeverConfig(duty=(0.5, 0.0)), MODES)
    assert [(lv.mode_floor, lv.duty) for lv in levels] == [
        (None, 1.0),
        ("early_exit", 1.0),
        ("multires_320", 1.0),
        ("multires_320", 0.5),
        ("multires_320", 0.0),
    ]
    assert levels[-1].label() == "standby"
    assert [lv.duty for lv in build_levels(LeverConfig(duty=(0.5, 0.0), use_modes=False), MODES)] == [
        1.0,
        0.5,
        0.0,
    ]


def test_it_engages_only_when_the_caps_are_already_at_their_lowest() -> None:
    lv = lever()
    assert lv.step(0.0, 84.8, at_lowest_caps=False) == [] and lv.level == 0
    assert lv.step(0.1, 84.8, at_lowest_caps=True) == ["lever:1"]


def test_it_steps_down_once_a_dwell_and_every_tick_above_the_trip() -> None:
    lv = lever(down_dwell_s=1.0)
    lv.step(0.0, 84.6, True)
    levels = [lv.level for t in range(1, 30) if not lv.step(0.1 * t, 84.6, True) or True]
    assert levels[-1] == 3  # 0.1 s: level 1, then one more rung per second
    hot = lever(down_dwell_s=1.0)
    for t in range(5):
        hot.step(0.1 * t, 85.5, True)
    assert hot.level == 5


def test_a_temperature_between_the_thresholds_holds_the_level() -> None:
    lv = lever(down_margin_k=0.5, up_margin_k=1.5, up_dwell_s=5.0)
    lv.step(0.0, 84.6, True)
    # Oscillating across neither threshold for 10 minutes: no change at all.
    events = [lv.step(0.1 * t, 84.0 + (0.4 if t % 2 else -0.4), True) for t in range(1, 6000)]
    assert not any(events) and lv.level == 1


def test_a_temperature_oscillating_across_the_up_threshold_does_not_flap() -> None:
    lv = lever(down_margin_k=0.5, up_margin_k=1.5, up_dwell_s=5.0)
    for t in range(40):
        lv.step(0.1 * t, 84.6, True)
    start = lv.level
    moves = [lv.step(0.1 * t, 83.5 + (0.2 if t % 2 else -0.2), True) for t in range(40, 640)]
    assert sum(bool(m) for m in moves) == 0 and lv.level == start  # never 5 s continuously cool
    cool = [lv.step(0.1 * t, 80.0, True) for t in range(640, 1240)]  # a minute well below
    ups = [i for i, m in enumerate(cool) if m]
    assert len(ups) >= 2 and all(b - a >= 50 for a, b in itertools.pairwise(ups))  # >= 5 s apart


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ({"duty": [0.5, 0.7]}, "lever.duty: must be strictly descending"),
        ({"duty": [1.0, 0.5]}, "lever.duty[0]: 1 is out of range"),
        ({"duty": [0.5, float("nan")]}, "lever.duty: nan is not a finite number"),
        ({"up_margin_k": 0.5, "down_margin_k": 1.0}, "lever.up_margin_k: must be above down_margin_k"),
        ({"enabled": "yes"}, "lever.enabled: expected true or false"),
        ({"down_dwell": 1}, "lever.down_dwell: unknown key"),
    ],
)
def test_bad_lever_tables_are_refused_naming_the_key(table: dict, needle: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_config({"lever": table})
    assert needle in str(e.value)


def test_a_bad_lever_table_exits_2_through_the_installed_script(tmp_path: Path) -> None:
    sim_refuses_config(
        tmp_path, "[lever]\nenabled = true\nduty = [0.5, 0.9]\n", "lever.duty: must be strictly descending"
    )


@pytest.fixture(scope="module")
def closed_case(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("closed")
    base = load_scenario("rpi5-closed-35")
    runs = {
        "off": base,
        "duty": dataclasses.replace(base, lever=LeverConfig(enabled=True, use_modes=False)),
        "modes": dataclasses.replace(base, lever=LeverConfig(enabled=True)),
    }
    return {
        k: {"summary": (r := simulate(c, out_dir=out)).summary, "dir": r.run_dir} for k, c in runs.items()
    }


def test_without_the_lever_the_closed_case_spends_most_of_the_run_above_the_trip(closed_case: dict) -> None:
    assert closed_case["off"]["summary"]["time_above_trip_s"] > 900.0


@pytest.mark.parametrize("run", ["duty", "modes"])
def test_the_lever_holds_the_trip_after_the_first_trip(closed_case: dict, run: str) -> None:
    s = closed_case[run]["summary"]
    assert s["time_above_trip_s"] <= 5.0
    assert s["time_above_trip_after_first_excursion_s"] <= 5.0
    assert sum(s["load_level_time_s"].values()) == pytest.approx(s["duration_s"], abs=0.2)
    assert sum(s["load_level_inferences"].values()) == s["inferences_total"]
    cols = load_trace(closed_case[run]["dir"])
    assert max(cols["load_level"]) >= 2 and cols["load_level"][0] == 0
    engaged = [i for i, lv in enumerate(cols["load_level"]) if lv > 0]
    # While engaged, the clock stays at the lowest OPP: the load is cut, not the clock raised.
    assert {cols["cpu_cap_hz"][i] for i in engaged} == {1_500_000_000}
    assert any(e.startswith("lever:") for e in cols["event"] if e)


def test_the_duty_lever_sustains_nearly_the_best_constant_duty_the_trip_allows(closed_case: dict) -> None:
    """Judged against the bound: the highest duty whose steady state sits under the trip."""
    base = load_scenario("rpi5-closed-35")
    board = base.load_board()
    full = builtin_mode_costs()["full"]
    bound = sustainable_duty(board, base.sim.ambient_c, 85.0, full)
    rate = 1.0 / costmodel.inference_time_s(board.model, {"cpu": board.domain("cpu").opp_hz[0]})
    got = closed_case["duty"]["summary"]["sustained_throughput_ips"]
    assert 0.3 < bound < 1.0
    assert got >= 0.85 * bound * rate


def test_stepping_modes_first_delivers_more_inferences_and_more_accuracy(closed_case: dict) -> None:
    duty, modes = closed_case["duty"]["summary"], closed_case["modes"]["summary"]
    assert modes["inferences_total"] > 1.5 * duty["inferences_total"]
    assert modes["accuracy_weighted_inferences"] > 1.5 * duty["accuracy_weighted_inferences"]
    assert set(modes["mode_time_s"]) == set(MODES)
