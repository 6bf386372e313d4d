"""Li-ion temperature limits, honoured and reported: a cap limiter on the battery temperature.

Li-ion cells are rated to charge between 0 and 45 °C and to discharge between -20 and 60 °C
(Panasonic NCR18650B datasheet, "Temperature: Charge 0 to +45 °C, Discharge -20 to +60 °C";
the JEITA/BAJ guide "A Guide to the Safe Use of Secondary Lithium Ion Batteries in
Notebook-type Personal Computers" (2007) sets the same 45 °C upper charging limit).  Charging
above the window plates lithium and ages the cell fast; above 60 °C discharging approaches
the separator's limits.

What the governor can do about it is the heat *it* adds: the SoC and the pack share a case.
Above the upper limit of the window for the current state (charging window while charging,
discharging window otherwise) every domain goes to its lowest cap until the pack is
``release_k`` below the limit again -- while charging, that is refusing to heat a pack that is
already too hot to charge.  Below the lower limit caps are left alone (the load warms the pack,
which is what a cold pack needs) but the crossing is reported all the same.  Each crossing is a
trace event (``liion_limit:<state>_hot|_cold``, ``liion_limit_end``) and the summary counts
them and the time spent outside.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from thermogov.interfaces import PowerStatus
from thermogov.powerconfig import PowerConfig

RELEASE_K = 2.0  # hysteresis: a thermistor's noise must not toggle the caps every tick


class LiionLimiter:
    def __init__(
        self, cfg: PowerConfig, tables_hz: Mapping[str, Sequence[int]], release_k: float = RELEASE_K
    ):
        self.cfg = cfg
        self.lowest = {d: t[0] for d, t in tables_hz.items()}
        self.release_k = release_k
        self.active = ""  # "" or the crossing, e.g. "charging_hot"
        self.crossings: dict[str, int] = {}
        self.outside_s = 0.0
        self._last_t: float | None = None

    def _window(self, state: str) -> tuple[float, float]:
        c = self.cfg
        return (
            (c.charge_min_c, c.charge_max_c)
            if state == "charging"
            else (c.discharge_min_c, c.discharge_max_c)
        )

    def _crossing(self, status: PowerStatus | None) -> str:
        if status is None or status.battery_temp_c is None:
            return ""
        temp = status.battery_temp_c
        lo, hi = self._window(status.state)
        kind = "charging" if status.state == "charging" else "discharging"
        # Inside the hysteresis band a crossing in force stays in force.
        if self.active.endswith("_hot") and temp > hi - self.release_k:
            return f"{kind}_hot"
        if self.active.endswith("_cold") and temp < lo + self.release_k:
            return f"{kind}_cold"
        if temp > hi:
            return f"{kind}_hot"
        if temp < lo:
            return f"{kind}_cold"
        return ""

    def limit(
        self, now_s: float, caps_hz: Mapping[str, int], power_w: float | None, status: PowerStatus | None
    ) -> tuple[Mapping[str, int], list[str]]:
        if self._last_t is not None and self.active:
            self.outside_s += now_s - self._last_t
        self._last_t = now_s
        crossing = self._crossing(status)
        if crossing == self.active == "":  # nearly every tick: inside the window, nothing to do
            return caps_hz, []
        events = []
        if crossing != self.active:
            if crossing:
                events.append(f"liion_limit:{crossing}")
                self.crossings[crossing] = self.crossings.get(crossing, 0) + 1
            else:
                events.append("liion_limit_end")
            self.active = crossing
        if crossing.endswith("_hot"):
            return dict(self.lowest), events
        return caps_hz, events  # not copied: the governor never mutates what a limiter returns

    def summary(self) -> dict[str, object]:
        return {"liion_limit_crossings": dict(self.crossings), "liion_outside_s": round(self.outside_s, 3)}
