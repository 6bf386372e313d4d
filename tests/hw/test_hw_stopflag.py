"""``StopFlag.wait`` in the main thread: a ``select`` on the signal self-pipe.

A wait that times out returns without looking at the flag (the cheap common case), so these
tests hold it to what makes that safe: a stop handled before the wait began (while the loop
was working) still ends the next wait at once, also when another signal's byte came with it,
and a SIGHUP alone asks for a reload without ending the wait or leaving the pipe readable.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator

import pytest

from thermogov.hw.daemon import StopFlag

LONG_S = 30.0  # a wait that must end at once: if it did not, the test would fail on its result


@pytest.fixture
def flag() -> Iterator[StopFlag]:
    with contextlib.ExitStack() as stack:
        f = StopFlag()
        f.install(stack)
        assert f._wake_fd is not None  # pytest runs tests in the main thread: the pipe is used
        yield f


def test_a_wait_without_a_signal_times_out_false(flag: StopFlag) -> None:
    assert flag.wait(0.001) is False
    assert not flag.is_set()


def test_a_stop_handled_during_work_ends_the_next_wait(flag: StopFlag) -> None:
    os.kill(os.getpid(), signal.SIGTERM)  # handled here, between bytecodes, as during a tick
    assert flag.is_set()
    assert flag.wait(LONG_S) is True
    assert flag.signal_name == "SIGTERM"


def test_a_stop_that_came_with_a_sighup_is_not_lost_in_the_drain(flag: StopFlag) -> None:
    os.kill(os.getpid(), signal.SIGHUP)
    os.kill(os.getpid(), signal.SIGINT)
    assert flag.wait(LONG_S) is True
    assert flag.reload_requested


def test_a_sighup_alone_asks_for_a_reload_and_is_drained(flag: StopFlag) -> None:
    os.kill(os.getpid(), signal.SIGHUP)
    assert flag.wait(0.001) is False
    assert flag.reload_requested and not flag.is_set()
    assert flag._wake_fd is not None
    with pytest.raises(BlockingIOError):  # its byte was read: later waits do not spin
        os.read(flag._wake_fd, 1)
