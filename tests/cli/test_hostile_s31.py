"""Session 31h: a hostile round on the subcommands driven least (``emulate``, ``plot``,
``status --watch``, ``service install/uninstall``, ``boards``, ``doctor``), through the installed
script.  Faults found and fixed, each by a rule (docs/sweeps.md, Session 31h):

* an empty ``--board ''`` (an unset variable) was ``Path("")``, the working folder: "--board:  is
  a folder", in ``sim``, ``doctor`` and ``emulate``, and ``run`` detected the board as if the
  option were left out; it is now "empty";
* ``doctor --sysfs-root /dev/null`` (a device, a FIFO) passed click's folder check, which
  refuses only a regular file, and said "no board here", exit 1: a folder option that must exist
  now takes only a folder (``run``, ``ab``, ``restore``, ``doctor``), exit 2;
* ``plot ''`` read the working folder (".: no trace.csv in this folder") and ``plot --out ''``
  wrote ``plot.png`` into the first run's folder as if no ``--out`` were given, where every
  other command refuses an empty path;
* ``plot --title`` of 100 000 characters did not end in 40 s (matplotlib's layout): a title or
  label is at most 1 000 characters;
* ``plot --window nan`` said "give a plain number" and ``0`` "must be a number > 0 seconds":
  one range, named in both.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.cliutil import run_cli


@pytest.mark.parametrize("command", ["sim", "doctor", "run"])
def test_an_empty_board_is_said_to_be_empty(tmp_path: Path, command: str) -> None:
    """``run --board ''`` detected the board as if the option were left out."""
    extra = ["--duration", "5", "--out", str(tmp_path / "out")]
    if command == "doctor":
        extra = ["--sysfs-root", str(tmp_path)]
    elif command == "run":  # a fake root (never the real /sys); refused before it is read
        extra += ["--dry-run", "--sysfs-root", str(tmp_path), "--state-dir", str(tmp_path / "state")]
    p = thermogov(command, "--board", "", *extra, cwd=tmp_path)
    one_line_error(p, "--board: empty; give a board name")
    assert not (tmp_path / "out").exists()


def _run_folder(tmp: Path) -> Path:
    """A stand-in run folder: the refusals below come before any run is read."""
    run = tmp / "run"
    run.mkdir()
    (run / "trace.csv").write_text("t_s\n0\n")
    return run


CASES = {
    "an empty run": (["plot", ""], "plot: a run path is empty"),
    "an empty --out": (["plot", "RUN", "--out", ""], "--out: empty; give a path"),
    "a title of 100 000 characters": (
        ["plot", "RUN", "--title", "x" * 100_000],
        "--title: 100000 characters",
    ),
    "a label of 1 001 characters": (["plot", "RUN", "--label", "y" * 1001], "--label: 1001 characters"),
    "a nan window": (["plot", "RUN", "--window", "nan"], "give 0 < window"),
    "a zero window": (["plot", "RUN", "--window", "0"], "give 0 < window"),
}


@pytest.mark.parametrize("args,needle", CASES.values(), ids=list(CASES))
def test_plot_refuses_in_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], needle: str
) -> None:
    """In-process through the real entry point (its exit status and stderr): cheap."""
    run = _run_folder(tmp_path)
    code, _out, err = run_cli([str(run) if a == "RUN" else a for a in args], capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and needle in lines[0], (code, err)
    assert sorted(x.name for x in tmp_path.rglob("*")) == ["run", "trace.csv"]


def test_plot_of_a_huge_title_is_one_line_through_the_installed_script(tmp_path: Path) -> None:
    """The case that hung, through the console script (exit status as a user sees it)."""
    run = _run_folder(tmp_path)
    one_line_error(thermogov("plot", str(run), "--title", "x" * 100_000, cwd=tmp_path), "--title: 100000")
    assert not (run / "plot.png").exists()


def test_a_sysfs_root_that_is_a_device_is_bad_input(tmp_path: Path) -> None:
    p = thermogov("doctor", "--board", "rpi5", "--sysfs-root", "/dev/null", cwd=tmp_path)
    one_line_error(p, "--sysfs-root: '/dev/null' is a device or socket, not a folder")
