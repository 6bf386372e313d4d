"""Inferences the application reports through the counter file (:mod:`thermogov.counterfile`).

Used when ``thermogov run`` starts no workload of its own: the trace's ``inferences_total``
then counts what the application added to the file during this run.  The count starts at the
file's value when the daemon starts (a file left by an earlier run is not this run's work; a
file created later counts from zero), and survives the application recreating the file
(a total that goes down is a new file: what it holds is added to what was counted before).
A busy or unreadable file keeps the last count: the trace never shows a made-up drop.

Until the file exists the count is ``None`` (not measured), as with no workload at all.
The daemon creates the file, world-writable, in its own runtime directory so an unprivileged
application can add to it; anyone on the board can then inflate the count, which only changes
the recorded throughput, never a cap.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from thermogov import counterfile


class AppCounter:
    def __init__(self, path: Path, log: Callable[[str], None]) -> None:
        self.path = str(path)
        self._log = log
        self._base = 0
        self._counted = 0  # from files replaced during the run
        self._last: int | None = None
        try:
            start = counterfile.read(self.path)
        except (counterfile.CounterBusy, ValueError, OSError):
            start = None
        if start is not None:
            self._base = start

    def create(self) -> None:
        """Make the file an unprivileged application can add to (best effort, logged)."""
        try:
            fd = os.open(
                self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666
            )
        except FileExistsError:
            return
        except OSError as e:
            self._log(
                f"inference counter {self.path}: cannot create ({e.strerror}); the application may create it"
            )
            return
        with contextlib.suppress(OSError):
            os.fchmod(fd, 0o666)  # not the umask's: the application is another user
        os.close(fd)

    def __call__(self) -> int | None:
        try:
            raw = counterfile.read(self.path)
        except counterfile.CounterBusy:
            return self._total()
        except (ValueError, OSError) as e:
            self._log(f"inference counter: {e}")
            return self._total()
        if raw is None:
            return self._total()
        if self._last is not None and raw < self._last:  # a new file: all of it is new work
            self._counted += self._last - self._base
            self._base = 0
        elif self._last is None and raw < self._base:  # replaced before our first read
            self._base = 0
        self._last = raw
        return self._total()

    def _total(self) -> int | None:
        if self._last is None:
            return None
        return self._counted + self._last - self._base
