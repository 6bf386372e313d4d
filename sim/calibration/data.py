"""The logged run as the calibration sees it: sample times, temperatures, clocks, loads, power.

Kept apart from the model so that every later stage works on plain arrays (NaN where a value is
missing) and never on a file format: the importers already map each dialect onto the trace
columns, and this module only reads those columns back.
"""

from __future__ import annotations

import dataclasses
import json
import math
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from thermogov.importers.runfolder import VOLT_SUFFIX
from thermogov.interfaces import LogFormatError

MAX_SAMPLES = 4000  # longer logs are block-averaged first: same information, tenfold faster


@dataclass(frozen=True)
class LogData:
    """Inputs and outputs of one log on its own sample times (NaN where a value is missing)."""

    t_s: np.ndarray
    temps_c: dict[str, np.ndarray]
    freq_hz: dict[str, np.ndarray]
    load: dict[str, np.ndarray]
    power_w: np.ndarray | None
    source: str
    model: str = ""  # the product the log names (sbc-bench title), for a housing it implies
    setup: str = ""  # the user's name for the run's setup (stressberry's ``name``), for a housing it says
    fan_rpm: tuple[float, ...] = ()  # fan tachometer readings the log reports: a fan housing's evidence
    fan_evidence: str = ""  # hardware evidence that the board has a fan, "" when the log shows none
    fan_switch_c: tuple[float, float] | None = None  # a one-step fan's declared switch-on °C and hysteresis
    # The hardware-monitor chips the log lists before its run (``ImportedLog.sensor_chips``; no fan chip: no fan)
    sensor_chips: tuple[str, ...] = ()
    uptime_s: float | None = None  # seconds since boot at the log's start, when the log says
    load_average: tuple[float, float, float] | None = None  # the kernel's 1/5/15-min load averages then
    load_starts_at_gaps: bool = False  # a row without a load is where the next row's load began
    # The Pi firmware's clock/voltage settings the log prints (``ImportedLog.firmware``), else empty
    firmware: Mapping[str, int] = dataclasses.field(default_factory=dict)
    # The core voltage the log records per domain, V (NaN where a row has none); empty without one
    volt_v: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    # The benchmarks the log names, in order: (name, start s on ``t_s``) (``ImportedLog.phases``)
    phases: tuple[tuple[str, float], ...] = ()


def _column(cols: Mapping[str, Sequence[Any]], name: str) -> np.ndarray:
    return np.array([v if isinstance(v, int | float) else np.nan for v in cols[name]], dtype=float)


def log_data_from_columns(cols: Mapping[str, Sequence[Any]], source: str) -> LogData:
    """From trace columns (``load_trace``): ``<s>_c``, ``<d>_freq_hz``, ``<d>_load``, ``<d>_volt_v``, ``power_w``."""
    if "t_s" not in cols:
        raise LogFormatError(f"{source}: not a thermogov trace (no t_s column)")
    t = _column(cols, "t_s")
    temps = {c[:-2]: _column(cols, c) for c in cols if c.endswith("_c") and c != "fused_c"}
    freqs = {c[: -len("_freq_hz")]: _column(cols, c) for c in cols if c.endswith("_freq_hz")}
    loads = {c[: -len("_load")]: _column(cols, c) for c in cols if c.endswith("_load")}
    volts = {c[: -len(VOLT_SUFFIX)]: _column(cols, c) for c in cols if c.endswith(VOLT_SUFFIX)}
    power = _column(cols, "power_w") if "power_w" in cols else None
    if power is not None and not np.isfinite(power).any():
        power = None
    return LogData(t, temps, freqs, loads, power, source, volt_v=volts)


def decimate(data: LogData, max_samples: int = MAX_SAMPLES) -> LogData:
    """Block-average a long log down to at most ``max_samples`` rows.

    A 6-hour 1 Hz log has ~20 000 rows but only a few hundred independent ones (see
    :func:`thermogov.sim.calibration.fit.effective_samples`); averaging blocks of k rows also
    averages away the sensor's quantisation.  Utilisation and clock are averaged too, which keeps
    the mean power of a block.  A block's values are means over the block, so its time is the
    mean of its sample times (not the first one): stamping them at the block's start would put
    every input and reading half a block early.
    """
    n = len(data.t_s)
    k = math.ceil(n / max_samples)
    if k <= 1:
        return data
    m = n // k

    def blocks(a: np.ndarray) -> np.ndarray:
        with warnings.catch_warnings():  # an all-NaN block stays NaN, which is what we want
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmean(a[: m * k].reshape(m, k), axis=1)

    return dataclasses.replace(
        data,
        t_s=data.t_s[: m * k].reshape(m, k).mean(axis=1),
        temps_c={s: blocks(v) for s, v in data.temps_c.items()},
        freq_hz={d: blocks(v) for d, v in data.freq_hz.items()},
        load={d: blocks(v) for d, v in data.load.items()},
        power_w=None if data.power_w is None else blocks(data.power_w),
        volt_v={d: blocks(v) for d, v in data.volt_v.items()},
    )


def load_log_data(path: Path | str) -> LogData:
    """A run folder or trace CSV; any other file is parsed as a raw board log (auto-detected)."""
    from thermogov.cliopts import not_a_file
    from thermogov.trace import TRACE_FILE, csv_columns, is_thermogov_csv, read_csv_columns

    p = Path(path)
    if p.is_dir():
        if not (p / TRACE_FILE).is_file():
            raise LogFormatError(f"{p}: no {TRACE_FILE} in this folder; pass a run folder (thermogov import)")
        data = log_data_from_columns(read_csv_columns(p / TRACE_FILE), str(p))
        return dataclasses.replace(data, **_run_model(p))
    if not p.is_file():
        why = not_a_file(p)  # a named pipe, a device, a link loop: said as such (session 23)
        if why:
            raise LogFormatError(f"{p}: {why}; pass a run folder or a log file")
        raise LogFormatError(f"{p}: no such run folder or log file; check the path")
    with p.open(encoding="utf-8", errors="replace") as fh:
        first = fh.readline()
    if first.split(",")[0].strip() == "t_s":
        return log_data_from_columns(read_csv_columns(p), str(p))
    from thermogov.importers import parse_log
    from thermogov.importers.common import read_log

    # A trace copied off a board gzip'd (or bzip2/xz, or a zip of one file) is still ours: read
    # its columns as they are.  The log importers do not map them (``<name>_c``, ``t_s``), and
    # the run it records needs no import.
    text, _notes = read_log(p)
    if is_thermogov_csv(text):
        return log_data_from_columns(csv_columns(text, p), str(p))
    from thermogov.importers.runfolder import write_run_folder

    log = parse_log(p)
    with tempfile.TemporaryDirectory() as tmp:  # the same column mapping as a real import
        run = write_run_folder(log, Path(tmp))
        data = log_data_from_columns(read_csv_columns(run.run_dir / TRACE_FILE), str(p))
    return dataclasses.replace(
        data,
        model=log.model,
        setup=log.setup,
        fan_rpm=log.fan_rpm,
        fan_evidence=log.fan_evidence,
        fan_switch_c=log.fan_switch_c,
        sensor_chips=log.sensor_chips,
        uptime_s=log.uptime_s,
        load_average=log.load_average,
        load_starts_at_gaps=log.load_starts_at_gaps,
        firmware=dict(log.firmware),
        phases=_split_tinymembench(log.phases, text, data),
    )


def _split_tinymembench(
    phases: tuple[tuple[str, float], ...], text: str, data: LogData
) -> tuple[tuple[str, float], ...]:
    """sbc-bench's tinymembench section as its two loads (``membench.split_phases``), at the CPU's
    median logged clock over the section."""
    from thermogov.sim.calibration.membench import section_clock_hz, split_phases

    return split_phases(
        phases, text.splitlines(), section_clock_hz(phases, data.t_s, data.freq_hz.get("cpu"))
    )


def _numbers(v: object) -> tuple[float, ...] | None:
    ok = isinstance(v, list) and all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)
    return tuple(float(x) for x in v) if ok and isinstance(v, list) else None


def _run_model(run_dir: Path) -> dict[str, Any]:
    """What an imported run folder's log says of the board beyond its samples (``summary.json``):
    the product it names, the fan speeds it reports, its uptime and load averages before the run,
    whether a row without a load marks where a new load began, and the firmware's clock/voltage settings."""
    from thermogov.runs import SUMMARY_FILE

    path = run_dir / SUMMARY_FILE
    if not path.is_file():  # a named pipe there would block the read forever
        return {}
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(summary, dict):
        return {}
    model = summary.get("model")
    uptime = summary.get("uptime_s")
    avg = _numbers(summary.get("load_average"))
    return {
        "model": model if isinstance(model, str) else "",
        "setup": setup if isinstance(setup := summary.get("setup"), str) else "",
        "fan_rpm": _numbers(summary.get("fan_rpm")) or (),
        "fan_evidence": evidence if isinstance(evidence := summary.get("fan_evidence"), str) else "",
        "fan_switch_c": (switch[0], switch[1])
        if (switch := _numbers(summary.get("fan_switch_c"))) is not None and len(switch) == 2
        else None,
        "sensor_chips": tuple(c for c in chips if isinstance(c, str))
        if isinstance(chips := summary.get("sensor_chips"), list)
        else (),
        "uptime_s": float(uptime)
        if isinstance(uptime, int | float) and not isinstance(uptime, bool)
        else None,
        "load_average": (avg[0], avg[1], avg[2]) if avg is not None and len(avg) == 3 else None,
        "load_starts_at_gaps": summary.get("load_starts_at_gaps") is True,
        "firmware": _settings(summary.get("firmware")),
        "phases": _phases(summary.get("phases")),
    }


def _phases(v: object) -> tuple[tuple[str, float], ...]:
    """A summary's ``phases`` list of ``[name, start s]``; anything malformed is no phase list."""
    if not isinstance(v, list):
        return ()
    out: list[tuple[str, float]] = []
    for item in v:
        ok = isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)
        if not ok or not isinstance(item[1], int | float) or isinstance(item[1], bool):
            return ()
        out.append((item[0], float(item[1])))
    return tuple(out)


def _settings(v: object) -> dict[str, int]:
    """A summary's ``firmware`` object: name -> integer; anything else is ignored."""
    if not isinstance(v, dict):
        return {}
    return {
        k: x for k, x in v.items() if isinstance(k, str) and isinstance(x, int) and not isinstance(x, bool)
    }


def ffill(a: np.ndarray) -> np.ndarray:
    """Hold the last known value over gaps (and the first known one before it)."""
    out = a.copy()
    ok = np.isfinite(out)
    if not ok.any():
        return out
    idx = np.where(ok, np.arange(len(out)), 0)
    np.maximum.accumulate(idx, out=idx)
    out = out[idx]
    first = int(np.argmax(ok))
    out[:first] = a[first]
    return out
