"""Simulated frequency domains and the board's own protections.

A domain's effective clock is the highest OPP at or below both the governor's cap and any cap
the board imposes by itself.  How that board cap shows depends on who imposes it: a kernel
passive trip (Jetson sw-throttle) is a freq-QoS MAX request and reads back as a lower
``scaling_max_freq``; Raspberry Pi firmware throttling is invisible to cpufreq, so the
governor's cap reads back unchanged while the clock is lower.  Modelling both is what lets a
trace show a policy fighting the firmware.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from thermogov.board import DomainProfile, Protection
from thermogov.interfaces import ActuatorError


class SimDomain:
    """A FrequencyActuator over a simulated cpufreq/devfreq domain."""

    def __init__(self, profile: DomainProfile, on_change: Callable[[], None]) -> None:
        self.profile = profile
        self._table = profile.opp_hz
        self._cap = self._table[-1]
        self._original = self._cap
        self._board_cap = self._table[-1]  # imposed by protections
        self.board_cap_visible = False
        self._oc_cap = self._table[-1]  # the over-current throttle's (sim/model/overcurrent.py)
        # The effective clock, recomputed when one of the three limits changes: the governor
        # reads it back every tick (twice when caps change), the limits move a few times a minute.
        self._effective = self._table[-1]
        self._on_change = on_change
        self.writes = 0

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def table_hz(self) -> tuple[int, ...]:
        return self._table

    @property
    def board_cap_hz(self) -> int:
        """The cap the board's own throttle imposes (its top OPP when it imposes none)."""
        return self._board_cap

    @board_cap_hz.setter
    def board_cap_hz(self, cap_hz: int) -> None:
        self._board_cap = cap_hz
        self._update_effective()

    @property
    def oc_cap_hz(self) -> int:
        """The over-current throttle's cap (its top OPP when it imposes none)."""
        return self._oc_cap

    @oc_cap_hz.setter
    def oc_cap_hz(self, cap_hz: int) -> None:
        self._oc_cap = cap_hz
        self._update_effective()

    @property
    def cap_hz(self) -> int:
        if self.board_cap_visible:
            return min(self._cap, self._board_cap)
        return self._cap

    def apply(self, cap_hz: int) -> int:
        if cap_hz not in self._table:
            raise ActuatorError(f"domain {self.name}: {cap_hz} Hz is not an OPP of the table")
        self._cap = cap_hz
        self._update_effective()
        self.writes += 1
        self._on_change()
        return self.cap_hz

    def _update_effective(self) -> None:
        limit = min(self._cap, self._board_cap, self._oc_cap)
        if limit == self._table[-1]:
            self._effective = limit
        else:
            i = bisect.bisect_right(self._table, limit) - 1
            self._effective = self._table[max(i, 0)]

    def effective_hz(self) -> int:
        return self._effective

    def restore(self) -> None:
        self._cap = self._original
        self._update_effective()
        self._on_change()


class ThrottleProtection:
    """Progressive board throttle between ``start_c`` and ``full_c`` with release hysteresis."""

    def __init__(self, p: Protection, domains: dict[str, SimDomain]) -> None:
        self.p = p
        self.domains = [domains[d] for d in p.domains]
        self.floors = p.floor_hz
        self.active = False
        self.events = 0

    def update(self, temp_c: float) -> bool:
        """Apply the protection for the hottest monitored node; True if any board cap changed."""
        p = self.p
        if temp_c >= p.start_c:
            level = 1.0 if p.full_c <= p.start_c else min((temp_c - p.start_c) / (p.full_c - p.start_c), 1.0)
            if not self.active:
                self.events += 1
            self.active = True
        elif self.active and temp_c < p.start_c - p.hyst_c:
            self.active = False
            level = 0.0
        elif self.active:
            return False  # inside the hysteresis band: hold
        else:
            level = 0.0
        changed = False
        for dom, floor in zip(self.domains, self.floors, strict=True):
            top = dom.table_hz[-1]
            limit = top - level * (top - floor) if self.active else top
            i = bisect.bisect_right(dom.table_hz, limit + 1e-3) - 1
            cap = max(dom.table_hz[max(i, 0)], floor)
            if cap != dom.board_cap_hz:
                dom.board_cap_hz = cap
                dom.board_cap_visible = p.visible
                changed = True
        return changed
