"""A calibrated profile keeps the identity of the profile it was fitted from (session 17).

The profile writer dropped ``dt_socs`` (session 16's SoC-family claim), so a calibrated Orin
Nano profile no longer claimed the ``nvidia,p3767`` modules an Orin NX is detected by; the
writer is meant to be the inverse of ``parse_board`` for every table.
"""

from __future__ import annotations

import dataclasses
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
    assert (written.input_rails, written.summed_rails) == (base.input_rails, base.summed_rails)  # session 23d


def test_a_calibrated_orin_nano_profile_still_claims_an_orin_nx_by_its_module_family(tmp_path: Path) -> None:
    path = tmp_path / "jetson-orin-nano-calibrated.toml"
    base = load_board("jetson-orin-nano")
    path.write_text(board_toml(rename(base, "jetson-orin-nano-calibrated", "fitted")), encoding="utf-8")
    found = family_match(ORIN_NX, [load_board_file(path)])
    assert [p.name for p in found.candidates] == ["jetson-orin-nano-calibrated"]
    assert found.compatible == "nvidia,p3767-0000"


def _differences(a: object, b: object, where: str = "") -> list[str]:
    """Every leaf where two parsed profiles differ, by its dotted path."""
    if dataclasses.is_dataclass(a) and type(a) is type(b):
        return [
            d
            for f in dataclasses.fields(a)
            for d in _differences(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
        ]
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{where}[{i}]")
        ]
    return [] if a == b else [f"{where}: {a!r} -> {b!r}"]


@pytest.mark.parametrize("name", builtin_board_names())
def test_a_written_profile_reads_back_as_the_profile_it_was_written_from(name: str, tmp_path: Path) -> None:
    """The writer is the inverse of the parser: a calibrated rpi4 once lost its per-workload activity."""
    base = rename(load_board(name), f"{name}-calibrated", "fitted")
    path = tmp_path / f"{name}-calibrated.toml"
    path.write_text(board_toml(base), encoding="utf-8")
    written = dataclasses.replace(
        load_board_file(path), source_file=base.source_file
    )  # where it was read from
    assert _differences(base, written) == []
