"""The throughput window ``plot --window`` may take, judged against the runs it will draw.

The throughput panel differences the inference counter over a trailing window
(:func:`thermogov.plotting.figures.rolling_rate`).  A window shorter than one sample period
holds no two samples, so every point is a gap and the panel is drawn empty; a window longer than
the run makes every point the mean since the start, no longer a rate over the last seconds.  Both
were accepted and drawn (``--window 1e-300`` wrote an empty panel, session 31h's leftover): they
are bad input when given, said in one line naming the run and the range that would draw, before
anything is written (session 32h); the default window is drawn as it always was (``plot``'s caller
decides).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from thermogov.interfaces import ConfigError
from thermogov.plotting.figures import WINDOW_SLACK

TOTALS = "inferences_total"


def _numbers(values: Sequence[Any]) -> np.ndarray:
    return np.array([v if isinstance(v, int | float) else np.nan for v in values], dtype=float)


def counted_times(columns: Any) -> np.ndarray | None:
    """The times of the rows that hold a count (what the rate is differenced over); None when
    the run draws no throughput (no counter, or fewer than two counted rows)."""
    if TOTALS not in columns:
        return None
    t = _numbers(columns["t_s"])
    ok = np.isfinite(_numbers(columns[TOTALS])) & np.isfinite(t)
    return t[ok] if ok.sum() >= 2 else None


def check_window(runs: Sequence[Any], window_s: float) -> None:
    """Refuse a window no drawn run can use: shorter than a run's sample period (the median
    step, so one late tick does not set it), or longer than the longest run.  ``runs`` are
    :class:`~thermogov.plotting.figures.RunData`; runs that draw no throughput are not judged."""
    spans: list[float] = []
    for run in runs:
        t = counted_times(run.columns)
        if t is None:
            continue
        steps = np.diff(t)
        steps = steps[steps > 0]
        if steps.size == 0:
            continue
        period = float(np.median(steps))
        if window_s < period * (1 - WINDOW_SLACK):  # a period read back from decimals
            raise ConfigError(
                f"--window: {window_s:g} s is shorter than one sample of {run.origin} ({period:g} s "
                f"apart), so no window holds two samples and its throughput would be empty; "
                f"give at least {period:g}"
            )
        spans.append(float(t[-1] - t[0]))
    if spans and window_s > max(spans):
        raise ConfigError(
            f"--window: {window_s:g} s is longer than the longest run ({max(spans):g} s), so every "
            f"point would be the mean since the start, not a rate; give at most {max(spans):g}"
        )
