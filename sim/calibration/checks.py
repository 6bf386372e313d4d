"""What a log must hold before a thermal model can be fitted to it, said as the log's fault.

A fit on a degenerate log used to end in a numerical traceback (``Residuals are not finite in
the initial point``).  Every condition the fit relies on is checked here first and refused with
a :class:`~thermogov.interfaces.LogFormatError` that names the cause, so ``thermogov calibrate``
exits 2 with one line.  What can be repaired without guessing is repaired and said in a note:
non-finite values become gaps, rows that share a timestamp are merged.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from thermogov.interfaces import LogFormatError
from thermogov.sim.calibration.data import LogData

if TYPE_CHECKING:
    from thermogov.sim.calibration.fit import FitProblem

MIN_SAMPLES = 10  # distinct sample times in a log
MIN_TRAIN_READINGS = 3  # readings of each matched sensor the fit sees (sbc-bench logs are sparse)
TEMP_RANGE_C = (-40.0, 150.0)  # a board sensor outside this is a unit or column error
MIN_TEMP_SPAN_C = 0.2  # a temperature that never moves more than this carries no dynamics
MAX_UNCOVERED_SHARE = 0.1  # an input column that starts later than this share of the rows: fit after it


def _finite(a: np.ndarray) -> np.ndarray:
    out = np.asarray(a, dtype=float).copy()
    out[~np.isfinite(out)] = np.nan
    return out


def checked_log(data: LogData) -> tuple[LogData, list[str]]:
    """The log with gaps for non-finite values and one row per timestamp, plus notes; or refused."""
    notes: list[str] = []
    t = np.asarray(data.t_s, dtype=float)
    keep = np.isfinite(t)
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} rows without a finite time dropped")
    order = np.argsort(t[keep], kind="stable")
    rows = np.flatnonzero(keep)[order]
    t = t[rows]

    def take(a: np.ndarray) -> np.ndarray:
        return _finite(np.asarray(a)[rows])

    temps = {k: take(v) for k, v in data.temps_c.items()}
    freq = {k: take(v) for k, v in data.freq_hz.items()}
    load = {k: take(v) for k, v in data.load.items()}
    power = None if data.power_w is None else take(data.power_w)
    volt = {k: take(v) for k, v in data.volt_v.items()}
    cover = _covered_from(load, freq, power)
    covered = ""
    if cover is not None and cover[1] > MAX_UNCOVERED_SHARE * len(t):
        column, start = cover
        covered = f"the {column} column covers only the last {len(t) - start} of {len(t)} rows"
        notes.append(
            f"{covered} (from {t[start] - t[0]:.0f} s on): the fit uses those rows only; before them the "
            "input is unknown, and holding its first value back over the rest would be a guess"
        )
        t = t[start:]
        temps, freq, load, volt = ({k: v[start:] for k, v in d.items()} for d in (temps, freq, load, volt))
        power = None if power is None else power[start:]
    uniq, first, counts = np.unique(t, return_index=True, return_counts=True)
    if len(uniq) < MIN_SAMPLES:
        shared = int(counts.max()) if len(counts) else 0
        raise LogFormatError(
            f"{data.source}: {covered + ', and those ' if covered else ''}{len(t)} rows have {len(uniq)} distinct "
            f"timestamps{f' ({shared} rows share one)' if shared > 1 else ''}, too few to calibrate from "
            f"(at least {MIN_SAMPLES}); {'log the input from the start, or ' if covered else 'log longer, or '}"
            "give each row its own time"
        )
    if (counts > 1).any():
        notes.append(
            f"{int(counts[counts > 1].sum())} rows share {int((counts > 1).sum())} timestamp(s); each group is merged "
            f"into its mean ({len(t)} -> {len(uniq)} rows): the log does not say when within its second each was taken"
        )

        def merge(a: np.ndarray) -> np.ndarray:
            sums = np.add.reduceat(np.where(np.isfinite(a), a, 0.0), first)
            n = np.add.reduceat(np.isfinite(a).astype(float), first)
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(n > 0, sums / np.maximum(n, 1), np.nan)

        temps = {k: merge(v) for k, v in temps.items()}
        freq = {k: merge(v) for k, v in freq.items()}
        load = {k: merge(v) for k, v in load.items()}
        volt = {k: merge(v) for k, v in volt.items()}
        power = None if power is None else merge(power)
        t = uniq
    if not any(np.isfinite(v).any() for v in temps.values()):
        raise LogFormatError(
            f"{data.source}: no temperature column holds a finite reading "
            f"({', '.join(sorted(temps)) or 'no temperature columns'}); check the log, or map its columns "
            "with `thermogov import --columns`"
        )
    lo, hi = TEMP_RANGE_C
    for name, v in temps.items():
        bad = np.isfinite(v) & ((v < lo) | (v > hi))
        if bad.any():
            raise LogFormatError(
                f"{data.source}: sensor {name} reads {np.nanmax(np.abs(v)):g} °C, outside {lo:g}..{hi:g} °C "
                "(a m°C column or a misread column?); re-import with `thermogov import --columns`"
            )
    for name, v in freq.items():
        if np.isfinite(v).any() and (np.nanmin(v) <= 0 or np.nanmax(v) > 1e11):
            raise LogFormatError(
                f"{data.source}: clock {name} ranges {np.nanmin(v):g}..{np.nanmax(v):g} Hz, not a CPU/GPU clock; "
                "check the clock column's unit"
            )
    if power is not None and not np.isfinite(power).any():
        power = None
    if power is not None and (np.nanmin(power) < 0 or np.nanmax(power) > 1e4):
        raise LogFormatError(
            f"{data.source}: power ranges {np.nanmin(power):g}..{np.nanmax(power):g} W; check the power column's unit"
        )
    return dataclasses.replace(
        data, t_s=t, temps_c=temps, freq_hz=freq, load=load, power_w=power, volt_v=volt
    ), notes


def _covered_from(
    load: dict[str, np.ndarray], freq: dict[str, np.ndarray], power: np.ndarray | None
) -> tuple[str, int] | None:
    """The logged input column that starts last and its first row; None when the log has no input column.

    A logger extended mid-run (a load column added to a temperature-only CSV) leaves the earlier
    rows without that input; the fit's input inference would hold the first value back over all
    of them (:func:`~thermogov.sim.calibration.data.ffill`), which is harmless for one dropped
    row (sbc-bench's first ``%cpu`` per section) and a guess over days."""
    cols = {**{f"load {k}": v for k, v in load.items()}, **{f"clock {k}": v for k, v in freq.items()}}
    if power is not None:
        cols["power"] = power
    starts = {k: int(np.argmax(np.isfinite(v))) for k, v in cols.items() if np.isfinite(v).any()}
    if not starts:
        return None
    column = max(starts, key=lambda k: starts[k])
    return column, starts[column]


def load_changes_in_training(prob: FitProblem) -> bool:
    """Whether any domain's load or clock moves, as the log shows them, in the part the fit sees.

    A workload's activity factor (``DomainProfile.workload_activity``) is the profile's assumption
    about a phase the log names, not a change the log shows: a factor that steps inside one
    benchmark section (tinymembench's stall part) at constant logged utilisation and clock gives
    the fit no load step to learn a time constant or a gain from, so it does not turn a levels-only
    fit into a gains fit (docs/calibration.md, *Session 33f*)."""
    inp = prob.inputs
    return any(np.ptp(inp.logged_proxy(d)[prob.train]) > 0 for d in inp.load)


def check_training_part(prob: FitProblem, levels_only: bool = False) -> None:
    """The matched sensors must read often enough, and move, in the part the fit sees.

    ``levels_only``: the caller fits only the idle level (no time constant), so a training part
    without a load change is accepted as long as the log's inputs change later."""
    for name in prob.sensors:
        obs = prob.data.temps_c[name]
        seen = np.isfinite(obs) & prob.train
        if seen.sum() < MIN_TRAIN_READINGS:
            raise LogFormatError(
                f"{prob.data.source}: sensor {name} has {int(seen.sum())} readings in the training part "
                f"(at least {MIN_TRAIN_READINGS}); use a smaller --holdout or a longer log"
            )
    inp = prob.inputs
    if not load_changes_in_training(prob) and not (levels_only and inp.varying):
        raise LogFormatError(
            f"{prob.data.source}: no load change in the part the fit sees (load and clock constant"
            f"{'' if inp.varying else ' throughout'}); nothing drives the model, so no time constant can be "
            "fitted; log a load step" + (" or use a smaller --holdout" if inp.varying else "")
        )
    first = next(iter(prob.sensors))
    obs = prob.data.temps_c[first]
    span = float(np.nanmax(obs) - np.nanmin(obs))
    if span < MIN_TEMP_SPAN_C:
        raise LogFormatError(
            f"{prob.data.source}: sensor {first} stays at {np.nanmean(obs):.1f} °C throughout (span {span:.2f} °C); "
            "a log without a temperature change carries no time constants to fit; log a load step"
        )
