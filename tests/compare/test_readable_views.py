"""The readable reference in every view of the bench (session 20a): the open-ended view
(``--extend``), the seed-set race (``--seeds``, mean and spread beside the bound's) and its CSV.

Session 19b printed it in the default view only.  A reference, not a bound: it is never above the
bound it is printed beside (tested on the solver, seed by seed and on a world continued past its
end), and no MISS is judged on it.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import runpy
from pathlib import Path
from typing import Any

import pytest

from tests.compare.short import short
from tests.compare.test_seedset import _row, _rows  # the seed race's fake rows
from thermogov.config import Config, SimConfig
from thermogov.sim.compare.anywindow import anywindow_bound, extended
from thermogov.sim.compare.readable import readable_anywindow_ips
from thermogov.sim.compare.seedcsv import COLUMNS, seed_csv_rows, write_seed_csv
from thermogov.sim.compare.seedrace import _bound_job, report, verdict
from thermogov.sim.compare.seedset import Spread

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "control_quality.py"


def _xavier_world() -> Config:
    """A Xavier NX at 70 °C: coarse codes, the trip binds (test_readable.py's world)."""
    sim = SimConfig(duration_s=600.0, ambient_c=70.0, scenario="xavier-hot")
    return dataclasses.replace(Config(), board="jetson-xavier-nx", sim=sim)


@pytest.mark.parametrize("world", ["orin-steady-25", "xavier"])
def test_each_seeds_readable_reference_is_under_its_bound(world: str) -> None:
    """The seed race's per-seed pair (bound, reference): strictly under where the trip binds."""
    cfg = _xavier_world() if world == "xavier" else short(world, 600.0)
    for seed in (1, 2):
        bound, ref = _bound_job((cfg, seed))
        assert bound is not None and ref is not None
        assert ref < bound - 1e-3


def test_the_longer_worlds_reference_is_under_its_bound() -> None:
    """The open-ended view's pair, on the world continued past its end (a larger z)."""
    cfg = extended(short("orin-steady-25", 600.0), 2.0)
    res = anywindow_bound(cfg)
    ref = readable_anywindow_ips(cfg)
    assert res is not None and res.throughput_ips is not None and ref is not None
    assert ref < res.throughput_ips - 1e-3


def test_an_open_load_has_neither_bound_nor_reference() -> None:
    assert _bound_job((short("orin-bursty", 600.0), 1)) == (None, None)
    assert readable_anywindow_ips(short("orin-bursty", 600.0)) is None


def test_the_seed_report_prints_the_reference_with_its_spread_and_judges_no_miss() -> None:
    rows = {
        "hysteresis": _rows("hysteresis", [80.0, 81.0], [0.1, 0.1]),
        "stepped": _rows("stepped", [90.0, 91.0], [0.0, 0.1]),
    }
    bound, readable = {1: 100.0, 2: 100.0}, {1: 95.0, 2: 96.0}
    lines = report({"w": (rows, bound, readable)}, "stepped", "title")
    head = next(ln for ln in lines if ln.strip().startswith("w "))
    assert f"readable {Spread.of([95.0, 96.0]).text()} (reference, not a bound)" in head  # type: ignore[union-attr]
    said = verdict(rows, bound, "stepped", readable)
    share = next(ln for ln in said if "readable reference" in ln)
    assert Spread.of([100.0 * 90.0 / 95.0, 100.0 * 91.0 / 96.0]).text(1) in share  # type: ignore[union-attr]
    assert "MISS" not in share  # 94.8 % is under 98: a reference judges nothing
    # A scenario with no bound (an open load) says n/a, not a figure.
    none = report({"w": (rows, {1: None, 2: None}, {1: None, 2: None})}, "stepped", "t")
    assert "readable n/a" in next(ln for ln in none if ln.strip().startswith("w "))


def test_the_seed_csv_has_the_reference_per_seed(tmp_path: Path) -> None:
    rows = {"stepped": _rows("stepped", [90.0, 91.0], [0.0, 0.1])}
    table = seed_csv_rows({"w": (rows, {1: 100.0, 2: 100.0}, {1: 95.0, 2: None})}, "run's end")
    out = tmp_path / "seeds.csv"
    write_seed_csv(table, out)
    with out.open(encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames or ()) == COLUMNS
        got = list(reader)
    assert [(r["view"], r["policy"], r["seed"]) for r in got] == [
        ("run's end", "stepped", "1"),
        ("run's end", "stepped", "2"),
    ]
    assert float(got[0]["readable_ips"]) == 95.0
    assert float(got[0]["pct_readable"]) == pytest.approx(100.0 * 90.0 / 95.0, abs=1e-4)
    assert float(got[0]["pct_anywindow"]) == 90.0
    assert got[1]["readable_ips"] == "" and got[1]["pct_readable"] == ""  # no reference: empty


def test_the_bench_writes_the_seed_race_csv_with_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--seeds ... --csv``: every view's rows with the reference column (the race faked)."""
    bench = runpy.run_path(str(BENCH), run_name="control_quality_under_test")
    seed_set = bench["seed_set"]
    rows = {"stepped": _rows("stepped", [90.0, 91.0], [0.0, 0.0])}

    def fake_race(cfgs: list[tuple[str, Config]], *_a: Any, **_k: Any) -> dict[str, Any]:
        return {n: (rows, {1: 100.0, 2: 100.0}, {1: 95.0, 2: 96.0}) for n, _ in cfgs}

    monkeypatch.setitem(seed_set.__globals__, "race", fake_race)
    out = tmp_path / "seeds.csv"
    args = argparse.Namespace(iso_limit=True, extend=2.0, csv=out, jobs=1, candidate="stepped", seeds="1-2")
    seed_set([("w", short("orin-steady-25", 600.0))], ["stepped"], [1, 2], None, args, tmp_path)
    with out.open(encoding="utf-8") as fh:
        got = list(csv.DictReader(fh))
    assert {r["view"] for r in got} == {"run's end", "open-ended"}
    assert all(r["readable_ips"] for r in got)


def test_the_open_ended_view_prints_the_reference_beside_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = runpy.run_path(str(BENCH), run_name="control_quality_under_test")
    open_ended = bench["open_ended"]
    cfg = short("orin-steady-25", 600.0)
    old = [
        dataclasses.replace(_row(p, 1, ips=200.0), scenario="w", run_dir=str(tmp_path / p))
        for p in ("hysteresis", "stepped")
    ]
    long_rows = [dataclasses.replace(r, run_dir=str(tmp_path / "long" / r.policy)) for r in old]
    worst = {str(tmp_path / "stepped"): 198.0, str(tmp_path / "long" / "stepped"): 196.0}
    patches = {
        "run_grid": lambda *_a, **_k: (long_rows, {}),
        "open_references": lambda ext, _jobs: ({n: 200.0 for n in ext}, {n: 199.0 for n in ext}),
        "worst_window_ips": lambda _cfg, run: worst.get(str(run), 190.0),
        "best_probe_worst": lambda *_a: None,
    }
    for name, fake in patches.items():
        monkeypatch.setitem(open_ended.__globals__, name, fake)
    lines = open_ended([("w", cfg)], old, {"w": 200.0}, "stepped", 2.0, 1, tmp_path)
    line = next(ln for ln in lines if ln.strip().startswith("w "))
    assert "bound 200.00 -> 200.00" in line
    assert f"readable 199.00 ({100.0 * 196.0 / 199.0:.1f}%)" in line
