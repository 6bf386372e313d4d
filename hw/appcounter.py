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

The file is read every control tick through a descriptor kept open (shared ``flock``, ``pread``
at 0, unlock: the writers rewrite it in place under ``flock``, :mod:`thermogov.counterfile`),
instead of ``open``/``flock``/``read``/``close``: on a daemon that wakes with cold caches the
open and close were a quarter of the tick's file work.  Whether the path still names the kept
file (the application may delete and recreate it) is checked once a second
(:data:`RECHECK_S`, one ``stat``), so a recreated file is counted from at most a second
later; in between the old file's last count is kept, never a made-up one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path

from thermogov import counterfile

RECHECK_S = 1.0  # how often the path is checked for a recreated file
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # as counterfile.read


class AppCounter:
    def __init__(
        self, path: Path, log: Callable[[str], None], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.path = str(path)
        self._log = log
        self._clock = clock
        self._fd = -1  # the kept descriptor (-1: none)
        self._ident = (0, 0)  # its (st_dev, st_ino)
        self._recheck_at = -float("inf")
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

    def _kept(self) -> int:
        """The kept descriptor, reopened when the path names another file (or none: -1)."""
        now = self._clock()
        if now < self._recheck_at:
            return self._fd
        self._recheck_at = now + RECHECK_S
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self.close()
            return -1
        if self._fd >= 0 and (st.st_dev, st.st_ino) == self._ident:
            return self._fd
        self.close()
        fd = os.open(self.path, _FLAGS)
        fst = os.fstat(fd)
        self._fd, self._ident = fd, (fst.st_dev, fst.st_ino)
        return fd

    def _read(self) -> int | None:
        """Like :func:`counterfile.read`, on the kept descriptor."""
        fd = self._kept()
        if fd < 0:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise counterfile.CounterBusy(self.path) from None
        try:
            raw = os.pread(fd, counterfile.MAX_BYTES, 0)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
        return counterfile.parse(raw, self.path) if raw.strip() else None

    def close(self) -> None:
        """Close the kept descriptor (the daemon does on exit; a later read reopens it)."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)
        self._recheck_at = -float("inf")

    def __call__(self) -> int | None:
        try:
            raw = self._read()
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
