"""Power budgets: the rolling average stays on the budget when the load wants more."""

from __future__ import annotations

import numpy as np
import pytest

from thermogov.board import load_board
from thermogov.budget import BudgetController, build_ladder, model_power_w
from thermogov.config import Config, SimConfig
from thermogov.interfaces import ConfigError, PowerStatus
from thermogov.powerconfig import PowerConfig, parse_power
from thermogov.sim.model.runner import _Run
from thermogov.tomlcheck import Table

WINDOW_S = 10.0


def _run(
    board: str, budget_w: float, duration_s: float = 240.0, policy: str = "performance"
) -> tuple[np.ndarray, np.ndarray, _Run]:
    """Ticks' times and the plant's exact cumulative energy at each (finer than the trace).

    The thermal policy is ``performance`` so that only the budget caps the clocks.
    """
    cfg = Config(
        board=board,
        policy=policy,
        sim=SimConfig(duration_s=duration_s),
        power=PowerConfig(discharging_w=budget_w, mains_w=budget_w, window_s=WINDOW_S),
    )
    rows: list[tuple[float, float]] = []
    run = _Run(cfg, cfg.load_board(), None, None, lambda tick: rows.append((tick.t_s, run.world.energy_j)))
    run.run()
    t, e = (np.array(c) for c in zip(*rows, strict=True))
    return t, e, run


def _windows(t: np.ndarray, e: np.ndarray, start_s: float) -> np.ndarray:
    out = []
    for i in range(np.searchsorted(t, start_s + WINDOW_S), len(t)):
        j = np.searchsorted(t, t[i] - WINDOW_S - 1e-9)
        out.append((e[i] - e[j]) / (t[i] - t[j]))
    return np.array(out)


def _mean_w(board: str, policy: str) -> float:
    t, e, _ = _run(board, 0.0, 30.0, policy)
    return float((e[-1] - e[10]) / (t[-1] - t[10]))


@pytest.mark.parametrize(
    ("board", "fraction"), [("jetson-orin-nano", 0.5), ("rpi5", 0.3), ("rpi5", 0.8), ("jetson-agx-orin", 0.6)]
)
def test_average_and_every_window_within_3_percent_when_the_load_wants_more(
    board: str, fraction: float
) -> None:
    full, floor = _mean_w(board, "performance"), _mean_w(board, "fixed:0%")
    # Between what the lowest and the highest caps draw: reachable, and the load wants more.
    budget = round(floor + fraction * (full - floor), 2)
    t, e, run = _run(board, budget)
    settle = 5.0
    i0 = np.searchsorted(t, settle)
    mean = (e[-1] - e[i0]) / (t[-1] - t[i0])
    assert abs(mean / budget - 1.0) <= 0.03, (full, budget, mean)
    wins = _windows(t, e, settle)
    assert wins.max() <= budget * 1.03, (budget, wins.max())
    summary = run.gov.limiters[-1].summary()
    assert summary["budget_max_window_ratio"] <= 1.03
    assert abs(summary["budget_mean_w"] / budget - 1.0) <= 0.03


def test_under_budget_load_is_not_capped() -> None:
    full = _mean_w("jetson-orin-nano", "performance")
    _t, _e, run = _run("jetson-orin-nano", full * 2.0, 30.0)
    board = load_board("jetson-orin-nano")
    assert run.gov._caps == {d.name: d.opp_hz[-1] for d in board.domains}


def test_ladder_rises_in_power_from_lowest_to_highest_caps() -> None:
    board = load_board("jetson-orin-nano")
    tables = {d.name: d.opp_hz for d in board.domains}
    ladder = build_ladder(board, tables)
    assert ladder[0][0] == {d: t[0] for d, t in tables.items()}
    assert ladder[-1][0] == {d: t[-1] for d, t in tables.items()}
    assert len(ladder) == sum(len(t) - 1 for t in tables.values()) + 1
    watts = [w for _c, w in ladder]
    assert watts == sorted(watts) and watts[0] < watts[-1]
    assert model_power_w(board, ladder[-1][0]) == pytest.approx(watts[-1])


def test_budget_per_state_and_low_battery() -> None:
    cfg = PowerConfig(charging_w=0.0, discharging_w=8.0, low_battery_w=5.0, low_battery_pct=20.0)
    assert cfg.budget_w(PowerStatus("charging", 50.0)) is None
    assert cfg.budget_w(PowerStatus("discharging", 50.0)) == 8.0
    assert cfg.budget_w(PowerStatus("discharging", 19.0)) == 5.0
    assert cfg.budget_w(PowerStatus("discharging", None)) == 8.0
    assert cfg.budget_w(None) is None
    only_low = PowerConfig(low_battery_w=4.0)
    assert only_low.budget_w(PowerStatus("discharging", 10.0)) == 4.0
    assert only_low.budget_w(PowerStatus("discharging", 30.0)) is None


def test_a_change_of_state_is_an_event_and_lifts_the_caps() -> None:
    board = load_board("jetson-orin-nano")
    tables = {d.name: d.opp_hz for d in board.domains}
    top = {d: t[-1] for d, t in tables.items()}
    bc = BudgetController(PowerConfig(discharging_w=3.0), board, tables)
    caps, ev = bc.limit(0.0, top, 9.0, PowerStatus("discharging", 80.0))
    assert ev == ["budget:3W"] and caps != top
    caps, ev = bc.limit(0.1, top, 9.0, PowerStatus("charging", 80.0))
    assert ev == ["budget_off"] and caps == top


@pytest.mark.parametrize(
    ("table", "word"),
    [
        ({"budget_discharging_w": -1.0}, "budget_discharging_w"),
        ({"budget_discharging_w": float("nan")}, "finite"),
        ({"window_s": 0.0}, "window_s"),
        ({"charge_min_c": 50.0}, "charge_max_c"),
        ({"budget_w": 8.0}, "unknown key"),
    ],
)
def test_bad_power_config_names_the_key(table: dict[str, float], word: str) -> None:
    with pytest.raises(ConfigError, match=word):
        parse_power(Table(table, "power"))
