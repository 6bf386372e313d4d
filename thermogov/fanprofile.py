"""A board's fan as profile data (the optional ``[fan]`` table of a board profile).

What the simulator needs to model a fan as a variable conductance (the fan's airflow raises
one node's conductance to ambient, per level, and costs its own power), and the board's
default curve, the baseline a governor-owned fan is judged against (the kernel's step curve on
a Pi 5, ``nvfancontrol``'s profile on a Jetson).  Every list has one entry per level, level 0
first; the default curve has one step temperature per level above 0.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from thermogov.fan import FanCurve
from thermogov.interfaces import ConfigError
from thermogov.tomlcheck import Table

MAX_FAN_LEVELS = 32
MAX_FAN_W = 100.0
MAX_FAN_G_W_PER_K = 100.0


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

    @property
    def levels(self) -> int:
        return len(self.duty)


def parse_fan_profile(t: Table, nodes: set[str]) -> FanProfile:
    node = t.string("node")
    curve_node = t.string("curve_node", node)
    for key, n in (("node", node), ("curve_node", curve_node)):
        if n not in nodes:
            raise ConfigError(f"{t.where}.{key}: {n!r} is not a thermal node ({', '.join(sorted(nodes))})")
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
    on = tuple(t.numbers("default_on_c"))
    for key, vals, want, hi in (
        ("conductance_w_per_k", g, n, MAX_FAN_G_W_PER_K),
        ("power_w", p, n, MAX_FAN_W),
        ("default_on_c", on, n - 1, 150.0),
    ):
        if len(vals) != want:
            raise ConfigError(
                f"{t.where}.{key}: needs {want} values (one per level{' above 0' if want < n else ''})"
            )
        if any(not 0.0 <= v <= hi for v in vals) and key != "default_on_c":
            raise ConfigError(f"{t.where}.{key}: values must lie in 0..{hi:g}")
    if any(not -40.0 <= v <= 150.0 for v in on):
        raise ConfigError(f"{t.where}.default_on_c: step temperatures must lie in -40..150 °C")
    hyst = t.number("default_hyst_c", 0.0, minimum=0.0, maximum=50.0)
    period = t.integer("default_period_ms", 1000, minimum=1, maximum=60_000)
    source = t.string("source", "")
    t.done()
    try:
        curve = FanCurve(on, hyst)
    except ConfigError as e:
        raise ConfigError(f"{t.where}.default_on_c: {e}") from e
    return FanProfile(node, curve_node, duty, g, p, curve, period, source)


def fan_profile_to_dict(f: FanProfile) -> dict[str, Any]:
    """The ``[fan]`` table of a profile, the inverse of :func:`parse_fan_profile`."""
    return {
        "node": f.node,
        "curve_node": f.curve_node,
        "duty": list(f.duty),
        "conductance_w_per_k": list(f.conductance_w_per_k),
        "power_w": list(f.power_w),
        "default_on_c": list(f.default_curve.on_c),
        "default_hyst_c": f.default_curve.hyst_c,
        "default_period_ms": f.default_period_ms,
        "source": f.source,
    }
