"""``run_ab``'s order of daemon runs, and a stopped block ending the comparison."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from thermogov.board import load_board
from thermogov.config import Config
from thermogov.hw.ab import COOL_DOWN_POLICY, AbOptions, run_ab
from thermogov.hw.daemon import RunOptions
from thermogov.interfaces import RuntimeFailure
from thermogov.sim.emulator.emulate import Emulator


def _opts(tmp: Path, **kw: Any) -> AbOptions:
    root = tmp / "board"
    Emulator(load_board("jetson-orin-nano"), root, Config())
    base = RunOptions(
        config=Config(), sysfs_root=root, board="jetson-orin-nano", workload="builtin", out=tmp / "o"
    )
    return AbOptions(base, "stepped", "hysteresis", **{"pairs": 3, "block_s": 5.0, "cool_down_s": 2.0, **kw})


def test_each_block_follows_a_cool_down_and_the_schedule_is_the_seeded_one(tmp_path: Path) -> None:
    calls: list[tuple[str, float, str]] = []

    def fake(ropts: RunOptions, **_: Any) -> dict[str, Any]:
        calls.append((ropts.config.policy, ropts.duration_s, ropts.out.name))
        thr = {"stepped": 10.0, "hysteresis": 8.0}.get(ropts.config.policy, 1.0)
        return {
            "stopped_by": "duration",
            "sustained_throughput_ips": thr + len(calls) * 0.01,
            "max_fused_c": 80.0,
        }

    res, blocks = run_ab(_opts(tmp_path), run_block=fake)
    assert [c[0] for c in calls[::2]] == [COOL_DOWN_POLICY] * 6
    assert [c[0] for c in calls[1::2]] == [b.policy for b in blocks]
    assert all(c[1] == 2.0 for c in calls[::2]) and all(c[1] == 5.0 for c in calls[1::2])
    assert {c[2] for c in calls[1::2]} == {f"block-{i:02d}" for i in range(1, 7)}
    assert res.verdict == "stepped sustains more" and 1.9 < res.diff_ips < 2.1


def test_a_block_stopped_by_a_signal_ends_the_comparison(tmp_path: Path) -> None:
    n = [0]

    def fake(ropts: RunOptions, **_: Any) -> dict[str, Any]:
        n[0] += 1
        stop = "SIGTERM" if n[0] == 3 else "duration"
        return {"stopped_by": stop, "sustained_throughput_ips": 1.0, "max_fused_c": 70.0}

    with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
        run_ab(_opts(tmp_path), run_block=fake)
    assert n[0] == 3  # nothing ran after the stopped block


def test_a_block_without_inferences_is_a_runtime_failure(tmp_path: Path) -> None:
    def fake(ropts: RunOptions, **_: Any) -> dict[str, Any]:
        return {"stopped_by": "duration", "sustained_throughput_ips": None, "max_fused_c": 70.0}

    with pytest.raises(RuntimeFailure, match="no inferences"):
        run_ab(_opts(tmp_path, cool_down_s=0.0), run_block=fake)


def test_the_text_report_names_the_difference_interval_temperatures_and_verdict(
    monkeypatch, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from thermogov.abtest import Block, summarise
    from thermogov.hw import ab, cli

    blocks = [Block(i, p, v, t) for i, (p, v, t) in enumerate([("A", 10.0, 80.0), ("B", 8.0, 75.0)] * 2)]
    monkeypatch.setattr(ab, "run_ab", lambda opts, log: (summarise(blocks, "A", "B"), blocks))
    monkeypatch.setattr("thermogov.hw.daemon.check_privileges", lambda dry: None)
    res = CliRunner().invoke(
        cli.ab_command, ["--policy", "A", "--policy", "B", "--sysfs-root", str(tmp_path)]
    )
    assert res.exit_code == 0, res.output
    last = res.output.strip().splitlines()[-1]
    assert "A - B: +2.000 inf/s (+25.00 %" in last and "over 2 pairs" in last
    assert "max fused 80.0 / 75.0 °C" in last and last.endswith("A sustains more")
