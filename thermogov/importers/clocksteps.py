"""A logger's clock that steps: found, and the rows after the step put back on one axis, with a note.

Three things make a log's own clock jump while the rows keep coming every interval: an NTP step
(``systemd-timesyncd`` or ``chronyd -q`` at boot sets the clock back or forward by seconds to
hours; DST ending moves a local-time stamp back an hour), a board without a real-time clock that
logs from 1970-01-01 (or the last ``fake-hwclock`` save) until the network sets the time, and a
logger restarted into the same file whose elapsed-seconds column starts again from 0.  Read as
they are, every row after a step back is "earlier than the previous row" and was dropped until
the clock passed the last kept time (all of them, for a restart), and a 1970 stretch was dropped
as "garbled" for lying decades from the median.

A step is only mended when the clock *changed*, not when one row is out of place: the rows after
it must go on at the log's own interval from the new time (:data:`MIN_SEGMENT` rows, each step at
most :data:`REGULAR_STEPS` intervals, and, for a step back, still behind the last row before it),
and the clock before it must have run as long (a garbled first stamp, ``-1e300``, is no clock).
The later rows are then shifted to follow one interval after the row before the step.  That
joins the two stretches with no gap: the true gap is not in the log (an NTP step loses none, a
restart an unknown one), which the note says.  A step back of at most one interval (jitter, a
reordered line) and a stray row (one garbled stamp) are left to the readers' old rule: dropped
and counted.  Nothing is ever reordered.
"""

from __future__ import annotations

import itertools
import math
import statistics
from array import array
from collections.abc import Sequence
from typing import overload

from thermogov.importers.common import MAX_SPAN_S, as_floats

# Rows (the first after the step included) that must run on at the log's interval from the new time.
MIN_SEGMENT = 3
# The longest step between those rows, in the log's intervals (a busy logger skips a beat or two).
REGULAR_STEPS = 3.0
# Notes written one per step; more steps than this are summed into one more note.
NOTED_STEPS = 3


def _steps_anywhere(times: Sequence[float | None] | array) -> bool:
    """Whether the finite times ever go back, or leap forward by more than ``MAX_SPAN_S``."""
    if isinstance(times, array):
        import numpy as np

        a = as_floats(times)
        f = a[np.isfinite(a)]
        d = np.diff(f)
        del f
        return bool(((d < 0) | (d > MAX_SPAN_S)).any())
    prev: float | None = None
    for t in times:
        if t is None or not math.isfinite(t):
            continue
        if prev is not None and (t < prev or t - prev > MAX_SPAN_S):
            return True
        prev = t
    return False


def _interval(finite: list[tuple[int, float]]) -> float | None:
    """The log's interval: the median forward step between timed rows (None without one)."""
    steps = [b - a for (_, a), (_, b) in itertools.pairwise(finite) if b > a]
    return statistics.median_low(steps) if steps else None


def _new_clock(finite: list[tuple[int, float]], k: int, behind: float | None, step: float) -> bool:
    """Whether rows ``k`` and the ``MIN_SEGMENT - 1`` after it run on at the interval (and, for a
    step back, all stay before ``behind``, the last row before the step, on their own clock)."""
    run = finite[k : k + MIN_SEGMENT]
    if len(run) < MIN_SEGMENT:
        return False
    for (_, a), (_, b) in itertools.pairwise(run):
        if not 0.0 <= b - a <= REGULAR_STEPS * step:
            return False
    return behind is None or all(t < behind for _, t in run)


def _span(seconds: float) -> str:
    s = abs(seconds)
    if s >= 2 * 86400:
        return f"{s / 86400:.0f} days"
    if s >= 2 * 3600:
        return f"{s / 3600:.1f} h"
    return f"{s:g} s"


@overload
def mend_steps(
    times: array, what: str = "row", lines: Sequence[int] | None = None
) -> tuple[array, list[str]]: ...
@overload
def mend_steps(
    times: Sequence[float | None], what: str = "row", lines: Sequence[int] | None = None
) -> tuple[list[float | None], list[str]]: ...
def mend_steps(
    times: Sequence[float | None] | array, what: str = "row", lines: Sequence[int] | None = None
) -> tuple[list[float | None] | array, list[str]]:
    """(times with every clock step mended, one note per step); ``times`` in file order, absolute
    or elapsed seconds, None where a row has no time.  Unchanged (and no note) without a step.

    An ``array('d')`` (NaN where a row has no time) is returned as itself when its times never
    step (session 28n: a big table's axis is not copied), else mended in a new ``array('d')``.
    ``lines``, the file's line number of each time, makes each note name the lines it shifted (a
    log of lines: tegrastats, vcgencmd, labelled; session 30w).
    """
    if isinstance(times, array):
        if not _steps_anywhere(times):
            return times, []
        out_a = array("d", times)
        return out_a, _mend(times, out_a, what, lines)
    out: list[float | None] = list(times)
    if not _steps_anywhere(times):
        return out, []  # nearly every log: no index built (a big log holds millions of rows)
    return out, _mend(times, out, what, lines)


def _mend(
    times: Sequence[float | None] | array,
    out: list[float | None] | array,
    what: str,
    lines: Sequence[int] | None = None,
) -> list[str]:
    """Mend ``out`` (a copy of ``times``) in place; the notes (none: ``out`` is left as it was)."""
    finite = [(i, t) for i, t in enumerate(times) if t is not None and math.isfinite(t)]
    step = _interval(finite)
    if step is None:
        return []
    offset = 0.0
    prev: float | None = None
    run = 0  # rows on the current clock: a clock is only left once it has run (a stray first stamp has not)
    steps: list[tuple[float, float, int]] = []  # (jump, the row before it on the axis, its index in finite)
    for k, (i, t) in enumerate(finite):
        u = t + offset
        if prev is None:
            out[i] = prev = u
            run = 1
            continue
        jump = u - prev
        back = jump < -step
        if back or jump > MAX_SPAN_S:
            if run >= MIN_SEGMENT and _new_clock(finite, k, prev - offset if back else None, step):
                steps.append((jump, prev, k))
                offset = prev + step - t
                out[i] = prev = t + offset
                run = 1
                continue
            out[i] = u  # a stray row (a garbled or reordered stamp): the readers drop it, as before
            continue
        out[i] = u
        prev = max(prev, u)
        run += 1
    if not steps:
        return []
    notes: list[str] = []
    ends = [k for _, _, k in steps[1:]] + [len(finite)]
    first_t = finite[0][1]
    for (jump, before, k), end in zip(steps[:NOTED_STEPS], ends, strict=False):
        kind = (
            "stepped back"
            if jump < 0
            else "leapt forward (a board without a real-time clock, set by the network after boot)"
        )
        where = ""
        if lines is not None:  # the file's lines of the rows shifted, first to last
            where = f"lines {lines[finite[k][0]]}-{lines[finite[end - 1][0]]}: "
        notes.append(
            f"{where}clock {kind} by {_span(jump)} {before - first_t:g} s into the log (an NTP step, a clock set "
            f"at boot, or a logger restarted into the same file): the {end - k} {what}(s) after it shifted "
            f"to follow one interval ({step:g} s) after the {what} before; the real gap is not in the log"
        )
    if len(steps) > NOTED_STEPS:
        rest = steps[NOTED_STEPS:]
        notes.append(f"clock stepped {len(rest)} more time(s): mended the same way")
    return notes
