"""The causal-history and open-ended bounds (``sim/compare/causal.py``) and the bench's block.

Each bound adds constraints to the any-window programme (a past forced before the first event,
windows up to a later end), so each must still hold for every schedule of its class: no
trip-keeping policy's worst window beats the causal bound of its *own* past, nor the open-ended
bound on the longer world, on the suite (here) and on random and drawn worlds
(``test_causal_worlds_s32.py``; the check is ``causalcheck.py``'s); each stays under the
any-window bound (a tighter yardstick) and over the best fixed cap found by search, given that
cap's own past.
"""

from __future__ import annotations

import csv
import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from tests.compare.causalcheck import KEEPING, REL, check_own_causal_bounds
from tests.compare.short import short
from tests.compare.solved import shared_anywindow_bound
from thermogov.config import SimEvent
from thermogov.sim.compare.causal import (
    Yardsticks,
    causal_bound_ips,
    event_instant_s,
    history_intervals,
    tightest,
)
from thermogov.sim.compare.causalview import causal_csv_path, causal_lines, write_causal_csv
from thermogov.sim.compare.oracle import operating_points
from thermogov.sim.scenarios import load_scenario

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["orin-fan-failure", "orin-ambient-step"])
def test_no_policy_beats_its_own_causal_bound_on_the_suite(name: str, tmp_path: Path) -> None:
    cfg = dataclasses.replace(short(name, 600.0), policies=KEEPING)
    assert check_own_causal_bounds(cfg, tmp_path) >= 4


def test_the_event_instant_is_the_first_change_to_the_world() -> None:
    assert event_instant_s(load_scenario("rpi5-steady-25")) is None
    fan = load_scenario("orin-fan-failure")
    assert event_instant_s(fan) == min(e.at_s for e in fan.sim.events if e.kind == "ambient_link")
    # A sensor's fault changes the readings, not the world the bound models; 0 s is the start.
    spike = load_scenario("orin-sensor-spike")
    assert event_instant_s(spike) is None
    at0 = dataclasses.replace(
        spike.sim, events=(*spike.sim.events, SimEvent(at_s=0.0, kind="ambient", value=30.0))
    )
    assert event_instant_s(dataclasses.replace(spike, sim=at0)) is None


def test_any_past_is_under_the_any_window_bound_and_no_past_is_it() -> None:
    """A forced past only adds constraints.  Unlike the same-history bound, a cooler past does not
    leave more room here: the early windows overlap it, so the slowest past lowers them (the
    any-window bound on orin-fan-failure at 600 s: 175.7 with the slowest past, 177.9 with the
    best fixed cap's)."""
    cfg = dataclasses.replace(short("orin-fan-failure", 600.0), policies=KEEPING)  # the suite test's world
    anyw = shared_anywindow_bound(cfg)
    assert anyw is not None and anyw.throughput_ips is not None and anyw.best_fixed_ips is not None
    assert causal_bound_ips(cfg, []) == pytest.approx(anyw.throughput_ips)
    m = history_intervals(cfg, event_instant_s(cfg) or 0.0)
    assert m > 0
    lowest = min(p.throughput_ips for p in operating_points(cfg.load_board(), saturating=True))
    for rate in (lowest, anyw.best_fixed_ips):
        forced = causal_bound_ips(cfg, [rate] * m)
        assert forced is not None and forced <= anyw.throughput_ips * (1 + REL), (rate, forced)
    # Forced past the window's start a slow past is every window's floor: under the best fixed cap.
    slow_all = causal_bound_ips(cfg, [lowest] * history_intervals(cfg, cfg.sim.duration_s))
    assert slow_all is not None and slow_all < anyw.best_fixed_ips


def test_an_open_load_gets_no_causal_bound() -> None:
    cfg = load_scenario("orin-bursty")
    assert causal_bound_ips(cfg, [100.0] * 10) is None


def _yards() -> dict[str, Yardsticks]:
    return {
        "fan": Yardsticks(300.0, 151.25, 157.68, 154.71, 144.66, 146.63, 146.50),
        "pi": Yardsticks(None, 37.02, 38.73, None, 36.68, 37.10, None),
        "short": Yardsticks(None, 37.02, 38.73, None, None, None, None),
    }


def test_the_targets_judge_the_tightest_bound_computed() -> None:
    y = _yards()
    assert tightest(y["fan"])[0] == "causal_open"  # type: ignore[index]
    assert tightest(y["pi"])[0] == "open"  # type: ignore[index]
    name, pct = tightest(y["short"])  # type: ignore[misc]
    assert name == "anywindow" and pct == pytest.approx(100 * 37.02 / 38.73)
    lines = causal_lines(y, "stepped", 98.0)
    fan = next(line for line in lines if line.strip().startswith("fan "))
    assert "tightest (causal_open) 98.7%" in fan and "MISS" not in fan and "any-window 95.9%" in fan
    assert "MISS" in next(line for line in lines if line.strip().startswith("short "))
    assert any(line.startswith("causal misses: 1 (short)") for line in lines)


def test_the_causal_csv_has_every_bound_and_share(tmp_path: Path) -> None:
    path = causal_csv_path(tmp_path / "rows.csv")
    assert path.name == "rows-causal.csv"
    write_causal_csv(_yards(), "stepped", path)
    rows = list(csv.DictReader(path.open()))
    fan = rows[0]
    assert fan["scenario"] == "fan" and fan["event_s"] == "300" and fan["tightest"] == "causal_open"
    assert float(fan["pct_causal"]) == pytest.approx(100 * 151.25 / 154.71, rel=1e-5)
    assert rows[1]["causal_ips"] == "" and rows[1]["tightest"] == "open"


def test_the_bench_prints_the_causal_targets_and_writes_their_csv(tmp_path: Path) -> None:
    """The installed bench end to end on a short fan failure: the block, the lines, the CSV."""
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "control_quality.py"),
            "--scenario",
            "orin-fan-failure",
            "--duration",
            "600",
            "--policy",
            "hysteresis,stepped",
            "--no-iso-limit",
            "--extend",
            "1.5",
            "--jobs",
            "1",
            "--csv",
            str(tmp_path / "rows.csv"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "causal targets:" in out.stdout
    assert "causal-open" in out.stdout and "(past to 300 s:" in out.stdout
    rows = list(csv.DictReader((tmp_path / "rows-causal.csv").open()))
    assert [r["scenario"] for r in rows] == ["orin-fan-failure"]
    assert rows[0]["tightest"] == "causal_open" and float(rows[0]["pct_causal_open"]) > 0
