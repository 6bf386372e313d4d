"""``stepped``'s ``power_settled`` on the three drawn worlds where it read the trip longer than ``hysteresis``.

Session 26s found them in draw 2026 (docs/policies.md): a Jetson Nano whose load switches to
4.88 times its light rate at 70 °C (world 18: the PI left full clocks a rung a tick and read the
trip 12-13 s after every switch), a TX2 whose heat sink loses half its conductance (world 23: two
trips 17 s apart) and a Xavier NX under a Poisson load at 70 °C (world 2).  Each world is cut
short after the readings session 26s counted, and run with the rule and without it: without it
the walk reads the trip more often than ``hysteresis`` does (the world is the case), with it no
more often.  The three fail on main, which has no ``power_settled`` key (``ConfigError``).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from tests.compare.short import with_sim
from thermogov.config import Config
from thermogov.sim.compare.compare import run_policy

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import drawn_worlds as dw  # noqa: E402


def _world(index: int, end_s: float) -> Config:
    cfg = dw.drawn_worlds(2026, [index], time_scale=0.5)[0].config
    return with_sim(cfg, duration_s=end_s)


def _above_s(cfg: Config, policy: str, out: Path, knobs: dict[str, object] | None = None) -> float:
    if knobs:
        section = dict(cfg.policies.get("stepped", {}))
        section.update(knobs)
        cfg = dataclasses.replace(cfg, policies={**cfg.policies, "stepped": section})
    row = run_policy(cfg, policy, out)
    assert row.sustained_ips is not None and row.sustained_ips > 0.0
    return row.above_trip_s


# (world, where it is cut): past the readings at the trip session 26s counted on each.
WORLDS = [
    pytest.param(18, 1110.0, id="nano-load-switch"),
    pytest.param(23, 1760.0, id="tx2-fan-failure"),
    pytest.param(2, 1760.0, id="xavier-nx-poisson"),
]


@pytest.mark.parametrize(("index", "end_s"), WORLDS)
def test_power_settled_reads_the_trip_no_longer_than_hysteresis(index: int, end_s: float, tmp_path: Path) -> None:
    cfg = _world(index, end_s)
    bound = _above_s(cfg, "hysteresis", tmp_path / "h")
    walked = _above_s(cfg, "stepped", tmp_path / "d")
    settled = _above_s(cfg, "stepped", tmp_path / "p", {"power_settled": True})
    assert walked > bound  # the case: without the rule the walk reads the trip longer
    assert settled <= bound
