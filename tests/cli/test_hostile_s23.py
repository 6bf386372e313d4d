"""Hostile round, session 23 (docs/hardware.md, "Session 23e"): inputs that were misnamed, or
ended in "internal error", driven through the installed script.

``thermogov import`` of a named pipe nobody writes to said the file was empty; ``--board``, ``plot``
and ``calibrate`` given a named pipe or a symbolic-link loop said there was no such file; ``plot``
of a file with one field over the csv module's limit (a 1 GB sparse file) ended in "internal
error".  Each is now one line naming the file and what it is, exit 2.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov, thermogov_fd
from tests.hw import fakesys

HANG_GUARD_S = 60  # a guard, not a wait


def _fifo(tmp: Path, name: str = "pipe.toml") -> Path:
    f = tmp / name
    os.mkfifo(f)
    return f


def _loop(tmp: Path) -> Path:
    f = tmp / "loop.toml"
    f.symlink_to(f.name)
    return f


def test_import_of_a_named_pipe_says_so(tmp_path: Path) -> None:
    f = _fifo(tmp_path, "tegrastats.log")
    p = thermogov("import", str(f), "--out", str(tmp_path / "o"), timeout=HANG_GUARD_S)
    line = one_line_error(p, "named pipe")
    assert str(f) in line and "empty" not in line
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", ["fifo", "loop", "dangling"])
@pytest.mark.parametrize("cmd", ["sim", "doctor"])
def test_board_that_is_no_regular_file_is_named_for_what_it_is(tmp_path: Path, cmd: str, kind: str) -> None:
    if kind == "fifo":
        f, said = _fifo(tmp_path), "is a named pipe"
    elif kind == "loop":
        f, said = _loop(tmp_path), "is a symbolic-link loop"
    else:
        f, said = tmp_path / "gone.toml", "is a symbolic link to no file"
        f.symlink_to("nowhere.toml")
    args = ["--board", str(f)]
    if cmd == "sim":
        args += ["--duration", "5", "--out", str(tmp_path / "o")]
    else:
        fakesys.rpi5(tmp_path / "root")
        args += ["--sysfs-root", str(tmp_path / "root")]
    p = thermogov(cmd, *args, timeout=HANG_GUARD_S)
    line = one_line_error(p, said)
    assert line.startswith(f"thermogov: error: --board: {f} ")
    assert "no such file" not in line
    assert not (tmp_path / "o").exists()


def test_board_that_does_not_exist_is_still_no_such_file(tmp_path: Path) -> None:
    p = thermogov(
        "sim", "--board", str(tmp_path / "nope.toml"), "--duration", "5", "--out", str(tmp_path / "o")
    )
    one_line_error(p, f"--board: no such file {tmp_path / 'nope.toml'}")


def test_board_from_process_substitution_is_named_a_pipe(tmp_path: Path) -> None:
    """``--board <(...)``: the profile is read more than once, so a pipe cannot serve; said as
    a pipe, not as a missing file (main: "no such file /dev/fd/N")."""
    p = thermogov_fd(
        "sim", "--board", "/dev/fd/{fd}", "--duration", "5", "--out", str(tmp_path / "o"), data=b"[board]\n"
    )
    one_line_error(p, "is a pipe, not a regular file")


@pytest.mark.parametrize("kind", ["fifo", "loop"])
@pytest.mark.parametrize("cmd", ["plot", "calibrate"])
def test_plot_and_calibrate_name_a_pipe_or_a_loop(tmp_path: Path, cmd: str, kind: str) -> None:
    f = _fifo(tmp_path, "trace.csv") if kind == "fifo" else _loop(tmp_path)
    args = [cmd, str(f), "--out", str(tmp_path / "o")]
    if cmd == "calibrate":
        args += ["--board", "rpi5"]
    p = thermogov(*args, timeout=HANG_GUARD_S)
    line = one_line_error(p, "named pipe" if kind == "fifo" else "symbolic-link loop")
    assert "no such" not in line


def test_plot_of_a_field_over_the_csv_limit_is_bad_input_not_an_internal_error(tmp_path: Path) -> None:
    """The first 200 KB of a sparse file (NUL bytes, no newline): one cell over csv's 128 KiB."""
    f = tmp_path / "trace.csv"
    f.write_bytes(b"t_s,fused_c\n" + b"\x00" * 200_000)
    p = thermogov("plot", str(f), "--out", str(tmp_path / "o"))
    line = one_line_error(p, "not CSV text")
    assert str(f) in line
