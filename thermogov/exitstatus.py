"""The exit-status contract of every command, in one place: which failure exits with what.

``thermogov.cli.run_main`` applies it to whatever a command raises; the hardware commands also
apply it themselves (``hw/cli.py``), because tests and ``thermogov.hw`` callers run them through
click without the root router.  Both must print the same line and exit with the same status,
so neither spells the mapping out.
"""

from __future__ import annotations

from thermogov.interfaces import RuntimeFailure, ThermogovError

BAD_INPUT = 2  # a ThermogovError: the input named in the line is wrong; nothing was written
RUNTIME_FAILURE = 1  # a RuntimeFailure: the input was fine, the board or the environment failed
INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


def one_line(text: str) -> str:
    """Whatever a message holds (a path with a newline, a wrapped hint), one line of it."""
    return " ".join(text.split())


def failure_status(e: ThermogovError | RuntimeFailure) -> tuple[int, str]:
    """``(status, line)`` of the two failures any command may raise."""
    status = BAD_INPUT if isinstance(e, ThermogovError) else RUNTIME_FAILURE
    return status, one_line(f"error: {e}")
