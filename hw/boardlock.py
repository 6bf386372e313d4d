"""One governor per board, whatever lock file or state directory each was given.

A lock on a *path the user chooses* (``--lock-file``) only excludes instances that chose the
same path: a second daemon given another ``--lock-file`` or ``--state-dir`` for the same
``--sysfs-root`` would start, restore the first one's journal while it runs and leave the board
throttled.  So the exclusion is tied to the board itself, twice:

* an ``flock`` on ``<lock-dir>/board-<hash>.lock``, the hash of the *resolved* sysfs root, under
  ``/run/thermogov`` (root-only, a tmpfs cleared at boot; ``--lock-dir`` or
  ``THERMOGOV_LOCK_DIR`` for tests), holding the pid, root and state directory for messages;
* an ``flock`` on the resolved root directory itself, which no ``rm`` of a lock file can take
  away: a second instance after someone deleted ``board-<hash>.lock`` still finds the root
  locked.  Its holder's pid comes from ``/proc/locks`` when the lock file is gone.

flock(2) locks belong to the open file description and are dropped by the kernel when the
holder dies, however it dies, so a lock that could be taken means no governor is alive.
``recover`` adds the check of live journals (a journal whose pid is a running thermogov is
never restored).  Trade-off: any process that can open the root may hold a lock on it and so
keep thermogov from starting; the message names that pid.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
from pathlib import Path

from thermogov.client import runtime_dir
from thermogov.hw import confine
from thermogov.hw.diskfull import pid_write_failed
from thermogov.hw.journal import InstanceLock
from thermogov.interfaces import RuntimeFailure, ThermogovError

PROC_LOCKS = "/proc/locks"


def lock_dir(explicit: Path | str | None = None) -> Path:
    """``--lock-dir``, else ``$THERMOGOV_LOCK_DIR``, else ``/run/thermogov``: the runtime folder
    of :func:`thermogov.client.runtime_dir`, where the state and the counter live too."""
    return runtime_dir(explicit)


def board_lock_path(root: Path | str, directory: Path | str | None = None) -> Path:
    real = os.path.realpath(root)
    return lock_dir(directory) / f"board-{hashlib.sha256(real.encode()).hexdigest()[:16]}.lock"


def flock_holder(fd: int) -> int | None:
    """The pid holding an flock on the file behind ``fd``, from the kernel's ``/proc/locks``."""
    st = os.fstat(fd)
    key = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        with open(PROC_LOCKS, encoding="ascii", errors="replace") as fh:
            for line in fh:
                parts = line.split()
                # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" ("->" marks waiters)
                if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5] == key and parts[4].isdigit():
                    return int(parts[4])
    except OSError:
        return None
    return None


class BoardLock:
    """The board's lock (file under the lock dir + the root directory), plus ``--lock-file``."""

    def __init__(
        self,
        root: Path | str,
        directory: Path | str | None = None,
        lock_file: Path | str | None = None,
        state_dir: Path | str | None = None,
    ) -> None:
        self.root = Path(root)
        self.real_root = os.path.realpath(root)
        self.path = board_lock_path(root, directory)
        self.state_dir = state_dir
        self._extra = InstanceLock(Path(lock_file)) if lock_file else None
        self._fds: list[int] = []
        self._board_fd: int | None = None

    def _busy(self, pid: int | str | None) -> RuntimeFailure:
        return RuntimeFailure(
            f"another thermogov governs {self.root} (pid {pid or '?'}, lock {self.path}); "
            "stop it first (systemctl stop thermogov); nothing was changed"
        )

    def _file_pid(self) -> str | None:
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            text = os.read(fd, 256).decode(errors="replace").split()
        finally:
            os.close(fd)
        return text[0] if text and text[0].isdigit() else None

    def acquire(self) -> None:
        try:
            self._acquire()
        except BaseException:
            self.release()
            raise

    def _acquire(self) -> None:
        try:
            root_fd = os.open(self.real_root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as e:
            raise ThermogovError(f"--sysfs-root {self.root}: cannot open ({e.strerror}); fix the path") from e
        self._fds.append(root_fd)
        try:
            fcntl.flock(root_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise self._busy(self._file_pid() or flock_holder(root_fd)) from None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o755)
            fd = confine.open_private(str(self.path), os.O_RDWR, 0o644)
        except OSError as e:
            hint = (
                "a symlink or hard link planted there is refused; "
                if e.errno in (errno.ELOOP, errno.EPERM)
                else ""
            )
            raise ThermogovError(
                f"{self.path}: cannot open the board lock ({e.strerror}); {hint}fix --lock-dir"
            ) from e
        self._fds.append(fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise self._busy(self._file_pid() or flock_holder(fd)) from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n{self.real_root}\n{self.state_dir or ''}\n".encode())
        except OSError as e:  # a full /run under a lock that opened: runtime, named (session 31r)
            raise RuntimeFailure(pid_write_failed(self.path, e)) from e
        self._board_fd = fd
        if self._extra is not None:
            self._extra.acquire()

    def release(self) -> None:
        if self._extra is not None:
            self._extra.release()
        if self._board_fd is not None:
            os.ftruncate(self._board_fd, 0)  # no stale pid for the next message
            self._board_fd = None
        for fd in reversed(self._fds):
            os.close(fd)
        self._fds.clear()

    def __enter__(self) -> BoardLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
