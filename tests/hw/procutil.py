"""Driving the installed ``thermogov`` script as a real process, without fixed sleeps.

Waits block on a line of the child's output with ``select`` under a generous deadline, so a
test proceeds the moment the daemon reports what it did.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Protocol

from tests.runtimedir import child_env

DEADLINE_S = 60.0


def script() -> list[str]:
    """The console script of this venv (what a user and systemd run), else the module."""
    exe = shutil.which("thermogov", path=os.path.dirname(sys.executable))
    return [exe] if exe else [sys.executable, "-m", "thermogov.cli"]


def paths(tmp: Path, *, state: str = "state", lock: str = "thermogov.lock") -> list[str]:
    return [
        "--sysfs-root",
        str(tmp / "root"),
        "--state-dir",
        str(tmp / state),
        "--lock-file",
        str(tmp / lock),
    ]


def start_run(
    tmp: Path,
    *extra: str,
    state: str = "state",
    lock: str = "thermogov.lock",
    env: dict[str, str] | None = None,
    run_lines: str = "",
) -> subprocess.Popen[bytes]:
    """``thermogov run`` with the hysteresis policy (hot board: exactly the lowest caps);
    ``env``: the child's environment (a fault shim's, tests/hw/faultshim.py); ``run_lines``:
    more keys of the config's ``[run]`` table (``fan = "governor"``)."""
    cfg = tmp / "hysteresis.toml"
    cfg.write_text(f'[run]\npolicy = "hysteresis"\n{run_lines}')
    args = [*paths(tmp, state=state, lock=lock), "--out", str(tmp / "out"), "--config", str(cfg), *extra]
    return subprocess.Popen(
        [*script(), "run", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
        env=child_env(env),  # never the real /run/thermogov (tests/runtimedir.py)
    )


def wait_line(proc: subprocess.Popen[bytes], needle: str, stream: str = "stdout") -> str:
    """Block until a line of the child's ``stream`` contains ``needle``; fail with its stderr."""
    fh: IO[bytes] | None = proc.stdout if stream == "stdout" else proc.stderr
    assert fh is not None
    deadline = time.monotonic() + DEADLINE_S
    line = b""
    seen = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fh], [], [], deadline - time.monotonic())
        if not ready:
            break
        ch = os.read(fh.fileno(), 1)
        if not ch:
            break
        line += ch
        if ch == b"\n":
            seen += line
            if needle.encode() in line:
                return line.decode()
            line = b""
    proc.kill()
    _, err = proc.communicate()
    raise AssertionError(
        f"no line with {needle!r}; {stream} had {seen.decode()[-1500:]} err {err.decode()[-1500:]}"
    )


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*script(), *args], capture_output=True, text=True, timeout=DEADLINE_S, env=child_env(env)
    )


def restamp(state: Path) -> None:
    """Mark a kept state document as published now (its ``time_unix``), nothing else changed."""
    doc = json.loads(state.read_text())
    doc["time_unix"] = time.time()
    state.write_text(json.dumps(doc))


def status_cli(*args: str, refresh: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    """``thermogov status ARGS``, asked again while its only complaint is the state's age.

    A state is stale after five seconds without a publication (``STALE_AFTER_S``): a live
    daemon, or a kept state stamped "now" by ``refresh`` just before, is read by a child that
    may take longer than that to start on a loaded machine (session 30i: a 2-core machine
    shared by seven jobs).  That says nothing about what the test checks, so the question is
    asked again, ``refresh`` first, until the answer is not "not publishing" or the generous
    deadline passes (then that answer is returned, for the test's own assertion to show)."""
    deadline = time.monotonic() + DEADLINE_S
    while True:
        if refresh is not None:
            refresh()
        r = run_cli("status", *args)
        aged = r.returncode == 1 and "s old (daemon pid" in r.stdout and "not publishing)" in r.stdout
        if not aged or time.monotonic() >= deadline:
            return r


def stopped(proc: subprocess.Popen[bytes]) -> str:
    """SIGTERM a running daemon; its stderr, once it exited 0 without a traceback."""
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=DEADLINE_S)
    text = err.decode()
    assert proc.returncode == 0, text
    assert "Traceback" not in text
    return text


class Snapshots(Protocol):
    """A fake tree (tests/hw/fakesys.py): its files' contents by path."""

    def snapshot(self) -> dict[str, bytes | str]: ...


def stopped_as_before(
    proc: subprocess.Popen[bytes], tree: Snapshots, before: dict[str, bytes | str], *unsaid: str
) -> str:
    """:func:`stopped`, none of ``unsaid`` in its stderr, and every file of ``tree`` as it was
    ``before`` the run; its stderr."""
    err = stopped(proc)
    for phrase in unsaid:
        assert phrase not in err, err
    assert tree.snapshot() == before
    return err
