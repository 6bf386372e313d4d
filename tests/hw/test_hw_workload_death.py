"""A ``cmd:`` workload dies with the daemon, ``kill -9`` included, and lives in its own group."""

from __future__ import annotations

import os
import select
import signal
import sys
from pathlib import Path

import psutil
import pytest

from tests.hw import fakesys, procutil

# Ignores SIGTERM/SIGHUP and never writes again after its first line, so neither a signal
# to the daemon's group nor a broken pipe would end it: only the kernel's death signal does.
STUBBORN = """
import signal, sys, time
for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(s, signal.SIG_IGN)
print("ready", flush=True)
while True:
    time.sleep(3600)
"""


def _start_with_stubborn(tmp: Path):  # type: ignore[no-untyped-def]
    fakesys.rpi5(tmp / "root")
    script = tmp / "stubborn.py"
    script.write_text(STUBBORN)
    proc = procutil.start_run(tmp, "--workload", f"cmd:{sys.executable} {script}")
    procutil.wait_line(proc, "thermogov: started")
    (child,) = psutil.Process(proc.pid).children()
    return proc, child


def test_a_stubborn_cmd_workload_dies_with_a_kill_9_daemon(tmp_path: Path) -> None:
    proc, child = _start_with_stubborn(tmp_path)
    proc.kill()
    proc.communicate(timeout=procutil.DEADLINE_S)
    _gone, alive = psutil.wait_procs([child], timeout=procutil.DEADLINE_S)
    assert not alive


def test_the_workload_has_its_own_session_and_group(tmp_path: Path) -> None:
    proc, child = _start_with_stubborn(tmp_path)
    try:
        assert os.getpgid(child.pid) == child.pid and os.getsid(child.pid) == child.pid
        assert os.getpgid(child.pid) != os.getpgid(proc.pid)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=procutil.DEADLINE_S)
    _gone, alive = psutil.wait_procs([child], timeout=procutil.DEADLINE_S)
    assert not alive and proc.returncode == 0  # stop() ends an SIGTERM-ignoring child too


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_helpers_the_workload_spawned_are_stopped_with_it(tmp_path: Path, sig: signal.Signals) -> None:
    fakesys.rpi5(tmp_path / "root")
    fifo = tmp_path / "helper.pid"
    os.mkfifo(fifo)
    script = tmp_path / "spawner.py"
    script.write_text(
        "import subprocess, sys, time\n"
        f"h = subprocess.Popen([sys.executable, '-c', {STUBBORN!r}], stdout=subprocess.PIPE)\n"
        "h.stdout.readline()\n"
        f"open({str(fifo)!r}, 'w').write(str(h.pid))\n"
        "print('ready', flush=True)\n"
        "time.sleep(3600)\n"
    )
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    proc = procutil.start_run(tmp_path, "--workload", f"cmd:{sys.executable} {script}")
    procutil.wait_line(proc, "thermogov: started")
    (child,) = psutil.Process(proc.pid).children()
    ready, _, _ = select.select([rfd], [], [], procutil.DEADLINE_S)
    assert ready
    helper = psutil.Process(int(os.read(rfd, 32)))
    os.close(rfd)
    proc.send_signal(sig)
    proc.communicate(timeout=procutil.DEADLINE_S)
    _gone, alive = psutil.wait_procs([child, helper], timeout=procutil.DEADLINE_S)
    assert not alive
