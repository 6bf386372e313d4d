"""``bench/cross_validate.py --param``: values of the key's type, booleans included, and a bad
key or value refused in one line (exit 2) before any run.

Session 12b could not cross-validate ``code_edge`` because the grid took numbers only.
"""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "cross_validate.py"


def _module() -> SimpleNamespace:
    """The script's functions, without running its ``main``."""
    return SimpleNamespace(**runpy.run_path(str(BENCH), run_name="cross_validate_under_test"))


def test_a_boolean_axis_gives_booleans_and_a_number_axis_numbers() -> None:
    cv = _module()
    grid = cv.parse_grid(["code_once=false,true", "margin_c=0.5,1", "board_throttle=yield,avoid"])
    assert grid == {"code_once": [False, True], "margin_c": [0.5, 1.0], "board_throttle": ["yield", "avoid"]}
    assert all(type(v) is bool for v in grid["code_once"])
    assert cv._label({"code_once": True, "margin_c": 1.0}) == "code_once=true,margin_c=1"


def test_a_boolean_candidate_builds_the_policy_with_it_on() -> None:
    """The value reaches the policy as a boolean (a float 1.0 would be refused by the policy's table)."""
    cv = _module()
    cv.check_candidate({"code_once": True})
    cv.check_candidate({"code_edge": False, "margin_c": 1.0})


@pytest.mark.parametrize(
    ("param", "says"),
    [
        ("code_once=maybe", "code_once: 'maybe' is not true or false"),
        ("code_once=1", "code_once: '1' is not true or false"),
        ("margin_c=x", "margin_c: 'x' is not a number"),
        ("margin_c=nan", "margin_c: 'nan' is not a finite number"),
        ("margin_c=-1", "policies.stepped.margin_c"),
        ("board_throttle=yield,bogus", "board_throttle"),
        ("nope=1", "unknown key"),
        ("code_once=", "is not KEY=V1,V2"),
    ],
)
def test_a_bad_param_is_one_line_and_exit_2(param: str, says: str) -> None:
    res = subprocess.run(
        [sys.executable, str(BENCH), "--param", param], capture_output=True, text=True, check=False
    )
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and says in lines[0] and "Traceback" not in res.stderr
