"""Where a board settles: the steady state of its profile's RC network at given clocks and load.

Shared by the hardware world's trip-hold check (``thermogov.hw.holdcheck``: can the trip be held
at the lowest caps?) and the simulator's scenario families (at which ambient does a board reach
its trip at full clocks?), so both worlds answer from one model.  The network and power model
are the ones the simulator integrates (``G x = P`` with idle + C·V²·f per busy core + leakage
rising with temperature, plus battery Joule heat), solved by fixed-point iteration on the
leakage.  Pure Python on purpose (a handful of nodes): ``thermogov run`` must not import numpy's
linear algebra at start-up.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from thermogov import costmodel
from thermogov.board import BoardProfile
from thermogov.fusion import SensorSpec
from thermogov.interfaces import ConfigError

RUNAWAY_C = 300.0  # a fixed point beyond this is thermal runaway, not a temperature


def _solve(g: list[list[float]], p: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting for the small conductance system."""
    n = len(p)
    a = [[*row, rhs] for row, rhs in zip(g, p, strict=True)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[piv] = a[piv], a[c]
        if a[c][c] == 0.0:
            raise ConfigError("board thermal network has a node with no path to ambient; fix the profile")
        for r in range(c + 1, n):
            f = a[r][c] / a[c][c]
            for k in range(c, n + 1):
                a[r][k] -= f * a[c][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][k] * x[k] for k in range(r + 1, n))) / a[r][r]
    return x


def _conductance(board: BoardProfile) -> list[list[float]]:
    """The network's conductance matrix (W/K), nodes in ``thermal.node_names()`` order."""
    th = board.thermal
    idx = {n: i for i, n in enumerate(th.node_names())}
    g = [[0.0] * len(idx) for _ in idx]
    for node in th.nodes:
        g[idx[node.name]][idx[node.name]] += node.to_ambient_w_per_k
    for link in th.links:
        i, j = idx[link.a], idx[link.b]
        g[i][i] += link.conductance_w_per_k
        g[j][j] += link.conductance_w_per_k
        g[i][j] -= link.conductance_w_per_k
        g[j][i] -= link.conductance_w_per_k
    return g


def node_rise_c(board: BoardProfile, power_w: Mapping[str, float]) -> dict[str, float]:
    """Each node's settled rise over ambient for ``power_w`` (node -> W) alone: the network is linear."""
    names = board.thermal.node_names()
    rise = _solve(_conductance(board), [power_w.get(n, 0.0) for n in names])
    return dict(zip(names, rise, strict=True))


def steady_state_c(
    board: BoardProfile, clocks_hz: Mapping[str, int], utilisation: float, ambient_c: float
) -> dict[str, float]:
    """Node temperatures where the board settles at ``clocks_hz`` with the pipeline busy ``utilisation``."""
    th = board.thermal
    names = th.node_names()
    idx = {n: i for i, n in enumerate(names)}
    g = _conductance(board)
    # A domain this board lacks (a Jetson without its GPU devfreq) leaves the pipeline: the
    # stages that remain set the pace, and the missing one heats nothing thermogov can see.
    model = replace(board.model, cycles={d: c for d, c in board.model.cycles.items() if d in clocks_hz})
    model_clocks = {d: clocks_hz[d] for d in model.cycles}
    cores = costmodel.busy_cores(model, model_clocks, utilisation) if model_clocks else {}
    temps = dict.fromkeys(names, ambient_c)
    for _ in range(100):
        p = [0.0] * len(names)
        if th.rest_of_board_node:
            p[idx[th.rest_of_board_node]] += th.rest_of_board_w
        total = th.rest_of_board_w
        for d in board.domains:
            if d.name not in clocks_hz:
                continue
            w = costmodel.domain_power_w(d, clocks_hz[d.name], cores.get(d.name, 0.0), temps[d.node])
            p[idx[d.node]] += w
            total += w
        bat = board.battery
        if bat is not None:
            drawn = total / bat.converter_efficiency
            p[idx[bat.node]] += (drawn / bat.voltage_v) ** 2 * bat.r0_ohm
            if th.rest_of_board_node:
                p[idx[th.rest_of_board_node]] += drawn - total
        new = {n: ambient_c + x for n, x in zip(names, _solve(g, p), strict=True)}
        if max(new.values()) > RUNAWAY_C:
            return dict.fromkeys(names, math.inf)
        if max(abs(new[n] - temps[n]) for n in names) < 1e-6:
            return new
        temps = new
    return temps


def fused_c(board: BoardProfile, specs: Sequence[SensorSpec], node_c: Mapping[str, float]) -> float:
    """The fusion's weighted mean of each sensor's node at steady state (lag and noise settle out)."""
    total = sum(s.weight for s in specs)
    return sum(s.weight * node_c[board.sensor(s.name).node] for s in specs) / total


__all__ = ["RUNAWAY_C", "fused_c", "node_rise_c", "steady_state_c"]
