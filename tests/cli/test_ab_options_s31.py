"""Session 31h: ``ab``'s own options with hostile values, through the installed script.

27h's driver stopped at ``--policy`` (two arms); this round drove ``--pairs``, ``--block``,
``--cool-down``, ``--confidence``, ``--seed``, ``--workload``, ``--lock-dir``, ``--count-regex``
and ``--out`` on an emulated Orin Nano tree (docs/sweeps.md, Session 31h).  What misbehaved:

* ``--block`` shorter than two control periods (``50ms``) ran block 1 and stopped with "the
  workload reported no inferences; check it runs on this board", exit 1: the block cannot
  measure, so it is bad input, exit 2, before the board is touched;
* ``--cool-down 0ms`` was refused ("must be a positive duration") while ``0`` and ``0s`` are
  "no cool-down";
* ``--pairs 100000000000000000000`` said "use a value in -2147483647..2147483647" and
  ``--confidence nan`` "give a plain number", where every other bad value names the option's
  own range;
* ``--workload "builtin "`` ran (a padded keyword read after a strip, ``BUILTIN`` refused).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.ab.test_ab_cli import daemon_args, tree
from tests.cli.script import one_line_error, thermogov
from tests.cliutil import run_cli
from thermogov.interfaces import ConfigError
from thermogov.units import parse_duration_or_zero_s

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="ab runs only as root")
WORKLOAD = "cmd:sh -c 'while :; do echo x; sleep 0.05; done'"


def _ab(tmp: Path, *extra: str) -> list[str]:
    base = ["--policy", "stepped", "--policy", "hysteresis", "--pairs", "2", "--block", "1s"]
    return daemon_args("ab", tmp, tree(tmp), *base, "--cool-down", "0", "--workload", WORKLOAD, *extra)


CASES = {
    "a block of one tick": (["--block", "50ms"], "--block: 0.05 s is shorter than two control periods"),
    "a zero cool-down in ms": (
        ["--cool-down", "0ms", "--block", "50ms"],  # 0ms is taken: the block is the next check
        "--block: 0.05 s is shorter than two control periods",
    ),
    "a padded builtin": (["--workload", "builtin "], "--workload: 'builtin ' holds a space"),
}


@root_only
@pytest.mark.parametrize("extra,needle", CASES.values(), ids=list(CASES))
def test_ab_refuses_in_one_line_and_touches_nothing(tmp_path: Path, extra: list[str], needle: str) -> None:
    args = _ab(tmp_path, *extra)
    root = tmp_path / "board"
    before = {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    one_line_error(thermogov(*args, timeout=120), needle)
    assert {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()} == before
    assert not (tmp_path / "out").exists() and not (tmp_path / "state").exists()


@pytest.mark.parametrize(
    "extra,needle",
    [
        (
            ["--pairs", "100000000000000000000"],
            "--pairs: '100000000000000000000' is out of range; give 2 <= pairs <= 1000",
        ),
        (["--pairs", "1"], "give 2 <= pairs <= 1000"),
        (
            ["--confidence", "nan"],
            "--confidence: 'nan' is out of range (not a finite number); give 0.5 <= confidence < 1",
        ),
        (["--confidence", "1"], "give 0.5 <= confidence < 1"),
    ],
    ids=["huge pairs", "one pair", "nan confidence", "confidence 1"],
)
def test_ab_names_its_own_range_for_every_bad_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], needle: str
) -> None:
    """Read by the option types, before the tree is looked at: in-process, through the real
    entry point (exit status and stderr), no tree needed."""
    code, _out, err = run_cli(
        ["ab", "--policy", "stepped", "--policy", "hysteresis", "--workload", "builtin", *extra], capsys
    )
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0], (code, err)


@pytest.mark.parametrize("text", ["0", "0s", "0ms", "0.0m", "00", "٠", "٠ms"])
def test_zero_in_any_unit_is_no_cool_down(text: str) -> None:
    assert parse_duration_or_zero_s(text, "--cool-down") == 0.0


@pytest.mark.parametrize(
    "text,needle", [("0 ", "holds a space"), ("-0", "cannot read"), ("0.5ms", "shorter than 1 ms")]
)
def test_a_cool_down_that_is_no_duration_is_still_refused(text: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=r"^--cool-down: ") as e:
        parse_duration_or_zero_s(text, "--cool-down")
    assert needle in str(e.value)
