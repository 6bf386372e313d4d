"""A log whose time never advances is refused at import, through the installed script (session 17).

Every row at one time gave a run folder with a zero-length time axis (exit 0), which
`calibrate` then refused and `plot` drew as one vertical line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov

TEGRA = "12-05-2026 12:00:00 RAM 2000/7000MB CPU [10%@1510,20%@1510] GR3D_FREQ 0% cpu@{t:.2f}C gpu@50C\n"


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("table.csv", "time,temp\n" + "".join(f"10,{50 + i * 0.1:.1f}\n" for i in range(50))),
        ("tegrastats.txt", "".join(TEGRA.format(t=50 + i * 0.05) for i in range(50))),
    ],
)
def test_a_log_whose_rows_share_one_time_is_refused(tmp_path: Path, name: str, text: str) -> None:
    log = tmp_path / name
    log.write_text(text)
    line = one_line_error(thermogov("import", str(log), "--out", str(tmp_path / "o")), "share one time")
    assert str(log) in line
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


def test_a_log_whose_time_advances_is_still_imported(tmp_path: Path) -> None:
    log = tmp_path / "table.csv"
    log.write_text("time,temp\n" + "".join(f"{i},{50 + i * 0.1:.1f}\n" for i in range(50)))
    p = thermogov("import", str(log), "--out", str(tmp_path / "o"))
    assert p.returncode == 0, p.stderr
