"""The causal targets over a seed set (``sim/compare/seedcausal.py``): bounds, lines and CSV.

Each seed's tightest bound must still be a bound for its class on that seed: no trip-keeping
policy's worst window beats the causal or causal open-ended bound of its *own* past on any
seed, and each seed's bound, given the best fixed cap's own past, is at least that cap (a
schedule).  The block judges every seed (a good seed does not pay for a bad one) and falls back
to the run's-end bound on a seed without an open-ended run.  The two benches that print it are
tested in ``test_seedcausal_benches_s32.py``: a file of their own, so under ``--dist loadfile``
they run on another worker than this file's in-process bound check.
"""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path

import pytest

from tests.compare.short import short
from thermogov.sim.compare.anywindow import anywindow_bound, extended
from thermogov.sim.compare.causal import Yardsticks, causal_bound_ips, event_instant_s, history_intervals
from thermogov.sim.compare.seedcausal import (
    many_seed_yardsticks,
    misses,
    seed_causal_lines,
    write_seed_causal_csv,
)
from thermogov.sim.compare.seedset import plain_rows, with_seed

POLICIES = ["stepped", "hysteresis", "step_wise"]
KEEPING = {"step_wise": {"trips": [{"temp_c": 80.0, "hyst_c": 2.0}]}}
SEEDS = [1, 2]
#: The LP is solved to HiGHS's tolerance and relinearised per round: "tighter" is judged to this.
REL = 1e-3


def test_every_seed_bounds_every_policy_by_its_own_past(tmp_path: Path) -> None:
    cfg = dataclasses.replace(short("orin-fan-failure", 600.0), policies=KEEPING)
    ext = extended(cfg, 1.5)
    bounds = {}
    for world, view in ((cfg, "end"), (ext, "open")):
        per_seed = {}
        for s in SEEDS:
            res = anywindow_bound(with_seed(world, s))
            assert res is not None and res.throughput_ips is not None and res.best_fixed_ips is not None
            # Each seed's bound, given the best fixed cap's own past, is at least that cap.
            m = history_intervals(world, event_instant_s(world) or 0.0)
            assert m > 0
            fixed_past = causal_bound_ips(with_seed(world, s), [res.best_fixed_ips] * m)
            assert fixed_past is not None and fixed_past >= res.best_fixed_ips * (1 - 1e-9), (view, s)
            assert res.throughput_ips >= res.best_fixed_ips * (1 - 1e-9)
            per_seed[s] = res.throughput_ips
        bounds[view] = per_seed
    rows = {
        view: {p: plain_rows(world, p, SEEDS, tmp_path / view, "fan") for p in POLICIES}
        for world, view in ((cfg, "end"), (ext, "open"))
    }
    views = {
        p: (cfg, (rows["end"][p], bounds["end"]), (ext, rows["open"][p], bounds["open"])) for p in POLICIES
    }
    yards = many_seed_yardsticks(views, jobs=2)
    checked = 0
    for p, per in yards.items():
        assert sorted(per) == SEEDS
        for s, y in per.items():
            if rows["end"][p].rows[s].above_trip_s or rows["end"][p].rows[s].hard_limit_s:
                continue  # a row that broke the limit is bounded by nothing here
            assert y.event_s == event_instant_s(cfg)
            assert y.causal_ips is not None and y.causal_open_ips is not None, (p, s)
            assert y.worst_ips is not None and y.worst_ips <= y.causal_ips * (1 + 1e-9), (p, s, y)
            assert y.causal_ips <= y.anywindow_ips * (1 + REL), (p, s, y)  # type: ignore[operator]
            if not (rows["open"][p].rows[s].above_trip_s or rows["open"][p].rows[s].hard_limit_s):
                assert y.open_worst_ips is not None
                assert y.open_worst_ips <= y.causal_open_ips * (1 + 1e-9), (p, s, y)
                assert y.causal_open_ips <= y.open_ips * (1 + REL), (p, s, y)  # type: ignore[operator]
            checked += 1
    assert checked >= 3  # hysteresis reads the trip on this short world: its rows are skipped


def _yards() -> dict[str, dict[int, Yardsticks]]:
    return {
        "fan": {
            1: Yardsticks(300.0, 151.25, 157.68, 154.71, 144.66, 146.63, 146.50),  # 98.7 %
            2: Yardsticks(300.0, 150.00, 157.68, 154.71, 140.00, 146.63, 146.50),  # 95.6 %
        },
        "pi": {
            1: Yardsticks(None, 37.02, 38.73, None, 36.68, 37.10, None),  # open 98.9 %
            2: Yardsticks(None, 37.02, 38.73, None, None, None, None),  # no open run: any-window 95.6 %
        },
        "bursty": {1: Yardsticks(None, None, None, None, None, None, None)},
    }


def test_every_seed_is_judged_on_its_own_tightest_bound() -> None:
    lines = seed_causal_lines(_yards(), "stepped", 98.0)
    fan = next(line for line in lines if line.strip().startswith("fan "))
    assert "tightest (causal_open) 97.2" in fan and "of 146.50 ±0.00" in fan and "1:98.7% 2:95.6%" in fan
    assert fan.endswith("MISS on seed 2")
    pi = next(line for line in lines if line.strip().startswith("pi "))
    # Seed 2 had no open-ended run: it falls back to its any-window bound and says which.
    assert "tightest (anywindow/open)" in pi and "2:95.6%(open)" not in pi and "MISS on seed 2" in pi
    assert "n/a" in next(line for line in lines if line.strip().startswith("bursty "))
    assert any(line.startswith("causal misses: 2 (fan seed 2; pi seed 2)") for line in lines)
    assert misses(_yards(), 98.0) == {"fan": [2], "pi": [2]}
    assert misses(_yards(), 95.0) == {}


def test_the_seed_causal_csv_has_a_row_per_seed(tmp_path: Path) -> None:
    path = tmp_path / "rows-causal.csv"
    write_seed_causal_csv(_yards(), "stepped", path)
    rows = list(csv.DictReader(path.open()))
    assert [(r["scenario"], r["seed"]) for r in rows] == [
        ("fan", "1"),
        ("fan", "2"),
        ("pi", "1"),
        ("pi", "2"),
        ("bursty", "1"),
    ]
    assert rows[1]["tightest"] == "causal_open"
    assert float(rows[1]["pct_tightest"]) == pytest.approx(100 * 140.0 / 146.5, rel=1e-5)
    assert rows[3]["tightest"] == "anywindow" and rows[3]["open_ips"] == ""
    assert rows[4]["tightest"] == "" and rows[4]["pct_tightest"] == ""
