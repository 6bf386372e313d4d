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

from collections.abc import Hashable, Sequence


class StuckWatch:
    """Tracks, per sensor, the last value, when it last changed, and clock activity since then."""

    def __init__(self, names: Sequence[str], stuck_after_s: float | None) -> None:
        self.stuck_after_s = stuck_after_s
        self.stuck: set[str] = set()
        self._last: dict[str, float] = {}
        self._changed_at: dict[str, float] = {}
        self._active = dict.fromkeys(names, False)
        self._activity: Hashable = None
        self._pending: list[str] = []

    def reading(self, name: str, value: float, t_s: float) -> None:
        """A good reading; a changed value clears the sensor's stuck state and activity."""
        if self._last.get(name) == value:
            return
        self._last[name] = value
        self._changed_at[name] = t_s
        self._active[name] = False
        if name in self.stuck:
            self.stuck.discard(name)
            self._pending.append(f"sensor_unstuck:{name}")

    def tick(self, now_s: float, activity: Hashable) -> list[str]:
        """Events since the last tick; ``activity`` is the board's clocks/caps as a value."""
        events, self._pending = self._pending, []
        if self.stuck_after_s is None:
            return events
        if self._activity is not None and activity != self._activity:
            for n in self._active:
                self._active[n] = True
        self._activity = activity
        limit = self.stuck_after_s - 1e-9
        for n, changed in self._changed_at.items():
            if n not in self.stuck and self._active[n] and now_s - changed >= limit:
                self.stuck.add(n)
                events.append(f"sensor_stuck:{n}")
        return events


def membership_events(before: frozenset[str], now: Sequence[str], order: Sequence[str]) -> list[str]:
    """``sensor_lost``/``sensor_back`` tags for sensors that left or rejoined fusion."""
    used = set(now)
    events = [f"sensor_lost:{n}" for n in order if n in before and n not in used]
    events += [f"sensor_back:{n}" for n in order if n in used and n not in before]
    return events
