"""A stock C0 Pi 4 / Pi 400 (1800 MHz) on the daemon's side: the caps come from the board's own
cpufreq list, not the rpi4 profile's table (which stops at 1500 MHz; docs/calibration.md,
session 21p).  Guards that a profile table shorter than the board never caps the board lower."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hw import fakesys
from thermogov.board import load_board
from thermogov.hw.discovery import discover
from thermogov.hw.mapping import governed_table, map_board
from thermogov.hw.sysfs import SysfsTree


@pytest.mark.parametrize("model", ["Raspberry Pi 4 Model B Rev 1.4", "Raspberry Pi 400 Rev 1.0"])
def test_a_stock_c0_board_is_governed_over_its_own_1800_table(tmp_path: Path, model: str) -> None:
    khz = fakesys.khz_grid(600000, 100000, 1800000)
    t = fakesys.rpi4(tmp_path, model=model, table_khz=khz)
    board = load_board("rpi4")
    bmap = map_board(discover(SysfsTree(t.root)), board)
    (db,) = bmap.domains
    caps = governed_table(db.hw_table_hz, db.domain.opp_hz[0], None)
    assert caps[0] == 600_000_000 and caps[-1] == 1_800_000_000 and len(caps) == 13
    assert board.domains[0].stock_clock_for(model) == caps[-1]
