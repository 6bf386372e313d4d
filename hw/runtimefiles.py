"""Files the root daemon publishes outside sysfs: the state file and the metrics textfile.

A root process writing into a directory others can influence is a classic way to be made to
overwrite something else, so before the first write (and so before anything is governed):

* the path must not lie under ``/sys`` or ``/proc`` (the daemon owns only the attributes
  :mod:`~thermogov.hw.owned` lists there);
* the directory is created ``0755`` when missing (the state file's default, ``/run/thermogov``),
  and must be a real directory (not a symlink) owned by this user or root, and not writable by
  others unless sticky;
* every write goes to a fresh temporary file in that directory (:func:`confine.open_private`:
  whatever was planted at the name is unlinked, never followed), is fsynced, then renamed over
  the target (rename(2) is atomic), so a reader sees the old file or the new one, whole;
* (session 24a) the target itself, when it exists, must be a regular file (:func:`check_target`):
  the rename replaces whatever is at the name, so a named pipe, a device, a symlink (dangling,
  looping or not) given as the state file was silently replaced by a regular file, and deleted
  at exit.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from thermogov.client import file_kind
from thermogov.hw import confine
from thermogov.interfaces import ConfigError

FORBIDDEN_ROOTS = ("/sys", "/proc")


def check_dir(path: Path, option: str, *, create: bool) -> None:
    """Refuse (``ConfigError``, exit 2) a target whose directory the daemon must not write in."""
    real = os.path.realpath(path)
    for forbidden in FORBIDDEN_ROOTS:
        if real == forbidden or real.startswith(forbidden + "/"):
            raise ConfigError(f"{option} {path}: resolves under {forbidden}; choose a path outside it")
    parent = path.parent
    if create and not os.path.lexists(parent):
        try:
            parent.mkdir(parents=True, mode=0o755)
            parent.chmod(0o755)  # whatever the umask: readers of the state are not root
        except OSError as e:
            raise ConfigError(
                f"{option} {path}: cannot create {parent} ({e.strerror}); choose another path"
            ) from e
    try:
        st = os.lstat(parent)
    except OSError as e:
        raise ConfigError(
            f"{option} {path}: {parent} is not usable ({e.strerror}); create it or choose another path"
        ) from e
    if stat.S_ISLNK(st.st_mode):
        raise ConfigError(f"{option} {path}: {parent} is a symlink; refusing to write through it")
    if not stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"{option} {path}: {parent} is not a directory; choose another path")
    if st.st_uid not in (os.geteuid(), 0):
        raise ConfigError(f"{option} {path}: {parent} belongs to uid {st.st_uid}; use a directory of root's")
    if st.st_mode & stat.S_IWOTH and not st.st_mode & stat.S_ISVTX:
        raise ConfigError(f"{option} {path}: {parent} is world-writable; use a directory only root writes")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{option} {path}: {parent} is not writable by this user; choose another path")


def replace_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Readers see the old content or ``data``, never a part of it (``OSError`` on failure).

    ``durable``: fsync before the rename, so a power cut leaves the old or the new file (free on
    the tmpfs of ``/run``).  The metrics textfile skips it: it usually lives on a disk, where an
    fsync a second costs real work, and after a power cut its values are stale whatever it holds.
    """
    tmp = str(path.with_name(f".{path.name}.tmp"))
    fd = confine.open_private(tmp, os.O_WRONLY, 0o644, fresh=True)
    try:
        os.fchmod(fd, 0o644)  # whatever the umask: the application reading it is not root
        n = os.write(fd, data)
        if n != len(data):
            raise OSError(errno.EIO, f"{tmp}: short write ({n} of {len(data)} bytes)")
        if durable:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    os.replace(tmp, path)


def check_target(path: Path, option: str) -> bool:
    """Refuse (``ConfigError``) a target that exists and is not a regular file; say if it exists.

    ``lstat``, never followed: a symbolic link is refused whatever it points to (a dangling or
    looping one included), since the rename would replace the link, not write where it points.
    """
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as e:
        raise ConfigError(f"{option} {path}: cannot be looked at ({e.strerror}); choose another path") from e
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(
            f"{option} {path}: exists and is {file_kind(st.st_mode)}, not a regular file; remove it or choose another path"
        )
    return True


def read_regular(path: Path, limit: int = 1 << 20) -> bytes | None:
    """The bytes of ``path`` if it is a regular file now (never blocks on a pipe swapped in), else None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def check_not_own(path: Path, option: str, own: Mapping[str, Path]) -> None:
    """Refuse (``ConfigError``) a target that names one of the daemon's own records (session 25r).

    The crash journal and the lock files are made only after the targets are checked, so at
    that check nothing is there: a ``--state-file`` naming the journal then replaced it every
    second (a ``kill -9`` left the caps, and ``thermogov restore`` refused the "corrupt
    journal"), one naming a lock file replaced the flocked file.  Compared by the folder's real
    path and the name (the name itself is replaced, never followed).
    """
    where = (os.path.realpath(path.parent), path.name)
    for what, record in own.items():
        if (os.path.realpath(record.parent), record.name) == where:
            raise ConfigError(
                f"{option} {path}: is thermogov's own {what} ({record}); it would be replaced while "
                "the daemon runs and deleted at exit; choose another path"
            )
