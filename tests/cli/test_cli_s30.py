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


# --- a workload whose stdout ends while it runs on -----------------------------------------

# Two inferences, then its stdout closed while the process runs on (``exec >&-``).
_CLOSES = "cmd:sh -c 'echo a; echo b; exec >&-; exec sleep 120'"
_CLOSES_SILENT = "cmd:sh -c 'exec >&-; exec sleep 120'"


def _summary(out: Path) -> dict[str, object]:
    (path,) = out.glob("*/summary.json")
    return dict(json.loads(path.read_text()))


def test_run_says_once_that_its_workload_closed_its_output_and_governs_on(tmp_path: Path) -> None:
    tree = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = tree.snapshot()
    proc = start_run(tmp_path, "--workload", _CLOSES)
    try:
        wait_line(proc, "thermogov: started")
        line = wait_line(proc, "closed its stdout", stream="stderr")  # main: never said
        assert "counted 2 inference(s)" in line and "governing until it exits" in line, line
        assert proc.poll() is None  # still governing: the load is still there
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err
    assert "closed its stdout" not in err.decode()  # said once: the line read above
    assert tree.snapshot() == before
    summary = _summary(tmp_path / "out")
    assert summary["inferences_total"] == 2 and summary["workload_exit_status"] is None
    assert isinstance(summary["workload_stream_closed_after_s"], float)
    # The count stood still after the close: no rate over that time (main: 0.0 inf/s sustained).
    assert summary["sustained_throughput_ips"] is None and summary["mean_throughput_ips"] is None
    assert "output ended after" in out.decode()


def test_run_whose_workload_closed_its_output_before_any_line_says_that(tmp_path: Path) -> None:
    tree = fakesys.rpi5(tmp_path / "root")
    before = tree.snapshot()
    p = thermogov(
        "run", *paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "6s",
        "--workload", _CLOSES_SILENT, timeout=DEADLINE_S,
    )  # fmt: skip
    assert p.returncode == 1, p.stderr
    assert tree.snapshot() == before
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("thermogov: error:")]
    assert len(errors) == 1, p.stderr
    # main: "wrote no line in 6.0 s", as if it had run and printed nothing
    assert "closed its stdout after" in errors[0] and "ran on" in errors[0], errors[0]
    assert "wrote no line" in errors[0] and "restored" in errors[0]


def test_ab_stops_at_a_block_whose_workload_closed_its_output(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    p = thermogov(
        "ab", *paths(tmp_path), "--out", str(tmp_path / "out"), "--policy", "stepped",
        "--policy", "power_allocator", "--block", "6s", "--pairs", "2", "--cool-down", "0",
        "--workload", _CLOSES, timeout=DEADLINE_S * 2,
    )  # fmt: skip
    assert p.returncode == 1, (p.stdout, p.stderr)
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("thermogov: error:")]
    assert len(errors) == 1, p.stderr
    # main: "counted 2 inference(s) in all but none in the block's steady window"
    assert "block 1 (" in errors[0] and "closed its stdout after" in errors[0], errors[0]
    assert "of 6 s" in errors[0] and "(2 inference(s)) is no measurement" in errors[0]
    assert "nothing was compared" in errors[0]
    assert len(list((tmp_path / "out").glob("block-*"))) == 1


def test_a_workload_whose_output_ends_at_its_exit_is_no_closed_output(tmp_path: Path) -> None:
    """Output ends a moment before the exit of nearly every program: that is its exit (29i)."""
    fakesys.rpi5(tmp_path / "root")
    p = thermogov(
        "run", *paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "30s",
        "--workload", "cmd:sh -c 'echo a; echo b'", timeout=DEADLINE_S,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "closed its stdout" not in p.stderr
    summary = _summary(tmp_path / "out")
    assert summary["stopped_by"] == "workload" and summary.get("workload_stream_closed_after_s") is None
