"""A fleet log's network parameter left on its hard bound is not evidence about the board class.

The fleet (:mod:`~thermogov.sim.calibration.fleet`) pools, from each other log of a board, the
log-ratios of the parameters *its data determined*.  A capacitance or conductance the fit left on
its hard bound (``model.THERMAL_BOUND``: ×/÷10 of the profile's value) was not determined by the
data: the bound set it, because the network inside the bounds could not explain that log's
readings (:mod:`~thermogov.sim.calibration.atbound`, where the same finding keeps such a fit's
own forecast from trusting the network's trend).  Pooled, such a value moves every other log's
prior a factor of 10^(1/2) in one step (one other log moves a prior half way), toward a board no
log showed.  On the team bench the AGX Orin powergui log's whole-length fit leaves ``C[package]``
at ×10 and ``G[cpu-package]``, ``G[cpu-gpu]`` at ×0.1; under ``--fleet`` those became the other
AGX Orin logs' priors (×3.16, ×0.32, ×0.32), and the 45-s LLM log's held-out RMSE went from 0.19
to 0.60 °C (skill −1.55), the sbc-bench report 4ax9's from 0.26 to 0.88.

So such a parameter is left out of the log's fleet ratios; the log's other, data-determined
parameters still count.  Power scales are not checked, as in ``atbound``: this rule is about the
network.  Measured in docs/calibration.md, *Sixteenth session (issue 10)*.
"""

from __future__ import annotations

import math

from thermogov.sim.calibration.atbound import AT_BOUND_SHARE_OF_SIGMA
from thermogov.sim.calibration.fit import FittedParam
from thermogov.sim.calibration.model import THERMAL_BOUND, THERMAL_PRIOR

NETWORK_PREFIXES = ("C[", "G[")  # capacitances and conductances (links and paths to ambient)
# within this much of log(THERMAL_BOUND) counts as on the bound: atbound's 0.01 prior sigma
AT_BOUND_LOG = math.log(THERMAL_BOUND) - AT_BOUND_SHARE_OF_SIGMA * THERMAL_PRIOR


def on_network_bound(p: FittedParam) -> bool:
    """Whether ``p`` is a capacitance or conductance the fit left on its hard bound around the prior."""
    measured = p.prior > 0 and p.value > 0 and math.isfinite(p.value)
    if not measured or not p.name.startswith(NETWORK_PREFIXES):
        return False
    return abs(math.log(p.value / p.prior)) >= AT_BOUND_LOG
