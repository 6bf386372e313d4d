"""One contract, two worlds: the same checks on the simulated and the sysfs implementations.

The governor is written only against ``SensorSource`` and ``FrequencyActuator``; these tests
pin down what it relies on, for the simulator's domains and for the real backend reading a
board-shaped tree (the same tree the emulator serves to the daemon).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from thermogov.board import load_board
from thermogov.config import Config
from thermogov.hw.devices import CapActuator, open_sensor
from thermogov.hw.discovery import discover
from thermogov.hw.mapping import map_board
from thermogov.hw.sysfs import SysfsTree
from thermogov.interfaces import ActuatorError, FrequencyActuator, Reading, SensorSource
from thermogov.sim.emulator.fakeboard import build_fake_board
from thermogov.sim.model.world import SimWorld

BOARDS = ["jetson-orin-nano", "rpi5", "jetson-agx-xavier", "jetson-xavier-nx", "rpi3"]
World = tuple[list[FrequencyActuator], list[SensorSource]]


def sim_world(board_name: str, tmp_path: Path) -> World:
    board = load_board(board_name)
    w = SimWorld(board, Config(board=board_name))
    return list(w.domains.values()), list(w.sensors.values())


def hw_world(board_name: str, tmp_path: Path) -> World:
    board = load_board(board_name)
    build_fake_board(board, tmp_path, {s.name: 45.0 for s in board.sensors})
    tree = SysfsTree(tmp_path)
    bmap = map_board(discover(tree), board)
    assert not bmap.missing_domains and not bmap.missing_sensors
    actuators: list[FrequencyActuator] = [CapActuator.open(tree, b) for b in bmap.domains]
    sensors: list[SensorSource] = [open_sensor(tree, b) for b in bmap.sensors]
    return actuators, sensors


WORLDS: dict[str, Callable[[str, Path], World]] = {"sim": sim_world, "hw": hw_world}


@pytest.fixture(params=[(w, b) for w in WORLDS for b in BOARDS], ids=lambda p: f"{p[0]}-{p[1]}")
def world(request: pytest.FixtureRequest, tmp_path: Path) -> World:
    kind, board = request.param
    return WORLDS[kind](board, tmp_path)


def test_tables_are_immutable_ascending_and_the_cap_is_a_member(world: World) -> None:
    actuators, _ = world
    for a in actuators:
        t = a.table_hz
        assert isinstance(t, tuple) and list(t) == sorted(set(t)) and len(t) >= 2
        assert a.cap_hz in t
        assert isinstance(a, FrequencyActuator)


def test_apply_accepts_only_table_members_and_reads_back(world: World) -> None:
    actuators, _ = world
    for a in actuators:
        t = a.table_hz
        before = a.cap_hz
        with pytest.raises(ActuatorError):
            a.apply(t[0] + 1)
        assert a.cap_hz == before
        for cap in (t[0], t[len(t) // 2], t[-1]):
            assert a.apply(cap) == cap
            assert a.cap_hz == cap
            eff = a.effective_hz()
            # A static tree has no kernel lowering scaling_cur_freq, so hw may still show the top.
            assert eff is None or eff in t


def test_restore_puts_back_what_was_in_force_at_open(world: World) -> None:
    actuators, _ = world
    for a in actuators:
        original = a.cap_hz
        a.apply(a.table_hz[0])
        a.restore()
        assert a.cap_hz == original


def test_sensors_return_readings_in_celsius(world: World) -> None:
    _, sensors = world
    for s in sensors:
        r = s.read()
        assert isinstance(r, Reading) and r.sensor == s.name
        assert -40.0 <= r.value_c <= 150.0
