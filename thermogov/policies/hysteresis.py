"""The specified policy: two-state hysteresis between a high and a low cap.

In HIGH, fused >= trip (85 °C) switches to LOW; in LOW, fused <= release (70 °C) switches back
to HIGH; between the two thresholds the state holds.  Both comparisons are inclusive, so
exactly 85.0 trips and exactly 70.0 releases.  It starts in HIGH (a cold board runs at full
speed), like bang_bang whose cooling device starts off.
"""

from __future__ import annotations

from thermogov.interfaces import ConfigError
from thermogov.policies.base import Decision, PolicyContext, PolicyInput, cap_from_setting
from thermogov.tomlcheck import Table

HIGH = "HIGH"
LOW = "LOW"


def read_band(params: Table) -> tuple[float, float]:
    """trip_c / release_c with the spec's defaults, validated release < trip."""
    trip = params.number("trip_c", 85.0, minimum=-40.0, maximum=150.0)
    release = params.number("release_c", 70.0, minimum=-40.0, maximum=150.0)
    if release >= trip:
        raise ConfigError(
            f"{params.where}.release_c: {release:g} must be below trip_c {trip:g}; lower release_c"
        )
    return trip, release


def read_caps(params: Table, key: str, ctx: PolicyContext, default: str) -> dict[str, int]:
    """Per-domain caps ``{cpu = "max", gpu = 612}``; omitted domains take ``default``."""
    given = params.table(key, {})
    caps = {}
    for dom, table in ctx.tables_hz.items():
        caps[dom] = cap_from_setting(given.raw(dom, default), table, f"{given.where}.{dom}")
    given.done()
    return caps


class Hysteresis:
    name = "hysteresis"

    def __init__(
        self, trip_c: float, release_c: float, high_caps: dict[str, int], low_caps: dict[str, int]
    ) -> None:
        self.trip_c = trip_c
        self.release_c = release_c
        self.high_caps = high_caps
        self.low_caps = low_caps
        self.state = HIGH

    def decide(self, inp: PolicyInput) -> Decision:
        event = ""
        if self.state == HIGH and inp.fused_c >= self.trip_c:
            self.state, event = LOW, "trip"
        elif self.state == LOW and inp.fused_c <= self.release_c:
            self.state, event = HIGH, "release"
        caps = self.high_caps if self.state == HIGH else self.low_caps
        return Decision(caps, self.state, event)


def make_hysteresis(params: Table, ctx: PolicyContext, argument: str) -> Hysteresis:
    if argument:
        raise ConfigError(f"policy: 'hysteresis' takes no argument (got 'hysteresis:{argument}')")
    trip, release = read_band(params)
    high = read_caps(params, "high_caps", ctx, "max")
    low = read_caps(params, "low_caps", ctx, "min")
    params.done()
    return Hysteresis(trip, release, high, low)
