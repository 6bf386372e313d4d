"""`compare` list options: repeating an option and comma-separating it are the same;
`--json` gives the rows; bad items are one line and exit 2 (through the installed script)."""

from __future__ import annotations

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


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["compare", "--policy", "stepped", "--seed", "1,x"], "--seed: cannot read 'x'"),
        (["compare", "--policy", "stepped,turbo"], "unknown policy 'turbo'"),
    ],
)
def test_bad_list_items_are_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    one_line_error(thermogov(*args, "--out", str(tmp_path / "out")), needle)
    assert not (tmp_path / "out").exists()
