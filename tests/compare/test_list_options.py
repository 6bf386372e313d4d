"""`compare` list options: repeating an option and comma-separating it are the same; `--json`
gives the rows; bad items are one line and exit 2 (through the installed script).  `sweep` takes
its lists from a sweep file's [grid] (docs/sweeps.md)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov

QUICK = ("--duration", "60", "--no-oracle", "--json")


def _rows(p: object) -> list[dict[str, object]]:
    assert p.returncode == 0, p.stderr  # type: ignore[attr-defined]
    return json.loads(p.stdout)["rows"]  # type: ignore[attr-defined]


def _key(rows: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return sorted((r["scenario"], r["policy"], r["seed"], r["sustained_ips"]) for r in rows)


def test_compare_repeated_and_comma_lists_agree(tmp_path: Path) -> None:
    comma = _rows(
        thermogov(
            "compare",
            "--scenario",
            "orin-steady-25",
            "--policy",
            "hysteresis,stepped",
            "--seed",
            "1,2",
            *QUICK,
            "--csv",
            str(tmp_path / "a.csv"),
        )
    )
    repeated = _rows(
        thermogov(
            "compare",
            "--scenario",
            "orin-steady-25",
            "--policy",
            "hysteresis",
            "--policy",
            "stepped",
            "--seed",
            "1",
            "--seed",
            "2",
            *QUICK,
            "--csv",
            str(tmp_path / "b.csv"),
        )
    )
    assert _key(comma) == _key(repeated)
    assert {(r["policy"], r["seed"]) for r in comma} == {
        ("hysteresis", 1),
        ("stepped", 1),
        ("hysteresis", 2),
        ("stepped", 2),
    }
    assert {r["scenario"] for r in comma} == {"orin-steady-25-s1", "orin-steady-25-s2"}
    assert (tmp_path / "a.csv").is_file()


SWEEP = """\
[sweep]
scenario = "orin-steady-25"
duration = 60

[grid]
ambient = [{ambient}]
seed = [3]
policy = ["stepped"]
"""


def test_sweep_lists_come_from_the_sweep_file(tmp_path: Path) -> None:
    """`thermogov sweep SWEEP.toml` (the sweep branch) replaced the --ambient/--seed lists by a [grid]."""
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP.format(ambient="20.0, 30.0"), encoding="utf-8")
    p = thermogov("sweep", str(sweep), "--workers", "1", "--json", "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["points"] == 2
    with (tmp_path / "o" / "results.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert sorted((float(r["ambient"]), int(r["seed"]), r["status"]) for r in rows) == [
        (20.0, 3, "ok"),
        (30.0, 3, "ok"),
    ]


def test_the_old_sweep_flags_are_one_line(tmp_path: Path) -> None:
    one_line_error(thermogov("sweep", "--policy", "stepped", "--out", str(tmp_path / "out")), "--policy")
    assert not (tmp_path / "out").exists()


def test_a_bad_sweep_grid_item_is_one_line(tmp_path: Path) -> None:
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP.format(ambient="20.0, nan"), encoding="utf-8")
    one_line_error(thermogov("sweep", str(sweep), "--out", str(tmp_path / "out")), "grid.ambient[1]: nan")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["compare", "--policy", "stepped", "--seed", "1,x"], "--seed: cannot read 'x'"),
        (["compare", "--policy", "stepped", "--seed", "1,nan"], "--seed: cannot read 'nan'"),
        (["compare", "--policy", "stepped,turbo"], "unknown policy 'turbo'"),
    ],
)
def test_bad_list_items_are_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    one_line_error(thermogov(*args, "--out", str(tmp_path / "out")), needle)
    assert not (tmp_path / "out").exists()
