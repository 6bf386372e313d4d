"""Exit paths found by the robust6b campaign on board trees the tests had not modelled.

* A limit the kernel refuses from the first write on (EPERM, EBUSY) still holds its value of
  before the run: restore must not call it "left changed", keep the journal and exit 1 (which
  also made every later start fail on it), while a limit really left lowered still is.
* A stop or reload signal that arrives while ``run``/``ab``/``restore`` is between the daemon's
  own handlers (start-up, after the restore) is held and acted on, never a death by signal.
* A journal that cannot be deleted after a full restore says the limits were restored.

No waits: signals are sent to this process with ``os.kill`` and handled between bytecodes.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hw import fakesys
from tests.hw.cliargs import run_options
from tests.hw.fakesys import KernelTree
from thermogov.hw import heldsignals
from thermogov.hw.daemon import StopFlag, run
from thermogov.hw.journal import Journal
from thermogov.interfaces import RuntimeFailure

P0_MAX = "sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq"
LONG_S = 30.0  # a wait that must end at once; if it did not, the test fails on its result


def _run(tmp: Path, tree: KernelTree, **kw: Any) -> str:
    err = io.StringIO()
    run(run_options(tmp, **kw), out=io.StringIO(), err=err, tree=tree)
    return err.getvalue()


def test_a_limit_refused_from_the_first_write_on_is_not_left_changed(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()
    kt = KernelTree(tmp_path / "root")
    kt.write_faults[P0_MAX] = errno.EPERM
    err = _run(tmp_path, kt)
    assert f"{P0_MAX}: write of 729600 failed (EPERM" in err  # the governor saw the refusal
    assert "limits restored" in err
    assert not Journal(tmp_path / "state").exists()
    assert t.snapshot() == before


def test_a_limit_refused_after_it_was_lowered_is_still_reported(tmp_path: Path) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    kt = KernelTree(tmp_path / "root")

    def refuse_the_restore(real: str, data: bytes) -> None:
        # Hot board, hysteresis: every cap is 729600; only the restore writes another value.
        if real.endswith("policy0/scaling_max_freq") and data.strip() != b"729600":
            kt.write_faults[P0_MAX] = errno.EBUSY

    kt.before_write.append(refuse_the_restore)
    with pytest.raises(RuntimeFailure, match=r"left changed: .*policy0/scaling_max_freq.*EBUSY"):
        _run(tmp_path, kt)
    assert t.read_int(P0_MAX) == 729600
    assert Journal(tmp_path / "state").exists()


def test_a_journal_that_cannot_be_deleted_says_the_limits_were_restored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = fakesys.orin_nano(tmp_path / "root", cpu_mc=90000, gpu_mc=90000)
    before = t.snapshot()

    def refuse(self: Journal) -> None:
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM), str(self.path))

    monkeypatch.setattr(Journal, "delete", refuse)
    with pytest.raises(
        RuntimeFailure, match=r"^limits restored, but the journal .* could not be deleted \(EPERM"
    ):
        _run(tmp_path, KernelTree(tmp_path / "root"))
    assert t.snapshot() == before


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_held_before_the_daemon_took_over_stops_it(sig: signal.Signals) -> None:
    with heldsignals.held(), contextlib.ExitStack() as stack:
        os.kill(os.getpid(), sig)  # start-up: held, not fatal
        flag = StopFlag()
        flag.install(stack)
        assert flag.is_set() and flag.signal_name == sig.name
        assert flag.wait(LONG_S) is True  # its byte is in the pipe: the first wait ends at once


def test_a_sighup_held_before_the_daemon_took_over_is_a_reload() -> None:
    with heldsignals.held(), contextlib.ExitStack() as stack:
        os.kill(os.getpid(), signal.SIGHUP)
        flag = StopFlag()
        flag.install(stack)
        assert flag.reload_requested and not flag.is_set()


def test_a_stop_after_the_daemon_gave_its_handlers_back_is_held_then_dropped() -> None:
    previous = signal.getsignal(signal.SIGTERM)
    with heldsignals.held():
        with contextlib.ExitStack() as stack:
            StopFlag().install(stack)
        os.kill(os.getpid(), signal.SIGTERM)  # after the restore: would have killed the process
        assert heldsignals.take() == {signal.SIGTERM}
    assert signal.getsignal(signal.SIGTERM) == previous  # a caller's own handler is put back


CHILD = """
import os, signal, sys
import thermogov.cli
from thermogov import entry

def killed_while_starting(argv=None):
    os.kill(os.getpid(), signal.{sig})  # before any command took the signal over
    return 0

thermogov.cli.run_main = killed_while_starting
entry.main()
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_the_console_script_turns_a_start_up_signal_into_interrupted(sig: str) -> None:
    p = subprocess.run(
        [sys.executable, "-c", CHILD.format(sig=sig)], capture_output=True, text=True, timeout=60
    )
    assert (p.returncode, p.stderr) == (130, "thermogov: interrupted\n")


LATE_CHILD = """
import atexit, os, signal
import thermogov.cli
from thermogov import entry

def done_then_stopped(argv=None):
    atexit.register(os.kill, os.getpid(), signal.{sig})  # during the interpreter's exit
    print("restored", flush=True)
    return 0

thermogov.cli.run_main = done_then_stopped
entry.main()
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_a_stop_after_the_status_was_decided_keeps_it(sig: str) -> None:
    p = subprocess.run(
        [sys.executable, "-c", LATE_CHILD.format(sig=sig)], capture_output=True, text=True, timeout=60
    )
    assert (p.returncode, p.stdout, p.stderr) == (0, "restored\n", "")
