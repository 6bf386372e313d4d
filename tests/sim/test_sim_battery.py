"""The simulated battery: state of charge from the plant's power, charging schedules, empty ends the run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.cli.script import thermogov
from thermogov.board import load_board
from thermogov.config import Config, SimConfig, SimEvent
from thermogov.interfaces import ConfigError
from thermogov.sim.model.battery import CHARGE_C_RATE
from thermogov.sim.model.runner import simulate

BOARD = "jetson-orin-nano"  # the built-in board with a [battery] table


def _cfg(duration_s: float, soc: float, events: tuple[SimEvent, ...] = (), **kw: object) -> Config:
    return Config(
        board=BOARD,
        sim=SimConfig(duration_s=duration_s, initial_soc=soc, events=events),
        **kw,  # type: ignore[arg-type]
    )


def test_runs_to_empty_and_the_charge_drawn_is_the_charge_there_was() -> None:
    soc = 0.01
    r = simulate(_cfg(3600.0, soc))
    s = r.summary
    assert s["ended"] == "battery empty" and s["battery_soc_end"] == 0.0
    bat = load_board(BOARD).battery
    assert bat is not None
    # Coulomb counting: the board's energy through the converter at the nominal voltage.
    drawn_ah = s["energy_j"] / bat.converter_efficiency / bat.voltage_v / 3600.0
    assert drawn_ah == pytest.approx(soc * bat.capacity_ah, rel=0.01)
    assert s["battery_empty_at_s"] < 3600.0
    assert r.world.shutdown_at == pytest.approx(s["battery_empty_at_s"], abs=1e-3)


def test_on_the_move_drains_faster_by_the_motor_power() -> None:
    soc, motors_w = 0.01, 10.0
    base = simulate(_cfg(3600.0, soc)).summary
    moving = simulate(_cfg(3600.0, soc, (SimEvent(0.0, "on_the_move", value=motors_w),))).summary
    bat = load_board(BOARD).battery
    assert bat is not None
    board_w = base["energy_j"] / base["battery_empty_at_s"] / bat.converter_efficiency
    board_w_moving = moving["energy_j"] / moving["battery_empty_at_s"] / bat.converter_efficiency
    # The same charge, drawn at board + motors instead of board alone.
    expected = base["battery_empty_at_s"] * board_w / (board_w_moving + motors_w)
    assert moving["battery_empty_at_s"] == pytest.approx(expected, rel=0.02)


def test_plugged_charges_at_the_standard_rate_then_reports_full() -> None:
    soc, plugged_at = 0.995, 0.0
    ticks: list[tuple[float, str]] = []
    r = simulate(
        _cfg(60.0, soc, (SimEvent(plugged_at, "plugged"),)), on_tick=lambda t: ticks.append((t.t_s, t.event))
    )
    events = " ".join(e for _t, e in ticks)
    assert "plugged" in events and "power:charging" in events
    assert "charger:full" in events and "power:full" in events
    assert r.summary["battery_soc_end"] == 1.0
    # Time to full at 0.5 C: (1 - soc) / 0.5 hours.
    t_full = next(t for t, e in ticks if "power:full" in e)
    assert t_full - plugged_at == pytest.approx((1.0 - soc) / CHARGE_C_RATE * 3600.0, rel=0.1)


def test_unplugged_after_charging_discharges_again() -> None:
    evs = (SimEvent(0.0, "plugged"), SimEvent(10.0, "unplugged"))
    ticks: list[str] = []
    simulate(_cfg(20.0, 0.5, evs), on_tick=lambda t: ticks.append(t.event))
    joined = " ".join(ticks)
    assert joined.index("power:charging") < joined.index("unplugged") < joined.index("power:discharging", 1)


def test_the_charger_holds_off_outside_the_charging_window() -> None:
    from thermogov.powerconfig import PowerConfig

    # A pack above the configured charge window is not charged: the state is "mains".
    cfg = dataclasses.replace(
        _cfg(10.0, 0.5, (SimEvent(0.0, "plugged"),)), power=PowerConfig(charge_max_c=1.0, charge_min_c=0.0)
    )
    r = simulate(cfg)
    assert r.world.power_status().state == "mains"
    assert r.summary["battery_soc_end"] == 0.5


def test_supply_events_need_a_battery() -> None:
    cfg = Config(board="rpi5", sim=SimConfig(duration_s=10.0, events=(SimEvent(1.0, "plugged"),)))
    with pytest.raises(ConfigError, match=r"sim.events\[0\].kind: board rpi5 has no battery"):
        simulate(cfg)


def test_cli_says_the_battery_ran_empty(tmp_path: Path) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text(
        f'[run]\nboard = "{BOARD}"\nout = "{tmp_path / "out"}"\n[sim]\nduration_s = 3600\ninitial_soc = 0.005\n'
    )
    p = thermogov("sim", "--config", str(conf))
    assert p.returncode == 0, p.stderr
    assert "battery empty" in p.stdout and "battery runtime" in p.stdout
    assert "the battery ran empty after" in p.stderr


def test_cli_rejects_a_plugged_event_on_a_mains_board(tmp_path: Path) -> None:
    conf = tmp_path / "c.toml"
    conf.write_text(
        f'[run]\nboard = "rpi5"\nout = "{tmp_path / "out"}"\n[sim]\nduration_s = 10\n'
        '[[sim.events]]\nat_s = 1.0\nkind = "plugged"\n'
    )
    p = thermogov("sim", "--config", str(conf))
    assert p.returncode == 2
    assert "has no battery" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "out").exists()
