"""The Jetson BPMP's over-current throttle, simulated: input power over a limit costs clocks.

On a Jetson the module's input-rail monitor raises an over-current alarm when the board draws
more than its power mode allows; the BPMP then throttles the CPU and GPU in hardware (invisible
to cpufreq and devfreq) and counts the event (Orin ``oc*_event_cnt``, NVIDIA Jetson Linux
Developer Guide, "Platform Power and Performance"; the desktop notice "System throttled due to
over-current").  Here a protection of kind ``overcurrent`` is polled every ``period_ms``: at or
above ``limit_w`` of board power its domains are held at their floors until a poll finds the
power below the limit again, and every poll over the limit is one ``over-current-average`` event,
the tag the board reader emits for ``oc2_event_cnt`` increments (:mod:`thermogov.throttle`).
"""

from __future__ import annotations

import bisect

from thermogov.board import Protection
from thermogov.sim.model.domains import SimDomain


class OverCurrentProtection:
    def __init__(self, p: Protection, domains: dict[str, SimDomain]) -> None:
        self.p = p
        self.domains = [domains[d] for d in p.domains]
        self.active = False
        self.events = 0

    def update(self, power_w: float | None) -> tuple[bool, int]:
        """(whether a clock limit changed, events this poll) for the power of the last interval."""
        over = power_w is not None and power_w >= self.p.limit_w
        self.active = over
        changed = False
        for dom, floor in zip(self.domains, self.p.floor_hz, strict=True):
            table = dom.table_hz
            cap = table[max(bisect.bisect_right(table, floor) - 1, 0)] if over else table[-1]
            if cap != dom.oc_cap_hz:
                dom.oc_cap_hz = cap
                changed = True
        if over:
            self.events += 1
        return changed, int(over)
