"""A board's fan as profile data (the optional ``[fan]`` table of a board profile).

What the simulator needs to model a fan as a variable conductance (the fan's airflow raises
one node's conductance to ambient, per level, and costs its own power), and the board's
default curve, the baseline a governor-owned fan is judged against (the kernel's step curve on
a Pi 5, ``nvfancontrol``'s profile on a Jetson).  Every list has one entry per level, level 0
first.  The default curve is either a step curve (``default_on_c``: one step temperature per
level above 0, as the kernel's step_wise on a Pi 5) or a piecewise-linear duty against
temperature (``default_points_c`` / ``default_points_pwm``, as ``nvfancontrol`` interpolates
between the rows of its ``FAN_PROFILE``).  A fan here has discrete levels, so a linear curve
becomes the step curve of its nearest level: level ``k`` is on from where the interpolated duty
reaches the midpoint between the duties of levels ``k - 1`` and ``k`` (:func:`curve_from_points`).

What drives the fan is declared, not guessed from the board: ``kind = "levels"`` (the default: a
fan that can only be at one of its levels, as the Pi 5's ``cooling_fan`` states or a gpio-fan)
or ``kind = "pwm"`` (a PWM fan a userspace daemon drives at any duty, as ``nvfancontrol`` on a
Jetson: its board curve is :class:`thermogov.fanpwm.PwmCurve`, the duty continuous and ramped
by ``default_step_pwm`` per poll).  Either way the level step curve is kept: the governor drives
any fan at its levels, and the calibration's fan path reads it.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

from thermogov.fan import FanCurve
from thermogov.fanpwm import PwmCurve
from thermogov.interfaces import ConfigError
from thermogov.tomlcheck import Table

MAX_FAN_LEVELS = 32
MAX_FAN_W = 100.0
MAX_FAN_G_W_PER_K = 100.0
# The step of a level a linear default curve never asks for (its duty is above the curve's top).
UNREACHED_C = 150.0
# The step of a level the curve's first duty already asks for: on at any temperature a profile takes.
ALWAYS_C = -40.0
FAN_KINDS = ("levels", "pwm")


@dataclass(frozen=True, slots=True)
class FanProfile:
    node: str  # the node whose conductance to ambient the airflow raises
    curve_node: str  # the node the board's own curve reads (its thermal zone)
    duty: tuple[int, ...]  # PWM duty 0..255 per level (what a hwmon pwm1 would hold)
    conductance_w_per_k: tuple[float, ...]  # extra conductance to ambient per level
    power_w: tuple[float, ...]  # the fan's own electrical power per level
    default_curve: FanCurve  # the board's own curve (the baseline)
    default_period_ms: int = 1000  # how often the board's own curve is evaluated
    source: str = ""
    # kind "pwm": the board's own curve as the daemon runs it (any duty, ramped); None: levels
    default_pwm: PwmCurve | None = None

    @property
    def levels(self) -> int:
        return len(self.duty)


def _interp_temp_at(points_c: tuple[float, ...], pwm: tuple[float, ...], duty: float) -> float:
    """The lowest temperature at which the piecewise-linear curve reaches ``duty``."""
    if duty <= pwm[0]:
        return ALWAYS_C  # the first duty holds below the first point
    for (t0, p0), (t1, p1) in itertools.pairwise(zip(points_c, pwm, strict=True)):
        if p1 >= duty > p0:
            return t0 + (t1 - t0) * (duty - p0) / (p1 - p0)
    return math.inf


def curve_from_points(
    points_c: tuple[float, ...], pwm: tuple[float, ...], duty: tuple[int, ...], hyst_c: float
) -> FanCurve:
    """The step curve that puts the fan at the level nearest the interpolated duty.

    Points ascend in temperature and the duty never falls with it (a fan curve that slows down
    when hotter is a typo, refused); below the first point the first duty holds, above the last
    the last.  A level the curve never reaches gets a step above any temperature a board sees.
    """
    if len(points_c) != len(pwm) or len(points_c) < 2:
        raise ConfigError("needs two or more points, as many temperatures as duties")
    if any(b <= a for a, b in itertools.pairwise(points_c)):
        raise ConfigError(f"temperatures {list(points_c)} must ascend")
    if any(b < a for a, b in itertools.pairwise(pwm)) or not all(0 <= p <= 255 for p in pwm):
        raise ConfigError(f"duties {list(pwm)} must lie in 0..255 and never fall as the temperature rises")
    steps = []
    for lo, hi in itertools.pairwise(duty):
        on = _interp_temp_at(points_c, pwm, (lo + hi) / 2)
        steps.append(round(min(on, UNREACHED_C), 3))
    return FanCurve(tuple(steps), hyst_c)


def _default_curve(t: Table, duty: tuple[int, ...], hyst: float) -> FanCurve:
    n = len(duty)
    if t.has("default_points_c") or t.has("default_points_pwm"):
        if t.has("default_on_c"):
            raise ConfigError(f"{t.where}: give default_on_c or default_points_c/_pwm, not both")
        pts = tuple(t.numbers("default_points_c"))
        pwm = tuple(t.numbers("default_points_pwm"))
        if any(not -40.0 <= v <= 150.0 for v in pts):
            raise ConfigError(f"{t.where}.default_points_c: temperatures must lie in -40..150 °C")
        try:
            return curve_from_points(pts, pwm, duty, hyst)
        except ConfigError as e:
            raise ConfigError(f"{t.where}.default_points_c/_pwm: {e}") from e
    on = tuple(t.numbers("default_on_c"))
    if len(on) != n - 1:
        raise ConfigError(f"{t.where}.default_on_c: needs {n - 1} values (one per level above 0)")
    if any(not -40.0 <= v <= 150.0 for v in on):
        raise ConfigError(f"{t.where}.default_on_c: step temperatures must lie in -40..150 °C")
    try:
        return FanCurve(on, hyst)
    except ConfigError as e:
        raise ConfigError(f"{t.where}.default_on_c: {e}") from e


def parse_fan_profile(t: Table, nodes: set[str]) -> FanProfile:
    node = t.string("node")
    curve_node = t.string("curve_node", node)
    for key, named in (("node", node), ("curve_node", curve_node)):
        if named not in nodes:
            raise ConfigError(
                f"{t.where}.{key}: {named!r} is not a thermal node ({', '.join(sorted(nodes))})"
            )
    duty_raw = t.numbers("duty")
    if not 2 <= len(duty_raw) <= MAX_FAN_LEVELS:
        raise ConfigError(f"{t.where}.duty: needs 2..{MAX_FAN_LEVELS} levels, got {len(duty_raw)}")
    if any(d != int(d) or not 0 <= d <= 255 for d in duty_raw):
        raise ConfigError(f"{t.where}.duty: each duty is a whole number 0..255 (hwmon pwm1 units)")
    duty = tuple(int(d) for d in duty_raw)
    if any(b <= a for a, b in itertools.pairwise(duty)):
        raise ConfigError(f"{t.where}.duty: levels must be in ascending duty order")
    n = len(duty)
    g = tuple(t.numbers("conductance_w_per_k"))
    p = tuple(t.numbers("power_w"))
    for key, vals, hi in (
        ("conductance_w_per_k", g, MAX_FAN_G_W_PER_K),
        ("power_w", p, MAX_FAN_W),
    ):
        if len(vals) != n:
            raise ConfigError(f"{t.where}.{key}: needs {n} values (one per level)")
        if any(not 0.0 <= v <= hi for v in vals):
            raise ConfigError(f"{t.where}.{key}: values must lie in 0..{hi:g}")
    hyst = t.number("default_hyst_c", 0.0, minimum=0.0, maximum=50.0)
    curve = _default_curve(t, duty, hyst)
    period = t.integer("default_period_ms", 1000, minimum=1, maximum=60_000)
    source = t.string("source", "")
    pwm_curve = _pwm_curve(t, hyst)
    t.done()
    return FanProfile(node, curve_node, duty, g, p, curve, period, source, pwm_curve)


def _pwm_curve(t: Table, hyst: float) -> PwmCurve | None:
    """The daemon's curve of a ``kind = "pwm"`` fan (its duty continuous), None for a level fan."""
    kind = t.string("kind", "levels")
    if kind not in FAN_KINDS:
        raise ConfigError(f"{t.where}.kind: {kind!r} is not a fan kind; use one of {', '.join(FAN_KINDS)}")
    step = t.integer("default_step_pwm", 0, minimum=0, maximum=255)
    if kind == "levels":
        if step:
            raise ConfigError(f'{t.where}.default_step_pwm: only a kind = "pwm" fan ramps its duty; drop it')
        return None
    if not t.has("default_points_c"):
        raise ConfigError(
            f'{t.where}.kind: a "pwm" fan needs its daemon\'s curve as default_points_c/_pwm, not default_on_c'
        )
    pts = tuple(t.numbers("default_points_c"))
    pwm = tuple(t.numbers("default_points_pwm"))
    return PwmCurve(pts, pwm, hyst, step)


def fan_profile_to_dict(f: FanProfile) -> dict[str, Any]:
    """The ``[fan]`` table of a profile, the inverse of :func:`parse_fan_profile`."""
    if f.default_pwm is None:
        curve: dict[str, Any] = {"default_on_c": list(f.default_curve.on_c)}
    else:
        curve = {
            "kind": "pwm",
            "default_points_c": list(f.default_pwm.points_c),
            "default_points_pwm": list(f.default_pwm.points_pwm),
            "default_step_pwm": f.default_pwm.step_pwm,
        }
    return {
        "node": f.node,
        "curve_node": f.curve_node,
        "duty": list(f.duty),
        "conductance_w_per_k": list(f.conductance_w_per_k),
        "power_w": list(f.power_w),
        **curve,
        "default_hyst_c": f.default_curve.hyst_c,
        "default_period_ms": f.default_period_ms,
        "source": f.source,
    }
