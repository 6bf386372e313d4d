"""Per-tick compute time as a fixed-size histogram, so a month-long run costs 16 KiB.

Keeping every duration would grow by 80 KB per hour at 10 Hz; percentiles of a histogram with
5 µs bins are exact to the bin, which is plenty against a 2 ms budget.
"""

from __future__ import annotations

from array import array

BIN_S = 5e-6
NBINS = 4000  # 0..20 ms; slower ticks land in the overflow bin and in max_s


class TickStats:
    def __init__(self) -> None:
        self._bins = array("Q", bytes(8 * (NBINS + 1)))
        self.count = 0
        self.max_s = 0.0
        self.overruns = 0  # schedule instants skipped because the loop fell behind

    def record(self, seconds: float) -> None:
        i = min(int(seconds / BIN_S), NBINS)
        self._bins[i] += 1
        self.count += 1
        if seconds > self.max_s:
            self.max_s = seconds

    def percentile_ms(self, q: float) -> float | None:
        """Upper edge of the bin holding the q-th percentile (None before any tick)."""
        if self.count == 0:
            return None
        rank = q / 100.0 * self.count
        seen = 0
        for i, n in enumerate(self._bins):
            seen += n
            if seen >= rank and n:
                return (
                    round(min((i + 1) * BIN_S, self.max_s) * 1e3, 4)
                    if i < NBINS
                    else round(self.max_s * 1e3, 4)
                )
        return round(self.max_s * 1e3, 4)

    def summary(self) -> dict[str, float | int | None]:
        return {
            "tick_ms_p50": self.percentile_ms(50),
            "tick_ms_p99": self.percentile_ms(99),
            "tick_ms_max": round(self.max_s * 1e3, 4) if self.count else None,
            "ticks_timed": self.count,
            "schedule_overruns": self.overruns,
        }
