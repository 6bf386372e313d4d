"""Slow sources at their own period: a gate that says when a poll is due, on the run's clock.

The control tick runs every 100 ms, but several things the daemon looks at cannot change that
fast, and reading them every tick only costs syscalls: a battery fuel gauge refreshes its
values at most every few seconds (``bq27xxx_battery_get_property`` in the kernel's
``drivers/power/supply/bq27xxx_battery.c`` re-reads the chip only when its cache is 5 s old),
the firmware and over-current counters are read for a trace tag, and a fan's tachometer only
serves a stall alarm that waits a whole second of 0 RPM anyway.  Such a source is read when
its gate is due and its last value is used in between, so a change is seen within one period.

Due times stay on the grid of the first poll (``t0 + k * period``), so a 1 s poll driven by a
100 ms tick does not drift by a tick per poll; after a stall (a suspended board) the next poll
is a period from now rather than a burst of catch-up polls.  A tick stamped a little before a
grid point still counts (:data:`SLACK`): the daemon stamps each tick with the time it woke,
which lags its scheduled instant by a wake-up latency that varies from tick to tick; without
the slack a tick waking 0.1 ms earlier than the first one would push the poll a whole tick late.
"""

from __future__ import annotations

import math

SLOW_PERIOD_S = 1.0  # power supplies, throttle counters, the fan's tachometer
SLACK = 0.01  # of the period: far above wake-up jitter (~1 ms at 1 s), far below a tick


class Every:
    """``due(t)`` is True at the first call and then once per ``period_s`` of ``t``.

    ``ready_s`` is the earliest time ``due`` can be True: a caller asked every tick writes
    ``t >= gate.ready_s and gate.due(t)``, so the ticks in between cost a comparison instead
    of a call (a Python frame, several µs on a daemon that wakes with cold caches).
    """

    __slots__ = ("_next", "_slack", "period_s", "ready_s")

    def __init__(self, period_s: float = SLOW_PERIOD_S) -> None:
        if not period_s > 0:
            raise ValueError(f"poll period must be positive, got {period_s!r}")
        self.period_s = period_s
        self._next: float | None = None
        self._slack = SLACK * period_s
        self.ready_s = -math.inf

    def due(self, t_s: float) -> bool:
        nxt = self._next
        if nxt is not None and t_s < nxt - self._slack:
            return False
        nxt = (t_s if nxt is None else nxt) + self.period_s
        self._next = nxt = nxt if nxt > t_s else t_s + self.period_s
        self.ready_s = nxt - self._slack
        return True

    def reset(self) -> None:
        """The next ``due`` is True whatever the time (a source that must be read again now)."""
        self._next = None
        self.ready_s = -math.inf
