"""An imported board log written as a thermogov run folder.

Simulated and real runs are compared, plotted and calibrated from the same record
(``trace.csv``, ``samples.csv``, ``summary.json`` and a ledger row), so an imported log is
turned into exactly that instead of getting loaders of its own.  What a third-party log cannot
say stays empty rather than invented: there was no governor (``policy_state`` and the
``*_cap_hz`` columns are empty), no inference counter (``inferences_total`` empty, sustained
throughput null).  Two kinds of information have no column in the governor's trace schema but
are needed to calibrate the simulator: utilisation per domain and the individual power rails.
They are appended after ``event`` as ``<domain>_load`` (0..1) and ``<rail>_rail_w`` (W);
neither suffix collides with the schema's ``_c``/``_cap_hz`` conventions, so
:meth:`thermogov.trace.TraceSchema.from_columns` sees the same sensors and domains.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thermogov.board import BoardProfile
from thermogov.episodes import EpisodeTracker
from thermogov.exitstatus import writing
from thermogov.importers.common import ImportedLog
from thermogov.importers.samplestore import columnar
from thermogov.runs import SUMMARY_FILE, append_ledger, unique_run_id, write_atomic
from thermogov.trace import SAMPLE_COLUMNS, SAMPLES_FILE, TRACE_FILE

BACKEND = "import"
# The spec's trip (the governor's default ``trip_c``): an imported log is judged against the limit
# a thermogov run on that board would hold, unless the caller names another.
DEFAULT_TRIP_C = 85.0
LOAD_SUFFIX = "_load"
RAIL_SUFFIX = "_rail_w"
VOLT_SUFFIX = "_volt_v"  # a domain's logged core voltage (sbc-bench's VCore), V


@dataclass(frozen=True, slots=True)
class ImportedRun:
    run_dir: Path
    summary: dict[str, Any]


def _name(raw: str) -> str:
    """Column-safe, lower-case name; a thermal zone called ``SOC2-therm`` becomes ``soc2_therm``."""
    return re.sub(r"[^a-z0-9]+", "_", raw.lower()).strip("_") or "x"


def _fmt(v: float | None, spec: str = "{:.3f}") -> str:
    return "" if v is None else spec.format(v)


def _fusion_weights(sensors: list[str], board: BoardProfile | None) -> dict[str, float]:
    """Weights that turn the log's sensors into ``fused_c``, or {} when no fusion is defined.

    With a board profile, its sensors that the log also has (by name, zone name or alias,
    :mod:`thermogov.importers.aliases`) are fused with the profile's weights (renormalised per row over those present, as the governor's fusion does).  A log
    with one sensor fuses to that sensor whatever its weight.  Several sensors and no profile:
    there is no defensible weighting, so ``fused_c`` stays empty.
    """
    if board is not None:
        from thermogov.importers.aliases import sensor_map

        profile = {s.name: s.weight for s in board.sensors}
        weights = {log: profile[prof] for log, prof in sensor_map(sensors, board).items()}
        if weights:
            return weights
    if len(sensors) == 1:
        return {sensors[0]: 1.0}
    return {}


def _run_id(out_dir: Path, board: str, source: str) -> str:
    label = f"{BACKEND}-{_name(board).replace('_', '-')}-{_name(Path(source).stem).replace('_', '-')}"
    return unique_run_id(out_dir, label)


def write_run_folder(
    log: ImportedLog,
    out_dir: Path | str,
    *,
    board: BoardProfile | None = None,
    run_id: str | None = None,
    trip_c: float = DEFAULT_TRIP_C,
) -> ImportedRun:
    """Write ``log`` as ``<out_dir>/<run_id>/`` plus a ledger row; returns the folder and summary.

    ``trip_c`` is the limit the log is judged against: time above it and its mitigation
    episodes are computed from ``fused_c`` as for a governed run (each row's value held until the
    next), so a board that ran without thermogov can be read against the limit thermogov keeps.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    board_name = board.name if board is not None else (log.board_hint or "unknown")
    rid = run_id or _run_id(out, board_name, log.source)
    run_dir = out / rid
    run_dir.mkdir(parents=False, exist_ok=False)

    samples = columnar(log.samples)  # the keys from the columns, each row built as it is written
    sensor_raw = samples.keys("temps_c")
    domain_raw = samples.keys("freqs_hz")
    load_raw = samples.keys("loads")
    rail_raw = samples.keys("rails_w")
    volt_raw = samples.keys("volts_v")
    sensors = [_name(k) for k in sensor_raw]
    weights = _fusion_weights(sensors, board)

    header = ["t_s", "fused_c", *(f"{s}_c" for s in sensors), "sensors_used", "policy_state"]
    for d in domain_raw:
        header += [f"{_name(d)}_cap_hz", f"{_name(d)}_freq_hz"]
    header += ["power_w", "inferences_total", "event"]
    header += [f"{_name(k)}{LOAD_SUFFIX}" for k in load_raw]
    header += [f"{_name(k)}{RAIL_SUFFIX}" for k in rail_raw]
    header += [f"{_name(k)}{VOLT_SUFFIX}" for k in volt_raw]

    max_sensor: dict[str, float | None] = dict.fromkeys(sensors)
    max_fused: float | None = None
    episodes = EpisodeTracker(trip_c)
    above_trip_s = 0.0
    last_fused: float | None = None
    prev_t = 0.0
    prev_power: float | None = None
    energy = 0.0
    energy_known = False
    with (
        writing(run_dir),
        (run_dir / TRACE_FILE).open("w", newline="", encoding="utf-8") as tf,
        (run_dir / SAMPLES_FILE).open("w", newline="", encoding="utf-8") as sf,
    ):
        tw = csv.writer(tf, lineterminator="\n")
        sw = csv.writer(sf, lineterminator="\n")
        tw.writerow(header)
        sw.writerow(SAMPLE_COLUMNS)
        for i, s in enumerate(samples):
            temps = {_name(k): v for k, v in s.temps_c.items()}
            num = den = 0.0
            used = []
            for name in sensors:
                v = temps.get(name)
                if v is None:
                    continue
                sw.writerow([f"{s.t_s:.3f}", name, f"{v:.3f}", "1"])
                cur = max_sensor[name]
                max_sensor[name] = v if cur is None else max(cur, v)
                if name in weights:
                    num += weights[name] * v
                    den += weights[name]
                    used.append(name)
            fused = num / den if den > 0 else None
            if fused is not None:
                max_fused = fused if max_fused is None else max(max_fused, fused)
            if i > 0 and last_fused is not None and last_fused >= trip_c:
                above_trip_s += s.t_s - prev_t
            last_fused = fused
            episodes.observe(s.t_s, fused)
            row = [f"{s.t_s:.3f}", _fmt(fused), *(_fmt(temps.get(n)) for n in sensors)]
            row += ["+".join(used), ""]
            for d in domain_raw:
                f = s.freqs_hz.get(d)
                row += ["", "" if f is None else str(f)]
            row += [_fmt(s.power_w, "{:.4f}"), "", ""]
            row += [_fmt(s.loads.get(k), "{:.4f}") for k in load_raw]
            row += [_fmt(s.rails_w.get(k), "{:.4f}") for k in rail_raw]
            row += [_fmt(s.volts_v.get(k), "{:.4f}") for k in volt_raw]
            tw.writerow(row)
            if i > 0 and prev_power is not None:
                energy += prev_power * (s.t_s - prev_t)
                energy_known = True
            prev_t, prev_power = s.t_s, s.power_w

    duration = log.duration_s
    t_end = samples[-1].t_s if samples else 0.0
    summary: dict[str, Any] = {
        "run_id": rid,
        "backend": BACKEND,
        "board": board_name,
        "policy": None,
        "seed": None,
        "duration_s": round(duration, 3),
        "steady_window_s": [round(t_end - duration / 2, 3), round(t_end, 3)],
        "sustained_throughput_ips": None,
        "mean_throughput_ips": None,
        "inferences_total": None,
        "latency_ms": None,
        "trip_c": trip_c,
        "max_fused_c": None if max_fused is None else round(max_fused, 4),
        "max_sensor_c": {k: None if v is None else round(v, 4) for k, v in max_sensor.items()},
        "time_above_trip_s": round(above_trip_s, 3) if max_fused is not None else None,
        "energy_j": round(energy, 4) if energy_known else None,
        "inferences_per_joule": None,
        "cap_changes": None,
        "ticks": len(samples),
        **(episodes.finish(t_end) if max_fused is not None else {}),
        "source": log.source,
        "format": log.fmt,
        "board_hint": log.board_hint,
        "model": log.model,
        "setup": log.setup,
        "fan_rpm": list(log.fan_rpm),
        "fan_evidence": log.fan_evidence,
        "fan_switch_c": None if log.fan_switch_c is None else list(log.fan_switch_c),
        "sensor_chips": list(log.sensor_chips),
        "uptime_s": log.uptime_s,
        "load_average": None if log.load_average is None else list(log.load_average),
        "load_starts_at_gaps": log.load_starts_at_gaps,
        "firmware": dict(log.firmware),
        "phases": [[name, t] for name, t in log.phases],
        "samples": len(samples),
        "skipped_lines": log.skipped_lines,
        "notes": list(log.notes),
        "fusion_weights": weights,
        "extra_columns": {
            "loads": [f"{_name(k)}{LOAD_SUFFIX}" for k in load_raw],
            "rails": [f"{_name(k)}{RAIL_SUFFIX}" for k in rail_raw],
        },
    }
    write_atomic(run_dir / SUMMARY_FILE, json.dumps(summary, indent=2) + "\n")
    append_ledger(out, summary, run_dir)
    return ImportedRun(run_dir, summary)
