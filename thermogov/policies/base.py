"""What a policy sees and what it answers.

Like a kernel thermal governor, a policy is a small object owning only its own state; the
governor core owns sampling, fusion, staleness, failsafe and actuation.  The signature is
fixed here once (the kernel changed ``.throttle`` to ``.manage`` and every governor had to
follow); new information goes into :class:`PolicyInput`, not new methods.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from thermogov.board import BoardProfile
from thermogov.tomlcheck import Table


class PolicyInput(NamedTuple):
    t_s: float
    fused_c: float  # the governor never asks a policy without a known temperature
    readings_c: Mapping[str, float | None]  # latest good value per sensor (None if none fresh)
    caps_hz: Mapping[str, int]  # caps currently in force, per domain
    freqs_hz: Mapping[str, int | None]  # effective clocks as last observed (None if unknown)
    power_w: float | None = None  # board power if the world measures it
    # When each sensor's latest good reading was taken (runner clock, s); None when not given.
    # A reading with the same time as on the last tick is the same reading, not a new one.
    readings_t_s: Mapping[str, float | None] | None = None
    # The supply's PowerStatus state ("mains", "charging", "discharging", "full"); None when the
    # world reports none.  Tells a battery guard whether the board's current passes the pack.
    power_state: str | None = None


class Decision(NamedTuple):
    caps_hz: Mapping[str, int]  # the governor never mutates it, so a policy may return its own
    state: str
    event: str = ""


class Policy(Protocol):
    name: str

    def decide(self, inp: PolicyInput) -> Decision: ...


@dataclass(frozen=True, slots=True)
class PolicyContext:
    """Everything a policy may use at construction: the board, the tables and the timing."""

    board: BoardProfile
    tables_hz: dict[str, tuple[int, ...]]  # domain -> ascending OPP table actually available
    control_period_s: float
    sensor_names: tuple[str, ...] = ()
    extra: dict[str, object] = field(default_factory=dict)

    def lowest_caps(self) -> dict[str, int]:
        return {d: t[0] for d, t in self.tables_hz.items()}

    def highest_caps(self) -> dict[str, int]:
        return {d: t[-1] for d, t in self.tables_hz.items()}


PolicyFactory = Callable[[Table, PolicyContext, str], Policy]
"""``factory(params, ctx, argument)``: ``argument`` is what follows ``name:`` (``fixed:1.2GHz``)."""


def cap_from_setting(value: object, table: tuple[int, ...], where: str) -> int:
    """``"max"``, ``"min"`` or a frequency in MHz that must be an OPP of the table."""
    from thermogov.interfaces import ConfigError

    if value == "max":
        return table[-1]
    if value == "min":
        return table[0]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ConfigError(f'{where}: expected "max", "min" or an OPP in MHz, got {value!r}')
    hz = round(float(value) * 1e6)
    if hz not in table:
        opps = ", ".join(f"{f / 1e6:g}" for f in table)
        raise ConfigError(f"{where}: {value} MHz is not an OPP; choose one of {opps}")
    return hz
