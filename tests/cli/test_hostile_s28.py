"""Hostile round, session 28 (docs/sweeps.md, "Session 28h"): ``ab``'s own options, ``doctor
--state``, ``status --watch`` on a pipe, and the path options of the root commands, through the
installed script.

* ``status --watch | head -1`` ran until killed: rich's ``Live`` draws nothing while its output is
  no terminal, so the view never wrote, never found its reader gone, and ``head`` got nothing.
  On a pipe or a file each frame is now the plain view's lines, and the view ends once its reader
  has gone, with the status of ``status`` (1 here: the state's daemon is dead).  With stdout
  closed it is one line and exit 1 at once (main: ran until killed).
* ``ab --workload cmd:PROGRAM`` with no such program said "block 1/4: ..." and made the block's
  run folder before "cannot start"; ``run --dry-run`` likewise made its folder.  The program is
  now looked up at the parse (as ``subprocess`` will run it), before anything is made.
* ``ab --out`` through a file, at ``/dev/null``, a link loop, and ``--state-dir /dev/null``: two
  lines ("block 1/4: ..." first); now judged as ``run`` judges them, before block 1.
* An empty path (an unset shell variable: ``--out "$OUT"``) was the current folder: ``run --out
  ''`` and ``--state-dir ''`` wrote a run folder and the crash journal there, ``service install
  --root ''`` a systemd unit.  Now one line naming the option, nothing made.
* ``doctor --state FILE`` given a file no state can be read at (truncated, binary, empty, a link
  to /dev/zero, a FIFO) reported "state file not read" and exited 0; it now exits 2 after its
  report, with the ``--state`` line, as ``status --state`` does.  A missing file is still no
  daemon (exit 0).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.script import SCRIPT, one_line_error, thermogov
from tests.hw import fakesys
from tests.hw.procutil import DEADLINE_S, paths, wait_line
from tests.hw.test_hw_statefile import doc


def _dead_daemon_state(tmp: Path) -> Path:
    """A state document a daemon that has since died published (``status`` exits 1 on it)."""
    d = doc()
    d["pid"] = fakesys.dead_pid()
    p = tmp / "state.json"
    p.write_text(json.dumps(d))
    return p


def test_status_watch_on_a_pipe_writes_frames_and_ends_when_the_reader_goes(tmp_path: Path) -> None:
    state = _dead_daemon_state(tmp_path)
    proc = subprocess.Popen(
        [SCRIPT, "status", "--watch", "--state", str(state)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        first = wait_line(proc, "STALE")  # main: nothing is written while stdout is a pipe
        assert "not running" in first
        assert proc.stdout is not None
        proc.stdout.close()  # what `| head -1` does once it has its line
        _out, err = proc.communicate(timeout=DEADLINE_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 1, err  # the state's status, as plain `status` gives it
    assert err == b""


def test_status_watch_with_stdout_closed_is_one_line_and_exit_1(tmp_path: Path) -> None:
    state = _dead_daemon_state(tmp_path)
    p = subprocess.run(
        ["bash", "-c", 'exec "$0" status --watch --state "$1" >&-', SCRIPT, str(state)],
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,  # main: ran until killed
        check=False,
    )
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("thermogov: error: --watch: stdout is closed"), p.stderr


def _ab(tmp: Path, *extra: str, out: str | None = None) -> subprocess.CompletedProcess[str]:
    return thermogov(
        "ab", *paths(tmp), "--lock-dir", str(tmp / "locks"), "--out", str(tmp / "out") if out is None else out,
        "--policy", "stepped", "--policy", "power_allocator", "--block", "1s", "--pairs", "2",
        "--cool-down", "0", *extra, timeout=DEADLINE_S,
    )  # fmt: skip


@pytest.mark.parametrize("program", ["/nonexistent/infer", "no-such-program-h28", "/"])
def test_ab_refuses_a_workload_no_process_can_start_from_before_block_1(tmp_path: Path, program: str) -> None:
    tree = fakesys.orin_nano(tmp_path / "root")
    before = tree.snapshot()
    p = _ab(tmp_path, "--workload", f"cmd:{program}")
    one_line_error(p, f"--workload: cannot start '{program}'")  # main: "block 1/4: ..." first
    assert tree.snapshot() == before
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "state" / "journal.json").exists()


def test_a_dry_run_refuses_a_workload_no_process_can_start_from_and_makes_no_folder(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    p = thermogov(
        "run", *paths(tmp_path), "--dry-run", "--duration", "0.3s", "--out", str(tmp_path / "out"),
        "--workload", "cmd:/nonexistent/infer", timeout=DEADLINE_S,
    )  # fmt: skip
    one_line_error(p, "--workload: cannot start '/nonexistent/infer'")
    assert not (tmp_path / "out").exists()  # main: the run folder was made first


def _bad_place(tmp: Path, kind: str) -> tuple[str, str]:
    """(option, value) naming a folder no block's run folder or journal can be made in."""
    if kind == "out-through-file":
        (tmp / "afile").write_text("x\n")
        return "--out", str(tmp / "afile" / "blocks")
    if kind == "out-link-loop":
        (tmp / "loop").symlink_to(tmp / "loop")
        return "--out", str(tmp / "loop")
    if kind == "out-dev-null":
        return "--out", "/dev/null"
    return "--state-dir", "/dev/null"


@pytest.mark.parametrize("kind", ["out-through-file", "out-link-loop", "out-dev-null", "state-dir-dev-null"])
def test_ab_judges_its_folders_before_block_1(tmp_path: Path, kind: str) -> None:
    tree = fakesys.orin_nano(tmp_path / "root")
    before = tree.snapshot()
    opt, value = _bad_place(tmp_path, kind)
    if opt == "--out":
        p = _ab(tmp_path, "--workload", "builtin", out=value)
    else:
        p = thermogov(
            "ab", "--sysfs-root", str(tmp_path / "root"), "--state-dir", value, "--lock-file",
            str(tmp_path / "lock"), "--lock-dir", str(tmp_path / "locks"), "--out", str(tmp_path / "out"),
            "--policy", "stepped", "--policy", "power_allocator", "--block", "1s", "--pairs", "2",
            "--cool-down", "0", "--workload", "builtin", timeout=DEADLINE_S,
        )  # fmt: skip
    one_line_error(p, f"{opt} {value}")  # main: "block 1/4: stepped for 1 s" first
    assert tree.snapshot() == before


@pytest.mark.parametrize(
    ("command", "opt"),
    [("run", "--out"), ("run", "--state-dir"), ("ab", "--out"), ("service", "--root")],
)
def test_an_empty_path_is_refused_not_read_as_the_current_folder(
    tmp_path: Path, command: str, opt: str
) -> None:
    fakesys.rpi5(tmp_path / "root")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    args = {
        "run": [*paths(tmp_path), "--lock-dir", str(tmp_path / "locks"), "--duration", "0.3s"],
        "ab": [
            *paths(tmp_path), "--lock-dir", str(tmp_path / "locks"), "--policy", "stepped",
            "--policy", "power_allocator", "--block", "1s", "--pairs", "2", "--cool-down", "0",
            "--workload", "builtin",
        ],
        "service": ["install"],
    }[command]  # fmt: skip
    if opt != "--out" and "--out" not in args and command != "service":
        args += ["--out", str(tmp_path / "out")]
    if opt in args:
        i = args.index(opt)
        del args[i : i + 2]
    p = thermogov(command, *args, opt, "", cwd=cwd, timeout=DEADLINE_S)
    one_line_error(p, f"{opt}: empty")  # main: exit 0, a run folder, a journal or a unit in cwd
    assert list(cwd.iterdir()) == []


def _state_file(tmp: Path, kind: str) -> Path:
    p = tmp / "state.json"
    if kind == "truncated":
        p.write_text(json.dumps(doc())[:40])
    elif kind == "binary":
        p.write_bytes(bytes(range(256)) * 8)
    elif kind == "empty":
        p.write_text("")
    elif kind == "link-to-dev-zero":
        p.symlink_to("/dev/zero")
    else:
        os.mkfifo(p)
    return p


@pytest.mark.parametrize("kind", ["truncated", "binary", "empty", "link-to-dev-zero", "fifo"])
def test_doctor_judges_the_state_file_it_is_given(tmp_path: Path, kind: str) -> None:
    tree = fakesys.orin_nano(tmp_path / "root", jetpack=6, battery_decic=300)
    state = _state_file(tmp_path, kind)
    p = thermogov("doctor", "--sysfs-root", str(tree.root), "--state", str(state))
    assert p.returncode == 2, (p.stdout, p.stderr)  # main: 0, "state file not read" in the report
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith(f"thermogov: error: --state: {state}"), p.stderr
    assert "Traceback" not in p.stderr
    assert f"state file not read: {state}" in p.stdout  # the report still says it


def _stderr_full(*args: str) -> subprocess.CompletedProcess[str]:
    with open("/dev/full", "w") as full:
        return subprocess.run(
            [SCRIPT, *args], stdout=subprocess.PIPE, stderr=full, text=True, timeout=DEADLINE_S, check=False
        )


def test_a_bad_option_with_stderr_full_keeps_exit_2() -> None:
    """The refusal's own line could not be written (``2>/dev/full``): main raised from it and
    ended in the interpreter's exit 120."""
    assert _stderr_full("boards", "--no-such-option").returncode == 2


def test_a_clean_run_with_stderr_full_exits_0_with_the_limits_restored(tmp_path: Path) -> None:
    tree = fakesys.rpi5(tmp_path / "root", cpu_mc=90000)
    before = tree.snapshot()
    p = _stderr_full("run", *paths(tmp_path), "--lock-dir", str(tmp_path / "locks"), "--duration", "0.5s",
                     "--out", str(tmp_path / "out"))  # fmt: skip
    assert p.returncode == 0  # main: 120
    assert tree.snapshot() == before
    assert not (tmp_path / "state" / "journal.json").exists()


@pytest.mark.parametrize(
    "args",
    [
        ("sim", "--board", "rpi5", "--duration", "2s", "--config", ""),
        ("compare", "--scenario", "rpi5-steady-25", "--policy", "stepped", "--no-oracle", "--duration", "2s",
         "--config", ""),
        ("emulate", "--board", "rpi5", "--wall-duration", "0.2s", "--sysfs-root", ""),
    ],
    ids=["sim-config", "compare-config", "emulate-sysfs-root"],
)  # fmt: skip
def test_an_empty_path_is_not_the_defaults_or_the_current_folder(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    """Main: ``sim``/``compare --config ''`` ran on the defaults, ``emulate --sysfs-root ''`` built
    its board tree in the current folder."""
    p = thermogov(*args, cwd=tmp_path, timeout=DEADLINE_S)
    one_line_error(p, f"{args[-2]}: empty")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("command", "name"), [("plot", "RUNS..."), ("import", "FILE"), ("calibrate", "RUN")])
def test_a_missing_argument_is_named(command: str, name: str) -> None:
    """Main: ``thermogov: error: runs: ; see ...`` (click's missing-argument error has no message)."""
    one_line_error(thermogov(command), f"Missing argument '{name}'")
