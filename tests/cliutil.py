"""Run the real ``thermogov`` entry point in-process and collect its exit status and output."""

from __future__ import annotations

import subprocess

import pytest

from thermogov.cli import main


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = 0
    try:
        main(args)
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def run_cli_completed(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> subprocess.CompletedProcess[str]:
    """:func:`run_cli` as the ``CompletedProcess`` a subprocess helper returns, so one checker
    (``tests/cli/script.py``'s ``one_line_error``) reads both.  For the cases of an exit-status
    contract beyond the one each test file runs through the installed script: the same ``main``
    decides the status and the line, without a fresh interpreter's start-up per case."""
    code, out, err = run_cli(args, capsys)
    return subprocess.CompletedProcess(["thermogov", *args], code, out, err)
