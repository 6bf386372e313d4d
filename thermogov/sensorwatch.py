"""Sensor health beyond single reads: which sensors left or rejoined fusion, and which froze.

A read that fails is visible at once (SensorError), but two failures are silent:

* a sensor going stale drops out of fusion and the others are renormalised; the trace only
  showed a shorter ``sensors_used``.  Now the tick records ``sensor_lost:<name>`` and, when it
  contributes again, ``sensor_back:<name>``.
* a hung driver (or an emulator after its simulated shutdown) keeps returning the last value.
  Such a sensor reads "fine" forever while the board heats.  A sensor whose value has not
  changed for ``stuck_after_s`` although the board's clocks changed in the meantime cannot be
  measuring a die that dissipates a different power, so it is treated as failed
  (``sensor_stuck:<name>``) until its value moves again (``sensor_unstuck:<name>``).  A board
  idling at fixed clocks never trips this: constant clocks are no evidence against a constant
  temperature.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence


class StuckWatch:
    """Per sensor: the last value and when it changed; for the board: when its clocks last moved.

    A sensor is stuck once its value is ``stuck_after_s`` old and the clocks moved after it last
    changed.  The check runs only when the oldest unchanged value can have reached the limit,
    so a noisy sensor (a new value on nearly every read) costs one comparison per tick.
    """

    def __init__(self, names: Sequence[str], stuck_after_s: float | None) -> None:
        self.stuck_after_s = stuck_after_s
        self.stuck: set[str] = set()
        self._last: dict[str, float] = {}
        self._changed_at: dict[str, float] = {}
        self._activity: Hashable = None
        self._activity_t = -math.inf
        self._next_check = -math.inf
        self._pending: list[str] = []
        self._names = tuple(names)

    def reading(self, name: str, value: float, t_s: float) -> None:
        """A good reading; a changed value clears the sensor's stuck state."""
        if self._last.get(name) == value:
            return
        self._last[name] = value
        self._changed_at[name] = t_s
        if name in self.stuck:
            self.stuck.discard(name)
            self._pending.append(f"sensor_unstuck:{name}")

    def tick(self, now_s: float, activity: Hashable) -> list[str]:
        """Events since the last tick; ``activity`` is the board's effective clocks as a value."""
        events = self._pending
        if events:
            self._pending = []
        else:
            events = []
        if activity != self._activity:
            if self._activity is not None:
                self._activity_t = now_s
            self._activity = activity
        if self.stuck_after_s is None or now_s < self._next_check:
            return events
        limit = self.stuck_after_s - 1e-9
        next_check = math.inf
        for n in self._names:
            changed = self._changed_at.get(n)
            if changed is None or n in self.stuck:
                continue
            if now_s - changed >= limit and self._activity_t > changed:
                self.stuck.add(n)
                events.append(f"sensor_stuck:{n}")
            else:
                next_check = min(next_check, changed + limit)
        self._next_check = next_check
        return events


def membership_events(before: frozenset[str], now: Sequence[str], order: Sequence[str]) -> list[str]:
    """``sensor_lost``/``sensor_back`` tags for sensors that left or rejoined fusion."""
    used = set(now)
    events = [f"sensor_lost:{n}" for n in order if n in before and n not in used]
    events += [f"sensor_back:{n}" for n in order if n in used and n not in before]
    return events
