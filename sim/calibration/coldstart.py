"""The start's bound reaches a board at room temperature: a report begun minutes after a cold boot.

The fitted ``initial_offset`` (the start's distance from the idle steady state along the
slowest mode, :mod:`model`) has a prior sd of 5 °C and a hard bound of ±20 °C, a numerical
guard.  A board powered on from cold a few minutes before its log starts near the room's
temperature: its sensor is then below its idle steady state by the whole idle rise, which for
a Pi 4 in a still housing is more than 20 K (sbc-bench 3N94, up 4 minutes: 36.0 °C at its
first reading, the fit's start held on the −20 °C bound, and the offset's shortfall moved into
the gains).  The bound is a guard, not a prior, so it must not cut off a physical start: where
the idle rise the model admits (every parameter at its prior but ``static_scale`` at its upper
bound, the most idle power the fit may give the board) exceeds the guard, the guard is widened
to it.  The prior stays 5 °C, so a start that far from idle still costs its prior's misfit.

Only a fit that forecasts a held-out part gets it, after the housing is chosen:

* a whole-log fit (the fleet's, :mod:`fleet`) keeps the guard: its start's freedom takes from
  the gains it pools (the same reason :func:`fit.starts_a_section` gives for a second offset);
* the housing pre-fit keeps the guard: a wider start trades against each housing's level, and a
  cold start would let a housing without a cooler fit a board that has one.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from thermogov.sim.calibration.model import OFFSET_BOUND_C, ParamSpec

if TYPE_CHECKING:
    from thermogov.sim.calibration.fit import FitProblem


def admitted_idle_rise(prob: FitProblem) -> float:
    """The largest idle rise at the first sensor the fit admits (K): the start at room temperature."""
    phi = np.zeros(len(prob.specs))
    for i, s in enumerate(prob.specs):
        if s.kind == "static_scale":
            phi[i] = s.bound
    run = prob._run(phi, free=False, record=True)
    if not run.passes:
        return 0.0
    node = prob.board.thermal.node_names().index(prob.sensors[next(iter(prob.sensors))])
    return float(run.passes[-1].xss[node])


def start_reaches_room(prob: FitProblem) -> list[ParamSpec]:
    """``prob.specs`` with the offsets' guard widened to the admitted idle rise (held-out fits only)."""
    if prob.train.all():
        return prob.specs
    rise = admitted_idle_rise(prob)
    out = []
    for s in prob.specs:
        if s.kind == "offset" and np.isfinite(rise) and rise > s.bound * s.sigma:
            s = dataclasses.replace(s, bound=rise / s.sigma)
        out.append(s)
    return out


def offset_as_in_final_fit(inner: list[ParamSpec], final: list[ParamSpec]) -> list[ParamSpec]:
    """The inner validation's ``initial_offset`` with the final fit's guard, held where the final fit
    holds it (:mod:`bootcool`): it validates that fit."""
    final_of = {s.name: s for s in final if s.kind == "offset"}
    return [
        dataclasses.replace(s, bound=final_of[s.name].bound, fixed=final_of[s.name].fixed)
        if s.name in final_of
        else s
        for s in inner
    ]


def widened_note(specs: list[ParamSpec]) -> str | None:
    """The note a fit with a widened guard carries (None when the guard is the default)."""
    wide = [s for s in specs if s.kind == "offset" and s.bound * s.sigma > OFFSET_BOUND_C + 1e-9]
    if not wide:
        return None
    return (
        f"initial_offset bounded at ±{wide[0].bound * wide[0].sigma:.1f} °C instead of ±{OFFSET_BOUND_C:g}: "
        "the idle rise the fit admits, so the start may be a board at room temperature "
        "(sim/calibration/coldstart.py)"
    )
