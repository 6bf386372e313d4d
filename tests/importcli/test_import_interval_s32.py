"""``import --interval`` is the pace of a log without timestamps: a value no logger writes at is a
unit slip, refused in one line before anything is read or written (left by session 32h: ``1e-300``
was accepted and put every reading on one instant)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov
from tests.cliutil import run_cli_completed

TEGRA = "RAM 2000/7000MB CPU [10%@1510,20%@1510] GR3D_FREQ 0% cpu@{t:.2f}C gpu@50C\n"


def _log(tmp: Path) -> Path:
    """Tegrastats without timestamps (``tegrastats --logfile``), rising 0.05 °C a line."""
    log = tmp / "tegrastats.txt"
    log.write_text("".join(TEGRA.format(t=50 + i * 0.05) for i in range(40)))
    return log


def test_an_interval_under_a_millisecond_is_refused_through_the_script(tmp_path: Path) -> None:
    p = thermogov("import", str(_log(tmp_path)), "--interval", "1e-300", "--out", str(tmp_path / "o"))
    one_line_error(p, "--interval: 1e-300 s is no logging interval; give seconds from 0.001 to 86400")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("interval", ["0.0009", "86401", "1e300", "-1", "0", "nan", "inf"])
def test_an_interval_no_logger_writes_at_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], interval: str
) -> None:
    args = ["import", str(_log(tmp_path)), "--interval", interval, "--out", str(tmp_path / "o")]
    one_line_error(run_cli_completed(args, capsys), "--interval:")
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("interval", ["0.001", "0.1", "86400"])
def test_an_interval_a_logger_writes_at_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], interval: str
) -> None:
    args = ["import", str(_log(tmp_path)), "--interval", interval, "--out", str(tmp_path / "o")]
    p = run_cli_completed(args, capsys)
    assert p.returncode == 0, p.stderr
    assert f"no timestamps: assumed {float(interval):g} s interval (given)" in p.stdout + p.stderr
