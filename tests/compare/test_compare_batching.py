"""`thermogov compare --batching static,dynamic`: one scenario, the same requests, two batchers."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.cliutil import run_cli
from tests.compare.short import short
from thermogov.sim.compare.batching import batching_variants


def test_variants_differ_only_in_the_batcher() -> None:
    cfg = short("orin-bursty", 60.0)
    (a_label, a), (b_label, b) = batching_variants("orin-bursty", cfg, ["static", "dynamic"], 8, 20.0)
    assert (a_label, b_label) == ("orin-bursty+static", "orin-bursty+dynamic")
    assert (a.sim.workload.batching, b.sim.workload.batching) == ("static", "dynamic")
    for c in (a, b):
        assert (c.sim.workload.batch_size, c.sim.workload.max_wait_ms) == (8, 20.0)
        assert c.seed == cfg.seed and c.sim.workload.rate_ips == cfg.sim.workload.rate_ips
    assert batching_variants("x", cfg, [])[0][0] == "x"


def test_compare_shows_both_batchers_with_p50_and_p99(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp"
    args = ["compare", "--scenario", "orin-bursty", "--policy", "fixed:100%", "--duration", "60"]
    code, text, _ = run_cli(
        [
            *args,
            "--batching",
            "static,dynamic",
            "--batch-size",
            "8",
            "--max-wait-ms",
            "20",
            "--no-oracle",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0 and "p50 ms" in text
    with (out / "compare.csv").open(encoding="utf-8") as fh:
        rows = {r["scenario"]: r for r in csv.DictReader(fh)}
    static, dynamic = rows["orin-bursty+static"], rows["orin-bursty+dynamic"]
    # Same requests, so the same work gets done; the dynamic batcher does not wait to fill a
    # batch the load does not need, so the median request is served sooner.
    assert float(dynamic["sustained_ips"]) == pytest.approx(float(static["sustained_ips"]), rel=0.02)
    assert float(dynamic["p50_ms"]) < float(static["p50_ms"])


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--batching", "greedy"], "--batching"),
        (["--batching", "dynamic", "--max-wait-ms", "inf"], "--max-wait-ms"),
        (["--batching", "dynamic", "--batch-size", "0"], "--batch-size"),
    ],
)
def test_bad_batching_options_exit_2_through_the_script(
    tmp_path: Path, extra: list[str], needle: str
) -> None:
    p = thermogov(
        "compare",
        "--scenario",
        "orin-bursty",
        "--policy",
        "stepped",
        *extra,
        "--out",
        str(tmp_path / "o"),
        cwd=tmp_path,
    )
    one_line_error(p, needle)
    assert not (tmp_path / "o").exists()
