"""Multi-rate sampling plan over integer milliseconds.

Every stream (each sensor, and the control tick) is due at ``k * period_ms`` exactly: times
are computed from the counter, never accumulated, so after an hour a 150 ms sensor is still
due at multiples of 150 ms (floating-point accumulation drifts by microseconds per hour, and a
real-time loop that sleeps "period" after each read drifts by its own run time).  When several
streams are due in the same millisecond, sensors come first in their configured order and the
control tick last, so a tick always sees the readings taken at its own instant.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator, Sequence

CONTROL = "__control__"
MAX_CYCLE_INSTANTS = 100_000  # longer repeating patterns are not worth keeping: pop() instead


class MultiRatePlan:
    """Yields ``(t_ms, due_names)`` in time order for streams with integer-ms periods."""

    def __init__(
        self, periods_ms: Sequence[tuple[str, int]], control_period_ms: int, start_ms: int = 0
    ) -> None:
        streams = [*periods_ms, (CONTROL, control_period_ms)]
        for name, period in streams:
            if not isinstance(period, int) or period <= 0:
                raise ValueError(f"period of {name!r} must be a positive whole number of ms, got {period!r}")
        self._period = {name: p for name, p in streams}
        self._rank = {name: i for i, (name, _) in enumerate(streams)}
        self._count = dict.fromkeys(self._period, 0)
        self._heap: list[tuple[int, int, str]] = []
        for name, period in streams:
            k = -(-start_ms // period)  # first multiple at or after start
            self._count[name] = k
            heapq.heappush(self._heap, (k * period, self._rank[name], name))

    def peek_ms(self) -> int:
        return self._heap[0][0]

    def pop(self) -> tuple[int, list[str]]:
        """The next instant and every stream due at it (control tick last)."""
        t = self._heap[0][0]
        due: list[str] = []
        heap = self._heap
        while heap and heap[0][0] == t:
            _, rank, name = heapq.heappop(heap)
            due.append(name)
            k = self._count[name] + 1
            self._count[name] = k
            heapq.heappush(heap, (k * self._period[name], rank, name))
        return t, due

    def instants(self) -> Iterator[tuple[int, tuple[str, ...]]]:
        """Every instant from now on, exactly as repeated :meth:`pop` gives them, but cheaper.

        Every stream is due at multiples of its period, so the instants of one hyperperiod
        (the least common multiple of the periods) repeat shifted by it: a runner with nothing
        else to do between instants (the simulator) replays that pattern instead of paying a
        heap operation per stream per instant.  A pattern too long to keep (coprime odd
        periods) falls back to :meth:`pop`.
        """
        hyper = math.lcm(*self._period.values())
        if len(self._period) * hyper // min(self._period.values()) > MAX_CYCLE_INSTANTS:
            while True:
                t, due = self.pop()
                yield t, tuple(due)
        start = self.peek_ms()
        pattern: list[tuple[int, tuple[str, ...]]] = []
        while self.peek_ms() < start + hyper:
            t, due = self.pop()
            pattern.append((t - start, tuple(due)))
        base = start
        while True:
            for offset, names in pattern:
                yield base + offset, names
            base += hyper
