"""The lever below the lowest clock: step the load down when the lowest caps cannot hold the trip.

Clocks are the governor's first lever; on a board whose lowest OPP still heats past the trip
(a Pi 5 in a closed case at 35 °C: 1500 MHz is the firmware's floor) the only lever left is the
work itself.  This is the seed's third regime, "high-temperature protection: enter low-power
standby", made gradual.  The load levels form a ladder from the full load down to standby:

* level 0: the load as the mode table chooses it, clocks as the policy chooses them;
* then, if ``use_modes``, each cheaper inference mode in turn (less work per frame);
* then the duty-cycle rungs ``duty`` of the inference rate (the fraction of the time the
  pipeline may run), ending with ``0.0``, standby.

While any level above 0 is in force every domain is held at its lowest cap: below the lowest
clock, cycles are cheapest per inference at the lowest voltage, so the load is cut, not the
clock raised.  Level 0 -> 1 happens when the policy's caps are all at their lowest and the
fused temperature reaches ``trip - down_margin_k``; further steps down every ``down_dwell_s``
while it stays there, and every tick while it is at or above the trip itself.  A step up needs the temperature at or below ``trip - up_margin_k`` for
``up_dwell_s``, so the gap between the two thresholds (wider than the temperature jump one rung
causes) and the dwells keep it from flapping, like the hysteresis of a kernel trip point.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any, NamedTuple

from thermogov.interfaces import ConfigError
from thermogov.tomlcheck import Table

# 2 % rungs: one rung moves the steady temperature of a Pi 5 at 1500 MHz by ~0.5 K (its
# steady state spans ~24 K from standby to full duty), about the sensor's quantisation step,
# so the load settles within a rung of the highest duty the trip allows (bench/power.py
# compares coarser ladders).
DEFAULT_DUTY_STEP = 0.02


def duty_ladder(step: float) -> tuple[float, ...]:
    """1 - step, 1 - 2 step, ... down to the last rung above 0, then 0.0 (standby)."""
    n = int(round(1.0 / step, 9))
    rungs = [round(1.0 - step * i, 6) for i in range(1, n + 1)]
    return (*(r for r in rungs if r > 1e-9), 0.0)


DEFAULT_DUTY = duty_ladder(DEFAULT_DUTY_STEP)


@dataclass(frozen=True, slots=True)
class LeverConfig:
    enabled: bool = False
    use_modes: bool = True
    duty_step: float = DEFAULT_DUTY_STEP  # the ladder 1 - step, 1 - 2 step, ..., 0.0
    duty: tuple[float, ...] = ()  # an explicit ladder instead (descending, below 1.0)
    down_margin_k: float = 0.5
    up_margin_k: float = 1.5
    down_dwell_s: float = 1.0
    up_dwell_s: float = 5.0

    @property
    def ladder(self) -> tuple[float, ...]:
        """The duty-cycle rungs below the full load: ``duty`` if given, else by ``duty_step``."""
        return self.duty or duty_ladder(self.duty_step)

    def to_dict(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "use_modes": self.use_modes,
            "duty_step": self.duty_step,
            **({"duty": list(self.duty)} if self.duty else {}),
            "down_margin_k": self.down_margin_k,
            "up_margin_k": self.up_margin_k,
            "down_dwell_s": self.down_dwell_s,
            "up_dwell_s": self.up_dwell_s,
        }


def parse_lever(t: Table) -> LeverConfig:
    d = LeverConfig()
    duty = tuple(t.numbers("duty", []))
    for i, v in enumerate(duty):
        if not 0.0 <= v < 1.0:
            raise ConfigError(f"{t.where}.duty[{i}]: {v:g} is out of range; use fractions in 0..1 (below 1)")
    if any(b >= a for a, b in itertools.pairwise(duty)):
        raise ConfigError(f"{t.where}.duty: must be strictly descending, e.g. [0.75, 0.5, 0.25, 0.0]")
    if t.has("duty") and not duty:
        raise ConfigError(f"{t.where}.duty: empty; list the duty cycles, e.g. [0.75, 0.5, 0.25, 0.0]")
    step = t.number("duty_step", d.duty_step, minimum=0.005, maximum=1.0)
    cfg = LeverConfig(
        enabled=t.boolean("enabled", d.enabled),
        use_modes=t.boolean("use_modes", d.use_modes),
        duty_step=step,
        duty=duty,
        down_margin_k=t.number("down_margin_k", d.down_margin_k, minimum=0.0, maximum=30.0),
        up_margin_k=t.number("up_margin_k", d.up_margin_k, minimum=0.0, maximum=30.0),
        down_dwell_s=t.number("down_dwell_s", d.down_dwell_s, minimum=0.0, maximum=3600.0),
        up_dwell_s=t.number("up_dwell_s", d.up_dwell_s, minimum=0.0, maximum=3600.0),
    )
    if cfg.up_margin_k <= cfg.down_margin_k:
        raise ConfigError(
            f"{t.where}.up_margin_k: must be above down_margin_k ({cfg.down_margin_k:g}), "
            "or the lever flaps between two levels"
        )
    t.done()
    return cfg


class LoadLevel(NamedTuple):
    """One rung: the costliest mode allowed (``None``: any) and the duty cycle."""

    mode_floor: str | None
    duty: float

    def label(self) -> str:
        if self.duty == 0.0:
            return "standby"
        mode = self.mode_floor or "table"
        return f"{mode}@{self.duty:.0%}"


def build_levels(cfg: LeverConfig, modes_order: tuple[str, ...]) -> tuple[LoadLevel, ...]:
    levels = [LoadLevel(None, 1.0)]
    floor: str | None = None
    if cfg.use_modes:
        for m in modes_order[1:]:
            levels.append(LoadLevel(m, 1.0))
            floor = m
    levels.extend(LoadLevel(floor, d) for d in cfg.ladder)
    return tuple(levels)


class Lever:
    """The rung in force; ``step`` is called once a tick with a known temperature."""

    def __init__(self, cfg: LeverConfig, trip_c: float, modes_order: tuple[str, ...]) -> None:
        self.cfg = cfg
        self.trip_c = trip_c
        self.levels = build_levels(cfg, modes_order)
        self.level = 0
        self._changed_at = -math.inf
        self._cool_since: float | None = None

    @property
    def current(self) -> LoadLevel:
        return self.levels[self.level]

    def step(self, now_s: float, fused_c: float, at_lowest_caps: bool) -> list[str]:
        """Move at most one rung; returns the trace events (``lever:<level>``)."""
        c = self.cfg
        if not c.enabled:
            return []
        down_c = self.trip_c - c.down_margin_k
        up_c = self.trip_c - c.up_margin_k
        before = self.level
        if fused_c <= up_c:
            if self._cool_since is None:
                self._cool_since = now_s
        else:
            self._cool_since = None
        if fused_c >= down_c and self.level + 1 < len(self.levels):
            if self.level == 0:
                if at_lowest_caps:
                    self.level = 1
            elif fused_c >= self.trip_c or now_s - self._changed_at >= c.down_dwell_s - 1e-9:
                self.level += 1  # above the trip itself: a rung every tick, no dwell
        elif (
            self.level > 0
            and self._cool_since is not None
            and now_s - self._cool_since >= c.up_dwell_s - 1e-9
            and now_s - self._changed_at >= c.up_dwell_s - 1e-9
        ):
            self.level -= 1
        if self.level == before:
            return []
        self._changed_at = now_s
        return [f"lever:{self.level}"]
