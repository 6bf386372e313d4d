"""Figures of runs on one shared time axis: temperatures, clocks, throughput and power.

The four panels answer the questions one asks of any run, simulated or imported: how hot did
each sensor get against the 70/85 °C band, what caps did the governor set and what clocks did
the board really run (firmware throttling shows as a gap between the two), what throughput
came out of it, and at what power.  Several runs overlay in the same axes, one colour per run,
so policies can be compared at a glance.

matplotlib is imported inside :func:`plot_runs` only: this module may be imported by the
``plot`` command and by notebooks, never by the governor core or the board daemon.  Figures
are built with ``matplotlib.figure.Figure`` directly (no pyplot state), which renders on any
backend, headless included, and leaks nothing between calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from thermogov.interfaces import LogFormatError
from thermogov.runs import SUMMARY_FILE
from thermogov.trace import TRACE_FILE, TraceSchema, read_csv_columns

PANELS = ("Temperature", "Frequency", "Throughput", "Power")
YLABELS = ("temperature (°C)", "frequency (MHz)", "throughput (inf/s)", "power (W)")
DEFAULT_TRIP_C = 85.0
DEFAULT_RELEASE_C = 70.0
BAND_GID = "thermal-band"
NO_DATA_GID = "no-data"

RunLike = str | Path | Mapping[str, Sequence[Any]]


@dataclass(frozen=True)
class RunData:
    """One run ready to draw: its columns, its summary (if it had one) and where it came from."""

    columns: Mapping[str, Sequence[Any]]
    summary: Mapping[str, Any] | None
    origin: str

    @property
    def trip_c(self) -> float:
        v = (self.summary or {}).get("trip_c")
        return float(v) if isinstance(v, int | float) else DEFAULT_TRIP_C

    def default_label(self, index: int) -> str:
        s = self.summary or {}
        if s.get("policy"):
            return str(s["policy"])
        if s.get("backend") == "import" and s.get("source"):
            return f"import {Path(str(s['source'])).name}"
        return f"run {index + 1}" if self.origin == "<columns>" else Path(self.origin).name


def load_run(item: RunLike) -> RunData:
    """A run folder, a trace CSV or a dict of columns -> RunData; bad input -> LogFormatError.

    The checks are done before any drawing so the ``plot`` command can refuse bad input
    without writing a file.
    """
    if isinstance(item, Mapping):
        columns, summary, origin = item, None, "<columns>"
    else:
        p = Path(item)
        if p.is_dir():
            trace = p / TRACE_FILE
            if not trace.is_file():
                raise LogFormatError(f"{p}: no {TRACE_FILE} in this folder; pass a run folder or a trace CSV")
            summary_path = p / SUMMARY_FILE
        elif p.is_file():
            trace = p
            summary_path = p.parent / SUMMARY_FILE
        else:
            raise LogFormatError(f"{p}: no such run folder or trace file; check the path")
        columns = read_csv_columns(trace)
        summary = _read_summary(summary_path) if summary_path.is_file() else None
        origin = str(p)
    if "t_s" not in columns:
        raise LogFormatError(
            f"{origin}: not a thermogov trace (no t_s column); pass a run folder or trace.csv"
        )
    if not columns["t_s"]:
        raise LogFormatError(f"{origin}: the trace has no rows; nothing to plot")
    if any(not isinstance(v, int | float) for v in columns["t_s"]):
        raise LogFormatError(f"{origin}: t_s holds non-numbers; not a thermogov trace")
    return RunData(columns, summary, origin)


def _read_summary(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # a damaged summary only costs the label and trip, not the plot
    return data if isinstance(data, dict) else None


def _labels(runs: Sequence[RunData], given: Sequence[str] | None) -> list[str]:
    if given is not None:
        if len(given) != len(runs):
            raise ValueError(f"labels: {len(given)} label(s) for {len(runs)} run(s)")
        return list(given)
    labels = [r.default_label(i) for i, r in enumerate(runs)]
    # Two runs of the same policy (say, on two boards) must still be told apart.
    for i, lab in enumerate(labels):
        if labels.count(lab) > 1:
            board = (runs[i].summary or {}).get("board")
            labels[i] = f"{lab} ({board})" if board else lab
    for i, lab in enumerate(labels):
        if labels.count(lab) > 1:
            labels[i] = f"{lab} #{i + 1}"
    return labels


def _series(columns: Mapping[str, Sequence[Any]], name: str, scale: float = 1.0) -> np.ndarray | None:
    """Column as floats with gaps as NaN; None when the column is absent or entirely empty."""
    values = columns.get(name)
    if values is None:
        return None
    arr = np.array([v if isinstance(v, int | float) else np.nan for v in values], dtype=float)
    if not np.isfinite(arr).any():
        return None
    return arr * scale


def rolling_rate(t_s: np.ndarray, totals: np.ndarray, window_s: float) -> np.ndarray:
    """Completions per second over the trailing ``window_s`` (shorter at the start of the run).

    A cumulative counter differenced over a window is what a user reads as throughput; the
    per-tick difference would show the batcher's quantisation, not the rate.
    """
    ok = np.isfinite(totals)
    out = np.full(len(t_s), np.nan)
    if ok.sum() < 2:
        return out
    t, n = t_s[ok], totals[ok]
    start = np.searchsorted(t, t - window_s, side="left")
    dt = t - t[start]
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(dt > 0, (n - n[start]) / np.where(dt > 0, dt, 1.0), np.nan)
    out[ok] = rate
    return out


def plot_runs(
    runs: Sequence[RunLike],
    labels: Sequence[str] | None = None,
    ax: Sequence[Any] | None = None,
    *,
    throughput_window_s: float = 10.0,
    release_c: float = DEFAULT_RELEASE_C,
    title: str | None = None,
) -> Any:
    """Draw runs into four stacked panels sharing the time axis; returns the Figure.

    ``runs``: run folders, trace CSVs or dicts of columns (``load_trace`` output).  ``labels``:
    one per run (default: the policy from summary.json).  ``ax``: four Axes to draw into
    (default: a new figure).  The shaded band spans ``release_c`` to each run's ``trip_c``
    (from its summary; 85 °C when unknown).
    """
    from matplotlib.figure import Figure

    if not runs:
        raise ValueError("plot_runs: give at least one run")
    data = [r if isinstance(r, RunData) else load_run(r) for r in runs]
    names = _labels(data, labels)
    if ax is None:
        fig = Figure(figsize=(10, 9), layout="constrained")
        axes = list(fig.subplots(len(PANELS), 1, sharex=True))
    else:
        axes = list(ax)
        if len(axes) != len(PANELS):
            raise ValueError(f"ax: need {len(PANELS)} axes ({', '.join(PANELS)}), got {len(axes)}")
        fig = axes[0].figure
    bands = sorted({(min(release_c, r.trip_c), r.trip_c) for r in data})
    for lo, hi in bands:
        axes[0].axhspan(lo, hi, color="tab:orange", alpha=0.12, gid=BAND_GID, label=f"band {lo:g}-{hi:g} °C")
    single = len(data) == 1
    for k, (run, label) in enumerate(zip(data, names, strict=True)):
        _draw_run(axes, run, label, k, single, throughput_window_s)

    for a, name, ylabel in zip(axes, PANELS, YLABELS, strict=True):
        a.set_title(name, loc="left", fontsize="medium")
        a.set_ylabel(ylabel)
        a.grid(True, alpha=0.3)
        if a.get_lines():
            a.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="x-small", borderaxespad=0.0)
        else:
            a.text(
                0.5,
                0.5,
                "no data in these runs",
                transform=a.transAxes,
                ha="center",
                va="center",
                gid=NO_DATA_GID,
            )
    axes[-1].set_xlabel("time (s)")
    fig.suptitle(title if title is not None else " vs ".join(names))
    return fig


_SENSOR_STYLES: tuple[Any, ...] = (":", "-.", (0, (3, 1, 1, 1)), (0, (1, 1)), "--")
_DOMAIN_ALPHA = (1.0, 0.6, 0.35, 0.2)


def _draw_run(axes: Sequence[Any], run: RunData, label: str, k: int, single: bool, window_s: float) -> None:
    """One run's lines.  Alone, every series gets its own colour; overlaid, each run gets one
    colour and series are told apart by line style (sensors) or opacity (domains), because
    comparing runs is then the point of the figure."""
    cols = run.columns
    t = np.asarray(_series(cols, "t_s"))
    schema = TraceSchema.from_columns(list(cols))
    run_color = f"C{k % 10}"
    for i, sensor in enumerate(schema.sensors):
        y = _series(cols, f"{sensor}_c")
        if y is None:
            continue
        if single:
            axes[0].plot(t, y, color=f"C{(i + 1) % 10}", lw=0.9, label=f"{label}: {sensor}")
        else:
            style = _SENSOR_STYLES[i % len(_SENSOR_STYLES)]
            axes[0].plot(t, y, color=run_color, lw=0.8, alpha=0.7, ls=style, label=f"{label}: {sensor}")
    fused = _series(cols, "fused_c")
    if fused is not None:
        axes[0].plot(t, fused, color="k" if single else run_color, lw=1.8, label=f"{label}: fused")
    freq_domains = [c[: -len("_freq_hz")] for c in cols if c.endswith("_freq_hz")]
    for j, domain in enumerate(dict.fromkeys([*schema.domains, *freq_domains])):
        color = f"C{j % 10}" if single else run_color
        alpha = 1.0 if single else _DOMAIN_ALPHA[min(j, len(_DOMAIN_ALPHA) - 1)]
        cap = _series(cols, f"{domain}_cap_hz", 1e-6)
        freq = _series(cols, f"{domain}_freq_hz", 1e-6)
        if cap is not None:
            axes[1].step(
                t,
                cap,
                where="post",
                color=color,
                alpha=alpha,
                lw=1.0,
                ls="--",
                label=f"{label}: {domain} cap",
            )
        if freq is not None:
            axes[1].step(
                t, freq, where="post", color=color, alpha=alpha, lw=1.4, label=f"{label}: {domain} freq"
            )
    totals = _series(cols, "inferences_total")
    if totals is not None:
        rate = rolling_rate(t, totals, window_s)
        axes[2].plot(t, rate, color=run_color, lw=1.2, label=f"{label}: throughput ({window_s:g} s)")
    power = _series(cols, "power_w")
    if power is not None:
        axes[3].plot(t, power, color=run_color, lw=1.0, label=f"{label}: power")


def save_figure(fig: Any, path: Path | str, dpi: int = 110) -> Path:
    """Write a figure as PNG (or whatever the suffix names); matplotlib picks a file canvas
    (Agg for PNG) by itself, so this never needs a display."""
    out = Path(path)
    fig.savefig(out, dpi=dpi)
    return out
