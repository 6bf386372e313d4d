"""``thermogov compare`` with a policy variant beside the stock policy (the parser ``ab`` uses)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov.config import load_config

VARIANT = "stepped+release_frontier=true"


def test_a_variant_row_runs_beside_the_stock_policy_with_its_parameters_recorded(tmp_path: Path) -> None:
    p = thermogov(
        "compare",
        "--scenario",
        "orin-steady-25",
        "--policy",
        f"stepped,{VARIANT}",
        "--duration",
        "60",
        "--no-oracle",
        "--json",
        "--out",
        str(tmp_path / "out"),
    )
    assert p.returncode == 0, p.stderr
    rows = {r["policy"]: r for r in json.loads(p.stdout)["rows"]}
    assert set(rows) == {"stepped", VARIANT}
    stock = load_config(Path(rows["stepped"]["run_dir"]) / "config.toml")
    variant = load_config(Path(rows[VARIANT]["run_dir"]) / "config.toml")
    assert stock.policy == variant.policy == "stepped"
    assert "release_frontier" not in stock.policies.get("stepped", {})
    assert variant.policies["stepped"]["release_frontier"] is True
    assert rows["stepped"]["run_dir"] != rows[VARIANT]["run_dir"]


@pytest.mark.parametrize(
    ("arm", "needle"),
    [
        (
            "stepped+release_frontier=maybe",
            "--policy 'stepped+release_frontier=maybe': release_frontier: expected",
        ),
        ("stepped+relase_frontier=true", "relase_frontier: unknown key"),
        ("stepped+trip_c=nan", "trip_c=nan is not a finite number"),
        ("stepped+trip_c", "cannot read '+trip_c' as +key=value"),
        # a key at its default is the plain arm (session 21c): two rows of one run
        ("stepped+release_frontier=false", "'stepped' and 'stepped+release_frontier=false' run the same"),
    ],
)
def test_a_bad_variant_is_one_line_exit_2_before_any_run(tmp_path: Path, arm: str, needle: str) -> None:
    p = thermogov(
        "compare",
        "--scenario",
        "orin-steady-25",
        "--policy",
        f"stepped,{arm}",
        "--out",
        str(tmp_path / "out"),
    )
    one_line_error(p, needle)
    assert not (tmp_path / "out").exists()
