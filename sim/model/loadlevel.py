"""How the simulated workload obeys the governor's load: inference mode and duty cycle.

A mode (:class:`thermogov.modes.ModeCost`) scales the board profile's reference inference:
its compute cycles by ``compute`` (the clock-scaled part of :mod:`thermogov.costmodel`) and
its memory-bound fixed time by ``memory``; the per-batch overhead (launch, copy-in) is left as
it is.  The duty cycle is modelled as a fluid rate limit: at duty ``d`` every batch takes
``1/d`` of its service time with the pipeline computing only ``d`` of it, so completions and
dynamic power both scale by ``d`` at the clocks in force (the 100 ms control tick is far
shorter than the plant's thermal time constants, so a real on/off duty cycle of that period
heats the same).  Duty 0 is standby: nothing is served, arrivals beyond the queue are dropped.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from thermogov import costmodel
from thermogov.board import BoardProfile, ModelProfile
from thermogov.modes import ModeCost
from thermogov.sim.model.plant import ThermalPlant


def scaled_model(model: ModelProfile, mode: ModeCost) -> ModelProfile:
    """The reference model as this mode runs it."""
    return dataclasses.replace(
        model,
        name=f"{model.name}/{mode.name}",
        fixed_s=model.fixed_s * mode.memory,
        cycles={d: c * mode.compute for d, c in model.cycles.items()},
    )


def steady_hottest_c(board: BoardProfile, ambient_c: float, mode: ModeCost, duty: float) -> float:
    """Where the hottest sensed node settles at the lowest caps, this mode and this duty cycle.

    Leakage rises with temperature, so the fixed point is iterated (a board that has no fixed
    point under the trip at this load runs away, and the value returned is far above it).
    """
    plant = ThermalPlant.from_profile(board.thermal, ambient_c)
    idx = plant.index
    model = scaled_model(board.model, mode)
    lowest = {d.name: d.opp_hz[0] for d in board.domains}
    busy = costmodel.busy_cores(model, {d: lowest[d] for d in model.cycles}, duty)
    sensed = [idx[s.node] for s in board.sensors]
    temps = np.full(len(plant.names), ambient_c)
    for _ in range(100):
        power = np.zeros(len(plant.names))
        power[idx[board.thermal.rest_of_board_node]] += board.thermal.rest_of_board_w
        for d in board.domains:
            node = idx[d.node]
            power[node] += costmodel.domain_power_w(d, lowest[d.name], busy.get(d.name, 0.0), temps[node])
        new = plant.steady_state_c(power)
        if np.max(np.abs(new - temps)) < 1e-6:
            temps = new
            break
        temps = new
    return float(max(temps[i] for i in sensed))


def sustainable_duty(board: BoardProfile, ambient_c: float, trip_c: float, mode: ModeCost) -> float:
    """The highest constant duty cycle whose steady state stays under the trip (0 if none).

    The bound a lever below the lowest clock is judged against: no duty-cycle schedule can
    sustain more throughput in this mode once the board has settled.
    """
    if steady_hottest_c(board, ambient_c, mode, 0.0) >= trip_c:
        return 0.0
    lo, hi = 0.0, 1.0
    if steady_hottest_c(board, ambient_c, mode, 1.0) < trip_c:
        return 1.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if steady_hottest_c(board, ambient_c, mode, mid) < trip_c else (lo, mid)
    return lo
