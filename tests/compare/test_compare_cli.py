"""`thermogov compare` through the real entry point: exit 2 on bad input, the CSV."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from tests.cliutil import run_cli
from thermogov.sim.compare.compare import CSV_COLUMNS


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (
            ["compare", "--scenario", "mars-base", "--policy", "stepped"],
            "--scenario: unknown scenario 'mars-base'",
        ),
        (
            ["compare", "--scenario", "orin-steady-25", "--policy", "turbo"],
            "--policy: unknown policy 'turbo'",
        ),
        (["compare", "--scenario", "orin-steady-25"], "--policy: give at least one policy"),
        (
            ["compare", "--scenario", "orin-sensor-spike", "--policy", "stepped", "--duration", "60"],
            "after the end",
        ),
        (["compare", "--scenario", "orin-steady-25", "--policy", "stepped", "--seed", "-1"], "--seed"),
        (
            ["compare", "--scenario", "orin-steady-25", "--policy", "stepped", "--scheduler", "tcp://x:1"],
            "--scheduler: only with --executor dask",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(
    args: list[str],
    fragment: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli([*args, "--out", str(tmp_path / "out")], capsys)
    assert code == 2
    assert err.startswith("thermogov: error: ") and fragment in err and err.count("\n") == 1
    assert out == "" and list(tmp_path.iterdir()) == []


def test_list_names_every_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["compare", "--list"], capsys)
    assert code == 0
    assert {"orin-steady-25", "rpi5-steady-25", "orin-sensor-spike"} <= {
        line.split()[0] for line in out.splitlines()
    }


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert tuple(reader.fieldnames or ()) == CSV_COLUMNS
        return list(reader)


def test_compare_writes_the_table_the_csv_and_the_run_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp"
    args = ["compare", "--scenario", "orin-steady-25", "--scenario", "rpi5-steady-25"]
    code, text, _ = run_cli(
        [*args, "--policy", "hysteresis", "--policy", "stepped", "--duration", "90", "--out", str(out)],
        capsys,
    )
    assert code == 0
    assert "oracle" in text and "%oracle" in text and f"csv: {out / 'compare.csv'}" in text
    rows = _rows(out / "compare.csv")
    assert [(r["scenario"], r["policy"]) for r in rows] == [
        ("orin-steady-25", "hysteresis"),
        ("orin-steady-25", "stepped"),
        ("rpi5-steady-25", "hysteresis"),
        ("rpi5-steady-25", "stepped"),
    ]
    for r in rows:
        assert float(r["sustained_ips"]) > 0 and float(r["oracle_ips"]) >= float(r["sustained_ips"])
        assert float(r["pct_oracle"]) == pytest.approx(
            100 * float(r["sustained_ips"]) / float(r["oracle_ips"]), rel=1e-3
        )
        assert (Path(r["run_dir"]) / "summary.json").exists()
        assert Path(r["run_dir"]).parent == out / r["scenario"]


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--out", "", "--out: empty"),
        ("--out", "/proc/thermogov-compare", "--out: cannot create folder"),
        ("--csv", "", "--csv: empty"),
        ("--csv", "/proc/thermogov-compare/c.csv", "--csv: cannot create folder"),
        ("--csv", "two\nlines.csv", "control character"),
    ],
)
def test_an_unusable_out_or_csv_is_refused_before_any_run(
    option: str, value: str, needle: str, tmp_path: Path
) -> None:
    """Found by the session-11 fuzz: these ran the whole grid, then failed (exit 1) or wrote to ./."""
    from tests.cli.script import one_line_error, thermogov

    p = thermogov(
        "compare",
        "--scenario",
        "orin-steady-25",
        "--policy",
        "hysteresis",
        "--duration",
        "5",
        option,
        value,
        cwd=tmp_path,
    )
    one_line_error(p, needle)
    assert p.stdout == "" and list(tmp_path.iterdir()) == []
