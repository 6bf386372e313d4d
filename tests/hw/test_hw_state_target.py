"""Session 24a: what ``run --state-file PATH`` finds at PATH (hw/publish.py, hw/runtimefiles.py).

Main replaced whatever was at the path (rename(2) replaces a named pipe, a device node, a
symbolic link, dangling or looping) with a regular file every second and deleted it at exit;
a regular file of someone else's was overwritten and deleted at exit.  Now anything there but
a regular file holding a thermogov state document is refused before the hardware is touched:
one line naming the option and the fix, exit 2.  Through the installed script, on a fake board.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hw import fakesys
from tests.hw.procutil import paths, run_cli
from thermogov.hw.publish import _owner_pid


@pytest.fixture
def hot(tmp_path: Path) -> fakesys.FakeTree:
    return fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _dir(p: Path) -> None:
    p.mkdir()


def _dangling(p: Path) -> None:
    p.symlink_to(p.parent / "nowhere.json")


def _looping(p: Path) -> None:
    p.symlink_to(p)


def _link_to_file(p: Path) -> None:
    (p.parent / "real.json").write_text("{}")
    p.symlink_to(p.parent / "real.json")


def _device(p: Path) -> None:
    try:
        os.mknod(p, 0o600 | 0o020000, os.makedev(1, 3))  # a character device, as /dev/null
    except PermissionError:
        pytest.skip("mknod needs CAP_MKNOD")


def _someones_file(p: Path) -> None:
    p.write_text("my notes\n")


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (_fifo, "a named pipe"),
        (_dir, "is a directory"),  # refused by the option's own type on main already
        (_dangling, "a symbolic link"),
        (_looping, "a symbolic link"),
        (_link_to_file, "a symbolic link"),
        (_device, "a character device"),
        (_someones_file, "not a thermogov state file"),
    ],
    ids=["fifo", "directory", "dangling-link", "looping-link", "link-to-file", "device", "someones-file"],
)
def test_a_state_file_path_that_is_not_ours_to_replace_is_refused_before_any_write(
    tmp_path: Path, hot: fakesys.FakeTree, make: Callable[[Path], None], said: str
) -> None:
    # Main: the daemon started, replaced the thing with its state file and deleted it at exit.
    (tmp_path / "run").mkdir()
    target = tmp_path / "run" / "state.json"
    make(target)
    before = hot.snapshot()
    kind = os.lstat(target).st_mode
    r = run_cli("run", *paths(tmp_path), "--duration", "3s", "--state-file", str(target))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "--state-file" in r.stderr and said in r.stderr, r.stderr
    assert make is _dir or "remove it or choose another path" in r.stderr
    assert "Traceback" not in r.stderr
    assert hot.snapshot() == before, "nothing written to the hardware"
    assert not (tmp_path / "state" / "journal.json").exists()
    assert os.lstat(target).st_mode == kind, "left as it was"
    if make is _someones_file:
        assert target.read_text() == "my notes\n"


def test_an_earlier_daemon_s_state_file_is_replaced_and_removed_at_exit(
    tmp_path: Path, hot: fakesys.FakeTree
) -> None:
    # A state document left by a daemon killed with -9: replaced as before, deleted at a clean exit.
    (tmp_path / "run").mkdir()
    target = tmp_path / "run" / "state.json"
    target.write_text(json.dumps({"schema": 1, "pid": 999999, "board": "jetson-orin-nano"}))
    r = run_cli("run", *paths(tmp_path), "--duration", "3s", "--state-file", str(target))
    assert r.returncode == 0, r.stderr
    assert not os.path.lexists(target)


@pytest.mark.parametrize(
    "data", [b"[" * 100_000, b'{"schema": 1, "pid": 1, "x": ' + b"[" * 5000 + b"]" * 5000 + b"}"]
)
def test_a_deeply_nested_file_at_the_state_path_is_refused_in_one_line(
    tmp_path: Path, hot: fakesys.FakeTree, data: bytes
) -> None:
    """Hostile round 25h: main's check of the file's contents recursed out of the JSON decoder
    ("internal error: RecursionError", exit 1)."""
    (tmp_path / "run").mkdir()
    target = tmp_path / "run" / "state.json"
    target.write_bytes(data)
    before = hot.snapshot()
    r = run_cli("run", *paths(tmp_path), "--duration", "3s", "--state-file", str(target))
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "not a thermogov state file" in r.stderr, r.stderr
    assert hot.snapshot() == before
    assert target.read_bytes() == data


def test_a_deeply_nested_file_swapped_in_at_the_path_is_left_at_exit(tmp_path: Path) -> None:
    """The exit's check of whose file it is (hw/publish.py) recursed out of the JSON decoder on
    main: a RecursionError on the daemon's exit path.  Now it is not ours, and left."""
    target = tmp_path / "state.json"
    target.write_bytes(b"[" * 100_000)
    assert _owner_pid(target) is None
    target.write_text(json.dumps({"schema": 1, "pid": os.getpid()}))
    assert _owner_pid(target) == os.getpid()
