"""The daemon as a real process: signals, kill -9 + restore, orphan-free workloads, lean imports.

Waiting is deterministic: the daemon prints ``thermogov: started`` once its first control tick
(and so its first cap write) is done, and the test blocks on that line with ``select`` under a
generous deadline; exits are awaited with ``wait``.  No fixed sleeps.
"""

from __future__ import annotations

import json
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tests.hw import fakesys
from tests.hw.cliargs import board_paths
from tests.hw.fakesys import FakeTree
from thermogov.hw.journal import Journal

POLICY0_MAX = "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
GPU_MAX = "sys/devices/17000000.ga10b/devfreq/17000000.ga10b/max_freq"
DEADLINE_S = 60.0


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "thermogov.cli", *args]


def _paths(tmp: Path) -> list[str]:
    return board_paths(tmp, "thermogov.lock")


def _start(tmp: Path, *extra: str) -> subprocess.Popen[bytes]:
    # The spec's hysteresis policy: a hot board means exactly the lowest caps, which the
    # restore checks below rely on (the default `stepped` policy may pick other OPPs).
    cfg = tmp / "hysteresis.toml"
    cfg.write_text('[run]\npolicy = "hysteresis"\n')
    return subprocess.Popen(
        _cli("run", *_paths(tmp), "--out", str(tmp / "out"), "--config", str(cfg), *extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )


def _wait_started(proc: subprocess.Popen[bytes]) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + DEADLINE_S
    line = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], deadline - time.monotonic())
        if not ready:
            break
        ch = proc.stdout.read(1)
        if not ch:
            break
        line += ch
        if ch == b"\n":
            if b"thermogov: started" in line:
                return line.decode()
            line = b""
    proc.kill()
    _, err = proc.communicate()
    raise AssertionError(f"daemon did not start: {err.decode()[-2000:]}")


def _hot(tmp: Path) -> FakeTree:
    return fakesys.orin_nano(tmp / "root", cpu_mc=90000, gpu_mc=90000)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_stop_signal_restores_originals(tmp_path: Path, sig: signal.Signals) -> None:
    t = _hot(tmp_path)
    before = t.snapshot()
    proc = _start(tmp_path)
    _wait_started(proc)
    assert t.read_int(POLICY0_MAX) == 729600 and t.read_int(GPU_MAX) == 306000000  # capped
    assert Journal(tmp_path / "state").exists()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err.decode()
    assert t.snapshot() == before
    assert not Journal(tmp_path / "state").exists()
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["stopped_by"] == sig.name and summary["backend"] == "hw"


# Every period at the longest the config allows: after its first instant the daemon waits 60 s.
LONG_WAIT_S = 60.0
LONG_WAIT_TOML = """[run]
policy = "hysteresis"
[governor]
control_period_ms = 60000
[sensors.cpu]
period_ms = 60000
[sensors.gpu]
period_ms = 60000
[sensors.battery]
period_ms = 60000
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_during_a_long_wait_ends_it_at_once_and_restores(tmp_path: Path, sig: signal.Signals) -> None:
    """The stop cuts the wait short: no second instant runs, and every limit is put back.

    A wait that ignored the signal would sleep on to t = 60 s (a plain ``time.sleep`` resumes
    after the handler ran, PEP 475), so the exit is awaited for half that: a deadline, not a
    measurement (restoring and exiting take well under a second).
    """
    t = _hot(tmp_path)
    before = t.snapshot()
    cfg = tmp_path / "long.toml"
    cfg.write_text(LONG_WAIT_TOML)
    proc = subprocess.Popen(
        _cli("run", *_paths(tmp_path), "--out", str(tmp_path / "out"), "--config", str(cfg)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    _wait_started(proc)  # printed by the first control tick (t = 0), which capped the hot board
    assert t.read_int(POLICY0_MAX) == 729600 and Journal(tmp_path / "state").exists()
    ps = psutil.Process(proc.pid)
    deadline = time.monotonic() + DEADLINE_S
    while ps.status() != psutil.STATUS_SLEEPING and time.monotonic() < deadline:
        pass  # the main thread is in its wait once it sleeps (the tick's tail is microseconds)
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=LONG_WAIT_S / 2)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{sig.name} did not end the daemon's {LONG_WAIT_S:g} s wait")
    assert proc.returncode == 0, err.decode()
    assert t.snapshot() == before and not Journal(tmp_path / "state").exists()
    (run_dir,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["stopped_by"] == sig.name
    assert summary["ticks"] == 1  # only t = 0: the instant at t = 60 s never ran


def _killed(tmp: Path) -> tuple[FakeTree, dict[str, bytes | str]]:
    """A hot board whose daemon capped it and was killed with SIGKILL (nothing restored), and the
    board's files as they were before the start."""
    t = _hot(tmp)
    before = t.snapshot()
    proc = _start(tmp)
    _wait_started(proc)
    proc.kill()
    proc.communicate(timeout=DEADLINE_S)
    return t, before


def test_kill_9_then_restore_puts_back_the_originals(tmp_path: Path) -> None:
    t, before = _killed(tmp_path)
    assert t.read_int(POLICY0_MAX) == 729600  # left capped: nobody restored
    assert Journal(tmp_path / "state").exists()
    r = subprocess.run(_cli("restore", *_paths(tmp_path)), capture_output=True, text=True, timeout=DEADLINE_S)
    assert r.returncode == 0, r.stderr
    assert "not running" in r.stdout
    assert t.snapshot() == before
    assert not Journal(tmp_path / "state").exists()


def test_next_start_after_kill_9_restores_first(tmp_path: Path) -> None:
    t, before = _killed(tmp_path)
    r = subprocess.run(
        _cli("run", *_paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "0.3s"),
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )
    assert r.returncode == 0, r.stderr
    assert "restored" in r.stderr and "left by pid" in r.stderr
    assert t.snapshot() == before


def test_builtin_workload_child_dies_with_a_killed_daemon(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    proc = _start(tmp_path, "--workload", "builtin")
    _wait_started(proc)
    children = psutil.Process(proc.pid).children()
    assert children, "the builtin workload runs in a child process"
    proc.kill()
    proc.communicate(timeout=DEADLINE_S)
    _gone, alive = psutil.wait_procs(children, timeout=DEADLINE_S)
    assert not alive


def test_dry_run_process_writes_nothing(tmp_path: Path) -> None:
    t = _hot(tmp_path)
    before = t.snapshot()
    r = subprocess.run(
        _cli("run", *_paths(tmp_path), "--out", str(tmp_path / "out"), "--duration", "0.5s", "--dry-run"),
        capture_output=True,
        text=True,
        timeout=DEADLINE_S,
    )
    assert r.returncode == 0, r.stderr
    assert "dry-run: would write" in r.stderr
    assert t.snapshot() == before and not (tmp_path / "state").exists()


HEAVY = ("pandas", "matplotlib", "scipy", "simpy", "numpy")


def test_daemon_import_path_is_lean(tmp_path: Path) -> None:
    fakesys.rpi5(tmp_path / "root")
    code = f"""
import sys
import thermogov.cli, thermogov.hw.daemon, thermogov.hw.cli
heavy = {HEAVY!r}
print("import:" + ",".join(m for m in heavy if m in sys.modules))
from thermogov.hw.cli import run_command, doctor_command
doctor_command.main(["--sysfs-root", {str(tmp_path / "root")!r}], standalone_mode=False)
run_command.main(["--sysfs-root", {str(tmp_path / "root")!r}, "--out", {str(tmp_path / "out")!r},
                  "--duration", "0.3s", "--dry-run"], standalone_mode=False)
print("run:" + ",".join(m for m in heavy if m in sys.modules))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=DEADLINE_S)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith(("import:", "run:"))]
    assert lines == ["import:", "run:"], r.stdout
