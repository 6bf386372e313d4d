"""``stepped``'s ``power_settled`` on a load rise at full clocks (docs/policies.md, Session 27s).

Session 26s found it in draw 2026: a Jetson Nano whose load switches to 4.88 times its light rate
at 70 °C (world 18), where the PI left full clocks a rung a tick and read the trip 12-13 s after
every switch while ``hysteresis`` read it once.  The world is cut short after the first switch
(1081 s) and its readings at the trip, and run with the rule and without it: without it the walk
reads the trip longer than ``hysteresis`` does (the world is the case; this half passes on main),
with it no longer.  Fails on main, which has no ``power_settled`` key (``ConfigError``).  The TX2
fan failure (world 23) and the Xavier NX noise tick (world 2) are no load rise: the rule leaves
them as they were (Session 27s), so they are not here.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

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


def test_a_load_rise_at_full_clocks_is_met_before_the_trip(tmp_path: Path) -> None:
    cfg = _world(18, 1110.0)  # the Nano load switch, past the first switch's readings at the trip
    bound = _above_s(cfg, "hysteresis", tmp_path / "h")
    # ``sink_ramp`` (on since session 31) held off in both: it already keeps this world under
    # ``hysteresis``'s time above the trip, so the rule is judged against the walk it was built for
    walked = _above_s(cfg, "stepped", tmp_path / "d", {"sink_ramp": False})
    settled = _above_s(cfg, "stepped", tmp_path / "p", {"sink_ramp": False, "power_settled": True})
    assert walked > bound  # the case: without the rule the walk reads the trip longer
    assert settled <= bound
