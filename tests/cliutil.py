"""Run the real ``thermogov`` entry point in-process and collect its exit status and output."""

from __future__ import annotations

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
