"""What drives the model: per-domain load, clock and voltage at each sample, and which sensor is which node.

Most real logs lack some input (the Raspberry Pi logs have no power, stressberry has no load,
stressberry 0.1 not even a clock).  The missing ones are inferred here, each inference is
returned as a note for the user, and the rest of the calibration never has to know which log
format it came from.

Every value describes the board *at its sample instant*; a change between two samples happened
somewhere in between.  The step inferred from the temperature is therefore placed at the midpoint
of the two samples that straddle it, and :mod:`thermogov.sim.calibration.model` interpolates the
power between samples for the same reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from thermogov.board import BoardProfile
from thermogov.interfaces import ConfigError, LogFormatError
from thermogov.sim.calibration.activity import factor_per_row
from thermogov.sim.calibration.data import LogData, ffill
from thermogov.sim.calibration.overvolt import firmware_voltage

STEP_MIN_RISE_K = 2.0  # a smaller rise within the window is not called a load step
STEP_MIN_FALL_K = 1.5
BUSY_FRACTION = 0.25  # busy while the clock is above its minimum + this fraction of its range
# sbc-bench starts each section's monitor in the background and its benchmark at once in the same
# shell, without waiting (sbc-bench.sh, ``Run7ZipBenchmark``: ``/bin/bash "${PathToMe}" -m N
# >>${MonitorLog} &`` and then ``"${SevenZip}" b ...``; ThomasKaiser/sbc-bench).  The monitor is a
# fresh bash running the whole script (~80 kB) again, which prints its first line only after its
# own start-up, so the benchmark's load begins that start-up before the line.  1 s is an estimate,
# not a measured figure; docs/calibration.md, *Thirteenth session: the sbc-bench misses*, measured
# 0.5, 1 and 1.5 s alike and 2 s worse.
MONITOR_START_S = 1.0


@dataclass(frozen=True)
class Inputs:
    """Per-domain utilisation, clock and voltage at each sample, plus how they were obtained."""

    load: dict[str, np.ndarray]
    freq_hz: dict[str, np.ndarray]
    volt_v: dict[str, np.ndarray]
    varying: tuple[str, ...]  # domains whose dynamic power changes during the log
    notes: tuple[str, ...]
    clocked: tuple[str, ...] = ()  # domains whose clock the log shows (a board throttle is in it)
    # Per domain, the rows at which a new load began (the log's gaps, ``LogData.load_starts_at_gaps``):
    # over the interval after such a row the next row's load holds (model.GridInputs).
    load_starts: dict[str, np.ndarray] = field(default_factory=dict)
    # The rows' times, kept where ``load_starts`` is: a start row's load began up to the monitor's
    # start-up before it (:data:`MONITOR_START_S`), which the grid places in seconds, not rows.
    row_t_s: np.ndarray | None = None
    # Per domain, the utilisation as the log shows it, before a workload's activity factor
    # (``DomainProfile.workload_activity``) weighed it; only where a factor applied.  What the log
    # shows changing is what a fit can learn a gain from (checks.load_changes_in_training).
    logged_load: dict[str, np.ndarray] = field(default_factory=dict)

    def logged_proxy(self, domain: str) -> np.ndarray:
        """``u · V² · f`` with the utilisation the log shows (no activity factor)."""
        u = self.logged_load.get(domain, self.load[domain])
        return u * self.volt_v[domain] ** 2 * self.freq_hz[domain]


def infer_step(t: np.ndarray, temp: np.ndarray, window_s: float = 10.0) -> tuple[float, float] | None:
    """Start and end of a load step seen in a temperature trace, or None if there is none.

    A load step on a board shows as the steepest rise of the fast (package) mode within a few
    seconds, and its end as the steepest fall; a drift of the slow mode is far too slow to be
    mistaken for either.  A rise under 2 K is not called a step.  Each edge is returned as the
    midpoint of the two samples between which the temperature jumped most: the load changed
    somewhere in that interval, and its midpoint is the unbiased estimate.
    """
    temp = ffill(temp)
    j = np.searchsorted(t, t + window_s)
    j = np.minimum(j, len(t) - 1)
    delta = temp[j] - temp
    k_on = int(np.argmax(delta))
    if delta[k_on] < STEP_MIN_RISE_K:
        return None
    after = delta.copy()
    after[: j[k_on] + 1] = 0.0
    k_off = int(np.argmin(after))
    has_off = after[k_off] <= -STEP_MIN_FALL_K

    def edge(k: int, sign: float) -> float:
        if j[k] <= k:
            return float(t[k])
        i = k + int(np.argmax(sign * np.diff(temp[k : j[k] + 1])))
        return 0.5 * float(t[i] + t[i + 1])

    on = edge(k_on, 1.0)
    off = edge(k_off, -1.0) if has_off else float(t[-1]) + 1.0
    return on, off


def logged_voltage_note(logged: np.ndarray, used: np.ndarray) -> str:
    """The core voltage the log records beside the one the model uses, for the user to compare.

    The logged voltage (sbc-bench's VCore) is what the regulator delivered, AVS offset and
    overvolting included; feeding it into the fit instead of the OPP table / firmware rule made
    the held-out error worse on as many logs as it helped (docs/calibration.md, "the logged core
    voltage"), so it is reported, not used.
    """
    ok = np.isfinite(logged)
    return (
        f"the log records a core voltage of {np.nanmin(logged):.3f}-{np.nanmax(logged):.3f} V "
        f"({int(ok.sum())} of {len(logged)} rows); the model uses {np.nanmin(used):.3f}-{np.nanmax(used):.3f} V "
        "from the OPP table and the firmware's settings"
    )


def derive_inputs(data: LogData, board: BoardProfile) -> Inputs:
    """The power model's inputs per profile domain, inferring what the log does not have."""
    notes: list[str] = []
    n = len(data.t_s)
    loads: dict[str, np.ndarray] = {}
    freqs: dict[str, np.ndarray] = {}
    volts: dict[str, np.ndarray] = {}
    clocked: list[str] = []
    load_starts: dict[str, np.ndarray] = {}
    logged_loads: dict[str, np.ndarray] = {}
    any_load = any(np.isfinite(data.load.get(d.name, np.array([np.nan]))).any() for d in board.domains)
    for i, d in enumerate(board.domains):
        f = data.freq_hz.get(d.name)
        if f is None or not np.isfinite(f).any():
            f = np.full(n, float(d.opp_hz[-1]))
            notes.append(f"{d.name}: no clock in the log; the top OPP {d.opp_hz[-1] / 1e6:g} MHz is assumed")
        else:
            f = ffill(f)
            clocked.append(d.name)
        u = data.load.get(d.name)
        if u is not None and np.isfinite(u).any():
            if data.load_starts_at_gaps and not np.isfinite(u).all():
                load_starts[d.name] = ~np.isfinite(u)
            u = np.clip(ffill(u), 0.0, 1.0)
        elif np.nanmax(f) > np.nanmin(f) * 1.05:
            lo, hi = float(np.nanmin(f)), float(np.nanmax(f))
            u = (f > lo + BUSY_FRACTION * (hi - lo)).astype(float)
            notes.append(
                f"{d.name}: no load in the log; busy (u=1) while the clock is above {lo / 1e6:.0f} MHz + 25 % "
                "of its range (an on-demand governor raises it only under load)"
            )
        elif not any_load and i == 0:
            temp = primary_temperature(data, board)
            step = infer_step(data.t_s, temp)
            if step is None:
                raise LogFormatError(
                    f"{data.source}: no load, no clock changes and no load step in the temperature; "
                    "nothing drives the model, so it cannot be calibrated from this log"
                )
            on, off = step
            u = ((data.t_s >= on) & (data.t_s < off)).astype(float)
            notes.append(
                f"{d.name}: no load or clock in the log; a load step (u=1) is inferred from the temperature "
                f"from {on:g} s to {off:g} s"
            )
        else:
            u = np.zeros(n)
            notes.append(f"{d.name}: no load in the log; taken as idle")
        hz = np.asarray(d.opp_hz, dtype=float)
        activity = factor_per_row(data.t_s, data.phases, dict(d.workload_activity))
        if activity is not None:  # the benchmark the log names heats a busy core more or less
            logged_loads[d.name] = u
            u = u * activity
            named = ", ".join(f"{k} x{v:g}" for k, v in d.workload_activity)
            notes.append(
                f"{d.name}: load weighed by the workload's activity in the phases the log names ({named})"
            )
        loads[d.name], freqs[d.name] = u, f
        firmware = data.firmware if d.kind == "cpufreq" else {}  # config.txt's settings are the Arm cores'
        volts[d.name], fw_notes = firmware_voltage(
            f, hz, np.asarray(d.volt_v), firmware, float(d.stock_clock_hz)
        )
        notes.extend(f"{d.name}: {n}" for n in fw_notes)
        logged = data.volt_v.get(d.name)
        if logged is not None and np.isfinite(logged).any():
            notes.append(f"{d.name}: {logged_voltage_note(logged, volts[d.name])}")
        if not fw_notes and (np.nanmax(f) > hz[-1] * 1.001 or np.nanmin(f) < hz[0] * 0.999):
            notes.append(
                f"{d.name}: logged clock {np.nanmin(f) / 1e6:.0f}-{np.nanmax(f) / 1e6:.0f} MHz leaves the OPP table; "
                "voltage held at the table's end"
            )
    varying = tuple(
        d.name for d in board.domains if np.ptp(loads[d.name] * volts[d.name] ** 2 * freqs[d.name]) > 0
    )
    if any(p.kind == "throttle" and any(x not in clocked for x in p.domains) for p in board.protections):
        notes.append(
            "the board's own throttling (profile [[protections]]) is modelled from the model's temperature "
            "for the domains whose clock the log lacks"
        )
    if load_starts:
        n_starts = int(sum(s.sum() for s in load_starts.values()))
        notes.append(
            f"{', '.join(load_starts)}: the log marks {n_starts} row(s) where a new load began (sbc-bench: the "
            f"first line of a benchmark section); the next row's load holds from there, and from "
            f"{MONITOR_START_S:g} s before it (the monitor's start-up, MONITOR_START_S)"
        )
    row_t = np.asarray(data.t_s, dtype=float) if load_starts else None
    return Inputs(
        loads, freqs, volts, varying, tuple(notes), tuple(clocked), load_starts, row_t, logged_loads
    )


def sensor_nodes(data: LogData, board: BoardProfile) -> dict[str, str]:
    """Log sensor -> thermal node, by the profile's sensor names (or its sysfs zone names)."""
    from thermogov.importers.aliases import sensor_map

    logged = [k for k, v in data.temps_c.items() if np.isfinite(v).any()]
    node = {s.name: s.node for s in board.sensors}
    out = {log: node[prof] for log, prof in sensor_map(logged, board).items()}
    if not out:
        logged = [k for k, v in data.temps_c.items() if np.isfinite(v).any() and k != "ambient"]
        if len(logged) == 1 and len(board.sensors) == 1:
            return {logged[0]: board.sensors[0].node}
        raise ConfigError(
            f"{data.source}: none of the log's sensors ({', '.join(sorted(data.temps_c)) or 'none'}) is a sensor "
            f"of board {board.name} ({', '.join(s.name for s in board.sensors)}); choose the matching --board"
        )
    return out


def primary_temperature(data: LogData, board: BoardProfile) -> np.ndarray:
    """The first matched sensor's trace: the one the RMSE is reported for."""
    return data.temps_c[next(iter(sensor_nodes(data, board)))]
