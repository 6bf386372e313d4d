"""``stock`` writes nothing: the board's own caps stay, and only its protections throttle."""

from __future__ import annotations

import dataclasses

import pytest

from tests.compare.short import with_sim
from thermogov.config import Config
from thermogov.interfaces import ConfigError
from thermogov.policies import make_policy
from thermogov.policies.base import PolicyContext, PolicyInput
from thermogov.sim.model.runner import simulate
from thermogov.tomlcheck import Table


def test_stock_hands_back_the_caps_it_found() -> None:
    board = Config().load_board()
    tables = {d.name: d.opp_hz for d in board.domains}
    ctx = PolicyContext(board, tables, 0.1)
    pol = make_policy("stock", Table({}, "policies.stock"), ctx)
    found = {d: t[len(t) // 2] for d, t in tables.items()}  # e.g. an nvpmodel below the top
    hot = {d: t[0] for d, t in tables.items()}
    first = pol.decide(PolicyInput(0.0, 50.0, {}, found, {}))
    later = pol.decide(PolicyInput(1.0, 99.0, {}, hot, {}))  # even hot, even with caps moved
    assert dict(first.caps_hz) == found and dict(later.caps_hz) == found


def test_stock_takes_no_argument() -> None:
    board = Config().load_board()
    ctx = PolicyContext(board, {d.name: d.opp_hz for d in board.domains}, 0.1)
    with pytest.raises(ConfigError, match="stock"):
        make_policy("stock:1", Table({}, "policies.stock"), ctx)


def test_stock_run_never_writes_and_the_firmware_throttles() -> None:
    """A hot Pi 5 as shipped: no cap change from thermogov, the firmware ramp acts."""
    cfg = with_sim(
        dataclasses.replace(Config(), board="rpi5", policy="stock"), ambient_c=40.0, duration_s=400.0
    )
    res = simulate(cfg)
    assert res.governor.cap_changes == 0 and all(d.writes == 0 for d in res.world.domains.values())
    assert res.summary["board_throttle_events"] > 0
