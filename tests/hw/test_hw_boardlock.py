"""One governor per board: another --lock-file/--state-dir or a deleted lock file changes nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hw import fakesys, procutil
from thermogov.hw.boardlock import BoardLock, board_lock_path
from thermogov.hw.journal import Journal, live_holder, recover
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import RuntimeFailure

MAX = "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"


def _second(tmp: Path, cmd: str = "run", **where: str) -> str:
    args = procutil.paths(tmp, **where)
    if cmd == "run":
        args += ["--out", str(tmp / "out2"), "--duration", "0.3s"]
    r = procutil.run_cli(cmd, *args)
    assert r.returncode == 1, (r.returncode, r.stderr)
    (line,) = [ln for ln in r.stderr.splitlines() if "error" in ln]  # a warning may precede it
    return line


@pytest.fixture
def governed(tmp_path: Path):  # type: ignore[no-untyped-def]
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    proc = procutil.start_run(tmp_path)
    procutil.wait_line(proc, "thermogov: started")
    assert t.read_int(MAX) == 729600
    yield t, proc
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=procutil.DEADLINE_S)
    assert proc.returncode == 0
    assert t.read_int(MAX) == 1510400  # the first governor still restored its own journal


@pytest.mark.parametrize(
    "where",
    [
        {"lock": "other.lock"},
        {"state": "other-state"},
        {"lock": "other.lock", "state": "other-state"},
    ],
    ids=["other-lock-file", "other-state-dir", "both"],
)
@pytest.mark.parametrize("cmd", ["run", "restore"])
def test_a_second_instance_for_the_same_root_is_refused(governed, tmp_path: Path, where, cmd) -> None:  # type: ignore[no-untyped-def]
    t, proc = governed
    snap = t.snapshot()
    line = _second(tmp_path, cmd, **where)
    assert f"another thermogov governs {tmp_path / 'root'} (pid {proc.pid}" in line
    assert t.snapshot() == snap and Journal(tmp_path / "state").exists()


def test_deleting_the_lock_files_does_not_let_a_second_instance_start(governed, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    t, proc = governed
    board = board_lock_path(tmp_path / "root")
    assert board.exists()
    board.unlink()
    (tmp_path / "thermogov.lock").unlink()
    snap = t.snapshot()
    for cmd in ("run", "restore"):
        line = _second(tmp_path, cmd)
        assert f"another thermogov governs {tmp_path / 'root'} (pid {proc.pid}" in line  # from /proc/locks
    assert t.snapshot() == snap


def test_the_root_is_resolved_so_a_symlinked_root_is_the_same_board(governed, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, proc = governed
    (tmp_path / "alias").symlink_to(tmp_path / "root")
    r = procutil.run_cli(
        "restore",
        "--sysfs-root",
        str(tmp_path / "alias"),
        "--state-dir",
        str(tmp_path / "s2"),
        "--lock-file",
        str(tmp_path / "l2"),
    )
    assert r.returncode == 1 and f"(pid {proc.pid}" in r.stderr


def test_a_live_governors_journal_is_never_restored(governed, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    t, proc = governed
    snap = t.snapshot()
    with pytest.raises(RuntimeFailure, match=f"another thermogov governs .* \\(pid {proc.pid}"):
        recover(SysfsTree(tmp_path / "root"), Journal(tmp_path / "state"))  # no lock taken at all
    assert t.snapshot() == snap


def test_the_board_lock_is_free_again_after_release(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    with (
        BoardLock(tmp_path / "root", lock_file=tmp_path / "a.lock"),
        pytest.raises(RuntimeFailure, match=f"pid {os.getpid()}"),
    ):
        BoardLock(tmp_path / "root", lock_file=tmp_path / "b.lock").acquire()
    with BoardLock(tmp_path / "root", lock_file=tmp_path / "b.lock"):
        pass
    assert board_lock_path(tmp_path / "root").read_text() == ""  # no stale pid left behind


@pytest.mark.parametrize(
    "argv,holder", [(["thermogov", "run"], True), (["thermogov", "sim"], False), (["x"], False)]
)
def test_only_a_live_thermogov_run_counts_as_a_journal_holder(argv: list[str], holder: bool) -> None:
    code = "import sys; print('up', flush=True); sys.stdin.read()"
    p = subprocess.Popen([sys.executable, "-c", code, *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert p.stdout is not None and p.stdout.readline() == b"up\n"  # exec'd: its own cmdline
    try:
        assert live_holder(p.pid) is holder
    finally:
        p.kill()
        p.wait()
    assert live_holder(p.pid) is False  # dead
