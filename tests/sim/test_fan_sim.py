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


# The Jetson Orin Nano developer kit: nvfancontrol's "quiet" curve as the baseline.
DEVKIT = "jetson-orin-nano-devkit"


def _config(
    owner: str,
    ambient_c: float,
    duration_s: float,
    events: tuple[SimEvent, ...] = (),
    board: str = "rpi5-fan",
) -> Config:
    base = parse_config({"run": {"board": board, "fan": owner}})
    return dataclasses.replace(
        base, sim=dataclasses.replace(base.sim, ambient_c=ambient_c, duration_s=duration_s, events=events)
    )


@pytest.mark.parametrize(("board_name", "node", "watts"), [("rpi5-fan", "cpu", 4.0), (DEVKIT, "gpu", 8.0)])
def test_more_fan_means_a_cooler_board_and_more_power(board_name: str, node: str, watts: float) -> None:
    from thermogov.sim.model.world import SimWorld

    board = load_board(board_name)
    temps, powers = [], []
    for level in range(board.fan.levels):  # type: ignore[union-attr]
        world = SimWorld(board, _config("board", 25.0, 60.0, board=board_name))
        assert world.fan is not None
        world.fan.apply(level)
        power = world._rest.copy()
        power[world.plant.index[node]] += watts
        temps.append(world.plant.steady_state_c(power)[world.plant.index[node]])
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


@pytest.mark.parametrize(("board", "pwm"), [("rpi5-fan", False), (DEVKIT, True)])
def test_sim_prints_the_fan_line_for_a_board_with_a_fan(tmp_path: Path, board: str, pwm: bool) -> None:
    p = thermogov("sim", "--board", board, "--duration", "30s", "--ambient", "45", "--out", str(tmp_path))
    assert p.returncode == 0, p.stderr
    (line,) = [ln for ln in p.stdout.splitlines() if ln.startswith("fan ")]
    assert "board-driven" in line and "switches" in line
    assert ("duty mean" in line) == pwm  # only a PWM fan its board curve drives has a duty to show


def test_the_jetson_devkit_follows_nvfancontrols_quiet_curve_and_counts_its_switches(tmp_path: Path) -> None:
    r = simulate(_config("board", 45.0, 600.0, board=DEVKIT), out_dir=tmp_path)
    tr = load_trace(r.run_dir)
    levels = tr["fan_level"]
    fan = load_board(DEVKIT).fan
    assert fan is not None and r.summary["fan_owner"] == "board"
    # 45 °C ambient: the SoC passes Tj 35 °C at once, so the quiet curve has the fan running.
    assert min(levels[len(levels) // 2 :]) >= 1
    assert r.summary["fan_switches"] == sum(1 for a, b in itertools.pairwise(levels) if a != b)
    # polled every 2 s: no two changes of the board's curve closer than its polling interval
    t_changes = [tr["t_s"][i] for i in range(1, len(levels)) if levels[i] != levels[i - 1]]
    assert all(b - a >= fan.default_period_ms / 1000 - 1e-6 for a, b in itertools.pairwise(t_changes))


def test_a_stalled_jetson_fan_the_governor_owns_is_at_its_top_before_any_clock_is_cut(tmp_path: Path) -> None:
    cfg = _config("governor", 60.0, 900.0, (SimEvent(at_s=120.0, kind="fan_stall"),), board=DEVKIT)
    r = simulate(cfg, out_dir=tmp_path)
    tr = load_trace(r.run_dir)
    board = load_board(DEVKIT)
    top = board.fan.levels - 1  # type: ignore[union-attr]
    tops = {d.name: max(d.opp_hz) for d in board.domains}
    cut = [i for i in range(len(tr["t_s"])) if any(tr[f"{n}_cap_hz"][i] < hz for n, hz in tops.items())]
    assert cut, "the stalled fan must force some clock cut in a 60 °C box"
    assert all(tr["fan_level"][i] == top for i in cut)
    assert r.summary["fan_stalled"] is True
    assert r.summary["max_fused_c"] < min(s.hard_limit_c for s in board.sensors)


def test_the_devkits_stock_fan_in_a_room_ramps_its_duty_a_few_times_and_settles(tmp_path: Path) -> None:
    """nvfancontrol writes any duty, so the quiet curve's first level no longer toggles on and off.

    With the duty a level fan (the nearest of nine) the fan switched between levels 0 and 1 at
    every other poll in a 25 °C room (382 times an hour).  As a PWM fan it ramps up to a duty
    in between and stays there: the same run twice as long writes no new duty in its second half.
    """
    half = simulate(_config("board", 25.0, 900.0, board=DEVKIT), out_dir=tmp_path / "half").summary
    full = simulate(_config("board", 25.0, 1800.0, board=DEVKIT), out_dir=tmp_path / "full").summary
    writes_half = half["fan_duty_changes_per_hour"] * 900.0 / 3600.0
    writes_full = full["fan_duty_changes_per_hour"] * 1800.0 / 3600.0
    assert writes_full == pytest.approx(writes_half)  # settled: nothing after the first 15 min
    fan = load_board(DEVKIT).fan
    assert fan is not None and fan.default_pwm is not None
    # In between levels 0 and 1 (a fan the curve keeps running, slower than its first level),
    # reached by writes of at most a step each: one per pwm at most, and a few more to settle.
    assert 0.0 < full["fan_duty_mean"] < fan.duty[1]
    assert 0 < writes_full <= full["fan_duty_mean"] + 10
    assert full["fan_switches"] <= 2  # the nearest level: off, then on once


def test_a_governed_devkit_fan_runs_as_the_same_fan_with_levels_only(tmp_path: Path) -> None:
    """The governor drives a PWM fan at its levels' own duties: the run is the level fan's, exactly."""
    board = load_board(DEVKIT)
    assert board.fan is not None and board.fan.default_pwm is not None
    levels_only = dataclasses.replace(board, fan=dataclasses.replace(board.fan, default_pwm=None))
    cfg = _config("governor", 45.0, 300.0, board=DEVKIT)
    a = simulate(cfg, board=board, out_dir=tmp_path / "pwm")
    b = simulate(cfg, board=levels_only, out_dir=tmp_path / "levels")
    assert a.summary["fan_switches"] > 0 and "fan_duty_changes_per_hour" not in a.summary
    assert (a.run_dir / "trace.csv").read_bytes() == (b.run_dir / "trace.csv").read_bytes()


def test_the_pi5s_level_fan_reports_no_duty_and_switches_between_its_levels(tmp_path: Path) -> None:
    r = simulate(_config("board", 45.0, 300.0), out_dir=tmp_path)
    assert "fan_duty_changes_per_hour" not in r.summary and "fan_duty_mean" not in r.summary
    levels = load_trace(r.run_dir)["fan_level"]
    assert r.summary["fan_switches"] >= 1 and set(levels) <= set(range(load_board("rpi5-fan").fan.levels))  # type: ignore[union-attr]
