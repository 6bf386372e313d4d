"""Hostile round, session 27 (docs/sweeps.md, "Session 27h"): session 26's leftovers and new
inputs, through the installed script.

* A reader that closes stdout early (``thermogov boards | head -1``) ended the command with
  exit 1 when the close came before the last write and 0 when the output fitted the pipe first
  (click's EPIPE handling), so a ``set -o pipefail`` script saw either.  The reader going now
  changes only what it reads: the rest goes to ``/dev/null`` and the command exits with its
  own status.  Output that cannot be written at all (``>/dev/full``) is still one line, exit 1.
* ``emulate --speed 1e-300`` (any speed above 0) was accepted and emulated "0.0 s of board
  time"; the speed is now bounded below as above: ``MIN_SPEED = 1 / MAX_SPEED``.
* ``doctor --board /dev/zero`` on a root holding no board said "no board here" (exit 1) before
  judging the --board value; a bad --board is now bad input first.
* ``run --inferences-file`` naming a FIFO, a device, a symbolic link (the counter is opened
  ``O_NOFOLLOW``) or a path through a file (ENOTDIR) ran, saying "inference counter: ..." at
  each look, and a dry run passed it; now one line and exit 2 in both, the board untouched.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT, one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, paths


def _closed_reader(*args: str) -> subprocess.CompletedProcess[str]:
    """``thermogov ARGS`` with stdout a pipe whose reader has already gone: every write is EPIPE
    (the order ``| head -1`` reaches when it exits before the command's next write)."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run(
            [SCRIPT, *args], stdout=w, stderr=subprocess.PIPE, text=True, timeout=120, check=False
        )
    finally:
        os.close(w)


@pytest.mark.parametrize("args", [("boards",), ("boards", "--json"), ("--help",)])
def test_a_reader_gone_before_the_output_leaves_the_command_s_own_status(args: tuple[str, ...]) -> None:
    p = _closed_reader(*args)
    assert p.returncode == 0, (p.returncode, p.stderr)  # main: 1 (0 when the output fitted first)
    assert p.stderr == ""


def test_a_reader_gone_does_not_hide_a_bad_input() -> None:
    p = _closed_reader("boards", "--no-such-option")
    one_line_error(p, "--no-such-option")


def test_output_that_cannot_be_written_is_one_line_and_exit_1() -> None:
    """A guard for the writer above (passes on main too): ``>/dev/full`` is a runtime failure,
    said once, with no "Exception ignored" trace from the interpreter's last flush."""
    with open("/dev/full", "w") as full:
        p = subprocess.run([SCRIPT, "boards"], stdout=full, stderr=subprocess.PIPE, text=True, check=False)
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("thermogov: error:") and "No space left" in lines[0]


@pytest.mark.parametrize("speed", ["1e-300", "5e-324", "0.001"])
def test_emulate_refuses_a_speed_at_which_the_board_does_not_move(tmp_path: Path, speed: str) -> None:
    root = tmp_path / "b"
    p = thermogov("emulate", "--sysfs-root", str(root), "--speed", speed, "--wall-duration", "0.1s")
    one_line_error(p, "--speed")
    assert "0.01 <= speed <= 100" in p.stderr
    assert not root.exists()


@pytest.mark.parametrize("board", ["/dev/zero", "no-such-board"])
def test_doctor_judges_board_before_saying_no_board(tmp_path: Path, board: str) -> None:
    (tmp_path / "empty").mkdir()
    p = thermogov("doctor", "--sysfs-root", str(tmp_path / "empty"), "--board", board)
    one_line_error(p, "--board")  # main: "no board here", exit 1


def _counter(tmp: Path, kind: str) -> Path:
    if kind == "fifo":
        os.mkfifo(tmp / "fifo")
        return tmp / "fifo"
    if kind == "device":
        return Path("/dev/zero")
    if kind == "link-loop":
        (tmp / "loop").symlink_to(tmp / "loop")
        return tmp / "loop"
    if kind == "link-to-file":
        (tmp / "real").write_text("0\n")
        (tmp / "link").symlink_to(tmp / "real")
        return tmp / "link"
    (tmp / "afile").write_text("x\n")  # "through-file": a path under a regular file
    return tmp / "afile" / "inferences"


@pytest.mark.parametrize("dry", [True, False], ids=["dry-run", "run"])
@pytest.mark.parametrize("kind", ["fifo", "device", "link-loop", "link-to-file", "through-file"])
def test_an_inference_counter_no_file_can_be_read_at_is_bad_input(
    tmp_path: Path, kind: str, dry: bool
) -> None:
    tree = fakesys.rpi5(tmp_path / "root", cpu_mc=90000)
    before = tree.snapshot()
    counter = _counter(tmp_path, kind)
    extra = ["--dry-run"] if dry else []
    p = thermogov(
        "run", *paths(tmp_path), "--duration", "0.3s", "--out", str(tmp_path / "out"),
        "--inferences-file", str(counter), *extra, timeout=DEADLINE_S,
    )  # fmt: skip
    one_line_error(p, f"--inferences-file {counter}")  # main: ran, exit 0, a warning a look
    assert tree.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("opt", ["--wall-duration", "--warm-up", "--duration"])
def test_emulate_judges_an_empty_duration(tmp_path: Path, opt: str) -> None:
    """``--wall-duration ''`` ran until Ctrl-C on main (an empty value read as "not given"; the
    driver's 20 s timeout ended it), ``--warm-up ''`` was no warm-up: now each is judged."""
    root = tmp_path / "b"
    p = thermogov("emulate", "--sysfs-root", str(root), opt, "", timeout=60)
    one_line_error(p, f"{opt}: cannot read '' as a duration")
    assert not root.exists()


@pytest.mark.parametrize("kind", ["loop", "link-into-missing-folder"])
def test_compare_judges_a_csv_path_no_file_can_be_written_at_before_any_run(
    tmp_path: Path, kind: str
) -> None:
    """Main ran every run, then failed to open the CSV: exit 1, "check the disk"."""
    csv = tmp_path / "c.csv"
    csv.symlink_to(csv if kind == "loop" else tmp_path / "gone" / "c.csv")
    out = tmp_path / "out"
    p = thermogov(
        "compare", "--scenario", "rpi5-steady-25", "--policy", "stepped", "--no-oracle",
        "--duration", "2s", "--csv", str(csv), "--out", str(out),
    )  # fmt: skip
    one_line_error(p, f"--csv: {csv} cannot be written")
    assert not list(out.rglob("summary.json"))  # no run was made
