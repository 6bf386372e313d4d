"""The reference every analytic-Jacobian test checks against: shared by the sensitivity and the
capacitance-scale tests."""

from __future__ import annotations

import numpy as np

from thermogov.sim.calibration.fit import FitProblem


def central_differences(prob: FitProblem, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """The residuals' Jacobian at ``x`` by central differences, one column per free parameter."""
    cols = []
    for j in range(len(x)):
        up, down = x.copy(), x.copy()
        up[j] += eps
        down[j] -= eps
        cols.append((prob.residuals(up) - prob.residuals(down)) / (2 * eps))
    return np.stack(cols, axis=1)
