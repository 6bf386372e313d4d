"""Refusals added by the session-14 review, through the installed ``thermogov import``: exit 2,
one line naming the column and the fix, no run folder (docs/importing.md, "Reviewed, session 14")."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.script import one_line_error, thermogov

CELSIUS = [44.0 + 0.3 * k for k in range(10)]


def _table(tmp_path: Path, header: str, cells: list[str]) -> Path:
    path = tmp_path / "log.csv"
    path.write_text(
        header + "\n" + "".join(f"10:00:{k:02d},{c}\n" for k, c in enumerate(cells)), encoding="utf-8"
    )
    return path


def test_a_stated_fahrenheit_header_over_celsius_values_is_refused(tmp_path: Path) -> None:
    """`temp_f` over 44..47 was read as 6.7..8.3 °C: a running board below room temperature."""
    path = _table(tmp_path, "time,temp_f", [f"{c:.1f}" for c in CELSIUS])
    line = one_line_error(thermogov("import", str(path), "--out", str(tmp_path / "out")), "'temp_f'")
    assert "--columns temp=temp_f:C" in line and "temp=temp_f:F" in line
    assert not (tmp_path / "out").exists()


def test_the_named_fix_reads_the_values_as_celsius(tmp_path: Path) -> None:
    path = _table(tmp_path, "time,temp_f", [f"{c:.1f}" for c in CELSIUS])
    p = thermogov(
        "import", str(path), "--columns", "t=time,temp=temp_f:C", "--out", str(tmp_path / "out"), "--json"
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["summary"]["max_fused_c"] == round(max(CELSIUS), 4)


def test_fahrenheit_values_of_a_running_board_stay_fahrenheit(tmp_path: Path) -> None:
    fahrenheit = [c * 9 / 5 + 32 for c in CELSIUS]  # 111..117 °F
    path = _table(tmp_path, "time,temp_f", [f"{f:.2f}" for f in fahrenheit])
    p = thermogov("import", str(path), "--out", str(tmp_path / "out"), "--json")
    assert p.returncode == 0, p.stderr
    assert abs(json.loads(p.stdout)["summary"]["max_fused_c"] - max(CELSIUS)) < 0.01


def test_a_column_null_in_every_row_is_named(tmp_path: Path) -> None:
    """A netdata export of a chart with no data: refused before, but without the column's name."""
    path = tmp_path / "netdata.csv"
    path.write_text(
        "time,temp1\n" + "".join(f"2026-12-05 10:00:{59 - k:02d},null\n" for k in range(10)), encoding="utf-8"
    )
    one_line_error(
        thermogov("import", str(path), "--out", str(tmp_path / "out")), "'temp1' empty or null in every row"
    )
    assert not (tmp_path / "out").exists()


def test_unnamed_vcgencmd_temperatures_per_clock_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "vc.log"
    path.write_text(
        "".join(
            f"10:00:{k:02d}\ntemp={c:.1f}'C\ntemp=40.0'C\nfrequency(0)=2400023808\nthrottled=0x0\n"
            for k, c in enumerate(CELSIUS)
        ),
        encoding="utf-8",
    )
    one_line_error(thermogov("import", str(path), "--out", str(tmp_path / "out")), "print a name before each")
    assert not (tmp_path / "out").exists()
