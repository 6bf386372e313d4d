"""The run folder every run leaves: trace, samples, summary, resolved config and ledger."""

from __future__ import annotations

import csv
import dataclasses
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import with_sim
from thermogov.config import Config, load_config
from thermogov.sim.model.runner import simulate
from thermogov.trace import load_samples, load_trace, read_csv_columns


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Config]:
    out = tmp_path_factory.mktemp("traces")
    cfg = with_sim(Config(), duration_s=200.0)
    r = simulate(cfg, out_dir=out)
    assert r.run_dir is not None
    return r.run_dir, r.summary, cfg


def test_trace_has_one_row_per_tick_with_the_documented_columns(run: tuple[Path, dict, Config]) -> None:
    run_dir, _, _ = run
    cols = load_trace(run_dir)
    assert list(cols) == [
        "t_s", "fused_c", "cpu_c", "gpu_c", "battery_c", "sensors_used", "policy_state",
        "cpu_cap_hz", "cpu_freq_hz", "gpu_cap_hz", "gpu_freq_hz", "power_w", "inferences_total", "mode", "load_level",
        "event",
    ]  # fmt: skip
    assert len(cols["t_s"]) == 2001
    assert cols["t_s"][:3] == [0.0, 0.1, 0.2]
    assert set(cols["sensors_used"]) == {"cpu+gpu+battery"}
    assert all(a <= b for a, b in zip(cols["inferences_total"], cols["inferences_total"][1:], strict=False))


def test_every_summary_key_is_named_in_the_trace_format_doc(run: tuple[Path, dict, Config]) -> None:
    """docs/trace-format.md is the summary's reference (notebooks rely on its names); the Li-ion
    limiter's keys were written for a session before the page named them."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "trace-format.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([a-z_0-9]+)`", doc))
    _, summary, _ = run
    assert len(summary) > 30  # the simulator's own figures are there, so the check means something
    assert sorted(k for k in summary if k not in named) == []


def test_samples_follow_each_sensors_own_period(run: tuple[Path, dict, Config]) -> None:
    run_dir, _, _ = run
    s = load_samples(run_dir)
    by = {
        name: [t for t, n in zip(s["t_s"], s["sensor"], strict=True) if n == name]
        for name in ("cpu", "gpu", "battery")
    }
    assert len(by["cpu"]) == 2001 and len(by["gpu"]) == 1334 and len(by["battery"]) == 1001
    assert by["gpu"][1] == 0.15 and by["battery"][1] == 0.2
    assert set(s["ok"]) == {1}


def test_summary_agrees_with_its_own_trace(run: tuple[Path, dict, Config]) -> None:
    run_dir, summary, cfg = run
    on_disk = json.loads((run_dir / "summary.json").read_text())
    assert on_disk == summary
    cols = load_trace(run_dir)
    t, inf, fused = cols["t_s"], cols["inferences_total"], cols["fused_c"]
    mid = t.index(100.0)
    assert summary["sustained_throughput_ips"] == pytest.approx(
        (inf[-1] - inf[mid]) / (t[-1] - t[mid]), rel=1e-4
    )
    assert summary["mean_throughput_ips"] == pytest.approx(inf[-1] / t[-1], rel=1e-4)
    assert summary["max_fused_c"] == pytest.approx(max(fused), abs=1e-3)
    above = sum(0.1 for f in fused[:-1] if f >= 85.0)
    assert summary["time_above_trip_s"] == pytest.approx(above, abs=1e-6)
    assert cols["power_w"][0] is None  # no interval has elapsed at t = 0
    energy = sum(p * 0.1 for p in cols["power_w"][1:])  # each row covers the interval before it
    assert summary["energy_j"] == pytest.approx(energy, rel=2e-3)
    assert summary["inferences_per_joule"] == pytest.approx(inf[-1] / summary["energy_j"], rel=1e-4)
    caps = list(zip(cols["cpu_cap_hz"], cols["gpu_cap_hz"], strict=True))
    assert summary["cap_changes"] == sum(a != b for a, b in itertools.pairwise(caps))
    assert summary["cap_changes"] >= 1
    assert (
        summary["backend"] == "sim" and summary["board"] == "jetson-orin-nano" and summary["seed"] == cfg.seed
    )
    for key in ("p50", "p95", "p99"):
        assert summary["latency_ms"]["total"][key] > 0
    assert summary["max_sensor_c"]["cpu"] >= summary["max_fused_c"] - 10


def test_ledger_gets_one_row_per_run(tmp_path: Path) -> None:
    cfg = with_sim(Config(policy="hysteresis"), duration_s=5.0)
    a = simulate(cfg, out_dir=tmp_path)
    b = simulate(dataclasses.replace(cfg, policy="performance"), out_dir=tmp_path)
    with (tmp_path / "runs.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    assert [r["run_id"] for r in rows] == [a.summary["run_id"], b.summary["run_id"]]
    assert [r["policy"] for r in rows] == ["hysteresis", "performance"]
    assert float(rows[0]["sustained_throughput_ips"]) == a.summary["sustained_throughput_ips"]


def test_config_toml_reproduces_the_run(run: tuple[Path, dict, Config], tmp_path: Path) -> None:
    run_dir, _, _ = run
    cfg = load_config(run_dir / "config.toml")
    again = simulate(cfg, out_dir=tmp_path)
    assert (again.run_dir / "trace.csv").read_text() == (run_dir / "trace.csv").read_text()


def test_loader_tolerates_a_truncated_last_line(run: tuple[Path, dict, Config], tmp_path: Path) -> None:
    run_dir, _, _ = run
    text = (run_dir / "trace.csv").read_text()
    cut = tmp_path / "trace.csv"
    cut.write_text(text[: len(text) - 17])  # a crash mid-line
    cols = read_csv_columns(cut)
    assert len(cols["t_s"]) == 2000


def _append_many(out: str, who: int, n: int, barrier: Any) -> None:
    from thermogov.runs import append_ledger

    barrier.wait()  # every process starts on an empty ledger at once: the header race
    for i in range(n):
        rid = f"w{who}-{i}-" + "x" * 2000  # long rows: a torn write would show
        append_ledger(Path(out), {"run_id": rid, "backend": "sim"}, Path(out) / rid)


def test_ledger_appends_from_many_processes_keep_one_header_and_whole_rows(tmp_path: Path) -> None:
    import multiprocessing as mp

    from thermogov.runs import LEDGER_COLUMNS, LEDGER_FILE

    barrier = mp.Barrier(4)
    procs = [mp.Process(target=_append_many, args=(str(tmp_path), w, 40, barrier)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    with (tmp_path / LEDGER_FILE).open(encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == list(LEDGER_COLUMNS) and rows.count(list(LEDGER_COLUMNS)) == 1
    body = rows[1:]
    assert sorted(r[0] for r in body) == sorted(
        f"w{w}-{i}-" + "x" * 2000 for w in range(4) for i in range(40)
    )
    assert all(len(r) == len(LEDGER_COLUMNS) for r in body)


def _append_one(out: str) -> None:
    from thermogov.runs import append_ledger

    append_ledger(Path(out), {"run_id": "late", "backend": "sim"}, Path(out) / "late")


def test_ledger_append_waits_for_the_lock_another_process_holds(tmp_path: Path) -> None:
    import fcntl
    import multiprocessing as mp

    from thermogov.runs import LEDGER_FILE

    path = tmp_path / LEDGER_FILE
    # spawn, not fork: a forked child would inherit the locked descriptor and wait for itself.
    p = mp.get_context("spawn").Process(target=_append_one, args=(str(tmp_path),))
    try:
        with path.open("a", encoding="utf-8") as held:
            fcntl.flock(held.fileno(), fcntl.LOCK_EX)
            p.start()
            p.join(timeout=3.0)
            assert p.is_alive() and path.read_text(encoding="utf-8") == ""  # blocked, wrote nothing
        p.join(timeout=60)  # closing the file released the lock
        assert p.exitcode == 0
    finally:
        if p.is_alive():
            p.kill()
            p.join()
    with path.open(encoding="utf-8") as fh:
        assert [r[0] for r in csv.reader(fh)] == ["run_id", "late"]


def test_summary_is_replaced_whole_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    from thermogov.runs import write_atomic

    target = tmp_path / "summary.json"
    target.write_text('{"old": 1}\n', encoding="utf-8")
    write_atomic(target, '{"new": 2}\n')
    assert json.loads(target.read_text(encoding="utf-8")) == {"new": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]
