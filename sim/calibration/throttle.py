"""The board's own throttling inside the model, for domains whose clock the log does not show.

Raspberry Pi firmware lowers the ARM clock from 80 °C without telling cpufreq
(https://www.raspberrypi.com/documentation/computers/raspberry-pi.html, frequency management
and thermal control), and old loggers (stressberry 0.1) record no clock at all.  The model then
assumes the top OPP, and a log that reaches 80 °C is fitted with power the board never drew: the
fit bends every conductance to explain a plateau that is the firmware's.  When a domain's clock
*is* logged, the logged clock already carries the throttle and nothing here applies.

The throttle is the profile's ``[[protections]]`` of kind ``throttle`` (start, full, floor),
driven by the *model's* temperature of the protected nodes, so it is a prediction and never reads
the log's temperature.  It is taken as the expected clock: linear in the temperature between
``start_c`` and ``full_c`` (the firmware steps through OPPs several times a second, faster than
any logger samples), without the release hysteresis (a few kelvin the 1-2 s loggers cannot see).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from thermogov.board import BoardProfile, Protection
from thermogov.sim.calibration.inputs import Inputs

DAMPING = 0.5  # each chord pass moves the throttle half way: the loop gain of a throttle exceeds 1
STEP_WIDTH_K = 1.0  # a trip with start == full acts over this band, to keep the fit smooth


def unlogged_throttles(board: BoardProfile, inputs: Inputs) -> tuple[Protection, ...]:
    """The board's throttles that act on at least one domain whose clock the log lacks."""
    return tuple(
        p
        for p in board.protections
        if p.kind == "throttle" and any(d not in inputs.clocked for d in p.domains)
    )


def dyn_factors(
    board: BoardProfile,
    inputs: Inputs,
    node_temp: Mapping[str, np.ndarray],
    throttles: tuple[Protection, ...],
) -> dict[str, np.ndarray]:
    """Per throttled domain, dynamic power at the throttled clock over that at the assumed clock."""
    out: dict[str, np.ndarray] = {}
    for p in throttles:
        hottest = np.max(np.vstack([np.atleast_1d(node_temp[n]) for n in p.nodes]), axis=0)
        width = max(p.full_c - p.start_c, STEP_WIDTH_K)
        level = np.clip((hottest - p.start_c) / width, 0.0, 1.0)
        for name, floor in zip(p.domains, p.floor_hz, strict=True):
            if name in inputs.clocked:
                continue
            d = board.domain(name)
            hz = np.asarray(d.opp_hz, dtype=float)
            volt = np.asarray(d.volt_v)
            top = float(inputs.freq_hz[name][0])  # the assumed (top) clock
            f = top - level * (top - min(float(floor), top))
            v = np.interp(f, hz, volt)
            v_top = float(np.interp(top, hz, volt))
            factor = (v * v * f) / (v_top * v_top * top)
            out[name] = np.minimum(out[name], factor) if name in out else factor
    return out


def damped(old: dict[str, np.ndarray] | None, new: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    if old is None:
        return new
    return {d: old[d] + DAMPING * (new[d] - old[d]) for d in new}
