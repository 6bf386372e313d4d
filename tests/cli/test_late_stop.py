"""A stop that lands after the status is decided: during the exit-handler swap or the finalization.

bench/board_shapes.py found it: a second SIGINT right after a clean restore killed the process
by the signal (exit -2) instead of exit 0.  The window is a few bytecodes wide, so the test
puts the signal exactly there: a subprocess whose ``signal.signal`` sends SIGINT to itself
as the first exit handler goes in, with the command's status already decided (0).
"""

from __future__ import annotations

import signal
import subprocess
import sys

PROGRAM = """
import os, signal
import thermogov.cli as cli
import thermogov.entry as entry

cli.run_main = lambda: 0
real = signal.signal

def swap(sig, handler):
    previous = real(sig, handler)
    if sig == signal.SIGTERM and handler is not entry._interrupt:
        os.kill(os.getpid(), signal.SIGINT)  # the second stop, inside the swap
    return previous

signal.signal = swap
entry.main()
"""


def test_a_stop_during_the_exit_handler_swap_keeps_the_decided_status() -> None:
    r = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr


FINALIZING = """
import os, signal, sys
import thermogov.cli as cli
import thermogov.entry as entry

class StopWhileFinalizing:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)  # module teardown: the handlers are the default again

def done(argv=None):
    sys.modules["thermogov.cli"].late = StopWhileFinalizing()
    return 0

cli.run_main = done
entry.main()
"""


def test_a_stop_while_the_interpreter_finalizes_keeps_the_decided_status() -> None:
    # Before: the process died by SIGINT (-2) after a clean restore.
    r = subprocess.run([sys.executable, "-c", FINALIZING], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.returncode, r.stderr)


EARLY = """
import os, signal
import thermogov.cli as cli
import thermogov.entry as entry

def started(argv=None):
    os.kill(os.getpid(), signal.SIGINT)  # a stop during start-up, before any command's handlers
    for _ in range(10_000):  # the Python-level handler runs at a bytecode boundary in here
        pass
    return 0

cli.run_main = started
entry.main()
"""


def _sigint_ignored() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # what `cmd &` in a non-interactive shell gives


def test_a_start_up_sigint_stops_a_process_that_inherited_it_ignored() -> None:
    # Before: Python leaves an inherited SIG_IGN in place, the stop was lost and the run went
    # on (exit 0 here; a daemon ran its whole duration in bench/board_shapes.py).
    r = subprocess.run(
        [sys.executable, "-c", EARLY], capture_output=True, text=True, timeout=60, preexec_fn=_sigint_ignored
    )
    assert r.returncode == 130, (r.returncode, r.stderr)
    assert r.stderr.strip() == "thermogov: interrupted"
