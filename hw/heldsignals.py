"""Stop and reload signals held while a board command is between the daemon's own handlers.

Why: ``run``, ``ab`` and ``restore`` write limits, and a signal whose default action kills the
process must not end one between two writes, nor turn a run that restored cleanly into a death
by signal (exit -15, which no caller of the exit-status contract expects). The daemon's
:class:`~thermogov.hw.daemon.StopFlag` handles SIGTERM/SIGINT/SIGHUP while it governs; before it
takes them over (start-up: parsing, the lock, the journal) and after it gives them back (the run
summary, between two A/B blocks, a whole ``restore``) these handlers only remember the signal.
The next ``StopFlag`` to be installed acts on what was remembered (a stop, or a reload), so a
SIGTERM anywhere from the command's first line on stops the run through the same restore as
one that arrives mid-run. Once nothing more will be written (after the last restore) a held
signal has nothing left to stop and is dropped. The handlers are put back when the command
returns (a test calling a command in-process keeps its own); the console script then ignores
these signals while it exits (``thermogov.entry``).
"""

from __future__ import annotations

import contextlib
import functools
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

HELD_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_pending: set[int] = set()


def _remember(signum: int, frame: FrameType | None) -> None:
    _pending.add(signum)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """Inside, SIGTERM/SIGINT/SIGHUP are remembered, not fatal (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _remember) for sig in HELD_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _pending.clear()


def holding(command: Callable[P, R]) -> Callable[P, R]:
    """``command`` runs inside :func:`held` (a decorator for the board commands)."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with held():
            return command(*args, **kwargs)

    return wrapper


def take() -> frozenset[int]:
    """The signals remembered since the last call (and forget them)."""
    held = frozenset(_pending)
    _pending.clear()
    return held
