"""The simulated battery: state of charge integrated from the plant's power, and its charger.

The pack is the profile's :class:`~thermogov.board.BatteryProfile`: capacity in Ah at a nominal
voltage, internal resistance ``r0_ohm`` (its I²R loss heats the battery node) and the board's
converter efficiency (its loss heats the carrier).  The model is the simplest that gets runtime
right to first order: a constant nominal voltage (the open-circuit voltage of a Li-ion cell
varies ~20 % over its charge, which this ignores) and coulomb counting.

* Unplugged, the board's power divided by the converter efficiency, plus any external load
  (``on_the_move``: the motors of a robot drawing on the same pack), is drawn from the pack.
* Plugged, the charger powers the board and charges the pack at the standard charge rate,
  0.5 C (Panasonic NCR18650B datasheet: standard charge 1625 mA for a 3250 mAh cell), limited
  to what the charger has left over once the board is fed.  Outside the charging temperature
  window the charger holds off, as JEITA-style chargers do, and reports "not charging" (the
  ``mains`` state); once full it stops and reports ``full``.
"""

from __future__ import annotations

from thermogov.board import BatteryProfile

CHARGE_C_RATE = 0.5  # standard charge current in C (cell datasheets: 0.5 C CC-CV)


class SimBattery:
    def __init__(self, profile: BatteryProfile, charge_window_c: tuple[float, float] = (0.0, 45.0)) -> None:
        self.p = profile
        self.soc = profile.initial_soc
        self.plugged = False
        self.charger_w = 0.0  # 0: a charger big enough for the board plus the standard charge
        self.external_w = 0.0  # drawn from the pack by something other than the board
        self.charge_window_c = charge_window_c
        self.charging = False  # charge current flowed in the last interval
        self.empty_after_s: float | None = None  # within the last interval, when it hit 0

    @property
    def capacity_wh(self) -> float:
        return self.p.capacity_ah * self.p.voltage_v

    def plug(self, charger_w: float = 0.0) -> None:
        self.plugged = True
        self.charger_w = charger_w
        self.external_w = 0.0
        self.charging = self.soc < 1.0  # until the next step says otherwise

    def unplug(self, external_w: float = 0.0) -> None:
        self.plugged = False
        self.external_w = external_w

    def step(self, dt: float, board_w: float, temp_c: float) -> tuple[float, float]:
        """Advance ``dt`` seconds at ``board_w``; returns (battery I²R heat, converter loss) in W."""
        p = self.p
        drawn = board_w / p.converter_efficiency
        loss = drawn - board_w
        self.empty_after_s = None
        if self.plugged:
            lo, hi = self.charge_window_c
            rate_w = CHARGE_C_RATE * p.capacity_ah * p.voltage_v
            if self.charger_w > 0.0:
                rate_w = min(rate_w, max(self.charger_w - drawn, 0.0))
            self.charging = self.soc < 1.0 and lo <= temp_c <= hi and rate_w > 0.0
            if not self.charging:
                return 0.0, loss
            current = rate_w / p.voltage_v
            self.soc = min(self.soc + current * dt / 3600.0 / p.capacity_ah, 1.0)
            return current * current * p.r0_ohm, loss
        self.charging = False
        current = (drawn + self.external_w) / p.voltage_v
        used = current * dt / 3600.0 / p.capacity_ah
        if used >= self.soc and self.soc > 0.0:
            self.empty_after_s = dt * self.soc / used
        self.soc = max(self.soc - used, 0.0)
        return current * current * p.r0_ohm, loss

    def state(self) -> str:
        """The PowerStatus state, as a power_supply class device would report it."""
        if not self.plugged:
            return "discharging"
        if self.soc >= 1.0:
            return "full"
        return "charging" if self.charging else "mains"
