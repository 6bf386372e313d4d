"""A fit pinned at its physical bounds does not get to forecast a trend.

Issue 10 asks for physically bounded parameters: time constants and conductances within the
board class's range, the ambient near the logged or assumed one.  The fit enforces that with
hard bounds (``model.THERMAL_BOUND``: ×/÷10 on each capacitance and conductance,
``model.AMBIENT_BOUND_C`` on the ambient).  When the optimum sits on one of them, the readings
asked for a board outside its class. The network inside the bounds cannot explain them, and the
fit has bent whatever was left free (the initial offset, the other paths) to get close.  Such a
fit can still match the training part, but its dynamics beyond it are those of the bent
network, not the board's: on the Jetson Nano trtexec log both paths to air sit at ×10 and the
ambient at its bound, the slow time constant falls from ~670 s to 65 s, and the decay of a
+5.9 °C initial offset makes the forecast fall 0.6 K over a tail that rises 1.5 K.

So where a network or ambient parameter ends within :data:`AT_BOUND_SHARE_OF_SIGMA` of its
bound, the forecast keeps only the filtered level at the split (level share 0,
:func:`~thermogov.sim.calibration.shrink.toward_level`): what the readings say at the split,
with no trend from a model the data pushed out of its class.  The rule reads nothing after the
split.  Power scales and the initial offsets are not checked: a power scale at its bound is a
load the log misreads (the model's structure is intact), and the offsets have wide bounds
meant to absorb a start.  Measured in docs/calibration.md, *Thirteenth session (issue 10):
skill on the flat logs*.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from thermogov.sim.calibration.model import ParamSpec

CHECKED_KINDS = (
    "capacitance",
    "cap_scale",
    "link",
    "ambient_link",
    "ambient",
)  # the board's physics, not its load
AT_BOUND_SHARE_OF_SIGMA = 0.01  # within this many prior sigmas of the bound counts as on it
AT_BOUND_SHARE = 0.0  # the level share a pinned fit's forecast keeps


def pinned(specs: Sequence[ParamSpec], free: np.ndarray, phi_free: np.ndarray) -> list[str]:
    """The names of the free network and ambient parameters the fit left on their bounds.

    ``free`` indexes ``specs`` as ``FitProblem.free`` does and ``phi_free`` holds their fitted
    values in units of each prior's sigma (``FitProblem``'s parameterisation)."""
    out = []
    for i, phi in zip(np.asarray(free).ravel(), np.asarray(phi_free, dtype=float).ravel(), strict=True):
        spec = specs[int(i)]
        if spec.kind in CHECKED_KINDS and abs(phi) >= spec.bound - AT_BOUND_SHARE_OF_SIGMA:
            out.append(spec.name)
    return out


def bound_share(names: Sequence[str], share: float, note: str) -> tuple[float, str]:
    """The level share and its note: :data:`AT_BOUND_SHARE` when ``names`` is not empty (and
    lower than ``share``), else ``share`` and ``note`` unchanged."""
    if not names or share <= AT_BOUND_SHARE:
        return share, note
    return AT_BOUND_SHARE, (
        f"forecast level share {AT_BOUND_SHARE:g}: the fit left {', '.join(names)} on the bound of the board "
        "class, so the network cannot explain the readings and its trend after the split is not trusted; "
        "the forecast holds the filtered level at the split (sim/calibration/atbound.py)"
    )
