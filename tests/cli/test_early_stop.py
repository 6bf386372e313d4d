"""A stop before the console script calls ``main``, and a stop whose one line cannot be written.

pip's generated ``thermogov`` script imports ``thermogov.entry`` and then runs a regular
expression over ``argv[0]`` before it calls ``main()``: a Ctrl-C there raised KeyboardInterrupt
outside every guard (a traceback, killed by SIGINT), and one inherited ignored was lost (the
command ran on).  Found by session 15's review driving SIGINT at start-up delays
(docs/sweeps.md, "Session 15").  The window is put exactly here: a copy of the generated script
(named ``thermogov``, as pip names it) sends the signal itself between the import and the call.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = """import os, signal, sys
from thermogov.entry import main
os.kill(os.getpid(), signal.SIGINT)  # where pip's script compiles its argv[0] regex
sys.exit(main())
"""


def _script(tmp: Path) -> Path:
    path = tmp / "thermogov"
    path.write_text(SCRIPT)
    return path


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job of a non-interactive shell


@pytest.mark.parametrize("inherited", ["default", "ignored"])
def test_a_stop_between_the_import_and_main_exits_130_in_one_line(tmp_path: Path, inherited: str) -> None:
    r = subprocess.run(
        [sys.executable, str(_script(tmp_path)), "boards"],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=_ignore_sigint if inherited == "ignored" else None,
        check=False,
    )
    assert (r.returncode, r.stderr) == (130, "thermogov: interrupted\n")
    assert r.stdout == ""  # stopped before the command ran


def test_a_stop_with_stderr_a_broken_pipe_still_exits_130(tmp_path: Path) -> None:
    """`thermogov ... 2>&1 | tee log`: the Ctrl-C ends tee first, then the one line hits EPIPE."""
    read, write = os.pipe()
    os.close(read)
    try:
        p = subprocess.run(
            [sys.executable, str(_script(tmp_path)), "boards"],
            stdout=subprocess.DEVNULL,
            stderr=write,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)
    assert p.returncode == 130
