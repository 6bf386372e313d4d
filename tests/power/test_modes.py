"""Inference modes: the table, its hysteresis and dwell, the cost each mode has in the simulator."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import pytest

from tests.cli.script import sim_refuses_config, thermogov
from thermogov import costmodel
from thermogov.board import load_board
from thermogov.config import Config, SimConfig, SimEvent, parse_config
from thermogov.interfaces import ConfigError, PowerStatus
from thermogov.modes import ModeSelector, builtin_mode_costs, parse_modes
from thermogov.sim.model.loadlevel import scaled_model
from thermogov.sim.model.runner import simulate
from thermogov.tomlcheck import Table
from thermogov.trace import load_trace


def selector(**over: object) -> ModeSelector:
    return ModeSelector(parse_modes(Table({"enabled": True, **over}, "modes")))


def discharging(pct: float) -> PowerStatus:
    return PowerStatus("discharging", pct)


def changes(modes: list[str]) -> int:
    return sum(a != b for a, b in itertools.pairwise(modes))


def test_the_table_maps_power_states_and_the_thermal_state_to_modes() -> None:
    s = selector(min_dwell_s=0.0)
    assert s.select(0.0, 50.0, PowerStatus("charging", 50.0)) == "full"
    assert s.select(1.0, 50.0, discharging(60.0)) == "early_exit"
    assert s.select(2.0, 50.0, discharging(10.0)) == "multires_320"
    assert s.select(3.0, 50.0, PowerStatus("full", 100.0)) == "full"
    assert s.select(4.0, 90.0, PowerStatus("full", 100.0)) == "multires_320"  # hot wins
    assert s.select(5.0, 50.0, None) == "full"  # no battery: the mains entry


def test_a_temperature_oscillating_at_the_hot_threshold_does_not_flap() -> None:
    s = selector(hot_c=80.0, hot_release_c=76.0, min_dwell_s=0.0)
    modes = [s.select(0.1 * i, 80.0 + (0.6 if i % 2 else -0.6), None) for i in range(600)]
    assert modes[0] == "full" and modes[1] == "multires_320"
    assert changes(modes) == 1  # hot from the first crossing on: the release is 4 K lower


def test_a_battery_oscillating_at_the_low_threshold_does_not_flap() -> None:
    s = selector(low_battery_pct=20.0, low_battery_release_pct=25.0, min_dwell_s=0.0)
    modes = [s.select(0.1 * i, 50.0, discharging(20.0 + (-0.5 if i % 2 else 0.5))) for i in range(600)]
    assert changes(modes) == 1 and modes[-1] == "multires_320"
    # Charged back above the release, it returns to the discharging mode.
    assert s.select(61.0, 50.0, discharging(26.0)) == "early_exit"


def test_a_costlier_mode_waits_for_the_dwell_a_cheaper_one_does_not() -> None:
    s = selector(min_dwell_s=10.0)
    states = ["charging", "discharging"] * 300  # plugged and unplugged every 100 ms for 60 s
    modes = [s.select(0.1 * i, 50.0, PowerStatus(st, 60.0)) for i, st in enumerate(states)]
    costlier = [i for i in range(1, len(modes)) if modes[i] == "full" and modes[i - 1] != "full"]
    assert len(costlier) >= 2
    assert all(b - a >= 100 for a, b in itertools.pairwise(costlier))  # >= 10 s apart
    # A cheaper mode is taken on the tick it is wanted.
    assert all(modes[i + 1] == "early_exit" for i in costlier if i + 1 < len(modes))


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ({"order": ["full", "tiny"]}, "modes.order: unknown mode 'tiny'"),
        ({"order": []}, "modes.order: empty"),
        ({"order": ["full", "full"]}, "modes.order: a mode is listed twice"),
        ({"discharging": "nope"}, "modes.discharging: 'nope' is not in modes.order"),
        ({"hot_c": float("nan")}, "modes.hot_c: nan is not a finite number"),
        ({"hot_c": 70.0, "hot_release_c": 75.0}, "modes.hot_release_c: must be <= hot_c"),
        ({"low_battery_pct": 30.0}, "modes.low_battery_release_pct: must be >= low_battery_pct"),
        ({"costs": {"tiny": {"compute": 0.1, "memory": 0.1}}}, "modes.costs.tiny.accuracy: missing"),
        ({"min_dwell": 3}, "modes.min_dwell: unknown key"),
    ],
)
def test_bad_modes_tables_are_refused_naming_the_key(table: dict, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle.replace("(", r"\(").replace(".", r"\.")):
        parse_config({"modes": table})


def test_a_configured_mode_of_its_own_is_accepted_and_round_trips() -> None:
    cfg = parse_config(
        {
            "modes": {
                "enabled": True,
                "order": ["full", "tiny"],
                "discharging": "tiny",
                "costs": {"tiny": {"compute": 0.1, "memory": 0.2, "accuracy": 20.0}},
            }
        }
    )
    assert cfg.modes.cost("tiny").compute == 0.1 and cfg.modes.low_battery == "tiny"
    assert parse_config(cfg.to_dict()) == cfg


def test_every_builtin_mode_carries_its_provenance() -> None:
    costs = builtin_mode_costs()
    assert {"full", "early_exit", "multires_320"} <= set(costs)
    for c in costs.values():
        assert c.tag in ("published", "derived", "estimated") and c.source
    assert costs["full"].tag == "published" and costs["full"].compute == 1.0


def test_a_mode_scales_the_compute_and_memory_parts_of_the_inference() -> None:
    board = load_board("rpi5")
    cheap = builtin_mode_costs()["multires_320"]
    freqs = {"cpu": board.domain("cpu").opp_hz[0]}
    full_s = costmodel.inference_time_s(board.model, freqs)
    model = scaled_model(board.model, cheap)
    expected = costmodel.compute_time_s(board.model, "cpu", freqs["cpu"]) * cheap.compute + (
        board.model.fixed_s * cheap.memory
    )
    assert costmodel.inference_time_s(model, freqs) == pytest.approx(expected)
    assert costmodel.inference_time_s(model, freqs) < 0.5 * full_s


def test_a_discharging_board_runs_cheaper_modes_and_the_summary_weighs_them(tmp_path: Path) -> None:
    base = parse_config(
        {"run": {"board": "jetson-orin-nano"}, "modes": {"enabled": True, "min_dwell_s": 5.0}}
    )
    sim = SimConfig(duration_s=120.0, initial_soc=0.5)
    sim = dataclasses.replace(sim, events=(SimEvent(0.0, "plugged"), SimEvent(60.0, "unplugged")))
    on = simulate(dataclasses.replace(base, sim=sim), out_dir=tmp_path)
    off = simulate(dataclasses.replace(Config(board="jetson-orin-nano"), sim=sim))
    s = on.summary
    assert set(s["mode_time_s"]) == {"full", "early_exit"}
    # Unplugged for the first tick (the plug event lands with it), then the dwell of 5 s before
    # the costlier full model; unplugged again at 60 s.
    assert 60.0 <= s["mode_time_s"]["early_exit"] <= 65.2
    acc = builtin_mode_costs()
    weighted = s["mode_inferences"]["full"] + s["mode_inferences"]["early_exit"] * (
        acc["early_exit"].accuracy / acc["full"].accuracy
    )
    assert s["accuracy_weighted_inferences"] == pytest.approx(weighted, abs=1.0)
    assert sum(s["mode_inferences"].values()) == s["inferences_total"]
    # Cheaper frames: more of them in the discharging minute than without modes.
    assert s["inferences_total"] > off.summary["inferences_total"]
    cols = load_trace(on.run_dir)
    modes = cols["mode"]
    assert modes[-1] == "early_exit" and modes[len(modes) // 4] == "full"
    i = modes.index("early_exit", len(modes) // 4)
    assert 60.0 <= cols["t_s"][i] <= 60.2 and "mode:early_exit" in cols["event"][i]
    assert set(off.summary["mode_time_s"]) == {"full"}


def test_a_bad_modes_table_exits_2_through_the_installed_script(tmp_path: Path) -> None:
    sim_refuses_config(
        tmp_path, '[modes]\nenabled = true\norder = ["full", "huge"]\n', "modes.order: unknown mode 'huge'"
    )


def test_a_run_that_empties_the_battery_says_so_and_exits_0(tmp_path: Path) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text(
        '[run]\nboard = "jetson-orin-nano"\n[modes]\nenabled = true\n'
        "[sim]\nduration_s = 3600\ninitial_soc = 0.005\n"
    )
    p = thermogov("sim", "--config", str(conf), "--out", str(tmp_path / "out"))
    assert p.returncode == 0, p.stderr
    row = next(ln for ln in p.stdout.splitlines() if ln.startswith("ended"))
    empty_at = float(row.split("battery empty at ")[1].removesuffix(" s"))
    assert 0.0 < empty_at < 3600.0
    err = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith("thermogov sim: the battery ran empty after")
    assert "Traceback" not in p.stderr
    # The summary's modes: discharging from the start, the low-battery mode all the way.
    assert "time in each mode" in p.stdout and "multires_320" in p.stdout
