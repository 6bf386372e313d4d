"""Figures of runs on one shared time axis: temperatures, clocks, throughput, load and power.

The panels answer the questions one asks of any run, simulated or imported: how hot did each
sensor get against the run's own release..trip band, what caps did the governor set and what
clocks did the board really run (firmware throttling shows as a gap between the two), what
throughput came out of it, how busy the CPU was (imported logs record load, not inferences),
and at what power.  Only panels some run has data for are drawn.  Several runs overlay in the
same axes, one colour per run, series told apart by line style and marker; the time axis
switches to minutes or hours for long runs.

matplotlib is imported inside :func:`plot_runs` only: this module may be imported by the
``plot`` command and by notebooks, never by the governor core or the board daemon.  Figures
are built with ``matplotlib.figure.Figure`` directly (no pyplot state), which renders on any
backend, headless included, and leaks nothing between calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np

from thermogov.cliopts import not_a_file
from thermogov.exitstatus import writing
from thermogov.importers.runfolder import LOAD_SUFFIX, RAIL_SUFFIX
from thermogov.interfaces import LogFormatError, ThermogovError
from thermogov.runs import CONFIG_FILE, SUMMARY_FILE
from thermogov.trace import TRACE_FILE, TraceSchema, read_csv_columns

PANELS = ("Temperature", "Frequency", "Throughput", "Load", "Power")
YLABELS = {
    "Temperature": "temperature (°C)",
    "Frequency": "frequency (MHz)",
    "Throughput": "throughput (inf/s)",
    "Load": "utilisation (%)",
    "Power": "power (W)",
}
BAND_GID = "thermal-band"
NO_DATA_GID = "no-data"
# A legend longer than this is folded: one entry per run (its colour) plus one per series
# (its line style), instead of every run x series pair, so it fits beside a panel.
MAX_LEGEND_ENTRIES = 10
NOT_A_TRACE = "not a thermogov trace (no t_s column); pass a run folder or trace.csv"
# Relative slack on the throughput window, far above a decimal's rounding and far below a tick.
WINDOW_SLACK = 1e-6

RunSource: TypeAlias = str | Path | Mapping[str, Sequence[Any]]
# what the plotting calls take: a source, or a run already loaded (the plot command loads first)
RunLike: TypeAlias = "RunSource | RunData"


@dataclass(frozen=True)
class RunData:
    """One run ready to draw: its columns, its summary (if it had one) and where it came from."""

    columns: Mapping[str, Sequence[Any]]
    summary: Mapping[str, Any] | None
    origin: str

    config: Mapping[str, Any] | None = None

    @property
    def band_c(self) -> tuple[float, float]:
        """(release, trip) the run was governed and judged by: the summary's trip, the policy
        section of the run's config.toml, the policy's own defaults for what neither says."""
        from thermogov.policies.hysteresis import read_band
        from thermogov.tomlcheck import Table

        cfg = self.config or {}
        policy = str((self.summary or {}).get("policy") or cfg.get("run", {}).get("policy") or "")
        section = dict(cfg.get("policies", {}).get(policy.partition(":")[0], {}))
        trip = (self.summary or {}).get("trip_c")
        if isinstance(trip, int | float):
            section["trip_c"] = float(trip)
        try:
            trip_c, release_c = read_band(Table(section, "policies"))
        except ThermogovError:  # a release above the trip: show the trip alone
            trip_c = float(section.get("trip_c", 85.0))
            release_c = trip_c
        return release_c, trip_c

    @property
    def trip_c(self) -> float:
        return self.band_c[1]

    def default_label(self, index: int) -> str:
        s = self.summary or {}
        if s.get("policy"):
            return str(s["policy"])
        if s.get("backend") == "import" and s.get("source"):
            return f"import {Path(str(s['source'])).name}"
        return f"run {index + 1}" if self.origin == "<columns>" else Path(self.origin).name


def load_run(item: RunSource) -> RunData:
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
            if json_document(p):
                raise LogFormatError(
                    f"{p}: a JSON file (a run's summary.json or a daemon's state.json), not a trace; "
                    f"plot takes a run folder or its {TRACE_FILE}"
                )
        else:
            why = not_a_file(p)  # a named pipe, a device, a link loop: said as such (session 23)
            if why:
                raise LogFormatError(f"{p}: {why}; pass a run folder or a trace CSV file")
            raise LogFormatError(f"{p}: no such run folder or trace file; check the path")
        try:
            columns = read_csv_columns(trace)
        except LogFormatError:
            if not _has_time_header(trace):  # a config.toml: "7: 0 cells for 1 columns; corrupt"
                raise LogFormatError(f"{p}: {NOT_A_TRACE}") from None
            raise
        summary = _read_summary(summary_path) if summary_path.is_file() else None
        config = _read_config(summary_path.parent / CONFIG_FILE)
        origin = str(p)
    if "t_s" not in columns:
        raise LogFormatError(f"{origin}: {NOT_A_TRACE}")
    if not columns["t_s"]:
        raise LogFormatError(f"{origin}: the trace has no rows; nothing to plot")
    if any(not isinstance(v, int | float) for v in columns["t_s"]):
        raise LogFormatError(f"{origin}: t_s holds non-numbers; not a thermogov trace")
    return RunData(columns, summary, origin, config if not isinstance(item, Mapping) else None)


# An object, or an array whose first item is a value: a TOML file's ``[table]`` or
# ``[[array.of.tables]]`` header starts with a name, which no JSON array does.
_JSON_START = re.compile(rb'\s*(\{|\[\s*[\]\{"\-0-9]|\[\s*\[\s*[\[\]\{"\-0-9])')


def _has_time_header(path: Path) -> bool:
    """Whether the first line of ``path`` names a ``t_s`` column, as every trace's header does."""
    try:
        with path.open("rb") as f:
            first = f.readline(65536).decode("utf-8", "replace").removeprefix("\ufeff")
    except OSError:
        return True  # the read error itself is the message
    return "t_s" in (c.strip() for c in first.split(","))


def json_document(path: Path) -> bool:
    """Whether ``path`` starts (after blanks and a byte-order mark) as a JSON object or array
    does, which no CSV header and no TOML file does.  ``plot summary.json`` said "2 cells for 1 columns; file
    is corrupt" (true of it as CSV, but the user gave the wrong file, session 31h's leftover)."""
    try:
        with path.open("rb") as f:
            head = f.read(64)
    except OSError:
        return False  # read_csv_columns says why
    return _JSON_START.match(head.removeprefix(b"\xef\xbb\xbf")) is not None


def _read_config(path: Path) -> dict[str, Any] | None:
    """The run's config.toml as plain tables (only for its trip/release); damaged -> None."""
    from thermogov import tomlread

    if not path.is_file():  # missing, or a named pipe that would block the read forever
        return None
    try:
        return tomlread.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _read_summary(path: Path) -> dict[str, Any] | None:
    if not path.is_file():  # missing, or a named pipe that would block the read forever
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        # A damaged summary only costs the label and trip, not the plot; one nested deeper than
        # the parser recurses (``[[[...]]]``) was an internal error (hostile round 29h).
        return None
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
    # The sample exactly one window back belongs to the window: times read back from a trace's
    # decimals differ from a multiple of the period by an ulp either way, so without the slack a
    # window of one period left a third of the points empty at random (session 32h).
    start = np.searchsorted(t, t - window_s * (1 + WINDOW_SLACK), side="left")
    dt = t - t[start]
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(dt > 0, (n - n[start]) / np.where(dt > 0, dt, 1.0), np.nan)
    out[ok] = rate
    return out


def time_axis(span_s: float) -> tuple[float, str]:
    """(seconds per unit, unit) for a run of ``span_s``: seconds up to 15 min, minutes up to
    3 h, hours beyond, so the tick labels of a long run stay readable numbers."""
    if span_s <= 900:
        return 1.0, "s"
    if span_s <= 3 * 3600:
        return 60.0, "min"
    return 3600.0, "h"


def _has(run: RunData, panel: str) -> bool:
    cols = run.columns
    if panel == "Temperature":
        return any(_series(cols, c) is not None for c in cols if c.endswith("_c"))
    if panel == "Frequency":
        return any(_series(cols, c) is not None for c in cols if c.endswith(("_cap_hz", "_freq_hz")))
    if panel == "Throughput":
        return _series(cols, "inferences_total") is not None
    if panel == "Load":
        return any(_series(cols, c) is not None for c in cols if c.endswith(LOAD_SUFFIX))
    return _series(cols, "power_w") is not None or any(
        _series(cols, c) is not None for c in cols if c.endswith(RAIL_SUFFIX)
    )


def panels_for(runs: Sequence[RunLike]) -> list[str]:
    """The panels with data in at least one run, in :data:`PANELS` order (temperature always):
    an imported log without throughput or power gets no empty panels."""
    data = [r if isinstance(r, RunData) else load_run(r) for r in runs]
    return [p for p in PANELS if p == "Temperature" or any(_has(r, p) for r in data)]


def plot_runs(
    runs: Sequence[RunLike],
    labels: Sequence[str] | None = None,
    ax: Sequence[Any] | None = None,
    *,
    throughput_window_s: float = 10.0,
    title: str | None = None,
) -> Any:
    """Draw runs into stacked panels sharing the time axis; returns the Figure.

    ``runs``: run folders, trace CSVs or dicts of columns (``load_trace`` output).  ``labels``:
    one per run (default: the policy from summary.json).  Only panels with data are drawn
    (:func:`panels_for`); ``ax``, if given, must hold one Axes per such panel.  The shaded band
    spans each run's release to its trip (:attr:`RunData.band_c`).
    """
    from matplotlib.figure import Figure

    if not runs:
        raise ValueError("plot_runs: give at least one run")
    data = [r if isinstance(r, RunData) else load_run(r) for r in runs]
    names = _labels(data, labels)
    panels = panels_for(data)
    if ax is None:
        fig = Figure(figsize=(11, 2.0 + 1.9 * len(panels)), layout="constrained")
        axes = list(np.atleast_1d(fig.subplots(len(panels), 1, sharex=True)))
    else:
        axes = list(ax)
        if len(axes) != len(panels):
            raise ValueError(f"ax: need {len(panels)} axes ({', '.join(panels)}), got {len(axes)}")
        fig = axes[0].figure
    by_panel = dict(zip(panels, axes, strict=True))
    span = max(float(np.nanmax(np.asarray(_series(r.columns, "t_s")))) for r in data)
    scale, unit = time_axis(span)
    for lo, hi in sorted({r.band_c for r in data}):
        by_panel["Temperature"].axhspan(
            lo, hi, color="tab:orange", alpha=0.12, gid=BAND_GID, label=f"band {lo:g}-{hi:g} °C"
        )
    single = len(data) == 1
    for k, (run, label) in enumerate(zip(data, names, strict=True)):
        _draw_run(by_panel, run, label, k, single, throughput_window_s, scale)

    for name, a in by_panel.items():
        a.set_title(name, loc="left", fontsize="medium")
        a.set_ylabel(YLABELS[name])
        a.grid(True, alpha=0.3)
        if a.get_lines():
            _legend(a, single)
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
    axes[-1].set_xlabel(f"time ({unit})")
    fig.suptitle(title if title is not None else " vs ".join(names))
    return fig


def _legend(a: Any, single: bool) -> None:
    """Beside the panel; folded to runs + series when the full list would not fit."""
    from matplotlib.lines import Line2D

    handles, texts = a.get_legend_handles_labels()
    if len(handles) > MAX_LEGEND_ENTRIES and not single:
        keep = [(h, t) for h, t in zip(handles, texts, strict=True) if not isinstance(h, Line2D)]  # the band
        runs: dict[str, Any] = {}
        series: dict[str, Any] = {}
        for h, t in zip(handles, texts, strict=True):
            if not isinstance(h, Line2D):
                continue
            run, _, what = t.rpartition(": ")
            runs.setdefault(run, Line2D([], [], color=h.get_color(), lw=2.0))
            series.setdefault(
                what,
                Line2D(
                    [], [], color="0.35", ls=h.get_linestyle(), marker=h.get_marker(), lw=h.get_linewidth()
                ),
            )
        pairs = [*keep, *((h, t) for t, h in runs.items()), *((h, t) for t, h in series.items())]
        handles, texts = [h for h, _ in pairs], [t for _, t in pairs]
    elif single:  # the run is named in the title: the legend names only the series
        texts = [t.rpartition(": ")[2] for t in texts]
    a.legend(
        handles,
        texts,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize="x-small",
        borderaxespad=0.0,
        ncols=1 if len(handles) <= MAX_LEGEND_ENTRIES else 2,
        handlelength=3.0,
    )


# Series of one run are told apart by colour when the run is alone and by line style (then
# marker) when runs overlay; no two series of a run share a look.
_STYLES: tuple[str, ...] = ("-", "--", "-.", ":")
_MARKERS: tuple[str, ...] = ("", "o", "s", "^", "v", "D", "x", "+")


def _style(i: int, single: bool) -> dict[str, Any]:
    if single:  # ten tab colours (C0 is left to the fused line's black), then the next style
        return {"color": f"C{(i + 1) % 10}", "ls": _STYLES[(i // 9) % len(_STYLES)]}
    dashed = _STYLES[1:]  # a solid line is the run's fused temperature
    style: dict[str, Any] = {"ls": dashed[i % len(dashed)]}
    mark = _MARKERS[(i // len(dashed)) % len(_MARKERS)]
    if mark:
        style |= {"marker": mark, "markevery": 0.1, "markersize": 3}
    return style


def _draw_run(
    panels: Mapping[str, Any], run: RunData, label: str, k: int, single: bool, window_s: float, scale: float
) -> None:
    """One run's lines (see :func:`_style`); the run's colour is one colour when runs overlay,
    because comparing runs is then the point of the figure."""
    cols = run.columns
    t_s = np.asarray(_series(cols, "t_s"))
    t = t_s / scale
    schema = TraceSchema.from_columns(list(cols))
    run_color = f"C{k % 10}"
    temp = panels["Temperature"]
    for i, sensor in enumerate(schema.sensors):
        y = _series(cols, f"{sensor}_c")
        if y is None:
            continue
        style = _style(i, single)
        color = style.pop("color", run_color)
        temp.plot(
            t, y, color=color, lw=0.9, alpha=1.0 if single else 0.8, label=f"{label}: {sensor}", **style
        )
    fused = _series(cols, "fused_c")
    if fused is not None:
        temp.plot(t, fused, color="k" if single else run_color, lw=1.8, label=f"{label}: fused")
    if "Frequency" in panels:
        freq_domains = [c[: -len("_freq_hz")] for c in cols if c.endswith("_freq_hz")]
        for j, domain in enumerate(dict.fromkeys([*schema.domains, *freq_domains])):
            color = f"C{j % 10}" if single else run_color
            alpha = 1.0 if single else _DOMAIN_ALPHA[min(j, len(_DOMAIN_ALPHA) - 1)]
            cap = _series(cols, f"{domain}_cap_hz", 1e-6)
            freq = _series(cols, f"{domain}_freq_hz", 1e-6)
            if cap is not None:
                panels["Frequency"].step(
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
                panels["Frequency"].step(
                    t, freq, where="post", color=color, alpha=alpha, lw=1.4, label=f"{label}: {domain} freq"
                )
    totals = _series(cols, "inferences_total")
    if totals is not None and "Throughput" in panels:
        rate = rolling_rate(t_s, totals, window_s)
        panels["Throughput"].plot(
            t, rate, color=run_color, lw=1.2, label=f"{label}: throughput ({window_s:g} s)"
        )
    if "Load" in panels:
        loads = [c for c in cols if c.endswith(LOAD_SUFFIX)]
        for j, c in enumerate(loads):
            y = _series(cols, c, 100.0)
            if y is not None:
                style = _style(j, single)
                color = style.pop("color", run_color)
                panels["Load"].plot(
                    t, y, color=color, lw=1.0, label=f"{label}: {c[: -len(LOAD_SUFFIX)]}", **style
                )
    if "Power" in panels:
        power = _series(cols, "power_w")
        if power is not None:
            panels["Power"].plot(
                t, power, color="k" if single else run_color, lw=1.2, label=f"{label}: power"
            )
        rails = [c for c in cols if c.endswith(RAIL_SUFFIX)]
        # rails beside the total only when they split it (one rail equal to the total is noise)
        if power is not None and (not single or len(rails) < 2):
            rails = []
        for j, c in enumerate(rails):
            y = _series(cols, c)
            if y is not None:
                style = _style(j, single)
                color = style.pop("color", run_color)
                panels["Power"].plot(
                    t, y, color=color, lw=0.9, label=f"{label}: {c[: -len(RAIL_SUFFIX)]} rail", **style
                )


_DOMAIN_ALPHA = (1.0, 0.6, 0.35, 0.2)


def save_figure(fig: Any, path: Path | str, dpi: int = 110) -> Path:
    """Write a figure as PNG (or whatever the suffix names); matplotlib picks a file canvas
    (Agg for PNG) by itself, so this never needs a display."""
    out = Path(path)
    with writing(out):
        fig.savefig(out, dpi=dpi)
    return out
