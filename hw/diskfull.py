"""Which failed write of the daemon's own files is the environment's fault, not the operator's.

The CLI's rule (thermogov/interfaces.py): bad input is exit 2, a run that failed with good input
is exit 1, and systemd's ``Restart=on-failure`` and shell scripts act on that difference.  A
folder given on the command line that cannot hold a file (EACCES, EROFS: a read-only mount,
ENOTDIR, ELOOP: a planted link) is a setting to fix, so 2.  A folder that could hold the file but
has no room or failed under the write (ENOSPC, EDQUOT: a quota, EIO: the device) was a good
setting on a full or failing disk: 1, and the line says to free space (session 31r; before, a
full ``--state-dir`` at start said "fix --state-dir" and exited 2).
"""

from __future__ import annotations

import errno

RUNTIME_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO})


def full_disk(e: OSError) -> bool:
    """Whether ``e`` is a write failing on a full or failing disk (a runtime failure)."""
    return e.errno in RUNTIME_ERRNOS


def pid_write_failed(path: object, e: OSError) -> str:
    """The one line of a lock file that opened but whose pid could not be written: the lock
    itself held (nothing was written to the board), so a runtime failure whatever the errno."""
    name = errno.errorcode.get(e.errno or 0, "error")
    fix = "free space on its file system" if full_disk(e) else "check its file system"
    return f"{path}: cannot write this run's pid into the lock ({name}: {e.strerror}); {fix} (nothing was changed)"
