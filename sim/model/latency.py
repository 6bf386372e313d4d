"""Latency distribution as a log-binned histogram.

A saturating stream on a Jetson completes about a million inferences per simulated hour;
keeping every latency would cost memory and time for nothing, since users ask for p50/p95/p99.
Bins grow by 0.5 % from 1 us to 1000 s, so a percentile is exact to within 0.25 % of its value.
"""

from __future__ import annotations

import math

import numpy as np

_LO = 1e-6
_RATIO = 1.005
_LOG_RATIO = math.log(_RATIO)
_NBINS = int(math.log(1e3 / _LO) / _LOG_RATIO) + 2


class LatencyHistogram:
    def __init__(self) -> None:
        self.counts = np.zeros(_NBINS, dtype=np.int64)
        self.n = 0
        self.total_s = 0.0
        # Repeated values (a saturating stream at constant clocks repeats one service time)
        # are tallied in a dict first and binned in bulk: far cheaper than a log per sample.
        self._pending: dict[float, int] = {}
        # add_many's values by count, as the arrays it was given, binned in bulk
        self._lists: dict[int, list[np.ndarray]] = {}
        self._list_n = 0

    def add(self, seconds: float, count: int = 1) -> None:
        pending = self._pending
        pending[seconds] = pending.get(seconds, 0) + count
        if len(pending) > 4096:
            self._flush()

    def add_many(self, seconds: np.ndarray, count_each: int = 1) -> None:
        """Many distinct values at once (a saturating stream's batches between two events).

        Kept as the caller's array (no copy into a Python list): the values are only ever
        binned together, concatenated in the order they came, at the next flush.
        """
        group = self._lists.get(count_each)
        if group is None:
            group = self._lists[count_each] = []
        group.append(seconds)
        self._list_n += len(seconds)
        if self._list_n > 65536:
            self._flush_lists()

    def _flush_lists(self) -> None:
        # One vectorised binning per distinct count: a log and a bincount for the lot.
        for count_each, chunks in self._lists.items():
            arr = np.concatenate(chunks) if len(chunks) > 1 else np.asarray(chunks[0], dtype=float)
            if not len(arr):
                continue
            idx = np.log(np.maximum(arr, _LO) / _LO) / _LOG_RATIO
            i = np.where(arr <= _LO, 0, np.minimum(idx.astype(np.int64) + 1, _NBINS - 1))
            self.counts += np.bincount(i, minlength=_NBINS) * count_each
            self.n += len(arr) * count_each
            self.total_s += float(arr.sum()) * count_each
        self._lists.clear()
        self._list_n = 0

    def _flush(self) -> None:
        self._flush_lists()
        for seconds, count in self._pending.items():
            i = 0 if seconds <= _LO else min(int(math.log(seconds / _LO) / _LOG_RATIO) + 1, _NBINS - 1)
            self.counts[i] += count
            self.n += count
            self.total_s += seconds * count
        self._pending.clear()

    def percentile_s(self, q: float) -> float | None:
        """Bin-centre value below which ``q`` percent of the samples lie."""
        self._flush()
        if self.n == 0:
            return None
        rank = q / 100.0 * self.n
        cum = np.cumsum(self.counts)
        i = int(np.searchsorted(cum, max(rank, 1e-12)))
        if i == 0:
            return _LO
        lo = _LO * _RATIO ** (i - 1)
        return lo * math.sqrt(_RATIO)

    def mean_s(self) -> float | None:
        self._flush()
        return self.total_s / self.n if self.n else None

    def summary_ms(self) -> dict[str, float | None]:
        def ms(v: float | None) -> float | None:
            return None if v is None else round(v * 1000.0, 4)

        return {
            "p50": ms(self.percentile_s(50)),
            "p95": ms(self.percentile_s(95)),
            "p99": ms(self.percentile_s(99)),
            "mean": ms(self.mean_s()),
        }
