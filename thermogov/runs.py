"""Run folders: every run, simulated or real, leaves the same record.

``<out>/<run_id>/`` holds ``trace.csv`` (one row per tick), ``samples.csv`` (one row per
sensor read), ``config.toml`` (the resolved configuration, enough to reproduce the run) and
``summary.json``; one row is appended to ``<out>/runs.csv``, the ledger of all runs.

The recorder streams: it keeps only running totals and a 1 Hz record of cumulative inferences
and energy, so a day-long daemon run costs well under a megabyte of memory while the summary's
sustained-throughput window can still be placed after the fact.
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
import unicodedata
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from thermogov.board import BoardProfile
from thermogov.config import Config
from thermogov.episodes import EpisodeTracker
from thermogov.exitstatus import writing
from thermogov.governor import SampleRecord, TickRecord
from thermogov.printable import printable
from thermogov.throttle import ThrottleTally
from thermogov.tomlwrite import dumps
from thermogov.trace import SAMPLES_FILE, TRACE_FILE, SampleWriter, TraceSchema, TraceWriter

SUMMARY_FILE = "summary.json"
CONFIG_FILE = "config.toml"
LEDGER_FILE = "runs.csv"
LEDGER_COLUMNS = (
    "run_id",
    "backend",
    "board",
    "policy",
    "seed",
    "duration_s",
    "sustained_throughput_ips",
    "mean_throughput_ips",
    "max_fused_c",
    "time_above_trip_s",
    "energy_j",
    "inferences_per_joule",
    "cap_changes",
    "run_dir",
)


def trip_of(config: Config, policy: str | None = None) -> float:
    """The trip temperature the run is judged against (the policy's own, else the spec's 85)."""
    name = (policy or config.policy).partition(":")[0]
    v = config.policies.get(name, {}).get("trip_c", 85.0)
    return float(v) if isinstance(v, int | float) else 85.0


def unique_run_id(out_dir: Path, label: str) -> str:
    """``<timestamp>-<label>``, suffixed ``-2``, ``-3`` … if a folder of that name exists."""
    base = f"{time.strftime('%Y%m%d-%H%M%S')}-{label}"
    run_id, n = base, 1
    while (out_dir / run_id).exists():
        n += 1
        run_id = f"{base}-{n}"
    return run_id


def new_run_id(out_dir: Path, backend: str, board: str, policy: str, seed: int) -> str:
    """The run folder's name.  A policy argument's digits in another script (``fixed:١٠٠٠``, which
    Python reads as 1000) are written as ASCII digits, so the folder names the cap a shell user
    can type and sort (session 32h found ``fixed-١٠٠٠``)."""
    ascii_digits = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in policy)
    safe_policy = ascii_digits.replace(":", "-").replace("/", "-")
    return unique_run_id(out_dir, f"{backend}-{board}-{safe_policy}-s{seed}")


@dataclass
class _Totals:
    first_t: float | None = None
    last_t: float = 0.0
    last_power: float | None = None
    energy_j: float = 0.0
    energy_known: bool = False
    max_fused: float = -math.inf
    above_trip_s: float = 0.0
    last_fused: float | None = None
    last_caps: tuple[int, ...] | None = None
    cap_changes: int = 0
    last_inferences: int | None = None
    ticks: int = 0
    fan_level: int | None = None
    fan_switches: int = 0
    fan_level_s: float = 0.0  # integral of the fan level over time (its mean, once divided)


class _Discard:
    """Stands in for the trace/sample writers once their files were dropped."""

    def tick(self, rec: TickRecord) -> None:
        pass

    def ticks(self, recs: Sequence[TickRecord]) -> None:
        pass

    def sample(self, rec: SampleRecord) -> None:
        pass

    def samples(self, recs: Sequence[SampleRecord]) -> None:
        pass

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


class RunRecorder:
    def __init__(
        self, run_dir: Path, config: Config, board: BoardProfile, backend: str, run_id: str, fan: bool = False
    ) -> None:
        self.run_dir = run_dir
        self.out_dir = run_dir.parent
        self.config = config
        self.board = board
        self.backend = backend
        self.run_id = run_id
        self.specs = config.sensor_specs(board)
        self.schema = TraceSchema(
            tuple(s.name for s in self.specs), tuple(d.name for d in board.domains), fan
        )
        self.trip_c = trip_of(config)
        self._trace: TraceWriter | _Discard = TraceWriter(run_dir / TRACE_FILE, self.schema)
        self._samples: SampleWriter | _Discard = SampleWriter(run_dir / SAMPLES_FILE)
        self._tot = _Totals()
        self._max_sensor: dict[str, float] = {}
        self._sec_t = array("d")
        self._sec_inf = array("d")
        self._sec_energy = array("d")
        self._next_sec = 0.0
        self._closed = False
        # Throttling that is not ours (tags in the event column) and mitigation episodes.
        self.throttle = ThrottleTally()
        self._episodes = EpisodeTracker(self.trip_c)

    @classmethod
    def create(
        cls,
        out_dir: Path,
        config: Config,
        board: BoardProfile,
        backend: str,
        run_id: str | None = None,
        *,
        fan: bool = False,
    ) -> RunRecorder:
        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        rid = run_id or new_run_id(out_dir, backend, board.name, config.policy, config.seed)
        run_dir = out_dir / rid
        run_dir.mkdir(parents=False, exist_ok=run_id is not None)
        with writing(run_dir / CONFIG_FILE):
            (run_dir / CONFIG_FILE).write_text(
                dumps(config.resolved(board).with_absolute_paths().to_dict()), encoding="utf-8"
            )
        return cls(run_dir, config, board, backend, rid, fan)

    def drop_files(self) -> None:
        """Stop writing trace and samples (their disk failed); totals and the summary go on."""
        for w in (self._trace, self._samples):
            if not isinstance(w, _Discard):
                w.abandon()
        self._trace = _Discard()
        self._samples = _Discard()

    def flush(self) -> None:
        """Hand the buffered trace and sample lines to the OS now (a caller that batches rows)."""
        self._trace.flush()
        self._samples.flush()

    # -- streaming --------------------------------------------------------------------------
    def on_sample(self, rec: SampleRecord) -> None:
        self._samples.sample(rec)
        v = rec.value_c
        if v is not None and rec.ok and v > self._max_sensor.get(rec.sensor, -math.inf):
            self._max_sensor[rec.sensor] = v

    def on_samples(self, recs: Sequence[SampleRecord]) -> None:
        """A block of samples in time order, as :meth:`on_sample` one by one would take them."""
        self._samples.samples(recs)
        best = self._max_sensor
        inf = -math.inf
        for _t, name, v, ok in recs:
            if v is not None and ok and v > best.get(name, inf):
                best[name] = v

    def on_tick(self, rec: TickRecord) -> None:
        self.on_ticks((rec,))

    def on_ticks(self, recs: Sequence[TickRecord]) -> None:
        """Rows in time order (one tick, or a block the simulator hands over).

        The totals are kept in locals over the block and stored back at its end: the same
        additions in the same order as one row at a time, without an attribute access each.
        """
        self._trace.ticks(recs)
        tot = self._tot
        trip_c, episodes, throttle = self.trip_c, self._episodes, self.throttle
        first_t, last_t, energy, energy_known = tot.first_t, tot.last_t, tot.energy_j, tot.energy_known
        above, fan_level, fan_s, switches = tot.above_trip_s, tot.fan_level, tot.fan_level_s, tot.fan_switches
        max_fused, last_caps, cap_changes = tot.max_fused, tot.last_caps, tot.cap_changes
        last_fused, last_inferences, next_sec = tot.last_fused, tot.last_inferences, self._next_sec
        for t, fused, _r, _u, _s, caps, _f, power, inferences, event, _m, _l, fan in recs:
            if first_t is None:
                first_t = next_sec = t
            else:
                dt = t - last_t
                # A row's power is the board's power over the interval that ends at that tick.
                if power is not None:
                    energy += power * dt
                    energy_known = True
                if last_fused is not None and last_fused >= trip_c:
                    above += dt
                if fan_level is not None:
                    fan_s += fan_level * dt
            if fan is not None:
                if fan_level is not None and fan != fan_level:
                    switches += 1
                fan_level = fan
            if fused is not None and fused > max_fused:
                max_fused = fused
            if last_caps is not None and caps != last_caps:
                cap_changes += 1
            last_caps = caps
            last_fused = fused
            episodes.observe(t, fused)
            if event:
                throttle.observe(t, event)
            last_t = t
            last_inferences = inferences
            if t >= next_sec - 1e-9:
                self._record_second(t, last_inferences, energy)
                next_sec = math.floor(t + 1e-9) + 1.0
        tot.first_t, tot.last_t, tot.energy_j, tot.energy_known = first_t, last_t, energy, energy_known
        tot.above_trip_s, tot.fan_level, tot.fan_level_s, tot.fan_switches = above, fan_level, fan_s, switches
        tot.max_fused, tot.last_caps, tot.cap_changes = max_fused, last_caps, cap_changes
        tot.last_fused, tot.last_inferences, self._next_sec = last_fused, last_inferences, next_sec
        if recs:
            tot.last_power = recs[-1].power_w
        tot.ticks += len(recs)

    def _record_second(self, t: float, inferences: int | None, energy_j: float) -> None:
        self._sec_t.append(t)
        self._sec_inf.append(float("nan") if inferences is None else float(inferences))
        self._sec_energy.append(energy_j)

    # -- closing ----------------------------------------------------------------------------
    def _sustained(self, fraction: float) -> tuple[float | None, float]:
        tot = self._tot
        if tot.first_t is None or tot.last_inferences is None or not self._sec_t:
            return None, 0.0
        end_t = tot.last_t
        want_start = end_t - fraction * (end_t - tot.first_t)
        idx = 0
        for i, t in enumerate(self._sec_t):
            if t <= want_start + 1e-9:
                idx = i
        start_t, start_inf = self._sec_t[idx], self._sec_inf[idx]
        if end_t <= start_t or math.isnan(start_inf):
            return None, start_t
        return (tot.last_inferences - start_inf) / (end_t - start_t), start_t

    def finish(
        self, latency_ms: dict[str, Any] | None = None, extra: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Close the files, write summary.json and the ledger row; returns the summary."""
        if self._closed:
            raise RuntimeError("run already finished")
        self._closed = True
        tot = self._tot
        if tot.first_t is not None and (not self._sec_t or self._sec_t[-1] != tot.last_t):
            self._record_second(tot.last_t, tot.last_inferences, tot.energy_j)
        self._trace.close()
        self._samples.close()
        duration = 0.0 if tot.first_t is None else tot.last_t - tot.first_t
        sustained, window_start = self._sustained(self.config.sim.steady_fraction)
        inferences = tot.last_inferences
        mean = inferences / duration if (inferences is not None and duration > 0) else None
        energy = tot.energy_j if tot.energy_known else None
        ipj = inferences / energy if (inferences is not None and energy) else None
        summary: dict[str, Any] = {
            "run_id": self.run_id,
            "backend": self.backend,
            "board": self.board.name,
            "policy": self.config.policy,
            "seed": self.config.seed,
            "duration_s": round(duration, 3),
            "steady_window_s": [round(window_start, 3), round(tot.last_t, 3)],
            "sustained_throughput_ips": _round(sustained),
            "mean_throughput_ips": _round(mean),
            "inferences_total": inferences,
            "latency_ms": latency_ms,
            "trip_c": self.trip_c,
            "max_fused_c": _round(tot.max_fused if tot.max_fused > -math.inf else None),
            "max_sensor_c": {s.name: _round(self._max_sensor.get(s.name)) for s in self.specs},
            "time_above_trip_s": round(tot.above_trip_s, 3),
            "energy_j": _round(energy),
            "inferences_per_joule": _round(ipj),
            "cap_changes": tot.cap_changes,
            "ticks": tot.ticks,
            **self.throttle.summary(tot.last_t),
            **self._episodes.finish(tot.last_t),
        }
        if self.schema.fan:
            hours = duration / 3600.0
            summary["fan_switches"] = tot.fan_switches
            summary["fan_switches_per_hour"] = round(tot.fan_switches / hours, 2) if hours > 0 else None
            summary["fan_level_mean"] = round(tot.fan_level_s / duration, 4) if duration > 0 else None
        if extra:
            summary.update(extra)
        write_atomic(self.run_dir / SUMMARY_FILE, json.dumps(summary, indent=2) + "\n")
        append_ledger(self.out_dir, summary, self.run_dir)
        return summary


def _round(v: float | None, digits: int = 4) -> float | None:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return None
    return round(float(v), digits)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` so that readers see the old file or the whole new one, never a part.

    A sweep's ``--resume`` takes a run folder with a ``summary.json`` as complete, so a process
    killed mid-write must not leave a truncated one: write a temporary file in the same folder,
    flush it to disk, then ``os.replace`` it in (atomic on POSIX, rename(2)).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with writing(path, partial=tmp), tmp.open("w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def append_ledger(out_dir: Path, summary: dict[str, Any], run_dir: Path) -> None:
    """Append one row to ``runs.csv``; safe when several processes finish runs at once.

    Sweep workers share one ledger.  An exclusive ``flock(2)`` around "header if empty, then the
    row" keeps the header single and rows whole (O_APPEND alone does not cover the header test).
    """
    path = out_dir / LEDGER_FILE
    # The folder as every line prints it: a name that is not UTF-8 (a --out path's byte, held by
    # Python as a lone surrogate) as the text \xff, not an encode error after the run's end.
    row = [summary.get(c, "") for c in LEDGER_COLUMNS[:-1]] + [printable(str(run_dir))]
    row = ["" if v is None else v for v in row]
    with writing(path), path.open("a", newline="", encoding="utf-8") as fh:
        _lock(fh)
        w = csv.writer(fh, lineterminator="\n")
        if fh.seek(0, os.SEEK_END) == 0:
            w.writerow(LEDGER_COLUMNS)
        w.writerow(row)
        fh.flush()
        os.fsync(fh.fileno())


def _lock(fh: Any) -> None:
    """Exclusive advisory lock, released when ``fh`` closes (no-op where fcntl is missing)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    fcntl.flock(fh.fileno(), fcntl.LOCK_EX)


def load_summary(run_dir: Path | str) -> dict[str, Any]:
    return json.loads((Path(run_dir) / SUMMARY_FILE).read_text(encoding="utf-8"))
