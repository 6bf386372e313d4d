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

from thermogov.board import ModelProfile
from thermogov.modes import ModeCost


def scaled_model(model: ModelProfile, mode: ModeCost) -> ModelProfile:
    """The reference model as this mode runs it."""
    return dataclasses.replace(
        model,
        name=f"{model.name}/{mode.name}",
        fixed_s=model.fixed_s * mode.memory,
        cycles={d: c * mode.compute for d, c in model.cycles.items()},
    )
