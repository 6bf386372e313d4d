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
from thermogov.hw.sysfs import errno_name
from thermogov.interfaces import ConfigError

RECHECK_S = 1.0  # how often the path is checked for a recreated file
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # as counterfile.read


def check_counter_path(path: Path, option: str = "--inferences-file") -> None:
    """Refuse (``ConfigError``, exit 2, a dry run too) a counter path no file can ever be read at.

    A missing file (or folder) is fine: the application may make it.  But the counter is opened
    with ``O_NOFOLLOW`` and read with ``pread``, so a symbolic link, a named pipe, a device or a
    directory there is never counted, and a path through a file or a looping link (ENOTDIR,
    ELOOP) can never name one; main said so once a tick as a warning and ran on (hostile 27h).
    """
    from thermogov.client import file_kind

    shown = str(path) if str(path).isprintable() else repr(str(path))
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise ConfigError(
            f"{option} {shown}: no file can be there ({e.strerror}: a folder on the way is a file or "
            "a looping link); choose another path"
        ) from e
    if not os.path.isfile(path) or os.path.islink(path):
        raise ConfigError(
            f"{option} {shown}: exists and is {file_kind(st.st_mode)}, not a regular file (the counter is "
            "read without following links); remove it or give the application's count file"
        )


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
        """The kept descriptor, reopened when the path names another file (or none: -1); called
        when a recheck is due (:meth:`_read` keeps the descriptor in between without a call)."""
        self._recheck_at = self._clock() + RECHECK_S
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

    def close(self) -> None:
        """Close the kept descriptor (the daemon does on exit; a later read reopens it)."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)
        self._recheck_at = -float("inf")

    def __call__(self) -> int | None:
        """The run's count now: read every control tick, so one frame (``counterfile.read``'s
        steps on the kept descriptor, inline); a busy or unreadable file keeps the last count."""
        try:
            fd = self._kept() if self._clock() >= self._recheck_at else self._fd
            raw: int | None = None
            if fd >= 0:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:  # a writer holds it: busy, not an error
                    return self._total()
                try:
                    data = os.pread(fd, counterfile.MAX_BYTES, 0)
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                raw = counterfile.parse(data, self.path) if data.strip() else None
        except OSError as e:
            # Session 33r: named, as every other file's line (a pread's OSError carries no name:
            # the line said only "inference counter: [Errno 5] Input/output error").
            self._log(
                f"inference counter {self.path}: cannot read ({errno_name(e.errno)}: {e.strerror}); "
                "the last count is kept"
            )
            return self._total()
        except ValueError as e:
            self._log(f"inference counter: {e}")
            return self._total()
        last = self._last
        if raw is None:
            return None if last is None else self._counted + last - self._base
        if last is not None and raw < last:  # a new file: all of it is new work
            self._counted += last - self._base
            self._base = 0
        elif last is None and raw < self._base:  # replaced before our first read
            self._base = 0
        self._last = raw
        return self._counted + raw - self._base

    def _total(self) -> int | None:
        if self._last is None:
            return None
        return self._counted + self._last - self._base
