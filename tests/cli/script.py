"""Run the installed ``thermogov`` console script in a subprocess (exit codes as a user sees them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cliutil import run_cli_completed
from tests.runtimedir import child_env

_BIN = Path(sys.executable).parent / "thermogov"
SCRIPT = str(_BIN) if _BIN.exists() else (shutil.which("thermogov") or "thermogov")


def thermogov(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = child_env({**os.environ, "MPLBACKEND": "Agg"})  # never the real /run/thermogov
    return subprocess.run(
        [SCRIPT, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout, check=False
    )


def one_line_error(p: subprocess.CompletedProcess[str], needle: str) -> str:
    """The single ``thermogov: error:`` line of a bad-input refusal (exit 2, no traceback)."""
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in p.stderr
    assert len(lines) == 1 and lines[0].startswith("thermogov: error:"), p.stderr
    assert needle in lines[0], lines[0]
    return lines[0]


def sim_refuses_config(
    tmp: Path, text: str, needle: str, capsys: pytest.CaptureFixture[str] | None = None
) -> None:
    """``thermogov sim --config`` with ``text`` exits 2 with one line holding ``needle`` and
    writes no run folder; with ``capsys``, the same ``main`` in-process (tests/cliutil.py), for
    the cases beyond the one a test runs through the installed script."""
    conf = tmp / "c.toml"
    conf.write_text(text)
    args = ["sim", "--config", str(conf), "--duration", "5", "--out", str(tmp / "out")]
    p = thermogov(*args) if capsys is None else run_cli_completed(args, capsys)
    one_line_error(p, needle)
    assert not (tmp / "out").exists()


def thermogov_fd(*args: str, data: bytes, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``thermogov`` with ``{fd}`` in ``args`` standing for a pipe already holding ``data``: what
    the shell's ``<(...)`` hands a command (``/dev/fd/N``, its writer done)."""
    r, w = os.pipe()
    os.write(w, data)
    os.close(w)
    try:
        return subprocess.run(
            [SCRIPT, *(a.replace("{fd}", str(r)) for a in args)],
            capture_output=True,
            text=True,
            timeout=timeout,
            pass_fds=(r,),
            env=child_env(),
            check=False,
        )
    finally:
        os.close(r)
