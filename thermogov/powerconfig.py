"""The ``[power]`` section: power budgets per power state and the Li-ion temperature limits.

A budget is an average power in watts the governor keeps the board under, over a rolling
window, while the board is in that power state (0: no budget).  ``low_battery_w`` replaces the
discharging budget once the battery's capacity falls below ``low_battery_pct``.  The Li-ion
windows default to the common cell rating, charging 0-45 °C and discharging -20-60 °C
(see :mod:`thermogov.battery` for the sources); a pack with other ratings sets its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from thermogov.interfaces import ConfigError, PowerStatus
from thermogov.tomlcheck import Table

MAX_BUDGET_W = 1000.0  # beyond any edge board's input; a typo, not a budget
MAX_WINDOW_S = 3600.0


@dataclass(frozen=True, slots=True)
class PowerConfig:
    charging_w: float = 0.0
    full_w: float = 0.0
    mains_w: float = 0.0
    discharging_w: float = 0.0
    low_battery_w: float = 0.0
    low_battery_pct: float = 20.0
    window_s: float = 30.0
    charge_min_c: float = 0.0
    charge_max_c: float = 45.0
    discharge_min_c: float = -20.0
    discharge_max_c: float = 60.0

    def budget_w(self, status: PowerStatus | None) -> float | None:
        """The budget in force for this power state; ``None`` for no budget."""
        if status is None:
            return None
        w = {
            "charging": self.charging_w,
            "full": self.full_w,
            "mains": self.mains_w,
            "discharging": self.discharging_w,
        }.get(status.state, 0.0)
        low = (
            status.state == "discharging"
            and self.low_battery_w > 0.0
            and status.capacity_pct is not None
            and status.capacity_pct < self.low_battery_pct
        )
        if low:
            w = min(w, self.low_battery_w) if w > 0.0 else self.low_battery_w
        return w if w > 0.0 else None

    @property
    def any_budget(self) -> bool:
        return any(
            w > 0.0
            for w in (self.charging_w, self.full_w, self.mains_w, self.discharging_w, self.low_battery_w)
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget_charging_w": self.charging_w,
            "budget_full_w": self.full_w,
            "budget_mains_w": self.mains_w,
            "budget_discharging_w": self.discharging_w,
            "budget_low_battery_w": self.low_battery_w,
            "low_battery_pct": self.low_battery_pct,
            "window_s": self.window_s,
            "charge_min_c": self.charge_min_c,
            "charge_max_c": self.charge_max_c,
            "discharge_min_c": self.discharge_min_c,
            "discharge_max_c": self.discharge_max_c,
        }


def parse_power(t: Table) -> PowerConfig:
    d = PowerConfig()

    def watts(key: str, default: float) -> float:
        return t.number(key, default, minimum=0.0, maximum=MAX_BUDGET_W)

    def temp(key: str, default: float) -> float:
        return t.number(key, default, minimum=-40.0, maximum=100.0)

    p = PowerConfig(
        charging_w=watts("budget_charging_w", d.charging_w),
        full_w=watts("budget_full_w", d.full_w),
        mains_w=watts("budget_mains_w", d.mains_w),
        discharging_w=watts("budget_discharging_w", d.discharging_w),
        low_battery_w=watts("budget_low_battery_w", d.low_battery_w),
        low_battery_pct=t.number("low_battery_pct", d.low_battery_pct, minimum=0.0, maximum=100.0),
        window_s=t.number("window_s", d.window_s, minimum=1.0, maximum=MAX_WINDOW_S),
        charge_min_c=temp("charge_min_c", d.charge_min_c),
        charge_max_c=temp("charge_max_c", d.charge_max_c),
        discharge_min_c=temp("discharge_min_c", d.discharge_min_c),
        discharge_max_c=temp("discharge_max_c", d.discharge_max_c),
    )
    if p.charge_min_c >= p.charge_max_c:
        raise ConfigError(f"{t.where}.charge_max_c: must be above charge_min_c ({p.charge_min_c:g})")
    if p.discharge_min_c >= p.discharge_max_c:
        raise ConfigError(f"{t.where}.discharge_max_c: must be above discharge_min_c ({p.discharge_min_c:g})")
    t.done()
    return p
