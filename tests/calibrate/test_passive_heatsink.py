"""The rpi4 profile's passive heatsink: a heavy body behind a pad, chosen only when declared.

A short training part cannot tell a passive heatsink's slow mode from a lighter bare board
(docs/calibration.md, eleventh session), so the pre-fit must never rank it; declared, it brings
its node into the model the fit and the simulator share."""

from __future__ import annotations

import numpy as np

from thermogov.board import load_board, with_enclosure
from thermogov.sim.calibration.enclosure import candidates, housing_with_fan
from thermogov.sim.calibration.model import network, param_specs

HOUSING = "passive-heatsink"


def test_the_pre_fit_never_ranks_the_passive_heatsink() -> None:
    board = load_board("rpi4")
    assert HOUSING in {e.name for e in board.enclosures}
    assert HOUSING not in candidates(board)
    # nor does a fan's evidence reach it: it has no fan
    assert housing_with_fan(board, (3000.0,)) != HOUSING


def test_declared_it_puts_the_sink_behind_a_pad_on_the_package() -> None:
    bare = load_board("rpi4")
    housed = with_enclosure(bare, HOUSING)
    th = housed.thermal
    assert th.node_names() == (*bare.thermal.node_names(), "sink")
    pad = th.links[-1]
    assert (pad.a, pad.b) == ("package", "sink")
    # the board keeps the bare board's own path and mass: the housing only adds its body
    board_node = next(n for n in th.nodes if n.name == "board")
    bare_board = next(n for n in bare.thermal.nodes if n.name == "board")
    assert board_node == bare_board
    names = {s.name for s in param_specs(housed, ["cpu"], False, 25.0, sample_s=2.0)}
    assert {"C[sink]", "G[sink-ambient]", "G[package-sink]"} <= names


def test_the_sink_is_a_second_way_out_for_the_dies_heat() -> None:
    """A watt on the die settles lower with the sink than on the bare board, and the sink is
    the warmer of the two bodies (it sits on the package, the board hangs behind a weaker link)."""
    bare = load_board("rpi4")
    housed = with_enclosure(bare, HOUSING)
    _, g_bare = network(bare.thermal)
    _, g_housed = network(housed.thermal)
    die_bare = np.linalg.solve(g_bare, np.eye(len(g_bare))[0])[0]
    rise = np.linalg.solve(g_housed, np.eye(len(g_housed))[0])
    names = housed.thermal.node_names()
    assert rise[0] < die_bare
    assert rise[names.index("sink")] > rise[names.index("board")]
