"""Weighted fusion of several temperature sensors into one governing temperature.

fused = sum(w_i * T_i) / sum(w_i) over the sensors whose last good reading is fresh.  A sensor
that failed or went stale drops out and the others are renormalised, so losing the battery
thermistor does not pull the fused value 10 % towards zero.  The hard limit is checked per
sensor, because a weighted mean hides one hot die: 0.6*95 + 0.3*60 + 0.1*30 = 78 °C.

Renormalisation stops where it would hand the SoC to a sensor that cannot protect it: a battery
thermistor lags the die by minutes and sits tens of degrees below it, so with every die sensor
(thermal zone or hwmon) lost, the battery alone does not make a fused value.  The temperature
is then unknown and the governor's failsafe applies, as it would with no sensor at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from thermogov.interfaces import Reading


@dataclass(frozen=True, slots=True)
class SensorSpec:
    """How one sensor takes part in fusion (resolved from the board profile and config)."""

    name: str
    weight: float
    period_ms: int
    hard_limit_c: float
    stale_periods: float = 3.0
    kind: str = "thermal_zone"  # thermal_zone | hwmon | battery: only a die sensor can govern alone

    @property
    def on_die(self) -> bool:
        return self.kind != "battery"

    @property
    def stale_after_s(self) -> float:
        return self.stale_periods * self.period_ms / 1000.0


class FusionResult(NamedTuple):
    fused_c: float | None  # None when no sensor is fresh: the temperature is unknown
    used: tuple[str, ...]  # sensors that contributed, in configured order
    hot: tuple[str, ...]  # fresh sensors at or above their own hard limit

    @property
    def used_label(self) -> str:
        return "+".join(self.used)


_new_result = tuple.__new__


class Fusion:
    """Keeps each sensor's last good reading and fuses the fresh ones on demand."""

    def __init__(self, specs: Sequence[SensorSpec]) -> None:
        if not specs:
            raise ValueError("fusion needs at least one sensor")
        self.specs = tuple(specs)
        self._latest: dict[str, Reading | None] = {s.name: None for s in specs}
        self.excluded: set[str] = set()  # sensors judged failed although they read (stuck)
        # What fuse() needs of each spec, resolved once: it runs on every control tick.  A
        # small epsilon absorbs float noise in ms->s conversion: a reading exactly
        # `stale_periods` periods old is still fresh.
        self._plan = tuple((s.name, s.weight, s.stale_after_s + 1e-9, s.hard_limit_c) for s in self.specs)
        # Sensors that may not govern alone, when the board also has die sensors (a board with
        # only a battery sensor is governed by it: there is nothing better to read).
        off_die = frozenset(s.name for s in self.specs if not s.on_die)
        self._off_die = off_die if len(off_die) < len(self.specs) else frozenset()

    def update(self, reading: Reading) -> None:
        self._latest[reading.sensor] = reading

    def latest(self, name: str) -> Reading | None:
        return self._latest[name]

    def latest_values(self, names: Sequence[str]) -> tuple[float | None, ...]:
        """Each named sensor's last good value (``None``: none yet), fresh or not."""
        latest = self._latest
        return tuple([None if (r := latest[n]) is None else r.value_c for n in names])

    def latest_times(self, names: Sequence[str]) -> tuple[float | None, ...]:
        """When each named sensor's last good value was read (``None``: none yet)."""
        latest = self._latest
        return tuple([None if (r := latest[n]) is None else r.t_s for n in names])

    def fuse(self, now_s: float) -> FusionResult:
        num = 0.0
        den = 0.0
        used: list[str] = []
        hot: list[str] = []
        excluded = self.excluded
        latest = self._latest
        for name, weight, stale_s, hard_limit_c in self._plan:
            r = latest[name]
            if r is None or now_s - r.t_s > stale_s or (excluded and name in excluded):
                continue
            num += weight * r.value_c
            den += weight
            used.append(name)
            if r.value_c >= hard_limit_c:
                hot.append(name)
        fused = num / den if den > 0.0 else None
        if self._off_die and fused is not None and self._off_die.issuperset(used):
            fused = None  # only sensors off the die are fresh: the die's temperature is unknown
        # Positional through tuple.__new__: fuse runs on every control tick.
        return _new_result(FusionResult, (fused, tuple(used), tuple(hot) if hot else ()))
