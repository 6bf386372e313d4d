"""The exit-status contract of every command, in one place: which failure exits with what.

``thermogov.cli.run_main`` applies it to whatever a command raises; the hardware commands also
apply it themselves (``hw/cli.py``), because tests and ``thermogov.hw`` callers run them through
click without the root router.  Both must print the same line and exit with the same status,
so neither spells the mapping out.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from thermogov.interfaces import RuntimeFailure, ThermogovError
from thermogov.printable import printable

BAD_INPUT = 2  # a ThermogovError: the input named in the line is wrong; nothing was written
RUNTIME_FAILURE = 1  # a RuntimeFailure: the input was fine, the board or the environment failed
INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


def one_line(text: str) -> str:
    """Whatever a message holds (a path with a newline, a label with an escape sequence), one
    line of it: control characters escaped (:mod:`thermogov.printable`), runs of blanks one."""
    return " ".join(printable(text).split())


def failure_status(e: ThermogovError | RuntimeFailure) -> tuple[int, str]:
    """``(status, line)`` of the two failures any command may raise."""
    status = BAD_INPUT if isinstance(e, ThermogovError) else RUNTIME_FAILURE
    return status, one_line(f"error: {e}")


@contextlib.contextmanager
def writing(path: Path | str, *, partial: Path | str | None = None) -> Iterator[None]:
    """Name ``path`` in an ``OSError`` raised while writing it, and remove ``partial`` if given.

    ``open`` names its file, but a failed ``write``/``flush``/``close`` (the disk full, an I/O
    error) raises an ``OSError`` without one, and the command's one line would say "No space
    left on device" without saying where.  ``partial`` is a temporary file a failed write must
    not leave behind (an atomic write's ``.tmp``).
    """
    try:
        yield
    except OSError as e:
        if partial is not None:
            with contextlib.suppress(OSError):
                os.unlink(partial)
        if e.filename is None and e.errno is not None:
            raise OSError(e.errno, e.strerror, str(path)) from e
        raise
