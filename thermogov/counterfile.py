"""The inference counter file: the application's running total, fed back to the daemon.

An inference program the daemon did not start (a camera service, a robot's perception stack)
tells the governor how many inferences it completed by adding to one small file, by default
``/run/thermogov/inferences``; the daemon reads it every control tick into the trace's
``inferences_total``, so a real run records sustained throughput like a simulated one.

The file holds one decimal integer and a newline.  It is rewritten *in place* under an
exclusive ``flock(2)`` (the root daemon creates it world-writable in its root-owned runtime
directory, where an unprivileged application could not rename a temporary file in), and the
daemon reads it under a shared, non-blocking lock, so a reader never sees half a number: a
held lock means "busy, keep the last value", never a wrong one.  Several processes may add to
the same file; the lock serialises them.
"""

from __future__ import annotations

import fcntl
import os

MAX_BYTES = 32  # 20 digits of a 64-bit total and a newline, with room to spare


class CounterBusy(Exception):
    """A writer holds the lock right now; the caller keeps its previous value."""


def parse(raw: bytes, path: str) -> int:
    """The count in ``raw`` (0 for a blank file); ``ValueError`` names ``path`` otherwise."""
    text = raw.decode("ascii", errors="replace").strip()
    if not text:
        return 0
    if not text.isdigit() or len(text) > 20:
        raise ValueError(f"{path}: not an inference count ({text[:24]!r}); delete the file to reset it")
    return int(text)


def add(path: str, n: int) -> int:
    """Add ``n`` completed inferences to the counter at ``path``; returns the new total.

    Creates the file (mode 0644) when it is missing.  ``ValueError`` for a negative or
    non-integer ``n`` or a file that holds no count; ``OSError`` when it cannot be written.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"report_inferences: n must be a non-negative int, got {n!r}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        total = parse(os.pread(fd, MAX_BYTES, 0), path) + n
        data = f"{total}\n".encode()
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
        return total
    finally:
        os.close(fd)  # closing drops the lock


def read(path: str) -> int | None:
    """The total at ``path``; ``None`` when there is no such file or nothing was reported yet
    (the empty file the daemon creates), so "not measured" stays distinct from zero.

    :class:`CounterBusy` while a writer holds the lock; ``ValueError`` for content that is no
    count; ``OSError`` for any other failure to read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            raise CounterBusy(path) from None
        raw = os.pread(fd, MAX_BYTES, 0)
        return parse(raw, path) if raw.strip() else None
    finally:
        os.close(fd)
