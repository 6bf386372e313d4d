"""One scale on the capacitance of the main path to ambient, for a sparse fit at one steady load.

A sparse training part (an sbc-bench report: a reading every 10-40 s) holds the network's shape
at the profile's values (``fit.reduced_for_sparse_logs``): capacitances and internal links
fixed, only the gains fitted.  When that part also holds no load step (a board cooling or
warming at one benchmark's steady load), the readings show a rate, the network's slow time
constant, and no step to show the gain.  With every capacitance held the fit reads all of a
rate the profile did not expect as a path to ambient: on an AGX Xavier report
``G[heatsink-ambient]`` went to 2.7 x its prior and the later all-core phases were forecast
2-4 K too cool (docs/calibration.md, Session 28f).

Freeing each of those capacitances (Session 28f's V3) gives a few readings one parameter per
node to misuse.  Here ONE factor scales the capacitance of the node on the main path to ambient
(the free path with the profile's largest conductance; every such node on a tie), under the same
prior width and hard range as any capacitance (``THERMAL_PRIOR``, ``THERMAL_BOUND``: a profile's
figures are good to a factor of a few), with the slow time constant inside the board class's
range (``TAU_SLOW_RANGE_S``, the fit's soft wall).  The rate is then shared between that
capacitance and its path instead of going to the path alone.  Measured (Session 29f): the same
factor over every node with a fitted path (the board node too, which holds the slowest mode on
the AGX Xavier) or over every capacitance makes the forecast worse, not better.

Not applied where the training part holds a load step (then the gains are seen and a freer
fit only adds freedom the few readings misuse), nor to a node whose path to ambient is held
(``fanoff.py``: its rate would be read as capacitance alone), nor to a dense fit (every
capacitance the log can see is already free), nor when the training part holds fewer readings
than the fit would then have free parameters (a least-squares problem needs at least as many
observations as unknowns; below that the priors alone would place the scale).
"""

from __future__ import annotations

import math

import numpy as np

from thermogov.sim.calibration.inputs import Inputs
from thermogov.sim.calibration.model import THERMAL_BOUND, THERMAL_PRIOR, ParamSpec

KIND = "cap_scale"
STEP_SHARE = (
    0.25  # a load step: a domain's dynamic-power proxy spans this share of its whole-log span in training
)


def steps_in_training(inputs: Inputs, train: np.ndarray) -> bool:
    """Whether the training part holds a load step: some domain's ``load x V^2 x f`` spans
    :data:`STEP_SHARE` of its whole-log span within the training rows."""
    for d in inputs.load:
        x = inputs.load[d] * inputs.volt_v[d] ** 2 * inputs.freq_hz[d]
        whole, seen = x[np.isfinite(x)], x[train & np.isfinite(x)]
        if len(seen) and np.ptp(whole) > 0 and np.ptp(seen) >= STEP_SHARE * np.ptp(whole):
            return True
    return False


def shared_capacitance_scale(
    specs: list[ParamSpec],
    *,
    sparse: bool,
    stepped: bool,
    readings: int,
    hidden: set[str] | frozenset[str] = frozenset(),
) -> list[ParamSpec]:
    """``specs`` plus one free ``C_scale[...]`` over the held capacitance(s) on the main free path to
    ambient (:func:`main_paths`), on a ``sparse`` fit whose training part is not ``stepped`` and
    holds at least as many ``readings`` as free parameters with the scale; else unchanged.

    ``hidden`` names nodes the log cannot see (``model.unobservable_nodes``): never scaled.
    Any earlier shared scale is dropped first, so the rule can be applied again after a rule
    that holds a path."""
    specs = [s for s in specs if s.kind != KIND]
    if not sparse or stepped:
        return specs
    to_air = main_paths(specs)
    nodes = tuple(
        s.key[0]
        for s in specs
        if s.kind == "capacitance" and s.fixed and s.key[0] in to_air and s.key[0] not in hidden
    )
    if not nodes or sum(not s.fixed for s in specs) + 1 > readings:
        return specs  # no node to scale, or fewer training readings than free parameters with the scale
    bound = math.log(THERMAL_BOUND) / THERMAL_PRIOR
    return [*specs, ParamSpec(f"C_scale[{','.join(nodes)}]", KIND, nodes, 1.0, THERMAL_PRIOR, "x", bound)]


def main_paths(specs: list[ParamSpec]) -> set[str]:
    """The nodes whose free path to ambient has the profile's largest conductance (all of them on a tie)."""
    paths = [s for s in specs if s.kind == "ambient_link" and not s.fixed]
    if not paths:
        return set()
    top = max(s.prior for s in paths)
    return {s.key[0] for s in paths if s.prior >= top * (1.0 - 1e-9)}


def scale_as_in_final_fit(inner: list[ParamSpec], final: list[ParamSpec]) -> list[ParamSpec]:
    """The inner validation's specs with the final fit's shared scale (or none): it validates that fit."""
    return [*(s for s in inner if s.kind != KIND), *(s for s in final if s.kind == KIND)]
