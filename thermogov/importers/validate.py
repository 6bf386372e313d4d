"""The last step of every import: each stored value inside its plausible range, or dropped and said.

Format parsers know their dialect's units; this pass makes sure that whatever they produced
(a misparsed column, a sensor's error code such as 0xFFFF, NaN, a 2000 °C "temperature") never
reaches a run folder unannounced.  Rows left with no measurement at all are dropped and counted
as skipped lines.  Time is checked too: a row whose time is NaN or infinite (``- inf`` in a
stressberry list, ``1e400`` in a table) or lies more than ``MAX_SPAN_S`` from the log's median
time (a garbled stamp: ``1e300``, a year's digits lost) is dropped and counted, so a run
folder's duration is the logger's, never 10^300 s.
"""

from __future__ import annotations

from array import array
from dataclasses import replace

import numpy as np

from thermogov.importers.common import MAX_SPAN_S, ImportedLog, ImportedSample, as_floats, plausible_times
from thermogov.importers.quantities import RangeCheck
from thermogov.importers.samplestore import ColumnBuilder, SampleColumns, columnar


def _sample(s: ImportedSample, check: RangeCheck) -> ImportedSample | None:
    temps = {k: v for k, v in s.temps_c.items() if check.keep("temp", k, v)}
    freqs = {k: v for k, v in s.freqs_hz.items() if check.keep("freq", k, float(v))}
    loads = {k: v for k, v in s.loads.items() if check.keep("load", k, v)}
    power = s.power_w if s.power_w is None or check.keep("power", "board", s.power_w) else None
    rails = {k: v for k, v in s.rails_w.items() if check.keep("power", k, v)}
    if not (temps or freqs or loads or power is not None):
        return None
    if (len(temps), len(freqs), len(loads), len(rails), power) == (
        len(s.temps_c),
        len(s.freqs_hz),
        len(s.loads),
        len(s.rails_w),
        s.power_w,
    ):
        return s  # nothing dropped: a copy would double the samples' memory at the peak of a big log
    return replace(s, temps_c=temps, freqs_hz=freqs, loads=loads, power_w=power, rails_w=rails)


def _pass(
    store: SampleColumns, axis: array, check: RangeCheck, out: ColumnBuilder | None
) -> tuple[int, bool, list[float]]:
    """(rows emptied, whether any row changed, kept rows' times), each row checked in turn and
    appended to ``out`` when given."""
    emptied = 0
    changed = False
    kept_t: list[float] = []
    for s, t in zip(store, axis, strict=True):
        if t != t:  # NaN: a garbled time
            continue
        new = _sample(s, check)
        if new is None:
            emptied += 1
            continue
        changed = changed or new is not s
        if out is not None:
            out.append_sample(new)
            kept_t.append(new.t_s)
    return emptied, changed, kept_t


def checked(log: ImportedLog) -> ImportedLog:
    """``log`` with every out-of-range value removed and a note per quantity that lost values.

    The samples come back as columns (:class:`SampleColumns`) whatever the reader gave.  A first
    pass only checks; a new store is built, row by row, only when something was dropped, so a
    clean big log is never held twice.
    """
    store = columnar(log.samples)
    # the times as array('d') (8 B a row; a list of floats held 32 beside the store, session 28n)
    axis = array("d")
    axis.frombytes(np.ascontiguousarray(store.times, dtype=np.float64).data.cast("B"))
    axis = plausible_times(axis)
    untimed = int(np.count_nonzero(np.isnan(as_floats(axis))))
    emptied, changed, _ = _pass(store, axis, RangeCheck(), None)
    if not changed and not emptied and not untimed:
        return log if store is log.samples else replace(log, samples=store)
    check = RangeCheck()
    kept = ColumnBuilder()
    emptied, _, kept_t = _pass(store, axis, check, kept)
    notes = [*log.notes, *check.notes()]
    if untimed:
        notes.append(
            f"{untimed} row(s) with a time that is NaN, infinite or more than {MAX_SPAN_S / 86400:g} days "
            "from the log's median time skipped (garbled stamps)"
        )
    if emptied:
        notes.append(f"{emptied} row(s) with no value left in range skipped")
    if kept_t and kept_t[0] != 0.0:
        t0 = kept_t[0]
        kept_t = [round(t - t0, 6) for t in kept_t]
    samples: SampleColumns = kept.finish(kept_t)
    return replace(
        log, samples=samples, skipped_lines=log.skipped_lines + emptied + untimed, notes=tuple(notes)
    )
