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

from dataclasses import replace

from thermogov.importers.common import MAX_SPAN_S, ImportedLog, ImportedSample, plausible_times
from thermogov.importers.quantities import RangeCheck


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


def _timed(samples: tuple[ImportedSample, ...]) -> tuple[list[ImportedSample], int]:
    """(samples whose time is finite and within ``MAX_SPAN_S`` of the median time, dropped)."""
    axis = plausible_times([s.t_s for s in samples])
    kept = [s for s, t in zip(samples, axis, strict=True) if t is not None]
    return kept, len(samples) - len(kept)


def checked(log: ImportedLog) -> ImportedLog:
    """``log`` with every out-of-range value removed and a note per quantity that lost values."""
    check = RangeCheck()
    kept: list[ImportedSample] = []
    emptied = 0
    timed, untimed = _timed(log.samples)
    for s in timed:
        new = _sample(s, check)
        if new is None:
            emptied += 1
        else:
            kept.append(new)
    if not check.dropped and not emptied and not untimed:
        return log
    notes = [*log.notes, *check.notes()]
    if untimed:
        notes.append(
            f"{untimed} row(s) with a time that is NaN, infinite or more than {MAX_SPAN_S / 86400:g} days "
            "from the log's median time skipped (garbled stamps)"
        )
    if emptied:
        notes.append(f"{emptied} row(s) with no value left in range skipped")
    if kept and kept[0].t_s != 0.0:
        t0 = kept[0].t_s
        kept = [replace(s, t_s=round(s.t_s - t0, 6)) for s in kept]
    return replace(
        log, samples=tuple(kept), skipped_lines=log.skipped_lines + emptied + untimed, notes=tuple(notes)
    )
