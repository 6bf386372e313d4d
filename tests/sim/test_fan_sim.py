"""The simulated fan: a conductance that cools, a power that costs, the board's curve as baseline,
and a stall the governor survives by raising the fan before it lowers a clock."""

from __future__ import annotations

import dataclasses
import itertools
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov.board import load_board
from thermogov.config import Config, SimEvent, parse_config
from thermogov.interfaces import ConfigError
from thermogov.sim.model.runner import simulate
from thermogov.sim.scenarios import load_scenario
from thermogov.trace import load_trace

TOP_HZ = 2_400_000_000


def _config(owner: str, ambient_c: float, duration_s: float, events: tuple[SimEvent, ...] = ()) -> Config:
    base = parse_config({"run": {"board": "rpi5-fan", "fan": owner}})
    return dataclasses.replace(
        base, sim=dataclasses.replace(base.sim, ambient_c=ambient_c, duration_s=duration_s, events=events)
    )


def test_more_fan_means_a_cooler_board_and_more_power() -> None:
    from thermogov.sim.model.world import SimWorld

    board = load_board("rpi5-fan")
    temps, powers = [], []
    for level in range(board.fan.levels):  # type: ignore[union-attr]
        world = SimWorld(board, _config("board", 25.0, 60.0))
        assert world.fan is not None
        world.fan.apply(level)
        power = world._rest.copy()
        power[world.plant.index["cpu"]] += 4.0
        temps.append(world.plant.steady_state_c(power)[world.plant.index["cpu"]])
        powers.append(world.fan.power_w)
    assert temps == sorted(temps, reverse=True) and temps[0] - temps[-1] > 10.0
    assert powers == sorted(powers) and powers[0] == 0.0


def test_the_board_curve_is_the_baseline_and_its_switches_are_counted(tmp_path: Path) -> None:
    r = simulate(_config("board", 45.0, 600.0), out_dir=tmp_path)
    tr = load_trace(r.run_dir)
    levels = tr["fan_level"]
    assert r.summary["fan_owner"] == "board" and max(levels) >= 1
    changes = sum(1 for a, b in itertools.pairwise(levels) if a != b)
    assert r.summary["fan_switches"] == changes
    assert r.summary["fan_switches_per_hour"] == pytest.approx(
        changes / (r.summary["duration_s"] / 3600), rel=1e-3
    )
    assert any("board_fan:" in str(e) for e in tr["event"])
    assert r.summary["fan_energy_j"] > 0


def test_a_stalled_fan_the_governor_owns_is_at_its_top_before_any_clock_is_cut(tmp_path: Path) -> None:
    """Hot box, the fan seizes 2 min in: the governor cuts clocks, but only with the fan at its top."""
    cfg = _config("governor", 52.0, 900.0, (SimEvent(at_s=120.0, kind="fan_stall"),))
    r = simulate(cfg, out_dir=tmp_path)
    tr = load_trace(r.run_dir)
    top = load_board("rpi5-fan").fan.levels - 1  # type: ignore[union-attr]
    cut = [i for i, c in enumerate(tr["cpu_cap_hz"]) if c < TOP_HZ]
    assert cut, "the stalled fan must force some clock cut in a 52 °C box"
    assert all(tr["fan_level"][i] == top for i in cut)
    assert r.summary["fan_stalled"] is True and r.summary["fan_stalled_seen"] is True
    stall = next(i for i, e in enumerate(tr["event"]) if "fan_stalled:fan" in str(e))
    assert tr["t_s"][stall] >= 120.0  # seen by its tachometer, after the stall, not before
    assert r.summary["max_fused_c"] < load_board("rpi5-fan").sensor("cpu").hard_limit_c


def test_the_fan_stall_scenario_runs_for_both_owners() -> None:
    for owner in ("board", "governor"):
        cfg = load_scenario("rpi5-fan-stall", parse_config({"run": {"fan": owner}}))
        cfg = dataclasses.replace(
            cfg, sim=dataclasses.replace(cfg.sim, duration_s=300.0, events=(SimEvent(150.0, "fan_stall"),))
        )
        s = simulate(cfg).summary
        assert s["fan_owner"] == owner and s["fan_stalled"] is True


def test_a_fan_event_or_a_governed_fan_needs_a_board_with_a_fan() -> None:
    with pytest.raises(ConfigError, match="fan_stall"):
        simulate(
            dataclasses.replace(
                Config(), sim=dataclasses.replace(Config().sim, events=(SimEvent(1.0, "fan_stall"),))
            )
        )
    with pytest.raises(ConfigError, match=r"run\.fan: board jetson-orin-nano has no \[fan\]"):
        simulate(parse_config({"run": {"fan": "governor"}}))


def test_sim_with_a_governed_fan_on_a_fanless_board_exits_2(tmp_path: Path) -> None:
    cfg = tmp_path / "fan.toml"
    cfg.write_text('[run]\nfan = "governor"\n')
    p = thermogov("sim", "--config", str(cfg), "--duration", "5s", "--out", str(tmp_path / "out"))
    one_line_error(p, "run.fan")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_sim_prints_the_fan_line_for_a_board_with_a_fan(tmp_path: Path) -> None:
    p = thermogov(
        "sim", "--board", "rpi5-fan", "--duration", "30s", "--ambient", "45", "--out", str(tmp_path)
    )
    assert p.returncode == 0, p.stderr
    (line,) = [ln for ln in p.stdout.splitlines() if ln.startswith("fan ")]
    assert "board-driven" in line and "switches" in line
