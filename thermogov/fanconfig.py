"""Who drives the fan (``[run] fan``) and how the governor drives it when it does (``[fan]``).

``fan = "board"`` (the default) leaves the fan to whatever drives it now: the kernel's thermal
governor (Raspberry Pi 5), ``nvfancontrol`` (Jetson), the board's default curve in the
simulator.  ``fan = "governor"`` is the opt-in: the governor takes the fan, journals its
original mode first and puts it back on every exit (:mod:`thermogov.fan` has the rules).

The governor's own curve spreads the fan's levels from ``start_c`` to ``full_c``; both default
to a distance below the run's trip (``trip - 20`` and ``trip - 5`` °C), so the fan is at its top
before the policy has to cut a clock.  The distances are round numbers chosen to leave one
fan step per 5 °C on a four-step fan, not values tuned to a board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from thermogov.fan import FanCurve, spread_curve
from thermogov.interfaces import ConfigError
from thermogov.tomlcheck import Table

FAN_OWNERS = ("board", "governor")
START_BELOW_TRIP_C = 20.0
FULL_BELOW_TRIP_C = 5.0
MAX_DWELL_S = 3600.0


@dataclass(frozen=True, slots=True)
class FanConfig:
    owner: str = "board"
    start_c: float | None = None  # level 1 comes on here; None: trip - 20
    full_c: float | None = None  # the top level comes on here; None: trip - 5
    hysteresis_c: float = 4.0
    dwell_s: float = 15.0

    @property
    def governed(self) -> bool:
        return self.owner == "governor"

    def curve(self, levels: int, trip_c: float) -> FanCurve:
        start = self.start_c if self.start_c is not None else trip_c - START_BELOW_TRIP_C
        full = self.full_c if self.full_c is not None else trip_c - FULL_BELOW_TRIP_C
        if full < start:
            raise ConfigError(f"fan.full_c: {full:g} °C is below fan.start_c {start:g} °C; raise full_c")
        return spread_curve(levels, start, full, self.hysteresis_c)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"hysteresis_c": self.hysteresis_c, "dwell_s": self.dwell_s}
        if self.start_c is not None:
            d["start_c"] = self.start_c
        if self.full_c is not None:
            d["full_c"] = self.full_c
        return d


def _optional_c(t: Table, key: str) -> float | None:
    """A temperature that may be left out (then derived from the trip); known to the key check either way."""
    if t.raw(key, None) is None:
        return None
    return t.number(key, minimum=-40.0, maximum=150.0)


def parse_fan(owner: str, t: Table) -> FanConfig:
    """``owner`` is ``[run] fan`` (already read); ``t`` the ``[fan]`` table."""
    if owner not in FAN_OWNERS:
        raise ConfigError(
            f'run.fan: {owner!r} is not one of {", ".join(FAN_OWNERS)}; use "board" or "governor"'
        )
    d = FanConfig()
    f = FanConfig(
        owner=owner,
        start_c=_optional_c(t, "start_c"),
        full_c=_optional_c(t, "full_c"),
        hysteresis_c=t.number("hysteresis_c", d.hysteresis_c, minimum=0.0, maximum=50.0),
        dwell_s=t.number("dwell_s", d.dwell_s, minimum=0.0, maximum=MAX_DWELL_S),
    )
    t.done()
    if f.start_c is not None and f.full_c is not None and f.full_c < f.start_c:
        raise ConfigError(f"fan.full_c: {f.full_c:g} °C is below fan.start_c {f.start_c:g} °C; raise full_c")
    return f
