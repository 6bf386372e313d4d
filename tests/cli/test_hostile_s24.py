"""Hostile round, session 24 (docs/hardware.md, "Session 24d"): session 23's new inputs
(``import --columns`` maps, nvfancontrol.conf, ``input_rail`` labels), through the installed script.

``--columns temp=2,temp=4`` mapped both columns to the ``cpu`` sensor and kept the last silently
(a maximum of 3 °C from a column of counts); a column position of 5 000 digits ended in "internal
error" (int()'s 4300-digit limit); a 100 000-character rail label was echoed whole in the error.
Each is now one line, exit 2, nothing written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.script import one_line_error, thermogov

LOG = "t,temp,freq,x\n0,50.0,1000,3\n1,51.0,1000,3\n2,52.0,1000,3\n"


@pytest.mark.parametrize(
    ("columns", "said"),
    [
        ("t=1,temp=2,temp=4", "temp.cpu is given to two columns"),
        ("t=1,t=4", "t is given to two columns"),
        ("t=" + "9" * 5000, "which the file does not have"),
        ("t=1,temp=\uff12", "which the file does not have"),
    ],
)
def test_a_bad_columns_map_is_one_line_and_writes_nothing(tmp_path: Path, columns: str, said: str) -> None:
    log = tmp_path / "log.csv"
    log.write_text(LOG)
    p = thermogov("import", str(log), "--columns", columns, "--out", str(tmp_path / "o"), timeout=120)
    line = one_line_error(p, said)
    assert len(line) < 400
    assert not (tmp_path / "o").exists()


def test_a_huge_rail_label_is_refused_in_one_short_line(tmp_path: Path) -> None:
    base = (Path(__file__).parents[2] / "thermogov/boards/jetson-orin-nano.toml").read_text()
    board = tmp_path / "b.toml"
    board.write_text(base.replace('input_rail = "VDD_IN"', 'input_rail = "' + "A" * 100_000 + '"'))
    p = thermogov("sim", "--board", str(board), "--duration", "20", "--out", str(tmp_path / "o"), timeout=120)
    line = one_line_error(p, "is not a power-monitor rail label")
    assert len(line) < 600
    assert not (tmp_path / "o").exists()
