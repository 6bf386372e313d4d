"""What a training part leaves undecided: the fit's cost with one parameter pinned (a profile likelihood).

The Laplace standard deviations of :func:`~thermogov.sim.calibration.fit.calibrate` describe the
cost's curvature at the optimum only.  A short training part can leave a long, nearly flat
valley (a *ridge*) through parameter space along which the training readings are matched
equally well while the forecast of the held-out part moves by degrees: a stressberry log's
first 40 % (150 s idle, 90 s of load) shows the idle level and the start of the rise, which fix
the ratio of idle power to the path to air and the early slope, but not the slow gain the rest
of the load reaches (docs/calibration.md, ninth session).  The profile walks that valley: pin
one parameter at a value, refit every other free parameter from the optimum, and report how
much the cost rose (data and priors, the pinned parameter's own prior included) and what the
forecast became.  A rise below 0.5 (one standard deviation in the cost's units,
``0.5 * sum(residuals**2)``) means the training part cannot tell the two values apart.

This is a diagnostic (``bench/ridge.py``); the fit itself never calls it.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import OptimizeResult

from thermogov.interfaces import ConfigError
from thermogov.sim.calibration.fit import FitProblem, _best


@dataclass(frozen=True)
class Pinned:
    """One point of the profile: the pinned value, the cost it costs, the forecast it makes."""

    value: float
    cost_rise: float  # cost(pinned, others refitted) - cost(optimum); 0.5 is one standard deviation
    forecast_c: np.ndarray  # the first sensor, every sample (the held-out part restarted at the split)
    values: dict[str, float]  # every parameter at this point


def pinned(prob: FitProblem, res: OptimizeResult, name: str, value: float) -> Pinned:
    """The fit with ``name`` held at ``value`` and every other free parameter refitted from ``res``.

    ``prob`` and ``res`` are a fitted problem and its optimum (``res.x`` over ``prob.free``).
    The pinned parameter becomes a fixed spec centred on ``value`` (so the model runs with it),
    and the prior it had is added back to the cost by hand, so the rise compares like with like."""
    names = [s.name for s in prob.specs]
    if name not in names:
        raise ConfigError(f"parameter {name!r} is not in this fit; its parameters: {', '.join(names)}")
    i = names.index(name)
    spec = prob.specs[i]
    if spec.fixed:
        raise ConfigError(f"parameter {name!r} is held at the profile's value in this fit; pin a free one")
    if not (math.isfinite(value) and (value > 0 or not spec.log)):
        raise ConfigError(
            f"value {value!r} for {name}: must be a finite number{' above 0' if spec.log else ''}"
        )
    phi_value = (math.log(value / spec.prior) if spec.log else value - spec.prior) / spec.sigma
    specs = list(prob.specs)
    specs[i] = dataclasses.replace(spec, prior=value, fixed=True)
    held = dataclasses.replace(prob, specs=specs)
    free = list(prob.free)
    x0 = np.array([res.x[free.index(j)] for j in held.free])
    got = _best(held, [x0], lambda _msg: None, "profile")
    phi = held.expand(got.x)
    forecast = held.forecast_parts(phi, drift=False).full[0]
    values = {s.name: s.value(p) for s, p in zip(held.specs, phi, strict=True)}
    return Pinned(value, float(got.cost + 0.5 * phi_value**2 - res.cost), forecast, values)


def profile(prob: FitProblem, res: OptimizeResult, name: str, factors: Sequence[float]) -> list[Pinned]:
    """:func:`pinned` at each factor times the optimum's value of ``name``."""
    names = [s.name for s in prob.specs]
    optimum = (
        prob.specs[names.index(name)].value(float(prob.expand(res.x)[names.index(name)]))
        if name in names
        else 1.0
    )
    return [pinned(prob, res, name, optimum * f) for f in factors]
