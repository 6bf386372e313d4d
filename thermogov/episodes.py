"""Mitigation episodes: each stretch of a run spent at or above the trip, like the kernel lists them.

Since Linux 6.8 the thermal core keeps, per zone, a list of *mitigation episodes* in debugfs
(``/sys/kernel/debug/thermal/thermal_zones/<id>/mitigations``, ``drivers/thermal/
thermal_debugfs.c``): an episode opens when the first trip is crossed on the way up and closes
when the last one is crossed on the way down, and it carries its start, duration and the
min/avg/max temperature seen while open.  A run summary lists the same for the governor's trip on
the fused temperature, so a board run, a simulated run and a trace rebuilt from a log read alike.

The tracker is streaming (O(1) per tick, nothing reloaded): an episode opens at the first tick
with ``fused >= trip``, closes at the first tick below ``trip - hyst`` and lasts from its first
tick to the closing one, the same rule as ``time_above_trip_s`` (with the default ``hyst`` of 0
the durations add up to it exactly).  Its temperatures are those of the ticks inside it; its
average is over time (each tick's value held until the next), as the time above trip is.  An
episode still open at the end of the run is closed there and marked ``open``.  Only the most
recent ``keep`` episodes are listed (a day-long run hovering at the trip must not grow the
summary without bound); ``episodes_total`` counts them all.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

DEFAULT_KEEP = 200


@dataclass(slots=True)
class _Open:
    start_t: float
    last_t: float
    last_c: float
    min_c: float
    max_c: float
    weighted: float = 0.0  # integral of temperature over time so far


class EpisodeTracker:
    def __init__(self, trip_c: float, hyst_c: float = 0.0, keep: int = DEFAULT_KEEP) -> None:
        if not math.isfinite(trip_c) or not math.isfinite(hyst_c) or hyst_c < 0:
            raise ValueError("trip and hysteresis must be finite, hysteresis >= 0")
        self.trip_c = trip_c
        self.release_c = trip_c - hyst_c
        self._open: _Open | None = None
        self._done: deque[dict[str, object]] = deque(maxlen=max(keep, 0))
        self.total = 0
        self.total_s = 0.0

    def observe(self, t_s: float, fused_c: float | None) -> None:
        ep = self._open
        if ep is not None:
            dt = t_s - ep.last_t
            if dt > 0:
                ep.weighted += ep.last_c * dt
            ep.last_t = t_s
            if fused_c is None or fused_c >= self.release_c:
                if fused_c is not None:
                    ep.last_c = fused_c
                    ep.min_c = min(ep.min_c, fused_c)
                    ep.max_c = max(ep.max_c, fused_c)
                return  # an unknown temperature does not end an episode (nor start one)
            self._close(t_s, still_open=False)
        if fused_c is not None and fused_c >= self.trip_c:
            self._open = _Open(t_s, t_s, fused_c, fused_c, fused_c)

    def _close(self, t_s: float, still_open: bool) -> None:
        ep = self._open
        assert ep is not None
        self._open = None
        duration = t_s - ep.start_t
        avg = ep.weighted / duration if duration > 0 else ep.last_c
        self.total += 1
        self.total_s += duration
        self._done.append(
            {
                "start_s": round(ep.start_t, 3),
                "duration_s": round(duration, 3),
                "min_c": round(ep.min_c, 3),
                "avg_c": round(avg, 3),
                "max_c": round(ep.max_c, 3),
                "open": still_open,
            }
        )

    def finish(self, t_end: float) -> dict[str, object]:
        """Close an episode still open at ``t_end`` (marked ``open``); returns the summary fields."""
        if self._open is not None:
            ep = self._open
            if t_end > ep.last_t:
                ep.weighted += ep.last_c * (t_end - ep.last_t)
                ep.last_t = t_end
            self._close(max(t_end, ep.start_t), still_open=True)
        return {
            "mitigation_episodes": list(self._done),
            "mitigation_episodes_total": self.total,
            "mitigation_time_s": round(self.total_s, 3),
        }
