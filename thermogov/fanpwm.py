"""A PWM fan driven by a userspace daemon: any duty 0..255, ramped, as ``nvfancontrol`` runs it.

A fan with fixed levels (the Pi 5's ``cooling_fan`` states, a gpio-fan) can only be at one of
them, so its board curve is a step curve (:class:`thermogov.fan.FanCurve`).  A 4-wire PWM fan
is different: the Jetson's ``nvfancontrol`` reads its thermal group every ``POLLING_INTERVAL``,
interpolates the duty between the rows of its ``FAN_PROFILE`` (``TEMP HYST PWM RPM``; the
daemon "interpolates between them"), and writes that duty; a row's ``HYST`` is how many degrees
the temperature must fall before the duty steps down, and the ``FAN_GOVERNOR``'s ``STEP_SIZE``
bounds how far the duty moves at one poll (NVIDIA Jetson Linux Developer Guide r34.1, *Fan
Profile Control* and the example ``nvfancontrol.conf``; NVIDIA's ``jetson-customize-fan`` skill,
github.com/nvidia/skills, for the file format's rules).  That the step is a per-poll bound on
the pwm change is how this module reads ``STEP_SIZE`` (estimated: NVIDIA does not spell out its
unit).  Between the table's levels the fan's airflow is then in between too: its conductance
and power are interpolated in duty (:func:`interp_in_duty`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass


def interp_points(points_c: tuple[float, ...], pwm: tuple[float, ...], temp_c: float) -> float:
    """The piecewise-linear duty at ``temp_c``: the first duty below the first point, the last above."""
    if temp_c <= points_c[0]:
        return float(pwm[0])
    for (t0, p0), (t1, p1) in itertools.pairwise(zip(points_c, pwm, strict=True)):
        if temp_c <= t1:
            return p0 + (p1 - p0) * (temp_c - t0) / (t1 - t0)
    return float(pwm[-1])


def interp_in_duty(duty: tuple[int, ...], values: tuple[float, ...], pwm: float) -> float:
    """A per-level value (conductance, power) at any duty, linear between the levels around it.

    At a level's own duty the table's value exactly, so a fan driven only at its levels (the
    governor's) sees the same numbers as a level fan.
    """
    if pwm <= duty[0]:
        return values[0]
    for (d0, v0), (d1, v1) in itertools.pairwise(zip(duty, values, strict=True)):
        if pwm == d1:
            return v1
        if pwm < d1:
            return v0 + (v1 - v0) * (pwm - d0) / (d1 - d0)
    return values[-1]


@dataclass(frozen=True, slots=True)
class PwmCurve:
    """The daemon's law: the interpolated duty, hysteresis on the way down, a bounded step per poll."""

    points_c: tuple[float, ...]
    points_pwm: tuple[float, ...]
    hyst_c: float  # the duty falls only once the temperature is this far below where it was asked
    step_pwm: int  # the most the duty moves at one poll (0: no bound, the target at once)

    def target(self, temp_c: float, current: int) -> int:
        """The duty written at this poll, given the duty in force."""
        up = interp_points(self.points_c, self.points_pwm, temp_c)
        down = interp_points(self.points_c, self.points_pwm, temp_c + self.hyst_c)
        if up > current:
            want = up
        elif down < current:
            want = down
        else:
            return current
        if self.step_pwm > 0:
            want = min(max(want, current - self.step_pwm), current + self.step_pwm)
        return max(0, min(255, round(want)))
