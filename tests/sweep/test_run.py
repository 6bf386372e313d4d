"""Running sweeps locally: the table, the run folders and ledger, failures, resume, dry run."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from tests.cliutil import run_cli
from tests.sweep.conftest import ledger_rows, read_table
from thermogov.config import load_config
from thermogov.runs import load_summary
from thermogov.sim.model.runner import simulate
from thermogov.sim.sweep import point as point_mod
from thermogov.sim.sweep import table as table_mod
from thermogov.sim.sweep.engine import run_sweep
from thermogov.sim.sweep.executors import LocalExecutor
from thermogov.sim.sweep.spec import load_sweep


def test_local_sweep_writes_the_table_the_run_folders_and_the_ledger(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, text, err = run_cli(["sweep", str(tiny_sweep), "--workers", "1", "--out", str(out)], capsys)
    assert code == 0, err
    sweep = load_sweep(tiny_sweep)
    rows = read_table(out / "results.csv")
    assert [r["point_id"] for r in rows] == [p.point_id for p in sweep.points]
    assert list(rows[0])[:6] == [
        "point_id",
        "ambient",
        "heatsink",
        "policy",
        "board.thermal.links.package.lid",
        "status",
    ]
    assert (out / "results.parquet").exists() == table_mod.parquet_available()
    for r, p in zip(rows, sweep.points, strict=True):
        assert r["status"] == "ok" and r["error"] == ""
        assert float(r["ambient"]) == p.params["ambient"] and float(r["heatsink"]) == p.params["heatsink"]
        run_dir = out / r["run_dir"]
        s = load_summary(run_dir)
        assert s["run_id"] == p.point_id and float(r["sustained_ips"]) == s["sustained_throughput_ips"]
        assert (run_dir / "config.toml").exists() and (run_dir / "board.toml").exists()
    assert sorted(r["run_id"] for r in ledger_rows(out)) == sorted(p.point_id for p in sweep.points)
    # Same board, policy and link: the hotter room runs hotter.
    by = {(r["heatsink"], r["board.thermal.links.package.lid"], r["ambient"]): r for r in rows}
    for (hs, link, amb), r in by.items():
        if amb == "25.0":
            assert float(by[(hs, link, "40.0")]["max_fused_c"]) > float(r["max_fused_c"])
    ok = [r for r in rows if float(r["time_above_trip_s"]) <= 1]
    best = max(ok, key=lambda r: float(r["sustained_ips"]))
    assert f"best (max sustained_ips with time_above_trip_s <= 1): {best['point_id']}" in text
    # A point's run folder reproduces it on its own: its config.toml names the edited board.
    cfg = load_config(out / rows[-1]["run_dir"] / "config.toml")
    again = simulate(cfg, None, tmp_path / "again", run_id="again")
    assert again.summary["sustained_throughput_ips"] == float(rows[-1]["sustained_ips"])


def test_two_workers_and_one_give_byte_identical_tables(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tables = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        code, _, err = run_cli(["sweep", str(tiny_sweep), "--workers", workers, "--out", str(out)], capsys)
        assert code == 0, err
        tables.append((out / "results.csv").read_bytes())
    assert tables[0] == tables[1]


def test_a_failing_point_is_recorded_and_the_others_complete(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    sweep = load_sweep(tiny_sweep)
    doomed = sweep.points[2].point_id
    real = point_mod._simulate

    def flaky(task: point_mod.PointTask, run_dir: Path) -> dict:
        if task.point_id == doomed:
            raise RuntimeError("disk on fire")
        return real(task, run_dir)

    monkeypatch.setattr(point_mod, "_simulate", flaky)
    out = tmp_path / "out"
    code, _, err = run_cli(["sweep", str(tiny_sweep), "--workers", "1", "--out", str(out)], capsys)
    assert code == 1
    assert f"1 of {len(sweep.points)} points failed" in err and "Traceback" not in err
    rows = read_table(out / "results.csv")
    assert len(rows) == len(sweep.points)
    bad = [r for r in rows if r["status"] == "error"]
    assert [r["point_id"] for r in bad] == [doomed]
    assert "RuntimeError: disk on fire" in bad[0]["error"] and bad[0]["sustained_ips"] == ""
    assert all(r["sustained_ips"] != "" for r in rows if r["status"] == "ok")


class _Interrupt:
    def __init__(self, after: int) -> None:
        self.after = after
        self.seen = 0

    def __call__(self, _result: object) -> None:
        self.seen += 1
        if self.seen == self.after:
            raise KeyboardInterrupt


def test_resume_after_an_interrupted_sweep_runs_only_the_missing_points(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = load_sweep(tiny_sweep)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_sweep(sweep, LocalExecutor(1), out, on_result=_Interrupt(3))
    partial = read_table(out / "results.csv")  # the table is written on the way out
    assert [r["point_id"] for r in partial] == [p.point_id for p in sweep.points[:3]]
    done = {
        p.point_id: (out / "runs" / p.point_id / "summary.json").stat().st_mtime_ns for p in sweep.points[:3]
    }
    # A worker killed mid-run leaves a folder without summary.json: it is not complete.
    stray = out / "runs" / sweep.points[3].point_id
    stray.mkdir()
    (stray / "trace.csv").write_text("t_s\n0.0\n", encoding="utf-8")
    assert len(ledger_rows(out)) == 3

    code, text, err = run_cli(
        ["sweep", str(tiny_sweep), "--workers", "2", "--out", str(out), "--resume"], capsys
    )
    assert code == 0, err
    n = len(sweep.points)
    assert f"{n} points: {n - 3} ran, 3 reused, 0 failed" in text
    assert len(ledger_rows(out)) == n  # one new ledger row per missing point, none for reused ones
    assert {pid: (out / "runs" / pid / "summary.json").stat().st_mtime_ns for pid in done} == done
    assert load_summary(stray)["run_id"] == sweep.points[3].point_id

    fresh = tmp_path / "fresh"
    code, _, _ = run_cli(["sweep", str(tiny_sweep), "--workers", "1", "--out", str(fresh)], capsys)
    assert code == 0
    assert (out / "results.csv").read_bytes() == (fresh / "results.csv").read_bytes()


def test_dry_run_counts_points_and_estimates_time_without_running(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, text, _ = run_cli(
        ["sweep", str(tiny_sweep), "--dry-run", "--workers", "2", "--out", str(out)], capsys
    )
    assert code == 0
    assert text.startswith("8 points, 480 simulated seconds") and "on 2 local workers" in text
    assert not out.exists()
    code, text, _ = run_cli(["sweep", str(tiny_sweep), "--dry-run", "--json", "--workers", "2"], capsys)
    doc = json.loads(text)
    assert doc["points"] == 8 and doc["simulated_s"] == 480.0
    assert doc["estimated_s"] == pytest.approx(doc["estimated_s_one_worker"] / 2)
    assert doc["estimated_s_one_worker"] == pytest.approx(480.0 * doc["wall_s_per_simulated_s"])


def test_json_reports_the_best_point_of_the_table(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code, text, _ = run_cli(["sweep", str(tiny_sweep), "--workers", "1", "--out", str(out), "--json"], capsys)
    assert code == 0
    doc = json.loads(text)
    rows = read_table(out / "results.csv")
    ok = [r for r in rows if float(r["time_above_trip_s"]) <= 1]
    best = max(ok, key=lambda r: float(r["sustained_ips"]))
    assert doc["best"]["point_id"] == best["point_id"] and doc["points"] == doc["ran"] == 8
    assert doc["best"]["params"]["ambient"] == float(best["ambient"])


def test_dask_executor_without_the_extra_is_an_input_error(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    out = tmp_path / "out"
    code, text, err = run_cli(["sweep", str(tiny_sweep), "--executor", "dask", "--out", str(out)], capsys)
    assert code == 2 and text == "" and not out.exists()
    assert (
        err
        == "thermogov: error: --executor dask: the dask extra is not installed; pip install 'thermogov[dask]'\n"
    )


def test_a_killed_local_worker_loses_no_point(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sweep = load_sweep(tiny_sweep)
    ex = LocalExecutor(2)
    killed: list[int] = []

    def kill_one(_r: object) -> None:
        pids = ex.worker_pids()
        if not killed and pids:
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    with ex:
        run = run_sweep(sweep, ex, tmp_path / "out", on_result=kill_one)
    assert killed and run.complete and run.failed == 0
    fresh = tmp_path / "fresh"
    code, _, _ = run_cli(["sweep", str(tiny_sweep), "--workers", "1", "--out", str(fresh)], capsys)
    assert code == 0
    assert (tmp_path / "out" / "results.csv").read_bytes() == (fresh / "results.csv").read_bytes()


@pytest.mark.skipif(not table_mod.parquet_available(), reason="pyarrow is not installed (the parquet extra)")
def test_parquet_holds_the_same_table_as_the_csv(
    tiny_sweep: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import pyarrow.parquet as pq

    out = tmp_path / "out"
    code, _, _ = run_cli(["sweep", str(tiny_sweep), "--workers", "1", "--out", str(out)], capsys)
    assert code == 0
    pt = pq.read_table(out / "results.parquet").to_pylist()
    rows = read_table(out / "results.csv")
    assert [r["point_id"] for r in pt] == [r["point_id"] for r in rows]
    for p, c in zip(pt, rows, strict=True):
        assert p["sustained_ips"] == float(c["sustained_ips"]) and p["heatsink"] == float(c["heatsink"])
        assert p["status"] == c["status"] == "ok" and p["ended"] == c["ended"]
