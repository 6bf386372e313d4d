"""A tuned baseline judged by its worst window gets its best probe that kept the bound, no other."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.compare.short import short
from thermogov.config import Config
from thermogov.sim.compare.bestprobe import best_probe_worst, probe_dirs
from thermogov.sim.compare.compare import RunRow

DURATION_S = 200.0


def _run(where: Path, rate: float, *, dip: float | None = None) -> Path:
    """A run folder whose trace completes ``rate`` inferences a second (``dip`` for the first half)."""
    where.mkdir(parents=True)
    lines, total = ["t_s,inferences_total"], 0.0
    for i in range(int(DURATION_S * 10) + 1):
        t = i / 10.0
        lines.append(f"{t:.1f},{total:.3f}")
        total += (dip if dip is not None and t < DURATION_S / 2 else rate) / 10.0
    (where / "trace.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return where


def _row(policy: str, run_dir: Path, above_s: float = 0.0, **kw: object) -> RunRow:
    return RunRow(
        scenario="s",
        board="rpi5",
        policy=policy,
        seed=1,
        ambient_c=25.0,
        sustained_ips=1.0,
        oracle_ips=None,
        max_fused_c=None,
        max_sensor_c={},
        above_trip_s=above_s,
        hard_limit_s=0.0,
        energy_per_inference_j=None,
        p99_ms=None,
        cap_changes=0,
        run_dir=str(run_dir),
        **kw,  # type: ignore[arg-type]
    )


def _cfg() -> Config:
    return short("rpi5-steady-25", DURATION_S)


def test_the_best_worst_window_among_the_probes_that_finished_wins(tmp_path: Path) -> None:
    cfg = _cfg()
    # The search reported probe 1 (best steady window: 30 in the last half) but its first half
    # is 5; probe 2 runs 12 throughout and is best by worst window.  A run that missed the bound
    # (``-iso-missed``) and anything but numbered probes are not candidates.
    chosen = _run(tmp_path / "step_wise-iso-1", 30.0, dip=5.0)
    _run(tmp_path / "step_wise-iso-2", 12.0)
    _run(tmp_path / "step_wise-iso-missed", 50.0)
    _run(tmp_path / "step_wise-iso-3x", 50.0)
    hyst = _run(tmp_path / "hysteresis", 1.0)
    iso = _row("step_wise@iso", chosen, 0.1, iso_bound_s=0.1, tuned_trip_c=80.0)
    plain = _row("step_wise", _run(tmp_path / "step_wise", 40.0), above_s=300.0)
    block = {"hysteresis": _row("hysteresis", hyst, 0.1), "step_wise": plain, "step_wise@iso": iso}
    assert [d.name for d in probe_dirs(cfg, block, "step_wise")] == ["step_wise-iso-1", "step_wise-iso-2"]
    assert best_probe_worst(cfg, block, "step_wise") == pytest.approx(12.0)


def test_the_plain_run_counts_only_when_it_kept_the_bound(tmp_path: Path) -> None:
    cfg = _cfg()
    iso = _row(
        "step_wise@iso", _run(tmp_path / "step_wise-iso-1", 10.0), 0.0, iso_bound_s=0.1, tuned_trip_c=85.0
    )
    plain = _row("step_wise", _run(tmp_path / "step_wise", 15.0), above_s=0.1)
    block = {"step_wise": plain, "step_wise@iso": iso}
    assert best_probe_worst(cfg, block, "step_wise") == pytest.approx(15.0)
    block["step_wise"] = dataclasses.replace(plain, above_trip_s=0.3)
    assert best_probe_worst(cfg, block, "step_wise") == pytest.approx(10.0)


def test_no_probe_that_kept_the_bound_gives_no_baseline(tmp_path: Path) -> None:
    cfg = _cfg()
    missed = _run(tmp_path / "step_wise-iso-missed", 50.0)
    iso = _row("step_wise@iso", missed, 250.0, iso_bound_s=0.1, tuned_trip_c=60.0)
    assert best_probe_worst(cfg, {"step_wise@iso": iso}, "step_wise") is None
    assert best_probe_worst(cfg, {}, "step_wise") is None
