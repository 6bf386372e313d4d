"""A housing that brings a body of its own (a heatsink on the lid behind a gap pad) as a new node."""

from __future__ import annotations

import copy
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.cli.script import one_line_error, thermogov
from thermogov import tomlread
from thermogov.board import parse_board, with_enclosure
from thermogov.interfaces import ConfigError
from thermogov.sim.calibration.model import network, param_specs
from thermogov.sim.calibration.profile import board_toml
from thermogov.sim.model.plant import ThermalPlant

TOWER = {
    "description": "a heatsink on the lid behind a pad",
    "to_ambient_w_per_k": {"board": 0.2},
    "nodes": {
        "heatsink": {
            "capacitance_j_per_k": 50.0,
            "to_ambient_w_per_k": 0.6,
            "attached_to": "package",
            "pad_w_per_k": 0.8,
        }
    },
}


def rpi4_with(housing: dict[str, Any]) -> dict[str, Any]:
    raw = tomlread.loads(
        resources.files("thermogov.boards").joinpath("rpi4.toml").read_text(encoding="utf-8")
    )
    raw["enclosures"]["tower"] = copy.deepcopy(housing)
    return raw


def test_the_housing_adds_its_node_behind_the_pad() -> None:
    board = with_enclosure(parse_board(rpi4_with(TOWER), "rpi4.toml"), "tower")
    th = board.thermal
    assert th.node_names() == ("cpu", "package", "board", "heatsink")
    assert th.links[-1].a == "package" and th.links[-1].b == "heatsink"
    assert th.links[-1].conductance_w_per_k == 0.8
    # the board's own nodes take the housing's other values as before
    assert [n.to_ambient_w_per_k for n in th.nodes] == [0.0, 0.0, 0.2, 0.6]


def test_heat_through_the_pad_meets_the_resistances_in_series() -> None:
    """A watt on the die with only the heatsink's path to air: the die sits at the sum of the three."""
    housing = copy.deepcopy(TOWER)
    housing["to_ambient_w_per_k"] = {"board": 0.0}
    raw = rpi4_with(housing)
    board = with_enclosure(parse_board(raw, "rpi4.toml"), "tower")
    _, g = network(board.thermal)
    steady = np.linalg.solve(g, np.array([1.0, 0.0, 0.0, 0.0]))
    g_die = next(lk.conductance_w_per_k for lk in board.thermal.links if lk.b == "package")
    assert steady[0] == pytest.approx(1 / g_die + 1 / 0.8 + 1 / 0.6)
    assert steady[2] == pytest.approx(steady[1])  # the board hangs off the package with no other way out


def test_the_simulators_plant_and_the_fit_see_the_node() -> None:
    board = with_enclosure(parse_board(rpi4_with(TOWER), "rpi4.toml"), "tower")
    plant = ThermalPlant.from_profile(board.thermal, 25.0)
    assert plant.names[-1] == "heatsink" and plant.to_ambient[-1] == 0.6
    names = {s.name for s in param_specs(board, ["cpu"], False, 25.0, sample_s=2.0)}
    assert {"C[heatsink]", "G[heatsink-ambient]", "G[package-heatsink]"} <= names


def test_a_fan_may_blow_over_the_added_node() -> None:
    housing = copy.deepcopy(TOWER)
    housing["fan"] = {
        "node": "heatsink",
        "curve_node": "cpu",
        "duty": [0, 255],
        "conductance_w_per_k": [0.0, 0.5],
        "power_w": [0.0, 0.5],
        "default_on_c": [60.0],
        "default_hyst_c": 5.0,
    }
    board = with_enclosure(parse_board(rpi4_with(housing), "rpi4.toml"), "tower")
    assert board.fan is not None and board.fan.node == "heatsink"


def test_the_profile_writer_keeps_the_added_node() -> None:
    """A profile with the housing reads back the same; one fitted in it carries the node in [thermal]."""
    board = parse_board(rpi4_with(TOWER), "rpi4.toml")
    again = parse_board(tomlread.loads(board_toml(board)), "again.toml")
    assert again.enclosures == board.enclosures
    fitted = with_enclosure(board, "tower")
    assert parse_board(tomlread.loads(board_toml(fitted)), "fitted.toml").thermal == fitted.thermal


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("attached_to", "lid", "nodes.heatsink.attached_to: unknown node 'lid'"),
        ("pad_w_per_k", 0.0, "nodes.heatsink.pad_w_per_k"),
        ("pad_w_per_k", "thick", "nodes.heatsink.pad_w_per_k"),
        ("capacitance_j_per_k", -3.0, "nodes.heatsink.capacitance_j_per_k"),
        ("to_ambient_w_per_k", float("nan"), "nodes.heatsink.to_ambient_w_per_k"),
        ("padding", 1.0, "nodes.heatsink.padding: unknown key"),
    ],
)
def test_a_bad_added_node_names_its_field(field: str, value: object, message: str) -> None:
    housing = copy.deepcopy(TOWER)
    housing["nodes"]["heatsink"][field] = value
    with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("(", r"\(")):
        parse_board(rpi4_with(housing), "rpi4.toml")


def test_an_added_node_may_not_reuse_a_board_node() -> None:
    housing = copy.deepcopy(TOWER)
    housing["nodes"] = {"package": housing["nodes"]["heatsink"]}
    with pytest.raises(ConfigError, match="'package' is already a node of the board"):
        parse_board(rpi4_with(housing), "rpi4.toml")


def test_the_cli_refuses_a_bad_pad_in_one_line(tmp_path: Path) -> None:
    text = resources.files("thermogov.boards").joinpath("rpi4.toml").read_text(encoding="utf-8")
    bad = text + (
        "\n[enclosures.tower.nodes.heatsink]\ncapacitance_j_per_k = 50.0\n"
        'attached_to = "package"\npad_w_per_k = -1.0\n'
    )
    board = tmp_path / "b.toml"
    board.write_text(bad, encoding="utf-8")
    p = thermogov("sim", "--board", str(board), "--duration", "5", "--out", str(tmp_path / "out"))
    one_line_error(p, "enclosures.tower.nodes.heatsink.pad_w_per_k")
    assert not (tmp_path / "out").exists()
