"""Session 30i (docs/sweeps.md): CLI edges 29i left, through the installed script.

* ``status`` with ``THERMOGOV_LOCK_DIR`` (or ``--lock-dir``) naming no folder said "no thermogov
  state", exit 1, as if no daemon ran: it is bad input, exit 2, the rule ``run`` has.
* ``--lock-dir`` moved the board lock and the caps record but not ``state.json`` nor the
  ``inferences`` counter, which stayed in ``THERMOGOV_LOCK_DIR``'s folder (or /run/thermogov):
  the runtime folder is one, for ``run``, ``ab``, ``restore`` and ``status`` alike.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT, one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, paths, start_run, wait_line
from tests.runtimedir import child_env


def _status(*args: str, lock_env: str | None) -> subprocess.CompletedProcess[str]:
    env = child_env()
    if lock_env is not None:
        env["THERMOGOV_LOCK_DIR"] = lock_env
    return subprocess.run(
        [SCRIPT, "status", *args], capture_output=True, text=True, env=env, timeout=DEADLINE_S, check=False
    )


def _not_folders(tmp: Path) -> dict[str, str]:
    plain = tmp / "plain-file"
    plain.write_text("x")
    fifo = tmp / "fifo"
    os.mkfifo(fifo)
    return {
        "a regular file": str(plain),
        "a named pipe": str(fifo),
        "/dev/null": "/dev/null",
        "/proc/self": "/proc/self",
        "a path through a file": str(plain / "sub"),
    }


@pytest.mark.parametrize(
    "kind", ["a regular file", "a named pipe", "/dev/null", "/proc/self", "a path through a file"]
)
def test_status_with_a_runtime_variable_that_is_no_folder_is_bad_input(tmp_path: Path, kind: str) -> None:
    value = _not_folders(tmp_path)[kind]
    p = _status(lock_env=value)
    line = one_line_error(p, "THERMOGOV_LOCK_DIR")  # main: exit 1, "<value>/state.json: no thermogov state"
    assert repr(value) in line and p.stdout == ""


@pytest.mark.parametrize("kind", ["a regular file", "/dev/null", "a path through a file"])
def test_status_with_a_lock_dir_option_that_is_no_folder_is_bad_input(tmp_path: Path, kind: str) -> None:
    value = _not_folders(tmp_path)[kind]
    p = _status("--lock-dir", value, lock_env=str(tmp_path / "fine"))
    line = one_line_error(p, "--lock-dir")
    assert "not a folder" in line or "cannot be" in line, line  # main: "No such option"
    assert "THERMOGOV_LOCK_DIR" not in line


def test_status_of_a_runtime_folder_with_no_daemon_is_still_no_state(tmp_path: Path) -> None:
    """A folder (or one still to be made) holding no state: no daemon, exit 1, as before."""
    for folder in (tmp_path, tmp_path / "not-yet"):
        p = _status(lock_env=str(folder))
        assert p.returncode == 1 and "no thermogov state" in p.stderr, p.stderr


def test_status_state_option_is_read_whatever_the_runtime_variable_says(tmp_path: Path) -> None:
    """``--state`` names the file: the runtime folder is not used, so not judged either."""
    p = _status("--state", str(tmp_path / "state.json"), lock_env="/dev/null")
    assert p.returncode == 1 and "no thermogov state" in p.stderr, p.stderr


def test_run_lock_dir_alone_moves_the_inference_counter(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    moved, variable = tmp_path / "moved", tmp_path / "variable"
    env = child_env()
    env["THERMOGOV_LOCK_DIR"] = str(variable)
    p = subprocess.run(
        [SCRIPT, "run", *paths(tmp_path), "--lock-dir", str(moved), "--out", str(tmp_path / "out"),
         "--duration", "1s"],
        capture_output=True, text=True, env=env, timeout=DEADLINE_S, check=False,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert (moved / "inferences").is_file()  # main: made in the variable's folder
    assert not (variable / "inferences").exists()
    assert list(moved.glob("board-*.lock")) and not list(variable.glob("board-*.lock"))


def _poll(check, what: str):  # type: ignore[no-untyped-def]
    """``check()`` once it is true, under the generous deadline; the condition decides, not time."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        select.select([], [], [], 0.02)
    raise AssertionError(f"timed out waiting for {what}")


def test_run_lock_dir_alone_publishes_the_state_where_status_lock_dir_reads_it(tmp_path: Path) -> None:
    fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    moved, variable = tmp_path / "moved", tmp_path / "variable"
    env = child_env()
    env["THERMOGOV_LOCK_DIR"] = str(variable)
    proc = start_run(tmp_path, "--lock-dir", str(moved), env=env)
    try:
        line = wait_line(proc, "thermogov: started")
        assert f"state={moved / 'state.json'}" in line, line  # main: the variable's folder
        _poll(lambda: (moved / "state.json").is_file(), "the state file in --lock-dir")
        assert not (variable / "state.json").exists()
        p = _status("--lock-dir", str(moved), "--json", lock_env=str(variable))
        assert p.returncode == 0, p.stderr
        assert json.loads(p.stdout)["pid"] == proc.pid
        p = _status(lock_env=str(moved))  # the variable names the same folder: the same state
        assert p.returncode == 0 and "governing" in p.stdout, p.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0


def test_lock_dir_help_says_it_holds_the_state_and_the_counter() -> None:
    for command in ("run", "ab", "restore", "status"):
        p = thermogov(command, "--help")
        assert p.returncode == 0, p.stderr
        text = " ".join(p.stdout.split())
        assert "--lock-dir" in text and "THERMOGOV_LOCK_DIR" in text, (command, text)
        assert "state.json" in text.split("--lock-dir", 1)[1], (command, text)
