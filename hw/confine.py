"""Confined file access: a write lands on the file discovery recorded, or nowhere.

A root daemon that caches resolved paths and opens them with link following can be made to
write anywhere: swap ``policy0/scaling_max_freq`` (or its directory) for a symlink after
start-up and the next cap goes to whatever it points at.  So every write to the board:

* opens the recorded real path with ``O_NOFOLLOW`` (a symlink at the last component fails
  with ``ELOOP``), without ``O_CREAT`` and without ``O_TRUNC`` (nothing is created or
  emptied before the check);
* ``fstat``\\ s the descriptor and compares device and inode with the regular file recorded
  when the attribute was owned (inside ``--sysfs-root``): a swapped directory component leads
  to another inode and is refused the same way;
* only then truncates (what ``echo value > attr`` does; sysfs ignores it) and writes.

A refusal raises :class:`ConfinementError`; the governor treats it as a reason for failsafe at
once (lowest caps everywhere else), not after ``max_write_failures`` attempts, because it is a
tampered tree rather than a transient driver error.

The daemon's own files (the lock files, the journal's temporary file) are opened through
:func:`open_private`: ``O_NOFOLLOW`` and, for new files, ``O_EXCL`` (whatever was planted at
the name is unlinked and the create tried once more), then checked to be a regular file with
a single link, so a planted symlink or hard link can never redirect the daemon's writes either.
See open(2) (``O_NOFOLLOW``, ``O_EXCL``) and fstat(2).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass

from thermogov.interfaces import ActuatorError

_WRITE_FLAGS = os.O_WRONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class ConfinementError(ActuatorError):
    """A write target is not the file discovery recorded (a symlink, another inode, gone).

    ``immediate_failsafe`` tells the governor core (which knows nothing of sysfs) not to
    wait for repeated failures.
    """

    immediate_failsafe = True


class HeldRefusal(ConfinementError):
    """The same refusal again, for a domain already held at its failsafe (session 30r): the
    governor keeps its failsafe (the write still failed) but tags and says nothing new, and
    nothing was read or written for it (:meth:`thermogov.hw.devices.CapActuator.apply`)."""

    repeat = True


@dataclass(frozen=True, slots=True)
class FileId:
    """Device and inode of a regular file: what "the same file" means across opens."""

    dev: int
    ino: int

    @classmethod
    def of(cls, st: os.stat_result) -> FileId:
        return cls(st.st_dev, st.st_ino)


def identify(real: str, shown: str) -> FileId:
    """The identity of the regular file at ``real`` (last component not followed)."""
    try:
        st = os.lstat(real)
    except OSError as e:
        raise ConfinementError(f"{shown}: cannot stat ({e.strerror}); run `thermogov doctor`") from e
    if not stat.S_ISREG(st.st_mode):
        raise ConfinementError(f"{shown}: not a regular file; refusing to own it (fix the tree)")
    return FileId.of(st)


def _refusal(shown: str, why: str) -> ConfinementError:
    return ConfinementError(
        f"{shown}: {why} since start-up; refusing to write outside the recorded sysfs file "
        "(failsafe; check who changed the tree)"
    )


def check(real: str, ident: FileId, shown: str) -> None:
    """Refuse if ``real`` is no longer the recorded regular file (symlink, other inode, gone)."""
    try:
        st = os.lstat(real)
    except OSError as e:
        raise _refusal(shown, f"vanished ({e.strerror})") from e
    if stat.S_ISLNK(st.st_mode):
        raise _refusal(shown, "became a symlink")
    if not stat.S_ISREG(st.st_mode) or FileId.of(st) != ident:
        raise _refusal(shown, "was replaced by another file")


def open_confined(real: str, ident: FileId, shown: str) -> int:
    """A write descriptor on exactly the recorded file, or :class:`ConfinementError`."""
    try:
        fd = os.open(real, _WRITE_FLAGS)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise _refusal(shown, "became a symlink") from e
        if e.errno in (errno.ENOENT, errno.ENOTDIR):
            raise _refusal(shown, f"vanished ({e.strerror})") from e
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or FileId.of(st) != ident:
            raise _refusal(shown, "was replaced by another file")
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_confined(real: str, ident: FileId, data: bytes, shown: str) -> None:
    """Truncate and write ``data`` to the recorded file; ``OSError`` for kernel refusals."""
    fd = open_confined(real, ident, shown)
    try:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # `echo v > attr` truncates too; sysfs ignores the size
        n = os.write(fd, data)
        if n != len(data):
            raise OSError(errno.EIO, f"short write ({n} of {len(data)} bytes)")
    finally:
        os.close(fd)


def open_private(path: str, flags: int, mode: int = 0o600, *, fresh: bool = False) -> int:
    """Open one of the daemon's own files without following a planted link.

    ``fresh``: the file is created with ``O_EXCL``; whatever is at ``path`` is unlinked first
    (a symlink or hard link planted there is removed, not followed).  Otherwise an existing
    regular file is reused (the lock files).  Either way the result must be a regular file
    with one link, owned by us; ``OSError`` (``ELOOP`` for a symlink) otherwise.
    """
    base = flags | os.O_NOFOLLOW | os.O_CLOEXEC
    if fresh:
        # O_EXCL first: it fails on anything at the name, a symlink included (open(2)), and
        # the name is usually free (the state file's temporary was renamed away a second
        # ago), so the unlink and its FileNotFoundError are paid only when something is there.
        try:
            fd = os.open(path, base | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            with contextlib.suppress(FileNotFoundError):  # gone meanwhile: the name is free
                os.unlink(path)
            fd = os.open(path, base | os.O_CREAT | os.O_EXCL, mode)
    else:
        fd = os.open(path, base | os.O_CREAT, mode)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or st.st_uid != os.geteuid():
            raise OSError(errno.EPERM, "not a private regular file (a planted link or another owner)")
    except BaseException:
        os.close(fd)
        raise
    return fd
