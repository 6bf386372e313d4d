"""A calibrated profile keeps the identity of the profile it was fitted from (session 17).

The profile writer dropped ``dt_socs`` (session 16's SoC-family claim), so a calibrated Orin
Nano profile no longer claimed the ``nvidia,p3767`` modules an Orin NX is detected by; the
writer is meant to be the inverse of ``parse_board`` for every table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from thermogov.board import builtin_board_names, load_board, load_board_file
from thermogov.hw.mapping import family_match
from thermogov.sim.calibration.profile import board_toml, rename

ORIN_NX = ("nvidia,p3768-0000+p3767-0000", "nvidia,p3767-0000", "nvidia,tegra234")


@pytest.mark.parametrize("name", builtin_board_names())
def test_a_written_profile_keeps_its_device_tree_models_and_soc_families(name: str, tmp_path: Path) -> None:
    base = load_board(name)
    path = tmp_path / f"{name}-calibrated.toml"
    path.write_text(board_toml(rename(base, f"{name}-calibrated", "fitted")), encoding="utf-8")
    written = load_board_file(path)
    assert written.dt_models == base.dt_models
    assert written.dt_socs == base.dt_socs


def test_a_calibrated_orin_nano_profile_still_claims_an_orin_nx_by_its_module_family(tmp_path: Path) -> None:
    path = tmp_path / "jetson-orin-nano-calibrated.toml"
    base = load_board("jetson-orin-nano")
    path.write_text(board_toml(rename(base, "jetson-orin-nano-calibrated", "fitted")), encoding="utf-8")
    found = family_match(ORIN_NX, [load_board_file(path)])
    assert [p.name for p in found.candidates] == ["jetson-orin-nano-calibrated"]
    assert found.compatible == "nvidia,p3767-0000"
